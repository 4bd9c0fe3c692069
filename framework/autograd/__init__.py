"""MXNet's autograd, realised with ``jax.grad``.

``record()`` opens a scope in which Blocks, losses and ``np``/``npx`` operations are recorded;
``loss.backward()`` differentiates the recorded computation with JAX in one compiled program and writes
each Parameter's gradient on its device. For pure functions, :func:`grad` and :func:`value_and_grad` are
``jax.grad`` / ``jax.value_and_grad``.

>>> from framework import autograd, np
>>> autograd.is_recording()
False
>>> with autograd.record():
...     autograd.is_recording(), autograd.is_training()
(True, True)
>>> float(autograd.grad(lambda x: (x ** 2).sum())(np.ones(3))[0])
2.0
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax

from . import tape
from .function import Function, mark_variables
from .mode import (
    is_recording,
    is_training,
    pause,
    predict_mode,
    record,
    set_recording,
    set_training,
    train_mode,
)
from .tape import GraphError, Recorded
from .variable import Variable, attach_grad

__all__ = [
    "record", "pause", "train_mode", "predict_mode", "is_recording", "is_training", "set_recording",
    "set_training", "backward", "grad", "value_and_grad", "Recorded", "GraphError", "Variable", "attach_grad",
    "Function", "mark_variables", "NDArray", "Symbol",
]

#: the array type, which MXNet 1.x's autograd module offers too: ``jax.Array``, as ``mx.nd.NDArray``
NDArray = jax.Array


def backward(heads: Any, head_grads: Any = None, retain_graph: bool = False,
             train_mode: bool = True) -> None:
    """Differentiate ``heads`` (one recorded value or a list; a non-scalar head means its sum)."""
    heads = list(heads) if isinstance(heads, (list, tuple)) else [heads]
    if head_grads is not None and not isinstance(head_grads, (list, tuple)):
        head_grads = [head_grads]
    tape.backward(heads, head_grads, retain_graph=retain_graph)


def grad(fn: Any, argnums: int | Sequence[int] = 0, has_aux: bool = False, **kwargs: Any) -> Any:
    """``jax.grad(fn, argnums, has_aux)`` for pure functions.

    MXNet's form ``grad(heads, variables, head_grads=None, retain_graph=None, create_graph=False)`` with
    recorded heads and Parameters or Variables as variables returns the gradients without writing them;
    with ``create_graph=True`` inside ``record()`` they are recorded, and a backward of them gives
    second-order gradients:

    >>> from framework import np
    >>> x = attach_grad(np.array([0.5, 1.0]))
    >>> with record():
    ...     g, = grad(np.sin(x), [x], create_graph=True)   # cos(x)
    >>> g.backward()
    >>> [round(v, 4) for v in x.grad.tolist()]              # -sin(x)
    [-0.4794, -0.8415]
    """
    if callable(fn) and not isinstance(fn, Recorded):
        return jax.grad(fn, argnums=argnums, has_aux=has_aux, **kwargs)
    return _grad_of_heads(fn, argnums, kwargs.get("head_grads"), kwargs.get("retain_graph"),
                          bool(kwargs.get("create_graph", False)))


def value_and_grad(fn: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
                   **kwargs: Any) -> Callable:
    """``jax.value_and_grad`` for pure functions."""
    return jax.value_and_grad(fn, argnums=argnums, has_aux=has_aux, **kwargs)


def _grad_of_heads(heads: Any, variables: Any, head_grads: Any, retain_graph: Any,
                   create_graph: bool = False) -> list[Any]:
    heads = list(heads) if isinstance(heads, (list, tuple)) else [heads]
    single = not isinstance(variables, (list, tuple))
    variables = [variables] if single else list(variables)
    if head_grads is not None and not isinstance(head_grads, (list, tuple)):
        head_grads = [head_grads]
    return tape.gradients(heads, variables, head_grads, retain_graph=bool(retain_graph),
                          create_graph=create_graph)


def __getattr__(name: str) -> Any:
    if name == "Symbol":  # MXNet's autograd module imports the Symbol class; imported when first asked for
        from ..symbol import Symbol

        return Symbol
    raise AttributeError(f"module 'framework.autograd' has no attribute {name!r}")
