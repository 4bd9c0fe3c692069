"""Activation layers: Activation, LeakyReLU, PReLU, ELU, SELU, GELU, Swish, SiLU.

>>> from framework import np
>>> from framework.gluon import nn
>>> act = nn.Activation('relu')
>>> act(np.array([-1.0, 2.0])).tolist(), act
([0.0, 2.0], Activation(relu))
>>> nn.LeakyReLU(0.1)
LeakyReLU(0.1)
"""

from __future__ import annotations

from typing import Any

import jax

from ... import initializer as _init
from ...npx import activations as _ops
from ..block import HybridBlock
from ..parameter import Parameter

__all__ = ["Activation", "LeakyReLU", "PReLU", "ELU", "SELU", "GELU", "Swish", "SiLU"]


class _Act(HybridBlock):
    """Base of the parameter-free activation layers: compiled even when not hybridized."""

    _compiled_leaf = True

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class Activation(_Act):
    """Applies ``npx.activation(x, act_type=activation)``: 'relu', 'sigmoid', 'tanh', 'softrelu',
    'softsign', 'log_sigmoid', 'mish'.

    >>> from framework import np
    >>> Activation('tanh')(np.zeros(2)).tolist()
    [0.0, 0.0]
    """

    def __init__(self, activation: str, **kwargs: Any) -> None:
        object.__setattr__(self, "_alias_hint", activation)  # MXNet 1.x names it relu0_, tanh0_, ...
        super().__init__(**kwargs)
        if activation not in _ops._ACTIVATIONS:
            raise ValueError(
                f"Activation: activation={activation!r} is not supported; choose one of "
                f"{sorted(_ops._ACTIVATIONS)} (or use nn.LeakyReLU/ELU/SELU/GELU/Swish layers)"
            )
        self._act_type = activation

    def forward(self, x: jax.Array) -> jax.Array:
        return _ops.activation(x, act_type=self._act_type)

    def _symbol_forward(self, F: Any, x: Any) -> Any:
        return F.Activation(x, act_type=self._act_type, name="fwd")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._act_type})"


class LeakyReLU(_Act):
    """``x if x > 0 else alpha * x``; ``alpha >= 0``.

    >>> from framework import np
    >>> LeakyReLU(0.5)(np.array([-2.0, 2.0])).tolist()
    [-1.0, 2.0]
    """

    def __init__(self, alpha: float, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if alpha < 0:
            raise ValueError(f"LeakyReLU: alpha={alpha}; the slope coefficient must be no less than 0")
        self._alpha = alpha

    def forward(self, x: jax.Array) -> jax.Array:
        return _ops.leaky_relu(x, act_type="leaky", slope=self._alpha)

    def _symbol_forward(self, F: Any, x: Any) -> Any:
        return F.LeakyReLU(x, act_type="leaky", slope=self._alpha, name="fwd")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._alpha})"


class PReLU(HybridBlock):
    """Parametric ReLU: a learnt slope ``alpha`` (one, or one per channel on axis 1 with
    ``in_channels``), initialised to 0.25.

    >>> from framework import np
    >>> layer = PReLU()
    >>> layer.initialize()
    >>> layer(np.array([[-4.0, 4.0]])).tolist()
    [[-1.0, 4.0]]
    """

    _compiled_leaf = True

    def __init__(self, alpha_initializer: Any = None, in_channels: int = 1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if alpha_initializer is None:
            alpha_initializer = _init.Constant(0.25)
        self.alpha = Parameter("alpha", shape=(in_channels,), init=alpha_initializer)

    def forward(self, x: jax.Array) -> jax.Array:
        return _ops.leaky_relu(x, self.alpha.data(), act_type="prelu")

    def _symbol_forward(self, F: Any, x: Any, alpha: Any) -> Any:
        return F.LeakyReLU(x, gamma=alpha, act_type="prelu", name="fwd")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(in_channels={self.alpha.shape[0]})"


class ELU(_Act):
    """Exponential linear unit: ``x if x > 0 else alpha * (exp(x) - 1)``.

    >>> from framework import np
    >>> ELU()(np.array([0.0, 1.0])).tolist()
    [0.0, 1.0]
    """

    def __init__(self, alpha: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._alpha = alpha

    def forward(self, x: jax.Array) -> jax.Array:
        return _ops.leaky_relu(x, act_type="elu", slope=self._alpha)

    def _symbol_forward(self, F: Any, x: Any) -> Any:
        return F.LeakyReLU(x, act_type="elu", slope=self._alpha)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(alpha={self._alpha})"


class SELU(_Act):
    """Scaled exponential linear unit (Klambauer et al., 2017).

    >>> from framework import np
    >>> SELU()(np.array([0.0])).tolist()
    [0.0]
    """

    def forward(self, x: jax.Array) -> jax.Array:
        return _ops.leaky_relu(x, act_type="selu")

    def _symbol_forward(self, F: Any, x: Any) -> Any:
        return F.LeakyReLU(x, act_type="selu", name="fwd")


class GELU(_Act):
    """Gaussian error linear unit; ``approximation`` 'erf' (exact, default) or 'tanh'.

    >>> from framework import np
    >>> GELU()(np.array([0.0])).tolist()
    [0.0]
    """

    def __init__(self, approximation: str = "erf", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if approximation not in ("erf", "tanh"):
            raise ValueError(f"GELU: approximation={approximation!r} must be 'erf' or 'tanh'")
        self._approximation = approximation

    def forward(self, x: jax.Array) -> jax.Array:
        return _ops.leaky_relu(x, act_type="gelu" if self._approximation == "erf" else "gelu_tanh")

    def _symbol_forward(self, F: Any, x: Any) -> Any:
        return F.LeakyReLU(x, act_type="gelu" if self._approximation == "erf" else "gelu_tanh", name="fwd")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(approximation={self._approximation})"


class Swish(_Act):
    """``x * sigmoid(beta * x)``.

    >>> from framework import np
    >>> Swish()(np.array([0.0])).tolist()
    [0.0]
    """

    def __init__(self, beta: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._beta = beta

    def forward(self, x: jax.Array) -> jax.Array:
        return x * jax.nn.sigmoid(self._beta * x)

    def _symbol_forward(self, F: Any, x: Any) -> Any:
        return x * F.sigmoid(self._beta * x, name="fwd")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(beta={self._beta})"


class SiLU(_Act):
    """``x * sigmoid(x)`` (Swish with beta 1).

    >>> from framework import np
    >>> SiLU()(np.array([0.0])).tolist()
    [0.0]
    """

    def forward(self, x: jax.Array) -> jax.Array:
        return x * jax.nn.sigmoid(x)
