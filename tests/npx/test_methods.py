"""npx functions for what were NDArray methods (asnumpy, asscalar, copyto, setitem, ...)."""

import jax
import numpy as onp
import pytest

from framework import autograd, np, npx


def test_asnumpy_asscalar_item():
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    out = npx.asnumpy(x)
    assert isinstance(out, onp.ndarray) and out.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert npx.asscalar(x.sum()) == 10.0 and isinstance(npx.asscalar(x.sum()), float)
    assert npx.item(x[1, 1]) == 4.0
    assert npx.asscalar(np.ones((1,))) == 1.0
    with pytest.raises(ValueError, match=r"shape \(2, 2\), not one element"):
        npx.asscalar(x)
    v = autograd.attach_grad(x)
    assert npx.asnumpy(v).sum() == 10.0
    with autograd.record():
        y = (v * 2).sum()
    assert npx.asscalar(y) == 20.0


def test_asnumpy_is_a_writable_copy():
    # MXNet 1.9.1: n = nd.arange(4).reshape((2, 2)).asnumpy(); n[0, 0] = 9 writes n (flags.writeable is
    # True) and leaves the NDArray [[0, 1], [2, 3]]
    x = np.arange(4.0).reshape(2, 2)
    n = npx.asnumpy(x)
    n[0, 0] = 9
    assert n.flags.writeable and n.tolist() == [[9.0, 1.0], [2.0, 3.0]]
    assert x.tolist() == [[0.0, 1.0], [2.0, 3.0]]
    v = autograd.attach_grad(np.ones(2))
    m = npx.asnumpy(v)
    m[0] = 5
    assert npx.asnumpy(v).tolist() == [1.0, 1.0]


def test_wait_to_read_returns_none():
    assert npx.wait_to_read(np.ones(2)) is None
    assert npx.wait_to_read(autograd.attach_grad(np.ones(2))) is None


def test_copyto_device_variable_array():
    x = np.array([1.0, 2.0])
    on1 = npx.copyto(x, npx.cpu(1))
    assert on1.devices() == {npx.cpu(1)} and on1.tolist() == [1.0, 2.0]
    v = autograd.attach_grad(np.zeros(2, ctx=npx.cpu(2)))
    assert npx.copyto(x, v) is v
    assert v.tolist() == [1.0, 2.0] and v.device == npx.cpu(2)
    t = np.zeros(2, dtype="float16", ctx=npx.cpu(3))
    out = npx.copyto(x, t)
    assert out.dtype == onp.float16 and out.devices() == {npx.cpu(3)}
    host = onp.zeros(2, onp.float32)
    assert npx.copyto(x, host) is host and host.tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match=r"shape \(2,\) does not match the target's \(3,\)"):
        npx.copyto(x, np.zeros(3))
    with pytest.raises(TypeError, match="target is str; expected a device"):
        npx.copyto(x, "gpu")


def test_copy_into_is_what_the_target_holds_afterwards():
    x = np.ones(2)
    dev = npx.cpu(1)
    assert npx.copy_into(x, dev) is dev
    t = npx.copy_into(x, np.zeros(2))
    assert t.tolist() == [1.0, 1.0]


def test_as_in_context_and_context_of():
    x = np.ones(2, ctx=npx.cpu(1))
    assert npx.as_in_context(x, npx.cpu(1)) is x
    moved = npx.as_in_context(x, npx.cpu(0))
    assert moved.devices() == {npx.cpu(0)}
    v = autograd.attach_grad(x)
    assert npx.as_in_context(v, npx.cpu(1)) is v
    assert npx.context_of(x) == npx.cpu(1) and npx.context_of(v) == npx.cpu(1)
    assert npx.context_of(onp.ones(2)) == npx.cpu(0)
    with pytest.raises(TypeError, match="ctx is 'cpu'; expected a device"):
        npx.as_in_context(x, "cpu")
    with pytest.raises(TypeError, match="list is not an array"):
        npx.context_of([1.0])
    mesh = jax.sharding.Mesh(onp.array(jax.devices()[:2]), ("d",))
    sharded = jax.device_put(np.ones(4), jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("d")))
    with pytest.raises(ValueError, match="sharded over 2 devices"):
        npx.context_of(sharded)


