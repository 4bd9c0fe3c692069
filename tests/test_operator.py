"""mx.operator: custom operators with hand-written backward passes train inside record()/backward()
and give MXNet 1.9.1's gradients (tests/reference/api/operator.npz, tools/mxnet_reference/gen_api.py
runs the same operators and loop in MXNet); they also work under jax.grad/jit and in hybridized Blocks."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

import framework as mx
from conftest import REFERENCE
from framework import autograd, npx


class ScaledSig(mx.operator.CustomOp):
    def __init__(self, scale):
        self.scale = scale

    def forward(self, is_train, req, in_data, out_data, aux):
        x = npx.asnumpy(in_data[0])  # NumPy inside: runs on the host under tracing
        self.assign(out_data[0], req[0], mx.nd.array(1.0 / (1.0 + onp.exp(-x))))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        y, dy = npx.asnumpy(out_data[0]), npx.asnumpy(out_grad[0])
        self.assign(in_grad[0], req[0], mx.nd.array(self.scale * dy * y * (1.0 - y)))


@mx.operator.register("test_scaledsig")
class ScaledSigProp(mx.operator.CustomOpProp):
    def __init__(self, scale):
        super().__init__(need_top_grad=True)
        assert isinstance(scale, str)  # MXNet hands keyword arguments over as strings
        self.scale = float(scale)

    def create_operator(self, ctx, shapes, dtypes):
        return ScaledSig(self.scale)


class MulAdd(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        a, b = in_data
        self.assign(out_data[0], req[0], a * b)
        out_data[1][:] = a + 2 * b  # MXNet's other spelling

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        a, b = in_data
        g0, g1 = out_grad
        self.assign(in_grad[0], req[0], g0 * b + g1)
        self.assign(in_grad[1], req[1], g0 * a + 2 * g1)


@mx.operator.register("test_muladd")
class MulAddProp(mx.operator.CustomOpProp):
    def list_arguments(self):
        return ["a", "b"]

    def list_outputs(self):
        return ["prod", "mix"]

    def create_operator(self, ctx, shapes, dtypes):
        return MulAdd()


class SoftmaxLoss(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        x = npx.asnumpy(in_data[0])
        e = onp.exp(x - x.max(axis=1, keepdims=True))
        self.assign(out_data[0], req[0], mx.nd.array(e / e.sum(axis=1, keepdims=True)))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        label = npx.asnumpy(in_data[1]).astype(int)
        y = npx.asnumpy(out_data[0]).copy()
        y[onp.arange(label.shape[0]), label] -= 1.0
        self.assign(in_grad[0], req[0], mx.nd.array(y))
        self.assign(in_grad[1], req[1], mx.nd.zeros(label.shape))


@mx.operator.register("test_softmaxloss")
class SoftmaxLossProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=False)

    def list_arguments(self):
        return ["data", "label"]

    def create_operator(self, ctx, shapes, dtypes):
        return SoftmaxLoss()


@pytest.fixture(scope="module")
def ref():
    with onp.load(REFERENCE / "api" / "operator.npz") as f:
        return {k: f[k] for k in f.files}


def _net(x, w1, w2, label):
    h = mx.nd.dot(x, w1)
    a = mx.nd.Custom(h, op_type="test_scaledsig", scale=2)
    p, q = mx.nd.Custom(a, a * 0.5, op_type="test_muladd")
    return a, mx.nd.Custom(mx.nd.dot(p + q, w2), label, op_type="test_softmaxloss")


def test_custom_ops_train_in_record_backward_with_mxnets_gradients(ref):
    x, label = jnp.asarray(ref["x"]), jnp.asarray(ref["label"])
    w1, w2 = autograd.attach_grad(jnp.asarray(ref["w1"])), autograd.attach_grad(jnp.asarray(ref["w2"]))
    for step in range(3):
        with autograd.record():
            a, prob = _net(x, w1, w2, label)
        prob.backward()
        onp.testing.assert_allclose(npx.asnumpy(prob), ref[f"{step}/prob"], rtol=1e-5, atol=1e-6)
        onp.testing.assert_allclose(npx.asnumpy(a), ref[f"{step}/a"], rtol=1e-5, atol=1e-6)
        onp.testing.assert_allclose(npx.asnumpy(w1.grad), ref[f"{step}/w1_grad"], rtol=1e-4, atol=1e-6)
        onp.testing.assert_allclose(npx.asnumpy(w2.grad), ref[f"{step}/w2_grad"], rtol=1e-4, atol=1e-6)
        w1 = npx.setitem(w1, slice(None), w1.value - 0.1 * w1.grad)
        w2 = npx.setitem(w2, slice(None), w2.value - 0.1 * w2.grad)
    onp.testing.assert_allclose(npx.asnumpy(w1), ref["w1_final"], rtol=1e-4, atol=1e-6)
    onp.testing.assert_allclose(npx.asnumpy(w2), ref["w2_final"], rtol=1e-4, atol=1e-6)


def test_the_hand_written_backward_is_used_under_jax_grad_and_jit(ref):
    x, label = jnp.asarray(ref["x"]), jnp.asarray(ref["label"])

    def loss(w1, w2):
        return _net(x, w1, w2, label)[1].sum()  # need_top_grad=False: the head is ignored

    grads = jax.jit(jax.grad(loss, argnums=(0, 1)))(jnp.asarray(ref["w1"]), jnp.asarray(ref["w2"]))
    onp.testing.assert_allclose(onp.asarray(grads[0]), ref["0/w1_grad"], rtol=1e-4, atol=1e-6)
    onp.testing.assert_allclose(onp.asarray(grads[1]), ref["0/w2_grad"], rtol=1e-4, atol=1e-6)
    # twice sigmoid's gradient, not jax.grad of the forward
    g = jax.grad(lambda h: mx.nd.Custom(h, op_type="test_scaledsig", scale=2).sum())(jnp.zeros(3))
    assert g.tolist() == [0.5, 0.5, 0.5]


def test_custom_op_in_a_hybridized_block():
    class Net(mx.gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.dense = mx.gluon.nn.Dense(4, in_units=3)

        def hybrid_forward(self, F, x):
            return F.Custom(self.dense(x), op_type="test_scaledsig", scale=3)

    net = Net()
    net.initialize()
    net.hybridize()
    x = jnp.ones((2, 3))
    with autograd.record():
        out = net(x).sum()
    out.backward()
    y = 1 / (1 + onp.exp(-npx.asnumpy(net.dense(x))))
    onp.testing.assert_allclose(float(out), y.sum(), rtol=1e-5)
    want = (3 * y * (1 - y)).T @ onp.ones((2, 3))  # the hand-written backward: 3 x sigmoid's gradient
    onp.testing.assert_allclose(npx.asnumpy(net.dense.weight.grad()), want, rtol=1e-5)


def test_errors_name_the_operator():
    with pytest.raises(ValueError, match="op_type='nope' is not registered"):
        mx.nd.Custom(jnp.ones(2), op_type="nope")
    with pytest.raises(ValueError, match=r"1 inputs given, the operator takes its arguments \['a', 'b'\]"):
        mx.nd.Custom(jnp.ones(2), op_type="test_muladd")
    with pytest.raises(TypeError, match="is not a CustomOpProp subclass"):
        mx.operator.register("bad")(object)
    assert "test_muladd" in mx.operator.get_all_registered_operators()
    assert mx.operator.get_operator_arguments("dot").names[:2] == ["lhs", "rhs"]
