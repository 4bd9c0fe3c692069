"""Fast XLA:CPU formulations of small NCHW convolutions and max pooling (same values and gradients).

XLA:CPU runs LeNet-sized convolutions (few channels, small images) at 4-20 GFLOP/s. Here a convolution
is one GEMM over *row patches*: each output row's block of ``bw`` columns reads ``kh`` input rows x all
channels x a window of ``win`` columns (one patch row), and the kernel becomes a band ("Toeplitz")
matrix mapping a patch row to ``bw`` columns of every output channel::

    P[(n, ho, blk), (i, c, x)] = x_padded[n, c, ho*sh + i*dh, blk*bw*sw + x]
    T[(i, c, x), (o, v)]       = w[o, c, i, j]   where x == v*sw + j*dw   (0 elsewhere)
    y[n, o, ho, blk*bw + v]    = (P @ T)[(n, ho, blk), (o, v)]

The band wastes ``win/kw`` of the multiply-adds but the GEMMs (``P @ T``, ``P^T @ dY``, ``dY @ T^T``)
run at 50-200 GFLOP/s. ``T`` comes from ``w`` through an einsum with a constant 0/1 tensor, so JAX
derives every gradient. Max pooling (:func:`max_pool2d`, re-exported from
:mod:`framework.npx.fast_cpu_pool`) sends each window's gradient to its *first* maximum, as ``jax.grad``
of ``lax.reduce_window(max)`` does. :func:`conv2d_maxpool2d` fuses a convolution, a monotone activation
and a max pooling, the triple that dominates LeNet (0.14x of the lax step, against 0.28x for the
separate ops; notes/speed.md).
The ``supports_*`` predicates say when ``npx`` should dispatch here on the CPU backend.

>>> import jax.numpy as jnp
>>> x = jnp.arange(32.0).reshape(1, 2, 4, 4); w = jnp.ones((3, 2, 3, 3))
>>> conv2d(x, w, jnp.zeros(3), stride=1, pad=1).shape
(1, 3, 4, 4)
>>> max_pool2d(jnp.arange(16.0).reshape(1, 1, 4, 4), (2, 2)).tolist()
[[[[5.0, 7.0], [13.0, 15.0]]]]
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as onp
from jax import lax
from jax.typing import DTypeLike

from .. import config
from .activations import activation as _activation
from .fast_cpu_pool import IntPair, Padding, _padding, _pair, _tiled_max, max_pool2d, supports_max_pool2d

__all__ = [  # max_pool2d and supports_max_pool2d: re-exported from fast_cpu_pool
    "enabled", "conv2d", "max_pool2d", "conv2d_maxpool2d", "MONOTONE_ACTIVATIONS",
    "supports_conv2d", "supports_max_pool2d", "supports_conv2d_maxpool2d", "block_width",
]

def enabled() -> bool:
    """Whether the framework dispatches to these kernels: the ``fast_cpu`` switch of
    :mod:`framework.config` is on (``FRAMEWORK_FAST_CPU=0`` or ``config.set(fast_cpu=False)`` turns it
    off, e.g. to compare against XLA's own convolution) and the computation runs on the CPU (the device
    of the program being built, else JAX's default backend: :func:`framework.config.platform`)."""
    return config.fast_cpu_active()



# The smallest band matrix (patch-row length x GEMM columns) worth a patch row: smaller blocks waste
# fewer multiply-adds but run XLA's GEMM at a lower rate (LeNet on 2 x86 cores: 8 and 2 columns).
_MIN_BAND_ENTRIES = 2048
# supports_conv2d admits a convolution when the banded GEMM does at most this many times the
# convolution's own multiply-adds, the patch matrix stays this small (floats) and is cut from at most
# this many slices ...
_MAX_BAND_WASTE = 6.0
_MAX_PATCH_FLOATS = 1 << 25
_MAX_PIECES = 48
# ... and the layer is small enough that XLA's own convolution is inefficient (measured: with 8 or more
# input channels, or 64 output channels, XLA's convolution is as fast or faster; notes/speed.md).
_MAX_IN_CHANNELS = 6
_MAX_OUT_CHANNELS = 32
# Fused with a max pooling (conv2d_maxpool2d), a kernel of at least 5x5 pays with more channels: the
# GEMM is pooled in place and only a quarter of the output is transposed (a symbolic LeNet's 20 -> 50
# channel 5x5 layer at batch 64: 0.37x XLA's convolution + pooling, forward and backward; 3x3 kernels
# with 16-64 channels lose as often as they win; notes/speed.md).
_FUSED_WIDE_KERNEL = 25
_FUSED_MAX_IN_CHANNELS = 32
_FUSED_MAX_OUT_CHANNELS = 128

# Activations that never decrease: they commute with a maximum, so conv2d_maxpool2d applies them after
# pooling (a quarter of the element-wise work for 2x2 pools).
MONOTONE_ACTIVATIONS = ("relu", "sigmoid", "tanh", "softrelu", "softsign", "log_sigmoid")


def _out_len(size: int, lo: int, hi: int, k: int, s: int, d: int) -> int:
    return (size + lo + hi - d * (k - 1) - 1) // s + 1


# ----------------------------------------------------------------------------------------- convolution
def block_width(out_width: int, out_channels: int, in_channels: int = 1, kernel: IntPair = 1,
                stride: int = 1, dilation: int = 1, multiple: int = 1) -> int:
    """Output columns per patch row: the smallest multiple of ``multiple`` that divides ``out_width``
    and makes the band matrix (``kh * in_channels * window`` x ``out_channels * width``) at least
    2048 entries, else the whole row. ``multiple`` is the pooling width of :func:`conv2d_maxpool2d`.

    >>> block_width(24, 6, 1, 5), block_width(10, 16, 6, 3), block_width(24, 6, 1, 5, multiple=2)
    (8, 2, 8)
    """
    kh, kw = _pair("kernel", kernel)
    for bw in range(multiple, out_width + 1, multiple):
        win = (bw - 1) * stride + (kw - 1) * dilation + 1
        if out_width % bw == 0 and kh * in_channels * win * out_channels * bw >= _MIN_BAND_ENTRIES:
            return bw
    return out_width


def _geometry(x_shape, w_shape, stride, pad, dilation, bw):
    n, c, h, w = x_shape
    o, _, kh, kw = w_shape
    sh, sw = stride
    (ph0, ph1), (pw0, pw1) = pad
    dh, dw = dilation
    ho = _out_len(h, ph0, ph1, kh, sh, dh)
    wo = _out_len(w, pw0, pw1, kw, sw, dw)
    if ho < 1 or wo < 1:
        return ho, wo, 1, 1, 1
    if bw is None:
        bw = block_width(wo, o, c, (kh, kw), stride[1], dilation[1])
    else:
        bw = max(1, min(int(bw), wo))
    nb = -(-wo // bw)
    win = (bw - 1) * sw + (kw - 1) * dw + 1
    return ho, wo, bw, nb, win


def supports_conv2d(
    x_shape: Sequence[int],
    w_shape: Sequence[int],
    stride: IntPair = 1,
    pad: Padding = 0,
    dilation: IntPair = 1,
    groups: int = 1,
    dtype: DTypeLike = jnp.float32,
) -> bool:
    """Whether :func:`conv2d` handles this convolution and is expected to beat XLA's own on CPU.

    Any stride, padding (symmetric or not), dilation and group count is computed correctly; the
    predicate is about speed, calibrated on a 2-core x86 machine (notes/speed.md): floating data, at
    most 6 input and 32 output channels, a band that wastes at most 6x the multiply-adds, a patch
    matrix of at most 2^25 floats cut from at most 48 slices (row taps x column blocks).

    >>> supports_conv2d((256, 1, 28, 28), (6, 1, 5, 5)), supports_conv2d((8, 256, 14, 14), (256, 256, 3, 3))
    (True, False)
    """
    args = _valid(x_shape, w_shape, stride, pad, dilation, groups, dtype)
    if args is None:
        return False
    ho, wo, bw, nb, win = _geometry(x_shape, w_shape, *args, None)
    return ho >= 1 and wo >= 1 and _worth_it(x_shape, w_shape, ho, nb, win)


def _valid(x_shape, w_shape, stride, pad, dilation, groups, dtype) -> tuple | None:
    """``(stride, pad, dilation)`` as pairs when the banded GEMM computes this convolution at all (4-D
    float data, consistent groups, positive strides and dilations, non-negative padding), else None."""
    try:
        stride, dilation, pad = _pair("stride", stride), _pair("dilation", dilation), _padding(pad)
    except (TypeError, ValueError):
        return None
    if len(x_shape) != 4 or len(w_shape) != 4 or not jnp.issubdtype(dtype, jnp.floating):
        return None
    c, o, cg = x_shape[1], w_shape[0], w_shape[1]
    if groups < 1 or c % groups or o % groups or cg * groups != c or min(stride + dilation) < 1:
        return None
    ok = min(pad[0] + pad[1]) >= 0 and min(x_shape) >= 1 and min(w_shape) >= 1
    return (stride, pad, dilation) if ok else None


def _worth_it(x_shape, w_shape, rows, nb, win, fused: bool = False) -> bool:
    """The speed rule of the supports_* predicates (see supports_conv2d; ``fused``: with a pooling)."""
    n, c = x_shape[:2]
    o, cg, kh, kw = w_shape
    if fused and kh * kw >= _FUSED_WIDE_KERNEL:
        if c > _FUSED_MAX_IN_CHANNELS or o > _FUSED_MAX_OUT_CHANNELS:
            return False
    elif c > _MAX_IN_CHANNELS or o > _MAX_OUT_CHANNELS:
        return False
    waste = (c * win) / (cg * kw)
    return (waste <= _MAX_BAND_WASTE and nb * kh <= _MAX_PIECES
            and n * rows * nb * kh * c * win <= _MAX_PATCH_FLOATS)


@functools.cache
def _band_onehot(kw: int, win: int, bw: int, sw: int, dw: int, q: int, dtype) -> onp.ndarray:
    """E[j, x, p, v] = 1 where patch column x feeds output column v*q + p through kernel tap j."""
    e = onp.zeros((kw, win, q, bw // q), dtype)
    for j in range(kw):
        for col in range(bw):
            e[j, col * sw + j * dw, col % q, col // q] = 1
    return e


def _band_matrix(w: jax.Array, groups: int, win: int, bw: int, sw: int, dw: int, q: int = 1) -> jax.Array:
    """T[(i, c, x), (p, o, v)] = w[o, c, i, j] with x == (v*q + p)*sw + j*dw (zero across groups)."""
    o, cg, kh, kw = w.shape
    if groups > 1:
        wg = w.reshape(groups, o // groups, cg, kh, kw)
        eye = jnp.eye(groups, dtype=w.dtype)
        w = jnp.einsum("gocij,gh->gohcij", wg, eye).reshape(o, groups * cg, kh, kw)
    e = jnp.asarray(_band_onehot(kw, win, bw, sw, dw, q, onp.dtype(w.dtype)))
    t = jnp.einsum("ocij,jxpv->icxpov", w, e, precision=lax.Precision.HIGHEST)
    return t.reshape(kh * w.shape[1] * win, o * bw)


def _check_conv(op, x, w, stride, dilation, groups):
    if x.ndim != 4 or w.ndim != 4:
        raise ValueError(
            f"fast_cpu.{op}: data must be 4-D NCHW and weight 4-D OIHW, got shapes {x.shape} and {w.shape}"
        )
    c, o, cg = x.shape[1], w.shape[0], w.shape[1]
    if min(stride + dilation) < 1:
        raise ValueError(f"fast_cpu.{op}: stride={stride} and dilation={dilation} must be >= 1")
    if groups < 1 or cg * groups != c or o % groups:
        raise ValueError(
            f"fast_cpu.{op}: weight {w.shape} with groups={groups} does not fit data with {c} "
            f"channels; expected weight (out, {c} // groups, kh, kw) with out divisible by groups"
        )


def _banded_gemm(x, w, stride, pad, dilation, groups, rows, bw, nb, win, q):
    """The convolution's first ``rows`` output rows and ``nb*bw`` output columns as one GEMM, laid out
    (n, row, block, phase, o, column // q) with block column = (column // q) * q + phase."""
    n, c, h, wid = x.shape
    o, _, kh, _ = w.shape
    (sh, sw), (dh, dw) = stride, dilation
    (ph0, _), (pw0, _) = pad
    h_need = (rows - 1) * sh + (kh - 1) * dh + 1
    w_need = (nb - 1) * bw * sw + win
    # NCHW -> NHCW (free when C == 1), then zero padding; negative high padding crops unused cells.
    xt = jnp.transpose(x, (0, 2, 1, 3))
    zero = jnp.zeros((), x.dtype)
    xp = lax.pad(xt, zero, ((0, 0, 0), (ph0, h_need - h - ph0, 0), (0, 0, 0), (pw0, w_need - wid - pw0, 0)))
    # Column blocks first (nb slices of the padded input), then row taps (kh slices): two small
    # concatenations that XLA fuses; one concatenation of nb*kh slices it would not fuse (2-5x slower).
    blocks = jnp.concatenate(
        [lax.slice_in_dim(xp, k * bw * sw, k * bw * sw + win, axis=3)[:, :, None] for k in range(nb)], axis=2)
    rows_end = (rows - 1) * sh + 1
    patches = jnp.concatenate(
        [lax.slice_in_dim(blocks, i * dh, i * dh + rows_end, sh, axis=1)[:, :, :, None] for i in range(kh)],
        axis=3).reshape(n * rows * nb, kh * c * win)  # rows (n, row, block), columns (i, c, x)
    t = _band_matrix(w.astype(x.dtype), groups, win, bw, sw, dw, q)
    y = jnp.matmul(patches, t, precision=lax.Precision.HIGHEST)
    return y.reshape(n, rows, nb, q, o, bw // q)


def conv2d(
    x: jax.Array,
    w: jax.Array,
    b: jax.Array | None = None,
    stride: IntPair = (1, 1),
    pad: Padding = (0, 0),
    dilation: IntPair = (1, 1),
    groups: int = 1,
    *,
    block_width: int | None = None,
) -> jax.Array:
    """2-D cross-correlation, NCHW data and OIHW weights, as one banded GEMM (see the module doc).

    Same result as ``lax.conv_general_dilated(x, w, stride, pad, rhs_dilation=dilation,
    feature_group_count=groups)`` (+ ``b`` per output channel) within float32 rounding, and so are
    its gradients. ``pad`` may be an int, (pad_h, pad_w) or ((lo, hi), (lo, hi)). ``block_width``
    overrides the number of output columns per patch row (default :func:`block_width`).

    >>> import jax.numpy as jnp
    >>> conv2d(jnp.ones((1, 1, 4, 4)), jnp.ones((1, 1, 2, 2)), stride=2).tolist()
    [[[[4.0, 4.0], [4.0, 4.0]]]]
    """
    stride, dilation, pad = _pair("stride", stride), _pair("dilation", dilation), _padding(pad)
    _check_conv("conv2d", x, w, stride, dilation, groups)
    n, _, h, wid = x.shape
    o, _, kh, kw = w.shape
    ho, wo, bw, nb, win = _geometry(x.shape, w.shape, stride, pad, dilation, block_width)
    if ho < 1 or wo < 1:
        raise ValueError(
            f"fast_cpu.conv2d: the dilated kernel {(kh, kw)} (dilation {dilation}) does not fit the "
            f"padded input {(h, wid)} + pad {pad}; use a smaller kernel or more padding"
        )
    y = _banded_gemm(x, w, stride, pad, dilation, groups, ho, bw, nb, win, 1)
    y = jnp.transpose(y.reshape(n, ho, nb, o, bw), (0, 3, 1, 2, 4)).reshape(n, o, ho, nb * bw)
    if nb * bw != wo:
        y = y[..., :wo]
    if b is not None:
        y = y + b.astype(y.dtype).reshape(1, o, 1, 1)
    return y


# ---------------------------------------------------------------------------- convolution + max pooling
def _fused_geometry(x_shape, w_shape, stride, pad, dilation, pool, block_width_):
    n, c, h, w = x_shape
    o, _, kh, kw = w_shape
    ho = _out_len(h, *pad[0], kh, stride[0], dilation[0])
    wo = _out_len(w, *pad[1], kw, stride[1], dilation[1])
    hp, wp = ho // pool[0], wo // pool[1]
    if hp < 1 or wp < 1:
        return hp, wp, 1, 1, 1
    if block_width_ is None:
        bwp = block_width(wp * pool[1], o, c, (kh, kw), stride[1], dilation[1], pool[1]) // pool[1]
    else:
        bwp = max(1, min(int(block_width_) // pool[1], wp))
    bw, nb = bwp * pool[1], -(-wp // bwp)
    return hp, wp, bw, nb, (bw - 1) * stride[1] + (kw - 1) * dilation[1] + 1


def supports_conv2d_maxpool2d(
    x_shape: Sequence[int],
    w_shape: Sequence[int],
    stride: IntPair = 1,
    pad: Padding = 0,
    dilation: IntPair = 1,
    groups: int = 1,
    pool: IntPair = 2,
    dtype: DTypeLike = jnp.float32,
) -> bool:
    """Whether :func:`conv2d_maxpool2d` handles this convolution + pooling and is expected to be fast
    (the rule of :func:`supports_conv2d` on the fused geometry, more channels for kernels of 5x5 or
    more, and at least one pooled output cell).

    >>> supports_conv2d_maxpool2d((256, 1, 28, 28), (6, 1, 5, 5))
    True
    >>> x, w = (64, 20, 12, 12), (50, 20, 5, 5)
    >>> supports_conv2d_maxpool2d(x, w), supports_conv2d(x, w)
    (True, False)
    """
    try:
        pool = _pair("pool", pool)
    except (TypeError, ValueError):
        return False
    args = _valid(x_shape, w_shape, stride, pad, dilation, groups, dtype)
    if min(pool) < 1 or args is None:
        return False
    hp, wp, bw, nb, win = _fused_geometry(x_shape, w_shape, *args, pool, None)
    return hp >= 1 and wp >= 1 and _worth_it(x_shape, w_shape, hp * pool[0], nb, win, fused=True)


def conv2d_maxpool2d(
    x: jax.Array,
    w: jax.Array,
    b: jax.Array | None = None,
    stride: IntPair = (1, 1),
    pad: Padding = (0, 0),
    dilation: IntPair = (1, 1),
    groups: int = 1,
    *,
    pool: IntPair = (2, 2),
    activation: str | None = None,
    block_width: int | None = None,
) -> jax.Array:
    """``max_pool2d(act(conv2d(x, w, b, ...)), pool)`` in one pass: Gluon's Conv2D(activation) followed
    by MaxPool2D(pool) (stride = pool, no padding, floor mode), NCHW in and out.

    The banded GEMM orders each block's output columns by their position in the pooling window, so
    the pooling is a maximum over contiguous blocks of the GEMM's output, taken before the bias and the
    activation (``max(relu(z + b)) == relu(max(z) + b)``: 1/4 of the elementwise work for 2x2 pools),
    and only the pooled result is transposed to NCHW. Values and gradients equal the separate lax ops
    within float32 rounding (ties go to the first maximum, as in ``lax.reduce_window``).
    ``activation`` is None or one of :data:`MONOTONE_ACTIVATIONS` (non-decreasing, so they commute with
    the maximum: ``max(tanh(z)) == tanh(max(z))``).

    >>> import jax.numpy as jnp
    >>> conv2d_maxpool2d(jnp.ones((1, 1, 6, 6)), -jnp.ones((2, 1, 3, 3)), jnp.array([10.0, 8.0]),
    ...                  activation='relu').tolist()
    [[[[1.0, 1.0], [1.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]]]]
    """
    if activation is not None and activation not in MONOTONE_ACTIVATIONS:
        raise ValueError(
            f"fast_cpu.conv2d_maxpool2d: activation={activation!r} is not supported; use None or one of "
            f"{MONOTONE_ACTIVATIONS} (or call conv2d, the activation and max_pool2d separately)"
        )
    stride, dilation, pad = _pair("stride", stride), _pair("dilation", dilation), _padding(pad)
    pool = _pair("pool", pool)
    _check_conv("conv2d_maxpool2d", x, w, stride, dilation, groups)
    n, _, h, wid = x.shape
    o = w.shape[0]
    if min(pool) < 1:
        raise ValueError(f"fast_cpu.conv2d_maxpool2d: pool={pool} must be >= 1")
    hp, wp, bw, nb, win = _fused_geometry(x.shape, w.shape, stride, pad, dilation, pool, block_width)
    if hp < 1 or wp < 1:
        raise ValueError(
            f"fast_cpu.conv2d_maxpool2d: data {(h, wid)} with kernel {w.shape[2:]}, stride {stride}, pad "
            f"{pad}, dilation {dilation} leaves no {pool} pooling window; use a smaller kernel or pool"
        )
    ph, pw = pool
    y = _banded_gemm(x, w, stride, pad, dilation, groups, hp * ph, bw, nb, win, pw)
    y = _tiled_max(y.reshape(n, hp, ph, nb, pw, o, bw // pw), (2, 4))  # (n, hp, nb, o, bw // pw)
    if b is not None:
        y = y + b.astype(y.dtype).reshape(1, 1, 1, o, 1)
    if activation is not None:
        y = _activation(y, act_type=activation)
    y = jnp.transpose(y, (0, 3, 1, 2, 4)).reshape(n, o, hp, nb * (bw // pw))
    return y[..., :wp] if nb * (bw // pw) != wp else y
