"""``np.linalg`` functions record under ``autograd.record()`` (a recorded value used to reach
``jax.numpy.linalg`` unwrapped and fail): values and gradients of MXNet 1.9.1
(``tests/reference/d2l/behaviour.json``, ``tools/mxnet_reference/gen_d2l.py``)."""

import json
from pathlib import Path

import numpy as onp

from framework import autograd, np

REF = json.loads((Path(__file__).parents[1] / "reference" / "d2l" / "behaviour.json").read_text())["linalg"]


def check(got, ref):
    onp.testing.assert_allclose(onp.asarray(got), onp.asarray(ref["array"]), rtol=1e-5)


def test_python_control_flow_on_a_recorded_norm():
    a = autograd.attach_grad(np.array([0.3, -0.2]))
    with autograd.record():
        b = a * 2
        while np.linalg.norm(b) < 1000:
            b = b * 2
        d = b if b.sum() > 0 else 100 * b
    d.backward()
    ref_d, ref_grad = REF["control_flow"]["value"]
    check(d, ref_d)
    check(a.grad, ref_grad)


def test_norm_gradient():
    x = autograd.attach_grad(np.array([[3.0, 4.0], [1.0, 2.0]]))
    with autograd.record():
        n = np.linalg.norm(x) + np.linalg.norm(x[0])
    n.backward()
    ref_n, ref_grad = REF["norm_grad"]["value"]
    check(n, ref_n)
    check(x.grad, ref_grad)
