"""SymbolBlock.imports on files exported by real MXNet 1.9.1 (tools/mxnet_reference/gen_symbol.py):
outputs, gradients, training updates, 0.x/2.0 spellings, unknown operators."""

from __future__ import annotations

import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import autograd, gluon, npx, symbol

REF = Path(__file__).resolve().parents[1] / "reference" / "symbol"


def _load(name, inputs=("data",)):
    return gluon.SymbolBlock.imports(REF / f"{name}-symbol.json", list(inputs), REF / f"{name}-0000.params")


def test_lenet_bn_dropout_gives_mxnets_outputs():
    d = onp.load(REF / "lenet_bn.npz")
    net = _load("lenet_bn")
    onp.testing.assert_allclose(onp.asarray(net(jnp.asarray(d["x"]))), d["y"], rtol=1e-5, atol=1e-5)
    net.hybridize()
    onp.testing.assert_allclose(onp.asarray(net(jnp.asarray(d["x"]))), d["y"], rtol=1e-5, atol=1e-5)
    assert net.collect_params()["batchnorm0_running_mean"].grad_req == "null"
    assert net.collect_params()["conv0_weight"].grad_req == "write"


def test_lenet_gradients_equal_mxnets_and_jax_grad():
    d = onp.load(REF / "lenet_bn.npz")
    net = _load("lenet_bn")
    x = jnp.asarray(d["x"])
    with autograd.record(train_mode=False):
        y = net(x)
    y.backward()
    params = net.collect_params()
    pure = jax.jit(jax.grad(lambda p: net.functional_call(p, x).sum()))(params.values_on())
    # MXNet's BatchNorm backward in predict mode differentiates the batch-statistics formula, so its
    # gradients upstream of a BatchNorm are not those of the inference function; downstream of the
    # last BatchNorm they are, and there they must agree. Every gradient must equal jax.grad's.
    downstream = {"batchnorm1_gamma", "batchnorm1_beta", "dense0_weight", "dense0_bias", "dense1_weight",
                  "dense1_bias"}
    for name, p in params.items():
        if p.grad_req == "null":
            continue
        onp.testing.assert_allclose(onp.asarray(p.grad()), onp.asarray(pure[name]), rtol=1e-5, atol=1e-5,
                                    err_msg=name)
        if name in downstream:
            ref = d["grad:" + name]
            onp.testing.assert_allclose(onp.asarray(p.grad()), ref, rtol=1e-4, atol=1e-5, err_msg=name)


def test_training_updates_running_statistics_and_trains():
    d = onp.load(REF / "lenet_bn.npz")
    net = _load("lenet_bn")
    params = net.collect_params()
    x = jnp.asarray(d["x"])
    mean0 = onp.asarray(params["batchnorm0_running_mean"].data())
    conv = npx.convolution(x, params["conv0_weight"].data(), params["conv0_bias"].data(), kernel=(5, 5),
                           num_filter=6)
    expected = 0.9 * mean0 + 0.1 * onp.asarray(conv.mean(axis=(0, 2, 3)))
    trainer = gluon.Trainer(params, "sgd", {"learning_rate": 0.1})
    w0 = onp.asarray(params["dense1_weight"].data())
    with autograd.record():
        loss = (net(x) ** 2).mean()
    loss.backward()
    trainer.step(4)
    onp.testing.assert_allclose(onp.asarray(params["batchnorm0_running_mean"].data()), expected, rtol=1e-5,
                                atol=1e-6)
    assert not onp.allclose(onp.asarray(params["dense1_weight"].data()), w0)
    with autograd.record():
        loss2 = (net(x) ** 2).mean()
    assert float(loss2) < float(loss)


@pytest.mark.parametrize("name", ["mix", "npmix"])
def test_operator_mix_gives_mxnets_outputs(name):
    """1.x names (RNN LSTM/GRU/relu, SliceChannel, Reshape codes, scalar ops, ...) and np-mode names."""
    d = onp.load(REF / f"{name}.npz")
    net = _load(name, ["data0", "data1"])
    ys = net(jnp.asarray(d["x"]), jnp.asarray(d["idx"]))
    assert len(ys) == len([k for k in d.files if k.startswith("y")])
    for i, y in enumerate(ys):
        onp.testing.assert_allclose(onp.asarray(y), d[f"y{i}"], rtol=1e-4, atol=1e-5, err_msg=f"{name} y{i}")


