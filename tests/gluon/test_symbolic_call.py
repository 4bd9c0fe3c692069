"""Blocks called on Symbols (framework/gluon/symbolic_call.py): the graph MXNet 1.9.1 builds for the
same network (names, operators, attributes), SymbolBlocks over its internal outputs sharing the
network's Parameters (GluonCV's FeatureExtractor/FeatureExpander), and the parameter names
save_parameters writes; references by tools/mxnet_reference/gen_symbolic_call.py."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as onp
import pytest

import framework as mx
from framework import np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from symbolic_call_nets import NETS  # noqa: E402

REF = Path(__file__).resolve().parents[1] / "reference" / "symbolic_call"


def _load(name):
    ref = onp.load(REF / f"{name}.npz")
    net, shape, internals = NETS[name](mx)
    net.initialize()
    x = np.array(ref["input"])
    net(x)  # deferred shapes
    params = net.collect_params()
    given = {k[len("param:"):]: ref[k] for k in ref.files if k.startswith("param:")}
    assert sorted(params.keys()) == sorted(given)  # the names MXNet's save_parameters writes
    for k, v in given.items():
        assert params[k].shape == v.shape, k  # deferred shapes: the ones MXNet inferred
        params[k].set_data(np.array(v))
    return ref, net, x, internals


def _outs(out):
    return [onp.asarray(o) for o in (out if isinstance(out, (list, tuple)) else [out])]


@pytest.mark.parametrize("name", ["layers", "residual"])
def test_the_graph_is_mxnets_and_its_internal_outputs_compute_mxnets_values(name):
    ref, net, x, internals = _load(name)
    data = mx.sym.var("data")
    out = net(data)
    assert json.loads(out.tojson()) == json.loads((REF / f"{name}-symbol.json").read_text())
    inner = out.get_internals()
    block = mx.gluon.SymbolBlock([inner[n + "_output"] for n in internals] + [out], data,
                                 params=net.collect_params())
    shared = {id(p) for p in net.collect_params().values()}
    assert all(id(p) in shared for p in block.collect_params().values())  # no copies
    got = _outs(block(x))
    assert len(got) == len(internals) + 1
    for i, g in enumerate(got):
        onp.testing.assert_allclose(g, ref[f"out{i}"], rtol=1e-5, atol=1e-6, err_msg=f"output {i}")
    onp.testing.assert_allclose(_outs(net(x))[0], ref["direct0"], rtol=1e-5, atol=1e-6)


def test_a_feature_expander_in_a_detector_names_and_computes_as_mxnet():
    """Symbols made inside a name scope carry its prefix, and the SymbolBlock keeps its Parameters under
    their names less the common prefix: MXNet's saved names (checked by _load), and MXNet's outputs."""
    ref, net, x, _ = _load("expander")
    got = _outs(net(x))
    assert len(got) == 3
    for i, g in enumerate(got):
        onp.testing.assert_allclose(g, ref[f"direct{i}"], rtol=1e-5, atol=1e-6, err_msg=f"output {i}")


def test_deferred_shapes_of_a_1x_block_are_inferred_through_its_graph_as_mxnet_does():
    ref, net, x, _ = _load("deferred")  # the shapes are checked there
    onp.testing.assert_allclose(_outs(net(x))[0], ref["direct0"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("layer", [mx.gluon.nn.Embedding(10, 4), mx.gluon.nn.SiLU()],
                         ids=["with-parameters", "without"])
def test_a_layer_without_a_symbolic_form_says_so(layer):
    with pytest.raises(TypeError, match=f"{type(layer).__name__} cannot be called on a Symbol"):
        layer(mx.sym.var("data"))


def test_lambdas_and_sync_batchnorm_have_symbolic_forms_with_their_values():
    from framework.gluon.contrib.nn import SyncBatchNorm

    nn = mx.gluon.nn
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, 3, in_channels=3), SyncBatchNorm(in_channels=4), nn.HybridLambda("relu"),
            nn.HybridLambda(lambda F, x: F.sigmoid(x) * 2))
    net.initialize()
    x = np.array(onp.random.RandomState(0).uniform(-1, 1, (2, 3, 6, 6)).astype("float32"))
    data = mx.sym.var("data")
    out = net(data)
    ops = [n["op"] for n in json.loads(out.tojson())["nodes"] if n["op"] != "null"]
    assert ops == ["Convolution", "_contrib_SyncBatchNorm", "relu", "sigmoid", "_mul_scalar"]
    block = mx.gluon.SymbolBlock(out, data, params=net.collect_params())
    onp.testing.assert_allclose(onp.asarray(block(x)), onp.asarray(net(x)), rtol=1e-5, atol=1e-6)


def test_a_subclass_overriding_forward_does_not_get_its_parents_symbolic_form():
    class Twice(mx.gluon.nn.Activation):
        def forward(self, x):
            return x * 2

    out = Twice("relu")(mx.sym.var("data"))
    assert [n["op"] for n in json.loads(out.tojson())["nodes"]] == ["null", "_mul_scalar"]


def test_gluon_layers_are_reachable_where_mxnet_1x_defines_them():
    assert mx.gluon.nn.conv_layers.GlobalAvgPool2D is mx.gluon.nn.GlobalAvgPool2D
    conv = mx.gluon.nn.Conv2D(8, 3, in_channels=4, padding=1)
    assert conv._kwargs == {"kernel": (3, 3), "stride": (1, 1), "dilate": (1, 1), "pad": (1, 1),
                            "num_filter": 8, "num_group": 1, "no_bias": False, "layout": "NCHW"}


@pytest.mark.parametrize("name, size", [("resnet18_v1", 32), ("resnet50_v2", 32), ("mobilenetv2_0.25", 32),
                                        ("squeezenet1.1", 224)])
def test_model_zoo_networks_called_on_symbols_compute_what_they_compute_on_arrays(name, size):
    """Residual blocks (V1, V2 with three convolutions), ReLU6 and concatenating blocks have symbolic
    forms: the graph, run by a SymbolBlock on the network's Parameters, gives the network's output."""
    net = mx.gluon.model_zoo.vision.get_model(name)
    net.initialize()
    x = np.array(onp.random.RandomState(0).uniform(-1, 1, (1, 3, size, size)).astype("float32"))
    want = onp.asarray(net(x))
    data = mx.sym.var("data")
    block = mx.gluon.SymbolBlock(net(data), data, params=net.collect_params())
    onp.testing.assert_allclose(onp.asarray(block(x)), want, rtol=1e-5, atol=1e-5 * onp.abs(want).max())


def test_inferring_through_the_graph_names_what_stopped_it():
    class Opaque(mx.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.w = self.params.get("w", shape=(0,), allow_deferred_init=True)

        def hybrid_forward(self, F, x, w):
            return x * w if x.shape[0] else x  # reads a shape: only arrays have one

    net = Opaque()
    net.initialize()
    with pytest.raises(mx.gluon.parameter.DeferredInitializationError,
                       match=r"through the graph of its hybrid_forward failed \(AttributeError"):
        net(np.ones((2, 3)))
