"""The main job end to end on a small slice of the real Fashion-MNIST: resumed after SIGKILL equals
uninterrupted, the NaN guard, damaged / mismatched checkpoints, and a net.params the seed can load."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as onp
import pytest

from train import cli, job

REPO = Path(__file__).resolve().parents[1]


def _argv(root: Path, out: Path, *extra: str, epochs: int = 2) -> list[str]:
    return ["--data-root", str(root), "--subset", "256", "--batch-size", "64", "--epochs", str(epochs),
            "--out", str(out), "--params", str(out / "net.params"), "--progress", "off", *extra]


def _params(path: Path) -> dict[str, onp.ndarray]:
    from framework import serialization

    return serialization.load_numpy(path)


@pytest.fixture(scope="module")
def one_epoch(tmp_path_factory, fashion_root) -> Path:
    """A finished 1-epoch run (compiled loop): its directory holds checkpoint.params and net.params."""
    out = tmp_path_factory.mktemp("one_epoch")
    assert cli.main(_argv(fashion_root, out, epochs=1)) == job.EXIT_OK
    return out


@pytest.mark.parametrize("loop, hang", [("compiled", "2:1"), ("gluon", "2:2")])
def test_killed_mid_epoch_then_resumed_equals_uninterrupted(tmp_path, fashion_root, loop, hang):
    # Every run is its own `python -m train` process with the same environment: XLA:CPU's float results
    # may differ in the last bit between processes configured differently (e.g. 4 virtual devices here).
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    env = {**os.environ, "TQDM_DISABLE": "1", "PYTHONUNBUFFERED": "1"}

    def train(*argv: str) -> int:
        return subprocess.run([sys.executable, "-m", "train", *argv], cwd=REPO, env=env,
                              capture_output=True, timeout=600).returncode

    assert train(*_argv(fashion_root, whole, "--loop", loop)) == job.EXIT_OK
    cmd = [sys.executable, "-m", "train", *_argv(fashion_root, killed, "--loop", loop, "--_hang-at", hang)]
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    seen = []
    try:
        for line in proc.stdout:
            seen.append(line)
            if line.startswith("hang point reached"):
                proc.send_signal(signal.SIGKILL)
                break
    finally:
        proc.kill()
        proc.wait(timeout=60)
        proc.stdout.close()
    assert any(s.startswith("hang point reached: epoch 2") for s in seen), "".join(seen)
    assert proc.returncode == -signal.SIGKILL
    assert not (killed / "net.params").exists()
    from train import checkpoint

    assert checkpoint.load(killed / "checkpoint.params").epoch == 1
    assert train(*_argv(fashion_root, killed, "--loop", loop, "--resume")) == job.EXIT_OK
    a, b = _params(whole / "net.params"), _params(killed / "net.params")
    assert set(a) == set(b)
    for k in a:
        onp.testing.assert_array_equal(a[k], b[k], err_msg=k)
    import json

    rows_a = json.loads((whole / "metrics.json").read_text())["epochs"]
    rows_b = json.loads((killed / "metrics.json").read_text())["epochs"]
    assert [r["loss"] for r in rows_a] == [r["loss"] for r in rows_b]
    assert (killed / "curves.png").exists() and (killed / "metrics.csv").exists()


def test_non_finite_loss_stops_and_keeps_the_last_good_checkpoint(tmp_path, fashion_root, one_epoch, capsys):
    out = tmp_path / "run"
    shutil.copytree(one_epoch, out)
    before = (out / "checkpoint.params").read_bytes()
    capsys.readouterr()
    status = cli.main(_argv(fashion_root, out, "--resume", "--lr", "1e30"))
    assert status == job.EXIT_NONFINITE
    err = capsys.readouterr().err
    assert "epoch 2: the training loss became nan" in err
    assert "last good checkpoint" in err and "Lower --lr" in err
    assert (out / "checkpoint.params").read_bytes() == before


def test_unfinished_checkpoint_needs_resume_or_overwrite(tmp_path, fashion_root, one_epoch, capsys):
    from train import checkpoint

    out = tmp_path / "run"
    shutil.copytree(one_epoch, out)
    saved = checkpoint.load(out / "checkpoint.params")
    assert saved.meta["finished"] is True  # the 1-epoch run finished
    checkpoint.save(out / "checkpoint.params", saved.arrays, {**saved.meta, "finished": False})
    before = (out / "checkpoint.params").read_bytes()
    assert cli.main(_argv(fashion_root, out)) == job.EXIT_CHECKPOINT
    assert "an unfinished run's checkpoint (after epoch 1) exists" in capsys.readouterr().err
    assert cli.main(_argv(fashion_root, out, "--resume", "--batch-size", "32")) == job.EXIT_CHECKPOINT
    assert "batch_size: checkpoint 64, now 32" in capsys.readouterr().err
    assert (out / "checkpoint.params").read_bytes() == before


def test_a_finished_runs_checkpoint_gives_way_to_a_new_run(tmp_path, fashion_root, one_epoch, capsys):
    out = tmp_path / "run"
    shutil.copytree(one_epoch, out)
    assert cli.main(_argv(fashion_root, out, epochs=1)) == job.EXIT_OK
    assert "had finished; starting a new one" in capsys.readouterr().out


def test_damaged_checkpoint_is_reported_and_left_alone(tmp_path, fashion_root, one_epoch, capsys):
    out = tmp_path / "run"
    shutil.copytree(one_epoch, out)
    path = out / "checkpoint.params"
    blob = bytearray(path.read_bytes())
    blob[len(blob) // 2] ^= 0xFF
    path.write_bytes(bytes(blob))
    assert cli.main(_argv(fashion_root, out, "--resume")) == job.EXIT_CHECKPOINT
    assert "is damaged" in capsys.readouterr().err
    assert path.read_bytes() == bytes(blob)


def test_resume_with_fewer_epochs_than_the_checkpoint_is_refused(tmp_path, fashion_root, one_epoch, capsys):
    from train import checkpoint

    out = tmp_path / "run"
    shutil.copytree(one_epoch, out)
    path = out / "checkpoint.params"
    saved = checkpoint.load(path)
    row = saved.meta["history"][0]
    meta = {k: v for k, v in saved.meta.items() if k not in ("format", "version", "digest")}
    meta.update(epoch=5, finished=False, history=[{**row, "epoch": e} for e in range(1, 6)],
                data_order={**meta["data_order"], "next_epoch": 5})
    checkpoint.save(path, saved.arrays, meta)  # as if 5 epochs had been trained
    before = path.read_bytes()
    assert cli.main(_argv(fashion_root, out, "--resume", epochs=2)) == job.EXIT_CHECKPOINT
    err = capsys.readouterr().err
    assert "after epoch 5, past --epochs 2: resuming would train nothing" in err, err
    assert "--epochs N with N > 5" in err
    assert path.read_bytes() == before


def test_net_params_load_into_the_seeds_network(one_epoch):
    """The seed: ``net = nn.Sequential(); net.add(...); net.load_parameters('net.params', ctx=gpu)``."""
    from framework import np, npx
    from framework.gluon import nn

    net = nn.Sequential()
    net.add(nn.Conv2D(channels=6, kernel_size=5, activation='relu'),
            nn.MaxPool2D(pool_size=2, strides=2),
            nn.Conv2D(channels=16, kernel_size=3, activation='relu'),
            nn.MaxPool2D(pool_size=2, strides=2),
            nn.Dense(120, activation="relu"),
            nn.Dense(84, activation="relu"),
            nn.Dense(10))
    ctx = npx.cpu()
    net.load_parameters(str(one_epoch / "net.params"), ctx=ctx)
    saved = _params(one_epoch / "net.params")
    onp.testing.assert_array_equal(onp.asarray(net[0].weight.data()), saved["0.weight"])
    assert net(np.random.uniform(size=(1, 1, 28, 28), ctx=ctx)).shape == (1, 10)


def test_missing_data_is_a_clear_error(tmp_path, capsys, monkeypatch):
    from framework.gluon.data.vision import catalogue

    empty = tmp_path / "empty"
    empty.mkdir()
    # wherever this runs, Debian's directory is one that holds nothing
    debian = dict(catalogue.CATALOGUE["fashion-mnist"]["debian"], dir=str(empty / "debian"))
    monkeypatch.setitem(catalogue.CATALOGUE["fashion-mnist"], "debian", debian)
    monkeypatch.setenv("FRAMEWORK_HOME", str(empty))  # no user cache
    monkeypatch.setenv("TFDS_DATA_DIR", str(empty))
    argv = _argv(empty, tmp_path / "run", epochs=1)[2:]  # no --data-root: the framework's search
    assert argv[0] == "--subset"
    assert cli.main(argv) == job.EXIT_DATA
    err = capsys.readouterr().err
    assert "Fashion-MNIST could not be read" in err and "--data-root" in err
