"""Every operator function of ``mx.sym`` against MXNet 1.9.1 (tests/reference/symbolic, made by
tools/mxnet_reference/gen_symbolic.py): the same call gives the same graph (``tojson`` parsed, so up to
key order), arguments, outputs, auxiliary states and inferred shapes; and the signature table is
MXNet's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import framework as mx
from framework.symbol._signatures import SIGNATURES

REF = Path(__file__).resolve().parents[1] / "reference" / "symbolic"
INSTANCES = json.loads((REF / "op_instances.json").read_text())


def _fn(path: str):
    obj = mx.sym
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _value(v):
    if isinstance(v, dict) and set(v) == {"tuple"}:
        return tuple(v["tuple"])
    return v


def _build(rec):
    with mx.name.NameManager():
        syms = [mx.sym.var(n) for n in rec["inputs"]]
        named = {} if rec["fn"] in ("maximum", "minimum", "hypot", "power") else {"name": "o"}
        kwargs = {k: _value(v) for k, v in rec["kwargs"].items()}
        return _fn(rec["fn"])(*syms, **named, **kwargs)


@pytest.mark.parametrize("rec", INSTANCES, ids=[f"{r['fn']}-{i}" for i, r in enumerate(INSTANCES)])
def test_operator_function_matches_mxnet(rec):
    s = _build(rec)
    assert json.loads(s.tojson()) == rec["json"]
    assert s.list_arguments() == rec["arguments"]
    assert s.list_outputs() == rec["outputs"]
    assert s.list_auxiliary_states() == rec["aux"]
    if "shapes" in rec:
        given = {k: tuple(v) for k, v in rec["shapes"]["given"].items()}
        arg, out, aux = s.infer_shape(**given)
        assert [list(x) for x in arg] == rec["shapes"]["arguments"]
        assert [list(x) for x in out] == rec["shapes"]["outputs"]
        assert [list(x) for x in aux] == rec["shapes"]["aux"]


def test_signature_table_is_generated_from_the_reference():
    """framework/symbol/_signatures.py is what tools/symbol_signatures.py makes of MXNet's metadata."""
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, "tools/symbol_signatures.py", "--check"], cwd=root,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    table = json.loads((REF / "op_signatures.json").read_text())
    for name, sig in SIGNATURES.items():
        assert (sig.op, list(sig.inputs), list(sig.params), sig.var) == (
            table[name]["op"], table[name]["inputs"], table[name]["params"], table[name]["var"])
