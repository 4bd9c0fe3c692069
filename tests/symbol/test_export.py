"""HybridBlock.export: the traced program as MXNet operators. Our exports of a LeNet (BatchNorm,
Dropout, grouped conv, avg-pool constants) and of ResNet-18 run in MXNet 1.9.1 to our outputs: checked
live when the MXNet side venv exists, otherwise through the committed files MXNet ran
(tools/mxnet_reference/export_ours.py, then gen_symbol.py --ours)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import jax.numpy as jnp
import numpy as onp
import pytest
from symbol_helpers import LAYERS, build_ours

from framework import gluon, np, serialization, symbol
from framework.gluon import nn

REF = Path(__file__).resolve().parents[1] / "reference" / "symbol"
ROOT = Path(__file__).resolve().parents[2]
MX = os.environ.get("MXNET_PYTHON", "/tmp/mx/bin/python")
REGEN = ("regenerate with: python tools/mxnet_reference/export_ours.py && /tmp/mx/bin/python "
         "tools/mxnet_reference/gen_symbol.py --ours")


@pytest.mark.parametrize("name", ["ours_lenet", "ours_resnet18"])
def test_our_export_runs_in_mxnet_to_our_outputs(name, tmp_path):
    net, x = build_ours(name)
    y = onp.asarray(net(x))
    sym, params = net.export(str(tmp_path / name))
    # the graph MXNet ran is exactly the one exported now
    assert Path(sym).read_text() == (REF / f"{name}-symbol.json").read_text(), REGEN
    ref = onp.load(REF / f"{name}.npz")
    saved = serialization.load_numpy(params)
    assert sorted(saved) == sorted([str(n) for n in ref["names"]]
                                   + [k[len("const:"):] for k in ref.files if k.startswith("const:")]), REGEN
    for k in ref.files:
        if k.startswith("const:"):
            onp.testing.assert_array_equal(saved[k[len("const:"):]], ref[k])
    mx_out = onp.load(REF / f"{name}_mx.npz")["y"]
    onp.testing.assert_allclose(y, mx_out, rtol=1e-4, atol=1e-4 * max(1.0, float(abs(mx_out).max())))
    back = gluon.SymbolBlock.imports(sym, ["data"], params)  # and it imports back here, same numbers
    onp.testing.assert_allclose(onp.asarray(back(x)), y, rtol=1e-5, atol=1e-5 * max(1.0, float(abs(y).max())))
    if os.path.exists(MX):  # the live check: MXNet loads the files just written, with their weights
        onp.savez(tmp_path / "in.npz", data=onp.asarray(x))
        subprocess.run([MX, "tools/mxnet_reference/gen_symbol.py", "--check-ours", str(tmp_path / name),
                        str(tmp_path / "out.npz"), str(tmp_path / "in.npz")], cwd=ROOT, check=True,
                       timeout=300, capture_output=True)
        live = onp.load(tmp_path / "out.npz")["y0"]
        onp.testing.assert_allclose(live, y, rtol=1e-4, atol=1e-4 * max(1.0, float(abs(y).max())))


@pytest.mark.parametrize("name", LAYERS)
def test_layer_exports_run_in_mxnet_to_our_outputs(name, tmp_path):
    """Each Gluon layer exported alone: the graph MXNet 1.9.1 ran (committed) and its output."""
    net, x = build_ours(name)
    net.hybridize()
    y = onp.asarray(net(x))
    sym, _ = net.export(str(tmp_path / name))
    assert Path(sym).read_text() == (REF / f"{name}-symbol.json").read_text(), REGEN
    mx_out = onp.load(REF / f"{name}_mx.npz")["y"]
    onp.testing.assert_allclose(y, mx_out, rtol=1e-5, atol=1e-5)


def test_export_names_and_aux_params(tmp_path):
    net, x = build_ours("ours_lenet")
    net(x)
    sym, params = net.export(str(tmp_path / "n"), epoch=7)
    assert params.endswith("n-0007.params") and sym.endswith("n-symbol.json")
    saved = serialization.load_numpy(params)
    assert "aux:1_running_mean" in saved and "arg:0_weight" in saved
    g = symbol.load(sym)
    # MXNet's order: a depth-first walk from the head, each node's inputs in order (data, weight, bias)
    assert g.list_inputs()[:3] == ["data", "0_weight", "0_bias"]
    ops = {n.op for n in g.graph.nodes}
    assert {"Convolution", "Pooling", "FullyConnected"} <= ops and "Dropout" not in ops  # inference program


def test_multiple_inputs_and_outputs(tmp_path):
    class TwoHeads(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.a = nn.Dense(3, in_units=4)
            self.b = nn.Dense(2, in_units=4)

        def forward(self, x, z):
            h = np.concatenate([self.a(x), self.b(z)], axis=1)
            return np.split(h, [1], axis=1)[1].sum(axis=0), np.maximum(h, 0.5) * 2 - x.mean()

    net = TwoHeads()
    net.initialize()
    net.hybridize()
    x, z = jnp.ones((2, 4)), jnp.arange(8.0).reshape(2, 4)
    ys = net(x, z)
    sym, params = net.export(str(tmp_path / "t"))
    assert {"data0", "data1"} <= set(symbol.load(sym).list_inputs())
    back = gluon.SymbolBlock.imports(sym, ["data0", "data1"], params)
    for got, want in zip(back(x, z), ys, strict=True):
        onp.testing.assert_allclose(onp.asarray(got), onp.asarray(want), rtol=1e-6)


def test_export_needs_a_traced_call_or_inputs(tmp_path):
    net = nn.Dense(2, in_units=3)
    net.initialize()
    with pytest.raises(RuntimeError, match=r"input shapes are unknown. Call hybridize\(\) and run a forward"):
        net.export(str(tmp_path / "d"))
    sym, _ = net.export(str(tmp_path / "d"), inputs=(jnp.ones((1, 3)),))
    assert json.loads(Path(sym).read_text())["heads"]


def test_untranslatable_primitive_is_named(tmp_path):
    class Sorts(gluon.HybridBlock):
        def forward(self, x):
            return np.sort(x)

    with pytest.raises(symbol.ExportError, match="JAX primitive 'sort', which has no MXNet operator"):
        Sorts().export(str(tmp_path / "s"), inputs=(jnp.ones((2, 3)),))
