"""MXNet 1.x's Block naming and parameter dictionaries: ``prefix=``/``params=``, ``name_scope()``,
``Block.name``/``prefix``, ``block.params.get(name, shape=...)``, ``get_constant``, sharing through
``params=other.params`` / ``params=other.collect_params()``.

Every Block gets a 1.x prefix when it is made: ``<class name in lower case><count>_``, counted per class
in the enclosing ``with parent.name_scope():`` (globally outside any scope) and appended to the parent's
prefix, as MXNet 1.x does (``dense0_``, ``model0_dense0_``). A Parameter made through
``block.params.get('weight', ...)`` is named ``<prefix>weight``. With ``params=`` a block looks its
Parameters up by those full names in the given dictionary first (its own and its children's), which is
how 1.x shares weights; built-in layers share the same way. Saved files keep the structural names
(``fc1.weight``) that MXNet 1.x's ``save_parameters`` writes too, in the legacy (V2) container that
MXNet 1.x reads outside NumPy mode when the network is 1.x code (:func:`written_for_1x`).

>>> from framework import gluon
>>> class Net(gluon.nn.HybridBlock):
...     def __init__(self, **kwargs):
...         super().__init__(**kwargs)
...         with self.name_scope():
...             self.fc = gluon.nn.Dense(2, in_units=3)
...             self.scale = self.params.get('scale', shape=(2,), init='ones')
>>> net = Net(prefix='net_')
>>> net.prefix, net.fc.prefix, net.fc.name, net.scale.name
('net_', 'net_dense0_', 'net_dense0', 'net_scale')
>>> twin = Net(prefix='net_', params=net.collect_params())
>>> twin.fc.weight is net.fc.weight, twin.scale is net.scale
(True, True)
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

from .parameter import Parameter, ParameterDict

__all__ = ["BlockParams", "assign", "adopt", "scope", "internal_scope", "operator_prefix",
           "block_params", "full_name", "written_for_1x"]

_local = threading.local()
_global_counts: dict[str, int] = {}
_lock = threading.Lock()


def _stack() -> list[Any]:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def _lookup(shared: Any) -> dict[str, Parameter]:
    """Full 1.x name -> Parameter of whatever was passed as ``params=``."""
    if shared is None:
        return {}
    if isinstance(shared, BlockParams):
        return shared._all()
    out: dict[str, Parameter] = {}
    for key, p in dict(shared).items():
        if isinstance(p, Parameter):
            out[getattr(p, "_legacy_name", None) or key] = p
            out.setdefault(key, p)
    return out


def assign(block: Any, prefix: str | None, params: Any) -> None:
    """Give ``block`` its 1.x prefix and parameter lookup (called by ``Block.__init__``)."""
    # MXNet's _alias(): a class's own (pool, conv), an instance's (an Activation's act_type), else its name
    hint = (block.__dict__.get("_alias_hint") or getattr(type(block), "_alias_1x", None)
            or type(block).__name__.lower())
    explicit = prefix is not None or params is not None
    stack = _stack()
    parent = stack[-1] if stack else None
    internal = parent is not None and getattr(_local, "internal", None) is parent  # a layer's own part
    object.__setattr__(block, "_empty_prefix", prefix == "")
    if prefix is None:
        counts = parent.__dict__["_scope_counts"] if parent is not None else _global_counts
        with _lock:
            n = counts.get(hint, 0)
            counts[hint] = n + 1
        prefix = f"{hint}{n}_"
    full = (parent.__dict__["_prefix"] if parent is not None else "") + prefix
    if params is not None:
        pd_prefix = params.prefix if isinstance(params, BlockParams) else full
        shared: Any = params
    else:
        pd_prefix = full
        shared = parent.__dict__["_shared_params"] if parent is not None else None
    # code that names its blocks the 1.x way is 1.x code: its files are written in 1.x's format
    object.__setattr__(block, "_style_1x", not internal and (parent is not None or explicit))
    object.__setattr__(block, "_prefix", full)
    object.__setattr__(block, "_pd_prefix", pd_prefix)
    object.__setattr__(block, "_shared_params", shared)
    object.__setattr__(block, "_scope_counts", {})
    object.__setattr__(block, "_made_params", {})


def operator_prefix(block: Any) -> str | None:
    """The prefix of the operators ``block`` adds to a graph when called on Symbols (MXNet 1.x's
    ``with block.name_scope()`` at call time); None for a block made with ``prefix=''``, whose operators
    are named in the caller's scope."""
    return None if block.__dict__.get("_empty_prefix") else block.__dict__.get("_prefix", "")


def full_name(block: Any, name: str) -> str:
    """The 1.x name of ``block``'s Parameter ``name`` (``dense0_weight``)."""
    return block.__dict__.get("_pd_prefix", "") + name


def adopt(block: Any, name: str, param: Parameter) -> Parameter:
    """The Parameter to register as attribute ``name``: the shared one of that full name when the block
    was made with ``params=`` (or inside such a parent), else ``param`` itself (remembered)."""
    full = full_name(block, name)
    shared = _lookup(block.__dict__.get("_shared_params"))
    found = shared.get(full)
    if found is not None and found is not param:
        return found
    if getattr(param, "_legacy_name", None) is None:
        param._legacy_name = full
    block.__dict__.setdefault("_made_params", {})[full] = param
    return param


