"""A minimal MXNet ``Symbol``: a loaded graph (with its heads) to hand to ``SymbolBlock``.

>>> from framework import symbol
>>> s = symbol.var('data')
>>> s.list_arguments(), s.name
(['data'], 'data')
"""

from __future__ import annotations

import os

from ._graph import Graph, Node, parse_graph, read_graph

__all__ = ["Symbol", "load", "load_json", "var", "Variable"]


class Symbol:
    """A graph plus the entries it outputs (MXNet's ``Symbol`` as far as loading goes)."""

    def __init__(self, graph: Graph, source: str = "symbol") -> None:
        self.graph = graph
        self.source = source  # the file it came from, named in errors

    @property
    def name(self) -> str:
        nid, _ = self.graph.heads[0]
        return self.graph.nodes[nid].name

    def _needed(self) -> list[int]:
        needed, stack = set(), [nid for nid, _ in self.graph.heads]
        while stack:
            nid = stack.pop()
            if nid not in needed:
                needed.add(nid)
                stack.extend(i for i, _ in self.graph.nodes[nid].inputs)
        return sorted(needed)

    def list_inputs(self) -> list[str]:
        return [self.graph.nodes[i].name for i in self._needed() if self.graph.nodes[i].op == "null"]

    def list_auxiliary_states(self) -> list[str]:
        from ._interp import Program

        return Program(self.graph, [], source=self.source).aux_names

    def list_arguments(self) -> list[str]:
        aux = set(self.list_auxiliary_states())
        return [n for n in self.list_inputs() if n not in aux]

    def list_outputs(self) -> list[str]:
        nodes = self.graph.nodes
        return [f"{nodes[nid].name}_output{idx if idx else ''}" if nodes[nid].op != "null"
                else nodes[nid].name for nid, idx in self.graph.heads]

    def __len__(self) -> int:
        return len(self.graph.heads)

    def __getitem__(self, index: int) -> Symbol:
        heads = self.graph.heads
        if not -len(heads) <= index < len(heads):
            raise IndexError(f"Symbol has {len(heads)} output(s); index {index} is out of range")
        return Symbol(Graph(self.graph.nodes, [heads[index]], self.graph.arg_nodes, self.graph.attrs),
                      self.source)

    def tojson(self) -> str:
        return self.graph.to_json()

    def save(self, fname: str | os.PathLike, remove_amp_cast: bool = True) -> None:
        with open(os.fspath(fname), "w") as f:
            f.write(self.tojson())

    def __repr__(self) -> str:
        return f"<Symbol {self.name}>"


def load(fname: str | os.PathLike) -> Symbol:
    """Read a ``-symbol.json`` file (MXNet's ``mx.sym.load``)."""
    return Symbol(read_graph(fname), os.fspath(fname))


def load_json(json_str: str) -> Symbol:
    """Parse symbol JSON text (MXNet's ``mx.sym.load_json``)."""
    return Symbol(parse_graph(json_str))


def var(name: str, **kwargs: object) -> Symbol:
    """A variable (an input of a graph), MXNet's ``mx.sym.var``."""
    return Symbol(Graph([Node("null", name)], [(0, 0)], [0]))


Variable = var
