"""MXNet 2.0's further ``npx`` names: 1.x operators under their 2.0 names, and 2.0's own operators.

Most of these are, in MXNet 2.0, the very C++ operator of a 1.x ``nd``/``nd.contrib`` function registered
under an extra ``_npx_`` name, with the same arguments and defaults (``npx.box_nms`` is
``nd.contrib.box_nms``, ``npx.slice_channel`` is ``nd.SliceChannel``, ``npx.stop_gradient`` is
``nd.BlockGrad``). :data:`ALIASES` lists them, each with the framework function it is; ``framework.npx``
resolves them on first use (``framework.nd`` imports ``framework.npx``, so not at import time). New in
2.0 and written here: ``index_add``/``index_update`` (scatter into ``a`` at index columns),
``set_np_default_dtype``/``is_np_default_dtype``, and the two intgemm operators that do not depend on
intgemm's CPU-specific weight layout (``intgemm_maxabsolute``, ``intgemm_prepare_data``; the others are
refused in ``framework/_refusals.py``).

>>> from framework import np, npx
>>> a = np.zeros((2, 3))
>>> ind = np.array([[0, 1, 1], [2, 0, 0]], dtype='int32')   # the positions (0, 2), (1, 0), (1, 0)
>>> npx.index_add(a, ind, np.array([1.0, 2.0, 3.0])).tolist()
[[0.0, 0.0, 1.0], [5.0, 0.0, 0.0]]
>>> npx.box_iou is __import__('framework').nd.contrib.box_iou
True
"""

from __future__ import annotations

import importlib
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from ..np.dispatch import recordable

__all__ = ["ALIASES", "resolve", "index_add", "index_update", "set_np_default_dtype", "is_np_default_dtype",
           "intgemm_maxabsolute", "intgemm_prepare_data"]

_ND, _CONTRIB = "framework.nd", "framework.nd.contrib"

#: ``{npx name: (module, attribute)}``: MXNet 2.0 ``npx`` names whose operator is that of the 1.x function.
ALIASES: dict[str, tuple[str, str]] = {
    "Device": ("framework.device", "Device"),
    # elementwise, shape and reduction operators of mx.nd
    "add_n": (_ND, "add_n"),
    "broadcast_greater": (_ND, "broadcast_greater"),
    "broadcast_like": (_ND, "broadcast_like"),
    "softsign": (_ND, "softsign"),
    "norm": (_ND, "norm"),
    "pad": (_ND, "pad"),
    "slice_like": (_ND, "slice_like"),
    "slice_channel": (_ND, "SliceChannel"),
    "stop_gradient": (_ND, "BlockGrad"),
    "sequence_last": (_ND, "SequenceLast"),
    "sequence_reverse": (_ND, "SequenceReverse"),
    "ctc_loss": (_ND, "CTCLoss"),
    "scalar_poisson": (_ND, "random_poisson"),
    "tensor_poisson": (_ND, "sample_poisson"),
    # mx.nd.contrib
    "box_nms": (_CONTRIB, "box_nms"),
    "box_iou": (_CONTRIB, "box_iou"),
    "box_encode": (_CONTRIB, "box_encode"),
    "box_decode": (_CONTRIB, "box_decode"),
    "bipartite_matching": (_CONTRIB, "bipartite_matching"),
    "deformable_convolution": (_CONTRIB, "DeformableConvolution"),
    "modulated_deformable_convolution": (_CONTRIB, "ModulatedDeformableConvolution"),
    "sync_batch_norm": (_CONTRIB, "SyncBatchNorm"),
    "round_ste": (_CONTRIB, "round_ste"),
    "sign_ste": (_CONTRIB, "sign_ste"),
    "interleaved_matmul_selfatt_qk": (_CONTRIB, "interleaved_matmul_selfatt_qk"),
    "interleaved_matmul_selfatt_valatt": (_CONTRIB, "interleaved_matmul_selfatt_valatt"),
    "interleaved_matmul_encdec_qk": (_CONTRIB, "interleaved_matmul_encdec_qk"),
    "interleaved_matmul_encdec_valatt": (_CONTRIB, "interleaved_matmul_encdec_valatt"),
    # quantization (mx.nd.contrib)
    "contrib_quantize": (_CONTRIB, "quantize"),
    "contrib_quantize_v2": (_CONTRIB, "quantize_v2"),
    "contrib_calibrate_entropy": (_CONTRIB, "calibrate_entropy"),
    "requantize": (_CONTRIB, "requantize"),
    "quantized_act": (_CONTRIB, "quantized_act"),
    "quantized_conv": (_CONTRIB, "quantized_conv"),
    "quantized_elemwise_add": (_CONTRIB, "quantized_elemwise_add"),
    "quantized_elemwise_mul": (_CONTRIB, "quantized_elemwise_mul"),
    "quantized_embedding": (_CONTRIB, "quantized_embedding"),
    "quantized_flatten": (_CONTRIB, "quantized_flatten"),
    "quantized_fully_connected": (_CONTRIB, "quantized_fully_connected"),
    "quantized_pooling": (_CONTRIB, "quantized_pooling"),
}


def resolve(name: str) -> Any:
    """The framework object that the 2.0 ``npx`` name ``name`` (a key of :data:`ALIASES`) is."""
    module, attr = ALIASES[name]
    return getattr(importlib.import_module(module), attr)


