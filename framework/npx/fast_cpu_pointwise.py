"""1x1 convolutions on XLA:CPU while training: batched matrix products in NCHW (same values and gradients).

A 1x1 convolution (ResNet-50's bottlenecks, MobileNet's expansions and projections, every projection
shortcut) is a matrix product per image: ``y[n] = W @ x[n]`` with ``x[n]`` seen as (C, H*W). XLA:CPU's
convolution kernels work in NHWC, so each convolution is wrapped in transposes, and its weight gradient
is a convolution whose window is the whole image. Written as a batched ``dot_general`` on the NCHW data
itself, the forward pass, the input gradient and the weight gradient are all matrix products on the
layout the network already has: a ResNet-50 training step at batch 16 takes 0.72-0.76x the time, a MobileNet
v2 step 0.74x (notes/speed.md, "1x1 convolutions").

Inference gains nothing (XLA's forward convolution is as fast), so the product form is only the rule
under differentiation: :func:`pointwise` is XLA's convolution when evaluated, and its ``jax.custom_jvp``
rule (which reverse mode transposes) is the batched product's. :func:`supports_pointwise` says when ``npx``
dispatches here (the CPU, the ``fast_cpu`` switch on).

>>> import jax, jax.numpy as jnp
>>> x = jnp.ones((2, 3, 14, 14)); w = jnp.ones((4, 3, 1, 1))
>>> y, vjp = jax.vjp(lambda x, w: pointwise(x, w, (1, 1)), x, w)
>>> y.shape, float(y[0, 0, 0, 0]), vjp(jnp.ones_like(y))[1][:, :, 0, 0].tolist()[0]
((2, 4, 14, 14), 3.0, [392.0, 392.0, 392.0])
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import jax
import jax.numpy as jnp
from jax import lax
from jax.typing import DTypeLike

__all__ = ["pointwise", "supports_pointwise"]

# Output images of at least 14x14: on smaller ones (ResNet-50's last stage, 7x7) XLA's convolution is
# faster, and the per-image weight copies grow with the channels, which are largest there.
_MIN_PIXELS = 196
# The batched product reads the weight once per image (N x O x C floats) and its weight gradient sums N
# per-image products of that size: at most 64 MiB of float32 for each.
_MAX_PER_IMAGE_WEIGHTS = 1 << 24


def supports_pointwise(x_shape: Sequence[int], w_shape: Sequence[int], stride: Sequence[int],
                       padding: Sequence[Sequence[int]], groups: int, channel_last: bool,
                       dtype: DTypeLike = jnp.float32) -> bool:
    """Whether :func:`pointwise` computes this convolution and is expected to be faster: floating NCHW
    data, one group, a 1x1 kernel without padding, an output of at least 14x14 pixels, a bounded
    weight copy.

    >>> supports_pointwise((16, 256, 56, 56), (64, 256, 1, 1), (1, 1), ((0, 0), (0, 0)), 1, False)
    True
    >>> supports_pointwise((16, 2048, 7, 7), (512, 2048, 1, 1), (1, 1), ((0, 0), (0, 0)), 1, False)
    False
    """
    if len(x_shape) != 4 or channel_last or groups != 1 or tuple(w_shape[2:]) != (1, 1):
        return False
    if not jnp.issubdtype(dtype, jnp.floating):
        return False
    if any(lo or hi for lo, hi in padding):
        return False
    n, c, h, w = x_shape
    pixels = math.ceil(h / stride[0]) * math.ceil(w / stride[1])
    return pixels >= _MIN_PIXELS and n * w_shape[0] * c <= _MAX_PER_IMAGE_WEIGHTS


def _product(x: jax.Array, w: jax.Array, stride: tuple[int, int]) -> jax.Array:
    if stride != (1, 1):
        x = x[:, :, ::stride[0], ::stride[1]]
    n, c, h, wd = x.shape
    per_image = jnp.broadcast_to(w.reshape(w.shape[0], c), (n, w.shape[0], c))
    y = lax.dot_general(per_image, x.reshape(n, c, h * wd), (((2,), (1,)), ((0,), (0,))))
    return y.reshape(n, w.shape[0], h, wd)


@functools.partial(jax.custom_jvp, nondiff_argnums=(2,))
def pointwise(x: jax.Array, w: jax.Array, stride: tuple[int, int]) -> jax.Array:
    """The 1x1 convolution of ``x`` (N, C, H, W) with ``w`` (O, C, 1, 1), no padding: XLA's convolution
    when evaluated, batched matrix products when differentiated (either mode)."""
    return lax.conv_general_dilated(x, w, stride, ((0, 0), (0, 0)),
                                    dimension_numbers=("NCHW", "OIHW", "NCHW"))


@pointwise.defjvp
def _jvp(stride: tuple[int, int], primals: tuple, tangents: tuple) -> tuple[jax.Array, jax.Array]:
    (x, w), (dx, dw) = primals, tangents
    return _product(x, w, stride), _product(dx, w, stride) + _product(x, dw, stride)
