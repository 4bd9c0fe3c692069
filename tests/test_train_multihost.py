"""``python -m train`` over two processes on loopback (JAX's runtime, gloo): only process 0 writes, and
the result equals one process with two devices."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as onp
import pytest

from train import cli, job

REPO = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _argv(root: Path, out: Path) -> list[str]:
    return ["--data-root", str(root), "--subset", "256", "--batch-size", "64", "--epochs", "1", "--out",
            str(out), "--params", str(out / "net.params"), "--progress", "off"]


def test_two_processes_only_process_0_writes(tmp_path, fashion_root):
    from framework import serialization

    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("FRAMEWORK_")}
    env.update(TQDM_DISABLE="1", PYTHONUNBUFFERED="1")
    procs = []
    for i in range(2):
        cmd = [sys.executable, "-m", "train", *_argv(fashion_root, tmp_path / f"p{i}"), "--devices", "cpu",
               "--coordinator", f"127.0.0.1:{port}", "--num-processes", "2", "--process-id", str(i)]
        # SIGKILL at the limit: JAX ignores SIGTERM, and a lost peer would otherwise hang the other.
        procs.append(subprocess.Popen(["timeout", "-k", "5", "150", *cmd], cwd=REPO, env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    outputs = [p.communicate(timeout=200)[0] for p in procs]
    for p, text in zip(procs, outputs, strict=True):
        assert p.returncode == 0, text
    assert "on 2 device(s)" in outputs[0] and "Epoch 1/1" in outputs[1]
    assert (tmp_path / "p0" / "net.params").exists() and (tmp_path / "p0" / "checkpoint.params").exists()
    assert not (tmp_path / "p1").exists()
    single = tmp_path / "single"
    assert cli.main([*_argv(fashion_root, single), "--devices", "cpu:2"]) == job.EXIT_OK
    a = serialization.load_numpy(tmp_path / "p0" / "net.params")
    b = serialization.load_numpy(single / "net.params")
    for k in a:
        onp.testing.assert_allclose(a[k], b[k], rtol=1e-5, atol=1e-6, err_msg=k)


def test_a_second_run_with_the_programs_cached_finishes(tmp_path, fashion_root):
    """The same two-process job twice, sharing the framework's persistent cache: the second run used to
    hang in its first collective on JAX 0.12.1 (every program loaded from the cache)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FRAMEWORK_", "JAX_COMPILATION"))}
    env.update(TQDM_DISABLE="1", PYTHONUNBUFFERED="1", FRAMEWORK_HOME=str(tmp_path / "home"))
    for run in ("first", "second"):
        port = _free_port()
        procs = [subprocess.Popen(["timeout", "-k", "5", "150", sys.executable, "-m", "train",
                                   *_argv(fashion_root, tmp_path / f"{run}{i}"), "--subset", "64",
                                   "--devices", "cpu", "--coordinator", f"127.0.0.1:{port}",
                                   "--num-processes", "2", "--process-id", str(i)],
                                  cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True)
                 for i in range(2)]
        outputs = [p.communicate(timeout=200)[0] for p in procs]
        for p, text in zip(procs, outputs, strict=True):
            assert p.returncode == 0, f"{run} run: {text}"
        assert (tmp_path / f"{run}0" / "net.params").exists()


# ---------------------------------------------------------------------------------------- fault paths
_CACHE: list[str] = []


@pytest.fixture(scope="module", autouse=True)
def _compile_cache(tmp_path_factory):
    """The processes of these tests share a JAX compilation cache: later ones skip the compiles."""
    _CACHE[:] = [str(tmp_path_factory.mktemp("jax-cache"))]
    yield
    _CACHE.clear()


