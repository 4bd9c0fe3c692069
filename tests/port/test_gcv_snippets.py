"""MXNet 1.x programs that libraries such as GluonCV are made of (``gcv_snippets/``), run through
``framework.run`` and compared with MXNet 1.9.1's output (``tests/reference/gcv``, made by
``tools/mxnet_reference/gen_gcv.py``): array methods with MXNet's meanings on the arrays a Block receives
(the porter's arrays rule), ``mx.__version__`` (the version rule), and the module-level names libraries
import (``mxnet.base``'s type tuples, ``gluon.loss._apply_weighting``, ``image.image._get_interp_method``,
``symbol.contrib.SyncBatchNorm``, ``dataloader._MultiWorkerIter``, ``nd.random.*(..., out=)``)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from framework.run import run_path

HERE = Path(__file__).parent / "gcv_snippets"
REFERENCE = Path(__file__).parents[1] / "reference" / "gcv"
SNIPPETS = sorted(p.stem for p in HERE.glob("*.txt"))


def close(got, want, path="") -> None:
    if isinstance(want, float) or isinstance(got, float):
        assert isinstance(got, int | float) and not isinstance(got, bool), (path, got, want)
        assert math.isclose(got, want, rel_tol=1e-5, abs_tol=1e-5), (path, got, want)
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), (path, got, want)
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            close(g, w, f"{path}[{i}]")
    elif isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), (path, sorted(got), sorted(want))
        for k in want:
            close(got[k], want[k], f"{path}.{k}")
    else:
        assert got == want, (path, got, want)


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("FRAMEWORK_HOME", str(home))
    monkeypatch.setenv("FRAMEWORK_PORT_CACHE", "1")
    return home / "port-cache"


@pytest.mark.parametrize("name", SNIPPETS)
def test_snippet_matches_mxnet(name, capsys, private_cache):
    run_path(HERE / f"{name}.txt")
    captured = capsys.readouterr()
    got = json.loads(captured.out.strip().splitlines()[-1])
    want = json.loads((REFERENCE / f"{name}.json").read_text())
    close(got, want)
    assert "not ported" not in captured.err, captured.err


def test_framework_keeps_its_own_version():
    import framework
    import framework.base

    assert framework.base.__version__ == "1.9.1" and framework.__version__ != "1.9.1"
