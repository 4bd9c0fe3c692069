"""MXNet's ``autograd.Function`` (a custom forward and backward) realised with ``jax.custom_vjp``, and
``autograd.mark_variables``.

Subclass :class:`Function`, define ``forward(self, *inputs)`` (may call ``self.save_for_backward``) and
``backward(self, *output_grads)`` returning one gradient per input, then call an instance. Under
``jax.grad``/``jax.vjp``, inside ``autograd.record()`` and in compiled code, JAX uses ``backward`` as the
derivative; ``self.saved_tensors`` holds what ``forward`` saved (as residuals, so nothing leaks).

>>> import jax, jax.numpy as jnp
>>> from framework import autograd
>>> class Sigmoid(autograd.Function):
...     def forward(self, x):
...         y = 1 / (1 + jnp.exp(-x))
...         self.save_for_backward(y)
...         return y
...     def backward(self, dy):
...         y, = self.saved_tensors
...         return dy * y * (1 - y) * 10   # deliberately scaled: JAX uses this rule
>>> f = Sigmoid()
>>> round(float(jax.grad(lambda x: f(x).sum())(jnp.zeros(1))[0]), 4)
2.5
"""

from __future__ import annotations

from typing import Any

import jax

__all__ = ["Function", "mark_variables"]


class Function:
    """A differentiable operation with a user-written backward (MXNet's ``mx.autograd.Function``)."""

    saved_tensors: tuple[Any, ...] = ()
    _fn: Any = None  # class defaults: a subclass may skip super().__init__()
    _n_inputs = 0

    def __init__(self) -> None:
        self.saved_tensors: tuple[Any, ...] = ()
        self._fn: Any = None
        self._n_inputs = 0

    def save_for_backward(self, *args: Any) -> None:
        """Keep arrays from ``forward`` for ``backward`` (read them as ``self.saved_tensors``)."""
        self.saved_tensors = args

    def forward(self, *inputs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define forward(*inputs)")

    def backward(self, *output_grads: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define backward(*output_grads)")

    def _build(self) -> Any:
        @jax.custom_vjp
        def op(*inputs):
            return self.forward(*inputs)

        def fwd(*inputs):
            self.saved_tensors = ()
            out = self.forward(*inputs)
            self._n_inputs = len(inputs)
            return out, self.saved_tensors

        def bwd(saved, g):
            n = self._n_inputs
            self.saved_tensors = saved
            grads = self.backward(*(g if isinstance(g, (tuple, list)) else (g,)))
            grads = tuple(grads) if isinstance(grads, (tuple, list)) else (grads,)
            if len(grads) != n:
                raise ValueError(f"{type(self).__name__}.backward returned {len(grads)} gradient(s) for "
                                 f"{n} input(s): return one per input of forward")
            return grads

        op.defvjp(fwd, bwd)
        return op

    def __call__(self, *inputs: Any) -> Any:
        from ..np.dispatch import recordable

        if self._fn is None:  # one custom_vjp per instance: a recorded graph keys on it (no recompiles)
            self._fn = recordable(self._build())
        out = self._fn(*inputs)
        return tuple(out) if isinstance(out, list) else out


def mark_variables(variables: Any, gradients: Any = None, grad_reqs: Any = "write") -> list[Any]:
    """MXNet's ``mark_variables``: here arrays cannot take a gradient buffer, so the marked arrays are
    RETURNED as :class:`~framework.autograd.Variable` objects (use them instead of the arrays); their
    ``.grad`` starts as ``gradients`` when given.

    >>> from framework import autograd, np
    >>> x, = autograd.mark_variables([np.ones(2)], [np.zeros(2)])
    >>> with autograd.record():
    ...     y = (x * 3).sum()
    >>> y.backward(); x.grad.tolist()
    [3.0, 3.0]
    """
    from .variable import attach_grad

    single = not isinstance(variables, (list, tuple))
    vs = [variables] if single else list(variables)
    reqs = [grad_reqs] * len(vs) if isinstance(grad_reqs, str) else list(grad_reqs)
    grads = [None] * len(vs) if gradients is None else (
        [gradients] if single else list(gradients))
    if not len(reqs) == len(grads) == len(vs):
        raise ValueError(f"mark_variables: {len(vs)} variables, {len(grads)} gradients and {len(reqs)} "
                         "grad_reqs must match in number")
    out = []
    for v, g, r in zip(vs, grads, reqs, strict=True):
        var = attach_grad(v, grad_req=r)
        if g is not None:
            var.grad = g
        out.append(var)
    return out
