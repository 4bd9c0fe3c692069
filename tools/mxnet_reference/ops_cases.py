"""The case table of ``gen_ops.py`` (numpy only, so both MXNet's venv and the suite can read it).

``case(name, op, inputs, kwargs, grad, **extra)``: ``op`` is a path under ``mx``; ``grad`` lists the
differentiable inputs; ``extra`` may hold ``no_head`` (outputs that get no head gradient: indices,
counts), ``int_out`` and the like, copied into the table for the replay.

``BODIES``: the functions that control-flow cases take, by key, each built for a namespace ``F``
(``mx.nd`` in MXNet, ``framework.nd`` in the replay); ``tests/ops_reference.py`` defines the same ones.
"""

from __future__ import annotations

import numpy as np

CASES: list[tuple] = []


def rs(seed: int):
    return np.random.RandomState(seed)


def f32(*shape, seed=0, lo=-1.0, hi=1.0):
    return rs(seed).uniform(lo, hi, shape).astype(np.float32)


def case(name, op, inputs, kwargs=None, grad=(), **extra):
    CASES.append((name, op, [np.asarray(a) for a in inputs], kwargs or {}, list(grad), extra))


def _foreach_body(F):
    def body(data, states):
        out = data * 2 + states[0]
        return out, [states[0] + data]
    return body


def _while_cond(F):
    def cond(i, s):
        return i < 3
    return cond


def _while_body(F):
    def body(i, s):
        return s * 2, (i + 1, s * 2 + 1)
    return body


def _cond_pred(F):
    def pred(x, y):
        return F.sum(x) > F.sum(y)
    return pred


BODIES = {
    "foreach_body": _foreach_body,
    "while_cond": _while_cond,
    "while_body": _while_body,
    "cond_pred": _cond_pred,
}


def tensor_ops() -> None:
    """npx's array extras."""
    a = f32(2, 3, 4, seed=1)
    case("npx_batch_dot", "npx.batch_dot", [a, f32(2, 4, 5, seed=2)], grad=[0, 1])
    case("npx_batch_dot_t", "npx.batch_dot", [a, f32(2, 5, 3, seed=2)],
         {"transpose_a": True, "transpose_b": True}, grad=[0, 1])
    case("npx_batch_dot_4d", "npx.batch_dot", [f32(2, 2, 3, 4, seed=3), f32(2, 2, 4, 2, seed=4)], grad=[0, 1])
    case("npx_gather_nd", "npx.gather_nd", [a, np.array([[0, 1, 1], [2, 0, 1]], np.int32)], grad=[0])
    # MXNet's gradient drops entries reached through negative indices (its forward wraps them): values only
    case("npx_gather_nd_neg", "npx.gather_nd", [a, np.array([[0, 1, -1], [2, 0, -2]], np.int32)])
    case("npx_gather_nd_f", "npx.gather_nd", [a, np.array([[1.0, 0.0]], np.float32)], grad=[0])
    case("npx_nonzero", "npx.nonzero", [np.array([[0, 1.5, 0], [2, 0, -1]], np.float32)])
    case("npx_nonzero_none", "npx.nonzero", [np.zeros((3,), np.float32)])
    case("npx_reshape_like", "npx.reshape_like", [a, f32(6, 4, seed=3)], grad=[0])
    case("npx_reshape_like_part", "npx.reshape_like", [a, f32(5, 6, 2, seed=3)],
         {"lhs_begin": 1, "lhs_end": 3, "rhs_begin": 1}, grad=[0])
    case("npx_slice", "npx.slice", [a], {"begin": [0, 1], "end": [2, 3]}, grad=[0])
    case("npx_slice_step", "npx.slice", [a],
         {"begin": [None, 2, 3], "end": [None, 0, None], "step": [None, -1, -2]}, grad=[0])
    case("npx_smooth_l1", "npx.smooth_l1", [f32(3, 4, seed=5, lo=-2, hi=2)], {"scalar": 2.0}, grad=[0])
    case("npx_cast", "npx.cast", [f32(2, 3, seed=6, lo=-3, hi=3)], {"dtype": "int32"})
    case("npx_shape_array", "npx.shape_array", [a])


def build() -> None:
    tensor_ops()
