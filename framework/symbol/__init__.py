"""MXNet's symbolic API (``mx.sym``/``mx.symbol``): graphs built in Python or read from ``-symbol.json``,
validated and run as one pure JAX function (:class:`framework.gluon.SymbolBlock`, executors, ``mx.mod``).

- ``var``/``Variable``, ``Group``, ``load``/``load_json`` and an operator function for every operator the
  interpreter runs (``FullyConnected``, ``Convolution``, ``BatchNorm``, ``SoftmaxOutput``, ...; names
  starting with ``_`` in ``_internal``, ``_contrib_*`` in ``contrib``, ``_linalg_*`` in ``linalg``);
- a :class:`Symbol` lists its arguments, outputs and auxiliary states, infers shapes and types, writes
  MXNet's JSON (``tojson``/``save``), composes (``net(data=other)``), and binds to an executor
  (``simple_bind``/``bind``);
- :class:`NameManager`/:class:`Prefix` (``mx.name``) and :class:`AttrScope` (``mx.AttrScope``).

>>> from framework import symbol
>>> s = symbol.load_json('{"nodes": [{"op": "null", "name": "data", "inputs": []},'
...                      ' {"op": "Activation", "name": "act", "attrs": {"act_type": "relu"},'
...                      ' "inputs": [[0, 0, 0]]}], "heads": [[1, 0, 0]]}')
>>> s.list_arguments(), s.list_outputs()
(['data'], ['act_output'])
>>> with symbol.NameManager():
...     net = symbol.FullyConnected(symbol.var('x'), num_hidden=3) + 1
>>> net.list_arguments(), net.name
(['x', 'fullyconnected0_weight', 'fullyconnected0_bias'], '_plusscalar0')
"""

from __future__ import annotations

from . import _internal, contrib, linalg, random
from ._abstract import get_max_bytes, set_max_bytes
from ._attrs import AttrError
from ._custom_node import Custom
from ._executor import Executor
from ._graph import Graph, Node, SymbolFileError, parse_graph, read_graph
from ._interp import Program, UnknownOperatorError
from ._lower import ExportError
from ._namespaces import functions as _functions
from ._opfuncs import (
    Group,
    Variable,
    arange,
    eye,
    full,
    hypot,
    linspace,
    maximum,
    minimum,
    ones,
    pow,  # noqa: A004  (MXNet's name)
    power,
    split_v2,
    var,
    zeros,
)
from ._ops import supported_ops
from ._symbol import Symbol, load, load_json
from .naming import AttrScope, NameManager, Prefix

globals().update(_functions(""))

__all__ = [
    "Symbol", "Executor", "load", "load_json", "var", "Variable", "Group", "Graph", "Node", "Program",
    "parse_graph", "Custom",
    "read_graph", "supported_ops", "SymbolFileError", "UnknownOperatorError", "AttrError", "ExportError",
    "set_max_bytes", "get_max_bytes", "NameManager", "Prefix", "AttrScope", "zeros", "ones", "full",
    "arange", "linspace", "eye", "maximum", "minimum", "hypot", "pow", "power", "split_v2", "contrib",
    "linalg", "random", "_internal", *sorted(_functions("")),
]
