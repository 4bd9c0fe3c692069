"""The Initializer base class, its registry and the constant initializers (re-exported by
``framework.initializer``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from ..np import creation as _creation
from .slot import ArraySlot, takes_array

__all__ = ["InitDesc", "Initializer", "Zero", "One", "Constant", "register", "alias", "create"]

Shape = tuple[int, ...]

_REGISTRY: dict[str, type[Initializer]] = {}


def register(klass: type[Initializer]) -> type[Initializer]:
    """Register an initializer class under its lower-case name (MXNet's ``mx.init.register``).

    >>> @register
    ... class Halves(Initializer):
    ...     def _init_weight(self, name, shape, dtype, key):
    ...         return jnp.full(shape, 0.5, dtype)
    >>> create('halves').init_array((2,)).tolist()
    [0.5, 0.5]
    """
    if not (isinstance(klass, type) and issubclass(klass, Initializer)):
        raise TypeError(f"register expects an Initializer subclass, got {klass!r}")
    _REGISTRY[klass.__name__.lower()] = klass
    return klass


def alias(*names: str) -> Callable[[type[Initializer]], type[Initializer]]:
    """Register extra names for an initializer class (MXNet's ``mx.init.alias``)."""
    def deco(klass: type[Initializer]) -> type[Initializer]:
        for n in names:
            _REGISTRY[n.lower()] = klass
        return klass
    return deco


def create(init: Initializer | str | None, **kwargs: Any) -> Initializer:
    """An initializer from an instance, a registered name (``'xavier'``) or a ``dumps()`` string.

    >>> create('normal', sigma=0.5).sigma
    0.5
    >>> create(Constant(2.0).dumps()).value
    2.0
    """
    if isinstance(init, Initializer) or (hasattr(init, "init_array") and not isinstance(init, (str, type))):
        return init     # an Initializer, or any object with MXNet's rule as ``init_array``
    if isinstance(init, type) and issubclass(init, Initializer):
        return init(**kwargs)
    if not isinstance(init, str):
        raise TypeError(f"initializer must be an Initializer or a registered name, got {init!r} "
                        f"of type {type(init).__name__}; use e.g. init.Xavier() or 'xavier'")
    text = init.strip()
    if text.startswith("["):
        try:
            name, params = json.loads(text)
        except (ValueError, TypeError) as err:
            raise ValueError(f"cannot parse initializer description {init!r}: expected the JSON "
                             f"'[\"name\", {{kwargs}}]' that Initializer.dumps() writes") from err
        kwargs = {**params, **kwargs}
    else:
        name = text
    klass = _REGISTRY.get(str(name).lower())
    if klass is None:
        raise ValueError(f"Cannot find initializer {name!r}. Registered initializers: "
                         f"{', '.join(sorted(_REGISTRY))}; or pass an Initializer instance")
    return klass(**kwargs)


class InitDesc(str):
    """A parameter name carrying attributes (MXNet's ``mx.init.InitDesc``).

    ``attrs['__init__']`` names the parameter's own initializer, which then wins over suffix dispatch.
    """

    def __new__(cls, name: str, attrs: dict[str, Any] | None = None, global_init: Any = None):
        obj = super().__new__(cls, name)
        obj.attrs = dict(attrs or {})
        obj.global_init = global_init
        return obj


def _as_dtype(dtype: Any) -> onp.dtype:
    return onp.dtype(jnp.dtype(dtype if dtype is not None else jnp.float32))


def _float_dtype(dtype: onp.dtype) -> onp.dtype:
    return dtype if jnp.issubdtype(dtype, jnp.floating) else onp.dtype(onp.float32)


class Initializer:
    """Base class: subclasses override ``_init_weight(self, name, shape, dtype, key) -> jax.Array``, or
    MXNet's ``_init_weight(self, name, arr)`` filling ``arr[:] = ...`` (see :mod:`.slot`); the same
    holds for ``_init_bias``, ``_init_gamma``, ``_init_beta`` and ``_init_default``.

    Constructor keyword arguments are remembered for :meth:`dumps` (as MXNet does).
    """

    # class defaults: an MXNet subclass may skip super().__init__()
    _kwargs: dict[str, Any] = {}
    _verbose = False
    _print_func: Callable[[Any], str] | None = None

    def __init__(self, **kwargs: Any) -> None:
        self._kwargs = kwargs
        self._verbose = False
        self._print_func: Callable[[Any], str] | None = None

    # --- MXNet's public surface -------------------------------------------------------------
    def dumps(self) -> str:
        """JSON ``[name, kwargs]`` that :func:`create` turns back into an equal initializer."""
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def set_verbosity(self, verbose: bool = False, print_func: Callable[[Any], str] | None = None):
        """Log each initialised array's norm (or ``print_func(array)``) when ``verbose``."""
        self._verbose = verbose
        self._print_func = print_func
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.dumps() == other.dumps()  # type: ignore[union-attr]

    def __hash__(self) -> int:
        return hash(self.dumps())

    def __call__(self, name: str, shape: Shape | jax.Array, dtype: Any = None, *,
                 key: jax.Array | None = None) -> jax.Array:
        """Initialise the parameter called ``name`` by its suffix (MXNet's dispatch).

        ``shape`` may also be an existing array (MXNet's ``init(name, arr)``): its shape and dtype
        are used and a new array is returned.
        """
        shape, dtype = self._shape_dtype(shape, dtype)
        if isinstance(name, InitDesc) and name.attrs.get("__init__"):
            own = create(name.attrs["__init__"])
            return self._done(name, own._rule("_init_weight", name, shape, dtype, key))
        if not isinstance(name, str):
            raise TypeError(f"parameter name must be a string, got {name!r}")
        if name.endswith("weight"):
            out = self._rule("_init_weight", name, shape, dtype, key)
        elif name.endswith("bias"):
            out = self._rule("_init_bias", name, shape, dtype, key)
        elif name.endswith("gamma"):
            out = self._rule("_init_gamma", name, shape, dtype, key)
        elif name.endswith("beta"):
            out = self._rule("_init_beta", name, shape, dtype, key)
        elif name.endswith(("running_mean", "moving_mean", "moving_inv_var", "moving_avg")):
            out = self._rule("_init_zero", name, shape, dtype, key)
        elif name.endswith(("running_var", "moving_var")):
            out = self._rule("_init_one", name, shape, dtype, key)
        elif name.endswith("min"):
            out = self._rule("_init_zero", name, shape, dtype, key)
        elif name.endswith("max"):
            out = self._rule("_init_one", name, shape, dtype, key)
        else:
            out = self._rule("_init_default", name, shape, dtype, key)
        return self._done(name, out)

    def init_array(self, shape: Shape, dtype: Any = None, *, key: jax.Array | None = None,
                   name: str = "") -> jax.Array:
        """This initializer's own rule whatever the name (a parameter's explicit ``init=``).

        >>> Constant(3.0).init_array((2,)).tolist()
        [3.0, 3.0]
        """
        shape, dtype = self._shape_dtype(shape, dtype)
        return self._done(name, self._rule("_init_weight", name, shape, dtype, key))

    # --- rules (override _init_weight) ------------------------------------------------------
    def _init_weight(self, name: str, shape: Shape, dtype: onp.dtype, key: jax.Array | None) -> jax.Array:
        raise NotImplementedError(f"{type(self).__name__} must override _init_weight")

    def _init_zero(self, name, shape, dtype, key):
        return _creation.zeros(shape, dtype)

    def _init_one(self, name, shape, dtype, key):
        return _creation.ones(shape, dtype)

    def _init_bias(self, name, shape, dtype, key):
        return _creation.zeros(shape, dtype)

    def _init_gamma(self, name, shape, dtype, key):
        return _creation.ones(shape, dtype)

    def _init_beta(self, name, shape, dtype, key):
        return _creation.zeros(shape, dtype)

    def _init_default(self, name, shape, dtype, key):
        raise ValueError(
            f"Unknown initialization pattern for {name}. Default initialization is now limited to "
            '"weight", "bias", "gamma" (1.0), and "beta" (0.0). Please use '
            "mx.sym.Variable(init=mx.init.*) to set initialization pattern "
            "(in Gluon: give the Parameter its own init=, e.g. init=mx.init.Zero())")

    # --- helpers ----------------------------------------------------------------------------
    def _rule(self, method: str, name: str, shape: Shape, dtype: onp.dtype, key: jax.Array | None):
        """Run a rule method: this framework's ``(name, shape, dtype, key) -> array`` form, or MXNet's
        ``(name, arr)`` form, which fills a writable :class:`ArraySlot` that is read back."""
        fn = getattr(self, method)
        if not takes_array(fn):
            return fn(name, shape, dtype, key)
        slot = ArraySlot(shape, dtype)
        result = fn(name, slot)
        if not slot.written:
            if result is not None and hasattr(result, "shape"):
                return jnp.broadcast_to(jnp.asarray(result, dtype), shape)
            raise ValueError(
                f"{type(self).__name__}.{method}({name!r}, arr) assigned nothing: fill the parameter with "
                "arr[:] = value (MXNet's form), or return the array from "
                f"{method}(self, name, shape, dtype, key)"
            )
        return slot.value


    @staticmethod
    def _shape_dtype(shape: Any, dtype: Any) -> tuple[Shape, onp.dtype]:
        if hasattr(shape, "shape") and hasattr(shape, "dtype"):
            return tuple(shape.shape), _as_dtype(dtype if dtype is not None else shape.dtype)
        if isinstance(shape, int):
            shape = (shape,)
        try:
            shape = tuple(int(d) for d in shape)
        except TypeError as err:
            raise TypeError(f"shape must be a tuple of ints, got {shape!r}") from err
        if any(d < 0 for d in shape):
            raise ValueError(f"shape {shape} has a negative dimension; shapes must be fully known "
                             "before initialisation (deferred shapes are 0 until the first forward)")
        return shape, _as_dtype(dtype)

    def _need_key(self, name: str, key: jax.Array | None) -> jax.Array:
        if key is None:
            raise ValueError(f"{type(self).__name__} draws random numbers for {name or 'the array'!r} "
                             "and needs a PRNG key: pass key=jax.random.key(seed)")
        return key

    def _done(self, name: str, arr: jax.Array) -> jax.Array:
        if self._verbose:
            msg = self._print_func(arr) if self._print_func else \
                f"{float(jnp.linalg.norm(arr.ravel())) / max(1, arr.size) ** 0.5:.6g}"
            print(f"Initialized {name} as {type(self).__name__}: {msg}")
        return arr


@register
@alias("zeros")
class Zero(Initializer):
    """All zeros (registered as ``'zero'`` and ``'zeros'``).

    >>> Zero().init_array((2,)).tolist()
    [0.0, 0.0]
    """

    def _init_weight(self, name, shape, dtype, key):
        return _creation.zeros(shape, dtype)


@register
@alias("ones")
class One(Initializer):
    """All ones (registered as ``'one'`` and ``'ones'``).

    >>> One().init_array((2,)).tolist()
    [1.0, 1.0]
    """

    def _init_weight(self, name, shape, dtype, key):
        return _creation.ones(shape, dtype)


@register
class Constant(Initializer):
    """A constant (a scalar, or an array broadcast to the shape).

    >>> Constant([1.0, 2.0]).init_array((2, 2)).tolist()
    [[1.0, 2.0], [1.0, 2.0]]
    """

    def __init__(self, value: Any = 0.0) -> None:
        if hasattr(value, "tolist"):
            value = value.tolist()
        super().__init__(value=value)
        self.value = value

    def _init_weight(self, name, shape, dtype, key):
        value = onp.asarray(self.value, dtype)
        try:
            return _creation.full(shape, value, dtype)
        except ValueError as err:
            raise ValueError(f"Constant value of shape {value.shape} cannot fill parameter {name!r} "
                             f"of shape {shape}: give a scalar or a broadcastable array") from err

