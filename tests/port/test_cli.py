"""``python -m framework.port PATH... [--diff | --write | --check]``."""

from __future__ import annotations

import subprocess
import sys

from framework.port.__main__ import main

SRC = "import mxnet as mx\n\nx = mx.nd.ones(2)  # keep\nprint(x.asnumpy())\n"
PORTED = "import framework as mx\n\nx = mx.nd.ones(2)  # keep\nprint(mx.npx.asnumpy(x))\n"


def make(tmp_path):
    pkg = tmp_path / "proj"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "train.py").write_text(SRC)
    (pkg / "sub" / "plain.py").write_text("print('no mxnet here')\n")
    return pkg


def test_check_exits_1_when_something_would_change_and_writes_nothing(tmp_path, capsys):
    pkg = make(tmp_path)
    assert main([str(pkg), "--check"]) == 1
    assert (pkg / "train.py").read_text() == SRC
    out = capsys.readouterr().out
    assert "2 files read, 1 would change, 0 unchanged, 1 without mxnet imports" in out
    assert "  asnumpy              1  x.asnumpy() -> npx.asnumpy(x)" in out


def test_write_then_check_passes(tmp_path, capsys):
    pkg = make(tmp_path)
    assert main([str(pkg), "--write"]) == 0
    assert (pkg / "train.py").read_text() == PORTED
    assert (pkg / "sub" / "plain.py").read_text() == "print('no mxnet here')\n"
    assert main([str(pkg), "--check"]) == 0


def test_diff_prints_a_unified_diff(tmp_path, capsys):
    pkg = make(tmp_path)
    assert main([str(pkg / "train.py"), "--diff"]) == 0
    captured = capsys.readouterr()
    assert "-print(x.asnumpy())\n+print(mx.npx.asnumpy(x))\n" in captured.out
    assert "rewrites by rule:" in captured.err
    assert (pkg / "train.py").read_text() == SRC


def test_syntax_error_is_reported(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text("import mxnet\ndef (:\n")
    assert main([str(bad)]) == 2
    assert "cannot parse" in capsys.readouterr().err


def test_module_entry_point(tmp_path):
    pkg = make(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "framework.port", str(pkg), "--check"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1 and "1 would change" in proc.stdout
