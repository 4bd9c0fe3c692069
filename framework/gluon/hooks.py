"""Handles of forward hooks: what ``Block.register_forward_hook`` returns (MXNet's ``HookHandle``).

>>> hooks = {}
>>> handle = HookHandle(hooks, print)
>>> len(hooks)
1
>>> with handle:
...     pass
>>> len(hooks)
0
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, MutableMapping
from typing import Any

__all__ = ["HookHandle"]

_ids = itertools.count()


class HookHandle:
    """Registers ``hook`` in ``hooks``; :meth:`detach` (or leaving a ``with`` block) removes it again.
    ``changed`` is called after each (a Block's calls depend on which hooks its children have)."""

    def __init__(self, hooks: MutableMapping[int, Callable], hook: Callable,
                 changed: Callable[[], None] | None = None) -> None:
        if not callable(hook):
            raise TypeError(f"a forward hook must be callable, got {type(hook).__name__}: {hook!r}")
        self._hooks: MutableMapping[int, Callable] | None = hooks
        self._changed = changed  # told when the hook is added and removed
        self.id = next(_ids)
        hooks[self.id] = hook
        if changed is not None:
            changed()

    def detach(self) -> None:
        """Remove the hook; detaching twice does nothing."""
        if self._hooks is not None:
            self._hooks.pop(self.id, None)
            self._hooks = None
            if self._changed is not None:
                self._changed()

    def __enter__(self) -> HookHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.detach()
