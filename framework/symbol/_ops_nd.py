"""Graph operators whose implementation is ``framework.nd``'s function of the same MXNet operator (one
implementation each): the node's inputs are passed in MXNet's input order, its attributes parsed from
MXNet's text (``"(1, 2)"``, ``"True"``, ``"0.5"``, ``"None"``) and passed as keyword arguments. An
attribute the function does not take (``workspace``, ``cudnn_off``: tuning hints) is dropped; hidden
outputs that MXNet counts (``LRN``'s ``tmp_norm``, ``sort``'s indices, ...) are filled with an empty
array so the graph's output numbering is MXNet's.

>>> from framework.symbol._ops import OPS
>>> 'topk' in OPS and '_contrib_box_nms' in OPS and '_linalg_gemm2' in OPS
True
>>> parse_value('(0.5, 0.25)'), parse_value('True'), parse_value('None'), parse_value('corner')
((0.5, 0.25), True, None, 'corner')
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from ._attrs import Attrs
from ._registry import OPS, OpSpec

__all__ = ["parse_value", "ND_OPS", "input_names_of"]


def _scalar(text: str) -> Any:
    t = text.strip()
    if t in ("True", "true"):
        return True
    if t in ("False", "false"):
        return False
    if t == "None":
        return None
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "'\"":
        return t[1:-1]
    try:
        return int(t[:-1] if t.endswith("L") else t)
    except ValueError:
        pass
    try:
        return float(t)
    except ValueError:
        return t


def parse_value(text: str) -> Any:
    """MXNet's attribute text as a Python value: tuples of numbers, booleans, None, numbers, strings."""
    t = text.strip()
    if t[:1] in "([" and t[-1:] in ")]":
        inner = t[1:-1].strip()
        if len(inner) > 1 << 16:
            raise ValueError(f"attribute text of {len(inner)} characters is too long")
        return tuple(_scalar(x) for x in inner.split(",") if x.strip())
    return _scalar(t)


def _nd(path: str) -> Callable[[], Callable]:
    def get() -> Callable:
        from .. import nd

        obj: Any = nd
        for part in path.split("."):
            obj = getattr(obj, part)
        return getattr(obj, "__wrapped__", obj)
    return get


@functools.cache
def input_names_of(op: str) -> tuple[str, ...]:
    """MXNet's input names of operator ``op`` (from the signature table)."""
    from ._signatures import SIGNATURES

    sig = SIGNATURES.get(op) or next((s for s in SIGNATURES.values() if s.op == op), None)
    return sig.inputs if sig is not None else ()


@functools.cache
def _params(fn: Callable) -> tuple[list[str], bool, bool]:
    sig = inspect.signature(fn)
    names, variadic, any_kw = [], False, False
    for p in sig.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            variadic = True
        elif p.kind is p.VAR_KEYWORD:
            any_kw = True
        else:
            names.append(p.name)
    return names, variadic, any_kw


def _adapter(getter: Callable[[], Callable], outputs: int | Callable[[Attrs], int], present: Any):
    def op(c, xs, a: Attrs):
        fn = getter()
        names, variadic, any_kw = _params(fn)
        kwargs = {k: parse_value(v) for k, v in a.raw.items()}
        if variadic:
            args, call_kw = list(xs), {}
        else:
            mx_inputs = list(present(a)) if present is not None else list(input_names_of(a.op))[:len(xs)]
            order = list(input_names_of(a.op))
            call_kw = {}
            args = []
            for name, x in zip(mx_inputs, xs, strict=False):
                pos = order.index(name) if name in order else len(call_kw)
                call_kw[names[pos]] = x
            for n in call_kw:
                kwargs.pop(n, None)
        if not any_kw:
            kwargs = {k: v for k, v in kwargs.items() if k in names}
        out = fn(*args, **call_kw, **kwargs)
        outs = tuple(out) if isinstance(out, (list, tuple)) else (out,)
        want = outputs(a) if callable(outputs) else outputs
        if len(outs) < want:  # MXNet's hidden outputs (workspaces, temporaries): nobody reads them
            outs = outs + tuple(jnp.zeros((0,), outs[0].dtype) for _ in range(want - len(outs)))
        return outs if want > 1 else outs[0]
    return op


