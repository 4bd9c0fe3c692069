"""A custom operator with auxiliary states and a 1.x Block over it, defined for whichever ``mx`` is given:
MXNet 1.9.1 (``tools/mxnet_reference/gen_custom_aux.py``) or the framework (``tests/test_operator_aux.py``).

The operator ``acc_aux`` multiplies ``data`` by ``weight`` (two outputs: ``y`` and ``2y``); in training its
forward adds the column sums of ``y`` to auxiliary state ``total`` and keeps ``y`` in ``last``, and its
backward adds ``total`` (as the forward left it) to the weight's gradient, so the gradients show which
auxiliary values the backward saw.
"""

from __future__ import annotations


def define(mx):
    """Register ``acc_aux`` with ``mx.operator`` and return the Block class using it."""

    class Acc(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            x, w = in_data[0], in_data[1]
            y = mx.nd.dot(x, w)
            if is_train:
                aux[0][:] = aux[0] + mx.nd.sum(y, axis=0)
                aux[1][:] = y
            self.assign(out_data[0], req[0], y)
            self.assign(out_data[1], req[1], y * 2)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            x, w = in_data[0], in_data[1]
            g = out_grad[0] + 2 * out_grad[1]
            self.assign(in_grad[0], req[0], mx.nd.dot(g, w, transpose_b=True))
            wgrad = mx.nd.dot(x, g, transpose_a=True) + mx.nd.reshape(aux[0], (1, -1))
            self.assign(in_grad[1], req[1], wgrad)

    @mx.operator.register("acc_aux")
    class AccProp(mx.operator.CustomOpProp):
        def __init__(self, units):
            super().__init__(True)
            self.units = int(units)

        def list_arguments(self):
            return ["data", "weight"]

        def list_outputs(self):
            return ["out", "double"]

        def list_auxiliary_states(self):
            return ["total", "last"]

        def infer_shape(self, in_shape):
            d = in_shape[0]
            return [d, (d[1], self.units)], [(d[0], self.units)] * 2, [(self.units,), (d[0], self.units)]

        def create_operator(self, ctx, shapes, dtypes):
            return Acc()

    class AccBlock(mx.gluon.HybridBlock):
        """Parameters of unknown shape (``allow_deferred_init``) that only the operator's infer_shape
        decides, as MXNet's RBM example declares them."""

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.weight = self.params.get("weight", shape=(0, 0), allow_deferred_init=True)
                self.total = self.params.get("aux_total", shape=(0,), allow_deferred_init=True, init="zeros")
                self.last = self.params.get("aux_last", shape=(0, 0), allow_deferred_init=True, init="zeros")

        def hybrid_forward(self, F, x, weight, total, last):
            return F.Custom(x, weight, total, last, op_type="acc_aux", units=3)

    return AccBlock
