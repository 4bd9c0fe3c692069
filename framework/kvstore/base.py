"""``KVStoreBase`` (the interface and its registry) and ``create``.

>>> from framework import kv
>>> kv.create('local').type
'local'
"""

from __future__ import annotations

from typing import Any

__all__ = ["KVStoreBase"]

_LOCAL = ("local", "device", "local_update_cpu", "local_allreduce_cpu", "local_allreduce_device", "nccl")
_DIST = ("dist_sync", "dist_device_sync", "dist_sync_device", "dist")
_REFUSED = {
    "dist_async": "asynchronous updates need a parameter server, which framework does not have",
    "dist_sync_allreduce": "use 'dist_sync' (an all-reduce over jax.distributed)",
    "horovod": "Horovod is not used; 'dist_sync' all-reduces over jax.distributed",
    "byteps": "BytePS is not used; 'dist_sync' all-reduces over jax.distributed",
    "p3": "the P3 parameter server is not used; 'dist_sync' all-reduces over jax.distributed",
}


class KVStoreBase:
    """The key-value store interface (``pushpull``, ``broadcast``, ``set_optimizer``, ...); subclasses
    registered with :meth:`register` are created by name."""

    kv_registry: dict[str, type] = {}
    OPTIMIZER = "optimizer"

    def broadcast(self, key: Any, value: Any, out: Any, priority: int = 0) -> Any:
        raise NotImplementedError(f"{type(self).__name__}.broadcast")

    def pushpull(self, key: Any, value: Any, out: Any = None, priority: int = 0) -> Any:
        raise NotImplementedError(f"{type(self).__name__}.pushpull")

    def set_optimizer(self, optimizer: Any) -> None:
        raise NotImplementedError(f"{type(self).__name__}.set_optimizer")

    def save_optimizer_states(self, fname: str, dump_optimizer: bool = False) -> None:
        raise NotImplementedError(f"{type(self).__name__}.save_optimizer_states")

    def load_optimizer_states(self, fname: str) -> None:
        raise NotImplementedError(f"{type(self).__name__}.load_optimizer_states")

    def is_capable(self, capability: str) -> bool:
        raise NotImplementedError(f"{type(self).__name__}.is_capable")

    @property
    def type(self) -> str:
        raise NotImplementedError

    @property
    def rank(self) -> int:
        raise NotImplementedError

    @property
    def num_workers(self) -> int:
        raise NotImplementedError

    @staticmethod
    def register(klass: type) -> type:
        """Register a KVStoreBase subclass under its lower-case class name (a decorator)."""
        if not (isinstance(klass, type) and issubclass(klass, KVStoreBase)):
            raise TypeError(f"register: {klass!r} is not a KVStoreBase subclass")
        KVStoreBase.kv_registry[klass.__name__.lower()] = klass
        return klass
