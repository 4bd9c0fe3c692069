"""Depthwise convolutions on XLA:CPU as shifted multiply-adds (same values and gradients).

A depthwise convolution (``groups`` equal to the input channels, as in MobileNet, ShuffleNet,
Xception) gives each output channel one input channel and a ``kh x kw`` window. XLA:CPU runs it as a
grouped convolution at a small fraction of the memory bandwidth: 0.9-1.1 s for the forward pass of a
16 x 32 x 112 x 112 input, in YNNPACK as in Eigen. Written as the sum over the window's taps of a
strided slice of the padded input times that tap's per-channel weight, it is one fused elementwise loop
(18 ms for the same input) and ``jax.grad`` derives the gradients from slices, pads and sums
(notes/speed.md, "Convolutions on XLA:CPU")::

    y[n, o, h, w] = sum_{i, j} x_padded[n, o // m, h*sh + i*dh, w*sw + j*dw] * w[o, 0, i, j]

with ``m`` output channels per input channel. :func:`supports_depthwise` says when ``npx`` dispatches
here (the CPU, the ``fast_cpu`` switch on).

>>> import jax.numpy as jnp
>>> x = jnp.ones((1, 2, 4, 4)); w = jnp.ones((2, 1, 3, 3))
>>> depthwise(x, w, stride=(1, 1), padding=((1, 1), (1, 1)), dilation=(1, 1))[0, 0].tolist()
[[4.0, 6.0, 6.0, 4.0], [6.0, 9.0, 9.0, 6.0], [6.0, 9.0, 9.0, 6.0], [4.0, 6.0, 6.0, 4.0]]
"""

from __future__ import annotations

import functools
import itertools
import math
import operator
from collections.abc import Sequence

import jax
import jax.numpy as jnp
from jax import lax

__all__ = ["depthwise", "supports_depthwise"]

# At most this many taps (a 7x7 window): beyond it the unrolled sum grows the program more than it saves.
_MAX_TAPS = 49


def supports_depthwise(x_shape: Sequence[int], w_shape: Sequence[int], groups: int,
                       padding: Sequence[Sequence[int]], channel_last: bool) -> bool:
    """Whether :func:`depthwise` computes this convolution: every input channel its own group, each
    giving the same number of output channels, a window of at most 49 taps, no negative padding."""
    channels = x_shape[-1] if channel_last else x_shape[1]
    window = w_shape[1:-1] if channel_last else w_shape[2:]
    in_per_group = w_shape[-1] if channel_last else w_shape[1]
    return (groups > 1 and groups == channels and in_per_group == 1 and w_shape[0] % groups == 0
            and math.prod(window) <= _MAX_TAPS and all(lo >= 0 and hi >= 0 for lo, hi in padding))


def depthwise(x: jax.Array, w: jax.Array, *, stride: Sequence[int], padding: Sequence[Sequence[int]],
              dilation: Sequence[int], channel_last: bool = False) -> jax.Array:
    """The depthwise convolution of ``x`` (N, C, *spatial) with ``w`` (C*m, 1, *k) (channel-last: x
    (N, *spatial, C), w (C*m, *k, 1)), cross-correlation as ``lax.conv_general_dilated``."""
    caxis = x.ndim - 1 if channel_last else 1
    window = w.shape[1:-1] if channel_last else w.shape[2:]
    per_tap = w.reshape(w.shape[0], -1)  # (O, taps), taps in row-major window order
    mult = w.shape[0] // x.shape[caxis]
    if mult > 1:
        x = jnp.repeat(x, mult, axis=caxis)
    spatial = [d for d in range(x.ndim) if d not in (0, caxis)]
    pads = [(0, 0)] * x.ndim
    for d, p in zip(spatial, padding, strict=True):
        pads[d] = tuple(p)
    xp = jnp.pad(x, pads)
    sizes = [xp.shape[d] for d in spatial]
    out = [(n - (k - 1) * dl - 1) // s + 1
           for n, k, dl, s in zip(sizes, window, dilation, stride, strict=True)]
    bshape = [1] * x.ndim
    bshape[caxis] = w.shape[0]
    strides = [1] * x.ndim
    for d, s in zip(spatial, stride, strict=True):
        strides[d] = s

    def term(t: int, tap: tuple[int, ...]) -> jax.Array:
        start = [0] * x.ndim
        limit = list(xp.shape)
        for d, i, dl, s, o in zip(spatial, tap, dilation, stride, out, strict=True):
            start[d] = i * dl
            limit[d] = i * dl + (o - 1) * s + 1
        return lax.slice(xp, start, limit, strides) * per_tap[:, t].reshape(bshape)

    taps = enumerate(itertools.product(*(range(k) for k in window)))
    return functools.reduce(operator.add, (term(t, tap) for t, tap in taps))
