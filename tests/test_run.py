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
        refused = r"No module named 'mxnet.rtc': mx.rtc is not supported: CUDA .* Instead: jax.pure_callback"
        with pytest.raises(ModuleNotFoundError, match=refused):
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


# ---------------------------------------------------------------- the persistent port cache
CACHED_HELPER = "import mxnet as mx\n\n\ndef total(x):\n    return x.sum().asscalar()\n"


def _fresh_caches(monkeypatch, home):
    import framework.run as run_mod

    monkeypatch.setenv("FRAMEWORK_HOME", str(home))
    monkeypatch.setenv("FRAMEWORK_PORT_CACHE", "1")
    monkeypatch.setattr(run_mod, "_caches", {})
    calls = []
    real = run_mod.port_source

    def counting(source, path="<string>", report=None):
        calls.append(path)
        return real(source, path, report)

    monkeypatch.setattr(run_mod, "port_source", counting)
    return calls


def _run_helper(tmp_path, monkeypatch):
    import sys as _sys

    script = tmp_path / "main.py"
    script.write_text("import cached_helper\nfrom mxnet import nd\nprint(cached_helper.total(nd.ones(3)))\n")
    _sys.modules.pop("cached_helper", None)
    run_path(script)
    _sys.modules.pop("cached_helper", None)


def test_port_cache_hit_and_miss(tmp_path, monkeypatch, capsys):
    calls = _fresh_caches(monkeypatch, tmp_path / "home")
    (tmp_path / "cached_helper.py").write_text(CACHED_HELPER)
    _run_helper(tmp_path, monkeypatch)
    assert sorted(Path(p).name for p in calls) == ["cached_helper.py", "main.py"]  # both ported once
    cache_dir = tmp_path / "home" / "port-cache"
    assert len(list(cache_dir.glob("*.json"))) == 2 and (cache_dir.stat().st_mode & 0o777) == 0o700
    calls.clear()
    _run_helper(tmp_path, monkeypatch)
    assert calls == []  # hit: nothing ported
    (tmp_path / "cached_helper.py").write_text(CACHED_HELPER.replace("x.sum()", "(x * 2).sum()"))
    _run_helper(tmp_path, monkeypatch)
    assert [Path(p).name for p in calls] == ["cached_helper.py"]  # its source changed: a miss
    assert capsys.readouterr().out.split() == ["3.0", "3.0", "6.0"]


def test_port_cache_never_trusts_an_entry_beyond_its_key(tmp_path, monkeypatch, capsys):
    import json as _json

    calls = _fresh_caches(monkeypatch, tmp_path / "home")
    (tmp_path / "cached_helper.py").write_text(CACHED_HELPER)
    _run_helper(tmp_path, monkeypatch)
    cache_dir = tmp_path / "home" / "port-cache"
    for entry in cache_dir.glob("*.json"):
        data = _json.loads(entry.read_text())
        if "def total" in data["ported"]:
            data["ported"] = data["ported"].replace("return", "raise SystemExit('tampered') #")
            entry.write_text(_json.dumps(data))  # ported text no longer matches its recorded hash
        else:
            data["source_sha256"] = "0" * 64  # recorded for another source
            entry.write_text(_json.dumps(data))
    calls.clear()
    _run_helper(tmp_path, monkeypatch)
    assert sorted(Path(p).name for p in calls) == ["cached_helper.py", "main.py"]  # both ported again
    assert capsys.readouterr().out.split() == ["3.0", "3.0"]


def test_port_cache_refuses_a_directory_others_can_write(tmp_path, monkeypatch, capsys):
    calls = _fresh_caches(monkeypatch, tmp_path / "home")
    cache_dir = tmp_path / "home" / "port-cache"
    cache_dir.mkdir(parents=True)
    cache_dir.chmod(0o777)
    (tmp_path / "cached_helper.py").write_text(CACHED_HELPER)
    _run_helper(tmp_path, monkeypatch)
    _run_helper(tmp_path, monkeypatch)
    captured = capsys.readouterr()
    assert captured.out.split() == ["3.0", "3.0"]  # the program runs, ported each time
    assert len(calls) == 4 and list(cache_dir.iterdir()) == []
    assert captured.err.count("port cache not used") == 1 and "writable by others (mode 777)" in captured.err


def test_port_cache_refuses_a_link_or_another_owner(tmp_path, monkeypatch):
    import os as _os

    from framework.port.cache import PortCache, UnsafeCacheError

    real = tmp_path / "elsewhere"
    real.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(real)
    with pytest.raises(UnsafeCacheError, match="without following links"):
        PortCache(link)
    if _os.getuid() == 0:  # only root can give a directory away
        theirs = tmp_path / "theirs"
        theirs.mkdir(mode=0o700)
        _os.chown(theirs, 12345, 12345)
        with pytest.raises(UnsafeCacheError, match="belongs to uid 12345"):
            PortCache(theirs)


def test_port_cache_ports_again_once_framework_has_what_was_missing(tmp_path):
    from framework.port.cache import PortCache, Ported, missing_imports

    source = "from mxnet.gluon import no_such_name_yet\n"
    assert missing_imports(source) == ("mxnet.gluon:no_such_name_yet",)
    cache = PortCache(tmp_path / "c")
    cache.put(source, Ported(source, ()))
    assert cache.get(source) is not None
    gone = "from mxnet.gluon import nn\n"  # framework has it: an entry that left it alone is stale
    cache.put(gone, Ported(gone, ()))
    assert cache.get(gone) is None
