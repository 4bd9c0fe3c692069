"""The graph a Python-built symbol holds: :class:`SymNode` objects linked by their inputs (a DAG shared
between symbols, as MXNet's nodes are), and what MXNet says about an operator's outputs.

``topo_order(heads)`` is MXNet's order (a post-order depth-first walk from the heads, inputs in order):
the order of ``list_arguments()``, of ``get_internals()`` and of the nodes of ``tojson()``.
``to_graph`` / ``from_graph`` convert to and from the validated :class:`~._graph.Graph` the interpreter
runs.

>>> x = SymNode('null', 'x')
>>> y = SymNode('relu', 'r', {}, [Entry(x, 0)])
>>> [n.name for n in topo_order([Entry(y, 0)])]
['x', 'r']
>>> output_names(SymNode('BatchNorm', 'bn', {'output_mean_var': 'True'}))
['bn_output', 'bn_mean', 'bn_var']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ._attrs import Attrs
from ._custom import custom_outputs
from ._graph import Graph, Node
from ._registry import OPS, num_outputs

__all__ = ["SymNode", "Entry", "topo_order", "to_graph", "from_graph", "node_outputs", "visible_outputs",
           "output_names", "output_name", "is_aux_input"]


class SymNode:
    """One node: ``op`` ('null' for a variable), its name, its attributes (strings, hidden ones as
    ``__key__``) and its input entries."""

    __slots__ = ("op", "name", "attrs", "inputs", "mutations", "__weakref__")

    def __init__(self, op: str, name: str, attrs: dict[str, str] | None = None,
                 inputs: list[Entry] | None = None) -> None:
        self.op = op
        self.name = name
        self.attrs = dict(attrs or {})
        self.inputs = list(inputs or [])
        self.mutations = 0  # how often a variable was taken as an operator's auxiliary (mutated) input

    def __repr__(self) -> str:
        return f"SymNode({self.op!r}, {self.name!r})"


class Entry(NamedTuple):
    """An output of a node: the node, the output's index and (for auxiliary inputs) MXNet's version."""

    node: SymNode
    index: int
    version: int = 0


# ------------------------------------------------------------------------------------ outputs
_NORM3 = ("output", "mean", "var")
_NAMES = {
    **dict.fromkeys(("BatchNorm", "BatchNorm_v1", "CuDNNBatchNorm", "_contrib_SyncBatchNorm",
                     "_contrib_BatchNormWithReLU"), _NORM3),
    **dict.fromkeys(("LayerNorm", "GroupNorm"), ("output", "mean", "std")), "InstanceNorm": _NORM3,
    "Dropout": ("output", "mask"), "make_loss": ("loss",),
    "RNN": ("output", "state_output", "statecell_output"),
    "LRN": ("output", "tmp_norm"), "L2Normalization": ("output", "norm"), "ROIPooling": ("output", "maxidx"),
    "GridGenerator": ("output", "grid_dst"), "BilinearSampler": ("output", "tmp"),
    "SpatialTransformer": ("output", "grid_dst", "grid_src"), "Correlation": ("output", "tmp1", "tmp2"),
    "Pooling": ("output", "workspace"),
    "_contrib_MultiBoxTarget": ("loc_target", "loc_mask", "cls_target"),
    **dict.fromkeys(("_contrib_quantized_pooling", "_contrib_quantized_concat", "_contrib_quantized_flatten",
                     "_contrib_quantized_act"), ("output", "min_output", "max_output")),
    "_sg_mkldnn_conv": ("output", "output_min", "output_max"),
}
_ONE_VISIBLE = {"Dropout", "LRN", "L2Normalization", "ROIPooling", "GridGenerator", "BilinearSampler",
                "SpatialTransformer", "Correlation", "Pooling", "CTCLoss", "sort", "_contrib_box_nms",
                "InstanceNorm", "_linalg_det"}
_STATS_VISIBLE = {"BatchNorm", "BatchNorm_v1", "CuDNNBatchNorm", "_contrib_SyncBatchNorm",
                  "_contrib_BatchNormWithReLU", "LayerNorm", "GroupNorm"}


def node_outputs(node: SymNode) -> int:
    """How many outputs MXNet counts for the node (hidden ones included: ``node_row_ptr``)."""
    return 1 if node.op == "null" else num_outputs(node.op, node.attrs)


def visible_outputs(node: SymNode) -> int:
    """How many of the node's outputs a symbol shows (``list_outputs``)."""
    if node.op == "null":
        return 1
    if node.op in _ONE_VISIBLE:
        return 1
    if node.op in _STATS_VISIBLE:
        return 3 if Attrs(node.attrs, node.name, node.op).bool("output_mean_var") else 1
    if node.op == "_linalg_slogdet":
        return 2
    return node_outputs(node)


