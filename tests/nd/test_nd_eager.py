"""``framework.nd`` outside jit: recording under ``autograd.record()``, 1.x conventions, errors, random,
save/load, and ``jax.test_util.check_grads`` on operators with custom index or solver logic."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as onp
import pytest
from jax.test_util import check_grads

import framework as mx
from framework import autograd, gluon, nd


def test_ndarray_is_jax_array_and_1x_creation_signature():
    x = nd.zeros((2, 3), mx.cpu(1), "int32")
    assert isinstance(x, nd.NDArray) and isinstance(x, jax.Array)
    assert x.dtype == jnp.int32 and x.devices() == {mx.cpu(1)}
    assert nd.array(onp.arange(3)).dtype == jnp.float32  # MXNet 1.x: float32 even from int64 numpy
    assert mx.ndarray is nd


def test_operators_record_and_differentiate_like_jax_grad():
    net = gluon.nn.Dense(3, in_units=4)
    net.initialize()
    x = nd.array(onp.random.RandomState(0).rand(2, 4))
    with autograd.record():
        y = nd.softmax(nd.FullyConnected(x, net.weight.data(), net.bias.data(), num_hidden=3))
        loss = nd.sum(nd.square(y - 0.2))
    loss.backward()

    def pure(w, b):
        return jnp.sum((jax.nn.softmax(x @ w.T + b) - 0.2) ** 2)

    gw = jax.grad(pure)(net.weight.data(), net.bias.data())
    # the Dense's Parameters entered through .data(): the recorded graph reaches them
    onp.testing.assert_allclose(net.weight.grad(), gw, rtol=1e-5, atol=1e-6)


def test_out_and_unknown_names_are_refused_with_the_fix():
    x = nd.ones((2,))
    with pytest.raises(TypeError, match=r"out=.*immutable.*y = nd.relu"):
        nd.relu(x, out=x)
    with pytest.raises(AttributeError, match="no attribute 'not_an_op'"):
        nd.not_an_op  # noqa: B018
    with pytest.raises(ValueError, match=r"cannot reshape \(2,\) to shape=\(3, -1\)"):
        nd.reshape(x, shape=(3, -1))
    with pytest.raises(ValueError, match="cannot be split into num_outputs=3"):
        nd.split(nd.ones((2, 4)), num_outputs=3)
    with pytest.raises(ValueError, match="mode='raise' must be 'clip' or 'wrap'"):
        nd.take(x, nd.array([0]), mode="raise")
    with pytest.raises(ValueError, match="only axis=-2"):
        nd.linalg.gemm2(nd.ones((2, 2)), nd.ones((2, 2)), axis=0)


def test_name_is_accepted_and_ignored():
    assert nd.relu(nd.array([-1.0]), name="relu0").tolist() == [0.0]


def test_random_takes_ctx_shape_dtype_and_follows_the_seed():
    mx.random.seed(3)
    a = nd.random.uniform(-1, 1, shape=(3, 2), ctx=mx.cpu(2))
    b = nd.random.normal(0, 1, shape=(4,), dtype="float16")
    mx.random.seed(3)
    assert bool((nd.random.uniform(-1, 1, shape=(3, 2), ctx=mx.cpu(2)) == a).all())
    assert a.devices() == {mx.cpu(2)} and a.shape == (3, 2) and float(a.min()) >= -1.0
    assert b.dtype == jnp.float16
    assert nd.random.randint(0, 5, shape=(10,)).dtype == jnp.int32
    assert nd.random.uniform().shape == (1,)  # no shape: one value, as in MXNet 1.x
    per_row = nd.random.normal(nd.array([0.0, 100.0]), nd.array([1.0, 1.0]), shape=(50,))
    assert per_row.shape == (2, 50) and float(per_row[1].mean()) > 90
    idx = nd.random.multinomial(nd.array([[0.0, 1.0, 0.0]]), shape=4)
    assert idx.tolist() == [[1, 1, 1, 1]]
    with pytest.raises(TypeError, match="immutable"):
        nd.random.uniform(shape=(2,), out=a)


def test_save_load_round_trip(tmp_path):
    f = str(tmp_path / "x.nd")
    nd.save(f, {"a": nd.arange(3), "b": nd.ones((2, 2))})
    back = nd.load(f)
    assert sorted(back) == ["a", "b"] and back["a"].tolist() == [0.0, 1.0, 2.0]


def _spd(n: int) -> jax.Array:
    a = jnp.asarray(onp.random.RandomState(1).rand(n, n), jnp.float32)
    return a @ a.T + n * jnp.eye(n)


@pytest.mark.parametrize("fn", [
    lambda a: nd.linalg.potrf(a @ a.T + 3 * jnp.eye(3)),
    lambda a: nd.linalg.trsm(jnp.tril(a) + 3 * jnp.eye(3), a, transpose=True),
    lambda a: nd.linalg.potri(jnp.tril(a) + 3 * jnp.eye(3)),
    lambda a: nd.SequenceReverse(a, jnp.array([2.0, 3.0, 1.0]), use_sequence_length=True),
    lambda a: nd.SequenceLast(a, jnp.array([2.0, 3.0, 1.0]), use_sequence_length=True),
    lambda a: nd.reshape(a, shape=(-1, 0), reverse=True),
    lambda a: nd.pick(a, jnp.array([0.0, 2.0, 1.0]), axis=0),
], ids=["potrf", "trsm", "potri", "seq_reverse", "seq_last", "reshape", "pick"])
def test_check_grads(fn):
    a = jnp.asarray(onp.random.RandomState(2).rand(3, 3), jnp.float32) * 0.5
    check_grads(fn, (a,), order=1, modes=("rev",), atol=5e-2, rtol=5e-2, eps=1e-2)


def test_concat_takes_the_elements_of_a_1d_array_as_mxnet_1x_does():
    """MXNet 1.9.1: ``nd.concat(nd.array([1]), *nd.array([2, 3]), dim=0)`` is [1, 2, 3] (iterating a 1-d
    NDArray gives (1,)-shaped elements there; JAX's are 0-d)."""
    from framework import nd

    assert nd.concat(nd.array([1.0]), *nd.array([2.0, 3.0]), dim=0).tolist() == [1.0, 2.0, 3.0]


def test_zeros_like_and_ones_like_take_dtype_and_keep_the_datas_type_as_mxnet_1x_does():
    # MXNet 1.9.1: nd.zeros_like(int32 array, dtype='int64').dtype is int32 (GluonCV's CenterNet passes it)
    x = nd.ones((1, 4), dtype="int32")
    for fn, value in ((nd.zeros_like, 0), (nd.ones_like, 1)):
        y = fn(x, dtype="int64")
        assert y.dtype == jnp.int32 and onp.asarray(y).tolist() == [[value] * 4]


def test_integer_division_and_scalars_follow_mxnet_1x():
    # MXNet 1.9.1: broadcast_div/elemwise_div/divide of integer arrays truncate toward zero in their
    # type, a Python number beside an array takes the array's type (7 / 2.5 divides by 2), mod floors
    a = nd.array([7, 8, -7], dtype="int32")
    assert nd.broadcast_div(a, nd.array([2], dtype="int32")).tolist() == [3, 4, -3]
    assert nd.elemwise_div(a, nd.array([2, 2, 2], dtype="int32")).tolist() == [3, 4, -3]
    for scalar in (2, 2.5):
        out = nd.divide(a, scalar)
        assert out.dtype == jnp.int32 and out.tolist() == [3, 4, -3]
    assert nd.modulo(a, 2).tolist() == [1, 0, 1]
    assert nd.broadcast_div(nd.array([7.0]), nd.array([2.0])).tolist() == [3.5]  # floats: true division


def test_tile_takes_an_int_as_mxnet_1x_does():
    # MXNet 1.9.1: tile(arange(3), reps=2) == [0, 1, 2, 0, 1, 2]; tile(ones((2, 2)), reps=3).shape == (2, 6)
    assert nd.tile(nd.arange(3), reps=2).tolist() == [0.0, 1.0, 2.0, 0.0, 1.0, 2.0]
    assert nd.tile(nd.ones((2, 2)), reps=3).shape == (2, 6)
    assert nd.tile(nd.arange(3), reps=1).tolist() == [0.0, 1.0, 2.0]
