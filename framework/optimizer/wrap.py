"""A user's own optax transformation behind MXNet's Optimizer surface."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Mapping
from typing import Any

import jax
import jax.numpy as jnp
import optax

from .base import Optimizer, OptimizerState, _named_leaves, register

__all__ = ["OptaxOptimizer"]


@register
class OptaxOptimizer(Optimizer):
    """Wraps ``tx``: the gradient is ``clip(rescale_grad * grad) + wd * wd_mult * weight`` before ``tx``.

    The learning rate is ``tx``'s own business (build it with ``optax.inject_hyperparams`` and
    :func:`~framework.optimizer.set_hyperparams` reaches its ``learning_rate`` too); ``lr_mult`` cannot
    be honoured and draws a warning when it is not 1.

    >>> import jax.numpy as jnp, optax
    >>> from framework import optimizer
    >>> opt = optimizer.create(optax.sgd(0.5), rescale_grad=0.5)
    >>> tx = opt.to_optax()
    >>> p = {'w': jnp.ones(1)}
    >>> tx.update({'w': jnp.ones(1)}, tx.init(p), p)[0]['w'].tolist()
    [-0.25]
    """

    def __init__(self, tx: optax.GradientTransformation, **kwargs: Any) -> None:
        if not isinstance(tx, optax.GradientTransformation):
            raise TypeError(f"OptaxOptimizer wraps an optax.GradientTransformation, got {tx!r}")
        super().__init__(**kwargs)
        self.tx = tx

    def to_optax(self, lr_mult: Mapping[str, float] | None = None,
                 wd_mult: Mapping[str, float] | None = None) -> optax.GradientTransformation:
        frozen = copy.copy(self)
        lr_m = {**self.lr_mult, **dict(lr_mult or {})}
        wd_m = {**self.wd_mult, **dict(wd_mult or {})}
        if any(v != 1.0 for v in lr_m.values()):
            warnings.warn("lr_mult is ignored by a user-supplied optax transformation; scale its updates "
                          "with optax.multi_transform instead", UserWarning, stacklevel=2)
        inner = self.tx

        def init_fn(params: Any) -> OptimizerState:
            return OptimizerState(
                count=jnp.asarray(frozen.begin_num_update, jnp.int32),
                hyperparams={"learning_rate": jnp.asarray(frozen.learning_rate, jnp.float32),
                             "rescale_grad": jnp.asarray(frozen.rescale_grad, jnp.float32)},
                slots=inner.init(params))

        def update_fn(updates: Any, state: OptimizerState, params: Any = None, **extra: Any):
            rescale = state.hyperparams["rescale_grad"]
            names, grads, treedef = _named_leaves(updates, "grads")
            if frozen.wd:
                if params is None:
                    raise ValueError("weight decay needs the parameters: call "
                                     "tx.update(grads, state, params)")
                _, weights, _ = _named_leaves(params, "params")
            else:
                weights = [None] * len(grads)
            out = []
            for name, g, w in zip(names, grads, weights, strict=True):
                g = frozen._clip(rescale.astype(g.dtype) * g)
                wd = frozen.wd * float(wd_m.get(name, 1.0))
                if wd:
                    g = g + wd * w
                out.append(g)
            grads = jax.tree_util.tree_unflatten(treedef, out)
            new, inner_state = inner.update(grads, state.slots, params, **extra)
            return new, state._replace(count=state.count + 1, slots=inner_state)

        return optax.GradientTransformation(init_fn, update_fn)
