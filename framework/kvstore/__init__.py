"""MXNet's ``mx.kv`` / ``mx.kvstore``: ``create('local'|'device'|'dist_sync'|...)`` and ``KVStore``
(``init``/``push``/``pull``/``pushpull``/``broadcast``/``set_optimizer``/optimizer states), the interface to
framework's own reduction: sums on one host, and across ``jax.distributed`` processes for ``dist_*``
(``rank``/``num_workers`` are ``jax.process_index()``/``jax.process_count()``). No parameter server.

>>> import framework as mx
>>> store = mx.kv.create('device')
>>> store.type, store.rank, store.num_workers
('device', 0, 1)
"""

from __future__ import annotations

from . import base, kvstore
from .base import KVStoreBase
from .kvstore import KVStore, create

__all__ = ["KVStore", "KVStoreBase", "create", "base", "kvstore"]
