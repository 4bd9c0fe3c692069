"""MXNet 1.9.1's oneDNN fused operators in imported graphs (``_sg_mkldnn_conv`` float and int8, the
float ``_sg_mkldnn_fully_connected``, the quantized pooling/concat/flatten around them): every internal
output against MXNet's own on the same parameters and input (tests/reference/mkldnn_int8, made by
tools/mxnet_reference/gen_mkldnn_int8.py). The int8 outputs must be the same integers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as onp
import pytest

from framework import gluon, nd
from framework import symbol as sym
from framework.npx import quantized_fused
from framework.symbol import SymbolFileError

REF = Path(__file__).resolve().parents[1] / "reference" / "mkldnn_int8"


@pytest.fixture(scope="module")
def reference():
    return onp.load(REF / "outputs.npz"), onp.load(REF / "params.npz")


@pytest.fixture(autouse=True)
def _reference_cpu(monkeypatch):
    """The int8 kernels' results depend on the CPU's VNNI: emulate the one that made the files."""
    vnni = json.loads((REF / "cpu.json").read_text())["vnni"]
    monkeypatch.setattr(quantized_fused, "_vnni", lambda: vnni)


def _run(tag, reference):
    outputs, params = reference
    names = [k.split("/", 1)[1] for k in outputs.files if k.startswith(tag + "/")]
    graph = sym.load(str(REF / f"{tag}-symbol.json"))
    internals = graph.get_internals()
    net = gluon.SymbolBlock([internals[n] for n in names], sym.var("data"))
    values = {k.split(":", 1)[1]: params[k] for k in params.files}
    for name, p in net.collect_params().items():
        p.initialize()
        p.set_data(nd.array(values[name]))
    got = net(nd.array(outputs["x"]))
    return names, [onp.asarray(g) for g in got], [outputs[f"{tag}/{n}"] for n in names]


def test_int8_graph_gives_mxnets_integers(reference):
    names, got, want = _run("int8", reference)
    assert any(n.startswith("quantized_sg_mkldnn_conv_bn_add_act") for n in names)
    assert any(w.dtype == onp.uint8 for w in want) and any(w.dtype == onp.int8 for w in want)
    for name, g, w in zip(names, got, want, strict=True):
        assert g.dtype == w.dtype, name
        assert g.shape == w.shape, name
        if w.dtype.kind in "iu":
            assert (g != 0).any() == (w != 0).any(), name
            onp.testing.assert_array_equal(g, w, err_msg=name)
        else:
            onp.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6, err_msg=name)


def test_int8_weights_follow_the_cpus_vnni(reference, monkeypatch):
    """Without VNNI oneDNN halves the int8 weights for int8 data: the other CPU gives other integers."""
    vnni = json.loads((REF / "cpu.json").read_text())["vnni"]
    monkeypatch.setattr(quantized_fused, "_vnni", lambda: not vnni)
    names, got, want = _run("int8", reference)
    first = names.index("quantized_sg_mkldnn_conv_bn_act_0_output")  # the conv on int8 data
    assert (got[first] != want[first]).any()


def test_fused_float_graph_matches_mxnet(reference):
    names, got, want = _run("fused", reference)
    assert "sg_mkldnn_fully_connected_0_output" in names
    for name, g, w in zip(names, got, want, strict=True):
        onp.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=name)


def test_subgraphs_are_written_back_as_mxnet_reads_them():
    graph = sym.load(str(REF / "int8-symbol.json"))
    nodes = json.loads(graph.tojson())["nodes"]
    fused = [n for n in nodes if n["op"] == "_sg_mkldnn_conv"]
    assert len(fused) == 7
    for n in fused:
        assert "__subgraphs__" not in n.get("attrs", {})
        assert [m["op"] for m in n["subgraphs"][0]["nodes"] if m["op"] != "null"][0] == "Convolution"
    assert graph.list_outputs() == sym.load(str(REF / "int8-symbol.json")).list_outputs()


def _one_conv(tmp_path, attrs, subgraphs):
    nodes = [{"op": "null", "name": "data", "inputs": []}, {"op": "null", "name": "w", "inputs": []},
             {"op": "null", "name": "lo", "inputs": []}, {"op": "null", "name": "hi", "inputs": []},
             {"op": "_sg_mkldnn_conv", "name": "c", "attrs": attrs,
              "inputs": [[0, 0], [1, 0], [2, 0], [3, 0]], "subgraphs": subgraphs}]
    path = tmp_path / "one-symbol.json"
    path.write_text(json.dumps({"nodes": nodes, "heads": [[4, 0, 0]]}))
    return str(path)


_CONV = {"nodes": [{"op": "null", "name": "d", "inputs": []}, {"op": "null", "name": "w", "inputs": []},
                   {"op": "Convolution", "name": "conv", "inputs": [[0, 0], [1, 0]],
                    "attrs": {"kernel": "(1, 1)", "num_filter": "2", "no_bias": "True"}}],
         "heads": [[2, 0, 0]]}


def test_uncalibrated_int8_convolution_is_refused(tmp_path):
    path = _one_conv(tmp_path, {"quantized": "true"}, [_CONV])
    net = gluon.SymbolBlock.imports(path, ["data", "w", "lo", "hi"])
    with pytest.raises(SymbolFileError, match="without a calibrated output range"):
        net(nd.array(onp.ones((1, 1, 2, 2), "int8"), dtype="int8"), nd.ones((2, 1, 1, 1)), nd.array([0.0]),
            nd.array([1.0]))


def test_a_broken_subgraph_is_refused_on_load(tmp_path):
    broken = {"nodes": [{"op": "Convolution", "name": "conv", "inputs": [[5, 0]]}]}
    with pytest.raises(SymbolFileError, match="subgraph 0"):
        sym.load(_one_conv(tmp_path, {"quantized": "true"}, [broken]))
    with pytest.raises(SymbolFileError, match="'subgraphs' must be a list"):
        sym.load(_one_conv(tmp_path, {"quantized": "true"}, {"nodes": []}))
