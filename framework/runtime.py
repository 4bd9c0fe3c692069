"""MXNet's ``mx.runtime``: which features this installation has, under MXNet's feature names, answered
for the JAX runtime (``CUDA``/``CUDNN``/``NCCL`` when JAX sees a GPU, the CPU's instruction sets from the
processor, ``LAPACK``, ``PROFILER`` and ``DIST_KVSTORE`` always, ``INT64_TENSOR_SIZE`` with
``jax_enable_x64``; MXNet's build options this framework has no counterpart of are off).

>>> from framework import runtime
>>> feats = runtime.Features()
>>> feats.is_enabled("lapack"), repr(feats["TVM_OP"])
(True, '✖ TVM_OP')
"""

from __future__ import annotations

import collections
import functools
from pathlib import Path
from typing import NamedTuple

__all__ = ["Feature", "Features", "feature_list"]

_NAMES = ["CUDA", "CUDNN", "NCCL", "CUDA_RTC", "TENSORRT", "CPU_SSE", "CPU_SSE2", "CPU_SSE3", "CPU_SSE4_1",
          "CPU_SSE4_2", "CPU_SSE4A", "CPU_AVX", "CPU_AVX2", "OPENMP", "SSE", "F16C", "JEMALLOC", "BLAS_OPEN",
          "BLAS_ATLAS", "BLAS_MKL", "BLAS_APPLE", "LAPACK", "MKLDNN", "OPENCV", "CAFFE", "PROFILER",
          "DIST_KVSTORE", "CXX14", "INT64_TENSOR_SIZE", "SIGNAL_HANDLER", "DEBUG", "TVM_OP"]
_CPU_FLAGS = {"CPU_SSE": "sse", "CPU_SSE2": "sse2", "CPU_SSE3": "pni", "CPU_SSE4_1": "sse4_1",
              "CPU_SSE4_2": "sse4_2", "CPU_SSE4A": "sse4a", "CPU_AVX": "avx", "CPU_AVX2": "avx2",
              "SSE": "sse", "F16C": "f16c"}


class Feature(NamedTuple):
    """One feature: its MXNet name and whether this installation has it."""

    name: str
    enabled: bool

    def __repr__(self) -> str:
        return f"{'✔' if self.enabled else '✖'} {self.name}"


@functools.lru_cache(maxsize=1)
def _cpu_flags() -> frozenset[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return frozenset()
    for line in text.splitlines():
        if line.startswith("flags"):
            return frozenset(line.split(":", 1)[1].split())
    return frozenset()


def _enabled(name: str) -> bool:
    import jax

    if name in ("CUDA", "CUDNN", "NCCL"):
        return jax.default_backend() == "gpu"
    if name in _CPU_FLAGS:
        return _CPU_FLAGS[name] in _cpu_flags()
    if name in ("LAPACK", "PROFILER", "DIST_KVSTORE"):
        return True
    if name == "INT64_TENSOR_SIZE":
        return bool(jax.config.jax_enable_x64)
    return False


def feature_list() -> list[Feature]:
    """Every feature, in MXNet's order."""
    return [Feature(n, _enabled(n)) for n in _NAMES]


class Features(collections.OrderedDict):
    """Feature name -> :class:`Feature` (one instance, as MXNet's)."""

    instance = None

    def __new__(cls) -> Features:
        if cls.instance is None:
            cls.instance = super().__new__(cls)
            super(Features, cls.instance).__init__([(f.name, f) for f in feature_list()])
        return cls.instance

    def __init__(self) -> None:
        pass

    def __repr__(self) -> str:
        return str(list(self.values()))

    def is_enabled(self, feature_name: str) -> bool:
        """Whether the feature is on; a ``RuntimeError`` names the known features for an unknown one."""
        key = feature_name.upper()
        if key not in self:
            raise RuntimeError(f"Feature '{key}' is unknown, known features are: {list(self.keys())}")
        return self[key].enabled
