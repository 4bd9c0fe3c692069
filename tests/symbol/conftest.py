"""Shared helpers of the symbol tests: the reference directory and the seeded ResNet-18 weights."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as onp
import pytest

REF = Path(__file__).resolve().parents[1] / "reference" / "symbol"


def seeded_params(names_shapes, seed=0):
    """The same draw as tools/mxnet_reference/gen_symbol.py's ``seeded_params`` (He-scaled weights)."""
    rs = onp.random.RandomState(seed)
    out = {}
    for name, shape in names_shapes:
        shape = tuple(int(s) for s in shape)
        if name.endswith(("running_var", "moving_var")):
            v = rs.uniform(0.5, 1.5, shape)
        elif name.endswith("gamma"):
            v = rs.uniform(0.8, 1.2, shape)
        elif name.endswith(("beta", "bias", "running_mean", "moving_mean")):
            v = rs.normal(0.0, 0.1, shape)
        else:
            fan_in = int(onp.prod(shape[1:])) if len(shape) > 1 else 1
            v = rs.normal(0.0, onp.sqrt(2.0 / fan_in), shape)
        out[name] = v.astype(onp.float32)
    return out


@pytest.fixture(scope="session")
def resnet18_reference():
    """(input, MXNet's output, {name: seeded weight}) of the exported model-zoo ResNet-18."""
    d = onp.load(REF / "resnet18.npz")
    names = [str(n) for n in d["names"]]
    shapes = json.loads(str(d["shapes"]))
    return d["x"], d["y"], seeded_params(list(zip(names, shapes, strict=True)), 11)