def test_device_type_and_id():
    assert npx.device_type(npx.cpu(0)) == "cpu"
    assert npx.device_id(npx.cpu(2)) == 2
    with pytest.raises(TypeError, match="'cpu:1' is not a device"):
        npx.device_id("cpu:1")
    with pytest.raises(TypeError, match="'cpu' is not a device"):
        npx.device_type("cpu")


def test_setitem_forms():
    x = np.zeros((2, 3))
    y = npx.setitem(x, (1, slice(1, None)), 4)
    assert x.tolist() == [[0.0] * 3] * 2  # a jax.Array is never changed
    assert y.tolist() == [[0.0, 0.0, 0.0], [0.0, 4.0, 4.0]]
    i = np.zeros((2, 3), dtype="int32")
    assert npx.setitem(i, (1, 2), 10.7).tolist() == [[0, 0, 0], [0, 0, 10]]
    v = autograd.attach_grad(np.zeros(3))
    assert npx.setitem(v, slice(None), np.array([1.0, 2.0, 3.0])) is v
    assert v.tolist() == [1.0, 2.0, 3.0]
    lst = [1, 2, 3]
    assert npx.setitem(lst, slice(None), [7]) is lst and lst == [7]
    d = {}
    assert npx.setitem(d, "k", 1) == {"k": 1}
    w = autograd.attach_grad(np.ones(2))
    with autograd.record():
        r = npx.setitem(w * 2, 0, 0.0)
        loss = r.sum()
    loss.backward()
    assert w.grad.tolist() == [0.0, 2.0]


def test_ndarray_isinstance():
    assert isinstance(np.ones(1), npx.NDArray)
    assert isinstance(autograd.attach_grad(np.ones(1)), npx.NDArray)
    assert not isinstance(onp.ones(1), npx.NDArray)
    assert issubclass(jax.Array, npx.NDArray)
    with pytest.raises(TypeError, match="isinstance checks only"):
        npx.NDArray()


def test_detach_cuts_the_value_off_the_graph_as_mxnet():
    """A GAN step (MXNet's dc_gan): D trained on ``fake.detach()``, then G through ``fake`` recorded in
    the earlier block. MXNet 1.9.1 gives G's weight gradient 48.0 everywhere (ones init, as here): the
    first backward neither reached nor freed what made ``fake``."""
    from framework import autograd, gluon, init, nd, npx

    g, d = gluon.nn.Dense(3), gluon.nn.Dense(1)
    g.initialize(init.One())
    d.initialize(init.One())
    with autograd.record():
        fake = g(nd.ones((2, 4)))
        err_d = (d(npx.detach(fake)) ** 2).sum()
    err_d.backward()
    with autograd.record():
        err_g = (d(fake) ** 2).sum()
    err_g.backward()
    assert npx.asnumpy(g.weight.grad()).tolist() == [[48.0] * 4] * 3
    assert npx.detach(nd.ones(2)).tolist() == [1.0, 1.0]


def test_detach_of_a_receiver_the_porter_cannot_type():
    """MXNet's word_language_model detaches a list of hidden states through a helper: the porter writes
    npx.detach(x) for any receiver; arrays come back cut off, other objects' own detach() runs."""
    from framework import npx
    from framework.port import port_source

    src = ("import mxnet as mx\nfrom mxnet import nd\n\n\ndef detach(hidden):\n"
           "    if isinstance(hidden, (tuple, list)):\n        return [detach(i) for i in hidden]\n"
           "    return hidden.detach()\n\n\nclass Own:\n    def detach(self):\n        return 'own'\n\n\n"
           "out = detach([nd.ones(2), nd.zeros(2)])\nother = detach(Own())\n")
    ported = port_source(src, "det.py")
    assert "return mx.npx.detach(hidden)" in ported
    scope: dict = {}
    exec(compile(ported, "det.py", "exec"), scope)  # noqa: S102
    assert [npx.asnumpy(x).tolist() for x in scope["out"]] == [[1.0, 1.0], [0.0, 0.0]]
    assert scope["other"] == "own"
