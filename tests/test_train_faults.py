"""The main job under faults: SIGKILL at 20 random points (inside the checkpoint write too) then
``--resume`` gives bit-identical parameters; a second run on the same ``--out`` refuses (exit 5) and
changes nothing; Ctrl-C is exit 130 and resumable.

Every run is its own ``python -m train`` process with one environment (XLA:CPU's float results may
differ in the last bit between differently configured processes); they share a JAX compilation cache,
so a restart costs the interpreter and the data, not the compiles.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import numpy as onp
import pytest

from train import cli, faultpoints, job

REPO = Path(__file__).resolve().parents[1]
EPOCHS, BATCHES = 3, 4  # --subset 64 --batch-size 16
SEED = int(os.environ.get("FAULT_SEED", "19"))  # the draw of kill points; any seed must pass


def _points() -> list[str]:
    """Every kill point of a run, in the order the run reaches them."""
    out = []
    for e in range(1, EPOCHS + 1):
        out += [f"{e}:batch{b}" for b in range(1, BATCHES + 1)]
        out += [f"{e}:{p}" for p in faultpoints.POINTS if p.startswith(("trained", "ckpt-"))]
    return out + [f"{EPOCHS}:{p}" for p in ("params-written", "metrics-written", "outputs-written")]


def _chains() -> list[list[str]]:
    """20 points drawn at random (seeded), split into two chains of 10 that each run a whole training."""
    every = _points()
    drawn = sorted(random.Random(SEED).sample(range(len(every)), 20))
    return [[every[i] for i in drawn[0::2]], [every[i] for i in drawn[1::2]]]


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> dict[str, str]:
    cache = tmp_path_factory.mktemp("jax-cache")
    return {**os.environ, "TQDM_DISABLE": "1", "PYTHONUNBUFFERED": "1",
            "JAX_COMPILATION_CACHE_DIR": str(cache), "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
            "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0"}


def _argv(root: Path, out: Path, *extra: str) -> list[str]:
    return ["--data-root", str(root), "--subset", "64", "--batch-size", "16", "--epochs", str(EPOCHS),
            "--loop", "gluon", "--devices", "cpu", "--out", str(out), "--params", str(out / "net.params"),
            "--progress", "off", *extra]


def _train(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "train", *argv], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300)


def _params(path: Path) -> dict[str, onp.ndarray]:
    from framework import serialization

    return serialization.load_numpy(path)


@pytest.fixture(scope="module")
def reference(tmp_path_factory, fashion_root, env) -> Path:
    """An uninterrupted run."""
    out = tmp_path_factory.mktemp("uninterrupted")
    proc = _train(env, *_argv(fashion_root, out))
    assert proc.returncode == job.EXIT_OK, proc.stdout + proc.stderr
    return out


def _same_result(a: Path, b: Path) -> None:
    import json

    pa, pb = _params(a / "net.params"), _params(b / "net.params")
    assert set(pa) == set(pb)
    for k in pa:
        assert pa[k].tobytes() == pb[k].tobytes(), f"{k} differs from the uninterrupted run"
    losses = [[r["loss"] for r in json.loads((d / "metrics.json").read_text())["epochs"]] for d in (a, b)]
    assert losses[0] == losses[1]


@pytest.mark.parametrize("chain", [0, 1])
def test_sigkill_at_random_points_then_resume_is_bit_identical(tmp_path, fashion_root, env, reference, chain):
    points = _chains()[chain]
    out = tmp_path / "killed"
    for point in points:
        proc = _train(env, *_argv(fashion_root, out, "--resume", "--_kill-at", point))
        assert proc.returncode == -signal.SIGKILL, f"seed {SEED}, point {point}:\n{proc.stdout}{proc.stderr}"
        assert f"kill point reached: {point}" in proc.stdout
    proc = _train(env, *_argv(fashion_root, out, "--resume"))
    assert proc.returncode == job.EXIT_OK, f"seed {SEED}, points {points}:\n{proc.stdout}{proc.stderr}"
    _same_result(reference, out)
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]  # interrupted writes cleaned up


def test_a_second_run_on_the_same_out_refuses_and_ctrl_c_is_resumable(tmp_path, fashion_root, env, reference,
                                                                      capsys):
    out = tmp_path / "shared"
    # the child starts as from a terminal: SIGINT handled by Python (not ignored, not blocked), whatever
    # an earlier test of this worker left (a full suite saw a child ignore it: see the status below)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    blocked = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    try:
        first = subprocess.Popen([sys.executable, "-m", "train",
                                  *_argv(fashion_root, out, "--_hang-at", "2:1")],
                                 cwd=REPO, env={**env, "PYTHONFAULTHANDLER": "1"}, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True)
    finally:
        if previous is not None:  # None: a handler set outside Python, which cannot be put back
            signal.signal(signal.SIGINT, previous)
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    try:
        seen = []
        for line in first.stdout:
            seen.append(line)
            if line.startswith("hang point reached"):
                break
        assert any(s.startswith("hang point reached: epoch 2") for s in seen), "".join(seen)
        before = (out / "checkpoint.params").read_bytes()
        for extra in ((), ("--resume",), ("--overwrite",)):
            assert cli.main(_argv(fashion_root, out, *extra)) == job.EXIT_LOCKED
            err = capsys.readouterr().err
            assert f"--out {out} is in use by another run (pid {first.pid} on " in err
            assert f"lock file {out / 'train.lock'}). Nothing was changed." in err
        assert (out / "checkpoint.params").read_bytes() == before
        assert not (out / "net.params").exists()
        status = [line for line in Path(f"/proc/{first.pid}/status").read_text().splitlines()
                  if line.startswith(("SigBlk", "SigIgn", "SigCgt"))] if sys.platform == "linux" else []
        first.send_signal(signal.SIGINT)
        try:
            rest = first.communicate(timeout=60)[0]
        except subprocess.TimeoutExpired:  # where it is: PYTHONFAULTHANDLER prints every thread's stack
            first.send_signal(signal.SIGABRT)
            pytest.fail(f"the run did not end within 60 s of SIGINT (its signal status before: {status}; "
                        f"this worker's SIGINT handler was {previous!r}, blocked {sorted(blocked)}):\n"
                        + first.communicate(timeout=60)[0])
    finally:
        first.kill()
        first.wait(timeout=60)
    assert first.returncode == job.EXIT_INTERRUPTED, rest
    assert f"interrupted; the last checkpoint in {out} is kept. Continue with --resume." in rest
    assert (out / "checkpoint.params").read_bytes() == before
    proc = _train(env, *_argv(fashion_root, out, "--resume"))  # the lock died with its owner
    assert proc.returncode == job.EXIT_OK, proc.stdout + proc.stderr
    _same_result(reference, out)
