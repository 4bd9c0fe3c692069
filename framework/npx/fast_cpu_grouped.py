"""Grouped convolutions on XLA:CPU as one convolution per group (same values and gradients).

A grouped convolution (ResNeXt's 32 groups, RegNet's and d2l's AnyNet's groups of 16 channels, ShuffleNet)
splits the channels into ``groups`` independent convolutions. XLA:CPU runs it as one grouped
convolution whose gradients are the slow part: a training step of one ResNeXt layer (16 x 128 x 56 x 56,
32 groups of 4 channels, 3x3) takes 60 s, against 1.0 s for the same layer written as 32 convolutions on
channel slices, concatenated; the forward pass is 2-3x faster that way too and compiles faster
(notes/speed.md, "Grouped convolutions"). ``jax.grad`` differentiates the slices, the convolutions and
the concatenation, so every mode and order of differentiation works.

:func:`supports_grouped` says when ``npx`` dispatches here (the CPU, the ``fast_cpu`` switch on, after the
depthwise path of :mod:`.fast_cpu_depthwise` declined).

>>> import jax.numpy as jnp
>>> x = jnp.ones((1, 4, 3, 3)); w = jnp.ones((6, 2, 1, 1))
>>> grouped(x, w, 2, window_strides=(1, 1), padding=((0, 0), (0, 0)),
...         dimension_numbers=("NCHW", "OIHW", "NCHW")).shape
(1, 6, 3, 3)
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

__all__ = ["grouped", "supports_grouped"]

# At most this many groups: each is its own convolution in the program (compile time grows with them).
_MAX_GROUPS = 64


def supports_grouped(groups: int) -> bool:
    """Whether :func:`grouped` takes a convolution of ``groups`` groups: more than one, at most 64.

    >>> supports_grouped(32), supports_grouped(1), supports_grouped(128)
    (True, False, False)
    """
    return 1 < groups <= _MAX_GROUPS


def grouped(x: jax.Array, w: jax.Array, groups: int, *, dimension_numbers: Any, **conv: Any) -> jax.Array:
    """``lax.conv_general_dilated(x, w, feature_group_count=groups, ...)`` computed group by group:
    the input's channels and the weight's output channels (axis 0 in every layout the framework uses)
    split in ``groups`` equal parts, one convolution each, the outputs concatenated along the channels.
    ``conv`` is the rest of ``lax.conv_general_dilated``'s keyword arguments."""
    dn = lax.conv_dimension_numbers(x.shape, w.shape, dimension_numbers)
    in_axis, out_axis = dn.lhs_spec[1], dn.out_spec[1]
    xs = jnp.split(x, groups, axis=in_axis)
    ws = jnp.split(w, groups, axis=dn.rhs_spec[0])
    outs = [lax.conv_general_dilated(xg, wg, dimension_numbers=dimension_numbers, **conv)
            for xg, wg in zip(xs, ws, strict=True)]
    return jnp.concatenate(outs, axis=out_axis)
