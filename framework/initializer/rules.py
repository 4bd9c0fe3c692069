"""Random and structured initializers: Uniform, Normal, Xavier, MSRAPrelu, Orthogonal, Bilinear,
LSTMBias, Mixed, Load (re-exported by ``framework.initializer``)."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from .. import _draw
from .base import Initializer, Shape, _float_dtype, create, register

__all__ = ["Uniform", "Normal", "Xavier", "MSRAPrelu", "Orthogonal", "Bilinear", "LSTMBias", "Mixed", "Load"]


@register
class Uniform(Initializer):
    """Weights drawn from U(-scale, scale) (Gluon's default initializer).

    >>> import jax
    >>> w = Uniform(0.1).init_array((1000,), key=jax.random.key(0))
    >>> bool(w.min() >= -0.1 and w.max() < 0.1)
    True
    """

    def __init__(self, scale: float = 0.07) -> None:
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, name, shape, dtype, key):
        ft = _float_dtype(dtype)
        out = _draw.uniform(self._need_key(name, key), shape, ft, -self.scale, self.scale)
        return out.astype(dtype)


@register
class Normal(Initializer):
    """Weights drawn from N(0, sigma^2).

    >>> import jax
    >>> w = Normal(2.0).init_array((20000,), key=jax.random.key(1))
    >>> round(float(w.std()), 1)
    2.0
    """

    def __init__(self, sigma: float = 0.01) -> None:
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, name, shape, dtype, key):
        ft = _float_dtype(dtype)
        return _draw.normal(self._need_key(name, key), shape, ft, self.sigma).astype(dtype)


def _fans(name: str, shape: Shape, who: str) -> tuple[float, float]:
    if len(shape) < 2:
        raise ValueError(f"{who} initializer cannot be applied to vector {name}. It requires at least 2D "
                         f"(got shape {shape}); give this parameter its own init, e.g. init='zeros'")
    hw_scale = float(onp.prod(shape[2:])) if len(shape) > 2 else 1.0
    return shape[1] * hw_scale, shape[0] * hw_scale


@register
class Xavier(Initializer):
    """Xavier/Glorot: scale = sqrt(magnitude / factor), factor from fan_in/fan_out ('avg'|'in'|'out').

    For Gluon's ``(out, in, *kernel)`` weights fan_in = in * prod(kernel), fan_out = out * prod(kernel).
    ``rnd_type='uniform'`` draws U(-scale, scale); ``'gaussian'`` draws N(0, scale^2).

    >>> import jax
    >>> w = Xavier(factor_type='in', magnitude=3).init_array((200, 300), key=jax.random.key(0))
    >>> bool(abs(float(w.max()) - 0.1) < 1e-3)   # sqrt(3 / 300)
    True
    """

    def __init__(self, rnd_type: str = "uniform", factor_type: str = "avg", magnitude: float = 3) -> None:
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)
        if rnd_type not in ("uniform", "gaussian"):
            raise ValueError(f"Unknown random type {rnd_type!r}: Xavier's rnd_type is 'uniform' "
                             "or 'gaussian'")
        if factor_type not in ("avg", "in", "out"):
            raise ValueError(f"Incorrect factor type {factor_type!r}: Xavier's factor_type is "
                             "'avg', 'in' or 'out'")
        self.rnd_type = rnd_type
        self.factor_type = factor_type
        self.magnitude = float(magnitude)

    def _scale(self, name: str, shape: Shape) -> float:
        fan_in, fan_out = _fans(name, shape, type(self).__name__)
        factor = {"avg": (fan_in + fan_out) / 2.0, "in": fan_in, "out": fan_out}[self.factor_type]
        return float(onp.sqrt(self.magnitude / factor))

    def _init_weight(self, name, shape, dtype, key):
        scale = self._scale(name, shape)
        key = self._need_key(name, key)
        ft = _float_dtype(dtype)
        if self.rnd_type == "uniform":
            out = _draw.uniform(key, shape, ft, -scale, scale)
        else:
            out = _draw.normal(key, shape, ft, scale)
        return out.astype(dtype)


@register
class MSRAPrelu(Xavier):
    """He/MSRA init for PReLU: Gaussian Xavier with magnitude 2 / (1 + slope^2).

    >>> MSRAPrelu(slope=0.0).magnitude
    2.0
    """

    def __init__(self, factor_type: str = "avg", slope: float = 0.25) -> None:
        super().__init__("gaussian", factor_type, 2.0 / (1 + slope ** 2))
        self._kwargs = {"factor_type": factor_type, "slope": slope}


@register
class Orthogonal(Initializer):
    """Orthogonal rows/columns (Saxe et al.) scaled by ``scale``; ``rand_type`` 'uniform' or 'normal'.

    >>> import jax
    >>> w = Orthogonal(scale=1.0).init_array((3, 5), key=jax.random.key(0))
    >>> bool(jnp.allclose(w @ w.T, jnp.eye(3), atol=1e-5))
    True
    """

    def __init__(self, scale: float = 1.414, rand_type: str = "uniform") -> None:
        super().__init__(scale=scale, rand_type=rand_type)
        if rand_type not in ("uniform", "normal"):
            raise ValueError(f"Orthogonal rand_type must be 'uniform' or 'normal', got {rand_type!r}")
        self.scale = scale
        self.rand_type = rand_type

    def _init_weight(self, name, shape, dtype, key):
        if len(shape) < 1:
            raise ValueError(f"Orthogonal cannot initialise the scalar parameter {name!r}")
        nout, nin = shape[0], int(onp.prod(shape[1:]))
        key = self._need_key(name, key)
        if self.rand_type == "uniform":
            tmp = _draw.uniform(key, (nout, nin), jnp.float32, -1.0, 1.0)
        else:
            tmp = _draw.normal(key, (nout, nin), jnp.float32)
        u, _, v = jnp.linalg.svd(tmp, full_matrices=False)
        res = u if u.shape == tmp.shape else v
        return (self.scale * res.reshape(shape)).astype(dtype)


@register
class Bilinear(Initializer):
    """Bilinear-upsampling kernels for a ``(C_out, C_in, H, W)`` deconvolution weight.

    >>> Bilinear().init_array((1, 1, 4, 4))[0, 0, 1].tolist()
    [0.1875, 0.5625, 0.5625, 0.1875]
    """

    def _init_weight(self, name, shape, dtype, key):
        if len(shape) != 4:
            raise ValueError(f"Bilinear initializes 4-D (C_out, C_in, H, W) weights; {name!r} has shape "
                             f"{shape}")
        f = onp.ceil(shape[3] / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        i = onp.arange(int(onp.prod(shape)))
        x = i % shape[3]
        y = (i // shape[3]) % shape[2]
        weight = (1 - onp.abs(x / f - c)) * (1 - onp.abs(y / f - c))
        return jnp.asarray(weight.reshape(shape), dtype)


@register
class LSTMBias(Initializer):
    """Zero LSTM biases except the forget gate (second quarter), set to ``forget_bias``.

    >>> LSTMBias(forget_bias=1.0).init_array((8,)).tolist()
    [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    """

    def __init__(self, forget_bias: float = 1.0) -> None:
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, name, shape, dtype, key):
        n = shape[0] // 4
        gate = jnp.zeros((shape[0],), dtype).at[n:2 * n].set(self.forget_bias)
        return jnp.broadcast_to(gate.reshape((shape[0],) + (1,) * (len(shape) - 1)), shape).astype(dtype)


class Mixed(Initializer):
    """The first initializer whose regular expression matches the name (``re.match``), MXNet style.

    >>> import jax
    >>> m = Mixed(['bias', '.*'], ['zeros', 'ones'])
    >>> m('fc_weight', (2,), 'float32', key=jax.random.key(0)).tolist()
    [1.0, 1.0]
    """

    def __init__(self, patterns: Sequence[str], initializers: Sequence[Initializer | str]) -> None:
        if len(patterns) != len(initializers):
            raise ValueError(f"Mixed needs one initializer per pattern: got {len(patterns)} patterns and "
                             f"{len(initializers)} initializers")
        super().__init__()
        self.map = [(re.compile(p), create(i)) for p, i in zip(patterns, initializers, strict=True)]

    def _pick(self, name: str) -> Initializer:
        for prog, init in self.map:
            if prog.match(name):
                return init
        raise ValueError(f"Parameter name {name} did not match any pattern. Consider add a \".*\" "
                         "pattern at the and with default Initializer.")

    def __call__(self, name: str, shape: Any, dtype: Any = None, *,
                 key: jax.Array | None = None) -> jax.Array:
        return self._pick(name)(name, shape, dtype, key=key)

    def init_array(self, shape: Shape, dtype: Any = None, *, key: jax.Array | None = None,
                   name: str = "") -> jax.Array:
        return self._pick(name).init_array(shape, dtype, key=key, name=name)


class Load(Initializer):
    """Initialise from a dict of saved arrays (``'arg:'``/``'aux:'`` prefixes stripped), else from
    ``default_init``.

    >>> import numpy as onp
    >>> Load({'arg:w': onp.ones(2)})('w', (2,), 'float32').tolist()
    [1.0, 1.0]
    """

    def __init__(self, param: dict[str, Any] | str, default_init: Initializer | str | None = None,
                 verbose: bool = False) -> None:
        if isinstance(param, (str, os.PathLike)):
            from .. import serialization

            param = serialization.load(param)
        if not isinstance(param, dict):
            raise TypeError("Load takes a file name or a dict of name -> array (e.g. npx.load(file)), "
                            f"got {type(param).__name__}")
        super().__init__()
        self.param = {(k[4:] if k.startswith(("arg:", "aux:")) else k): v for k, v in param.items()}
        self.default_init = create(default_init) if default_init is not None else None
        self.verbose = verbose

    def __call__(self, name: str, shape: Any, dtype: Any = None, *,
                 key: jax.Array | None = None) -> jax.Array:
        shape, dtype = Initializer._shape_dtype(shape, dtype)
        if name in self.param:
            value = jnp.asarray(onp.asarray(self.param[name]), dtype)
            if value.shape != shape:
                raise ValueError(f"Parameter {name} cannot be initialized from loading. Shape mismatch, "
                                 f"target {shape} vs loaded {value.shape}")
            return value
        if self.default_init is None:
            raise ValueError(f"Cannot Initialize {name}. Not found in loaded param and no default "
                             "Initializer is provided.")
        return self.default_init(name, shape, dtype, key=key)

    def init_array(self, shape: Shape, dtype: Any = None, *, key: jax.Array | None = None,
                   name: str = "") -> jax.Array:
        """The saved array named ``name``, else ``default_init``'s rule."""
        if name not in self.param and self.default_init is not None:
            return self.default_init.init_array(shape, dtype, key=key, name=name)
        return self(name, shape, dtype, key=key)
