"""MXNet 1.x's control-flow operators ``foreach``, ``while_loop`` and ``cond`` (``nd.contrib.*``,
``F.contrib.*`` in a 1.x ``hybrid_forward``), with MXNet's signatures and output conventions.

They compile to ``lax.scan`` (``while_loop`` too: a scan of ``max_iterations`` steps that stop
changing anything once the condition fails, so that it has gradients) and ``lax.cond``: inside
``jax.jit`` or a hybridized block, and for plain arrays outside ``autograd.record()``. Inside
``record()`` on concrete arrays they run the body step by step as MXNet's NDArray versions do, so every
operator of the body is recorded (also on values the body reaches through a closure, such as a layer's
weights) and gradients match MXNet's. A body that needs concrete values (Python ``if`` on an array) runs
step by step too, when its inputs are concrete.

Differences from MXNet, by necessity: ``while_loop`` pads its stacked outputs up to ``max_iterations``
with zeros (MXNet leaves them uninitialised); under ``jax.jit`` the two branches of ``cond`` must return
the same structure and shapes, and a ``while_loop`` body must keep its loop variables' shapes.

>>> import framework as mx
>>> out, states = mx.nd.contrib.foreach(lambda x, s: (x + s[0], [s[0] + x]), mx.nd.arange(3),
...                                     [mx.nd.zeros(1)])
>>> out.tolist(), states[0].tolist()
([[0.0], [1.0], [3.0]], [3.0])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp
from jax import lax

from ...autograd import mode as _mode
from ...autograd import tape as _tape

__all__ = ["foreach", "while_loop", "cond"]


def _as_list(x: Any) -> list:
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def _leaves(tree: Any) -> list:
    return jax.tree_util.tree_leaves(tree, is_leaf=lambda v: isinstance(v, _tape.Value))


def _has_tracer(*trees: Any) -> bool:
    return any(isinstance(v, jax.core.Tracer) for t in trees for v in _leaves(t))


def _step_by_step(*trees: Any) -> bool:
    """Run imperatively (as MXNet's NDArray operators do): recording on concrete inputs."""
    return _mode.is_recording() and not _has_tracer(*trees)


def _single(outs: Any) -> bool:
    return not isinstance(outs, (list, tuple))


def _stack(items: list) -> Any:
    from ..shape import stack

    return stack(*items, axis=0)


def _regroup_like(template: Any, leaves: list) -> Any:
    """``leaves`` in the list structure of ``template`` (an array, or a possibly nested list/tuple)."""
    tree = jax.tree_util.tree_structure(template, is_leaf=lambda v: not isinstance(v, (list, tuple)))
    return jax.tree_util.tree_unflatten(tree, leaves)


def _flat(x: Any) -> list:
    return jax.tree_util.tree_leaves(x, is_leaf=lambda v: not isinstance(v, (list, tuple)))


# ------------------------------------------------------------------------------------------ foreach
def foreach(body: Callable[[Any, Any], tuple[Any, Any]], data: Any, init_states: Any) -> tuple[Any, Any]:
    """Run ``body(data[i], states) -> (outputs, new_states)`` over the first axis of ``data`` (an array or
    a list of arrays). Returns ``(outputs stacked on a new first axis, final states)``: an array or a
    list, as ``body`` returns them.

    >>> import framework as mx
    >>> body = lambda x, s: ([x, x * s], s + 1)
    >>> outs, s = mx.nd.contrib.foreach(body, mx.nd.ones((2, 3)), mx.nd.ones(3))
    >>> outs[1].tolist(), s.tolist()
    ([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]], [3.0, 3.0, 3.0])
    """
    if not callable(body):
        raise TypeError(f"foreach: body must be a function (data, states) -> (outputs, states), got {body!r}")
    single = _single(data)
    items = _as_list(data)
    if not items or any(jnp.ndim(d) < 1 for d in items):
        raise ValueError("foreach: data must be an array or a list of arrays with a leading axis to loop "
                         "over")
    n = items[0].shape[0]
    if any(d.shape[0] != n for d in items):
        shapes = [tuple(d.shape) for d in items]
        raise ValueError(f"foreach: every data array needs the same first axis, got {shapes}")
    if _step_by_step(data, init_states):
        return _foreach_steps(body, items, single, init_states, n)
    data_v, states_v = _tape.values_of((data, init_states))
    try:
        return _foreach_scan(body, _as_list(data_v), single, states_v)
    except jax.errors.ConcretizationTypeError:
        if _has_tracer(data_v, states_v):
            raise
        return _foreach_steps(body, _as_list(data_v), single, states_v, n)


def _foreach_steps(body, items, single, states, n):
    outputs: list[list] = []
    fmt = None
    for i in range(n):
        eles = items[0][i] if single else [d[i] for d in items]
        outs, states = body(eles, states)
        fmt = outs
        outputs.append(_flat(outs))
    if n == 0:
        return [], states
    stacked = [_stack(list(col)) for col in zip(*outputs, strict=True)]
    return (stacked[0] if _single(fmt) else _regroup_like(fmt, stacked)), states


def _foreach_scan(body, items, single, init_states):
    fmt: dict[str, Any] = {}
    init_leaves = _flat(init_states)

    def step(carry, xs):
        states = _regroup_like(init_states, list(carry))
        outs, new_states = body(xs[0] if single else list(xs), states)
        fmt["outs"] = outs
        new_leaves = _flat(new_states)
        if len(new_leaves) != len(init_leaves):
            raise ValueError(f"foreach: body returned {len(new_leaves)} state arrays, init_states has "
                             f"{len(init_leaves)}")
        new_leaves = [jnp.asarray(v) for v in new_leaves]
        for v, o in zip(new_leaves, init_leaves, strict=True):
            if v.shape != jnp.shape(o):
                raise ValueError(f"foreach: a state changed shape from {jnp.shape(o)} to {v.shape}; compiled "
                                 "loops keep shapes fixed")
        new_leaves = [v.astype(jnp.result_type(o)) for v, o in zip(new_leaves, init_leaves, strict=True)]
        return tuple(new_leaves), tuple(jnp.asarray(o) for o in _flat(outs))

    carry, stacked = lax.scan(step, tuple(jnp.asarray(s) for s in init_leaves), tuple(items))
    outs = fmt["outs"]
    result = stacked[0] if _single(outs) else _regroup_like(outs, list(stacked))
    return result, _regroup_like(init_states, list(carry))


# --------------------------------------------------------------------------------------- while_loop
def _scalar_bool(x: Any, what: str) -> bool:
    try:
        return bool(onp.asarray(_tape.values_of(x)).reshape(()))
    except (TypeError, ValueError):
        raise ValueError(f"while_loop: {what} must be one boolean value, got {x!r}") from None


def while_loop(cond: Callable[..., Any], func: Callable[..., tuple[Any, Any]], loop_vars: Any,
               max_iterations: int | None = None) -> tuple[Any, Any]:
    """``while cond(*vars) and steps < max_iterations: out, vars = func(*vars)``. Returns ``(outputs,
    vars)``: each step's outputs stacked on a new first axis of length ``max_iterations`` (zeros past the
    last step; ``[]`` when ``func`` gives no outputs or no step ran, as in MXNet), and the final loop
    variables (a list, or one array if ``loop_vars`` was one array).

    >>> import framework as mx
    >>> out, (i, s) = mx.nd.contrib.while_loop(lambda i, s: i < 3, lambda i, s: (s, (i + 1, s * 2)),
    ...                                        (mx.nd.array([0]), mx.nd.array([1])), max_iterations=4)
    >>> out.reshape(-1).tolist(), i.tolist(), s.tolist()
    ([1.0, 2.0, 4.0, 0.0], [3.0], [8.0])
    """
    if max_iterations is None:
        raise ValueError("while_loop: max_iterations must be given (the outputs are stacked to that length)")
    if not isinstance(max_iterations, int):
        max_iterations = int(onp.asarray(_tape.values_of(max_iterations)).reshape(()))
    single = _single(loop_vars)
    vars_ = _as_list(loop_vars)
    if not vars_:
        raise ValueError("while_loop: loop_vars must hold at least one array")
    if _step_by_step(vars_):
        outs, vars_ = _while_steps(cond, func, vars_, max_iterations)
    else:
        vals = _tape.values_of(vars_)
        try:
            outs, vars_ = _while_lax(cond, func, vals, max_iterations)
        except jax.errors.ConcretizationTypeError:
            if _has_tracer(vals):
                raise
            outs, vars_ = _while_steps(cond, func, vals, max_iterations)
    return outs, (vars_[0] if single else vars_)


def _call(func, vars_):
    out, new = func(*vars_)
    out = [] if out is None else out
    new = [] if new is None else _as_list(new)
    if len(new) != len(vars_):
        raise ValueError(f"while_loop: func returned {len(new)} loop variables, loop_vars has {len(vars_)}")
    return out, new


def _while_steps(cond, func, vars_, max_iterations):
    from ..creation import zeros
    from ..shape import concat

    outputs: list[list] = []
    fmt: Any = None
    steps = 0
    while steps < max_iterations and _scalar_bool(cond(*vars_), "cond's result"):
        out, vars_ = _call(func, vars_)
        fmt = out
        outputs.append(_flat(out))
        steps += 1
    if not outputs or not outputs[0]:
        return [], vars_
    stacked = []
    for col in zip(*outputs, strict=True):
        rows = [jnp.expand_dims(c, 0) if not isinstance(c, _tape.Value) else c.reshape((1, *c.shape))
                for c in col]
        if steps < max_iterations:
            first = rows[0]
            rows.append(zeros((max_iterations - steps, *first.shape[1:]), dtype=first.dtype))
        stacked.append(concat(*rows, dim=0))
    return (stacked[0] if _single(fmt) else _regroup_like(fmt, stacked)), vars_


def _while_lax(cond, func, vars_, max_iterations):
    """A ``lax.scan`` of ``max_iterations`` steps that stop changing anything once ``cond`` fails (so
    that reverse-mode gradients exist, which ``lax.while_loop`` has not)."""
    vars_ = [jnp.asarray(v) for v in vars_]
    fmt_box: dict[str, Any] = {}

    def step(carry, _):
        done, vs = carry
        go = ~done & jnp.asarray(cond(*vs)).reshape(()).astype(bool)
        out, new = _call(func, list(vs))
        fmt_box["out"] = out
        new = [jnp.asarray(n) for n in new]
        for n, v in zip(new, vs, strict=True):
            if n.shape != v.shape:
                raise ValueError(f"while_loop: a loop variable changed shape from {v.shape} to {n.shape}; "
                                 "compiled loops keep shapes fixed")
        vs = tuple(jnp.where(go, n.astype(v.dtype), v) for n, v in zip(new, vs, strict=True))
        outs = tuple(jnp.where(go, jnp.asarray(o), jnp.zeros_like(jnp.asarray(o))) for o in _flat(out))
        return (~go, vs), (go, outs)

    (_, final), (went, bufs) = lax.scan(step, (jnp.asarray(False), tuple(vars_)), None, length=max_iterations)
    final = list(final)
    out = fmt_box["out"]
    if not _flat(out) or (not isinstance(went, jax.core.Tracer) and not bool(went[0])):
        return [], final
    return (bufs[0] if _single(out) else _regroup_like(out, list(bufs))), final


# --------------------------------------------------------------------------------------------- cond
def cond(pred: Any, then_func: Callable[[], Any], else_func: Callable[[], Any]) -> Any:
    """``then_func()`` if ``pred`` (a one-element array) holds, else ``else_func()``; inside ``jax.jit``
    (a traced ``pred``) both branches are compiled as one ``lax.cond``.

    >>> import framework as mx
    >>> mx.nd.contrib.cond(mx.nd.array([0]), lambda: mx.nd.ones(2), lambda: mx.nd.zeros(2)).tolist()
    [0.0, 0.0]
    """
    p = _tape.values_of(pred)
    if not isinstance(p, jax.core.Tracer):
        try:
            branch = bool(onp.asarray(p).reshape(()))
        except (TypeError, ValueError):
            raise ValueError(f"cond: pred must be one boolean value, got shape {jnp.shape(p)}") from None
        return then_func() if branch else else_func()
    fmt: dict[str, Any] = {}

    def run(fn):
        out = fn()
        fmt.setdefault("out", out)
        return tuple(jnp.asarray(o) for o in _flat(out))

    flat = lax.cond(jnp.asarray(p).reshape(()).astype(bool), lambda: run(then_func), lambda: run(else_func))
    out = fmt["out"]
    return flat[0] if _single(out) else _regroup_like(out, list(flat))
