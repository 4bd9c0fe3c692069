"""The operator table's contract, beside the registry: how many inputs each operator takes, and the type
and domain of every attribute it reads. :func:`check_node` applies it to one node of an imported graph
before anything runs; an error names the file, the node and the attribute.

Arity is per operator (:data:`ARITY`; a few depend on an attribute, such as ``no_bias``). Attribute
domains are by name (:data:`DOMAINS`: ``kernel`` is 1 to 3 positive ints wherever it appears), with
per-operator tables where a name means different things (:data:`OP_DOMAINS`: ``mode`` of ``RNN`` is one
of four cells, of ``Dropout`` ``training``/``always``). Attributes no operator reads (``workspace``,
``cudnn_tune``, ...) are ignored. What depends on the input shapes (an axis in range, sizes that
agree, how large the arrays become) is checked by the abstract run of :mod:`._interp`.

>>> try:
...     check_node("x.json", 3, "fc", "FullyConnected", {"num_hidden": "-4"}, 3)
... except AttrError as e:
...     print(e)
x.json: node 3 ('fc', op 'FullyConnected'): attribute num_hidden='-4' is not an integer from 1 to 268435456
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ._attrs import AttrError, parse_tuple
from ._graph import SymbolFileError
from ._ops_math import _BINARY, _SCALAR, _UNARY

__all__ = ["ARITY", "DOMAINS", "OP_DOMAINS", "Domain", "check_node", "arity_of"]

_BIG = 1 << 31  # the largest size or index an attribute may hold (MXNet's int32 dims)


@dataclass(frozen=True)
class Domain:
    """What an attribute's text must read as: ``what`` says it in words, ``ok`` decides."""

    what: str
    ok: Callable[[str], bool]


def _int_text(v: str) -> int | None:
    try:
        return int(v)
    except ValueError:
        pass
    try:
        f = float(v)
    except ValueError:
        return None
    return int(f) if math.isfinite(f) and f.is_integer() else None


def _int(lo: int, hi: int) -> Domain:
    def ok(v: str) -> bool:
        n = _int_text(v)
        return n is not None and lo <= n <= hi
    return Domain(f"an integer from {lo} to {hi}", ok)


def _float(lo: float = -math.inf, hi: float = math.inf, *, none: bool = False, nan: bool = False) -> Domain:
    def ok(v: str) -> bool:
        if none and v.strip() == "None":
            return True
        try:
            f = float(v)
        except ValueError:
            return False
        if math.isnan(f):
            return nan
        return lo <= f <= hi
    bound = "a number" if (lo, hi) == (-math.inf, math.inf) else f"a number from {lo} to {hi}"
    return Domain(bound + (" or None" if none else ""), ok)


def _bool() -> Domain:
    return Domain("a boolean (True/False/1/0)",
                  lambda v: v.strip().lower() in ("true", "false", "1", "0", "none"))


def _enum(*names: str) -> Domain:
    return Domain(f"one of {list(names)}", lambda v: v.strip() in names)


def _tuple(lo: int, hi: int, *, n_min: int = 0, n_max: int = 8, none: bool = False) -> Domain:
    def ok(v: str) -> bool:
        if v.strip() in ("None", ""):
            return none or n_min == 0
        try:
            t = parse_tuple(v, lambda: ValueError())
        except ValueError:
            return False
        return n_min <= len(t) <= n_max and all((x is None and none) or (x is not None and lo <= x <= hi)
                                                for x in t)
    return Domain(f"a tuple of {n_min} to {n_max} integers from {lo} to {hi}", ok)


def _axis() -> Domain:
    def ok(v: str) -> bool:
        s = v.strip()
        if s in ("None", "()", "[]", ""):
            return True
        try:
            t = parse_tuple(s, lambda: ValueError())
        except ValueError:
            return False
        return len(t) <= 32 and all(x is not None and -32 <= x < 32 for x in t)
    return Domain("an axis or a tuple of axes (integers from -32 to 31) or None", ok)


_DTYPES = ("float16", "float32", "float64", "bfloat16", "uint8", "int8", "int32", "int64", "bool", "None")
_LAYOUTS = ("None", "NCW", "NCHW", "NCDHW", "NWC", "NHWC", "NDHWC")

