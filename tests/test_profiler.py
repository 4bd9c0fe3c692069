"""mx.profiler over jax.profiler: a profile of the seed's training loop (its LeNet, split_and_load over
two devices, record/backward/trainer.step) written by mx.profiler is a Chrome-trace JSON file holding the
step's compiled programs inside the user's frames, plus counters and markers; pause/resume and the
aggregate table work."""

from __future__ import annotations

import json
import logging
import os

import pytest

from framework import autograd, gluon, np, npx, profiler
from framework.gluon import nn


def _seed_loop():
    net = nn.Sequential()
    net.add(
        nn.Conv2D(channels=6, kernel_size=5, activation="relu"),
        nn.MaxPool2D(pool_size=2, strides=2),
        nn.Conv2D(channels=16, kernel_size=3, activation="relu"),
        nn.MaxPool2D(pool_size=2, strides=2),
        nn.Dense(120, activation="relu"),
        nn.Dense(84, activation="relu"),
        nn.Dense(10),
    )
    devices = [npx.cpu(0), npx.cpu(1)]
    net.collect_params().initialize(force_reinit=True, ctx=devices)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    x, y = np.random.uniform(size=(8, 1, 28, 28)), np.zeros((8,))

    def step():
        data_list = gluon.utils.split_and_load(x, devices)
        label_list = gluon.utils.split_and_load(y, devices)
        with autograd.record():
            losses = [loss_fn(net(X), Y) for X, Y in zip(data_list, label_list, strict=True)]
        for loss in losses:
            loss.backward()
        trainer.step(8)

    return step


@pytest.fixture
def stopped_profiler():
    yield
    profiler.set_state("stop")


def test_profile_of_the_seed_loop_holds_the_steps_programs(tmp_path, caplog, stopped_profiler):
    import jax

    from framework import _compile

    step = _seed_loop()
    # programs an earlier test in this process compiled would run without a compile to log: forget them
    _compile.clear_caches()
    jax.clear_caches()
    with caplog.at_level(logging.WARNING, logger="jax._src.dispatch"):
        with jax.log_compiles(True):
            step()  # compiles the step's programs; their names are logged
    compiled = {
        r.getMessage().split("Finished XLA compilation of jit(")[1].split(") in ")[0]
        for r in caplog.records
        if "Finished XLA compilation of jit(" in r.getMessage()
    }
    step()
    npx.waitall()
    path = tmp_path / "profile.json"
    profiler.set_config(filename=str(path), aggregate_stats=True)
    profiler.set_state("run")
    domain = profiler.Domain("train")
    counter = profiler.Counter(domain, "steps", 0)
    for _ in range(2):
        with profiler.Frame(domain, "train_step"):
            step()
            npx.waitall()
        counter += 1
        profiler.Marker(domain, "step_done").mark()
    profiler.set_state("stop")
    profiler.dump()

    events = json.loads(path.read_text())["traceEvents"]
    frames = [e for e in events if e.get("name") == "train_step" and e.get("ph") == "X"]
    assert len(frames) == 2
    programs = [e for e in events if e.get("ph") == "X" and e.get("name", "").startswith("PjitFunction(")]
    names = {e["name"][len("PjitFunction(") : -1] for e in programs}
    # the programs in the trace are the step's own (compiled by its first run), and each profiled
    # frame ran all of them
    assert len(names) >= 2 and names <= compiled, (names, compiled)
    for f in frames:
        inside = {p["name"] for p in programs if f["ts"] <= p["ts"] <= f["ts"] + f["dur"]}
        assert inside == {f"PjitFunction({n})" for n in names}
    assert [e["args"]["steps"] for e in events if e.get("ph") == "C"] == [0, 1, 2]
    assert sum(1 for e in events if e.get("ph") == "i" and e["name"] == "step_done") == 2
    assert any(f.endswith(".xplane.pb") for _, _, files in os.walk(tmp_path / "profile_jax") for f in files)
    table = profiler.dumps()
    assert "train_step" in table and "Total Count" in table
    assert json.loads(profiler.dumps(format="json"))["Time"]["train_step"]["Count"] == 2


def test_pause_resume_and_errors(tmp_path, stopped_profiler):
    import jax.numpy as jnp

    profiler.set_config(filename=str(tmp_path / "p.json"))
    profiler.set_state("run")
    with profiler.Event("before"):
        jnp.ones(3).block_until_ready()
    profiler.pause()
    with profiler.Event("hidden"):
        jnp.ones(3).block_until_ready()
    profiler.resume()
    task = profiler.Task(profiler.Domain("d"), "after")
    task.start()
    jnp.ones(3).block_until_ready()
    task.stop()
    profiler.dump()
    names = {e.get("name") for e in json.loads((tmp_path / "p.json").read_text())["traceEvents"]}
    assert {"before", "after"} <= names and "hidden" not in names
    with pytest.raises(TypeError, match="unknown arguments"):
        profiler.set_config(bogus=1)
    with pytest.raises(ValueError, match="expected 'run' or 'stop'"):
        profiler.set_state("go")
