"""A validated graph as ONE pure JAX function of its parameters and inputs.

``Program(graph, input_names)`` checks every operator against the table at construction (an unknown
one is an error naming it, its node and the supported list) and classifies the variables into inputs,
trained arguments and auxiliary states (those fed to an operator's aux slots: BatchNorm's running
statistics). ``program(params, inputs, training=..., key=...)`` returns ``(outputs, new_aux)``. On the
CPU, Convolution -> Activation -> max Pooling chains run as one kernel (:mod:`._fuse`).

Nothing of an imported graph runs before it is validated. At construction every node is checked against
the operator table's contract (:mod:`._schema`: arity, and the type and domain of each attribute). Before
the first run with given input and parameter shapes, the whole graph is evaluated abstractly
(``jax.eval_shape``, node by node: no array is allocated) so an operator that would fail fails here, as
a ``SymbolFileError`` naming the file and the node, and every node's outputs are held to a size budget,
``max_bytes``: by default 64 times the size of the parameters and inputs (at least 64 MiB), or what
``Program(..., max_bytes=N)`` or :func:`set_max_bytes` says.

>>> from framework.symbol._graph import parse_graph
>>> g = parse_graph('{"nodes": [{"op": "null", "name": "x", "inputs": []},'
...                 ' {"op": "null", "name": "w", "inputs": []},'
...                 ' {"op": "elemwise_mul", "name": "m", "inputs": [[0, 0], [1, 0]]}], "heads": [[2, 0]]}')
>>> p = Program(g, ["x"])
>>> p.arg_names, p.aux_names
(['w'], [])
>>> import jax.numpy as jnp
>>> outs, _ = p({"w": jnp.array([2.0])}, [jnp.array([3.0])])
>>> outs[0].tolist()
[6.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax

from ._abstract import check_abstract
from ._attrs import Attrs
from ._fuse import find_chains, run_chain
from ._graph import Graph, SymbolFileError
from ._ops import OPS, Call, LazyZeros, num_outputs, supported_ops
from ._schema import check_node

__all__ = ["Program", "UnknownOperatorError"]


class UnknownOperatorError(SymbolFileError):
    """The graph uses an operator this interpreter does not implement."""


class Program:
    """See the module docstring."""

    def __init__(self, graph: Graph, input_names: Sequence[str], source: str = "symbol", *,
                 max_bytes: int | None = None) -> None:
        self.graph = graph
        self.source = source
        self.max_bytes = max_bytes
        self._checked: set[Any] = set()
        nodes = graph.nodes
        needed = set()
        stack = [nid for nid, _ in graph.heads]
        while stack:
            nid = stack.pop()
            if nid in needed:
                continue
            needed.add(nid)
            stack.extend(i for i, _ in nodes[nid].inputs)
        self.order = sorted(needed)
        self.attrs: dict[int, Attrs] = {}
        aux_nodes: set[int] = set()
        for nid in self.order:
            n = nodes[nid]
            if n.op == "null":
                continue
            spec = OPS.get(n.op)
            if spec is None:
                raise UnknownOperatorError(
                    f"{source}: node {nid} ({n.name!r}) uses operator {n.op!r}, which is not supported. "
                    f"Supported operators: {', '.join(supported_ops())}")
            check_node(source, nid, n.name, n.op, n.attrs, len(n.inputs))
            self.attrs[nid] = Attrs(n.attrs, n.name, n.op)
            for pos in spec.aux(self.attrs[nid]) if callable(spec.aux) else spec.aux:
                if pos < len(n.inputs):
                    src = n.inputs[pos][0]
                    if nodes[src].op != "null":
                        raise SymbolFileError(
                            f"{source}: node {nid} ({n.name!r}) takes an auxiliary state from node {src} "
                            f"({nodes[src].name!r}), which is not a variable")
                    aux_nodes.add(src)
        for nid in self.order:
            for k, (src, idx) in enumerate(nodes[nid].inputs):
                self._check_output(src, idx, f"node {nid} ({nodes[nid].name!r}) input {k}")
        for k, (src, idx) in enumerate(graph.heads):
            self._check_output(src, idx, f"head {k}")
        variables = [nid for nid in self.order if nodes[nid].op == "null"]
        names = [nodes[v].name for v in variables]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise SymbolFileError(f"{source}: several variables are named {sorted(dup)}")
        input_names = list(input_names)
        missing = [n for n in input_names if n not in names]
        if missing:
            raise ValueError(f"{source}: input name(s) {missing} are not variables of the graph; its "
                             f"variables are {names}")
        self.input_names = input_names
        self.chains = find_chains(graph, self.attrs)
        self.var_node = {nodes[v].name: v for v in variables}
        self.aux_names = [nodes[v].name for v in variables if v in aux_nodes and nodes[v].name not in
                          input_names]
        self.arg_names = [n for n in names if n not in input_names and n not in self.aux_names]

    def _check_output(self, nid: int, idx: int, where: str) -> None:
        n = self.graph.nodes[nid]
        count = 1 if n.op == "null" else num_outputs(n.op, n.attrs)
        if idx >= count:
            raise SymbolFileError(f"{self.source}: {where} reads output {idx} of node {nid} ({n.name!r}, "
                                  f"op {n.op!r}), which has {count} output(s)")

    @property
    def param_names(self) -> list[str]:
        return self.arg_names + self.aux_names

    def __call__(self, params: dict[str, Any], inputs: Sequence[Any], *, training: bool = False,
                 key: jax.Array | None = None) -> tuple[list[Any], dict[str, Any]]:
        nodes = self.graph.nodes
        if len(inputs) != len(self.input_names):
            raise ValueError(f"{self.source}: expected {len(self.input_names)} input(s) "
                             f"{self.input_names}, got {len(inputs)}")
        values: dict[int, tuple] = {}
        for name, x in zip(self.input_names, inputs, strict=True):
            values[self.var_node[name]] = (x,)
        for name in self.param_names:
            if name not in params:
                raise KeyError(f"{self.source}: no value for parameter {name!r}")
            values[self.var_node[name]] = (params[name],)
        signature = (training, tuple((tuple(getattr(v[0], "shape", ())), str(getattr(v[0], "dtype", "")))
                                     for v in values.values()))
        if signature not in self._checked:  # once per shapes: nothing runs before the graph is checked
            check_abstract(self, values, training, key)
            self._checked.add(signature)
        updates: dict[str, Any] = {}
        fused: set[int | None] = set()
        for nid in self.order:
            n = nodes[nid]
            if n.op == "null" or nid in fused:
                continue
            xs = [values[src][idx] for src, idx in n.inputs]
            for k, x in enumerate(xs):
                if isinstance(x, LazyZeros) and n.op not in ("RNN", "_npx_rnn"):
                    raise ValueError(f"{self.source}: node {nid} ({n.name!r}) reads a zeros array of "
                                     f"unknown shape {x.shape} at input {k}")
            chain = self.chains.get(nid)
            pooled = None if chain is None else run_chain(chain, xs, self.attrs)
            if pooled is not None:  # the chain's activation and pooling are computed with it
                values[chain.pool] = pooled
                fused.update((chain.act, chain.pool))
                continue
            call = Call(training, None if key is None else jax.random.fold_in(key, nid))
            out = OPS[n.op].fn(call, xs, self.attrs[nid])
            values[nid] = tuple(out) if isinstance(out, (tuple, list)) else (out,)
            for pos, v in call.updates.items():
                updates[nodes[n.inputs[pos][0]].name] = v
        outs = [values[nid][idx] for nid, idx in self.graph.heads]
        return outs, updates