#: Attribute domains by name, for every operator that reads the name (unless OP_DOMAINS says otherwise).
DOMAINS: dict[str, Domain] = {
    "kernel": _tuple(1, 1 << 16, n_max=3),
    "stride": _tuple(1, 1 << 16, n_max=3), "dilate": _tuple(1, 1 << 16, n_max=3),
    "pad": _tuple(0, 1 << 16, n_max=3), "adj": _tuple(0, 1 << 16, n_max=3),
    "target_shape": _tuple(0, 1 << 20, n_max=8),
    "num_filter": _int(1, 1 << 24), "num_hidden": _int(1, 1 << 28), "num_group": _int(1, 1 << 24),
    "num_groups": _int(1, 1 << 24), "state_size": _int(1, 1 << 24), "num_layers": _int(1, 1024),
    "input_dim": _int(1, _BIG), "output_dim": _int(1, 1 << 24), "num_outputs": _int(1, 1 << 16),
    "sections": _int(0, 1 << 16), "num_args": _int(0, 1 << 16), "p_value": _int(1, 64),
    "ord": _int(1, 2), "repeats": _int(0, _BIG),
    "no_bias": _bool(), "flatten": _bool(), "global_pool": _bool(), "fix_gamma": _bool(),
    "use_global_stats": _bool(), "use_length": _bool(), "state_outputs": _bool(), "bidirectional": _bool(),
    "multi_output": _bool(), "preserve_shape": _bool(), "use_sequence_length": _bool(),
    "squeeze_axis": _bool(), "keepdims": _bool(), "exclude": _bool(), "transpose_a": _bool(),
    "transpose_b": _bool(), "reverse": _bool(), "output_mean_var": _bool(), "count_include_pad": _bool(),
    "eps": _float(0, 1e3), "momentum": _float(0, 1), "p": _float(0, 1),
    "slope": _float(-1e6, 1e6), "lower_bound": _float(-1e6, 1e6), "upper_bound": _float(-1e6, 1e6),
    "temperature": _float(1e-30, 1e30, none=True), "scalar": _float(nan=True),
    "value": _float(nan=True), "a_min": _float(none=True), "a_max": _float(none=True),
    "pool_type": _enum("max", "avg", "sum", "lp"),
    "pooling_convention": _enum("valid", "full", "same"),
    "layout": _enum(*_LAYOUTS), "dtype": _enum(*_DTYPES),
    "axis": _axis(), "axes": _tuple(-32, 31, n_max=32, none=True),
    "shape": _tuple(-6, _BIG, n_max=32, none=True), "newshape": _tuple(-6, _BIG, n_max=32, none=True),
    "reps": _tuple(0, _BIG, n_max=32), "indices": _tuple(0, _BIG, n_max=1 << 16, none=True),
    "begin": _tuple(-_BIG, _BIG, n_max=32, none=True), "end": _tuple(-_BIG, _BIG, n_max=32, none=True),
    "step": _tuple(-_BIG, _BIG, n_max=32, none=True),
}

_ACTIVATION = _enum("relu", "sigmoid", "tanh", "softrelu", "softsign", "log_sigmoid", "mish")
_LEAKY = _enum("leaky", "prelu", "elu", "selu", "gelu", "gelu_tanh", "rrelu")


def _same(names: tuple[str, ...], table: dict[str, Domain]) -> dict[str, dict[str, Domain]]:
    return {n: table for n in names}


#: Per-operator domains that differ from :data:`DOMAINS` (the same name meaning another thing).
OP_DOMAINS: dict[str, dict[str, Domain]] = {
    **_same(("Activation", "_npx_activation"), {"act_type": _ACTIVATION}),
    **_same(("LeakyReLU", "_npx_leaky_relu"), {"act_type": _LEAKY}),
    **_same(("RNN", "_npx_rnn"), {"mode": _enum("rnn_relu", "rnn_tanh", "lstm", "gru"),
                                  "p": _float(0, 1)}),
    **_same(("Dropout", "_npx_dropout"), {"mode": _enum("training", "always")}),
    "SoftmaxActivation": {"mode": _enum("instance", "channel")},
    **_same(("Reshape", "reshape"), {"shape": _tuple(-4, _BIG, n_max=32, none=True),
                                     "target_shape": _tuple(-4, _BIG, n_max=32, none=True)}),
    **_same(("slice_axis", "_npi_slice_axis"), {"axis": _int(-32, 31),
                                                "begin": _tuple(-_BIG, _BIG, n_max=1, none=True),
                                                "end": _tuple(-_BIG, _BIG, n_max=1, none=True)}),
    **_same(("take", "_npi_take"), {"mode": _enum("clip", "wrap", "raise")}),
    **_same(("_zeros", "_npi_zeros", "_ones", "_npi_ones", "_full", "_npi_full"),
            {"shape": _tuple(0, _BIG, n_max=32, none=True)}),
    **_same(("Cast", "cast", "amp_cast", "_npi_cast", "_npx_cast"),
            {"dtype": _enum(*[d for d in _DTYPES if d != "None"])}),
}


