"""MXNet's ``npx.gpu_memory_info`` and ``npx.get_cuda_compute_capability`` over JAX's devices.

>>> from framework import npx
>>> try:
...     npx.gpu_memory_info(0)
... except ValueError as e:
...     'no GPU' in str(e) or 'GPU' in str(e)
True
"""

from __future__ import annotations

from typing import Any

import jax

from ..device import as_device, gpu

__all__ = ["gpu_memory_info", "get_cuda_compute_capability"]


def _gpu(device_id: int) -> jax.Device:
    """GPU ``device_id``; the framework's device error (naming the call, the GPUs there are and the
    fix) where the process has no such GPU."""
    return as_device(gpu(device_id), what="gpu_memory_info")


def gpu_memory_info(device_id: int = 0) -> tuple[int, int]:
    """``(free, total)`` bytes of GPU ``device_id`` (from the allocator's statistics)."""
    stats = _gpu(device_id).memory_stats() or {}
    total = int(stats.get("bytes_limit", 0))
    return total - int(stats.get("bytes_in_use", 0)), total


def get_cuda_compute_capability(ctx: Any) -> int:
    """The compute capability of a CUDA device as MXNet gives it (major * 10 + minor, e.g. 80)."""
    dev = ctx if isinstance(ctx, jax.Device) else _gpu(getattr(ctx, "device_id", 0))
    cc = getattr(dev, "compute_capability", None)
    if dev.platform not in ("gpu", "cuda") or cc is None:
        raise ValueError(f"Expecting a gpu context to get cuda compute capability, while context is {dev}")
    major, minor = (int(v) for v in str(cc).split(".")[:2])
    return major * 10 + minor
