"""MXNet 1.9.1's symbol JSON text, byte for byte: its writer's layout (two-space indents, ``", "`` at line
ends, objects of one key and arrays of at most ten items on one line, attribute keys sorted) and its
string escapes.

>>> from framework.symbol._graph import Graph, Node
>>> text = write_json(Graph([Node('null', 'x')], [(0, 0)], [0], {}), [])
>>> text.splitlines()[3:6]
['      "op": "null", ', '      "name": "x", ', '      "inputs": []']
>>> text.splitlines()[-4:-1]
['  "node_row_ptr": [0, 1], ', '  "heads": [[0, 0, 0]], ', '  "attrs": {"mxnet_version": ["int", 10901]}']
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ._graph import Graph, node_fields
from ._registry import num_outputs

__all__ = ["write_json", "quote"]

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def quote(s: str) -> str:
    """A JSON string as MXNet writes it (only quote, backslash and \\n \\r \\t escaped)."""
    return '"' + "".join(_ESCAPES.get(ch, ch) for ch in s) + '"'


def _value(v: Any) -> str:
    if isinstance(v, str):
        return quote(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _array(items: Sequence[str], indent: int) -> str:
    """A JSON array of already-written items: one line for up to 10 items, else one item per line."""
    if len(items) <= 10:
        return "[" + ", ".join(items) + "]"
    pad = " " * (indent + 2)
    return "[\n" + ", \n".join(pad + i for i in items) + "\n" + " " * indent + "]"


def _object(items: Sequence[tuple[str, str]], indent: int, force_lines: bool = False) -> str:
    if len(items) <= 1 and not force_lines:
        return "{" + ", ".join(f"{quote(k)}: {v}" for k, v in items) + "}"
    pad = " " * (indent + 2)
    return "{\n" + ", \n".join(f"{pad}{quote(k)}: {v}" for k, v in items) + "\n" + " " * indent + "}"


def _entry(e: Sequence[int]) -> str:
    return "[" + ", ".join(str(v) for v in e) + "]"


def write_json(graph: Graph, versions: Sequence[int]) -> str:
    """The JSON MXNet 1.9.1 writes for ``graph``; ``versions``: each input entry's version, flattened
    in node order (MXNet numbers the uses of an auxiliary state), empty for all zeros."""
    versions = list(versions)
    k = 0
    nodes = []
    for n in graph.nodes:
        fields = [("op", quote(n.op)), ("name", quote(n.name))]
        plain, subgraphs = node_fields(n.attrs)
        if plain:
            attrs = [(key, quote(str(plain[key]))) for key in sorted(plain)]
            fields.append(("attrs", _object(attrs, 6)))
        ins = []
        for nid, idx in n.inputs:
            ins.append(_entry((nid, idx, versions[k] if k < len(versions) else 0)))
            k += 1
        fields.append(("inputs", _array(ins, 6)))
        if subgraphs:
            fields.append(("subgraphs", json.dumps(subgraphs)))
        nodes.append(_object(fields, 4, force_lines=True))
    row_ptr = [0]
    for n in graph.nodes:
        row_ptr.append(row_ptr[-1] + (1 if n.op == "null" else num_outputs(n.op, n.attrs)))
    attrs = graph.attrs or {"mxnet_version": ["int", 10901]}
    top = [
        ("nodes", "[\n" + ", \n".join("    " + s for s in nodes) + "\n  ]"),
        ("arg_nodes", _array([str(i) for i in graph.arg_nodes], 2)),
        ("node_row_ptr", _array([str(i) for i in row_ptr], 2)),
        ("heads", _array([_entry((i, j, 0)) for i, j in graph.heads], 2)),
        ("attrs", _object([(k2, _attr_value(v)) for k2, v in attrs.items()], 2)),
    ]
    return _object(top, 0, force_lines=True)


def _attr_value(v: Any) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return _object([(k, _attr_value(x)) for k, x in v.items()], 4)
    return _value(v)