# ---------------------------------------------------------------- arity
def _bias(default_no_bias: bool) -> Callable[[dict[str, str]], tuple[int, int]]:
    def arity(attrs: dict[str, str]) -> tuple[int, int]:
        raw = attrs.get("no_bias", str(default_no_bias)).strip().lower()
        n = 2 if raw in ("true", "1") else 3
        return n, n
    return arity


def _rnn_arity(attrs: dict[str, str]) -> tuple[int, int]:
    n = 4 if attrs.get("mode", "").strip() == "lstm" else 3
    return n, n


def _prelu_arity(attrs: dict[str, str]) -> tuple[int, int]:
    return (2, 2) if attrs.get("act_type", "leaky").strip() == "prelu" else (1, 1)


def _length_arity(attrs: dict[str, str]) -> tuple[int, int]:
    return (2, 2) if attrs.get("use_length", "False").strip().lower() in ("true", "1") else (1, 1)


_VARIADIC = (1, 1 << 16)
_ONE = (1, 1)
ARITY: dict[str, tuple[int, int] | Callable[[dict[str, str]], tuple[int, int]]] = {}
for _name in _UNARY:
    _np = {"abs": "absolute"}.get(_name, _name)
    for _n in (_name, f"_npi_{_np}", f"_np_{_np}", f"_npx_{_name}"):
        ARITY[_n] = _ONE
for _fn, _names in _BINARY.values():
    ARITY.update(dict.fromkeys(_names, (2, 2)))
for _names in _SCALAR:
    ARITY.update(dict.fromkeys(_names, _ONE))
ARITY.update(dict.fromkeys((
    "_copy", "identity", "_np_copy", "_npi_copy", "BlockGrad", "stop_gradient", "make_loss", "MakeLoss",
    "amp_cast", "Cast", "cast", "_npi_cast", "_npx_cast", "zeros_like", "_npi_zeros_like", "ones_like",
    "_npi_ones_like", "clip", "_npi_clip", "sum", "sum_axis", "_np_sum", "_npi_sum", "mean", "_npi_mean",
    "_np_mean", "max", "max_axis", "_np_max", "_npi_max", "min", "min_axis", "_np_min", "_npi_min", "prod",
    "_np_prod", "_npi_prod", "nansum", "norm", "_npi_norm", "argmax", "_npi_argmax", "Reshape", "reshape",
    "_np_reshape", "_npi_reshape", "_npx_reshape", "Flatten", "flatten", "_npx_batch_flatten", "transpose",
    "_np_transpose", "_npi_transpose", "expand_dims", "_npi_expand_dims", "_np_expand_dims", "squeeze",
    "_np_squeeze", "_npi_squeeze", "SwapAxis", "swapaxes", "_npi_swapaxes", "_np_swapaxes", "repeat",
    "_npi_repeat", "_np_repeat", "broadcast_to", "_npi_broadcast_to", "_np_broadcast_to", "tile", "_npi_tile",
    "_np_tile", "SliceChannel", "split", "_split_v2", "_npi_split", "slice_axis", "_npi_slice_axis", "slice",
    "crop", "_npi_slice", "Activation", "_npx_activation", "Pooling", "_npx_pooling", "Pooling_v1",
    "Dropout", "_npx_dropout", "SoftmaxActivation"), _ONE))
ARITY.update(dict.fromkeys(("_zeros", "_npi_zeros", "_ones", "_npi_ones", "_full", "_npi_full"), (0, 0)))
ARITY.update(dict.fromkeys(("add_n", "ElementWiseSum", "_npi_add_n", "amp_multicast", "Concat", "concat",
                            "_npi_concatenate", "_np_concatenate", "stack", "_npi_stack",
                            "_rnn_param_concat"), _VARIADIC))
ARITY.update(dict.fromkeys(("broadcast_like", "dot", "_np_dot", "_npi_dot", "batch_dot", "_npx_batch_dot",
                            "take", "_npi_take", "_npi_matmul", "_np_matmul", "Embedding",
                            "_npx_embedding"), (2, 2)))
ARITY.update(dict.fromkeys(("where", "_npi_where", "LayerNorm", "_npx_layer_norm", "GroupNorm",
                            "_npx_group_norm", "InstanceNorm", "_npx_instance_norm"), (3, 3)))
ARITY.update(dict.fromkeys(("BatchNorm", "_npx_batch_norm", "BatchNorm_v1", "CuDNNBatchNorm",
                            "_contrib_SyncBatchNorm"), (5, 5)))
ARITY.update(dict.fromkeys(("Convolution", "_npx_convolution", "Convolution_v1", "FullyConnected",
                            "_npx_fully_connected"), _bias(False)))
