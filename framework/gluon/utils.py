"""Gluon utilities: splitting batches across devices, global-norm clipping, checksums, downloads.

>>> from framework import gluon, np, npx
>>> parts = gluon.utils.split_and_load(np.arange(8).reshape(4, 2), [npx.cpu(0), npx.cpu(1)])
>>> [p.shape for p in parts], [p.devices() == {d} for p, d in zip(parts, [npx.cpu(0), npx.cpu(1)])]
([(2, 2), (2, 2)], [True, True])
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from .. import _compile
from .. import device as _device
from ..util import is_np_array, is_np_shape
from ._download import DownloadError, check_sha1, download
from ._download import gluon_repo_url as _get_repo_url
from ._download import repo_file_url as _get_repo_file_url
from .hooks import HookHandle

__all__ = ["split_data", "split_and_load", "clip_global_norm", "check_sha1", "check_finite", "download",
           "DownloadError", "HookHandle", "_get_repo_url", "_get_repo_file_url", "replace_file",
           "shape_is_known", "is_np_array", "is_np_shape"]


def _sections(shape: tuple, num_slice: int, batch_axis: int, even_split: bool) -> tuple[int, ...]:
    """The bounds of the slices along ``batch_axis`` (MXNet's rule: the first ``size % num_slice``
    slices get one extra element when ``even_split=False``)."""
    if not 0 <= batch_axis < len(shape):
        raise ValueError(f"batch_axis={batch_axis} is out of range for data with shape {shape}.")
    size = shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise ValueError(
            f"data with shape {shape} cannot be evenly split into {num_slice} slices along axis "
            f"{batch_axis}. Use a batch size that's multiple of {num_slice} or set even_split=False to "
            "allow uneven partitioning of data."
        )
    if size < num_slice:
        raise ValueError(
            f"Too many slices for data with shape {shape}. Arguments are num_slice={num_slice} and "
            f"batch_axis={batch_axis}."
        )
    each, extras = divmod(size, num_slice)
    sizes = [each + 1] * extras + [each] * (num_slice - extras)
    return tuple(itertools.accumulate(sizes, initial=0))


def split_data(data: Any, num_slice: int, batch_axis: int = 0, even_split: bool = True) -> list[Any]:
    """Split ``data`` into ``num_slice`` slices along ``batch_axis`` (MXNet's rule: the first
    ``size % num_slice`` slices get one extra element when ``even_split=False``)."""
    shape = tuple(data.shape)
    bounds = _sections(shape, num_slice, batch_axis, even_split)
    if num_slice == 1:
        return [data]
    index = [slice(None)] * len(shape)
    out = []
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        index[batch_axis] = slice(lo, hi)
        out.append(data[tuple(index)])
    return out


def _home(data: Any) -> jax.Device | None:
    """The one device a concrete ``jax.Array`` lives on; None for anything else (a tracer, a sharded
    array, host data)."""
    if not isinstance(data, jax.Array) or isinstance(data, jax.core.Tracer):
        return None
    here = data.devices()
    return next(iter(here)) if len(here) == 1 else None


def _host_view(data: Any) -> onp.ndarray | None:
    """A CPU array's memory as NumPy (read in place: it cannot change), else None."""
    home = _home(data)
    return onp.asarray(data) if home is not None and home.platform == "cpu" else None


def _cut(bounds: tuple[int, ...], axis: int) -> Any:
    """The function of the compiled split: the slices between consecutive ``bounds`` along ``axis``."""
    def cut(x: jax.Array) -> tuple[jax.Array, ...]:
        return tuple(jax.lax.slice_in_dim(x, lo, hi, axis=axis) for lo, hi in zip(bounds[:-1], bounds[1:],
                                                                                   strict=True))
    return cut


# A CPU array of at least this many bytes is sliced on the host instead: its slices are read in place
# (no copy), which beats a program's copy from about 500 KiB on (2 cores, JAX 0.10.2: notes/speed.md).
_CPU_CUT_MAX_BYTES = 512 * 1024


def _cut_on_device(data: Any, devices: list[jax.Device], batch_axis: int,
                    even_split: bool) -> list[jax.Array] | None:
    """The slices of an array already on the one device every slice goes to (the seed's device list
    naming one device twice), cut there by one compiled program once such a split repeats; None when
    the data is elsewhere, a large CPU array (read in place instead) or the split is new (a batch shape
    seen once compiles nothing)."""
    home = _home(data)
    if home is None or any(d != home for d in devices):
        return None
    shape = tuple(data.shape)
    if home.platform == "cpu" and math.prod(shape) * data.dtype.itemsize >= _CPU_CUT_MAX_BYTES:
        return None
    bounds = _sections(shape, len(devices), batch_axis, even_split)
    program = _compile.jit_on_repeat(("split_and_load", shape, data.dtype, bounds, batch_axis),
                                     lambda: _cut(bounds, batch_axis))
    return None if program is None else list(program(data))


