"""MXNet's per-parameter optimizer interface: ``create_state(index, weight)``, ``update(index, weight,
grad, state)``, ``update_multi_precision``, and ``Updater`` / ``get_updater``.

MXNet updates ``weight`` and ``state`` in place. Here ``weight`` is usually an immutable ``jax.Array``,
so :meth:`IndexedUpdates.update` RETURNS the new weight (and writes it in place only into a writable
holder, one with ``__setitem__``); the state returned by ``create_state`` is a small mutable
:class:`IndexedState` that ``update`` advances in place, so MXNet's loop keeps working for the state. Each
call runs the optimizer's optax transformation on one parameter, op by op: this is the compatibility
path; a Trainer or ``to_optax`` under ``jax.jit`` is the fast one.

>>> import jax.numpy as jnp
>>> from framework import optimizer
>>> opt = optimizer.create('sgd', learning_rate=0.1, momentum=0.9)
>>> w = jnp.ones(2)
>>> state = opt.create_state(0, w)
>>> w = opt.update(0, w, jnp.ones(2), state)
>>> w = opt.update(0, w, jnp.ones(2), state)
>>> [round(v, 4) for v in w.tolist()]
[0.71, 0.71]
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from .state import set_hyperparams

__all__ = ["IndexedUpdates", "IndexedState", "Updater", "get_updater"]


class IndexedState:
    """The optimizer state of one parameter (its optax state), updated in place by ``update``."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"IndexedState({type(self.value).__name__})"


def _array(x: Any, what: str) -> jax.Array:
    if isinstance(x, jax.Array):
        return x
    if hasattr(x, "value") and isinstance(x.value, jax.Array):  # a Variable / ArraySlot holder
        return x.value
    try:
        return jnp.asarray(x)
    except TypeError as err:
        raise TypeError(f"{what} must be an array, got {type(x).__name__}") from err


class IndexedUpdates:
    """Mixed into :class:`~framework.optimizer.Optimizer`: MXNet's index-based update methods."""

    def _index_name(self, index: Any) -> str:
        return str(self.idx2name.get(index, index))  # type: ignore[attr-defined]

    def _mults(self, index: Any) -> tuple[dict[str, float], dict[str, float]]:
        name = self._index_name(index)
        lr_mult, wd_mult = self.lr_mult, self.wd_mult  # type: ignore[attr-defined]
        lr = lr_mult.get(index, lr_mult.get(name, 1.0))
        wd = wd_mult.get(index, wd_mult.get(name, 1.0))
        return {name: float(lr)}, {name: float(wd)}

    def create_state(self, index: Any, weight: Any) -> IndexedState:
        """The state of parameter ``index`` (opaque; pass it back to :meth:`update`)."""
        lr_m, wd_m = self._mults(index)
        tx = self.to_optax(lr_mult=lr_m, wd_mult=wd_m)  # type: ignore[attr-defined]
        return IndexedState(tx.init({self._index_name(index): _array(weight, "weight")}))

    def create_state_multi_precision(self, index: Any, weight: Any) -> IndexedState:
        """Same as :meth:`create_state`: a float32 master copy is kept when ``multi_precision``."""
        return self.create_state(index, weight)

    def update(self, index: Any, weight: Any, grad: Any, state: IndexedState) -> jax.Array:
        """One update of parameter ``index``; returns the new weight (see the module doc)."""
        if not isinstance(state, IndexedState):
            raise TypeError(
                f"update(index={index!r}, ...): state must be what create_state(index, weight) returned, "
                f"got {type(state).__name__}"
            )
        counts = self.__dict__.setdefault("_index_update_count", {})
        counts[index] = counts.get(index, self.begin_num_update) + 1  # type: ignore[attr-defined]
        self.num_update = max(self.num_update, counts[index])  # type: ignore[attr-defined]
        name = self._index_name(index)
        lr_m, wd_m = self._mults(index)
        tx = self.to_optax(lr_mult=lr_m, wd_mult=wd_m)  # type: ignore[attr-defined]
        w = _array(weight, "weight")
        opt_state = set_hyperparams(state.value, learning_rate=self.learning_rate,  # type: ignore[attr-defined]
                                    rescale_grad=self.rescale_grad)  # type: ignore[attr-defined]
        updates, state.value = tx.update({name: _array(grad, "grad")}, opt_state, {name: w})
        new = (w + updates[name]).astype(w.dtype)
        if hasattr(weight, "__setitem__") and not isinstance(weight, jax.Array):
            weight[:] = new
        return new

    def update_multi_precision(self, index: Any, weight: Any, grad: Any, state: IndexedState) -> jax.Array:
        """Same as :meth:`update` (the master copy lives in the state when ``multi_precision``)."""
        return self.update(index, weight, grad, state)


class Updater:
    """MXNet's ``Updater``: ``updater(index, grad, weight)`` keeps one state per index and returns the
    new weight (written in place into a writable holder)."""

    def __init__(self, optimizer: Any) -> None:
        self.optimizer = optimizer
        self.states: dict[Any, IndexedState] = {}

    def __call__(self, index: Any, grad: Any, weight: Any) -> Any:
        if isinstance(index, (list, tuple)):
            return [self(i, g, w) for i, g, w in zip(index, grad, weight, strict=True)]
        if index not in self.states:
            self.states[index] = self.optimizer.create_state_multi_precision(index, weight)
        return self.optimizer.update_multi_precision(index, weight, grad, self.states[index])

    def get_states(self, dump_optimizer: bool = False) -> bytes:
        raise NotImplementedError(
            "Updater.get_states pickles the states in MXNet; nothing here is pickled. Save training state "
            "with gluon.Trainer.save_states (MXNet's .params container)."
        )

    def set_states(self, states: bytes) -> None:
        raise NotImplementedError("Updater.set_states reads a pickle in MXNet; use Trainer.load_states")


def get_updater(optimizer: Any) -> Updater:
    """An :class:`Updater` for ``optimizer``."""
    return Updater(optimizer)
