"""Shared helpers of the symbol tests: the reference directory and the seeded ResNet-18 weights."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as onp

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


def _set_seeded(block, seed):
    params = block.collect_params()
    names = sorted(params)
    values = seeded_params([(n, params[n].shape) for n in names], seed)
    for n in names:
        params[n].set_data(values[n])


def build_ours(name):
    """(block, input) of a network this framework exports, with seeded weights (see export_ours.py)."""
    import jax.numpy as jnp

    from framework import gluon
    from framework.gluon import nn

    if name == "ours_lenet":
        net = nn.HybridSequential()
        net.add(nn.Conv2D(6, 5, activation="relu"), nn.BatchNorm(), nn.MaxPool2D(2),
                nn.Conv2D(8, 3, padding=1, groups=2), nn.BatchNorm(momentum=0.8, epsilon=1e-3),
                nn.AvgPool2D(2, padding=1, count_include_pad=False), nn.Dropout(0.5), nn.Flatten(),
                nn.Dense(16, activation="tanh"), nn.Dense(10))
        x = jnp.asarray(onp.random.RandomState(21).uniform(-1, 1, (3, 1, 28, 28)).astype(onp.float32))
        net.initialize()
        net(x)
        _set_seeded(net, 22)
    elif name == "ours_resnet18":
        import tempfile

        from framework import serialization

        d = onp.load(REF / "resnet18.npz")
        names = [str(n) for n in d["names"]]
        weights = seeded_params(list(zip(names, json.loads(str(d["shapes"])), strict=True)), 11)
        with tempfile.TemporaryDirectory() as tmp:
            path = f"{tmp}/w.params"
            serialization.save(path, {f"arg:{k}": v for k, v in weights.items()})
            net = gluon.SymbolBlock.imports(REF / "resnet18-symbol.json", ["data"], path)
        x = jnp.asarray(d["x"])
    else:
        raise KeyError(name)
    net.hybridize()
    return net, x