def split_and_load(data: Any, ctx_list: Sequence[Any], batch_axis: int = 0,
                   even_split: bool = True) -> list[jax.Array]:
    """Split ``data`` along ``batch_axis`` and put slice ``i`` on ``ctx_list[i]``.

    A device may be listed twice: it then receives two slices (their gradients add up, see
    ``Parameter``). Host data is sliced on the host and each slice placed once
    (``device.host_to_device``); a NumPy array's slices are copied first, as MXNet copies them: a buffer
    the caller fills again for the next batch does not change this one. A large CPU array is read in
    place; a smaller one, or one on an accelerator, already on the one device every slice goes to is cut
    there, by one compiled program from the second split of its shape on (a shape seen once compiles
    nothing).
    """
    devices = [_device.as_device(c, what="ctx_list") for c in ctx_list]
    if not devices:
        raise ValueError("ctx_list is empty: pass at least one device, e.g. [npx.cpu(0)].")
    if not hasattr(data, "shape"):
        data = onp.asarray(data)
        data = data.astype(onp.float32) if data.dtype.kind == "f" else data
    owned = isinstance(data, onp.ndarray)  # the caller's buffer, which it may fill again: copied
    host = data if owned else None
    if not owned:
        if len(devices) == 1:  # MXNet's as_in_context: an array already there is itself
            there = _home(data) == devices[0] and data.committed
            return [data if there else jax.device_put(data, devices[0])]
        cut = _cut_on_device(data, devices, batch_axis, even_split)
        if cut is not None:
            return cut
        host = _host_view(data)
        if host is None:  # on an accelerator: sliced there, each slice copied where it goes
            return list(jax.device_put(split_data(data, len(devices), batch_axis, even_split), devices))
    slices = split_data(host, len(devices), batch_axis, even_split)
    return [_device.host_to_device(onp.array(s) if owned else s, d)
            for s, d in zip(slices, devices, strict=True)]


def clip_global_norm(arrays: Sequence[jax.Array], max_norm: float, check_isfinite: bool = True) -> Any:
    """Rescale ``arrays`` so that their joint 2-norm is at most ``max_norm``; return the norm.

    JAX arrays are immutable: the clipped arrays are returned with the norm, ``(clipped, norm)``; the
    arrays may live on different devices (each is scaled on its own device).
    """
    if not arrays:
        raise ValueError("clip_global_norm: arrays is empty.")
    if isinstance(max_norm, bool) or not isinstance(max_norm, (int, float, onp.number)) \
            or not onp.isfinite(max_norm) or max_norm <= 0:
        raise ValueError(f"clip_global_norm: max_norm must be a finite number > 0; got {max_norm!r}. A "
                         "max_norm <= 0 would flip or zero every gradient: pass the largest norm to allow, "
                         "e.g. 1.0.")
    first = next(iter(arrays[0].devices()))
    total = sum(jax.device_put(jnp.sum(jnp.square(a.astype(jnp.float32))), first) for a in arrays)
    norm = jnp.sqrt(total)
    if check_isfinite and not bool(jnp.isfinite(norm)):
        warnings.warn(
            UserWarning("nan or inf is detected. Clipping results will be undefined."), stacklevel=2
        )
    scale = jnp.minimum(1.0, max_norm / (norm + 1e-8))
    clipped = [a * jax.device_put(scale, next(iter(a.devices()))).astype(a.dtype) for a in arrays]
    return clipped, norm


def check_finite(data: Any, *, name: str = "data", raise_on_error: bool = False) -> bool:
    """Whether every element of ``data`` (an array, or a list/tuple/dict of them, e.g. per-device
    losses or gradients) is finite: no NaN, no infinity. One reduction per array, one host transfer.

    With ``raise_on_error=True`` a non-finite value raises ``FloatingPointError`` naming ``name`` and
    the first offending item. Use it on the loss before ``trainer.step`` (``python -m train`` stops
    with its non-finite-loss exit status when an epoch's loss is not finite), or let
    ``Trainer(..., skip_nonfinite=True)`` skip such steps without a host sync.

    >>> from framework import gluon, np
    >>> gluon.utils.check_finite([np.ones(3), np.array([1.0, np.inf])])
    False
    >>> gluon.utils.check_finite({"loss": np.array([np.nan])}, name="loss", raise_on_error=True)
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    FloatingPointError: loss holds non-finite values (NaN or infinity) in ['loss'] (shape (1,)). ...
    """
    leaves, _ = jax.tree_util.tree_flatten_with_path(data)
    if not leaves:
        return True
    flags = []
    for _path, leaf in leaves:
        if isinstance(leaf, (int, float)) or not hasattr(leaf, "dtype"):
            leaf = onp.asarray(leaf)
        kind = onp.dtype(leaf.dtype).kind
        flags.append(jnp.all(jnp.isfinite(leaf)) if kind in "fc" or leaf.dtype == jnp.bfloat16 else True)
    values = jax.device_get(flags)
    for (path, leaf), ok in zip(leaves, values, strict=True):
        if not bool(ok):
            if raise_on_error:
                where = jax.tree_util.keystr(path) or "it"
                raise FloatingPointError(
                    f"{name} holds non-finite values (NaN or infinity) in {where} (shape "
                    f"{tuple(onp.shape(leaf))}). Lower the learning rate, check the data, or use "
                    "Trainer(..., skip_nonfinite=True) to skip such steps.")
            return False
    return True



def replace_file(src: str, dst: str) -> None:
    """Move ``src`` onto ``dst`` atomically (``os.replace``), as MXNet's helper does."""
    import os

    os.replace(src, dst)


def shape_is_known(shape: Any) -> bool:
    """Whether every dimension of ``shape`` is known (MXNet marks unknown ones with -1, or 0 outside
    NumPy mode; this framework is always in NumPy mode)."""
    if shape is None:
        return False
    for dim in shape:
        if dim == -1:
            return False
        if dim < -1:
            raise ValueError(f"shape_is_known: invalid dimension {dim} in {tuple(shape)}")
    return True
