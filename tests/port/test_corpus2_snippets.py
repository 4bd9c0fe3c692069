"""Small MXNet programs of the kind the corpora are made of (``corpus2_snippets/``: d2l's notebooks,
GluonCV, MXNet's examples), run through ``framework.run`` and compared with MXNet 1.9.1's output
(``tests/reference/corpus2``, made by ``tools/mxnet_reference/gen_corpus2.py``): NDArray methods on an
MXNet array in a NumPy-mode module, the porter's added import seen by code above a later MXNet import,
..."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from framework.run import run_path

HERE = Path(__file__).parent / "corpus2_snippets"
REFERENCE = Path(__file__).parents[1] / "reference" / "corpus2"
SNIPPETS = sorted(p.stem for p in HERE.glob("*.txt"))


def _close(got, want, path=""):
    if isinstance(want, float) or isinstance(got, float):
        assert isinstance(got, int | float) and not isinstance(got, bool), (path, got, want)
        assert math.isclose(got, want, rel_tol=1e-5, abs_tol=1e-6), (path, got, want)
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), (path, got, want)
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _close(g, w, f"{path}[{i}]")
    elif isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), (path, sorted(got), sorted(want))
        for k in want:
            _close(got[k], want[k], f"{path}.{k}")
    else:
        assert got == want, (path, got, want)


@pytest.mark.parametrize("name", SNIPPETS)
def test_snippet_matches_mxnet(name, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("FRAMEWORK_HOME", str(tmp_path / "home"))
    run_path(HERE / f"{name}.txt")
    captured = capsys.readouterr()
    got = json.loads(captured.out.strip().splitlines()[-1])
    want = json.loads((REFERENCE / f"{name}.json").read_text())
    _close(got, want)
    assert "not ported" not in captured.err, captured.err
