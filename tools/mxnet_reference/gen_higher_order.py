"""Reference data for higher-order gradients (autograd.grad(..., create_graph=True), then backward),
made by real MXNet 1.9.1.

Run: /tmp/mx/bin/python tools/mxnet_reference/gen_higher_order.py   (writes tests/reference/higher_order/)

``unary.npz``: for each operator MXNet 1.9.1 differentiates twice (sin, log, sigmoid, tanh; its
``_backward_mul``/``_backward_dot`` have no gradient, so products and dense layers cannot be), the input
``x``, the first gradient ``<op>:grad`` recorded with ``create_graph=True`` and the gradient
``<op>:grad2`` that a backward of that first gradient writes into ``x.grad``; and the same for a chain
``tanh(sigmoid(log(x)))`` (``chain:*``).
"""

import os

import mxnet as mx
import numpy as onp
from mxnet import autograd, nd

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "reference", "higher_order")
OPS = {"sin": nd.sin, "log": nd.log, "sigmoid": nd.sigmoid, "tanh": nd.tanh,
       "chain": lambda v: nd.tanh(nd.sigmoid(nd.log(v)))}


def main():
    os.makedirs(OUT, exist_ok=True)
    x_host = onp.array([0.5, 1.0, 2.0, 3.5], onp.float32)
    out = {"x": x_host}
    for name, op in OPS.items():
        x = nd.array(x_host)
        x.attach_grad()
        with autograd.record():
            y = op(x)
            g, = autograd.grad(y, [x], create_graph=True)
        g.backward()
        out[f"{name}:grad"] = g.asnumpy()
        out[f"{name}:grad2"] = x.grad.asnumpy()
    onp.savez(os.path.join(OUT, "unary.npz"), **out)
    print("wrote", OUT, "with MXNet", mx.__version__)


if __name__ == "__main__":
    main()