def _topk_outputs(a: Attrs) -> int:
    return 2 if a.str("ret_typ", "indices") == "both" else 1


def _with(flag: str, *names: str) -> Callable[[Attrs], tuple[str, ...]]:
    """Inputs present: the first name always, the others only when attribute ``flag`` is true."""
    def present(a: Attrs) -> tuple[str, ...]:
        return names if a.bool(flag) else names[:1]
    return present


def _ctc_present(a: Attrs) -> tuple[str, ...]:
    return ("data", "label") + (("data_lengths",) if a.bool("use_data_lengths") else ()) + \
        (("label_lengths",) if a.bool("use_label_lengths") else ())


def _deform_present(*names: str) -> Callable[[Attrs], tuple[str, ...]]:
    def present(a: Attrs) -> tuple[str, ...]:
        return names[:-1] if a.bool("no_bias") else names
    return present


#: MXNet operator name -> (nd function path, number of outputs, inputs present or None (all given))
ND_OPS: dict[str, tuple[str, Any, Any]] = {
    **{n: (n, 1, None) for n in ("rcbrt", "erfinv", "gamma", "gammaln", "arcsin", "arccos", "arcsinh",
                                 "arccosh", "arctanh", "degrees", "radians", "hard_sigmoid", "smooth_l1",
                                 "khatri_rao", "pick", "one_hot", "slice_like", "batch_take", "gather_nd",
                                 "scatter_nd", "diag", "softmax_cross_entropy", "UpSampling", "argmin",
                                 "argmax_channel", "nanprod", "reshape_like", "reverse", "broadcast_axis",
                                 "depth_to_space", "space_to_depth", "Pad", "shape_array", "size_array",
                                 "argsort", "Crop", "im2col", "col2im", "SVMOutput",
                                 "broadcast_logical_and", "broadcast_logical_or", "broadcast_logical_xor")},
    "softmin": ("softmin", 1, None),
    "_logical_and": ("logical_and", 1, None), "_logical_or": ("logical_or", 1, None),
    "_logical_xor": ("logical_xor", 1, None),
    "_ravel_multi_index": ("ravel_multi_index", 1, None), "_unravel_index": ("unravel_index", 1, None),
    "_np_cumsum": ("cumsum", 1, None),
    "moments": ("moments", 2, None), "topk": ("topk", _topk_outputs, None), "sort": ("sort", 2, None),
    "L2Normalization": ("L2Normalization", 2, None), "LRN": ("LRN", 2, None),
    "ROIPooling": ("ROIPooling", 2, None), "GridGenerator": ("GridGenerator", 2, None),
    "BilinearSampler": ("BilinearSampler", 2, None), "SpatialTransformer": ("SpatialTransformer", 3, None),
    "Correlation": ("Correlation", 3, None), "CTCLoss": ("CTCLoss", 2, _ctc_present),
    "SequenceMask": ("SequenceMask", 1, _with("use_sequence_length", "data", "sequence_length")),
    "SequenceLast": ("SequenceLast", 1, _with("use_sequence_length", "data", "sequence_length")),
    "SequenceReverse": ("SequenceReverse", 1, _with("use_sequence_length", "data", "sequence_length")),
    "_arange": ("arange", 1, None), "_linspace": ("linspace", 1, None), "_eye": ("eye", 1, None),
    **{f"_linalg_{n}": (f"linalg.{n}", 1, None)
       for n in ("gemm", "gemm2", "potrf", "potri", "trsm", "trmm", "syrk", "sumlogdiag", "extractdiag",
                 "makediag", "inverse", "extracttrian", "maketrian")},
    "_linalg_det": ("linalg.det", 3, None), "_linalg_slogdet": ("linalg.slogdet", 4, None),
    "_linalg_gelqf": ("linalg.gelqf", 2, None), "_linalg_syevd": ("linalg.syevd", 2, None),
    "_contrib_box_nms": ("contrib.box_nms", 2, None),
    "_contrib_box_iou": ("contrib.box_iou", 1, None), "_contrib_box_encode": ("contrib.box_encode", 2, None),
    "_contrib_box_decode": ("contrib.box_decode", 1, None),
    "_contrib_bipartite_matching": ("contrib.bipartite_matching", 2, None),
    "_contrib_MultiBoxPrior": ("contrib.MultiBoxPrior", 1, None),
    "_contrib_MultiBoxDetection": ("contrib.MultiBoxDetection", 1, None),
    "_contrib_MultiBoxTarget": ("contrib.MultiBoxTarget", 3, None),
    "_contrib_ROIAlign": ("contrib.ROIAlign", 1, None),
    "_contrib_BilinearResize2D": ("contrib.BilinearResize2D", 1, None),
    "_contrib_AdaptiveAvgPooling2D": ("contrib.AdaptiveAvgPooling2D", 1, None),
    "_contrib_DeformableConvolution": ("contrib.DeformableConvolution", 1,
                                       _deform_present("data", "offset", "weight", "bias")),
    "_contrib_ModulatedDeformableConvolution": ("contrib.ModulatedDeformableConvolution", 1,
                                                _deform_present("data", "offset", "mask", "weight", "bias")),
    "_contrib_quantize_v2": ("contrib.quantize_v2", 3, lambda a: ("data",)),
    "_contrib_quantize": ("contrib.quantize", 3, lambda a: ("data", "min_range", "max_range")),
    "_contrib_dequantize": ("contrib.dequantize", 1, lambda a: ("data", "min_range", "max_range")),
    "_contrib_requantize": ("contrib.requantize", 3, lambda a: ("data", "min_range", "max_range")),
    **{f"_contrib_quantized_{n}": (f"contrib.quantized_{n}", 3, lambda a: ("data", "min_data", "max_data"))
       for n in ("pooling", "flatten", "act")},
    "_contrib_quantized_concat": ("contrib.quantized_concat", 3, None),
    "_contrib_arange_like": ("contrib.arange_like", 1, None),
    "_contrib_index_copy": ("contrib.index_copy", 1, None),
    "_contrib_index_array": ("contrib.index_array", 1, None),
    "_contrib_quadratic": ("contrib.quadratic", 1, None),
    "_contrib_div_sqrt_dim": ("contrib.div_sqrt_dim", 1, None),
    "_contrib_round_ste": ("contrib.round_ste", 1, None), "_contrib_sign_ste": ("contrib.sign_ste", 1, None),
    "_contrib_gradientmultiplier": ("contrib.gradientmultiplier", 1, None),
    "_contrib_allclose": ("contrib.allclose", 1, None),
    **{f"_contrib_interleaved_matmul_{n}": (f"contrib.interleaved_matmul_{n}", 1, None)
       for n in ("selfatt_qk", "selfatt_valatt", "encdec_qk", "encdec_valatt")},
}

