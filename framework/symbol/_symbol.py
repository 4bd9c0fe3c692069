"""MXNet's ``Symbol``: a graph's outputs, built in Python (``mx.sym.var``, the operator functions,
arithmetic) or loaded from ``-symbol.json``. A symbol built here IS the graph a JSON file describes: its
``tojson()`` is MXNet 1.9.1's text, and the interpreter runs it.

>>> from framework import symbol as sym
>>> data = sym.var('data')
>>> with sym.NameManager():
...     net = sym.SoftmaxOutput(sym.FullyConnected(data, num_hidden=10), name='softmax')
>>> net.list_arguments()
['data', 'fullyconnected0_weight', 'fullyconnected0_bias', 'softmax_label']
>>> net.list_outputs(), net.get_internals()[3].name
(['softmax_output'], 'fullyconnected0')
>>> net.infer_shape(data=(8, 20))[0]
[(8, 20), (10, 20), (10,), (8,)]
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator
from typing import Any

from ._arith import SymbolArithmetic
from ._graph import Graph, read_graph
from ._json import write_json
from ._node import Entry, SymNode, from_graph, is_aux_input, output_name, output_names, to_graph, topo_order

__all__ = ["Symbol", "load", "load_json", "HIDDEN_KEYS", "hidden_key"]

#: MXNet's attribute keys stored as ``__key__`` (``lr_mult`` is written ``__lr_mult__``).
HIDDEN_KEYS = ("ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage", "profiler_scope")


def hidden_key(key: str) -> str:
    """``lr_mult`` -> ``__lr_mult__`` for MXNet's hidden attribute keys; other keys unchanged."""
    return f"__{key}__" if key in HIDDEN_KEYS else key


