"""Porter: arrays reaching a class's helper methods, CustomOp/Function backward arguments, DataLoader
batches, NDArray methods decided at run time (``nd.array_method``) and ``nd.f(x, out=x)``."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as onp

from framework import nd
from framework.port import port_source

OP = '''import mxnet as mx
class Op(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        p = self.layer(in_data[0], in_data[1], 3)
        self.assign(out_data[0], req[0], p)
    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0].expand_dims(0))
    def layer(self, x, bias, n):
        return bias.tile(reps=(n, 1)) + x
'''


def test_a_helper_method_given_arrays_by_the_class_routes_their_methods():
    out = port_source(OP)
    assert "mx.nd.tile(bias, reps=(n, 1))" in out  # bias reached layer() from forward's in_data
    assert "mx.nd.expand_dims(mx.npx.nd_getitem(out_grad, 0), 0)" in out  # backward's arguments too


def test_the_batches_of_a_dataloader_are_arrays():
    src = ("import mxnet as mx\nloader = mx.gluon.data.DataLoader(ds, 4)\nfor x, y in loader:\n"
           "    z = x.flatten()\n")
    assert "z = mx.nd.flatten(x)" in port_source(src)


def test_methods_jax_lacks_on_an_untyped_receiver_are_decided_at_run_time():
    src = "import mxnet as mx\ndef f(b):\n    return b.sigmoid() + b.flatten().tile(reps=(2, 1))\n"
    out = port_source(src)
    assert 'mx.nd.array_method(b, "sigmoid")' in out
    assert 'mx.nd.tile(mx.nd.array_method(b, "flatten"), reps=(2, 1))' in out
    assert port_source(out) == out  # a second port changes nothing
    assert "'a b'.split()" in port_source("import mxnet as mx\nw = 'a b'.split()\n")  # left as it is


def test_array_method_is_the_nd_operator_on_arrays_and_the_own_method_elsewhere():
    x = jnp.ones((2, 3, 4))
    assert nd.array_method(x, "flatten").shape == (2, 12)  # MXNet's flatten keeps the first axis
    assert nd.array_method(onp.ones((2, 3)), "flatten").shape == (6,)  # NumPy's own
    assert nd.array_method(onp.zeros(2), "sigmoid").tolist() == [0.5, 0.5]  # NumPy lacks it: nd's
    assert nd.array_method("a-b", "split", "-") == ["a", "b"]


def test_an_operator_applied_in_place_binds_its_result():
    src = ("import mxnet as mx\ndef f(p, q):\n    p.sigmoid(out=p)\n    mx.nd.relu(p, out=p)\n"
           "    mx.nd.exp(p, out=q)\n    return p\n")
    out = port_source(src)
    assert 'p = mx.nd.array_method(p, "sigmoid")' in out
    assert "p = mx.nd.relu(p)" in out
    assert "mx.nd.exp(p, out=q)" in out  # another target is left to the operator


def test_an_operator_namespace_handed_to_a_helper_is_no_array():
    src = ("import mxnet as mx\nclass Cell(mx.gluon.Block):\n    def forward(self, F, inputs):\n"
           "        return self.node(F, inputs)\n    def node(self, F, x):\n"
           "        return F.split(x, num_outputs=2)[0].expand_dims(0)\n")
    out = port_source(src)
    assert "F.split(x, num_outputs=2)" in out  # F stays the namespace (it used to become F.split(F, x))
    assert port_source(out) == out


def test_a_backward_writing_into_its_gradient_list_is_a_fixpoint():
    src = ("import mxnet as mx\nclass Op(mx.operator.CustomOp):\n"
           "    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):\n"
           "        in_grad[0][:] = out_grad[0] * 2\n")
    out = port_source(src)
    assert "in_grad[0] = mx.npx.setitem(in_grad[0], slice(None)," in out
    assert port_source(out) == out