def output_name(node: SymNode, index: int) -> str:
    """MXNet's name of one output: ``<node>_output``, ``<node>_output<i>`` or the operator's own."""
    if node.op == "null":
        return node.name
    names = custom_outputs(node.attrs) if node.op == "Custom" else _NAMES.get(node.op)
    if names is not None and index < len(names):
        return f"{node.name}_{names[index]}"
    return f"{node.name}_output" if node_outputs(node) == 1 else f"{node.name}_output{index}"


def output_names(node: SymNode) -> list[str]:
    """The names of the node's visible outputs."""
    return [output_name(node, i) for i in range(visible_outputs(node))]


def is_aux_input(op: str, position: int, attrs: dict[str, str] | None = None) -> bool:
    """Whether input ``position`` of ``op`` (with these attributes) is an auxiliary state (mutated by
    the operator)."""
    spec = OPS.get(op)
    if spec is None:
        return False
    aux = spec.aux(Attrs(attrs or {}, "?", op)) if callable(spec.aux) else spec.aux
    return position in aux


# ------------------------------------------------------------------------------------ order
def topo_order(heads: Iterable[Entry]) -> list[SymNode]:
    """Every node the heads depend on, inputs before users (MXNet's depth-first post-order)."""
    order: list[SymNode] = []
    seen: set[int] = set()
    for head in heads:
        if id(head.node) in seen:
            continue
        stack = [(head.node, 0)]
        seen.add(id(head.node))
        while stack:
            node, k = stack.pop()
            if k < len(node.inputs):
                stack.append((node, k + 1))
                child = node.inputs[k].node
                if id(child) not in seen:
                    seen.add(id(child))
                    stack.append((child, 0))
            else:
                order.append(node)
    return order


def to_graph(heads: Sequence[Entry]) -> tuple[Graph, list[int]]:
    """The interpreter's :class:`Graph` of these heads, and each input entry's version (flattened in
    node order, for the JSON writer)."""
    order = topo_order(heads)
    index = {id(n): i for i, n in enumerate(order)}
    nodes, versions = [], []
    for n in order:
        nodes.append(Node(n.op, n.name, dict(n.attrs), [(index[id(e.node)], e.index) for e in n.inputs]))
        versions.extend(e.version for e in n.inputs)
    arg_nodes = [i for i, n in enumerate(order) if n.op == "null"]
    graph = Graph(nodes, [(index[id(h.node)], h.index) for h in heads], arg_nodes,
                  {"mxnet_version": ["int", 10901]})
    return graph, versions


def from_graph(graph: Graph) -> list[Entry]:
    """The heads of a loaded graph as SymNodes (MXNet's versions of auxiliary inputs recomputed)."""
    made: list[SymNode] = []
    for n in graph.nodes:
        node = SymNode(n.op, n.name, n.attrs)
        for pos, (src, idx) in enumerate(n.inputs):
            child = made[src]
            version = 0
            if child.op == "null" and is_aux_input(n.op, pos, n.attrs):
                child.mutations += 1
                version = child.mutations
            node.inputs.append(Entry(child, idx, version))
        made.append(node)
    return [Entry(made[nid], idx) for nid, idx in graph.heads]
