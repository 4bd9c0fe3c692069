"""Data parallelism: both training paths, 1/2/4 devices, multi-host over 127.0.0.1."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import jax
import numpy as onp
import pytest

from framework import autograd, gluon, np, npx, parallel
from framework.gluon import nn

ROOT = Path(__file__).resolve().parents[1]


def make_net():
    np.random.seed(7)
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, 3, activation="relu"), nn.MaxPool2D(2, 2), nn.Dense(16, activation="relu"),
            nn.Dense(5))
    net.initialize()
    net(np.ones((1, 1, 10, 10)))
    return net


def batches(k=3, size=8):
    rng = onp.random.RandomState(0)
    return [(rng.rand(size, 1, 10, 10).astype(onp.float32), rng.randint(0, 5, size).astype(onp.int32))
            for _ in range(k)]


def params_of(net):
    return {k: onp.asarray(p.data()) for k, p in net.collect_params().items()}


def gluon_loop(devices, data, optimizer=("sgd", {"learning_rate": 0.1, "momentum": 0.9})):
    net = make_net()
    net.collect_params().initialize(force_reinit=True, ctx=devices)
    np.random.seed(7)
    net.collect_params().initialize(force_reinit=True, ctx=devices)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), *optimizer)
    for x, y in data:
        xs = gluon.utils.split_and_load(x, devices)
        ys = gluon.utils.split_and_load(y, devices)
        with autograd.record():
            losses = [loss_fn(net(a), b) for a, b in zip(xs, ys, strict=True)]
        for l in losses:
            l.backward()
        trainer.step(x.shape[0])
    reps = [p.list_data() for p in net.collect_params().values()]
    for rep in reps:  # replicas identical
        for r in rep[1:]:
            onp.testing.assert_array_equal(r, rep[0])
    return params_of(net)


def compiled(devices, data):
    net = make_net()
    np.random.seed(7)
    net.collect_params().initialize(force_reinit=True)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    step = parallel.DataParallel(net, gluon.loss.SoftmaxCrossEntropyLoss(), trainer, devices=devices)
    for x, y in data:
        step(x, y)
    step.sync()
    return params_of(net)


def close(a, b, tol=2e-5):
    assert a.keys() == b.keys()
    for k in a:
        onp.testing.assert_allclose(a[k], b[k], rtol=tol, atol=tol, err_msg=k)


@pytest.mark.parametrize("n", [2, 4])
def test_gluon_loop_n_devices_equals_one(n):
    data = batches()
    close(gluon_loop([npx.cpu(i) for i in range(n)], data), gluon_loop([npx.cpu(0)], data))


@pytest.mark.parametrize("n", [1, 2, 4])
def test_compiled_step_n_devices_equals_one_device_loop(n):
    data = batches()
    close(compiled(jax.devices()[:n], data), gluon_loop([npx.cpu(0)], data))


def test_device_named_twice_trains_like_one():
    data = batches()
    close(gluon_loop([npx.cpu(0), npx.cpu(0)], data), gluon_loop([npx.cpu(0)], data))


def test_uneven_batch_is_padded_and_masked():
    data = [(x[:6], y[:6]) for x, y in batches()]
    close(compiled(jax.devices()[:4], data), gluon_loop([npx.cpu(0)], data))


@pytest.mark.parametrize("steps_per_program", [2, None])
def test_epoch_program_equals_steps(steps_per_program):
    net_a, net_b = make_net(), make_net()
    rng = onp.random.RandomState(3)
    x = rng.rand(20, 1, 10, 10).astype(onp.float32)
    y = rng.randint(0, 5, 20).astype(onp.int32)
    ta = gluon.Trainer(net_a.collect_params(), "sgd", {"learning_rate": 0.1})
    tb = gluon.Trainer(net_b.collect_params(), "sgd", {"learning_rate": 0.1})
    step_a = parallel.DataParallel(net_a, gluon.loss.SoftmaxCrossEntropyLoss(), ta, devices=jax.devices()[:2])
    step_b = parallel.DataParallel(net_b, gluon.loss.SoftmaxCrossEntropyLoss(), tb, devices=jax.devices()[:2])
    losses = step_a.epoch(x, y, batch_size=8, shuffle=False, steps_per_program=steps_per_program)
    for i in range(0, 20, 8):
        step_b(x[i:i + 8], y[i:i + 8], batch_size=8)
    step_a.sync()
    step_b.sync()
    assert losses.shape == (3,)
    close(params_of(net_a), params_of(net_b))


def test_an_epoch_on_cpus_is_one_scan_program_by_default(monkeypatch):
    net = make_net()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    step = parallel.DataParallel(net, loss, trainer, devices=jax.devices()[:2])
    used = []
    program = step._program
    monkeypatch.setattr(step, "_program", lambda name, *a, **k: used.append(name) or program(name, *a, **k))
    x = onp.random.RandomState(0).rand(40, 1, 10, 10).astype(onp.float32)
    losses = step.epoch(x, onp.zeros(40, onp.int32), batch_size=4)
    assert losses.shape == (10,) and used == ["order", "scan"]  # not 8 + 2 unrolled steps


def test_a_batch_buffer_filled_again_leaves_the_step_its_batch():
    """MXNet copies a batch onto the devices: a NumPy buffer refilled after ``step(x, y)`` returns (the
    step may not have run yet) does not change what the step reads."""
    from tests.conftest import aligned_host

    net = make_net()
    step = parallel.DataParallel(net, gluon.loss.SoftmaxCrossEntropyLoss(),
                                 gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1}),
                                 devices=jax.devices()[:2])
    buffer = aligned_host((4, 1, 10, 10), 0.5)
    placed = step._shard(buffer, 4)
    buffer[:] = 7.0
    assert float(onp.abs(onp.asarray(placed) - 0.5).max()) == 0.0


def test_split_data_error_text():
    with pytest.raises(ValueError, match="cannot be evenly split into 3 slices along axis 0. Use a batch "
                       "size that's multiple of 3 or set even_split=False"):
        gluon.utils.split_data(np.ones((8, 2)), 3)
    parts = gluon.utils.split_data(np.arange(8), 3, even_split=False)
    assert [p.shape[0] for p in parts] == [3, 3, 2]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(tmp_path, n_proc, devices, extra=()):
    port = free_port()
    procs = []
    for pid in range(n_proc):
        cmd = [sys.executable, str(ROOT / "tests" / "parallel_worker.py"), "--devices", str(devices),
               "--out", str(tmp_path / "out.npz"), "--process-id", str(pid)]
        if n_proc > 1:
            cmd += ["--num-processes", str(n_proc), "--coordinator", f"127.0.0.1:{port}"]
        procs.append(subprocess.Popen([*cmd, *extra], cwd=ROOT, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, env={**os.environ, "PYTHONPATH": str(ROOT)}))
    return procs


def test_two_processes_match_four_devices(tmp_path):
    single = tmp_path / "single"
    single.mkdir()
    (p,) = launch(single, 1, 4)
    out, _ = p.communicate(timeout=120)
    assert p.returncode == 0, out.decode()[-2000:]
    multi = tmp_path / "multi"
    multi.mkdir()
    procs = launch(multi, 2, 2)
    try:
        outs = [q.communicate(timeout=120)[0].decode() for q in procs]
    finally:
        for q in procs:
            q.kill()
    assert all(q.returncode == 0 for q in procs), "\n".join(o[-2000:] for o in outs)
    a, b = onp.load(single / "out.npz"), onp.load(multi / "out.npz")
    for k in a.files:
        onp.testing.assert_allclose(a[k], b[k], rtol=1e-5, atol=1e-6, err_msg=k)


def test_dead_peer_makes_survivor_exit_nonzero(tmp_path):
    procs = launch(tmp_path, 2, 2, extra=("--steps", "50", "--hang-after", "1"))
    start = time.monotonic()
    try:
        rc0 = procs[0].wait(timeout=150)
    finally:
        for q in procs:
            q.kill()
    assert rc0 != 0
    assert time.monotonic() - start < 150
