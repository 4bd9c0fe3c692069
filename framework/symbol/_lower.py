"""JAX primitives -> MXNet operators, one function per primitive (used by ``_export``).

A lowering gets the emitter, the jaxpr equation and its inputs: :class:`Value` (a graph entry with the
shape it has in the MXNet graph: an operand of an element-wise operator may stay un-broadcast, MXNet's
``broadcast_*`` operators broadcast it) or a NumPy array (a constant).

>>> 'conv_general_dilated' in LOWER and 'dot_general' in LOWER
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as onp

from ._graph import Graph, Node

__all__ = ["LOWER", "Emitter", "Value", "ExportError"]


class ExportError(ValueError):
    """The traced program holds something with no MXNet counterpart here."""


@dataclass(frozen=True)
class Value:
    entry: tuple[int, int]
    shape: tuple[int, ...]


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, (tuple, list)):
        return "(" + ", ".join(str(int(x)) for x in v) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, float):
        return repr(v)
    return str(v)


class Emitter:
    """Collects graph nodes; names each operator node ``<op><k>`` and each constant ``_const<k>``."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self.constants: dict[str, onp.ndarray] = {}
        self._count: dict[str, int] = {}
        self._vars: dict[str, tuple[int, int]] = {}

    def variable(self, name: str) -> tuple[int, int]:
        if name not in self._vars:
            self.nodes.append(Node("null", name))
            self._vars[name] = (len(self.nodes) - 1, 0)
        return self._vars[name]

    def op(self, op: str, inputs: list[tuple[int, int]], attrs: dict[str, Any] | None = None,
           outputs: int = 1) -> list[tuple[int, int]] | tuple[int, int]:
        base = op.strip("_").lower()
        k = self._count.get(base, 0)
        self._count[base] = k + 1
        text = {a: _fmt(v) for a, v in (attrs or {}).items()}
        self.nodes.append(Node(op, f"{base}{k}", text, list(inputs)))
        nid = len(self.nodes) - 1
        return (nid, 0) if outputs == 1 else [(nid, i) for i in range(outputs)]

    def value(self, x: Any, where: str = "") -> Value:
        if isinstance(x, Value):
            return x
        arr = onp.asarray(x)
        name = f"_const{len(self.constants)}"
        self.constants[name] = arr.astype(onp.float32) if arr.dtype == onp.float64 else arr
        return Value(self.variable(name), tuple(arr.shape))

    def full(self, x: Any, shape: tuple[int, ...]) -> tuple[int, int]:
        """``x`` (a Value or constant) as an entry of exactly ``shape`` (a 0-d shape is (1,) in MXNet 1.x's
        legacy operators, which cannot hold 0-d arrays)."""
        shape = tuple(shape) or (1,)
        if not isinstance(x, Value):
            arr = onp.broadcast_to(onp.asarray(x), shape)
            if arr.size and (arr == arr.flat[0]).all() and arr.ndim:
                dt = "float32" if arr.dtype in (onp.float64, onp.float32) else str(arr.dtype)
                return self.op("_full", [], {"shape": shape, "value": float(arr.flat[0]), "dtype": dt})
            x = self.value(onp.ascontiguousarray(arr))
        if (x.shape or (1,)) == shape:
            return x.entry
        entry = x.entry
        if len(x.shape) < len(shape):
            entry = self.op("Reshape", [entry], {"shape": (1,) * (len(shape) - len(x.shape)) + x.shape})
        return self.op("broadcast_to", [entry], {"shape": tuple(shape)})

    def _fold_bias(self, heads: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """``broadcast_add(Convolution/FullyConnected(no_bias), Reshape(bias))`` -> the operator with its
        bias (what MXNet's own layers export), when the product feeds only that addition."""
        uses: dict[int, int] = {}
        for n in self.nodes:
            for i, _ in n.inputs:
                uses[i] = uses.get(i, 0) + 1
        for i, _ in heads:
            uses[i] = uses.get(i, 0) + 1
        moved: dict[tuple[int, int], tuple[int, int]] = {}
        for k, n in enumerate(self.nodes):
            if n.op != "broadcast_add" or len(n.inputs) != 2:
                continue
            (p, pi), (b, _) = n.inputs
            prod, shaped = self.nodes[p], self.nodes[b]
            if prod.op not in ("Convolution", "FullyConnected") or prod.attrs.get("no_bias") != "True" \
                    or uses.get(p) != 1 or pi != 0 or shaped.op != "Reshape" or uses.get(b) != 1:
                continue
            src = shaped.inputs[0][0]
            while self.nodes[src].op == "Reshape" and uses.get(src) == 1:  # (C,) -> (C, 1, 1) -> (1, C, 1, 1)
                src = self.nodes[src].inputs[0][0]
            if self.nodes[src].op != "null":
                continue
            size = int(prod.attrs["num_filter" if prod.op == "Convolution" else "num_hidden"])
            dims = [int(v) for v in shaped.attrs["shape"].strip("()").split(",") if v.strip()]
            axis = 1 if prod.op == "Convolution" else len(dims) - 1
            if len(dims) < 2 or dims[axis] != size or any(d != 1 for j, d in enumerate(dims) if j != axis):
                continue
            prod.inputs = [*prod.inputs, (src, 0)]
            prod.attrs["no_bias"] = "False"
            moved[(k, 0)] = (p, 0)
        if not moved:
            return heads
        for n in self.nodes:
            n.inputs = [moved.get(e, e) for e in n.inputs]
        return [moved.get(h, h) for h in heads]

    def graph(self, heads: list[tuple[int, int]]) -> Graph:
        """The nodes the heads need, renumbered in order (unused parameters drop out)."""
        heads = self._fold_bias(heads)
        keep, stack = set(), [nid for nid, _ in heads]
        while stack:
            nid = stack.pop()
            if nid not in keep:
                keep.add(nid)
                stack.extend(i for i, _ in self.nodes[nid].inputs)
        order = sorted(keep)
        new = {old: k for k, old in enumerate(order)}
        nodes = [Node(self.nodes[o].op, self.nodes[o].name, self.nodes[o].attrs,
                      [(new[i], j) for i, j in self.nodes[o].inputs]) for o in order]
        args = [k for k, n in enumerate(nodes) if n.op == "null"]
        return Graph(nodes, [(new[i], j) for i, j in heads], args,
                     {"mxnet_version": ["int", 10901]})


def _shape(eqn, i=0) -> tuple[int, ...]:
    return tuple(eqn.outvars[i].aval.shape)


def _in_shape(eqn, i) -> tuple[int, ...]:
    return tuple(eqn.invars[i].aval.shape)


def _arg(em: Emitter, eqn, ins, i) -> tuple[int, int]:
    return em.full(ins[i], _in_shape(eqn, i))


def _is_scalar(x: Any) -> bool:
    return not isinstance(x, Value) and onp.asarray(x).size == 1


LOWER: dict[str, Any] = {}


def lowers(*names: str):
    def deco(fn):
        for n in names:
            LOWER[n] = fn
        return fn
    return deco


# ---------------------------------------------------------------- element-wise
_BINARY = {"add": ("broadcast_add", "_plus_scalar", "_plus_scalar"),
           "sub": ("broadcast_sub", "_minus_scalar", "_rminus_scalar"),
           "mul": ("broadcast_mul", "_mul_scalar", "_mul_scalar"),
           "div": ("broadcast_div", "_div_scalar", "_rdiv_scalar"),
           "max": ("broadcast_maximum", "_maximum_scalar", "_maximum_scalar"),
           "min": ("broadcast_minimum", "_minimum_scalar", "_minimum_scalar"),
           "pow": ("broadcast_power", "_power_scalar", "_rpower_scalar"),
           "gt": ("broadcast_greater", "_greater_scalar", "_lesser_scalar"),
           "lt": ("broadcast_lesser", "_lesser_scalar", "_greater_scalar"),
           "ge": ("broadcast_greater_equal", "_greater_equal_scalar", "_lesser_equal_scalar"),
           "le": ("broadcast_lesser_equal", "_lesser_equal_scalar", "_greater_equal_scalar"),
           "eq": ("broadcast_equal", "_equal_scalar", "_equal_scalar"),
           "ne": ("broadcast_not_equal", "_not_equal_scalar", "_not_equal_scalar")}


def _rank(em: Emitter, v: Value, ndim: int) -> Value:
    if len(v.shape) >= ndim:
        return v
    shape = (1,) * (ndim - len(v.shape)) + v.shape
    return Value(em.op("Reshape", [v.entry], {"shape": shape}), shape)


def _binary(name):
    tensor_op, scalar_op, rscalar_op = _BINARY[name]

    def lower(em: Emitter, eqn, ins):
        a, b = ins
        out = _shape(eqn)
        if isinstance(a, Value) and _is_scalar(b):
            s = float(onp.asarray(b).ravel()[0])
            if name == "max" and s == 0.0:
                return Value(em.op("Activation", [a.entry], {"act_type": "relu"}), a.shape)
            return Value(em.op(scalar_op, [a.entry], {"scalar": s}), a.shape)
        if isinstance(b, Value) and _is_scalar(a):
            return Value(em.op(rscalar_op, [b.entry], {"scalar": float(onp.asarray(a).ravel()[0])}), b.shape)
        a, b = em.value(a), em.value(b)
        a, b = _rank(em, a, len(out)), _rank(em, b, len(out))
        shape = tuple(max(x, y) for x, y in zip(a.shape, b.shape, strict=True))
        return Value(em.op(tensor_op, [a.entry, b.entry]), shape)
    return lower


for _n in _BINARY:
    LOWER[_n] = _binary(_n)

_UNARY = {"exp": "exp", "log": "log", "sqrt": "sqrt", "rsqrt": "rsqrt", "tanh": "tanh", "logistic": "sigmoid",
          "neg": "negative", "abs": "abs", "sign": "sign", "floor": "floor", "ceil": "ceil", "round": "round",
          "erf": "erf", "log1p": "log1p", "expm1": "expm1", "sin": "sin", "cos": "cos", "square": "square",
          "copy": "_copy", "copy_p": "_copy", "stop_gradient": "BlockGrad"}


def _unary(op):
    def lower(em: Emitter, eqn, ins):
        x = em.value(ins[0])
        return Value(em.op(op, [x.entry]), x.shape)
    return lower


for _n, _op in _UNARY.items():
    LOWER[_n] = _unary(_op)


@lowers("integer_pow")
def _integer_pow(em, eqn, ins):
    x, y = em.value(ins[0]), eqn.params["y"]
    if y == 2:
        return Value(em.op("square", [x.entry]), x.shape)
    return Value(em.op("_power_scalar", [x.entry], {"scalar": float(y)}), x.shape)


@lowers("clamp")
def _clamp(em, eqn, ins):
    lo, x, hi = ins
    if not (_is_scalar(lo) and _is_scalar(hi)):
        raise ExportError("export: clamp with array bounds has no MXNet operator (clip takes scalars)")
    x = em.value(x)
    return Value(em.op("clip", [x.entry], {"a_min": float(onp.asarray(lo).ravel()[0]),
                                            "a_max": float(onp.asarray(hi).ravel()[0])}), x.shape)


@lowers("convert_element_type")
def _convert(em, eqn, ins):
    x = em.value(ins[0])
    new = onp.dtype(eqn.params["new_dtype"])
    old = onp.dtype(eqn.invars[0].aval.dtype)
    if new == old:
        return x
    return Value(em.op("Cast", [x.entry], {"dtype": new.name}), x.shape)


@lowers("select_n")
def _select(em, eqn, ins):
    if len(ins) != 3:
        raise ExportError("export: select_n with more than two cases has no MXNet operator")
    out = _shape(eqn)
    cond, no, yes = (em.full(v, out) for v in ins)
    return Value(em.op("where", [cond, yes, no]), out)


# ---------------------------------------------------------------- shape
def _reshape_codes(old: tuple[int, ...], new: tuple[int, ...]) -> tuple[int, ...]:
    """Explicit sizes, keeping the batch dimension free (0 copies it, -1 infers the last one)."""
    codes = list(new)
    if len(new) >= 2 and len(old) >= 1 and new[0] == old[0] and math.prod(new[1:]) > 0:
        codes[0] = 0
        if len(new) >= 2:
            codes[-1] = -1
    return tuple(codes)


@lowers("reshape")
def _reshape(em, eqn, ins):
    old, new = _in_shape(eqn, 0) or (1,), _shape(eqn) or (1,)
    x = _arg(em, eqn, ins, 0)
    if old == new:
        return Value(x, new)
    return Value(em.op("Reshape", [x], {"shape": _reshape_codes(old, new)}), new)


@lowers("squeeze")
def _squeeze(em, eqn, ins):
    return _reshape(em, eqn, ins)


@lowers("expand_dims")
def _expand(em, eqn, ins):
    return _reshape(em, eqn, ins)


@lowers("broadcast_in_dim")
def _broadcast_in_dim(em, eqn, ins):
    out = _shape(eqn)
    dims = eqn.params["broadcast_dimensions"]
    x = em.value(ins[0])
    src = x.shape
    expanded = [1] * len(out)
    for i, d in enumerate(dims):
        expanded[d] = src[i]
    entry = x.entry
    if tuple(expanded) != src:
        entry = em.op("Reshape", [entry], {"shape": tuple(expanded)})
    return Value(entry, tuple(expanded))  # the broadcast itself is left to the consumer


@lowers("transpose")
def _transpose(em, eqn, ins):
    x = _arg(em, eqn, ins, 0)
    return Value(em.op("transpose", [x], {"axes": tuple(eqn.params["permutation"])}), _shape(eqn))


@lowers("concatenate")
def _concat(em, eqn, ins):
    xs = [_arg(em, eqn, ins, i) for i in range(len(ins))]
    return Value(em.op("Concat", xs, {"dim": eqn.params["dimension"], "num_args": len(xs)}), _shape(eqn))


@lowers("split")
def _split(em, eqn, ins):
    x = _arg(em, eqn, ins, 0)
    sizes = [int(s) for s in eqn.params["sizes"]]
    axis = eqn.params["axis"]
    if len(set(sizes)) == 1:
        entries = em.op("SliceChannel", [x], {"axis": axis, "num_outputs": len(sizes)}, outputs=len(sizes))
    else:
        idx = [0]
        for s in sizes[:-1]:
            idx.append(idx[-1] + s)
        entries = em.op("_split_v2", [x], {"axis": axis, "indices": tuple(idx), "sections": 0,
                                           "squeeze_axis": False}, outputs=len(sizes))
    entries = entries if isinstance(entries, list) else [entries]
    return [Value(e, _shape(eqn, k)) for k, e in enumerate(entries)]


@lowers("slice")
def _slice(em, eqn, ins):
    x = _arg(em, eqn, ins, 0)
    strides = eqn.params.get("strides") or (1,) * len(eqn.params["start_indices"])
    return Value(em.op("slice", [x], {"begin": tuple(eqn.params["start_indices"]),
                                      "end": tuple(eqn.params["limit_indices"]),
                                      "step": tuple(strides)}), _shape(eqn))


@lowers("gather")
def _gather(em, eqn, ins):
    """``jnp.take(a, i, axis=0)`` (Embedding): a gather of whole rows along axis 0 -> MXNet ``take``."""
    dn = eqn.params["dimension_numbers"]
    a_shape, i_shape = _in_shape(eqn, 0), _in_shape(eqn, 1)
    rows = (tuple(dn.collapsed_slice_dims) == (0,) and tuple(dn.start_index_map) == (0,)
            and not tuple(getattr(dn, "operand_batching_dims", ())) and i_shape and i_shape[-1] == 1
            and tuple(eqn.params["slice_sizes"]) == (1, *a_shape[1:])
            and tuple(dn.offset_dims) == tuple(range(len(i_shape) - 1, len(i_shape) + len(a_shape) - 2)))
    if not rows:
        raise ExportError(f"export: a gather with {dn} is not translated (only row lookups: jnp.take on "
                          "axis 0, as Embedding does)")
    a, idx = _arg(em, eqn, ins, 0), _arg(em, eqn, ins, 1)
    idx = em.op("Reshape", [idx], {"shape": i_shape[:-1] or (1,)})
    return Value(em.op("take", [a, idx], {"axis": 0, "mode": "clip"}), _shape(eqn))


# ---------------------------------------------------------------- reductions
def _reduction(op):
    def lower(em, eqn, ins):
        x = _arg(em, eqn, ins, 0)
        return Value(em.op(op, [x], {"axis": tuple(eqn.params["axes"]), "keepdims": False}), _shape(eqn))
    return lower


for _n, _op in {"reduce_sum": "sum", "reduce_max": "max", "reduce_min": "min", "reduce_prod": "prod"}.items():
    LOWER[_n] = _reduction(_op)


# ---------------------------------------------------------------- neural-network operators
def _symmetric(padding, where):
    pads = []
    for lo, hi in padding:
        if lo != hi:
            raise ExportError(f"export: {where} with asymmetric padding {tuple(padding)} has no MXNet "
                              "operator")
        pads.append(int(lo))
    return tuple(pads)


@lowers("conv_general_dilated")
def _conv(em, eqn, ins):
    p = eqn.params
    dn = p["dimension_numbers"]
    nd = len(_in_shape(eqn, 1)) - 2
    first = tuple(range(nd + 2))
    if tuple(dn.lhs_spec) != first or tuple(dn.rhs_spec) != first or tuple(dn.out_spec) != first:
        raise ExportError("export: only channel-first (NCW/NCHW/NCDHW) convolutions are translated")
    if any(d != 1 for d in p["lhs_dilation"]) or p.get("batch_group_count", 1) != 1:
        raise ExportError("export: transposed (lhs-dilated) convolutions are not translated")
    w_shape = _in_shape(eqn, 1)
    attrs = {"kernel": w_shape[2:], "stride": tuple(p["window_strides"]), "dilate": tuple(p["rhs_dilation"]),
             "pad": _symmetric(p["padding"], "a convolution"), "num_filter": w_shape[0],
             "num_group": p["feature_group_count"], "no_bias": True,
             "layout": {1: "NCW", 2: "NCHW", 3: "NCDHW"}[nd]}
    x, w = _arg(em, eqn, ins, 0), _arg(em, eqn, ins, 1)
    return Value(em.op("Convolution", [x, w], attrs), _shape(eqn))


@lowers("dot_general")
def _dot(em, eqn, ins):
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    ls, rs = _in_shape(eqn, 0), _in_shape(eqn, 1)
    lc, rc, lb, rb = tuple(lc), tuple(rc), tuple(lb), tuple(rb)
    x, w = _arg(em, eqn, ins, 0), _arg(em, eqn, ins, 1)
    out = _shape(eqn)
    if not lb and len(rs) == 2 and lc == (len(ls) - 1,) and rc == (1,):
        attrs = {"num_hidden": rs[0], "no_bias": True, "flatten": False}
        return Value(em.op("FullyConnected", [x, w], attrs), out)
    if not lb and lc == (len(ls) - 1,) and rc == (0,):
        return Value(em.op("dot", [x, w]), out)
    if not lb and len(ls) == 2 and lc == (0,) and rc == (0,):
        return Value(em.op("dot", [x, w], {"transpose_a": True}), out)
    if lb == (0,) and rb == (0,) and len(ls) == 3 and len(rs) == 3 and lc == (2,) and rc in ((1,), (2,)):
        attrs = {"transpose_b": True} if rc == (2,) else {}
        return Value(em.op("batch_dot", [x, w], attrs), out)
    raise ExportError(f"export: a dot_general with dimension numbers {eqn.params['dimension_numbers']} on "
                      f"shapes {ls} x {rs} is not translated")


def _pool(kind):
    def lower(em, eqn, ins):
        p = eqn.params
        shape = _in_shape(eqn, 0)
        nd = len(shape) - 2
        win, strides, padding = p["window_dimensions"], p["window_strides"], p["padding"]
        if any(d != 1 for d in p["base_dilation"]) or any(d != 1 for d in p["window_dilation"]):
            raise ExportError("export: dilated pooling windows have no MXNet Pooling counterpart")
        batch_axes = (tuple(win[:2]), tuple(strides[:2]), tuple(tuple(p) for p in padding[:2]))
        if batch_axes != ((1, 1), (1, 1), ((0, 0), (0, 0))) or nd not in (1, 2, 3):
            raise ExportError("export: only windows over the spatial axes of NC... data become Pooling")
        kernel, stride, pads = tuple(win[2:]), tuple(strides[2:]), tuple(padding[2:])
        out = _shape(eqn)
        convention = "valid"
        if any(lo != hi for lo, hi in pads):
            full = tuple(-(-(s + 2 * lo - k) // st) + 1
                         for s, (lo, _), k, st in zip(shape[2:], pads, kernel, stride, strict=True))
            if full != out[2:]:
                raise ExportError(f"export: pooling padding {pads} is neither symmetric nor MXNet's 'full' "
                                  "convention")
            convention = "full"
        attrs = {"kernel": kernel, "stride": stride, "pad": tuple(lo for lo, _ in pads), "pool_type": kind,
                 "pooling_convention": convention, "layout": {1: "NCW", 2: "NCHW", 3: "NCDHW"}[nd]}
        return Value(em.op("Pooling", [_arg(em, eqn, ins, 0)], attrs), out)
    return lower


LOWER["reduce_window_max"] = _pool("max")
LOWER["reduce_window_sum"] = _pool("sum")
