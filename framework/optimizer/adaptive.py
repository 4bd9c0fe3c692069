"""Per-coordinate adaptive optimizers: AdaGrad, AdaDelta, RMSProp (plain and centered), Ftrl
(MXNet 1.9.1 update rules)."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from .base import Optimizer, register

__all__ = ["AdaGrad", "AdaDelta", "RMSProp", "Ftrl"]


@register
class AdaGrad(Optimizer):
    """AdaGrad: ``g = clip(rescale*grad)``; ``h += g^2``; ``w -= lr * (g/sqrt(h + eps) + wd*w)``.

    >>> AdaGrad().float_stable_eps
    1e-07
    """

    def __init__(self, eps: float = 1e-7, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def _init_slots(self, name, weight):
        return (jnp.zeros_like(weight),)

    def _step(self, name, w, g, slots, lr, wd, rescale, t):
        g = self._clip(g * rescale)
        history = slots[0] + jnp.square(g)
        div = g / jnp.sqrt(history + self.float_stable_eps)
        return (div + w * wd) * -lr, (history,)


@register
class AdaDelta(Optimizer):
    """AdaDelta: ``g = clip(rescale*grad)``; ``acc_g = rho*acc_g + (1-rho)*g^2``;
    ``delta = sqrt(acc_delta + eps)/sqrt(acc_g + eps) * g``; ``acc_delta = rho*acc_delta + (1-rho)*delta^2``;
    ``w -= delta + wd*w``. As in MXNet 1.x the learning rate is not used.

    >>> AdaDelta().rho
    0.9
    """

    def __init__(self, rho: float = 0.90, epsilon: float = 1e-5, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def _init_slots(self, name, weight):
        return (jnp.zeros_like(weight), jnp.zeros_like(weight))

    def _step(self, name, w, g, slots, lr, wd, rescale, t):
        acc_g, acc_delta = slots
        g = self._clip(g * rescale)
        acc_g = self.rho * acc_g + (1.0 - self.rho) * g * g
        delta = jnp.sqrt(acc_delta + self.epsilon) / jnp.sqrt(acc_g + self.epsilon) * g
        acc_delta = self.rho * acc_delta + (1.0 - self.rho) * delta * delta
        return -(delta + wd * w), (acc_g, acc_delta)


@register
class RMSProp(Optimizer):
    """RMSProp. ``g = clip(rescale*grad + wd*w)``, ``n = (1-gamma1)*g^2 + gamma1*n``.

    Plain (Tieleman & Hinton): ``w -= lr * g / sqrt(n + epsilon)``.
    Centered (Graves): ``m = (1-gamma1)*g + gamma1*m``;
    ``delta = gamma2*delta - lr * g / sqrt(n - m^2 + epsilon)``; ``w += delta``.
    ``clip_weights`` clips the new weights to [-clip_weights, clip_weights].

    >>> RMSProp().gamma1
    0.9
    """

    def __init__(self, learning_rate: float = 0.001, gamma1: float = 0.9, gamma2: float = 0.9,
                 epsilon: float = 1e-8, centered: bool = False, clip_weights: float | None = None,
                 **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.gamma1 = gamma1
        self.gamma2 = gamma2
        self.centered = centered
        self.epsilon = epsilon
        self.clip_weights = clip_weights

    def _init_slots(self, name, weight):
        z = jnp.zeros_like(weight)
        return (z, z, z) if self.centered else (z,)

    def _step(self, name, w, g, slots, lr, wd, rescale, t):
        g = self._clip(rescale * g + wd * w)
        n = (1.0 - self.gamma1) * (g * g) + self.gamma1 * slots[0]
        if self.centered:
            m = (1.0 - self.gamma1) * g + self.gamma1 * slots[1]
            delta = self.gamma2 * slots[2] - lr * g / jnp.sqrt(n - m * m + self.epsilon)
            upd, new = delta, (n, m, delta)
        else:
            upd, new = -(lr * (g / jnp.sqrt(n + self.epsilon))), (n,)
        if self.clip_weights:
            c = float(self.clip_weights)
            upd = jnp.clip(w + upd, -c, c) - w
        return upd, new


@register
class Ftrl(Optimizer):
    """FTRL-proximal: ``g = clip(rescale*grad)``;
    ``z += g - (sqrt(n + g^2) - sqrt(n)) * w / lr``; ``n += g^2``;
    ``w = (sign(z)*lamda1 - z) / ((beta + sqrt(n))/lr + wd) * (|z| > lamda1)``.

    >>> Ftrl().learning_rate
    0.1
    """

    def __init__(self, lamda1: float = 0.01, learning_rate: float = 0.1, beta: float = 1,
                 **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.lamda1 = lamda1
        self.beta = beta

    def _init_slots(self, name, weight):
        return (jnp.zeros_like(weight), jnp.zeros_like(weight))

    def _step(self, name, w, g, slots, lr, wd, rescale, t):
        z, n = slots
        g = self._clip(g * rescale)
        z = z + g - (jnp.sqrt(n + jnp.square(g)) - jnp.sqrt(n)) * w / lr
        n = n + jnp.square(g)
        new_w = (jnp.sign(z) * self.lamda1 - z) / ((self.beta + jnp.sqrt(n)) / lr + wd) * \
            (jnp.abs(z) > self.lamda1).astype(w.dtype)
        return new_w - w, (z, n)
