"""MXNet 2.0's ``npx.control_flow``: ``foreach``, ``while_loop`` and ``cond`` with 2.0's signatures.

``foreach`` and ``while_loop`` take the same arguments as MXNet 1.x's ``nd.contrib`` versions and
behave the same (``while_loop`` stacks its step outputs to ``max_iterations``, as 2.0's operator does),
so they run :mod:`framework.nd.contrib.control_flow`. ``cond`` changed in 2.0: the condition is a
function too, and all three functions take the arrays of ``inputs`` as arguments
(``cond(pred, then_func, else_func, inputs)``). Under ``jax.jit`` (a traced condition) both branches
compile into one ``lax.cond``.

>>> from framework import np, npx
>>> a, b = np.array([1.0]), np.array([2.0])
>>> npx.cond(lambda a, b: a * b < 5, lambda a, b: (a + 5) * (b + 5), lambda a, b: (a - 5) * (b - 5),
...          [a, b]).tolist()
[42.0]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["foreach", "while_loop", "cond"]


def _cf():
    from ..nd.contrib import control_flow  # imported when first used: framework.nd imports framework.npx

    return control_flow


def foreach(body: Callable[[Any, Any], tuple[Any, Any]], data: Any, init_states: Any) -> tuple[Any, Any]:
    """``out, states = body(data[i], states)`` for each ``i`` along axis 0; returns the stacked outputs
    and the last states (MXNet 1.x's ``nd.contrib.foreach``, whose signature 2.0 kept)."""
    return _cf().foreach(body, data, init_states)


def while_loop(cond: Callable[..., Any], func: Callable[..., tuple[Any, Any]], loop_vars: Any,
               max_iterations: int | None = None) -> tuple[Any, Any]:
    """``while cond(*vars): out, vars = func(*vars)``, at most ``max_iterations`` times; the step outputs
    are stacked to length ``max_iterations`` (MXNet 1.x's ``nd.contrib.while_loop``)."""
    return _cf().while_loop(cond, func, loop_vars, max_iterations)


def cond(pred: Callable[..., Any], then_func: Callable[..., Any], else_func: Callable[..., Any],
         inputs: Any, name: str = "cond") -> Any:
    """``then_func(*inputs)`` when ``pred(*inputs)`` (one value) holds, else ``else_func(*inputs)``.
    ``inputs``: an array or a non-empty list of arrays. ``name`` (a graph name in MXNet) is ignored."""
    del name
    if isinstance(inputs, (list, tuple)):
        if not inputs:
            raise ValueError("npx.cond: inputs must hold at least one array (got an empty list); pass the "
                             "arrays that pred, then_func and else_func take")
        args = list(inputs)
    else:
        args = [inputs]
    return _cf().cond(pred(*args), lambda: then_func(*args), lambda: else_func(*args))
