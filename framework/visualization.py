"""``mx.visualization`` (``mx.viz``): a symbol's layer table (:func:`print_summary`) and its graph as a
Graphviz ``Digraph`` (:func:`plot_network`, which needs the ``graphviz`` package, as MXNet's does).

>>> import framework as mx
>>> net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=3, name='fc')
>>> mx.viz.print_summary(net, shape={'data': (1, 4)}, line_length=100)  # doctest: +NORMALIZE_WHITESPACE
____________________________________________________________________________________________________
Layer (type)                                Output Shape        Param #   Previous Layer
====================================================================================================
data(null)                                  4                   0
____________________________________________________________________________________________________
fc(FullyConnected)                          3                   15        data
====================================================================================================
Total params: 15
____________________________________________________________________________________________________
"""

from __future__ import annotations

import copy
import json
import re
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from .symbol import Symbol

__all__ = ["print_summary", "plot_network", "Symbol"]


def _ints(text: str) -> list[str]:
    """The integers of a shape attribute's text (``'(5, 5)'`` -> ``['5', '5']``)."""
    return re.findall(r"\d+", text)


def _shape_dict(symbol: Symbol, shape: Mapping[str, Any]) -> dict[str, tuple]:
    internals = symbol.get_internals()
    _, out_shapes, _ = internals.infer_shape(**shape)
    if out_shapes is None:
        raise ValueError("Input shape is incomplete")
    return dict(zip(internals.list_outputs(), out_shapes, strict=True))


def _params_of(node: dict, pre_filter: int, shapes: dict | None) -> int:
    """The parameter count MXNet's summary shows for one node."""
    op, attrs = node["op"], node.get("attrs", {})
    if op == "Convolution":
        count = pre_filter * int(attrs["num_filter"]) // int(attrs.get("num_group", "1"))
        for k in _ints(attrs["kernel"]):
            count *= int(k)
        return count if attrs.get("no_bias") == "True" else count + int(attrs["num_filter"])
    if op == "FullyConnected":
        bias = 0 if attrs.get("no_bias") == "True" else 1
        return (pre_filter + bias) * int(attrs["num_hidden"])
    if op == "BatchNorm":
        return int(shapes[node["name"] + "_output"][1]) * 2 if shapes is not None else 0
    if op == "Embedding":
        return int(attrs["input_dim"]) * int(attrs["output_dim"])
    return 0


def print_summary(symbol: Symbol, shape: Mapping[str, Any] | None = None, line_length: int = 120,
                  positions: Sequence[float] = (.44, .64, .74, 1.)) -> None:
    """Print a table of the graph's layers: name(type), output shape (without the batch axis; needs
    ``shape``, the input shapes by name), parameter count, the layers feeding it; then the total.
    ``positions`` are the columns' right edges, as fractions of ``line_length`` or in characters."""
    if not isinstance(symbol, Symbol):
        raise TypeError("symbol must be Symbol")
    shapes = _shape_dict(symbol, shape) if shape is not None else None
    conf = json.loads(symbol.tojson())
    nodes = conf["nodes"]
    heads = set(conf["heads"][0])
    positions = list(positions)
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]

    def row(fields: Sequence[Any]) -> None:
        line = ""
        for field, end in zip(fields, positions, strict=False):
            line = (line + str(field))[:end]
            line += " " * (end - len(line))
        print(line)

    def layer(node: dict, out_shape: Sequence[int]) -> int:
        previous, pre_filter = [], 0
        if node["op"] != "null":
            for item in node["inputs"]:
                source = nodes[item[0]]
                if source["op"] != "null" or item[0] in heads:
                    previous.append(source["name"])
                    if shapes is not None:
                        key = source["name"] + ("_output" if source["op"] != "null" else "")
                        if key in shapes:
                            pre_filter += int(shapes[key][1:][0])
        params = _params_of(node, pre_filter, shapes)
        row([f"{node['name']}({node['op']})", "x".join(str(x) for x in out_shape), params,
             previous[0] if previous else ""])
        for name in previous[1:]:
            row(["", "", "", name])
        return params

    print("_" * line_length)
    row(["Layer (type)", "Output Shape", "Param #", "Previous Layer"])
    print("=" * line_length)
    total = 0
    for i, node in enumerate(nodes):
        if node["op"] == "null" and i > 0:
            continue
        out_shape: Sequence[int] = []
        if (node["op"] != "null" or i in heads) and shapes is not None:
            key = node["name"] + ("_output" if node["op"] != "null" else "")
            if key in shapes:
                out_shape = shapes[key][1:]
        total += layer(node, out_shape)
        print(("=" if i == len(nodes) - 1 else "_") * line_length)
    print(f"Total params: {total}")
    print("_" * line_length)


_WEIGHT_SUFFIXES = ("_weight", "_bias", "_beta", "_gamma", "_moving_var", "_moving_mean", "_running_var",
                    "_running_mean")
