"""The Adam family: Adam, AdamW, Adamax, Nadam, LAMB, FTML (MXNet 1.9.1 update rules; AdamW as the
'adamw' optimizer of MXNet 2, whose fused kernel is 1.9.1's ``contrib.adamw_update``).

``t`` is the update count starting at 1. Bias corrections are computed in float32.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from .base import Optimizer, register

__all__ = ["Adam", "AdamW", "Adamax", "Nadam", "LAMB", "FTML"]


def _pow(base: float, t):
    return jnp.power(jnp.float32(base), t)


def _two_zeros(weight):
    return (jnp.zeros_like(weight), jnp.zeros_like(weight))


@register
class Adam(Optimizer):
    """Adam as MXNet: ``g = clip(rescale*grad + wd*w)``; ``m, v`` moving averages;
    ``w -= lr*sqrt(1-beta2^t)/(1-beta1^t) * m / (sqrt(v) + epsilon)`` (epsilon outside the corrected
    root, coupled weight decay inside the clip).

    >>> Adam().learning_rate
    0.001
    """

    def __init__(self, learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, lazy_update: bool = True, **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.lazy_update = lazy_update

    def _init_slots(self, name, weight):
        return _two_zeros(weight)

    def _step(self, name, w, g, slots, lr, wd, rescale, t):
        coef1 = 1.0 - _pow(self.beta1, t)
        coef2 = 1.0 - _pow(self.beta2, t)
        lr = lr * (jnp.sqrt(coef2) / coef1).astype(lr.dtype)
        g = self._clip(g * rescale + w * wd)
        mean = self.beta1 * slots[0] + (1.0 - self.beta1) * g
        var = self.beta2 * slots[1] + (1.0 - self.beta2) * g * g
        return -(lr * mean / (jnp.sqrt(var) + self.epsilon)), (mean, var)


@register
class AdamW(Optimizer):
    """Adam with decoupled weight decay: ``g = clip(rescale*grad)``; ``m, v`` as Adam;
    ``w -= eta * (m / (sqrt(v) + epsilon) + wd*w)`` with ``eta = lr*sqrt(1-beta2^t)/(1-beta1^t)``
    (``correct_bias=False``: ``eta = lr``).

    >>> AdamW().epsilon
    1e-06
    """

    def __init__(self, learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-6, correct_bias: bool = True, **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.correct_bias = correct_bias

    def _init_slots(self, name, weight):
        return _two_zeros(weight)

    def _step(self, name, w, g, slots, lr, wd, rescale, t):
        if self.correct_bias:
            lr = lr * (jnp.sqrt(1.0 - _pow(self.beta2, t)) / (1.0 - _pow(self.beta1, t))).astype(lr.dtype)
        g = self._clip(g * rescale)
        mean = self.beta1 * slots[0] + (1.0 - self.beta1) * g
        var = self.beta2 * slots[1] + (1.0 - self.beta2) * g * g
        return -(lr * (mean / (jnp.sqrt(var) + self.epsilon) + wd * w)), (mean, var)


@register
class Adamax(Optimizer):
    """AdaMax: ``g = clip(rescale*grad + wd*w)``; ``m = beta1*m + (1-beta1)*g``;
    ``u = max(beta2*u, |g|)``; ``w -= lr/(1-beta1^t) * m/u``.

    >>> Adamax().learning_rate
    0.002
    """

    def __init__(self, learning_rate: float = 0.002, beta1: float = 0.9, beta2: float = 0.999,
                 **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2

    def _init_slots(self, name, weight):
        return _two_zeros(weight)

    def _step(self, name, w, g, slots, lr, wd, rescale, t):
        lr = lr / (1.0 - _pow(self.beta1, t)).astype(lr.dtype)
        g = self._clip(g * rescale + wd * w)
        m = self.beta1 * slots[0] + (1.0 - self.beta1) * g
        u = jnp.maximum(self.beta2 * slots[1], jnp.abs(g))
        return -(lr * m / u), (m, u)


@register
class Nadam(Optimizer):
    """Nesterov Adam (Dozat) with MXNet's momentum schedule
    ``momentum_t = beta1 * (1 - 0.5 * 0.96^(t*schedule_decay))``.

    MXNet keeps the schedule product in one Python attribute shared by every parameter (so it
    advances once per parameter per step); here each parameter keeps its own product, which equals
    MXNet for a single parameter and is what the algorithm means for several.

    >>> Nadam().schedule_decay
    0.004
    """

    def __init__(self, learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, schedule_decay: float = 0.004, **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.schedule_decay = schedule_decay

    def _init_slots(self, name, weight):
        return (*_two_zeros(weight), jnp.ones((), jnp.float32))

    def _step(self, name, w, g, slots, lr, wd, rescale, t):
        g = self._clip(g * rescale + wd * w)
        mom_t = self.beta1 * (1.0 - 0.5 * _pow(0.96, t * self.schedule_decay))
        mom_t1 = self.beta1 * (1.0 - 0.5 * _pow(0.96, (t + 1) * self.schedule_decay))
        m_schedule = slots[2] * mom_t
        m_schedule_next = m_schedule * mom_t1
        m = self.beta1 * slots[0] + (1.0 - self.beta1) * g
        v = self.beta2 * slots[1] + (1.0 - self.beta2) * g * g
        dt = w.dtype
        g_prime = g / (1.0 - m_schedule).astype(dt)
        m_prime = m / (1.0 - m_schedule_next).astype(dt)
        v_prime = v / (1.0 - _pow(self.beta2, t)).astype(dt)
        m_bar = (1.0 - mom_t).astype(dt) * g_prime + mom_t1.astype(dt) * m_prime
        return -(lr * m_bar / (jnp.sqrt(v_prime) + self.epsilon)), (m, v, m_schedule)


@register
class LAMB(Optimizer):
    """LAMB (lamb_update_phase1/2): ``g = clip(rescale*grad)``; Adam moments;
    ``r = m_hat/(sqrt(v_hat)+epsilon) + wd*w`` (bias-corrected if ``bias_correction``);
    ``w -= lr * |w|/|r| * r`` (``|w|`` clamped to [lower_bound, upper_bound] when given; plain ``lr``
    when either norm is 0).

    >>> LAMB().epsilon
    1e-06
    """

    def __init__(self, learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-6, lower_bound: float | None = None, upper_bound: float | None = None,
                 bias_correction: bool = True, **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        self.bias_correction = bias_correction

    def _init_slots(self, name, weight):
        return _two_zeros(weight)

    def _step(self, name, w, g, slots, lr, wd, rescale, t):
        g = self._clip(g * rescale)
        mean = self.beta1 * slots[0] + (1.0 - self.beta1) * g
        var = self.beta2 * slots[1] + (1.0 - self.beta2) * g * g
        if self.bias_correction:
            dt = w.dtype
            m_hat = mean / (1.0 - _pow(self.beta1, t)).astype(dt)
            v_hat = var / (1.0 - _pow(self.beta2, t)).astype(dt)
            r = m_hat / (jnp.sqrt(v_hat) + self.epsilon) + wd * w
        else:
            r = mean / (jnp.sqrt(var) + self.epsilon) + wd * w
        r1 = jnp.linalg.norm(w.ravel())
        r2 = jnp.linalg.norm(r.ravel())
        if self.lower_bound:
            r1 = jnp.maximum(r1, self.lower_bound)
        if self.upper_bound:
            r1 = jnp.minimum(r1, self.upper_bound)
        lr = jnp.where((r1 == 0) | (r2 == 0), lr, lr * r1 / r2)
        return -(lr * r), (mean, var)


@register
class FTML(Optimizer):
    """Follow the Moving Leader (ftml_update): ``g = clip(rescale*grad + wd*w)``;
    ``v = beta2*v + (1-beta2)*g^2``; ``d = (1-beta1^t)/lr * (sqrt(v/(1-beta2^t)) + epsilon)``;
    ``z = beta1*z + (1-beta1)*g - (d - beta1*d_prev)*w``; ``w = -z/d``.

    >>> FTML().beta1
    0.6
    """

    def __init__(self, beta1: float = 0.6, beta2: float = 0.999, epsilon: float = 1e-8,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon

    def _init_slots(self, name, weight):
        return (jnp.zeros_like(weight), jnp.zeros_like(weight), jnp.zeros_like(weight))

    def _step(self, name, w, g, slots, lr, wd, rescale, t):
        d_prev, v, z = slots
        dt = w.dtype
        g = self._clip(rescale * g + wd * w)
        v = self.beta2 * v + (1 - self.beta2) * jnp.square(g)
        d_t = (1 - _pow(self.beta1, t)).astype(dt) / lr * (
            jnp.sqrt(v / (1 - _pow(self.beta2, t)).astype(dt)) + self.epsilon)
        z = self.beta1 * z + (1 - self.beta1) * g - (d_t - self.beta1 * d_prev) * w
        return -z / d_t - w, (d_t, v, z)
