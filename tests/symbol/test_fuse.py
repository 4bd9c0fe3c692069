"""Convolution -> Activation -> max Pooling chains of a symbol graph run fused on the CPU
(framework/symbol/_fuse.py): the same outputs and gradients as the operators one by one, no XLA
convolution left in the program, and chains whose intermediate results are needed elsewhere left alone."""

from __future__ import annotations

import jax
import numpy as onp
import pytest

import framework as mx
from framework import config
from framework.symbol._executor import program_of
from framework.symbol._fuse import find_chains


def lenet(act="tanh", pool=None):
    pool = pool or {"pool_type": "max", "kernel": (2, 2), "stride": (2, 2)}
    x = mx.sym.var("data")
    for i, channels in enumerate((20, 50)):
        x = mx.sym.Convolution(x, kernel=(5, 5), num_filter=channels, name=f"conv{i}")
        x = mx.sym.Activation(x, act_type=act, name=f"act{i}")
        x = mx.sym.Pooling(x, name=f"pool{i}", **pool)
    x = mx.sym.FullyConnected(mx.sym.Flatten(x), num_hidden=10, name="fc")
    return mx.sym.SoftmaxOutput(x, name="softmax")


def chains(sym):
    prog = program_of(sym)
    return sorted((prog.graph.nodes[c.conv].name, prog.graph.nodes[c.act].name if c.act is not None else None,
                   prog.graph.nodes[c.pool].name) for c in find_chains(prog.graph, prog.attrs).values())


def values(sym):
    rng = onp.random.default_rng(0)
    shapes = dict(zip(sym.list_arguments(), sym.infer_shape(data=(8, 1, 28, 28))[0], strict=True))
    return {n: (rng.integers(0, 10, s) if n == "softmax_label" else rng.standard_normal(s) * 0.3)
            .astype("float32") for n, s in shapes.items()}


def train_step(sym, fast):
    config.set(fast_cpu=fast)
    given = values(sym)
    ex = sym.simple_bind(mx.cpu(), data=(8, 1, 28, 28), softmax_label=(8,))
    ex.forward(is_train=True, **given)
    ex.backward()
    grads = {k: onp.asarray(v) for k, v in ex.grad_dict.items() if k not in ("data", "softmax_label")}
    return onp.asarray(ex.outputs[0]), grads


def convolutions(sym, fast):
    """How many XLA convolutions the program traces to (a fused chain computes none)."""
    config.set(fast_cpu=fast)
    prog = program_of(sym)
    jaxpr = jax.make_jaxpr(lambda v: prog(v, [], training=True)[0])(values(sym))
    return str(jaxpr).count("conv_general_dilated")


@pytest.mark.parametrize("act", ["tanh", "relu", "sigmoid"])
def test_fused_chains_give_the_unfused_outputs_and_gradients(act):
    sym = lenet(act)
    assert chains(sym) == [("conv0", "act0", "pool0"), ("conv1", "act1", "pool1")]
    assert convolutions(sym, fast=True) == 0 and convolutions(sym, fast=False) == 2
    out0, g0 = train_step(sym, fast=False)
    out1, g1 = train_step(sym, fast=True)
    # probabilities of logits that are 500-term float32 sums in another order: on an AVX-512 machine
    # (2026-12-07) the relu net's logits moved by ~3e-5 and a probability of 0.44 by 7.5e-6
    onp.testing.assert_allclose(out1, out0, rtol=1e-5, atol=2e-5)
    assert sorted(g1) == sorted(g0)
    for k in g0:  # float32 rounding of 500-term sums in another order: relative to the gradient's scale
        scale = float(onp.max(onp.abs(g0[k])))
        assert float(onp.max(onp.abs(g1[k] - g0[k]))) <= 1e-4 * scale, k


def test_a_convolution_and_pooling_without_activation_fuse():
    x = mx.sym.Convolution(mx.sym.var("data"), kernel=(3, 3), num_filter=4, no_bias=True, name="c")
    sym = mx.sym.Pooling(x, pool_type="max", kernel=(2, 2), stride=(2, 2), name="p")
    assert chains(sym) == [("c", None, "p")]


@pytest.mark.parametrize("why, sym", [
    ("mish is not monotone", lambda: lenet("mish")),
    ("average pooling", lambda: lenet(pool={"pool_type": "avg", "kernel": (2, 2), "stride": (2, 2)})),
    ("overlapping windows", lambda: lenet(pool={"pool_type": "max", "kernel": (3, 3), "stride": (2, 2)})),
    ("'full' convention", lambda: lenet(pool={"pool_type": "max", "kernel": (2, 2), "stride": (2, 2),
                                              "pooling_convention": "full"})),
])
def test_chains_that_compute_something_else_are_not_fused(why, sym):
    assert chains(sym()) == [], why


def test_an_intermediate_result_needed_elsewhere_keeps_its_chain_apart():
    net = lenet()
    act0 = net.get_internals()["act0_output"]
    assert chains(mx.sym.Group([net, act0])) == [("conv1", "act1", "pool1")]  # act0 is also a head
    conv1 = net.get_internals()["conv1_output"]
    assert chains(mx.sym.Group([net, mx.sym.sum(conv1)])) == [("conv0", "act0", "pool0")]
