"""Shape and type inference of a symbol: MXNet's ``infer_shape``/``infer_type``.

Nodes are visited in graph order. A variable's shape is what the caller gives, else its ``__shape__``
attribute; an operator whose inputs include variables of unknown shape fills them from its data input
and attributes (a ``FullyConnected`` weight is ``(num_hidden, in_units)``, BatchNorm's statistics are
``(channels,)``, ``SoftmaxOutput``'s label is the batch, ...); then the operator runs abstractly
(``jax.eval_shape``: nothing is computed) to give its outputs' shapes and types.

>>> from framework import symbol as sym
>>> net = sym.Convolution(sym.var('data'), kernel=(3, 3), num_filter=4, name='c')
>>> net.infer_shape(data=(2, 3, 8, 8))
([(2, 3, 8, 8), (4, 3, 3, 3), (4,)], [(2, 4, 6, 6)], [])
>>> net.infer_shape_partial()
([(), (), ()], [()], [])
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from ._attrs import Attrs, parse_tuple
from ._custom import custom_input_shapes
from ._node import Entry, SymNode, node_outputs, topo_order
from ._registry import OPS, Call, LazyZeros

__all__ = ["infer", "InferenceResult", "declared_shape", "declared_dtype", "DTYPE_OF_FLAG"]

DTYPE_OF_FLAG = {"0": "float32", "1": "float64", "2": "float16", "3": "uint8", "4": "int32", "5": "int8",
                 "6": "int64", "7": "bool", "8": "int16", "9": "uint16", "10": "uint32", "11": "uint64",
                 "12": "bfloat16"}
Shape = tuple[int, ...]


def declared_shape(node: SymNode) -> Shape | None:
    """A variable's ``__shape__`` attribute when fully known (no 0 or -1 dimension)."""
    text = node.attrs.get("__shape__")
    if not text:
        return None
    try:
        shape = parse_tuple(text, lambda: ValueError(text))
    except ValueError:
        return None
    if any(s is None or s <= 0 for s in shape):
        return None
    return tuple(shape)


def declared_dtype(node: SymNode) -> str | None:
    """A variable's ``__dtype__`` attribute as a NumPy dtype name."""
    flag = node.attrs.get("__dtype__")
    return DTYPE_OF_FLAG.get(flag.strip()) if flag else None


# ------------------------------------------------------------------------- shapes of parameters
def _rnn_size(a: Attrs, input_size: int) -> int:
    gates = {"lstm": 4, "gru": 3}.get(a.str("mode"), 1)
    h, layers = a.int("state_size"), a.int("num_layers")
    dirs = 2 if a.bool("bidirectional") else 1
    first = gates * h * (input_size + h + 2)
    rest = gates * h * (dirs * h + h + 2)
    return dirs * (first + (layers - 1) * rest)


def _channel_axis(a: Attrs, ndim: int) -> int:
    layout = a.str("layout", "None")
    return ndim - 1 if layout not in ("None", "") and layout.endswith("C") else 1


