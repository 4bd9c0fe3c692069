"""The state an MXNet optimizer's optax transformation carries, and its hyperparameters as arrays.

``learning_rate`` and ``rescale_grad`` live in the state, so a Trainer changes them every step without
recompiling (:func:`set_hyperparams`); :func:`get_hyperparams` reads them back.

>>> import jax.numpy as jnp
>>> s = OptimizerState(jnp.int32(0), {"learning_rate": jnp.float32(0.1)}, {})
>>> get_hyperparams(set_hyperparams(s, learning_rate=0.5))
{'learning_rate': 0.5}
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as onp

__all__ = ["OptimizerState", "set_hyperparams", "get_hyperparams"]


class OptimizerState(NamedTuple):
    """State of an MXNet optimizer's optax transformation.

    ``count`` (int32) is the number of updates applied (MXNet's per-parameter update count ``t - 1``);
    ``hyperparams`` holds float32 ``learning_rate`` and ``rescale_grad``; ``slots`` maps each
    parameter name to its tuple of state arrays (a float32 master copy first under multi_precision).
    """

    count: jax.Array
    hyperparams: dict[str, jax.Array]
    slots: Any


def _is_tracer(x: Any) -> bool:
    return isinstance(x, jax.core.Tracer)


def _like(old: jax.Array, value: Any) -> jax.Array:
    new = jnp.asarray(value, dtype=old.dtype)
    if new.shape != old.shape:
        new = jnp.broadcast_to(new, old.shape)
    if not _is_tracer(old) and not _is_tracer(new) and isinstance(old, jax.Array):
        new = jax.device_put(new, old.sharding)
    return new


def set_hyperparams(state: Any, **values: Any) -> Any:
    """A copy of ``state`` whose ``learning_rate`` / ``rescale_grad`` are ``values`` (no recompile).

    Works on an :class:`OptimizerState`, on optax's ``InjectHyperparamsState`` and inside tuples
    (optax chains). Under ``jit`` the values may be traced; outside, new arrays keep the old ones'
    shape and sharding (a replicated or pmapped state stays so).

    >>> import jax.numpy as jnp
    >>> from framework.optimizer import create
    >>> tx = create('sgd', learning_rate=0.1).to_optax()
    >>> state = set_hyperparams(tx.init({'w': jnp.ones(2)}), learning_rate=0.5)
    >>> get_hyperparams(state)['learning_rate']
    0.5
    """
    found: set[str] = set()

    def replaced(hyperparams: dict) -> dict:
        hp = dict(hyperparams)
        for k, v in values.items():
            if k in hp:
                hp[k] = _like(hp[k], v)
                found.add(k)
        return hp

    def visit(s: Any) -> Any:
        if isinstance(s, OptimizerState):
            return s._replace(hyperparams=replaced(s.hyperparams), slots=visit(s.slots))
        if hasattr(s, "_fields") and "hyperparams" in s._fields and "inner_state" in s._fields:
            return s._replace(hyperparams=replaced(s.hyperparams), inner_state=visit(s.inner_state))
        if isinstance(s, tuple) and not hasattr(s, "_fields"):
            return tuple(visit(x) for x in s)
        return s

    new = visit(state)
    missing = set(values) - found
    if missing:
        raise KeyError(f"hyperparameter(s) {sorted(missing)} not found in the optimizer state; an MXNet "
                       "optimizer's state holds 'learning_rate' and 'rescale_grad' (optax states need "
                       "optax.inject_hyperparams)")
    return new


def get_hyperparams(state: Any) -> dict[str, float]:
    """The hyperparameters of an :class:`OptimizerState` as Python floats (one host transfer)."""
    if not isinstance(state, OptimizerState):
        raise TypeError(f"expected an OptimizerState, got {type(state).__name__}")
    return {k: float(onp.asarray(v).reshape(-1)[0]) for k, v in state.hyperparams.items()}
