"""Custom operators with auxiliary states (``framework.operator``, ``mx.sym.Custom``), against MXNet
1.9.1: ``tests/reference/custom_aux`` (``tools/mxnet_reference/gen_custom_aux.py``) on
``tests/custom_aux_ops.py``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jax.numpy as jnp
import numpy as onp
import pytest

import framework as mx
from framework import autograd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from custom_aux_ops import define  # noqa: E402

REF = Path(__file__).parent / "reference" / "custom_aux"
AccBlock = define(mx)


@pytest.fixture(scope="module")
def ref():
    return onp.load(REF / "custom_aux.npz")


def test_a_custom_symbol_names_and_infers_as_mxnet():
    want = json.loads((REF / "symbol.json").read_text())
    s = mx.sym.Custom(mx.sym.var("data"), op_type="acc_aux", units=3, name="c")
    assert s.list_arguments() == want["arguments"]
    assert s.list_auxiliary_states() == want["aux"]
    assert s.list_outputs() == want["outputs"]
    arg, out, aux = s.infer_shape(data=(2, 4))
    assert [list(a) for a in arg] == want["arg_shapes"]
    assert [list(a) for a in out] == want["out_shapes"]
    assert [list(a) for a in aux] == want["aux_shapes"]


@pytest.mark.parametrize("mode", ["plain", "hybrid"])
def test_a_block_over_the_operator_infers_its_shapes_and_keeps_the_auxiliary_states(ref, mode):
    b = AccBlock(prefix="acc_")
    b.initialize(mx.init.Constant(0.5))
    if mode == "hybrid":
        b.hybridize()
    x = jnp.asarray(ref["x"])
    onp.testing.assert_allclose(b(x)[0], ref[f"{mode}_predict"], rtol=1e-6)
    assert [*b.weight.shape, *b.total.shape, *b.last.shape] == ref[f"{mode}_shapes"].tolist()
    for step in (1, 2):
        with autograd.record():
            o = b(x)
            loss = (o[0] + o[1]).sum()
        loss.backward()
        # the backward saw the states the forward left (the weight's gradient adds `total`)
        onp.testing.assert_allclose(b.weight.grad(), ref[f"{mode}_wgrad{step}"], rtol=1e-6)
        onp.testing.assert_allclose(b.total.data(), ref[f"{mode}_total{step}"], rtol=1e-6)
        onp.testing.assert_allclose(b.last.data(), ref[f"{mode}_last{step}"], rtol=1e-6)


def test_nd_custom_writes_auxiliary_states_into_variables(ref):
    x = jnp.asarray(ref["x"])
    total = autograd.attach_grad(jnp.zeros(3), grad_req="null")
    last = autograd.attach_grad(jnp.zeros((2, 3)), grad_req="null")
    w = jnp.full((4, 3), 0.5)
    with autograd.record():
        mx.nd.Custom(x, w, total, last, op_type="acc_aux", units=3)
    onp.testing.assert_allclose(total.value, ref["plain_total1"], rtol=1e-6)
    mx.nd.Custom(x, w, total, last, op_type="acc_aux", units=3)  # predicting: the forward writes nothing
    onp.testing.assert_allclose(total.value, ref["plain_total1"], rtol=1e-6)


def test_an_auxiliary_state_that_cannot_change_in_place_is_named():
    x = jnp.ones((2, 4))
    with autograd.record(), pytest.raises(TypeError, match="auxiliary state 0.*Variable"):
        mx.nd.Custom(x, jnp.ones((4, 3)), jnp.zeros(3), jnp.zeros((2, 3)), op_type="acc_aux", units=3)