for _name, (_path, _outputs, _present) in ND_OPS.items():
    OPS[_name] = OpSpec(_adapter(_nd(_path), _outputs, _present), _outputs)


# ------------------------------------------------------------ operators of their own (keys, BN family)
def _random_op(draw: Callable[[jax.Array, tuple[int, ...], Any, Attrs], jax.Array]):
    def op(c, xs, a: Attrs):
        shape = tuple(a.shape("shape", ()))
        dtype = a.str("dtype", "None")
        dtype = jnp.float32 if dtype in ("None", "") else jnp.dtype(dtype)
        if c.key is None:
            raise ValueError(f"symbol node {a.node!r} ({a.op}) draws random numbers and needs a key: run it "
                             "through an executor (bind/simple_bind) or pass key= to the Program")
        return draw(c.key, shape, dtype, a)
    return op


OPS["_random_uniform"] = OpSpec(_random_op(lambda k, s, d, a: jax.random.uniform(
    k, s, d, a.float("low", 0.0), a.float("high", 1.0))))
OPS["_random_normal"] = OpSpec(_random_op(lambda k, s, d, a: a.float("loc", 0.0) + a.float("scale", 1.0) *
                                          jax.random.normal(k, s, d)))


def _bn_relu(c, xs, a: Attrs):
    out = OPS["BatchNorm"].fn(c, xs, a)
    return (jax.nn.relu(out[0]), out[1], out[2], jnp.zeros((0,), out[0].dtype))


OPS["_contrib_BatchNormWithReLU"] = OpSpec(_bn_relu, 4, (3, 4))
OPS["_contrib_SyncBatchNorm"] = OpSpec(OPS["BatchNorm"].fn, OPS["BatchNorm"].outputs, OPS["BatchNorm"].aux)