def _launch(argvs: list[list[str]], limit: int = 300) -> list[subprocess.Popen]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FRAMEWORK_")}
    env.update(TQDM_DISABLE="1", PYTHONUNBUFFERED="1")
    if _CACHE:
        env.update(JAX_COMPILATION_CACHE_DIR=_CACHE[0], JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0",
                   JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES="0")
    return [subprocess.Popen(["timeout", "-k", "5", str(limit), sys.executable, "-m", "train", *argv],
                             cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for argv in argvs]


def _finish(procs: list[subprocess.Popen]) -> list[tuple[int, str, float, float, float | None]]:
    """For each process: exit status, output, seconds from its 'joined' line to its exit, the time of
    its exit and of its 'kill point reached' line (time.monotonic())."""
    import threading
    import time

    results: list = [None] * len(procs)

    def read(i: int, p: subprocess.Popen) -> None:
        joined = killed = None
        lines = []
        for line in p.stdout:
            lines.append(line)
            if " joined at " in line and joined is None:
                joined = time.monotonic()
            if line.startswith("kill point reached"):
                killed = time.monotonic()
        p.wait()
        end = time.monotonic()
        results[i] = (p.returncode, "".join(lines), end - (joined or end), end, killed)

    threads = [threading.Thread(target=read, args=(i, p)) for i, p in enumerate(procs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=400)
    return results


def _mh(root: Path, out: Path, port: int, rank: int, *extra: str) -> list[str]:
    return ["--data-root", str(root), "--subset", "64", "--batch-size", "16", "--epochs", "2", "--out",
            str(out), "--params", str(out / "net.params"), "--progress", "off", "--devices", "cpu",
            "--coordinator", f"127.0.0.1:{port}", "--num-processes", "2", "--process-id", str(rank),
            "--join-timeout", "120", *extra]  # a loaded CI machine starts slowly (tests may pass less)


def test_processes_with_different_checkpoints_refuse_to_train(tmp_path, fashion_root):
    """Each process on its own disk: process 0 has a checkpoint, process 1 none. Both must stop (exit 3)
    naming each rank and what it has (rank 0 used to resume while rank 1 started afresh, then hang)."""
    import json

    from framework import serialization
    from train import checkpoint
    from train.config import Config

    cfg = Config(subset=64, batch_size=16, epochs=2)
    rows = [{"epoch": 1, "loss": 2.0, "test_acc": 0.1, "seconds": 1.0, "samples_per_s": 64.0}]
    meta = {"epoch": 1, "fingerprint": cfg.fingerprint(), "rng": {"seed": 0, "count": 3}, "history": rows,
            "data_order": {"scheme": "s", "seed": 0, "next_epoch": 1, "n": 64}, "lr": 0.1,
            "devices": ["a", "b"], "finished": False, "format": checkpoint.FORMAT,
            "version": checkpoint.VERSION}
    arrays = {"param/0.weight": onp.zeros((6, 1, 5, 5), onp.float32)}
    meta["digest"] = checkpoint.digest(arrays, meta)
    (tmp_path / "a").mkdir()
    serialization.save(tmp_path / "a" / "checkpoint.params", {**arrays, "__meta__": onp.frombuffer(
        json.dumps(meta).encode(), onp.uint8)})
    port = _free_port()
    procs = _launch([_mh(fashion_root, tmp_path / "a", port, 0, "--resume"),
                     _mh(fashion_root, tmp_path / "b", port, 1, "--resume")])
    for status, text, seconds, _, _ in _finish(procs):
        assert status == job.EXIT_CHECKPOINT, text
        assert seconds < 30, text
        assert "the 2 processes do not agree on where to start" in text
        assert f"process 0: resumes after epoch 1 from {tmp_path / 'a' / 'checkpoint.params'}" in text
        assert f"process 1: starts at epoch 1 (no checkpoint used at {tmp_path / 'b'}" in text
    assert not (tmp_path / "b").exists() or not any((tmp_path / "b").iterdir())


@pytest.mark.parametrize("victim", [1, 0])
def test_a_lost_peer_is_named_and_the_survivor_exits(tmp_path, fashion_root, victim):
    """One process is SIGKILLed after its first epoch's training; the other then waits in a collective
    (victim 0 is the coordinator's host: the survivor loses the key-value store too)."""
    port = _free_port()
    kill = ("--_kill-at", "1:trained")
    procs = _launch([_mh(fashion_root, tmp_path / "o", port, r, *(kill if r == victim else ()))
                     for r in (0, 1)])
    results = _finish(procs)
    status, text, _, _, killed = results[victim]
    survivor, (s_status, s_text, _, s_end, _) = 1 - victim, results[1 - victim]
    assert status in (-9, 137), text  # SIGKILL (137 when `timeout` reports it)
    assert "kill point reached: 1:trained" in text and killed is not None
    assert s_end - killed < 30, s_text
    if victim == 0 and s_status in (-6, 134):
        # Process 0 hosts the coordination service: JAX's client may abort the survivor (SIGABRT, from
        # C++, not catchable) before the job's heartbeat names the lost process. Documented (README).
        assert "the JAX distributed service detected fatal errors" in s_text, s_text
        return
    assert s_status == job.EXIT_MULTIHOST, s_text
    assert f"error: process {survivor}: lost process {victim} of 2 (" in s_text, s_text


def test_a_wrong_coordinator_address_is_an_error_not_a_hang(tmp_path, fashion_root):
    """Nobody listens at the address: process 1 says so after --join-timeout (20 s, the default)."""
    procs = _launch([_mh(fashion_root, tmp_path / "o", _free_port(), 1, "--join-timeout", "20")])
    import time

    start = time.monotonic()
    [(status, text, _, _, _)] = _finish(procs)
    assert status == job.EXIT_MULTIHOST, text
    assert time.monotonic() - start < 40, text  # 20 s of trying plus the interpreter's start
    assert "process 1 cannot reach the coordinator at 127.0.0.1:" in text and "after 20 s" in text


def test_a_peer_that_never_joins_is_reported(tmp_path, fashion_root):
    procs = _launch([_mh(fashion_root, tmp_path / "o", _free_port(), 0, "--join-timeout", "5")])
    [(status, text, _, _, _)] = _finish(procs)
    assert status == job.EXIT_MULTIHOST, text
    assert "not all 2 processes joined at 127.0.0.1:" in text and "within 5 s" in text


def test_processes_disagreeing_on_the_process_count_are_told_so(tmp_path, fashion_root):
    port = _free_port()
    procs = _launch([_mh(fashion_root, tmp_path / "o", port, 0),
                     _mh(fashion_root, tmp_path / "o", port, 1, "--num-processes", "3")])
    results = _finish(procs)
    for status, text, _, _, _ in results:
        assert status == job.EXIT_MULTIHOST, text
        assert "the processes disagree on --num-processes" in text, text
        assert "no heartbeat" not in text
    assert "process 1 with --num-processes 3" in results[0][1]
    assert "process 0 with --num-processes 2" in results[1][1]