def _respell(doc):
    """The 0.x spellings: 'param'/'attr' instead of 'attrs', [node, output] entries, no arg_nodes."""
    for k, n in enumerate(doc["nodes"]):
        attrs = n.pop("attrs", None)
        if attrs:
            n["param" if k % 2 else "attr"] = attrs
        n["inputs"] = [e[:2] for e in n["inputs"]]
    doc.pop("arg_nodes")
    doc.pop("node_row_ptr")
    doc["heads"] = [h[:2] for h in doc["heads"]]
    return doc


def test_old_spellings_load_to_the_same_outputs(tmp_path):
    d = onp.load(REF / "lenet_bn.npz")
    doc = _respell(json.loads((REF / "lenet_bn-symbol.json").read_text()))
    (tmp_path / "old-symbol.json").write_text(json.dumps(doc))
    net = gluon.SymbolBlock.imports(tmp_path / "old-symbol.json", "data", REF / "lenet_bn-0000.params")
    onp.testing.assert_allclose(onp.asarray(net(jnp.asarray(d["x"]))), d["y"], rtol=1e-5, atol=1e-5)


def test_unknown_operator_names_op_node_and_supported(tmp_path):
    doc = json.loads((REF / "lenet_bn-symbol.json").read_text())
    node = next(n for n in doc["nodes"] if n["op"] == "Flatten")
    node["op"] = "FancyNewOp"
    (tmp_path / "x-symbol.json").write_text(json.dumps(doc))
    with pytest.raises(symbol.UnknownOperatorError,
                       match=r"'flatten0_flatten0'\) uses operator 'FancyNewOp'.*"
                             r"Supported operators: .*Convolution"):
        gluon.SymbolBlock.imports(tmp_path / "x-symbol.json", ["data"])


def test_param_file_mismatch_errors(tmp_path):
    with pytest.raises(ValueError, match=r"input name\(s\) \['image'\] are not variables"):
        gluon.SymbolBlock.imports(REF / "lenet_bn-symbol.json", ["image"], REF / "lenet_bn-0000.params")
    with pytest.raises(ValueError, match=r"missing in .*mix-0000.params"):
        gluon.SymbolBlock.imports(REF / "lenet_bn-symbol.json", ["data"], REF / "mix-0000.params")


@pytest.mark.parametrize("text, match", [
    ("[1, 2]", "must be an object with a 'nodes' list"),
    ("{\"nodes\": []}", "has no nodes"),
    ("{\"nodes\": [{\"op\": \"relu\", \"name\": \"r\", \"inputs\": [[0, 0, 0]]}]}", "refers to node 0"),
    ("{\"nodes\": [{\"op\": \"null\", \"name\": \"x\"}], \"heads\": [[3, 0, 0]]}", "refers to node 3"),
    ("{\"nodes\": [{\"op\": \"null\", \"name\": \"x\", \"attrs\": {\"a\": 1}}]}", "must be a string"),
    ("{\"nodes\": [{\"op\": \"null\", \"name\": \"x\"}], \"arg_nodes\": [0, 1]}", "'arg_nodes'"),
    ("{\"nodes\": [{\"op\": \"null\", \"name\": \"x\"}, {\"op\": \"relu\", \"name\": \"r\", "
     "\"inputs\": [[0, 1, 0]]}]}", "reads output 1 of node 0"),
    ("not json", "is not valid JSON"),
])
def test_malformed_graphs_are_rejected_with_the_place(text, match):
    with pytest.raises(symbol.SymbolFileError, match=match):
        symbol.Program(symbol.parse_graph(text), [])


def test_attribute_sized_arrays_are_bounded():
    doc = {"nodes": [{"op": "null", "name": "data", "inputs": []},
                     {"op": "_full", "name": "big", "attrs": {"shape": "(2147483648, 2)", "value": "1"},
                      "inputs": []},
                     {"op": "broadcast_add", "name": "out", "inputs": [[0, 0, 0], [1, 0, 0]]}],
           "heads": [[2, 0, 0]]}
    net = gluon.SymbolBlock(symbol.load_json(json.dumps(doc)), symbol.var("data"))
    with pytest.raises(ValueError, match=r"'big' \(op '_full'\): shape \(2147483648, 2\) asks for "):
        net(jnp.ones((1, 2)))
