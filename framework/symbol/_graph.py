"""MXNet's symbol JSON: read, normalise and validate before anything runs.

Accepts what MXNet 0.x-2.0 wrote: attributes under ``attrs`` (1.x, 2.0), ``attr`` or ``param`` (0.x),
entries ``[node, output]`` or ``[node, output, version]``, optional ``arg_nodes``, ``node_row_ptr`` and
``heads``. Every index is checked against the graph (inputs only point backwards, so the graph is a
DAG in file order); nothing is evaluated and no size is trusted beyond the text itself.

>>> g = parse_graph('{"nodes": [{"op": "null", "name": "data", "inputs": []},'
...                 ' {"op": "relu", "name": "r", "inputs": [[0, 0, 0]]}], "heads": [[1, 0, 0]]}')
>>> [n.op for n in g.nodes], g.heads
(['null', 'relu'], [(1, 0)])
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from .._files import FileTooLargeError, read_bytes
from ._attrs import SUBGRAPHS
from ._ops import num_outputs

__all__ = ["SymbolFileError", "Node", "Graph", "parse_graph", "read_graph", "MAX_SYMBOL_BYTES", "node_fields"]

MAX_SYMBOL_BYTES = 256 << 20  # a symbol file is text; 256 MB is far beyond any real network's graph


def node_fields(attrs: dict[str, str]) -> tuple[dict[str, str], list[Any]]:
    """A node's attributes as MXNet writes them, and its ``subgraphs`` (empty for most nodes)."""
    if SUBGRAPHS not in attrs:
        return attrs, []
    rest = {k: v for k, v in attrs.items() if k != SUBGRAPHS}
    return rest, json.loads(attrs[SUBGRAPHS])


class SymbolFileError(ValueError):
    """A symbol JSON that is not a valid MXNet graph (the message names the place and the fix)."""


@dataclass
class Node:
    """One graph node: ``op`` ('null' for a variable), its name, string attributes, input entries."""

    op: str
    name: str
    attrs: dict[str, str] = field(default_factory=dict)
    inputs: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class Graph:
    """A validated graph: nodes in topological (file) order, head entries, and the variables' ids."""

    nodes: list[Node]
    heads: list[tuple[int, int]]
    arg_nodes: list[int]
    attrs: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        """MXNet 1.x's spelling (``attrs``; entries with version 0), the one MXNet 1.9.1 writes."""
        nodes = []
        for n in self.nodes:
            d: dict[str, Any] = {"op": n.op, "name": n.name}
            attrs, subgraphs = node_fields(n.attrs)
            if attrs:
                d["attrs"] = dict(attrs)
            d["inputs"] = [[i, j, 0] for i, j in n.inputs]
            if subgraphs:
                d["subgraphs"] = subgraphs
            nodes.append(d)
        doc = {"nodes": nodes, "arg_nodes": list(self.arg_nodes),
               "node_row_ptr": _row_ptr(self), "heads": [[i, j, 0] for i, j in self.heads],
               "attrs": self.attrs or {"mxnet_version": ["int", 10901]}}
        return json.dumps(doc, indent=2)


def _row_ptr(g: Graph) -> list[int]:
    ptr = [0]
    for n in g.nodes:
        ptr.append(ptr[-1] + (1 if n.op == "null" else num_outputs(n.op, n.attrs)))
    return ptr


def _fail(where: str, msg: str) -> SymbolFileError:
    return SymbolFileError(f"symbol JSON {where}: {msg}")


def _entry(raw: Any, where: str, limit: int) -> tuple[int, int]:
    if not isinstance(raw, list) or len(raw) not in (2, 3) or not all(
            type(v) is int for v in raw):
        raise _fail(where, f"an entry must be [node, output] or [node, output, version] of integers, "
                           f"got {str(raw)[:80]}")
    nid, idx = raw[0], raw[1]
    if not 0 <= nid < limit:
        raise _fail(where, f"refers to node {nid}, but only nodes 0..{limit - 1} may be used here "
                           "(inputs must come earlier in the file)")
    if not 0 <= idx < 1 << 16:
        raise _fail(where, f"output index {idx} is out of range")
    return nid, idx


