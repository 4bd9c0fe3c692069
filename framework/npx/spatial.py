"""MXNet's spatial operators on NCHW maps: ``grid_generator``, ``bilinear_sampler``,
``spatial_transformer``, ``correlation`` (FlowNet), ``lrn``, ``crop``, ``im2col``/``col2im``.

Sampling grids hold (x, y) in [-1, 1] (x first), as MXNet's; points outside the map read zeros.

>>> import jax.numpy as jnp
>>> theta = jnp.array([[1.0, 0, 0, 0, 1, 0]])  # the identity transform
>>> x = jnp.arange(6.0).reshape(1, 1, 2, 3)
>>> spatial_transformer(x, theta, target_shape=(2, 3)).tolist() == x.tolist()
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

__all__ = ["grid_generator", "bilinear_sampler", "spatial_transformer", "correlation", "lrn", "crop",
           "im2col", "col2im"]


def _pair(v: Any, name: str, op: str) -> tuple[int, int]:
    try:
        a, b = (int(x) for x in v)
    except (TypeError, ValueError):
        raise ValueError(f"{op}: {name}={v!r} must be (height, width)") from None
    return a, b


def grid_generator(data: jax.Array, transform_type: str = "affine", target_shape: Sequence[int] = (0, 0)
                   ) -> jax.Array:
    """A sampling grid (N, 2, H, W): from affine matrices ``data`` (N, 6) over a ``target_shape``
    lattice, or (``'warp'``) from an optical flow ``data`` (N, 2, H, W) in pixels."""
    op = "GridGenerator"
    if transform_type == "affine":
        h, w = _pair(target_shape, "target_shape", op)
        if h < 2 or w < 2:
            raise ValueError(f"{op}: target_shape={tuple(target_shape)} needs at least 2 rows and columns")
        theta = data.reshape(-1, 2, 3)
        xs = -1.0 + jnp.arange(w, dtype=data.dtype) * (2.0 / (w - 1))
        ys = -1.0 + jnp.arange(h, dtype=data.dtype) * (2.0 / (h - 1))
        gx, gy = jnp.meshgrid(xs, ys)
        dst = jnp.stack([gx.reshape(-1), gy.reshape(-1), jnp.ones(h * w, data.dtype)])  # (3, H*W)
        return jnp.einsum("nij,jp->nip", theta, dst).reshape(-1, 2, h, w)
    if transform_type == "warp":
        if data.ndim != 4 or data.shape[1] != 2:
            raise ValueError(f"{op}: a 'warp' flow must be (N, 2, H, W), got {tuple(data.shape)}")
        h, w = data.shape[2], data.shape[3]
        gx = jnp.broadcast_to(jnp.arange(w, dtype=data.dtype), (h, w))
        gy = jnp.broadcast_to(jnp.arange(h, dtype=data.dtype)[:, None], (h, w))
        scale = jnp.asarray([(w - 1.0) / 2.0, (h - 1.0) / 2.0], data.dtype).reshape(1, 2, 1, 1)
        return (data + jnp.stack([gx, gy])[None]) / scale - 1.0
    raise ValueError(f"{op}: transform_type={transform_type!r} must be 'affine' or 'warp'")


def bilinear_sampler(data: jax.Array, grid: jax.Array, cudnn_off: bool | None = None) -> jax.Array:
    """Sample ``data`` (N, C, H, W) bilinearly at ``grid`` (N, 2, Ho, Wo) -> (N, C, Ho, Wo)."""
    if data.ndim != 4 or grid.ndim != 4 or grid.shape[1] != 2 or grid.shape[0] != data.shape[0]:
        raise ValueError(f"BilinearSampler: data must be (N, C, H, W) and grid (N, 2, Ho, Wo), got "
                         f"{tuple(data.shape)} and {tuple(grid.shape)}")
    n, c, h, w = data.shape
    x = (grid[:, 0] + 1) * (w - 1) / 2  # (N, Ho, Wo)
    y = (grid[:, 1] + 1) * (h - 1) / 2
    x0, y0 = jnp.floor(x), jnp.floor(y)
    wx1, wy1 = x - x0, y - y0
    x0i, y0i = x0.astype(jnp.int32), y0.astype(jnp.int32)
    flat = data.reshape(n, c, h * w)

    def tap(yi, xi, weight):
        ok = (xi >= 0) & (xi <= w - 1) & (yi >= 0) & (yi <= h - 1)
        idx = jnp.clip(yi, 0, h - 1) * w + jnp.clip(xi, 0, w - 1)  # (N, Ho, Wo)
        vals = jnp.take_along_axis(flat, idx.reshape(n, 1, -1), axis=2).reshape((n, c) + idx.shape[1:])
        return vals * jnp.where(ok, weight, 0)[:, None]

    return (tap(y0i, x0i, (1 - wy1) * (1 - wx1)) + tap(y0i, x0i + 1, (1 - wy1) * wx1)
            + tap(y0i + 1, x0i, wy1 * (1 - wx1)) + tap(y0i + 1, x0i + 1, wy1 * wx1)).astype(data.dtype)


def spatial_transformer(data: jax.Array, loc: jax.Array, target_shape: Sequence[int] = (0, 0),
                        transform_type: str = "affine", sampler_type: str = "bilinear",
                        cudnn_off: bool | None = None) -> jax.Array:
    """``bilinear_sampler(data, grid_generator(loc, 'affine', target_shape))``."""
    if transform_type != "affine" or sampler_type != "bilinear":
        raise ValueError("SpatialTransformer: MXNet supports transform_type='affine' with "
                         "sampler_type='bilinear' only")
    return bilinear_sampler(data, grid_generator(loc, "affine", target_shape))


def correlation(data1: jax.Array, data2: jax.Array, kernel_size: int = 1, max_displacement: int = 1,
                stride1: int = 1, stride2: int = 1, pad_size: int = 0, is_multiply: bool = True) -> jax.Array:
    """FlowNet's correlation: for every displacement (dy, dx) of the (2r+1)^2 grid (r =
    max_displacement // stride2, steps of stride2) and every output position, the mean over a
    ``kernel_size`` window and the channels of ``data1 * shifted data2`` (or ``|data1 - data2|``)."""
    op = "Correlation"
    if data1.shape != data2.shape or data1.ndim != 4:
        raise ValueError(f"{op}: data1 and data2 must be (N, C, H, W) of one shape, got "
                         f"{tuple(data1.shape)} and {tuple(data2.shape)}")
    n, c, h, w = data1.shape
    k, md, s1, s2, pad = (int(v) for v in (kernel_size, max_displacement, stride1, stride2, pad_size))
    border = md + (k - 1) // 2
    ph, pw = h + 2 * pad, w + 2 * pad
    th, tw = -(-(ph - 2 * border) // s1), -(-(pw - 2 * border) // s1)
    if th < 1 or tw < 1:
        raise ValueError(f"{op}: the maps ({h}x{w}, pad {pad}) are too small for max_displacement={md}, "
                         f"kernel_size={k}")
    radius = md // s2
    p1 = jnp.pad(data1, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    p2 = jnp.pad(data2, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    rows = md + s1 * jnp.arange(th)
    cols = md + s1 * jnp.arange(tw)
    shifts = jnp.arange(-radius, radius + 1) * s2
    win = jnp.arange(k)
    # (th, k) row indices of data1's windows; data2's add a displacement
    r1 = rows[:, None] + win[None, :]
    c1 = cols[:, None] + win[None, :]
    a = p1[:, :, r1][:, :, :, :, c1]  # (N, C, th, k, tw, k)

    def one(dy, dx):
        b = p2[:, :, r1 + dy][:, :, :, :, c1 + dx]
        v = a * b if is_multiply else jnp.abs(a - b)
        return jnp.sum(v, axis=(1, 3, 5)) / (k * k * c)  # (N, th, tw)

    dys, dxs = jnp.meshgrid(shifts, shifts, indexing="ij")
    chunk = max(1, min(dys.size, (1 << 24) // max(n * c * th * tw * k * k, 1)))
    out = lax.map(lambda d: one(*d), (dys.reshape(-1), dxs.reshape(-1)), batch_size=chunk)  # (D*D, N, th, tw)
    return jnp.transpose(out, (1, 0, 2, 3))


def lrn(data: jax.Array, alpha: float = 1e-4, beta: float = 0.75, knorm: float = 2.0,
        nsize: int | None = None) -> jax.Array:
    """Local response normalisation across channels: ``x / (knorm + alpha/nsize * sum of x^2 over the
    nsize neighbouring channels)^beta``."""
    if nsize is None:
        raise TypeError("LRN: nsize (the number of neighbouring channels) is required")
    half = int(nsize) // 2
    sq = jnp.pad(data * data, ((0, 0), (half, half)) + ((0, 0),) * (data.ndim - 2))
    window = (1, int(nsize)) + (1,) * (data.ndim - 2)
    summed = lax.reduce_window(sq, 0.0, lax.add, window, (1,) * data.ndim, "VALID")
    return data * (knorm + (alpha / nsize) * summed) ** (-beta)


def crop(*data: jax.Array, num_args: int = 1, offset: Sequence[int] = (0, 0), h_w: Sequence[int] = (0, 0),
         center_crop: bool = False) -> jax.Array:
    """Crop (N, C, H, W) ``data[0]`` to ``h_w`` or to ``data[1]``'s height and width, at ``offset``
    (y, x) or centred."""
    op = "Crop"
    if not data or len(data) != num_args or num_args not in (1, 2):
        raise ValueError(f"{op}: num_args={num_args} must be 1 (crop to h_w) or 2 (crop like the second "
                         f"input) and match the {len(data)} input(s)")
    x = data[0]
    oh, ow = (data[1].shape[2], data[1].shape[3]) if num_args == 2 else _pair(h_w, "h_w", op)
    if center_crop:
        y0, x0 = (x.shape[2] - oh) // 2, (x.shape[3] - ow) // 2
    else:
        y0, x0 = _pair(offset, "offset", op)
    if not (0 <= y0 <= x.shape[2] - oh and 0 <= x0 <= x.shape[3] - ow) or oh < 1 or ow < 1:
        raise ValueError(f"{op}: a ({oh}, {ow}) crop at offset ({y0}, {x0}) does not fit data "
                         f"{tuple(x.shape)}")
    return x[:, :, y0:y0 + oh, x0:x0 + ow]


def _conv_args(kernel, stride, dilate, pad, nd):
    def norm(v, default):
        v = tuple(v) if v else (default,) * nd
        return tuple(int(i) for i in v)
    return norm(kernel, 1), norm(stride, 1), norm(dilate, 1), norm(pad, 0)


def im2col(data: jax.Array, kernel: Sequence[int] = (), stride: Sequence[int] = (),
           dilate: Sequence[int] = (), pad: Sequence[int] = ()) -> jax.Array:
    """Sliding windows as columns: (N, C*prod(kernel), number of positions), channel-major as MXNet."""
    nd = data.ndim - 2
    k, s, d, p = _conv_args(kernel, stride, dilate, pad, nd)
    patches = lax.conv_general_dilated_patches(data, k, s, [(i, i) for i in p], rhs_dilation=d)
    return patches.reshape(patches.shape[0], patches.shape[1], -1)


def col2im(data: jax.Array, output_size: Sequence[int] = (), kernel: Sequence[int] = (),
           stride: Sequence[int] = (), dilate: Sequence[int] = (), pad: Sequence[int] = ()) -> jax.Array:
    """The adjoint of :func:`im2col`: columns summed back into (N, C, *output_size)."""
    out_size = tuple(int(v) for v in output_size)
    nd = len(out_size)
    k = _conv_args(kernel, stride, dilate, pad, nd)[0]
    c = data.shape[1] // math.prod(k)
    zeros = jnp.zeros((data.shape[0], c) + out_size, data.dtype)
    _, vjp = jax.vjp(lambda x: im2col(x, kernel, stride, dilate, pad), zeros)
    return vjp(data)[0]