@contextlib.contextmanager
def scope(block: Any) -> Iterator[None]:
    """``with block.name_scope():``: children made inside get prefixes under ``block.prefix``, and so
    do the Symbols made inside (``mx.sym.Convolution(..., name='conv')`` -> ``net0_conv``), as in MXNet."""
    from ..symbol.naming import Prefix

    stack = _stack()
    stack.append(block)
    names = contextlib.nullcontext() if block.__dict__.get("_empty_prefix") else Prefix(block.prefix)
    try:
        with names:
            yield
    finally:
        stack.pop()


@contextlib.contextmanager
def internal_scope(block: Any) -> Iterator[None]:
    """Like :func:`scope`, for a framework layer making its own parts (a Dense's activation, named
    ``dense0_relu_`` as in MXNet): what is made inside does not mark the tree as 1.x code."""
    old = getattr(_local, "internal", None)
    _local.internal = block
    try:
        with scope(block):
            yield
    finally:
        _local.internal = old


class BlockParams(ParameterDict):
    """``block.params``: the block's own Parameters (by attribute name, as MXNet 2.0 lists them) with
    MXNet 1.x's ``get``/``get_constant``/``update`` and ``prefix``."""

    def __init__(self, block: Any) -> None:
        super().__init__((k, v) for k, v in block._reg_params.items() if v is not None)
        self._block = block
        self.prefix = block.__dict__.get("_pd_prefix", "")

    def _all(self) -> dict[str, Parameter]:
        """Every Parameter reachable from this block by full 1.x name (its own, made and shared)."""
        out = dict(_lookup(self._block.__dict__.get("_shared_params")))
        stack = [self._block]
        while stack:
            b = stack.pop()
            out.update(b.__dict__.get("_made_params", {}))
            for n, p in b._reg_params.items():
                if p is not None:
                    out.setdefault(getattr(p, "_legacy_name", None) or full_name(b, n), p)
            stack.extend(b._children.values())
        return out

    def get(self, name: str, default: Any = None, **kwargs: Any) -> Parameter:  # type: ignore[override]
        """The Parameter ``prefix + name``, made with ``kwargs`` (shape, init, dtype, grad_req, lr_mult,
        wd_mult, allow_deferred_init, differentiable) if it does not exist; an existing one must agree
        with the given shape (0 = unknown)."""
        if default is not None:
            raise TypeError("ParameterDict.get(name, **kwargs): MXNet's get takes the Parameter's "
                            "attributes as keywords, not a default value")
        full = self.prefix + name
        existing = self._all().get(full)
        if existing is None:
            if "shape" in kwargs and kwargs["shape"] is not None and 0 in _as_tuple(kwargs["shape"]):
                kwargs.setdefault("allow_deferred_init", True)
            param = Parameter(full, **kwargs)
            param._legacy_name = full
            self._block.__dict__["_made_params"][full] = param
            return param
        shape = kwargs.get("shape")
        if shape is not None and existing.shape is not None:
            want, have = _as_tuple(shape), tuple(existing.shape)
            if len(want) != len(have) or any(w and h and w != h for w, h in zip(want, have, strict=True)):
                raise AssertionError(
                    f"Cannot retrieve Parameter '{full}' because desired attribute does not match with "
                    f"stored for attribute 'shape': desired '{want}' vs stored '{have}'."
                )
        return existing

    def get_constant(self, name: str, value: Any = None) -> Parameter:
        """A Parameter ``prefix + name`` holding ``value``, never trained (grad_req 'null')."""
        full = self.prefix + name
        existing = self._all().get(full)
        if existing is not None:
            return existing
        if value is None:
            raise KeyError(f"No constant named '{full}'. Please specify value if you want to create a new "
                           "constant.")
        import numpy as onp

        from .. import initializer

        arr = onp.asarray(value.tolist() if hasattr(value, "tolist") else value, dtype=onp.float32)
        param = Parameter(full, grad_req="null", shape=arr.shape, dtype=arr.dtype,
                          init=initializer.Constant(arr), differentiable=False)
        param._legacy_name = full
        self._block.__dict__["_made_params"][full] = param
        return param

    def update(self, other: Any = (), **kwargs: Any) -> None:  # type: ignore[override]
        """Add ``other``'s Parameters to the block's lookup (MXNet: names must not clash)."""
        made = self._block.__dict__["_made_params"]
        for k, v in dict(other, **kwargs).items():
            if k in made and made[k] is not v:
                raise ValueError(f"Cannot update self with other because they have different Parameters "
                                 f"with the same name '{k}'")
            made[k] = v
            dict.__setitem__(self, k, v)


def _as_tuple(shape: Any) -> tuple[int, ...]:
    return (int(shape),) if isinstance(shape, int) else tuple(int(s) for s in shape)


def block_params(block: Any) -> BlockParams:
    return BlockParams(block)


def written_for_1x(block: Any) -> bool:
    """True when ``block``'s tree was written for MXNet 1.x: a block made in a ``name_scope()`` or with
    ``prefix=``/``params=``, or one defining ``hybrid_forward``."""
    stack = [block]
    while stack:
        b = stack.pop()
        if b.__dict__.get("_style_1x") or callable(getattr(type(b), "hybrid_forward", None)):
            return True
        stack.extend(b._children.values())
    return False
