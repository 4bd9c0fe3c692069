"""Helpers of the symbol tests (and tools/mxnet_reference/export_ours.py): the reference directory, the
seeded weights, and the networks this framework exports."""

from __future__ import annotations

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


def _layers():
    from framework.gluon import nn

    return {
        "dense4d": (lambda: nn.Dense(3), (2, 3, 4, 4)),
        "dense_noflat": (lambda: nn.Dense(3, flatten=False), (2, 5, 4)),
        "layernorm": (lambda: nn.LayerNorm(), (2, 5)),
        "instancenorm": (lambda: nn.InstanceNorm(), (2, 3, 4, 4)),
        "groupnorm": (lambda: nn.GroupNorm(2), (2, 4, 4, 4)),
        "embedding": (lambda: nn.Embedding(10, 4), None),
        "prelu": (lambda: nn.PReLU(), (2, 5)),
        "leakyrelu": (lambda: nn.LeakyReLU(0.1), (2, 5)),
        "elu": (lambda: nn.ELU(), (2, 5)),
        "selu": (lambda: nn.SELU(), (2, 5)),
        "gelu": (lambda: nn.GELU(), (2, 5)),
        "swish": (lambda: nn.Swish(), (2, 5)),
        "softrelu": (lambda: nn.Activation("softrelu"), (2, 5)),
        "conv1d": (lambda: nn.Conv1D(4, 3, strides=2, padding=1), (2, 3, 9)),
        "conv3d": (lambda: nn.Conv3D(2, 3), (1, 2, 5, 5, 5)),
        "globalavgpool": (lambda: nn.GlobalAvgPool2D(), (2, 3, 5, 5)),
        "maxpool_ceil": (lambda: nn.MaxPool2D(3, 2, ceil_mode=True), (1, 2, 8, 8)),
        "avgpool_pad": (lambda: nn.AvgPool2D(3, 2, padding=1), (1, 2, 8, 8)),
        "batchnormrelu": (lambda: nn.BatchNormReLU(), (2, 3, 4, 4)),
    }


LAYERS = tuple(f"layer_{k}" for k in ("dense4d", "dense_noflat", "layernorm", "instancenorm", "groupnorm",
                                       "embedding", "prelu", "leakyrelu", "elu", "selu", "gelu", "swish",
                                       "softrelu", "conv1d", "conv3d", "globalavgpool", "maxpool_ceil",
                                       "avgpool_pad", "batchnormrelu"))


def build_ours(name):
    """(block, input) of a network this framework exports, with seeded weights (see export_ours.py)."""
    import jax.numpy as jnp

    from framework.gluon import nn

    if name.startswith("layer_"):
        make, shape = _layers()[name[len("layer_"):]]
        rs = onp.random.RandomState(5)
        x = rs.randint(0, 12, (2, 3)) if shape is None else rs.uniform(-1, 1, shape)
        x = jnp.asarray(x.astype(onp.float32))
        net = make()
        net.initialize()
        net(x)
        if net.collect_params():
            _set_seeded(net, 33)
    elif name == "ours_lenet":
        net = nn.HybridSequential()
        net.add(nn.Conv2D(6, 5, activation="relu"), nn.BatchNorm(), nn.MaxPool2D(2),
                nn.Conv2D(8, 3, padding=1, groups=2), nn.BatchNorm(momentum=0.8, epsilon=1e-3),
                nn.AvgPool2D(2, padding=1, count_include_pad=False), nn.Dropout(0.5), nn.Flatten(),
                nn.Dense(16, activation="tanh"), nn.Dense(10))
        x = jnp.asarray(onp.random.RandomState(21).uniform(-1, 1, (3, 1, 28, 28)).astype(onp.float32))
        net.initialize()
        net(x)
        _set_seeded(net, 22)
    elif name == "ours_resnet18":  # the model zoo's ResNet-18 (v1), built and exported by this framework
        from framework.gluon.model_zoo import vision

        net = vision.resnet18_v1(classes=10)
        x = jnp.asarray(onp.random.RandomState(23).uniform(-1, 1, (2, 3, 64, 64)).astype(onp.float32))
        net.initialize()
        net(x)
        _set_seeded(net, 11)
    else:
        raise KeyError(name)
    net.hybridize()
    return net, x
