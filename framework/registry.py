"""MXNet's generic class registry (``mx.registry``): per base class, a table of subclasses by lower-case
name, with the functions that register, alias and create them (from a name, a dict, or a JSON string
``'["name", {kwargs}]'`` / ``'{"nickname": "name", ...}'``).

>>> class Shape: pass
>>> register = get_register_func(Shape, "shape")
>>> create = get_create_func(Shape, "shape")
>>> @register
... class Square(Shape):
...     def __init__(self, side=1): self.side = side
>>> create("square", side=3).side, create('["Square", {"side": 2}]').side, sorted(get_registry(Shape))
(3, 2, ['square'])
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from typing import Any

__all__ = ["get_registry", "get_register_func", "get_alias_func", "get_create_func"]

_REGISTRY: dict[type, dict[str, type]] = {}


def get_registry(base_class: type) -> dict[str, type]:
    """A copy of the table of ``base_class``'s registered subclasses."""
    return dict(_REGISTRY.setdefault(base_class, {}))


def get_register_func(base_class: type, nickname: str) -> Callable[..., type]:
    """``register(klass, name=None)``: put a subclass of ``base_class`` in its table (a warning when
    the name was taken)."""
    registry = _REGISTRY.setdefault(base_class, {})

    def register(klass: type, name: str | None = None) -> type:
        if not (isinstance(klass, type) and issubclass(klass, base_class)):
            raise TypeError(f"register: {klass!r} is not a subclass of {base_class.__name__}; only those "
                            f"can be registered as a {nickname}")
        key = (name or klass.__name__).lower()
        if key in registry:
            old = registry[key]
            warnings.warn(f"new {nickname} {klass.__module__}.{klass.__name__} registered as {key!r} "
                          f"replaces {old.__module__}.{old.__name__}", UserWarning, stacklevel=2)
        registry[key] = klass
        return klass

    register.__doc__ = f"Register a {nickname} class."
    return register


def get_alias_func(base_class: type, nickname: str) -> Callable[..., Callable[[type], type]]:
    """``alias(*names)``: a decorator registering the class under each of ``names``."""
    register = get_register_func(base_class, nickname)

    def alias(*aliases: str) -> Callable[[type], type]:
        def reg(klass: type) -> type:
            for name in aliases:
                register(klass, name)
            return klass
        return reg

    return alias


def get_create_func(base_class: type, nickname: str) -> Callable[..., Any]:
    """``create(name_or_instance, *args, **kwargs)``: an instance of the registered class (an instance
    passed in is returned as it is)."""
    registry = _REGISTRY.setdefault(base_class, {})

    def create(*args: Any, **kwargs: Any) -> Any:
        if args:
            name, args = args[0], args[1:]
        elif nickname in kwargs:
            name = kwargs.pop(nickname)
        else:
            raise TypeError(f"create: name the {nickname} (the first argument or {nickname}=...)")
        if isinstance(name, base_class):
            if args or kwargs:
                raise TypeError(f"create: {name!r} is already a {nickname}; arguments cannot be added")
            return name
        if isinstance(name, dict):
            return create(**name)
        if not isinstance(name, str):
            raise TypeError(f"create: the {nickname} must be a name or an instance, "
                            f"got {type(name).__name__}")
        if name.startswith(("[", "{")):
            if args or kwargs:
                raise TypeError(f"create: a JSON {nickname} description takes no further arguments")
            spec = json.loads(name)
            if isinstance(spec, dict):
                return create(**spec)
            return create(spec[0], **spec[1])
        key = name.lower()
        if key not in registry:
            raise ValueError(f"create: {name!r} is not a registered {nickname} (known: "
                             f"{', '.join(sorted(registry)) or 'none'}); register it first")
        return registry[key](*args, **kwargs)

    create.__doc__ = f"Create a {nickname} from its registered name."
    return create
