"""MXNet's automatic symbol names and attribute scopes (``mx.name``, ``mx.attribute``).

An operator made without ``name=`` is called ``<hint><count>``: the hint is the operator function's name
in lower case (``fullyconnected0``, ``_plus1``), counted per hint by the current :class:`NameManager`.
``with NameManager():`` starts fresh counts; ``with Prefix('net_'):`` puts a prefix before every name
made inside it (an explicit ``name=`` too, as in MXNet). ``with AttrScope(ctx_group='dev1'):`` adds
attributes to every symbol made inside it; scopes nest, the inner one wins, an explicit ``attr=`` wins
over both.

>>> from framework.symbol.naming import NameManager, Prefix, AttrScope
>>> with NameManager():
...     m = current_name_manager()
...     [m.get(None, 'fullyconnected'), m.get(None, 'fullyconnected'), m.get('fc', 'fullyconnected')]
['fullyconnected0', 'fullyconnected1', 'fc']
>>> with Prefix('net_'):
...     current_name_manager().get('fc', 'fullyconnected')
'net_fc'
>>> with AttrScope(ctx_group='dev1'):
...     with AttrScope(lr_mult='2'):
...         current_attr_scope().get({'lr_mult': '3'})
{'ctx_group': 'dev1', 'lr_mult': '3'}
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["NameManager", "Prefix", "AttrScope", "current_name_manager", "current_attr_scope"]

_local = threading.local()


class NameManager:
    """Makes the automatic names of operators (see the module docstring)."""

    def __init__(self) -> None:
        self._counter: dict[str, int] = {}
        self._old_manager: NameManager | None = None

    def get(self, name: str | None, hint: str) -> str:
        """``name`` when given, else ``hint`` followed by how many names this manager made from it."""
        if name:
            return name
        count = self._counter.get(hint, 0)
        self._counter[hint] = count + 1
        return f"{hint}{count}"

    def __enter__(self) -> NameManager:
        self._old_manager = current_name_manager()
        _local.names = self
        return self

    def __exit__(self, *exc: Any) -> None:
        _local.names = self._old_manager


class Prefix(NameManager):
    """A :class:`NameManager` that puts ``prefix`` before every name (explicit names included)."""

    def __init__(self, prefix: str) -> None:
        if not isinstance(prefix, str):
            raise TypeError(f"Prefix: prefix must be a string, got {type(prefix).__name__}")
        super().__init__()
        self._prefix = prefix

    def get(self, name: str | None, hint: str) -> str:
        return self._prefix + super().get(name, hint)


class AttrScope:
    """Attributes (string values) given to every symbol made inside ``with AttrScope(**attrs):``."""

    def __init__(self, **kwargs: str) -> None:
        for k, v in kwargs.items():
            if not isinstance(v, str):
                raise ValueError(f"AttrScope: attribute {k}={v!r} must be a string (MXNet stores attributes "
                                 f"as text); pass {k}={str(v)!r}")
        self._attr = dict(kwargs)
        self._old_scope: AttrScope | None = None

    def get(self, attr: dict[str, str] | None) -> dict[str, str]:
        """The scope's attributes updated with ``attr`` (which wins)."""
        out = dict(self._attr)
        if attr:
            out.update(attr)
        return out

    def __enter__(self) -> AttrScope:
        self._old_scope = current_attr_scope()
        merged = dict(self._old_scope._attr)
        merged.update(self._attr)
        self._attr = merged
        _local.attrs = self
        return self

    def __exit__(self, *exc: Any) -> None:
        _local.attrs = self._old_scope


def current_name_manager() -> NameManager:
    """The name manager in force in this thread (a default one outside any ``with``)."""
    manager = getattr(_local, "names", None)
    if manager is None:
        manager = _local.names = NameManager()
    return manager


def current_attr_scope() -> AttrScope:
    """The attribute scope in force in this thread (an empty one outside any ``with``)."""
    scope = getattr(_local, "attrs", None)
    if scope is None:
        scope = _local.attrs = AttrScope()
    return scope