def _index_columns(a: jax.Array, ind: Any, val: Any, op: str) -> tuple[tuple[jax.Array, ...], jax.Array]:
    """``ind`` as a tuple of index vectors into ``a``'s first axes, and ``val`` broadcast to the
    selected block's shape ``(number of positions,) + a.shape[len(tuple):]``; MXNet's checks."""
    a, val = jnp.asarray(a), jnp.asarray(val)
    ind = jnp.asarray(ind)
    if a.ndim == 0:
        raise ValueError(f"npx.{op}: a is a scalar (0-d); index it as a 1-d array, or use + instead")
    if not jnp.issubdtype(ind.dtype, jnp.integer):
        raise TypeError(f"npx.{op}: ind has dtype {ind.dtype}; it must be int32 or int64")
    if ind.size == 0 or ind.ndim > 2:
        raise ValueError(f"npx.{op}: ind has shape {ind.shape}; it must be non-empty with at most 2 "
                         "dimensions, (number of indexed axes, number of positions)")
    if val.dtype != a.dtype:
        raise TypeError(f"npx.{op}: val has dtype {val.dtype} but a has {a.dtype}; they must be the "
                        f"same (cast val with val.astype(a.dtype))")
    ind = ind.reshape((1, -1)) if ind.ndim < 2 else ind
    n_axes, n_pos = ind.shape
    if n_axes > a.ndim:
        raise IndexError(f"npx.{op}: ind indexes {n_axes} axes but a has only {a.ndim}")
    if not isinstance(ind, jax.core.Tracer):
        concrete = onp.asarray(ind)
        for axis in range(n_axes):
            bad = (concrete[axis] < 0) | (concrete[axis] >= a.shape[axis])
            if bad.any():
                raise IndexError(f"npx.{op}: index {int(concrete[axis][bad][0])} is out of bounds for axis "
                                 f"{axis} with size {a.shape[axis]} (negative indices are not accepted)")
    block = (n_pos, *a.shape[n_axes:])
    v = val.reshape((1,)) if val.ndim == 0 else val
    if v.ndim > len(block) or not all(s in (1, t) for s, t in zip(v.shape[::-1], block[::-1], strict=False)):
        raise ValueError(f"npx.{op}: val of shape {val.shape} does not broadcast to {block}, the "
                         f"{n_pos} indexed positions of a {a.shape}")
    return tuple(ind[k] for k in range(n_axes)), jnp.broadcast_to(v, block)


@recordable
def index_add(a: jax.Array, ind: jax.Array, val: jax.Array) -> jax.Array:
    """A copy of ``a`` with ``val`` added at the positions that the columns of ``ind`` name (``ind``:
    shape ``(k, n)``, ``n`` positions in ``a``'s first ``k`` axes; 1-d or 0-d: ``k = 1``). ``val``
    broadcasts to ``(n,) + a.shape[k:]``; a position named twice receives both additions."""
    index, v = _index_columns(a, ind, val, "index_add")
    return jnp.asarray(a).at[index].add(v)


@recordable
def index_update(a: jax.Array, ind: jax.Array, val: jax.Array) -> jax.Array:
    """A copy of ``a`` with the positions that the columns of ``ind`` name set to ``val`` (as
    :func:`index_add`); which value a position named twice keeps is unspecified, as in MXNet."""
    index, v = _index_columns(a, ind, val, "index_update")
    return jnp.asarray(a).at[index].set(v)


def _float32(data: Any, op: str) -> jax.Array:
    data = jnp.asarray(data)
    if data.dtype != jnp.float32:
        raise TypeError(f"npx.{op}: data has dtype {data.dtype}; it takes float32 (data.astype('float32'))")
    return data


@recordable
def intgemm_maxabsolute(data: jax.Array) -> jax.Array:
    """The largest absolute value of a float32 array, as a float32 array of shape (1,)."""
    return jnp.max(jnp.abs(_float32(data, "intgemm_maxabsolute"))).reshape((1,))


@recordable
def intgemm_prepare_data(data: jax.Array, maxabs: jax.Array) -> jax.Array:
    """float32 ``data`` quantized to int8 so that ``maxabs`` maps to 127: ``data * 127 / maxabs`` rounded
    to the nearest integer (halves to even) and clipped to [-127, 127] (-128 is never produced)."""
    scaled = _float32(data, "intgemm_prepare_data") * (127.0 / jnp.asarray(maxabs, jnp.float32).reshape(()))
    return jnp.clip(jnp.round(scaled), -127, 127).astype(jnp.int8)


def is_np_default_dtype() -> bool:
    """False: framework's ``np`` creates float32 arrays by default (MXNet's default), never float64."""
    return False


def set_np_default_dtype(is_np_default_dtype: bool = True) -> bool:  # noqa: FBT001 (MXNet's signature)
    """MXNet 2.0's switch to NumPy's float64 default. Only ``False`` (the float32 default, in force
    already) is accepted; returns the previous setting (False)."""
    if is_np_default_dtype:
        raise ValueError(
            "npx.set_np_default_dtype(True): framework's np keeps MXNet's float32 default (JAX computes "
            "in 32 bits unless jax_enable_x64 is set); pass dtype='float64' to the array functions that "
            "need it, with jax.config.update('jax_enable_x64', True)")
    return False
