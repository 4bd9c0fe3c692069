"""Deterministic weights for model-zoo reference checks, shared by the MXNet generator and the tests.

Every parameter's values derive only from the model's seed and the parameter's structural name, so the
test rebuilds exactly the arrays MXNet used without committing them (numpy's legacy RandomState stream
is stable across numpy versions).

>>> w = seeded_value('features.0.weight', (4, 3, 3, 3), seed=1)
>>> w.dtype, w.shape
(dtype('float32'), (4, 3, 3, 3))
"""

from __future__ import annotations

import zlib

import numpy as onp

__all__ = ["seeded_value", "seeded_params", "checksum"]


def seeded_value(name: str, shape: tuple, seed: int) -> onp.ndarray:
    """The value of parameter ``name``: BatchNorm scales and variances near 1, shifts, means and biases
    near 0, weights He-uniform over their fan-in."""
    rs = onp.random.RandomState((zlib.crc32(name.encode()) ^ seed) & 0x7FFFFFFF)
    leaf = name.rsplit(".", 1)[-1]
    if leaf in ("gamma", "running_var"):
        v = rs.uniform(0.8, 1.2, shape)
    elif leaf in ("beta", "running_mean", "bias") or leaf.endswith("_bias"):
        v = rs.uniform(-0.1, 0.1, shape)
    else:
        fan_in = int(onp.prod(shape[1:])) if len(shape) > 1 else int(shape[0])
        v = rs.uniform(-1.0, 1.0, shape) * onp.sqrt(6.0 / max(fan_in, 1))
    return v.astype(onp.float32)


def seeded_params(shapes: dict, seed: int) -> dict:
    """``{name: seeded_value(name, shape, seed)}`` for a ``{name: shape}`` table."""
    return {name: seeded_value(name, tuple(shape), seed) for name, shape in shapes.items()}


def checksum(params: dict) -> float:
    """A float64 fingerprint of a parameter table (to prove both sides built the same arrays)."""
    return float(
        sum(onp.abs(params[k].astype(onp.float64)).sum() * (i + 1) for i, k in enumerate(sorted(params)))
    )
