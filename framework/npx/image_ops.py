"""MXNet's image operators (``nd.image.*``, MXNet 2.0's ``npx.image.*``) on HWC images and NHWC batches:
``to_tensor``, ``normalize`` (CHW), ``crop``, ``resize``, flips, and the colour adjustments with their
random versions. Integer images saturate (round and clip to the type's range) as MXNet's
``saturate_cast`` does; the random versions draw from the framework's key stream.

>>> import jax.numpy as jnp
>>> img = jnp.full((2, 2, 3), 255, jnp.uint8)
>>> to_tensor(img).shape, float(to_tensor(img).max())
((3, 2, 2), 1.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from ._kernel import compiled

__all__ = ["to_tensor", "normalize", "crop", "resize", "flip_left_right", "flip_top_bottom",
           "random_flip_left_right", "random_flip_top_bottom", "adjust_brightness", "adjust_contrast",
           "adjust_saturation", "adjust_hue", "adjust_lighting", "random_brightness", "random_contrast",
           "random_saturation", "random_hue", "random_color_jitter", "random_lighting"]

_GRAY = (0.299, 0.587, 0.114)
_EIG = onp.array([[55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009],
                  [55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140],
                  [55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203]], onp.float32)


def _hwc(data: jax.Array, op: str) -> None:
    if data.ndim not in (3, 4):
        raise ValueError(f"image.{op}: expected an (H, W, C) image or (N, H, W, C) batch, got shape "
                         f"{tuple(data.shape)}")


def _saturate(val: jax.Array, dtype: Any) -> jax.Array:
    if jnp.issubdtype(dtype, jnp.integer):
        info = jnp.iinfo(dtype)
        return jnp.clip(jnp.round(val), info.min, info.max).astype(dtype)
    return val.astype(dtype)


def _key(key: jax.Array | None) -> jax.Array:
    if key is not None:
        return key
    from ..np import random as _random

    return _random.next_key()


def _random_op(fn: Any) -> Any:
    """``fn`` as one compiled program, its key drawn here (outside the program) when not given."""
    program = compiled("data", "key")(fn)

    import functools

    @functools.wraps(fn)
    def wrapper(data: jax.Array, *args: Any, key: jax.Array | None = None, **kwargs: Any) -> jax.Array:
        return program(data, *args, key=_key(key), **kwargs)

    return wrapper


def to_tensor(data: jax.Array) -> jax.Array:
    """(H, W, C) -> (C, H, W) float32 in [0, 1] (divided by 255); batches too."""
    _hwc(data, "to_tensor")
    return jnp.moveaxis(data.astype(jnp.float32) / 255.0, -1, -3)


def normalize(data: jax.Array, mean: Any = 0.0, std: Any = 1.0) -> jax.Array:
    """``(data - mean) / std`` per channel of a (C, H, W) tensor or (N, C, H, W) batch."""
    if data.ndim not in (3, 4):
        raise ValueError(f"image.normalize: expected (C, H, W) or (N, C, H, W), got {tuple(data.shape)}")
    c = data.shape[-3]
    m = jnp.broadcast_to(jnp.asarray(mean, jnp.float32).reshape(-1), (c,)).reshape(c, 1, 1)
    s = jnp.broadcast_to(jnp.asarray(std, jnp.float32).reshape(-1), (c,)).reshape(c, 1, 1)
    return ((data - m) / s).astype(data.dtype)


def crop(data: jax.Array, x: int, y: int, width: int, height: int) -> jax.Array:
    """The ``width`` x ``height`` region at column ``x``, row ``y``."""
    _hwc(data, "crop")
    h, w = data.shape[-3], data.shape[-2]
    if not (0 <= x and 0 <= y and width > 0 and height > 0 and x + width <= w and y + height <= h):
        raise ValueError(f"image.crop: the region x={x}, y={y}, width={width}, height={height} does not lie "
                         f"inside the {w}x{h} image")
    return data[..., y:y + height, x:x + width, :]


def _linear_matrix(n_in: int, n_out: int, nearest: bool) -> onp.ndarray:
    """(n_out, n_in) weights of OpenCV-style resampling (pixel centres aligned, no antialiasing)."""
    m = onp.zeros((n_out, n_in), onp.float32)
    scale = n_in / n_out
    for o in range(n_out):
        if nearest:
            m[o, min(int(onp.floor(o * scale)), n_in - 1)] = 1
            continue
        src = (o + 0.5) * scale - 0.5
        i0 = int(onp.floor(src))
        frac = src - i0
        if i0 < 0:
            i0, frac = 0, 0.0
        if i0 >= n_in - 1:
            i0, frac = n_in - 1, 0.0
        m[o, i0] += 1 - frac
        m[o, min(i0 + 1, n_in - 1)] += frac
    return m


@compiled("data")
def resize(data: jax.Array, size: int | Sequence[int] = (), keep_ratio: bool = False,
           interp: int = 1) -> jax.Array:
    """Resize to ``size`` = (width, height), or an int: a square, or with ``keep_ratio`` the shorter
    side. ``interp`` 0 (nearest) or 1 (bilinear, OpenCV's pixel-centre convention)."""
    _hwc(data, "resize")
    h, w = data.shape[-3], data.shape[-2]
    if isinstance(size, int) or (isinstance(size, (tuple, list)) and len(size) == 1):
        s = int(size if isinstance(size, int) else size[0])
        if keep_ratio:
            ow, oh = (s, int(h * s / w)) if w <= h else (int(w * s / h), s)
        else:
            ow = oh = s
    else:
        ow, oh = (int(v) for v in size)
    if interp not in (0, 1):
        raise ValueError(f"image.resize: interp={interp} is not supported here (0 nearest, 1 bilinear); "
                         "use gluon.data.vision.transforms.Resize for the other OpenCV methods")
    mh = jnp.asarray(_linear_matrix(h, oh, interp == 0))
    mw = jnp.asarray(_linear_matrix(w, ow, interp == 0))
    out = jnp.einsum("oh,...hwc,pw->...opc", mh, data.astype(jnp.float32), mw)
    return _saturate(out, data.dtype)


def flip_left_right(data: jax.Array) -> jax.Array:
    """Mirror the columns."""
    _hwc(data, "flip_left_right")
    return jnp.flip(data, axis=-2)


def flip_top_bottom(data: jax.Array) -> jax.Array:
    """Mirror the rows."""
    _hwc(data, "flip_top_bottom")
    return jnp.flip(data, axis=-3)


@_random_op
def random_flip_left_right(data: jax.Array, p: float = 0.5, key: jax.Array | None = None) -> jax.Array:
    """``flip_left_right`` with probability ``p``."""
    return jnp.where(jax.random.bernoulli(_key(key), p), flip_left_right(data), data)


@_random_op
def random_flip_top_bottom(data: jax.Array, p: float = 0.5, key: jax.Array | None = None) -> jax.Array:
    """``flip_top_bottom`` with probability ``p``."""
    return jnp.where(jax.random.bernoulli(_key(key), p), flip_top_bottom(data), data)


def adjust_brightness(data: jax.Array, alpha: Any) -> jax.Array:
    return _saturate(data.astype(jnp.float32) * alpha, data.dtype)


def adjust_contrast(data: jax.Array, alpha: Any) -> jax.Array:
    x = data.astype(jnp.float32)
    if x.shape[-1] > 1:
        gray = x[..., 0] * _GRAY[0] + x[..., 1] * _GRAY[1] + x[..., 2] * _GRAY[2]
    else:
        gray = x[..., 0]
    mean = jnp.mean(gray, axis=(-2, -1), keepdims=True)[..., None]
    return _saturate(x * alpha + (1 - alpha) * mean, data.dtype)


def adjust_saturation(data: jax.Array, alpha: Any) -> jax.Array:
    """As MXNet's kernel: the grey level it blends with is the blue channel times 0.114 (its loop keeps
    only the last term of the weighted sum)."""
    if data.shape[-1] == 1:
        return data
    x = data.astype(jnp.float32)
    gray = (x[..., 2:3] * _GRAY[2]) * (1 - alpha)
    return _saturate(gray + x * alpha, data.dtype)


def _rgb_to_hls(r, g, b):
    r, g, b = r / 255.0, g / 255.0, b / 255.0
    vmax = jnp.maximum(jnp.maximum(r, g), b)
    vmin = jnp.minimum(jnp.minimum(r, g), b)
    diff = vmax - vmin
    light = (vmax + vmin) * 0.5
    colored = diff > jnp.finfo(jnp.float32).eps
    safe = jnp.where(colored, diff, 1.0)
    sat = jnp.where(light < 0.5, diff / jnp.where(colored, vmax + vmin, 1.0),
                    diff / jnp.where(colored, 2.0 - vmax - vmin, 1.0))
    k = 60.0 / safe
    hue = jnp.where(vmax == r, (g - b) * k, jnp.where(vmax == g, (b - r) * k + 120.0, (r - g) * k + 240.0))
    hue = jnp.where(hue < 0, hue + 360.0, hue)
    return jnp.where(colored, hue, 0.0), light, jnp.where(colored, sat, 0.0)


def _hls_to_rgb(h, light, s):
    p2 = jnp.where(light <= 0.5, light * (1 + s), light + s - light * s)
    p1 = 2 * light - p2
    h = jnp.mod(h / 60.0, 6.0)
    sector = jnp.floor(h).astype(jnp.int32)
    f = h - sector
    tab = jnp.stack([p2, p1, p1 + (p2 - p1) * (1 - f), p1 + (p2 - p1) * f], axis=-1)
    order = jnp.asarray([[1, 3, 0], [1, 0, 2], [3, 0, 1], [0, 2, 1], [0, 1, 3], [2, 1, 0]])  # (b, g, r)
    pick = order[sector]
    b, g, r = (jnp.take_along_axis(tab, pick[..., i:i + 1], axis=-1)[..., 0] for i in range(3))
    grey = s == 0
    return (jnp.where(grey, light, r) * 255.0, jnp.where(grey, light, g) * 255.0,
            jnp.where(grey, light, b) * 255.0)


@compiled("data", "alpha")
def adjust_hue(data: jax.Array, alpha: Any) -> jax.Array:
    if data.shape[-1] == 1:
        return data
    x = data.astype(jnp.float32)
    h, light, s = _rgb_to_hls(x[..., 0], x[..., 1], x[..., 2])
    r, g, b = _hls_to_rgb(h + alpha * 360.0, light, s)
    return _saturate(jnp.stack([r, g, b], axis=-1), data.dtype)


def adjust_lighting(data: jax.Array, alpha: Sequence[float] = (0.0, 0.0, 0.0)) -> jax.Array:
    """AlexNet's PCA lighting noise with MXNet's fixed eigenvectors, scaled by ``alpha`` (R, G, B)."""
    if data.shape[-1] == 1:
        return data
    pca = jnp.asarray(_EIG) @ jnp.asarray(alpha, jnp.float32)
    return _saturate(data.astype(jnp.float32) + pca, data.dtype)


def _uniform(key, lo, hi):
    return jax.random.uniform(key, (), jnp.float32, lo, hi)


@_random_op
def random_brightness(data: jax.Array, min_factor: float, max_factor: float,
                      key: jax.Array | None = None) -> jax.Array:
    return adjust_brightness(data, _uniform(_key(key), min_factor, max_factor))


@_random_op
def random_contrast(data: jax.Array, min_factor: float, max_factor: float,
                    key: jax.Array | None = None) -> jax.Array:
    return adjust_contrast(data, _uniform(_key(key), min_factor, max_factor))


@_random_op
def random_saturation(data: jax.Array, min_factor: float, max_factor: float,
                      key: jax.Array | None = None) -> jax.Array:
    return adjust_saturation(data, _uniform(_key(key), min_factor, max_factor))


@_random_op
def random_hue(data: jax.Array, min_factor: float, max_factor: float,
               key: jax.Array | None = None) -> jax.Array:
    return adjust_hue(data, _uniform(_key(key), min_factor, max_factor))


@_random_op
def random_color_jitter(data: jax.Array, brightness: float = 0.0, contrast: float = 0.0,
                        saturation: float = 0.0, hue: float = 0.0, key: jax.Array | None = None) -> jax.Array:
    """Brightness, contrast, saturation and hue jitter in a random order (each only when its amount is
    positive), as MXNet's operator."""
    keys = jax.random.split(_key(key), 5)
    steps = [(brightness, lambda x, k: adjust_brightness(x, 1 + _uniform(k, -brightness, brightness))),
             (contrast, lambda x, k: adjust_contrast(x, 1 + _uniform(k, -contrast, contrast))),
             (saturation, lambda x, k: adjust_saturation(x, 1 + _uniform(k, -saturation, saturation))),
             (hue, lambda x, k: adjust_hue(x, _uniform(k, -hue, hue)))]
    order = jax.random.permutation(keys[4], 4)
    out = data
    for pos in range(4):  # four static slots; each applies the step the permutation puts there
        branches = [(lambda x, k, s=s, a=a: s(x, k) if a > 0 else x) for a, s in steps]
        out = jax.lax.switch(order[pos], branches, out, keys[pos])
    return out


@_random_op
def random_lighting(data: jax.Array, alpha_std: float = 0.05, key: jax.Array | None = None) -> jax.Array:
    """``adjust_lighting`` with alphas drawn from N(0, alpha_std)."""
    return adjust_lighting(data, jax.random.normal(_key(key), (3,)) * alpha_std)
