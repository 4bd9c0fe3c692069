"""``mx.viz.print_summary`` prints MXNet 1.9.1's table text for an MLP and a LeNet with BatchNorm, and
``mx.viz.plot_network`` makes MXNet's ``Digraph`` calls (recorded by the same stand-in of ``graphviz``
on both sides; tests/reference/symtools, tools/mxnet_reference/gen_symtools.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as onp
import pytest
import symbolic_nets
import symtools_cases

import framework as mx

REF = Path(__file__).resolve().parents[1] / "reference" / "symtools"
SUMMARY_CASES = {
    "mlp": ("mlp", True, {}),
    "mlp_noshape": ("mlp", False, {}),
    "lenet_bn": ("lenet_bn", True, {}),
    "lenet_bn_narrow": ("lenet_bn", True, {"line_length": 80, "positions": [30, 50, 60, 80]}),
}
PLOT_CASES = {
    "mlp": ("mlp", {}),
    "mlp_shape_dtype": ("mlp", {"shape": True, "dtype": True, "title": "net", "save_format": "png"}),
    "lenet_bn_shape": ("lenet_bn", {"shape": True, "node_attrs": {"fixedsize": "false"}}),
    "lenet_bn_weights": ("lenet_bn", {"hide_weights": False}),
}


def _net(builder):
    with mx.name.NameManager():
        return getattr(symbolic_nets, builder)(mx)


@pytest.mark.parametrize("case", sorted(SUMMARY_CASES))
def test_print_summary_matches_mxnet(case, capsys):
    builder, with_shape, kwargs = SUMMARY_CASES[case]
    sym, shapes, _ = _net(builder)
    mx.viz.print_summary(sym, shape=shapes if with_shape else None, **kwargs)
    assert capsys.readouterr().out == (REF / f"summary_{case}.txt").read_text()


def test_print_summary_rejects_bad_input():
    sym, _, _ = _net("mlp")
    with pytest.raises(TypeError, match="symbol must be Symbol"):
        mx.viz.print_summary("not a symbol")
    with pytest.warns(UserWarning), pytest.raises(ValueError, match="Input shape is incomplete"):
        mx.viz.print_summary(sym, shape={})


@pytest.mark.parametrize("case", sorted(PLOT_CASES))
def test_plot_network_matches_mxnet(case, monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", symtools_cases.module())
    builder, kwargs = PLOT_CASES[case]
    sym, shapes, _ = _net(builder)
    kw = dict(kwargs)
    if kw.get("shape"):
        kw["shape"] = shapes
    if kw.get("dtype"):
        kw["dtype"] = dict.fromkeys(shapes, onp.float32)
    calls = json.loads(json.dumps(mx.viz.plot_network(sym, **kw).calls))
    assert calls == json.loads((REF / "plot.json").read_text())[case]


def test_plot_network_without_graphviz_names_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)  # an import of graphviz fails
    with pytest.raises(ImportError, match="graphviz"):
        mx.viz.plot_network(_net("mlp")[0])


def test_modules_are_mxnets_names():
    assert mx.viz is mx.visualization
    assert mx.mon is mx.monitor
    assert mx.executor.Executor is type(mx.sym.var("x").simple_bind(None, x=(1,)))
    assert mx.autograd.Symbol is mx.sym.Symbol
