"""MXNet's ``mx.engine``: the bulk size of its operator scheduler. MXNet groups up to that many
operators into one engine job; here a hybridized Block or a compiled step is already one XLA program,
so the size is kept (``set_bulk_size`` returns the previous one, as MXNet's does) and changes no result.

>>> from framework import engine
>>> old = engine.set_bulk_size(10)
>>> with engine.bulk(30):
...     engine.set_bulk_size(30)
30
>>> engine.set_bulk_size(old)
10
"""

from __future__ import annotations

from types import TracebackType

__all__ = ["bulk", "set_bulk_size"]

_size = [0]


def set_bulk_size(size: int) -> int:
    """Set the bulk size; return the previous one."""
    if int(size) < 0:
        raise ValueError(f"engine.set_bulk_size: size={size} must be non-negative")
    prev, _size[0] = _size[0], int(size)
    return prev


class _BulkScope:
    def __init__(self, size: int) -> None:
        self._size, self._old = size, 0

    def __enter__(self) -> _BulkScope:
        self._old = set_bulk_size(self._size)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        set_bulk_size(self._old)


def bulk(size: int) -> _BulkScope:
    """A scope with the bulk size set to ``size`` (the previous size back at its end)."""
    return _BulkScope(size)