def param_shapes(op: str, a: Attrs, data: Shape) -> dict[str, Shape]:
    """Shapes of an operator's parameter inputs (by MXNet input name) for a data input of shape ``data``."""
    nd = len(data)
    if op in ("FullyConnected",):
        units = math.prod(data[1:]) if a.bool("flatten", True) else data[-1]
        return {"weight": (a.int("num_hidden"), units), "bias": (a.int("num_hidden"),)}
    if op in ("Convolution", "Convolution_v1", "_contrib_DeformableConvolution",
              "_contrib_ModulatedDeformableConvolution"):
        c = data[_channel_axis(a, nd)]
        f = a.int("num_filter")
        return {"weight": (f, c // a.int("num_group", 1), *a.shape("kernel")), "bias": (f,)}
    if op == "Deconvolution":
        c = data[_channel_axis(a, nd)]
        f = a.int("num_filter")
        return {"weight": (c, f // a.int("num_group", 1), *a.shape("kernel")), "bias": (f,)}
    if op in ("BatchNorm", "BatchNorm_v1", "CuDNNBatchNorm", "_contrib_SyncBatchNorm",
              "_contrib_BatchNormWithReLU"):
        c = (data[a.int("axis", 1) % nd],)
        return {"gamma": c, "beta": c, "moving_mean": c, "moving_var": c}
    if op == "LayerNorm":
        c = (data[a.int("axis", -1) % nd],)
        return {"gamma": c, "beta": c}
    if op == "GroupNorm":
        return {"gamma": (a.int("num_groups", 1),), "beta": (a.int("num_groups", 1),)}
    if op == "InstanceNorm":
        return {"gamma": (data[1],), "beta": (data[1],)}
    if op == "LeakyReLU":
        return {"gamma": (data[1] if nd > 1 else 1,)}
    if op == "Embedding":
        return {"weight": (a.int("input_dim"), a.int("output_dim"))}
    if op == "RNN":
        dirs = 2 if a.bool("bidirectional") else 1
        state = (a.int("num_layers") * dirs, data[1], a.int("state_size"))
        return {"parameters": (_rnn_size(a, data[2]),), "state": state, "state_cell": state,
                "sequence_length": (data[1],)}
    if op in ("SoftmaxOutput", "Softmax"):
        if a.bool("multi_output"):
            return {"label": (data[0], *data[2:])}
        return {"label": data[:-1]}
    if op in ("LinearRegressionOutput", "LogisticRegressionOutput", "MAERegressionOutput"):
        return {"label": (data[0],) if nd == 2 and data[1] == 1 else data}
    if op in ("SVMOutput", "softmax_cross_entropy"):
        return {"label": (data[0],)}
    if op == "UpSampling" and a.str("sample_type", "") == "bilinear":
        s = a.int("scale")
        k = 2 * s - s % 2
        return {"weight": (a.int("num_filter", 0) or data[1], 1, k, k)}
    if op in ("SequenceMask", "SequenceLast", "SequenceReverse"):
        return {"sequence_length": (data[1 - a.int("axis", 0)],)}
    return {}


_SAME_SHAPE = {"elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div", "_grad_add", "add_n",
               "ElementWiseSum", "_maximum", "_minimum", "_power", "_mod", "_hypot", "_equal", "_not_equal",
               "_greater", "_greater_equal", "_lesser", "_lesser_equal", "_logical_and", "_logical_or",
               "_logical_xor", "where"}


# ------------------------------------------------------------------------- the walk
class InferenceResult:
    """Shapes and dtypes of every variable (by name) and of each head (None where unknown)."""

    def __init__(self) -> None:
        self.var_shapes: dict[str, Shape | None] = {}
        self.var_dtypes: dict[str, Any] = {}
        self.out_shapes: list[Shape | None] = []
        self.out_dtypes: list[Any] = []


def _struct(shape: Shape, dtype: Any) -> jax.ShapeDtypeStruct:
    return jax.ShapeDtypeStruct(shape, jnp.dtype(dtype))


def _abstract_run(node: SymNode, structs: list[Any]) -> list[Any]:
    spec = OPS.get(node.op)
    if spec is None:
        raise ValueError(f"node {node.name!r} uses operator {node.op!r}, which the interpreter does not run")
    a = Attrs(node.attrs, node.name, node.op)

    def run(key: Any, *xs: Any) -> Any:
        out = spec.fn(Call(False, key), list(xs), a)
        return tuple(out) if isinstance(out, (tuple, list)) else (out,)

    lazy = [i for i, s in enumerate(structs) if isinstance(s, LazyZeros)]
    if lazy:  # a zeros array of unknown size (RNN's begin state): only the RNN reads it
        def run_lazy(key: Any, *xs: Any) -> Any:
            full = list(xs)
            for i in lazy:
                full.insert(i, structs[i])
            return run(key, *full)
        return list(jax.eval_shape(run_lazy, jax.random.key(0),
                                   *[s for i, s in enumerate(structs) if i not in lazy]))
    if not structs and node.op in ("_zeros", "_ones", "_full"):
        out = spec.fn(Call(False, None), [], a)
        if isinstance(out, LazyZeros):
            return [out]
    return list(jax.eval_shape(run, jax.random.key(0), *structs))


def infer(heads: list[Entry], shapes: dict[str, Shape], dtypes: dict[str, Any],
          partial: bool) -> InferenceResult:
    """Infer what can be inferred; without ``partial`` a node that cannot run raises ``ValueError``
    naming it."""
    values: dict[tuple[int, int], Any] = {}  # (node id, output) -> ShapeDtypeStruct | LazyZeros | None
    res = InferenceResult()
    for node in topo_order(heads):
        if node.op == "null":
            shape = shapes.get(node.name) or declared_shape(node)
            dtype = dtypes.get(node.name) or declared_dtype(node)
            res.var_shapes[node.name] = tuple(shape) if shape is not None else None
            res.var_dtypes[node.name] = dtype
            values[(id(node), 0)] = None if shape is None else _struct(tuple(shape), dtype or "float32")
            continue
        a = Attrs(node.attrs, node.name, node.op)
        ins = [values.get((id(e.node), e.index)) for e in node.inputs]
        if any(v is None for v in ins):
            _fill(node, a, ins, values, res, dtypes)
            ins = [values.get((id(e.node), e.index)) for e in node.inputs]
        if any(v is None for v in ins):
            if not partial:
                missing = [e.node.name for e, v in zip(node.inputs, ins, strict=True) if v is None]
                raise _Incomplete(node, missing)
            continue
        try:
            outs = _abstract_run(node, ins)
        except Exception as err:  # noqa: BLE001  (any operator failure is named with its node)
            shown = ", ".join(f"{e.node.name}: {getattr(v, 'shape', '?')}" for e, v in
                              zip(node.inputs, ins, strict=True))
            raise ValueError(f"infer_shape: node {node.name!r} (op {node.op}) cannot take inputs ({shown}): "
                             f"{err}") from None
        for i in range(node_outputs(node)):
            values[(id(node), i)] = outs[i] if i < len(outs) else None
    for h in heads:
        v = values.get((id(h.node), h.index))
        res.out_shapes.append(tuple(v.shape) if v is not None and not isinstance(v, LazyZeros) else None)
        res.out_dtypes.append(onp.dtype(v.dtype) if v is not None and not isinstance(v, LazyZeros) else None)
    return res


class _Incomplete(ValueError):
    def __init__(self, node: SymNode, missing: list[str]) -> None:
        super().__init__(f"infer_shape: node {node.name!r} (op {node.op}) needs the shapes of {missing}; "
                         "give them (symbol.infer_shape(name=shape, ...)) or use infer_shape_partial")
        self.node = node


def _fill(node: SymNode, a: Attrs, ins: list[Any], values: dict, res: InferenceResult,
          dtypes: dict[str, Any]) -> None:
    """Give unknown variable inputs of ``node`` the shapes its operator implies."""
    from ._opfuncs import _present_inputs
    from ._signatures import SIGNATURES

    known = next((v for v in ins if v is not None and not isinstance(v, LazyZeros)), None)
    if known is None:
        return
    if node.op == "Custom":  # the user's CustomOpProp.infer_shape says
        given = [None if v is None or isinstance(v, LazyZeros) else tuple(v.shape) for v in ins]
        custom = custom_input_shapes(node.attrs, given)
    else:
        custom = []
    names: list[str] = []
    sig = SIGNATURES.get(node.op)
    if sig is not None and (not sig.var or sig.op == "UpSampling"):
        names = list(_present_inputs(sig, node.attrs))
    first = ins[0] if ins and ins[0] is not None and not isinstance(ins[0], LazyZeros) else None
    shapes = param_shapes(node.op, a, tuple(first.shape)) if first is not None else {}
    for pos, (e, v) in enumerate(zip(node.inputs, ins, strict=True)):
        if v is not None or e.node.op != "null":
            continue
        shape: Shape | None = None
        if pos < len(custom) and custom[pos] is not None:
            shape = custom[pos]
        elif pos < len(names) and names[pos] in shapes:
            shape = tuple(shapes[names[pos]])
        elif node.op in _SAME_SHAPE:
            shape = tuple(known.shape)
        if shape is None:
            continue
        dtype = res.var_dtypes.get(e.node.name) or onp.dtype(known.dtype).name
        res.var_shapes[e.node.name] = shape
        res.var_dtypes.setdefault(e.node.name, dtype)
        if res.var_dtypes[e.node.name] is None:
            res.var_dtypes[e.node.name] = dtype
        values[(id(e.node), 0)] = _struct(shape, res.var_dtypes[e.node.name] or "float32")


# ------------------------------------------------------------------------- the Symbol methods
def _given(symbol: Any, args: tuple, kwargs: dict, what: str, convert: Callable[[Any], Any]) -> dict:
    names = symbol.list_arguments()
    out: dict[str, Any] = {}
    if args:
        if kwargs:
            raise ValueError(f"{what}: give the arguments either by position or by name, not both")
        if len(args) > len(names):
            raise ValueError(f"{what}: {len(args)} positional values for {len(names)} arguments {names}")
        out = {n: convert(v) for n, v in zip(names, args, strict=False) if v is not None}
    else:
        inputs = set(symbol.list_inputs())
        for k, v in kwargs.items():
            if k not in inputs:
                raise ValueError(f"{what}: {k!r} is not an input of the symbol; its inputs are "
                                 f"{symbol.list_inputs()}")
            if v is not None:
                out[k] = convert(v)
    return out


def _shape_of(v: Any) -> Shape:
    if isinstance(v, int):
        return (v,)
    return tuple(int(d) for d in v)


def infer_shape(symbol: Any, args: tuple, kwargs: dict, partial: bool) -> tuple:
    shapes = _given(symbol, args, kwargs, "infer_shape", _shape_of)
    shapes = {k: v for k, v in shapes.items() if all(d > 0 for d in v) or not partial}
    try:
        r = infer(symbol._heads, shapes, {}, partial)
    except _Incomplete as err:
        warnings.warn(f"Cannot decide shape for the following arguments: {err}", stacklevel=3)
        return None, None, None
    unknown: Shape = ()
    arg = [r.var_shapes.get(n) or unknown for n in symbol.list_arguments()]
    aux = [r.var_shapes.get(n) or unknown for n in symbol.list_auxiliary_states()]
    out = [s or unknown for s in r.out_shapes]
    return arg, out, aux


_DTYPE_ATTR_OPS = {"Cast", "amp_cast", "_zeros", "_ones", "_full", "_arange", "_linspace", "_eye", "one_hot",
                   "_random_uniform", "_random_normal"}


def infer_type(symbol: Any, args: tuple, kwargs: dict, partial: bool) -> tuple:
    """MXNet's type inference: given and declared (``__dtype__``) types flow forward; an operator's
    unknown variable inputs take its first known input's type; its outputs are its first input's type
    (``Cast`` and the array makers: their ``dtype``; ``shape_array``/``size_array``: int64)."""
    given = _given(symbol, args, kwargs, "infer_type", lambda v: onp.dtype(v).name)
    types: dict[tuple[int, int], str | None] = {}
    var_types: dict[str, str | None] = {}
    for node in topo_order(symbol._heads):
        if node.op == "null":
            t = given.get(node.name) or declared_dtype(node)
            var_types[node.name] = t
            types[(id(node), 0)] = t
            continue
        ins = [types.get((id(e.node), e.index)) for e in node.inputs]
        first = next((t for t in ins if t), None)
        for e, t in zip(node.inputs, ins, strict=True):
            if t is None and e.node.op == "null" and first is not None:
                var_types[e.node.name] = types[(id(e.node), 0)] = first
        a = Attrs(node.attrs, node.name, node.op)
        if node.op in _DTYPE_ATTR_OPS:
            out = a.str("dtype", "float32")
            out = "float32" if out == "None" else out
        elif node.op in ("shape_array", "size_array"):
            out = "int64"
        else:
            out = first
        for i in range(node_outputs(node)):
            types[(id(node), i)] = out
    default = None if partial else "float32"

    def np_type(t: str | None) -> Any:
        t = t or default
        return None if t is None else onp.dtype(t).type

    arg = [np_type(var_types.get(n)) for n in symbol.list_arguments()]
    aux = [np_type(var_types.get(n)) for n in symbol.list_auxiliary_states()]
    out = [np_type(types.get((id(h.node), h.index))) for h in symbol._heads]
    return arg, out, aux
