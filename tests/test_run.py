"""``python -m framework.run``: MXNet scripts (and the modules they import) ported on the fly and run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from framework import gluon, np
from framework.gluon import nn
from framework.run import activated, run_path

ROOT = Path(__file__).resolve().parents[1]

HELPER = '''import mxnet as mx
from mxnet import autograd


def train_step(w, x):
    w.attach_grad()
    with autograd.record():
        loss = ((w * x) ** 2).sum()
    loss.backward()
    w[:] = w - 0.1 * w.grad
    return w, loss.asscalar()
'''

MAIN = '''import sys

import plain
from mxnet import nd
from helper import train_step

w, loss = train_step(nd.ones(2), nd.array([1.0, 2.0]))
print("args", sys.argv[1:], "loss", loss, "w", w.asnumpy().tolist(), plain.VALUE)
'''


def test_script_and_imported_mxnet_module_run_ported(tmp_path):
    (tmp_path / "helper.py").write_text(HELPER)
    (tmp_path / "plain.py").write_text("VALUE = 'plain'\n")
    (tmp_path / "main.py").write_text(MAIN)
    proc = subprocess.run([sys.executable, "-m", "framework.run", "main.py", "--lr", "3"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr[-2000:]
    # d/dw sum((w x)^2) = 2 w x^2 = [2, 8]; w - 0.1 * grad = [0.8, 0.2]
    assert "args ['--lr', '3'] loss 5.0 w [0.800000011920929, 0.19999998807907104] plain" in proc.stdout
    assert (tmp_path / "helper.py").read_text() == HELPER  # nothing written
    cached = list((tmp_path / "__pycache__").glob("helper*")) if (tmp_path / "__pycache__").exists() else []
    assert cached == []


def test_mxnet_names_resolve_to_framework_modules():
    import framework
    import framework.gluon.nn

    with activated():
        import mxnet
        import mxnet.gluon.nn as mx_nn
        from mxnet import metric, ndarray

        assert mxnet is framework and mx_nn is framework.gluon.nn
        assert ndarray is framework.nd and metric is framework.metric
        with pytest.raises(ModuleNotFoundError, match=r"No module named 'mxnet.rtc': framework has no "
                                                      r"counterpart \(framework.rtc\)"):
            import mxnet.rtc  # noqa: F401
    assert "mxnet" not in sys.modules
    assert framework.__spec__.name == "framework"


def test_usage_errors(capsys):
    from framework.run import main

    assert main([]) == 2
    assert main(["no_such_script.py"]) == 2
    assert "'no_such_script.py' is not a file" in capsys.readouterr().err


def _save_seed_params(path: Path) -> None:
    """The tutorial's previous step saved LeNet's parameters as net.params."""
    net = nn.Sequential()
    net.add(nn.Conv2D(channels=6, kernel_size=5, activation="relu"), nn.MaxPool2D(pool_size=2, strides=2),
            nn.Conv2D(channels=16, kernel_size=3, activation="relu"), nn.MaxPool2D(pool_size=2, strides=2),
            nn.Dense(120, activation="relu"), nn.Dense(84, activation="relu"), nn.Dense(10))
    net.initialize()
    net(np.ones((1, 1, 28, 28)))
    net.save_parameters(str(path / "net.params"))


def test_seed_runs_unchanged(monkeypatch, tmp_path, fashion_root, capsys):
    """The seed's code cells with MXNet's imports, run by framework.run: only the data is made small
    (one batch per epoch, in-process loading) for CI time; the script's text is not touched."""
    _save_seed_params(tmp_path)
    monkeypatch.chdir(tmp_path)
    original = gluon.data.vision.datasets.FashionMNIST
    loader = gluon.data.DataLoader

    def small(train=True, **kw):
        return original(root=str(fashion_root), train=train, **kw).take(256)

    def in_process(*args, **kw):
        return loader(*args, **{**kw, "num_workers": 0})

    monkeypatch.setattr(gluon.data.vision.datasets, "FashionMNIST", small)
    monkeypatch.setattr(gluon.data, "DataLoader", in_process)
    script = ROOT / "examples" / "mxnet_use_gpus.py"
    before = script.read_text()
    run_path(script)
    assert script.read_text() == before
    losses = [float(v) for v in re.findall(r"Epoch \d+: loss ([0-9.]+)", capsys.readouterr().out)]
    assert len(losses) == 10 and losses[-1] < losses[0] < 2.31


def test_lenet_from_scratch_loss_falls(monkeypatch, fashion_root, capsys):
    """The MXNet-style from-scratch LeNet (attach_grad, in-place sgd, asnumpy/asscalar), a small slice."""
    monkeypatch.setenv("EPOCHS", "2")
    monkeypatch.setenv("MAX_BATCHES", "3")
    monkeypatch.setenv("FASHION_MNIST", str(fashion_root))
    run_path(ROOT / "examples" / "mxnet_lenet_scratch.py")
    out = capsys.readouterr().out
    losses = [float(v) for v in re.findall(r"loss ([0-9.]+), train acc", out)]
    assert len(losses) == 2 and losses[1] < losses[0]
