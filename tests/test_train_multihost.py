"""``python -m train`` over two processes on loopback (JAX's runtime, gloo): only process 0 writes, and
the result equals one process with two devices."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as onp

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
