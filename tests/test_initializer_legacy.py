"""MXNet-style initializers run unchanged: ``_init_weight(self, name, arr)`` filling ``arr[:]``,
``mx.random.*(out=arr)``, ``mx.init.register``, ``Mixed``, ``Load`` (dict or file), string names,
``Constant`` on any shape."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

import framework as mx
from framework import gluon


class MyInit(mx.init.Initializer):  # written for MXNet 1.x, unchanged
    def __init__(self):
        super().__init__()

    def _init_weight(self, name, arr):
        arr[:] = mx.nd.arange(arr.size).reshape(arr.shape)
        arr[0] = -1

    def _init_bias(self, name, arr):
        arr[:] = 0.5


@mx.init.register
class ScaledUniform(mx.init.Initializer):  # MXNet's own Uniform, written the 1.x way
    def __init__(self, scale=0.5):
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, _, arr):
        mx.random.uniform(-self.scale, self.scale, out=arr)


class NoSuper(mx.init.Initializer):  # MXNet code sometimes skips super().__init__()
    def __init__(self, value):
        self.value = value

    def _init_weight(self, name, arr):
        arr[:] = onp.full(arr.shape, self.value)


def test_custom_init_weight_fills_arr():
    net = gluon.nn.Dense(3, in_units=2)
    net.initialize(MyInit())
    assert net.weight.data().tolist() == [[-1.0, -1.0], [2.0, 3.0], [4.0, 5.0]]
    # the layer's own bias_initializer ('zeros') wins over the block-level init, as in MXNet
    assert net.bias.data().tolist() == [0.0, 0.0, 0.0]
    direct = MyInit()("fc_bias", (2,), "float32")
    assert direct.tolist() == [0.5, 0.5]


def test_random_out_arr_and_register_by_name():
    mx.random.seed(0)
    net = gluon.nn.Dense(50, in_units=40)
    net.initialize("scaleduniform")
    w = onp.asarray(net.weight.data())
    assert w.shape == (50, 40) and w.min() >= -0.5 and w.max() <= 0.5 and w.std() > 0.2
    w2 = ScaledUniform(0.1).init_array((4, 4))
    assert float(jnp.abs(w2).max()) <= 0.1 and float(jnp.abs(w2).max()) > 0


def test_without_super_init_and_with_nothing_assigned():
    assert NoSuper(3.0).init_array((2,)).tolist() == [3.0, 3.0]

    class Lazy(mx.init.Initializer):
        def _init_weight(self, name, arr):
            pass

    with pytest.raises(ValueError, match=r"Lazy._init_weight\('w', arr\) assigned nothing: fill"):
        Lazy().init_array((2,), name="w")


def test_slot_rejects_a_value_of_the_wrong_shape():
    class Bad(mx.init.Initializer):
        def _init_weight(self, name, arr):
            arr[:] = onp.ones((5,))

    with pytest.raises(ValueError, match=r"shape \(5,\) cannot fill the parameter of shape \(2, 3\)"):
        Bad().init_array((2, 3))


def test_string_names_mixed_load_constant(tmp_path):
    net = gluon.nn.Dense(4, in_units=3)
    net.initialize("xavier")
    assert net.weight.data().shape == (4, 3)
    mixed = mx.init.Mixed(["conv.*", ".*"], [mx.init.Constant(2.0), "ones"])
    assert mixed("conv0_weight", (2,), "float32").tolist() == [2.0, 2.0]
    assert mixed("dense0_weight", (1,), "float32").tolist() == [1.0]
    assert mixed("conv0_bias", (1,), "float32").tolist() == [0.0]  # suffix dispatch, as MXNet does
    assert mx.init.Constant(7).init_array((2, 1, 3)).tolist() == [[[7.0, 7.0, 7.0]], [[7.0, 7.0, 7.0]]]
    f = str(tmp_path / "w.params")
    mx.nd.save(f, {"arg:dense0_weight": mx.nd.ones((4, 3)) * 3})
    load = mx.init.Load(f, default_init=mx.init.Zero())
    assert float(load("dense0_weight", (4, 3), "float32").sum()) == 36.0
    assert load("other_bias", (2,), "float32").tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="Shape mismatch, target"):
        load("dense0_weight", (2, 2), "float32")


def test_slot_reads_see_written_values():
    seen = {}

    class Reads(mx.init.Initializer):
        def _init_weight(self, name, arr):
            arr[:] = 1
            arr[1] = arr[0] * 5
            seen["sum"] = float(jnp.sum(jnp.asarray(arr)))
            seen["np"] = arr.asnumpy().tolist()

    out = Reads().init_array((2, 2), key=jax.random.key(0))
    assert out.tolist() == [[1.0, 1.0], [5.0, 5.0]] and seen == {"sum": 12.0, "np": out.tolist()}
