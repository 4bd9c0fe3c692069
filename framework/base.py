"""The framework's exception base: every error the framework defines derives from :class:`FrameworkError`
(MXNet's name for it, ``MXNetError``, is the same class), and keeps its built-in base too, so
``except ValueError`` and ``except framework.FrameworkError`` both catch a bad argument.

>>> from framework.gluon import nn
>>> try:
...     nn.Dense(10, actvation='relu')
... except FrameworkError as err:
...     print(type(err).__name__, isinstance(err, TypeError))
UnknownArgumentError True
"""

from __future__ import annotations

import difflib
import inspect
import sys
import weakref
from collections.abc import Iterable
from typing import Any

__all__ = ["FrameworkError", "MXNetError", "UnknownArgumentError", "check_kwargs", "StrictKwargs",
           "framework_class"]


class FrameworkError(Exception):
    """Base of the framework's own errors."""


MXNetError = FrameworkError


class UnknownArgumentError(FrameworkError, TypeError):
    """A keyword argument the callee does not take."""


def check_kwargs(owner: str, kwargs: dict, accepted: Iterable[str]) -> None:
    """Raise :class:`UnknownArgumentError` for the first key of ``kwargs`` not in ``accepted``,
    naming it, the accepted ones and the closest match."""
    accepted = sorted(set(accepted))
    for name in kwargs:
        if name in accepted:
            continue
        close = difflib.get_close_matches(name, accepted, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise UnknownArgumentError(
            f"{owner} got an unexpected keyword argument {name!r}.{hint} "
            f"Accepted: {', '.join(accepted) or '(none)'}."
        )


_ACCEPTED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def init_arguments(cls: type) -> frozenset[str]:
    """The keyword arguments ``cls(...)`` takes: the named parameters of its ``__init__`` and, while an
    ``__init__`` passes ``**kwargs`` on, of the next one along the MRO."""
    names = _ACCEPTED.get(cls)
    if names is not None:
        return names
    found: set[str] = set()
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None or klass is object:
            continue
        params = inspect.signature(init).parameters.values()
        found.update(p.name for p in params
                     if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "self")
        if not any(p.kind is p.VAR_KEYWORD for p in params):
            break
    names = _ACCEPTED[cls] = frozenset(found)
    return names


def framework_class(cls: type) -> bool:
    """Whether ``cls`` is one of the framework's own classes (defined at the top level of a framework
    module), not a user's subclass."""
    module = cls.__module__ or ""
    if not (module == "framework" or module.startswith("framework.")):
        return False
    return vars(sys.modules[module]).get(cls.__name__) is cls if module in sys.modules else False


class StrictKwargs:
    """Mixin for the framework's own constructors: a keyword argument that no constructor along the
    class's MRO names raises :class:`UnknownArgumentError` before ``__init__`` runs (``**kwargs``
    cannot swallow it). A class defined outside the framework (a user's subclass) gets Python's own
    rules: its ``__init__(**kwargs)`` may take and drop what it likes, as in MXNet.

    >>> from framework import gluon
    >>> class Mine(gluon.HybridBlock):
    ...     def __init__(self, units, **kwargs):  # drops what it does not use
    ...         super().__init__()
    >>> type(Mine(3, last_gamma=True)).__name__
    'Mine'
    """

    __slots__ = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if kwargs and framework_class(cls):
            check_kwargs(cls.__name__, kwargs, init_arguments(cls))
        return super().__new__(cls)


# ---------------------------------------------------------------- MXNet 1.x's module-level names
# What libraries written for MXNet 1.x import from ``mxnet.base``: the API version framework implements
# (``mx.__version__`` in ported code reads it; ``framework.__version__`` is the project's own release),
# and the type tuples they test arguments with. Arrays are not numbers here either.
import numpy as _onp  # noqa: E402

__version__ = "1.9.1"
numeric_types: tuple[type, ...] = (float, int, _onp.generic)
integer_types: tuple[type, ...] = (int, _onp.int32, _onp.int64)
string_types: tuple[type, ...] = (str,)


def py_str(x: bytes | str) -> str:
    """``bytes`` -> ``str`` (UTF-8); a ``str`` is returned as it is.

    >>> py_str(b"relu"), py_str("relu")
    ('relu', 'relu')
    """
    return x.decode("utf-8") if isinstance(x, bytes) else x


__all__ += ["numeric_types", "integer_types", "string_types", "py_str"]
