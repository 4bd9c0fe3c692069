"""``python -m train`` against hostile checkpoints and ranges: ``checkpoint.params`` as a FIFO or a
symlink to /dev/zero is a clear checkpoint error (exit 3) at once, and ``--resume --epochs N`` below the
checkpoint's epoch is refused instead of exiting 0 having trained nothing (in test_train_job.py, which
has a finished run at hand)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from train import cli, job


def _argv(root: Path, out: Path, *extra: str, epochs: int = 2) -> list[str]:
    return ["--data-root", str(root), "--subset", "64", "--batch-size", "32", "--epochs", str(epochs),
            "--out", str(out), "--params", str(out / "net.params"), "--progress", "off", "--devices", "cpu",
            *extra]


@pytest.fixture
def alarm():
    def fire(*_):
        raise TimeoutError("python -m train still running after 60 s")

    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(60)  # a guard against a hang (a FIFO used to block forever), not a timing
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_resume_from_a_special_file_is_a_clear_checkpoint_error(tmp_path, fashion_root, capsys, alarm, kind):
    out = tmp_path / "out"
    out.mkdir()
    ckpt = out / "checkpoint.params"
    if kind == "fifo":
        os.mkfifo(ckpt)
    else:
        ckpt.symlink_to("/dev/zero")
    assert cli.main(_argv(fashion_root, out, "--resume")) == job.EXIT_CHECKPOINT
    err = capsys.readouterr().err
    what = "a FIFO (named pipe)" if kind == "fifo" else "a character device"
    assert f"{ckpt} is {what}, not a regular file" in err, err
