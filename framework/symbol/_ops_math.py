"""Element-wise, scalar, reduction and shape operators of the symbol interpreter (registered into
``_ops.OPS`` on import).

>>> from framework.symbol._ops import OPS
>>> sorted(n for n in OPS if n.endswith('plus_scalar'))
['_plus_scalar']
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

from ..npx import shape as _shape
from ..npx import special as _special
from ._registry import check_size, register

# ---------------------------------------------------------------- element-wise unary
_UNARY = {
    "relu": jax.nn.relu, "sigmoid": jax.nn.sigmoid, "tanh": jnp.tanh, "exp": jnp.exp, "log": jnp.log,
    "sqrt": jnp.sqrt, "rsqrt": lax.rsqrt, "square": jnp.square, "abs": jnp.abs, "negative": jnp.negative,
    "sin": jnp.sin, "cos": jnp.cos, "tan": jnp.tan, "arctan": jnp.arctan, "sinh": jnp.sinh,
    "cosh": jnp.cosh, "floor": jnp.floor, "ceil": jnp.ceil, "round": jnp.round, "sign": jnp.sign,
    "reciprocal": jnp.reciprocal, "log1p": jnp.log1p, "expm1": jnp.expm1, "log2": jnp.log2,
    "log10": jnp.log10, "softsign": jax.nn.soft_sign, "erf": _special.erf, "cbrt": jnp.cbrt,
    "trunc": jnp.trunc, "rint": jnp.rint, "fix": jnp.trunc, "logical_not": jnp.logical_not,
}
_NP_SPELLING = {"abs": "absolute", "softsign": "softsign"}


def _unary(fn):
    return lambda c, xs, a: fn(xs[0])


for _name, _fn in _UNARY.items():
    _npname = _NP_SPELLING.get(_name, _name)
    register(_name, f"_npi_{_npname}", f"_np_{_npname}", f"_npx_{_name}")(_unary(_fn))

register("_copy", "identity", "_np_copy", "_npi_copy", "BlockGrad", "stop_gradient", "make_loss",
         "MakeLoss")(lambda c, xs, a: lax.stop_gradient(xs[0]) if a.op in ("BlockGrad", "stop_gradient")
                     else xs[0])
register("amp_cast", "Cast", "cast", "_npi_cast", "_npx_cast")(lambda c, xs, a: xs[0].astype(a.str("dtype")))
register("amp_multicast", outputs=lambda a: a.int("num_outputs"))(lambda c, xs, a: tuple(xs))
register("zeros_like", "_npi_zeros_like")(lambda c, xs, a: jnp.zeros_like(xs[0]))
register("ones_like", "_npi_ones_like")(lambda c, xs, a: jnp.ones_like(xs[0]))

# ---------------------------------------------------------------- element-wise binary
_BINARY = {
    "add": (jnp.add, ("elemwise_add", "broadcast_add", "broadcast_plus", "_plus", "_add", "_npi_add",
                      "_grad_add")),
    "sub": (jnp.subtract, ("elemwise_sub", "broadcast_sub", "broadcast_minus", "_minus", "_sub",
                           "_npi_subtract")),
    "mul": (jnp.multiply, ("elemwise_mul", "broadcast_mul", "_mul", "_npi_multiply")),
    "div": (jnp.divide, ("elemwise_div", "broadcast_div", "_div", "_npi_true_divide")),
    "max": (jnp.maximum, ("broadcast_maximum", "_maximum", "_npi_maximum")),
    "min": (jnp.minimum, ("broadcast_minimum", "_minimum", "_npi_minimum")),
    "pow": (jnp.power, ("broadcast_power", "_power", "_npi_power")),
    "mod": (jnp.mod, ("broadcast_mod", "_mod", "_npi_mod")),
    "hypot": (jnp.hypot, ("broadcast_hypot", "_hypot", "_npi_hypot")),
    "eq": (jnp.equal, ("broadcast_equal", "_equal", "_npi_equal")),
    "ne": (jnp.not_equal, ("broadcast_not_equal", "_not_equal", "_npi_not_equal")),
    "gt": (jnp.greater, ("broadcast_greater", "_greater", "_npi_greater")),
    "ge": (jnp.greater_equal, ("broadcast_greater_equal", "_greater_equal", "_npi_greater_equal")),
    "lt": (jnp.less, ("broadcast_lesser", "_lesser", "_npi_less")),
    "le": (jnp.less_equal, ("broadcast_lesser_equal", "_lesser_equal", "_npi_less_equal")),
}
_COMPARE = {"eq", "ne", "gt", "ge", "lt", "le"}


def _binary(fn, legacy_compare):
    def op(c, xs, a):
        out = fn(xs[0], xs[1])
        if legacy_compare and not a.op.startswith("_npi"):
            out = out.astype(jnp.result_type(xs[0]))  # 1.x comparisons return 0/1 in the input's dtype
        return out
    return op


for _key, (_fn, _names) in _BINARY.items():
    register(*_names)(_binary(_fn, _key in _COMPARE))


@register("add_n", "ElementWiseSum", "_npi_add_n")
def _add_n(c, xs, a):
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


# ---------------------------------------------------------------- scalar operators
def _scalar(a, x):
    s = a.float("scalar")
    if jnp.issubdtype(x.dtype, jnp.floating):
        return jnp.asarray(s, x.dtype)
    return jnp.asarray(int(s) if float(s).is_integer() else s)


_SCALAR = {
    ("_plus_scalar", "_npi_add_scalar"): lambda x, s: x + s,
    ("_minus_scalar", "_npi_subtract_scalar"): lambda x, s: x - s,
    ("_rminus_scalar", "_npi_rsubtract_scalar"): lambda x, s: s - x,
    ("_mul_scalar", "_npi_multiply_scalar"): lambda x, s: x * s,
    ("_div_scalar", "_npi_true_divide_scalar"): lambda x, s: x / s,
    ("_rdiv_scalar", "_npi_rtrue_divide_scalar"): lambda x, s: s / x,
    ("_power_scalar", "_npi_power_scalar"): lambda x, s: x ** s,
    ("_rpower_scalar", "_npi_rpower_scalar"): lambda x, s: s ** x,
    ("_maximum_scalar", "_npi_maximum_scalar"): jnp.maximum,
    ("_minimum_scalar", "_npi_minimum_scalar"): jnp.minimum,
    ("_mod_scalar", "_npi_mod_scalar"): jnp.mod,
    ("_rmod_scalar", "_npi_rmod_scalar"): lambda x, s: jnp.mod(s, x),
    ("_equal_scalar", "_npi_equal_scalar"): jnp.equal,
    ("_not_equal_scalar", "_npi_not_equal_scalar"): jnp.not_equal,
    ("_greater_scalar", "_npi_greater_scalar"): jnp.greater,
    ("_greater_equal_scalar", "_npi_greater_equal_scalar"): jnp.greater_equal,
    ("_lesser_scalar", "_npi_less_scalar"): jnp.less,
    ("_lesser_equal_scalar", "_npi_less_equal_scalar"): jnp.less_equal,
}


def _scalar_op(fn):
    def op(c, xs, a):
        x = xs[0]
        out = fn(x, _scalar(a, x))
        if out.dtype == jnp.bool_ and not a.op.startswith("_npi"):
            out = out.astype(x.dtype)
        return out
    return op


for _names, _fn in _SCALAR.items():
    register(*_names)(_scalar_op(_fn))


@register("clip", "_npi_clip")
def _clip(c, xs, a):
    lo, hi = a.float("a_min", None), a.float("a_max", None)
    return jnp.clip(xs[0], lo, hi)


# ---------------------------------------------------------------- reductions
def _reduce(fn):
    def op(c, xs, a):
        x = xs[0]
        axis = a.axis("axis")
        if a.bool("exclude") and axis is not None:
            given = {ax % x.ndim for ax in (axis if isinstance(axis, tuple) else (axis,))}
            axis = tuple(i for i in range(x.ndim) if i not in given)
        out = fn(x, axis=axis, keepdims=a.bool("keepdims"))
        return out.reshape(1) if out.ndim == 0 and not a.op.startswith("_np") else out  # 1.x: no 0-d arrays
    return op


for _names, _fn in {("sum", "sum_axis", "_np_sum", "_npi_sum"): jnp.sum,
                    ("mean", "_npi_mean", "_np_mean"): jnp.mean,
                    ("max", "max_axis", "_np_max", "_npi_max"): jnp.max,
                    ("min", "min_axis", "_np_min", "_npi_min"): jnp.min,
                    ("prod", "_np_prod", "_npi_prod"): jnp.prod,
                    ("nansum",): jnp.nansum}.items():
    register(*_names)(_reduce(_fn))


@register("norm", "_npi_norm")
def _norm_op(c, xs, a):
    ordv = a.int("ord", 2)
    axis = a.axis("axis")
    x = xs[0]
    if ordv == 1:
        out = jnp.sum(jnp.abs(x), axis=axis, keepdims=a.bool("keepdims"))
    else:
        out = jnp.sqrt(jnp.sum(x * x, axis=axis, keepdims=a.bool("keepdims")))
    return out.reshape(1) if out.ndim == 0 and a.op == "norm" else out


@register("argmax", "_npi_argmax")
def _argmax(c, xs, a):
    out = jnp.argmax(xs[0], axis=a.int("axis", None), keepdims=a.bool("keepdims"))
    return out if a.op.startswith("_npi") else out.astype(xs[0].dtype)


# ---------------------------------------------------------------- shape operators
def _legacy_reshape(x, a):
    """1.x Reshape codes: 0 copy, -1 infer, -2 copy the rest, -3 merge two, -4 split one."""
    if a.has("shape"):
        codes = a.shape("shape")
    else:
        codes = a.shape("target_shape")
    npx_codes = tuple({0: -2, -2: -4, -3: -5, -4: -6}.get(v, v) for v in codes)
    return _shape.reshape(x, npx_codes, reverse=a.bool("reverse"))


register("Reshape", "reshape")(lambda c, xs, a: _legacy_reshape(xs[0], a))
register("_np_reshape", "_npi_reshape")(lambda c, xs, a: jnp.reshape(xs[0], a.shape("newshape")))
register("_npx_reshape")(lambda c, xs, a: _shape.reshape(xs[0], a.shape("newshape"),
                                                          reverse=a.bool("reverse")))
register("Flatten", "flatten", "_npx_batch_flatten")(lambda c, xs, a: _shape.batch_flatten(xs[0]))
register("transpose", "_np_transpose", "_npi_transpose")(
    lambda c, xs, a: jnp.transpose(xs[0], a.opt_shape("axes") or None))
register("expand_dims", "_npi_expand_dims", "_np_expand_dims")(
    lambda c, xs, a: jnp.expand_dims(xs[0], a.int("axis")))
register("squeeze", "_np_squeeze", "_npi_squeeze")(lambda c, xs, a: jnp.squeeze(xs[0], a.axis("axis")))
register("SwapAxis", "swapaxes", "_npi_swapaxes", "_np_swapaxes")(
    lambda c, xs, a: jnp.swapaxes(xs[0], a.int("dim1", a.int("axis1", 0)), a.int("dim2", a.int("axis2", 0))))
register("Concat", "concat", "_npi_concatenate", "_np_concatenate")(
    lambda c, xs, a: jnp.concatenate(xs, axis=a.int("dim", a.int("axis", 1))))
register("stack", "_npi_stack")(lambda c, xs, a: jnp.stack(xs, axis=a.int("axis", 0)))
register("repeat", "_npi_repeat", "_np_repeat")(
    lambda c, xs, a: jnp.repeat(xs[0], a.int("repeats"), axis=a.int("axis", None)))


@register("broadcast_to", "_npi_broadcast_to", "_np_broadcast_to")
def _broadcast_to(c, xs, a):
    shape = a.shape("shape")
    lead = len(shape) - xs[0].ndim
    shape = tuple(xs[0].shape[i - lead] if s == 0 and i >= lead else s for i, s in enumerate(shape))
    check_size(a, shape)
    return jnp.broadcast_to(xs[0], shape)


@register("tile", "_npi_tile", "_np_tile")
def _tile(c, xs, a):
    reps = a.shape("reps")
    check_size(a, tuple(xs[0].shape) + tuple(reps))
    return jnp.tile(xs[0], reps)
register("broadcast_like")(lambda c, xs, a: jnp.broadcast_to(xs[0], xs[1].shape))
register("where", "_npi_where")(lambda c, xs, a: jnp.where(xs[0] != 0, xs[1], xs[2]))


def _split_outputs(a):
    if a.has("num_outputs"):
        return a.int("num_outputs")
    if a.has("sections") and a.int("sections") > 0:
        return a.int("sections")
    return len(a.shape("indices", ())) + (0 if a.op == "_split_v2" else 1)


@register("SliceChannel", "split", outputs=_split_outputs)
def _slice_channel(c, xs, a):
    x, axis, k = xs[0], a.int("axis", 1), a.int("num_outputs")
    if x.shape[axis] % k:
        raise ValueError(f"symbol node {a.node!r}: cannot split axis {axis} of size {x.shape[axis]} into "
                         f"{k} equal parts")
    parts = jnp.split(x, k, axis=axis)
    if a.bool("squeeze_axis"):
        parts = [jnp.squeeze(p, axis) for p in parts]
    return tuple(parts)


@register("_split_v2", "_npi_split", outputs=_split_outputs)
def _split_v2(c, xs, a):
    x, axis = xs[0], a.int("axis", 0)
    sections = a.int("sections", 0)
    if sections and sections > 0:
        parts = jnp.split(x, sections, axis=axis)
    else:
        idx = [i for i in a.shape("indices") if i is not None]
        if idx and idx[0] == 0:  # 1.x writes the leading 0 of the first section
            idx = idx[1:]
        parts = jnp.split(x, idx, axis=axis)
    if a.bool("squeeze_axis"):
        parts = [jnp.squeeze(p, axis) for p in parts]
    return tuple(parts)


@register("slice_axis", "_npi_slice_axis")
def _slice_axis(c, xs, a):
    x, axis = xs[0], a.int("axis")
    end = a.int("end", None)
    return lax.slice_in_dim(x, a.int("begin"), x.shape[axis] if end is None else end, axis=axis) \
        if a.int("begin") >= 0 and (end is None or end >= 0) else \
        jnp.take(x, jnp.arange(x.shape[axis])[slice(a.int("begin"), end)], axis=axis)


@register("slice", "crop", "_npi_slice")
def _slice(c, xs, a):
    begin, end = a.shape("begin"), a.shape("end")
    step = a.opt_shape("step", ()) or ()
    index = tuple(slice(b, e, step[i] if i < len(step) else None) for i, (b, e) in enumerate(zip(begin, end,
                                                                                             strict=True)))
    return xs[0][index]


@register("dot", "_np_dot", "_npi_dot")
def _dot(c, xs, a):
    x, y = xs
    if a.bool("transpose_a"):
        x = jnp.transpose(x, tuple(range(1, x.ndim)) + (0,)) if x.ndim > 2 else x.T
    if a.bool("transpose_b"):
        y = jnp.transpose(y, (y.ndim - 1,) + tuple(range(y.ndim - 1))) if y.ndim > 2 else y.T
    return jnp.tensordot(x, y, axes=1) if x.ndim and y.ndim else x * y


@register("batch_dot", "_npx_batch_dot")
def _batch_dot(c, xs, a):
    x, y = xs
    if a.bool("transpose_a"):
        x = jnp.swapaxes(x, -1, -2)
    if a.bool("transpose_b"):
        y = jnp.swapaxes(y, -1, -2)
    return jnp.matmul(x, y)


@register("take", "_npi_take")
def _take(c, xs, a):
    mode = a.str("mode", "clip")
    return jnp.take(xs[0], xs[1].astype(jnp.int32), axis=a.int("axis", 0),
                    mode="wrap" if mode == "wrap" else "clip")


register("_npi_matmul", "_np_matmul")(lambda c, xs, a: jnp.matmul(xs[0], xs[1]))
