"""``mx.test_utils``' symbolic checks over the framework's executors: the small MLP's outputs and
gradients made by MXNet 1.9.1 pass ``check_symbolic_forward``/``check_symbolic_backward`` (location as a
list or a dict, expected as a list or a dict, grad_req write/add/null), and a wrong value fails with
MXNet's message (tests/reference/symtools, tools/mxnet_reference/gen_symtools.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as onp
import pytest
from symtools_cases import small_mlp, small_mlp_args

import framework as mx
from framework import test_utils as tu

REF = Path(__file__).resolve().parents[1] / "reference" / "symtools"
MSG = json.loads((REF / "symbolic_check.json").read_text())
ARRAYS = dict(onp.load(REF / "symbolic_check.npz"))
GRADS = {k[5:]: v for k, v in ARRAYS.items() if k.startswith("grad:")}


def _text(message) -> str:
    """The message before its array dumps, the values' last digits (float rounding) masked."""
    return re.sub(r"(\d+\.\d{2})\d+", r"\1", str(message).split(" ACTUAL")[0])


def test_forward_accepts_mxnets_outputs_list_and_dict():
    net, args = small_mlp(mx), small_mlp_args()
    out = ARRAYS["out:softmax_output"]
    tu.check_symbolic_forward(net, args, [out])
    outs = tu.check_symbolic_forward(net, [args[k] for k in net.list_arguments()], {"softmax_output": out})
    onp.testing.assert_allclose(onp.asarray(outs[0]), out, rtol=1e-5)


def test_forward_failure_is_mxnets_message():
    net, args = small_mlp(mx), small_mlp_args()
    wrong = ARRAYS["out:softmax_output"].copy()
    wrong[0, 1] += 0.5
    with pytest.raises(AssertionError) as e:
        tu.check_symbolic_forward(net, args, [wrong])
    assert _text(e.value) == _text(MSG["forward"])


def test_backward_accepts_mxnets_gradients():
    net, args = small_mlp(mx), small_mlp_args()
    grads = tu.check_symbolic_backward(net, args, None, GRADS)
    onp.testing.assert_allclose(onp.asarray(grads["fc1_weight"]), GRADS["fc1_weight"], rtol=1e-5, atol=1e-6)
    tu.check_symbolic_backward(net, args, None, [GRADS[k] for k in net.list_arguments()],
                               grad_req={k: "add" if k.startswith("fc1") else "write" for k in args})
    tu.check_symbolic_backward(net, args, None, {"fc2_bias": GRADS["fc2_bias"] + 5}, grad_req="null")


def test_backward_failure_is_mxnets_message():
    net, args = small_mlp(mx), small_mlp_args()
    wrong = dict(GRADS)
    wrong["fc2_bias"] = GRADS["fc2_bias"].copy()
    wrong["fc2_bias"][2] -= 1.0
    with pytest.raises(AssertionError) as e:
        tu.check_symbolic_backward(net, args, None, wrong)
    assert _text(e.value) == _text(MSG["backward"])


def test_head_gradients_and_location_errors():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    x, y = onp.float32([1, 2]), onp.float32([3, 4])
    tu.check_symbolic_backward(a * b, [x, y], [onp.float32([2, 2])], [2 * y, 2 * x])
    prod = a * b
    tu.check_symbolic_backward(prod, [x, y], {prod.list_outputs()[0]: onp.float32([1, 1])}, {"a": y})
    with pytest.raises(ValueError) as e:
        tu.check_symbolic_forward(small_mlp(mx), {"data": x}, [x])
    assert str(e.value).split("symbol args:")[0] == MSG["location"].split("symbol args:")[0]


def test_simple_forward_same_structure_and_speed():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    assert tu.simple_forward(a * b + 1, a=onp.ones((2,)) * 3, b=onp.arange(2.0)).tolist() == \
        MSG["simple_forward"]
    assert [tu.same_symbol_structure(a + b, b + a), tu.same_symbol_structure(a + b, a * b)] == \
        MSG["same_structure"]
    assert tu.check_speed(a * b, location={"a": onp.ones(3), "b": onp.ones(3)}, N=2) > 0
    assert tu.check_speed(a * b, N=2, typ="forward", a=(3,), b=(3,)) > 0
    with pytest.raises(ValueError, match="whole"):
        tu.check_speed(a * b, N=1, typ="other", a=(3,), b=(3,))