class Symbol(SymbolArithmetic):
    """The outputs of a graph (see the module docstring)."""

    __hash__ = None  # type: ignore[assignment]  (== builds a comparison node, as in MXNet)

    def __init__(self, heads: Any, source: str = "symbol", graph: Graph | None = None) -> None:
        if isinstance(heads, Graph):  # a validated graph (what the file readers return)
            graph, heads = heads, from_graph(heads)
        self._heads: list[Entry] = list(heads)
        self.source = source  # the file it came from, named in errors
        self._graph = graph

    # ------------------------------------------------------------------ the graph
    @property
    def graph(self) -> Graph:
        """The validated :class:`Graph` the interpreter runs (MXNet's node order)."""
        if self._graph is None:
            self._graph = to_graph(self._heads)[0]
        return self._graph

    def _order(self) -> list[SymNode]:
        return topo_order(self._heads)

    @property
    def name(self) -> str | None:
        """The name of the node the outputs come from (None for a group of several nodes)."""
        nodes = {id(h.node): h.node for h in self._heads}
        return next(iter(nodes.values())).name if len(nodes) == 1 else None

    def __repr__(self) -> str:
        name = self.name
        if name is None:
            return "<Symbol group [" + ", ".join(h.node.name for h in self._heads) + "]>"
        return f"<Symbol {name}>"

    __str__ = __repr__

    # ------------------------------------------------------------------ listing
    def list_arguments(self) -> list[str]:
        """The variables that are not auxiliary states, in graph order."""
        aux = self._aux_ids()
        return [n.name for n in self._order() if n.op == "null" and id(n) not in aux]

    def list_auxiliary_states(self) -> list[str]:
        """The variables an operator updates itself (BatchNorm's moving statistics)."""
        aux = self._aux_ids()
        return [n.name for n in self._order() if n.op == "null" and id(n) in aux]

    def list_inputs(self) -> list[str]:
        """Every variable, arguments and auxiliary states, in graph order."""
        return [n.name for n in self._order() if n.op == "null"]

    def list_outputs(self) -> list[str]:
        """The names of the outputs (``<node>_output``, or the variable's own name)."""
        return [output_name(h.node, h.index) for h in self._heads]

    def _aux_ids(self) -> set[int]:
        aux = set()
        for n in self._order():
            for pos, e in enumerate(n.inputs):
                if e.node.op == "null" and is_aux_input(n.op, pos, n.attrs):
                    aux.add(id(e.node))
        return aux

    def _variables(self) -> dict[str, SymNode]:
        return {n.name: n for n in self._order() if n.op == "null"}

    # ------------------------------------------------------------------ structure
    def __len__(self) -> int:
        return len(self._heads)

    def __iter__(self) -> Iterator[Symbol]:
        return (self[i] for i in range(len(self._heads)))

    def __getitem__(self, index: int | str | slice) -> Symbol:
        """One output (by position or by output name) or a slice of them."""
        if isinstance(index, str):
            names = self.list_outputs()
            matches = [i for i, n in enumerate(names) if n == index]
            if not matches:
                raise ValueError(f"Symbol has no output named {index!r}; its outputs are {names}")
            if len(matches) > 1:
                raise ValueError(f"There are multiple outputs with name {index!r}")
            index = matches[0]
        if isinstance(index, slice):
            return Symbol(self._heads[index], self.source)
        if not isinstance(index, int):
            raise TypeError(f"Symbol index must be an int, a str or a slice, got {type(index).__name__}")
        n = len(self._heads)
        if not -n <= index < n:
            raise IndexError(f"Symbol has {n} output(s); index {index} is out of range")
        graph = None
        if self._graph is not None and len(self._graph.heads) == n:  # a loaded graph: keep its nodes
            g = self._graph
            graph = Graph(g.nodes, [g.heads[index]], g.arg_nodes, g.attrs)
        return Symbol([self._heads[index]], self.source, graph)

    def get_internals(self) -> Symbol:
        """A symbol whose outputs are every visible output of every node, in graph order."""
        heads = []
        for n in self._order():
            count = len(output_names(n))
            heads.extend(Entry(n, i) for i in range(count))
        return Symbol(heads, self.source)

    def get_children(self) -> Symbol | None:
        """The inputs of the output node(s) as one symbol (None for a variable)."""
        heads = [e for h in self._heads for e in h.node.inputs]
        return Symbol([Entry(e.node, e.index) for e in heads], self.source) if heads else None

    # ------------------------------------------------------------------ attributes
    def attr(self, key: str) -> str | None:
        """The attribute ``key`` of the output node (``lr_mult`` finds ``__lr_mult__``), or None."""
        if len({id(h.node) for h in self._heads}) != 1:
            return None
        attrs = self._heads[0].node.attrs
        if key in attrs:
            return attrs[key]
        return attrs.get(hidden_key(key))

    def list_attr(self, recursive: bool = False) -> dict[str, str]:
        """The output node's attributes; hidden ones also under their plain key (``lr_mult``).
        ``recursive=True`` is MXNet's deprecated form: every node, keys ``<node>$<key>``."""
        if recursive:
            return {f"{n.name}${k}": v for n in self._order() for k, v in _shown(n.attrs).items()}
        if len({id(h.node) for h in self._heads}) != 1:
            return {}
        return _shown(self._heads[0].node.attrs)

    def attr_dict(self) -> dict[str, dict[str, str]]:
        """Every node with attributes: ``{node name: its attributes}``."""
        return {n.name: _shown(n.attrs) for n in self._order() if n.attrs}

    def _set_attr(self, **kwargs: str) -> None:
        """Set attributes of the output node (strings; hidden keys are written ``__key__``)."""
        for k, v in kwargs.items():
            if not isinstance(v, str):
                raise ValueError(f"Set Attr only accepts string values; {k}={v!r}")
            for node in {id(h.node): h.node for h in self._heads}.values():
                node.attrs[hidden_key(k)] = v
        self._graph = None

    # ------------------------------------------------------------------ composition
    def __copy__(self) -> Symbol:
        return self.__deepcopy__({})

    def __deepcopy__(self, memo: dict) -> Symbol:
        made: dict[int, SymNode] = {}
        for n in self._order():
            c = SymNode(n.op, n.name, n.attrs)
            c.inputs = [Entry(made[id(e.node)], e.index, e.version) for e in n.inputs]
            c.mutations = n.mutations
            made[id(n)] = c
        return Symbol([Entry(made[id(h.node)], h.index, h.version) for h in self._heads], self.source)

    def __call__(self, *args: Symbol, **kwargs: Any) -> Symbol:
        """A copy with variables replaced: ``net(data=other)`` (MXNet's composition)."""
        s = copy.deepcopy(self)
        s._compose(*args, **kwargs)
        return s

    def _compose(self, *args: Symbol, name: str | None = None, **kwargs: Symbol) -> None:
        if args:
            raise TypeError("Symbol composition takes keyword arguments only (variable name=symbol): "
                            "General composition only support kwargs for now")
        variables = self._variables()
        for key, value in kwargs.items():
            if not isinstance(value, Symbol):
                raise TypeError(f"Compose expects Symbols as values; {key}={type(value).__name__}")
            if len(value._heads) != 1:
                raise ValueError(f"cannot compose variable {key!r} with a symbol of {len(value._heads)} "
                                 "outputs")
            if key not in variables:
                continue
        replace = {id(variables[k]): v._heads[0] for k, v in kwargs.items() if k in variables}
        for n in self._order():
            n.inputs = [Entry(replace[id(e.node)].node, replace[id(e.node)].index, e.version)
                        if id(e.node) in replace else e for e in n.inputs]
        self._heads = [replace.get(id(h.node), h) for h in self._heads]
        if name is not None and len({id(h.node) for h in self._heads}) == 1:
            self._heads[0].node.name = name
        self._graph = None

    # ------------------------------------------------------------------ inference
    def infer_shape(self, *args: Any, **kwargs: Any) -> tuple:
        """``(arg_shapes, out_shapes, aux_shapes)`` from input shapes given by position (in
        ``list_arguments`` order) or by name; ``(None, None, None)`` (with a warning) when some
        shape cannot be decided."""
        from ._infer import infer_shape

        return infer_shape(self, args, kwargs, partial=False)

    def infer_shape_partial(self, *args: Any, **kwargs: Any) -> tuple:
        """As :meth:`infer_shape`, with ``()`` for what cannot be decided."""
        from ._infer import infer_shape

        return infer_shape(self, args, kwargs, partial=True)

    def infer_type(self, *args: Any, **kwargs: Any) -> tuple:
        """``(arg_types, out_types, aux_types)`` (NumPy types) from input types by position or name."""
        from ._infer import infer_type

        return infer_type(self, args, kwargs, partial=False)

    def infer_type_partial(self, *args: Any, **kwargs: Any) -> tuple:
        """As :meth:`infer_type`, with None for what cannot be decided."""
        from ._infer import infer_type

        return infer_type(self, args, kwargs, partial=True)

    # ------------------------------------------------------------------ executors
    def simple_bind(self, ctx: Any, grad_req: Any = "write", type_dict: Any = None, stype_dict: Any = None,
                    group2ctx: Any = None, shared_arg_names: Any = None, shared_exec: Any = None,
                    shared_buffer: Any = None, **kwargs: Any) -> Any:
        """An :class:`~framework.symbol.Executor` with zero arrays of the shapes inferred from the
        input shapes given by name (``data=(64, 1, 28, 28)``)."""
        from ._executor import simple_bind

        return simple_bind(self, ctx, grad_req, type_dict, stype_dict, group2ctx, shared_arg_names,
                           shared_exec, shared_buffer, **kwargs)

    def bind(self, ctx: Any, args: Any, args_grad: Any = None, grad_req: Any = "write",
             aux_states: Any = None, group2ctx: Any = None, shared_exec: Any = None) -> Any:
        """An executor on the given arrays (lists in ``list_arguments`` order, or dicts by name)."""
        from ._executor import bind

        return bind(self, ctx, args, args_grad, grad_req, aux_states, group2ctx, shared_exec)

    def eval(self, ctx: Any = None, **kwargs: Any) -> list:
        """Run the inference forward on ``kwargs`` (every argument by name)."""
        from ._executor import bind

        aux = {n: kwargs.pop(n) for n in self.list_auxiliary_states() if n in kwargs}
        return bind(self, ctx, kwargs, aux_states=aux or None).forward(is_train=False)

    # ------------------------------------------------------------------ files
    def tojson(self, remove_amp_cast: bool = True) -> str:
        """MXNet 1.9.1's JSON of this graph (its text, byte for byte)."""
        s = self._without_amp_cast() if remove_amp_cast else self
        graph, versions = to_graph(s._heads)  # MXNet writes its own order, whatever a file had
        return write_json(graph, versions)

    def save(self, fname: str | os.PathLike, remove_amp_cast: bool = True) -> None:
        """Write :meth:`tojson` to ``fname`` (atomically)."""
        path = os.fspath(fname)
        tmp = f"{path}.tmp{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(self.tojson(remove_amp_cast))
        os.replace(tmp, path)

    def _without_amp_cast(self) -> Symbol:
        order = self._order()
        if not any(n.op in ("amp_cast", "amp_multicast") for n in order):
            return self
        s = copy.deepcopy(self)
        for n in s._order():  # MXNet drops the casts between operators; a cast at a head stays
            n.inputs = [_skip_cast(e) for e in n.inputs]
        return s

    def debug_str(self) -> str:
        """A readable listing of the graph (one line per node)."""
        lines = []
        for n in self._order():
            ins = ", ".join(output_name(e.node, e.index) for e in n.inputs)
            lines.append(f"{n.op} {n.name}({ins})" + (f" {dict(n.attrs)}" if n.attrs else ""))
        return "\n".join(lines)


def _skip_cast(e: Entry) -> Entry:
    while e.node.op in ("amp_cast", "amp_multicast"):
        e = e.node.inputs[e.index if e.node.op == "amp_multicast" else 0]
    return e


def _shown(attrs: dict[str, str]) -> dict[str, str]:
    out = {}
    for k, v in attrs.items():
        out[k] = v
        if k.startswith("__") and k.endswith("__") and k[2:-2] in HIDDEN_KEYS:
            out[k[2:-2]] = v
    return out


def load(fname: str | os.PathLike) -> Symbol:
    """Read a ``-symbol.json`` file (MXNet's ``mx.sym.load``), validated."""
    graph = read_graph(fname)
    return Symbol(from_graph(graph), os.fspath(fname), graph)


def load_json(json_str: str) -> Symbol:
    """Parse symbol JSON text (MXNet's ``mx.sym.load_json``), validated."""
    from ._graph import parse_graph

    graph = parse_graph(json_str)
    return Symbol(from_graph(graph), "symbol", graph)
