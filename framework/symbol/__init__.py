"""MXNet's symbol files: ``-symbol.json`` graphs read, validated and run as one pure JAX function
(:class:`framework.gluon.SymbolBlock`), and written from a Block's traced program (``export``).

>>> from framework import symbol
>>> s = symbol.load_json('{"nodes": [{"op": "null", "name": "data", "inputs": []},'
...                      ' {"op": "Activation", "name": "act", "attrs": {"act_type": "relu"},'
...                      ' "inputs": [[0, 0, 0]]}], "heads": [[1, 0, 0]]}')
>>> s.list_arguments(), s.list_outputs()
(['data'], ['act_output'])
"""

from __future__ import annotations

from ._abstract import get_max_bytes, set_max_bytes
from ._attrs import AttrError
from ._graph import Graph, Node, SymbolFileError, parse_graph, read_graph
from ._interp import Program, UnknownOperatorError
from ._lower import ExportError
from ._ops import supported_ops
from ._symbol import Symbol, Variable, load, load_json, var

__all__ = [
    "Symbol", "load", "load_json", "var", "Variable", "Graph", "Node", "Program", "parse_graph",
    "read_graph", "supported_ops", "SymbolFileError", "UnknownOperatorError", "AttrError", "ExportError",
    "set_max_bytes", "get_max_bytes",
]