ARITY.update(dict.fromkeys(("Deconvolution", "_npx_deconvolution"), _bias(True)))
ARITY.update(dict.fromkeys(("RNN", "_npx_rnn"), _rnn_arity))
ARITY.update(dict.fromkeys(("LeakyReLU", "_npx_leaky_relu"), _prelu_arity))
ARITY.update(dict.fromkeys(("softmax", "_npx_softmax", "log_softmax", "_npx_log_softmax"), _length_arity))
ARITY.update(dict.fromkeys(("SoftmaxOutput", "Softmax"), (1, 2)))  # (data[, label])


def _custom_arity(attrs: dict[str, str]) -> tuple[int, int]:
    """A user operator takes its registered arguments and auxiliary states."""
    from ._custom import prop_of

    prop = prop_of(attrs)
    n = len(prop.list_arguments()) + len(prop.list_auxiliary_states())
    return n, n


ARITY["Custom"] = _custom_arity


def _counted(getter: str) -> Callable[[dict[str, str]], tuple[int, int]]:
    """The arity of a oneDNN fused operator: what its subgraph fuses (``_ops_mkldnn.<getter>``)."""
    def arity(attrs: dict[str, str]) -> tuple[int, int]:
        from . import _ops_mkldnn

        n = getattr(_ops_mkldnn, getter)(attrs)
        return n, n
    return arity


def _quantized_concat_arity(attrs: dict[str, str]) -> tuple[int, int]:
    """``num_args`` arrays, then a min and a max for each."""
    n = _int_text(attrs.get("num_args", ""))
    return (3 * n, 3 * n) if n is not None and n > 0 else (3, 3 << 16)


ARITY["_sg_mkldnn_conv"] = _counted("input_count")
ARITY["_sg_mkldnn_fully_connected"] = _counted("fc_input_count")
ARITY["_contrib_quantized_concat"] = _quantized_concat_arity
ARITY.update({"_contrib_quantize_v2": (1, 1), "_contrib_quantize": (3, 3), "_contrib_dequantize": (3, 3),
              "_contrib_requantize": (3, 3), "_contrib_quantized_pooling": (3, 3),
              "_contrib_quantized_flatten": (3, 3), "_contrib_quantized_act": (3, 3)})


def arity_of(op: str, attrs: dict[str, str]) -> tuple[int, int]:
    """``(fewest, most)`` inputs of ``op`` with these attributes."""
    spec = ARITY[op]
    return spec(attrs) if callable(spec) else spec


def _domain(op: str, key: str) -> Domain | None:
    table = OP_DOMAINS.get(op)
    if table is not None and key in table:
        return table[key]
    return DOMAINS.get(key)


def check_node(source: str, nid: int, name: str, op: str, attrs: dict[str, Any], n_inputs: int) -> None:
    """Arity and every known attribute of one node: raises SymbolFileError / AttrError naming them."""
    where = f"{source}: node {nid} ({name!r}, op {op!r})"
    lo, hi = arity_of(op, attrs)
    if not lo <= n_inputs <= hi:
        want = str(lo) if lo == hi else f"{lo} to {hi}"
        raise SymbolFileError(f"{where} has {n_inputs} input(s); {op} takes {want}. The graph was changed "
                              "or written by another program: export it again.")
    for key, value in attrs.items():
        if key.startswith("__"):
            continue
        dom = _domain(op, key)
        if dom is None:
            continue
        if not isinstance(value, str) or len(value) > 1 << 16 or not dom.ok(value):
            raise AttrError(f"{where}: attribute {key}={str(value)[:80]!r} is not {dom.what}")
    if op in ("amp_multicast",) and "num_outputs" in attrs and _int_text(attrs["num_outputs"]) != n_inputs:
        raise AttrError(f"{where}: attribute num_outputs={attrs['num_outputs']!r} differs from its "
                        f"{n_inputs} input(s)")
    if "num_args" in attrs and hi > lo and _int_text(str(attrs["num_args"])) != n_inputs:
        raise AttrError(f"{where}: attribute num_args={attrs['num_args']!r} differs from its {n_inputs} "
                        "input(s)")


# ---------------------------------------------------------------- operators added with the symbolic API
def _symbolic_arity() -> dict[str, tuple[int, int]]:
    """Arity of the operators registered by ``_ops_nd``/``_ops_loss`` (MXNet's input lists: optional
    inputs make the lower bound 1)."""
    from ._ops import OPS
    from ._signatures import SIGNATURES

    out: dict[str, tuple[int, int]] = {}
    for sig in SIGNATURES.values():
        if sig.op in ARITY or sig.op not in OPS:
            continue
        if sig.var:
            out[sig.op] = (0, 1 << 16)
        else:
            out[sig.op] = (min(1, len(sig.inputs)), len(sig.inputs))
    return out


ARITY.update(_symbolic_arity())
