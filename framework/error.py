"""MXNet's ``mx.error``: its error classes and their registry by name.

>>> from framework import error
>>> issubclass(error.InternalError, error.MXNetError)
True
>>> @error.register_error
... class MyError(error.MXNetError):
...     pass
>>> error.error_types["MyError"] is MyError
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .base import MXNetError

__all__ = ["MXNetError", "InternalError", "register_error", "register", "error_types"]

#: Error classes by name (what MXNet's C API maps its error messages to).
error_types: dict[str, type] = {}


def register_error(func_name: Any = None, cls: type | None = None) -> Any:
    """Register an error class under its name (or ``func_name``); usable as a bare decorator,
    ``@register_error("Name")``, or ``register_error("Name", cls)``."""
    if callable(func_name):
        cls, func_name = func_name, func_name.__name__

    def reg(klass: type) -> type:
        error_types[func_name if isinstance(func_name, str) else klass.__name__] = klass
        return klass

    return reg if cls is None else reg(cls)


register: Callable[..., Any] = register_error


@register_error
class InternalError(MXNetError, RuntimeError):
    """An internal error of the framework (a bug to report, not a misuse)."""


register_error("MXNetError", MXNetError)
for _name, _cls in (("ValueError", ValueError), ("TypeError", TypeError), ("AttributeError", AttributeError),
                    ("IndexError", IndexError), ("NotImplementedError", NotImplementedError)):
    register_error(_name, _cls)