_COLOURS = ("#8dd3c7", "#fb8072", "#ffffb3", "#bebada", "#80b1d3", "#fdb462", "#b3de69", "#fccde5")


def _node_look(node: dict) -> tuple[str, str]:
    """The label and fill colour MXNet gives an operator node."""
    op, attrs, name = node["op"], node.get("attrs", {}), node["name"]
    if op == "Convolution":
        stride = "x".join(_ints(attrs["stride"])) if "stride" in attrs else "1"
        return f"Convolution\n{'x'.join(_ints(attrs['kernel']))}/{stride}, {attrs['num_filter']}", _COLOURS[1]
    if op == "FullyConnected":
        return f"FullyConnected\n{attrs['num_hidden']}", _COLOURS[1]
    if op == "BatchNorm":
        return name, _COLOURS[3]
    if op == "Activation":
        return f"Activation\n{attrs['act_type']}", _COLOURS[2]
    if op == "LeakyReLU":
        return f"LeakyReLU\n{attrs.get('act_type', 'Leaky')}", _COLOURS[2]
    if op == "Pooling":
        kernel = "x".join(_ints(attrs["kernel"])) if "kernel" in attrs else "[]"
        stride = "x".join(_ints(attrs["stride"])) if "stride" in attrs else "1"
        return f"Pooling\n{attrs['pool_type']}, {kernel}/{stride}", _COLOURS[4]
    if op in ("Concat", "Flatten", "Reshape"):
        return name, _COLOURS[5]
    if op == "Softmax":
        return name, _COLOURS[6]
    return (attrs["op_type"] if op == "Custom" else name), _COLOURS[7]


def plot_network(symbol: Symbol, title: str = "plot", save_format: str = "pdf",
                 shape: Mapping[str, Any] | None = None, dtype: Mapping[str, Any] | None = None,
                 node_attrs: Mapping[str, str] | None = None, hide_weights: bool = True) -> Any:
    """The graph as a ``graphviz.Digraph`` (inputs as ovals, layers as coloured boxes, edges labelled
    with the shapes/dtypes flowing when ``shape``/``dtype`` are given; ``*_weight``/``*_bias``/...
    inputs hidden with ``hide_weights``). Render it with ``.render()``/``.view()``."""
    try:
        from graphviz import Digraph
    except ImportError as e:
        raise ImportError("Draw network requires graphviz library: install the graphviz Python package "
                          "(pip install graphviz) and Graphviz's dot program") from e
    if not isinstance(symbol, Symbol):
        raise TypeError("symbol must be a Symbol")
    shapes = _shape_dict(symbol, shape) if shape is not None else None
    types = None
    if dtype is not None:
        internals = symbol.get_internals()
        _, out_types, _ = internals.infer_type(**dtype)
        if out_types is None:
            raise ValueError("Input type is incomplete")
        types = dict(zip(internals.list_outputs(), out_types, strict=True))
    nodes = json.loads(symbol.tojson())["nodes"]
    names = [n["name"] for n in nodes]
    if len(names) != len(set(names)):
        repeated = sorted({n for n in names if names.count(n) > 1})
        warnings.warn("There are multiple variables with the same name in your graph, this may result in "
                      "cyclic graph. Repeated names: " + ",".join(repeated), RuntimeWarning, stacklevel=2)
    base = {"shape": "box", "fixedsize": "true", "width": "1.3", "height": "0.8034", "style": "filled"}
    base.update(node_attrs or {})
    dot = Digraph(name=title, format=save_format)
    hidden = set()
    for node in nodes:
        attr = copy.deepcopy(base)
        if node["op"] == "null":
            if node["name"].endswith(_WEIGHT_SUFFIXES):
                if hide_weights:
                    hidden.add(node["name"])
                continue
            attr["shape"] = "oval"
            label, attr["fillcolor"] = node["name"], _COLOURS[0]
        else:
            label, attr["fillcolor"] = _node_look(node)
        dot.node(name=node["name"], label=label, **attr)
    for node in nodes:
        if node["op"] == "null":
            continue
        inputs = node["inputs"][:1] if node["op"] == "_contrib_BilinearResize2D" else node["inputs"]
        for item in inputs:
            source = nodes[item[0]]
            if source["name"] in hidden:
                continue
            attr = {"dir": "back", "arrowtail": "open", "label": ""}
            key = source["name"]
            if source["op"] != "null":
                key += "_output"
                if "num_outputs" in source.get("attrs", {}):
                    key += str(int(source["attrs"]["num_outputs"]) - 1)
            if shapes is not None:
                attr["label"] = "x".join(str(x) for x in shapes[key][1:])
            if types is not None:
                attr["label"] += "(" + types[key].__name__ + ")"
            dot.edge(tail_name=node["name"], head_name=source["name"], **attr)
    return dot
