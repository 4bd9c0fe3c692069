"""``KVStore``: MXNet's key-value store as the interface to framework's reduction (no parameter server).

``push`` sums the values given for a key (one per device; across processes too for ``dist_*`` stores,
by an all-reduce over ``jax.distributed``) and, when an optimizer is set, applies one update to the
stored value; otherwise the sum replaces it. ``pull`` returns the stored value (one copy per ``out``
entry): JAX arrays are immutable, so the values are RETURNED; an ``out`` that is a framework Variable is
also updated in place (``out = kv.pull(key, out=out)`` works for both). Only dense arrays exist:
``row_sparse_pull`` is refused.

>>> import jax.numpy as jnp
>>> from framework import kv
>>> store = kv.create('local')
>>> store.init(3, jnp.ones((2, 3)))
>>> store.push(3, [jnp.ones((2, 3)) * i for i in range(4)])
>>> store.pull(3).tolist()
[[6.0, 6.0, 6.0], [6.0, 6.0, 6.0]]
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from .base import _DIST, _LOCAL, _REFUSED, KVStoreBase

__all__ = ["KVStore", "create"]


def _keys_values(key: Any, value: Any, what: str) -> list[tuple[Any, Any]]:
    """``[(key, value-or-list)]``: one key with a value (or a list: one per device), or lists of both."""
    if isinstance(key, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(key):
            raise ValueError(f"KVStore.{what}: {len(key)} keys need a list of {len(key)} values (or lists)")
        return list(zip(key, value, strict=True))
    return [(key, value)]


def _as_array(x: Any) -> jax.Array:
    if getattr(x, "stype", "default") != "default":
        raise TypeError("KVStore: sparse arrays are not supported (JAX arrays are dense)")
    if isinstance(x, jax.Array):
        return x
    if hasattr(x, "value") and isinstance(x.value, jax.Array):  # a Variable
        return x.value
    return jnp.asarray(x)


def _put(out: Any, value: jax.Array) -> jax.Array:
    """The value for one ``out`` entry: on its device; a Variable is updated in place."""
    from ..npx.methods import copy_into

    return copy_into(value, out) if out is not None else value


class KVStore(KVStoreBase):
    """A store of arrays by key (int or str, not mixed); see the module docstring."""

    def __init__(self, kind: str = "local") -> None:
        self._type = kind
        self._store: dict[Any, jax.Array] = {}
        self._key_type: type | None = None
        self._updater: Any = None
        self._optimizer: Any = None
        self._compression: dict | None = None

    # ---- properties
    @property
    def type(self) -> str:
        return self._type

    @property
    def rank(self) -> int:
        return jax.process_index() if self._type in _DIST else 0

    @property
    def num_workers(self) -> int:
        return jax.process_count() if self._type in _DIST else 1

    def is_capable(self, capability: str) -> bool:
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return True
        raise ValueError(f"KVStore.is_capable: unknown capability {capability!r}; known: 'optimizer'")

    # ---- keys
    def _check_key(self, key: Any, what: str) -> Any:
        if not isinstance(key, (int, str)) or isinstance(key, bool):
            raise TypeError(f"KVStore.{what}: key {key!r} must be an int or a str")
        kind = str if isinstance(key, str) else int
        if self._key_type is not None and kind is not self._key_type:
            raise TypeError(
                f"KVStore.{what}: key {key!r}: mixed key types are not allowed (this store uses "
                f"{self._key_type.__name__} keys)"
            )
        self._key_type = kind
        return key

    def _stored(self, key: Any, what: str) -> jax.Array:
        self._check_key(key, what)
        if key not in self._store:
            raise KeyError(
                f"KVStore.{what}: key {key!r} was never initialised; call init({key!r}, value) first"
            )
        return self._store[key]

    # ---- operations
    def init(self, key: Any, value: Any) -> None:
        """Store the initial value of ``key`` (or of each key of a list)."""
        for k, v in _keys_values(key, value, "init"):
            self._check_key(k, "init")
            if k in self._store:
                raise ValueError(f"KVStore.init: key {k!r} is already initialised")
            v = v[0] if isinstance(v, (list, tuple)) else v
            self._store[k] = _as_array(v)

    def _reduce(self, key: Any, value: Any) -> jax.Array:
        stored = self._stored(key, "push")
        parts = [_as_array(v) for v in (value if isinstance(value, (list, tuple)) else [value])]
        device = next(iter(stored.devices())) if self._type != "device" else next(iter(parts[0].devices()))
        total = parts[0] if len(parts) == 1 else None
        if total is None:
            total = jax.device_put(parts[0], device)
            for p in parts[1:]:
                total = total + jax.device_put(p, device)
        if self._type in _DIST and jax.process_count() > 1:
            from jax.experimental import multihost_utils

            total = jnp.sum(multihost_utils.process_allgather(total), axis=0)
        if total.shape != stored.shape:
            raise ValueError(
                f"KVStore.push: key {key!r}: value of shape {total.shape}, stored {stored.shape}"
            )
        return jax.device_put(total, next(iter(stored.devices())))

    def push(self, key: Any, value: Any, priority: int = 0) -> None:
        """Sum the value(s) of each key; update the stored value with the optimizer, or replace it."""
        for k, v in _keys_values(key, value, "push"):
            merged = self._reduce(k, v)
            if self._updater is not None:
                new = self._updater(k, merged, self._store[k])
                self._store[k] = _as_array(new)
            else:
                self._store[k] = merged

    def pull(self, key: Any, out: Any = None, priority: int = 0, ignore_sparse: bool = True) -> Any:
        """The stored value(s): one array per key, a list where ``out`` holds a list for the key (one copy
        per entry, on each entry's device); Variables in ``out`` are updated in place."""
        if isinstance(key, (list, tuple)):
            outs = out if out is not None else [None] * len(key)
            return [self.pull(k, o) for k, o in zip(key, outs, strict=True)]
        value = self._stored(key, "pull")
        if isinstance(out, (list, tuple)):
            return [_put(o, value) for o in out]
        return _put(out, value)

    def pushpull(self, key: Any, value: Any, out: Any = None, priority: int = 0) -> Any:
        """``push`` then ``pull`` (the updated value when an optimizer is set)."""
        self.push(key, value, priority)
        return self.pull(key, out)

    def broadcast(self, key: Any, value: Any, out: Any, priority: int = 0) -> Any:
        """``init`` then ``pull``: every ``out`` gets ``value``."""
        self.init(key, value)
        return self.pull(key, out)

    def row_sparse_pull(self, key: Any, out: Any = None, priority: int = 0, row_ids: Any = None) -> Any:
        raise TypeError(
            "KVStore.row_sparse_pull: row_sparse storage does not exist here (JAX arrays are "
            "dense); use pull(key) and index the rows: value[row_ids]"
        )

    def set_gradient_compression(self, compression_params: dict) -> None:
        """Accepted for 'none' only: gradients are summed uncompressed."""
        kind = (compression_params or {}).get("type", "none")
        if kind != "none":
            raise ValueError(
                f"KVStore.set_gradient_compression: type {kind!r} is not supported; gradients "
                "are summed in full precision"
            )
        self._compression = dict(compression_params or {})

    # ---- optimizer
    def set_optimizer(self, optimizer: Any) -> None:
        """Apply ``optimizer`` (an ``mx.optimizer.Optimizer``) to each push: ``stored = update(stored,
        summed value)``."""
        from ..optimizer import Optimizer, get_updater

        if not isinstance(optimizer, Optimizer):
            raise TypeError(
                f"KVStore.set_optimizer: expected an mx.optimizer.Optimizer, got "
                f"{type(optimizer).__name__}; create one with mx.optimizer.create('sgd', ...)"
            )
        self._optimizer = optimizer
        self._updater = get_updater(optimizer)

    def _set_updater(self, updater: Any) -> None:
        """Use ``updater(key, merged, stored) -> new stored`` for pushes."""
        self._updater = updater

    def save_optimizer_states(self, fname: str, dump_optimizer: bool = False) -> None:
        """Write the optimizer state of every key (MXNet's ``.params`` container; no pickle)."""
        if self._updater is None or not hasattr(self._updater, "states"):
            raise RuntimeError("KVStore.save_optimizer_states: no optimizer is set (set_optimizer first)")
        if dump_optimizer:
            raise ValueError(
                "KVStore.save_optimizer_states: dump_optimizer=True pickles the optimizer in "
                "MXNet; recreate the optimizer in code instead"
            )
        from .. import serialization

        arrays = {}
        for k, state in self._updater.states.items():
            for i, leaf in enumerate(jax.tree_util.tree_leaves(state.value)):
                arrays[f"{type(k).__name__}:{k}:{i}"] = onp.asarray(leaf)
        serialization.save(os.fspath(fname), arrays, format="np")  # atomic

    def load_optimizer_states(self, fname: str) -> None:
        """Read states written by :meth:`save_optimizer_states` (same optimizer, same keys)."""
        if self._updater is None or not hasattr(self._updater, "states"):
            raise RuntimeError("KVStore.load_optimizer_states: set the optimizer first")
        from .. import serialization

        loaded = serialization.load(os.fspath(fname))
        if not isinstance(loaded, dict):
            raise ValueError(f"KVStore.load_optimizer_states: {fname} holds no named arrays")
        keys: dict[Any, dict[int, Any]] = {}
        for name, arr in loaded.items():
            kind, k, i = name.split(":")
            keys.setdefault(int(k) if kind == "int" else k, {})[int(i)] = arr
        for k, leaves in keys.items():
            state = self._optimizer.create_state_multi_precision(k, self._stored(k, "load_optimizer_states"))
            treedef = jax.tree_util.tree_structure(state.value)
            old = jax.tree_util.tree_leaves(state.value)
            if len(old) != len(leaves):
                raise ValueError(
                    f"KVStore.load_optimizer_states: {fname}: key {k!r} holds {len(leaves)} state "
                    f"arrays, this optimizer has {len(old)}"
                )
            state.value = jax.tree_util.tree_unflatten(
                treedef, [jnp.asarray(leaves[i], o.dtype).reshape(o.shape) for i, o in enumerate(old)]
            )
            self._updater.states[k] = state

    def _barrier(self) -> None:
        """Wait for every process (``dist_*``)."""
        if self._type in _DIST and jax.process_count() > 1:
            from jax.experimental import multihost_utils

            multihost_utils.sync_global_devices("framework.kvstore.barrier")

    def _send_command_to_servers(self, head: int, body: str) -> None:
        raise RuntimeError("KVStore: there are no servers (framework has no parameter server)")

    def keys(self) -> Sequence[Any]:
        """The initialised keys."""
        return list(self._store)


def create(name: str = "local") -> Any:
    """A store by name: ``'local'``/``'device'`` (and MXNet's other single-host names) sum on one
    host, ``'dist_sync'``/``'dist_device_sync'`` also sum across the processes of ``jax.distributed``;
    a registered :class:`KVStoreBase` subclass by its lower-case name."""
    if not isinstance(name, str):
        raise TypeError(f"kv.create: name must be a string such as 'local', got {type(name).__name__}")
    key = name.lower()
    if key in KVStoreBase.kv_registry:
        return KVStoreBase.kv_registry[key]()
    if key in _REFUSED:
        raise ValueError(f"kv.create({name!r}): not supported: {_REFUSED[key]}")
    if key in _LOCAL or key in _DIST:
        return KVStore(key)
    raise ValueError(
        f"kv.create({name!r}): unknown kvstore type; expected one of {_LOCAL + _DIST} or a "
        f"registered name {sorted(KVStoreBase.kv_registry)}"
    )
