"""A Block called on ``mx.sym`` Symbols returns a Symbol: the graph of what it computes, as MXNet 1.x
builds it (``net(mx.sym.var('data'))``, for ``export``-like uses, ``mx.viz`` or GluonCV's
``FeatureExtractor``, which picks internal outputs by name and wraps them in a ``SymbolBlock``).

Each Block runs under its 1.x name prefix (``with mx.name.Prefix(block.prefix)``, fresh counts per
call; a block made with ``prefix=''`` adds none, so its operators are counted in its parent's scope),
and receives its Parameters as variables named as the Parameters are (``Parameter.var()``). A 1.x
``hybrid_forward(F, x, ...)`` gets ``F`` = :mod:`framework.symbol`; the framework's layers emit MXNet's
operator with MXNet's node name (``conv0_fwd``, ``relu3_fwd``); any other Block's ``forward`` runs as
written, its children called on Symbols in turn. So the names of the internal outputs are the ones
MXNet 1.9.1 gives the same network (``resnetv10_stage3_activation1_output``).

>>> from framework import gluon, symbol as sym
>>> net = gluon.nn.HybridSequential(prefix='net_')
>>> with net.name_scope():
...     net.add(gluon.nn.Dense(4, activation='relu', in_units=3), gluon.nn.Dense(2, in_units=4))
>>> out = net(sym.var('data'))
>>> out.list_arguments()
['data', 'net_dense0_weight', 'net_dense0_bias', 'net_dense1_weight', 'net_dense1_bias']
>>> out.get_internals().list_outputs()[4]
'net_dense0_relu_fwd_output'
"""

from __future__ import annotations

import contextlib
from typing import Any

from ..base import framework_class
from .hybrid_forward import defines_hybrid_forward
from .name_scope import operator_prefix

__all__ = ["has_symbol", "call_on_symbols", "infer_shapes_through_graph", "variable_shapes"]


_symbol_type: list[type] = []  # framework.symbol.Symbol, imported at the first call (every call asks)


def has_symbol(args: tuple) -> bool:
    """Whether any argument (or an element of a list/tuple argument) is a Symbol."""
    if not _symbol_type:
        from ..symbol import Symbol

        _symbol_type.append(Symbol)
    sym = _symbol_type[0]
    for a in args:
        if isinstance(a, sym) or (isinstance(a, (list, tuple)) and any(isinstance(x, sym) for x in a)):
            return True
    return False


def _symbolic_form(block: Any) -> Any:
    """The block's ``_symbol_forward``, when the class that gives it its ``forward`` gives that too (a
    subclass overriding ``forward`` keeps its own code: the parent's symbolic form is not its math)."""
    for klass in type(block).__mro__:
        if "_symbol_forward" in klass.__dict__:
            return block._symbol_forward
        if "forward" in klass.__dict__:
            return None
    return None


def call_on_symbols(block: Any, *args: Any) -> Any:
    """``block(*args)`` with Symbol arguments: the Symbol of its outputs (see the module docstring)."""
    from .. import symbol as F
    from ..symbol.naming import Prefix

    prefix = operator_prefix(block)
    scope = Prefix(prefix) if prefix is not None else contextlib.nullcontext()
    with scope:
        params = {name: p.var() for name, p in block._reg_params.items() if p is not None}
        if defines_hybrid_forward(block):
            return block.hybrid_forward(F, *args, **params)
        emit = _symbolic_form(block)
        if emit is not None:
            return emit(F, *args, **params)
        if framework_class(type(block)) and (params or block._compiled_leaf):  # a layer's forward is JAX
            raise TypeError(
                f"{type(block).__name__} cannot be called on a Symbol here (it has no symbolic form yet); "
                "call it on arrays, or build the graph with mx.sym operators")
        return block.forward(*args)


def infer_shapes_through_graph(block: Any, args: tuple) -> str | None:
    """Give ``block``'s Parameters of unknown shape the shapes MXNet infers for them: the block is called
    on Symbols with the inputs' shapes and the graph's shapes are inferred (what MXNet 1.x does for a
    HybridBlock with deferred Parameters and no ``infer_shape`` of its own). Shapes the graph cannot
    decide stay unknown; returns why the graph could not be built or inferred (None: it could)."""
    from .. import symbol as F

    if not all(hasattr(a, "shape") for a in args):
        return "an input is not an array"
    names = [f"data{i}" if len(args) > 1 else "data" for i in range(len(args))]
    try:
        out = call_on_symbols(block, *[F.var(n) for n in names])
        if isinstance(out, (list, tuple)):
            out = F.Group(list(out))
        found = variable_shapes(out, {n: tuple(a.shape) for n, a in zip(names, args, strict=True)})
    except Exception as err:  # noqa: BLE001  whatever stops the graph, the caller names it
        return f"{type(err).__name__}: {err}"
    for p in block._reg_params.values():
        if p is not None and not p._known and p._var_name in found:
            p.shape = found[p._var_name]
    return None


def variable_shapes(out: Any, given: dict[str, tuple[int, ...]]) -> dict[str, tuple[int, ...]]:
    """The shapes of ``out``'s variables (arguments and auxiliary states) that the inputs' ``given``
    shapes decide, inferred through the graph; the undecided ones are left out."""
    arg_shapes, _, aux_shapes = out.infer_shape_partial(**given)
    if arg_shapes is None:
        return {}
    found = dict(zip(out.list_arguments(), arg_shapes, strict=True))
    found.update(zip(out.list_auxiliary_states(), aux_shapes, strict=True))
    return {n: tuple(s) for n, s in found.items() if s and all(d > 0 for d in s)}
