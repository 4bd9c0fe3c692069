"""``mx.sym.Custom``: the registered operator ``op_type`` applied to Symbols, as a ``Custom`` node
(:mod:`._custom` says what the node takes, gives and infers).

>>> import framework as mx
>>> mx.sym.Custom is Custom
True
"""

from __future__ import annotations

from typing import Any

from ._custom import aux_positions, prop_of
from ._node import Entry, SymNode, visible_outputs
from ._opfuncs import var
from ._symbol import Symbol, hidden_key
from .naming import current_attr_scope, current_name_manager

__all__ = ["Custom"]


def Custom(*args: Any, op_type: str, name: str | None = None, attr: dict[str, Any] | None = None,  # noqa: N802
           **kwargs: Any) -> Any:
    """MXNet's ``mx.sym.Custom``: the registered operator ``op_type`` applied to Symbols (by position,
    in the order of its arguments and auxiliary states, or by their names); the other keyword
    arguments are the operator's, kept as text."""
    kwargs.update(current_attr_scope().get(attr))
    symbols = {k: v for k, v in kwargs.items() if isinstance(v, Symbol)}
    attrs = {hidden_key(k): str(v) for k, v in kwargs.items() if not isinstance(v, Symbol)}
    attrs["op_type"] = op_type
    prop = prop_of(attrs)
    names = [*prop.list_arguments(), *prop.list_auxiliary_states()]
    if len(args) > len(names):
        raise TypeError(f"Custom {op_type!r}: {len(args)} inputs given; the operator takes {names}")
    unknown = [k for k in symbols if k not in names]
    if unknown:
        raise TypeError(f"Custom {op_type!r}: {unknown} are not inputs of the operator; its inputs are "
                        f"{names}")
    name = current_name_manager().get(name, "custom")
    given = {**dict(zip(names, args, strict=False)), **symbols}
    entries = []
    for key in names:
        s = given.get(key)
        if s is None:
            s = var(f"{name}_{key}")
        if not isinstance(s, Symbol) or len(s._heads) != 1:
            raise TypeError(f"Custom {op_type!r}: input {key} must be a Symbol of one output, got {s!r}")
        entries.append(s._heads[0])
    node = SymNode("Custom", name, attrs)
    for pos in aux_positions(attrs):
        e = entries[pos]
        if e.node.op == "null":
            e.node.mutations += 1
            entries[pos] = Entry(e.node, e.index, e.node.mutations)
    node.inputs = entries
    return Symbol([Entry(node, i) for i in range(visible_outputs(node))])