def _attrs(raw: dict, where: str) -> dict[str, str]:
    merged: dict[str, str] = {}
    for spelling in ("param", "attr", "attrs"):  # later spellings win, as in MXNet's loader
        value = raw.get(spelling)
        if value is None:
            continue
        if not isinstance(value, dict):
            raise _fail(where, f"'{spelling}' must be an object of strings, got {type(value).__name__}")
        for k, v in value.items():
            if not isinstance(v, str):
                raise _fail(where, f"attribute {k!r} must be a string, got {str(v)[:40]}")
            merged[k] = v
    return merged


def _subgraphs(raw: Any, where: str) -> str:
    """A node's ``subgraphs``, each validated as a graph, as compact JSON text."""
    if not isinstance(raw, list):
        raise _fail(where, "'subgraphs' must be a list of graphs")
    for k, sub in enumerate(raw):
        parse_graph(json.dumps(sub), f"{where} subgraph {k}")
    return json.dumps(raw, separators=(",", ":"))


def parse_graph(text: str | bytes, source: str = "<string>") -> Graph:
    """Parse and validate a symbol JSON document (see the module docstring)."""
    if len(text) > MAX_SYMBOL_BYTES:
        raise _fail(source, f"is {len(text)} bytes, above the {MAX_SYMBOL_BYTES}-byte limit")
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise _fail(source, f"is not valid JSON ({str(e)[:120]})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("nodes"), list):
        raise _fail(source, "must be an object with a 'nodes' list (an MXNet -symbol.json file)")
    raw_nodes = doc["nodes"]
    if not raw_nodes:
        raise _fail(source, "has no nodes")
    nodes: list[Node] = []
    for i, raw in enumerate(raw_nodes):
        where = f"{source} node {i}"
        if not isinstance(raw, dict):
            raise _fail(where, f"must be an object, got {type(raw).__name__}")
        op, name = raw.get("op"), raw.get("name")
        if not isinstance(op, str) or not isinstance(name, str):
            raise _fail(where, "needs string 'op' and 'name' fields")
        where = f"{source} node {i} ({name!r}, op {op!r})"
        inputs = raw.get("inputs", [])
        if not isinstance(inputs, list):
            raise _fail(where, "'inputs' must be a list of entries")
        if op == "null" and inputs:
            raise _fail(where, "a variable ('null' op) cannot have inputs")
        entries = [_entry(e, where + f" input {k}", i) for k, e in enumerate(inputs)]
        attrs = _attrs(raw, where)
        if raw.get("subgraphs"):
            attrs[SUBGRAPHS] = _subgraphs(raw["subgraphs"], where)
        nodes.append(Node(op, name, attrs, entries))
    heads_raw = doc.get("heads")
    if heads_raw is None:
        heads = [(len(nodes) - 1, 0)]
    else:
        if not isinstance(heads_raw, list) or not heads_raw:
            raise _fail(source, "'heads' must be a non-empty list of entries")
        heads = [_entry(h, f"{source} head {k}", len(nodes)) for k, h in enumerate(heads_raw)]
    arg_nodes = [i for i, n in enumerate(nodes) if n.op == "null"]
    declared = doc.get("arg_nodes")
    if declared is not None:
        if not isinstance(declared, list) or not all(type(v) is int for v in declared):
            raise _fail(source, "'arg_nodes' must be a list of node ids")
        if sorted(declared) != arg_nodes:
            raise _fail(source, f"'arg_nodes' {declared[:10]} does not list exactly the variable nodes "
                                f"{arg_nodes[:10]}")
    extra = doc.get("attrs", {})
    return Graph(nodes, heads, arg_nodes, extra if isinstance(extra, dict) else {})


def read_graph(path: str | os.PathLike) -> Graph:
    """Read ``path`` (a ``-symbol.json`` file) with :func:`parse_graph`."""
    path = os.fspath(path)
    try:
        data = read_bytes(path, what="symbol file", max_bytes=MAX_SYMBOL_BYTES)
    except FileTooLargeError:
        raise _fail(path, f"is {os.path.getsize(path)} bytes, above the {MAX_SYMBOL_BYTES}-byte "
                          "limit") from None
    return parse_graph(data, path)
