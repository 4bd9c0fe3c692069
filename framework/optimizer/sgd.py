"""SGD and its relatives: SGD (ccSGD), NAG, Signum, LARS, DCASGD, SGLD (MXNet 1.9.1 update rules).

Formulas follow MXNet's fused kernels (src/operator/optimizer_op-inl.h): ``clip`` acts on
``rescale_grad * grad`` and weight decay is added outside it (coupled L2, scaled by lr).
"""

from __future__ import annotations

import zlib
from typing import Any

import jax
import jax.numpy as jnp

from .base import Optimizer, register

__all__ = ["SGD", "ccSGD", "NAG", "Signum", "LARS", "DCASGD", "SGLD"]


def _lr_grad(opt: Optimizer, g: jax.Array, lr: jax.Array, rescale: jax.Array) -> jax.Array:
    """``lr * clip(rescale * g)``, or ``(lr * rescale) * g`` without clipping (MXNet's order)."""
    if opt._clip_on:
        return lr * opt._clip(rescale * g)
    return (lr * rescale) * g


def _sgd(opt: Optimizer, momentum: float, w, g, mom, lr, wd, rescale):
    """sgd_update / sgd_mom_update: ``mom = momentum*mom - lr*wd*w - lr*clip(rescale*g); w += mom``."""
    if mom is None:
        return -(lr * wd) * w - _lr_grad(opt, g, lr, rescale), None
    mom = momentum * mom - (lr * wd) * w - _lr_grad(opt, g, lr, rescale)
    return mom, mom


@register
class SGD(Optimizer):
    """SGD with MXNet's momentum: ``mom = momentum*mom - lr*(clip(rescale*grad) + wd*w); w += mom``.

    Note the learning rate sits inside the momentum (unlike ``optax.sgd``'s trace), which matters
    when it changes between steps. ``lazy_update`` (row-sparse gradients) is accepted and ignored.

    >>> SGD(momentum=0.9).momentum
    0.9
    """

    def __init__(self, momentum: float = 0.0, lazy_update: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.momentum = momentum
        self.lazy_update = lazy_update

    def _init_slots(self, name, weight):
        return (jnp.zeros_like(weight),) if self.momentum > 0 else ()

    def _step(self, name, w, g, slots, lr, wd, rescale, t):
        upd, mom = _sgd(self, self.momentum, w, g, slots[0] if slots else None, lr, wd, rescale)
        return upd, (mom,) if slots else ()


@register
class ccSGD(SGD):  # noqa: N801  (MXNet's name)
    """[DEPRECATED in MXNet] Same as :class:`SGD`."""


@register
class NAG(Optimizer):
    """Nesterov momentum as MXNet's nag_mom_update: with ``M = momentum*mom`` and
    ``D = lr*(clip(rescale*grad) + wd*w)``: ``w += momentum*M - (1+momentum)*D``, ``mom = M - D``.

    >>> NAG(momentum=0.9).momentum
    0.9
    """

    def __init__(self, momentum: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.momentum = momentum

    def _init_slots(self, name, weight):
        return (jnp.zeros_like(weight),) if self.momentum > 0 else ()

    def _step(self, name, w, g, slots, lr, wd, rescale, t):
        if not slots:
            return _sgd(self, 0.0, w, g, None, lr, wd, rescale)[0], ()
        m = self.momentum
        big_m = m * slots[0]
        d = lr * (self._clip(rescale * g) + wd * w)
        return (m + 1) * (big_m - d) - big_m, (big_m - d,)


@register
class Signum(Optimizer):
    """Signum: ``mom = momentum*mom - (1-momentum)*(clip(rescale*grad) + wd*w)``,
    ``w = (1 - lr*wd_lh)*w + lr*sign(mom)``; with momentum 0, signSGD ``w = (1-lr*wd)*w - lr*sign(grad)``.

    >>> Signum().learning_rate, Signum().momentum
    (0.01, 0.9)
    """

    def __init__(self, learning_rate: float = 0.01, momentum: float = 0.9, wd_lh: float = 0.0,
                 **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum = momentum
        self.wd_lh = wd_lh

    def _init_slots(self, name, weight):
        return (jnp.zeros_like(weight),) if self.momentum > 0 else ()

    def _step(self, name, w, g, slots, lr, wd, rescale, t):
        if not slots:
            return -(lr * wd) * w - lr * jnp.sign(g), ()
        m = self.momentum
        grad = (1 - m) * self._clip(rescale * g) if self._clip_on else ((1 - m) * rescale) * g
        mom = m * slots[0] - (1 - m) * wd * w - grad
        return -(lr * self.wd_lh) * w + lr * jnp.sign(mom), (mom,)


@register
class LARS(Optimizer):
    """Layer-wise adaptive rate scaling over MXNet's SGD: for parameters whose name does not end in
    'gamma', 'beta' or 'bias', ``lr *= eta*|w| / (|rescale*grad| + wd*|w| + eps)`` when both norms are
    positive; then the SGD (momentum) rule.

    ``momentum_correction`` is accepted; the momentum is not rescaled when the learning rate changes.

    >>> LARS(eta=0.01).eta
    0.01
    """

    def __init__(self, momentum: float = 0.0, lazy_update: bool = True, eta: float = 0.001,
                 eps: float = 0.0, momentum_correction: bool = True, *, epsilon: float | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.momentum = momentum
        self.lazy_update = lazy_update
        self.eta = eta
        self.eps = eps if epsilon is None else epsilon
        self.momentum_correction = momentum_correction

    def _init_slots(self, name, weight):
        return (jnp.zeros_like(weight),) if self.momentum > 0 else ()

    def _step(self, name, w, g, slots, lr, wd, rescale, t):
        if not name.endswith(("gamma", "beta", "bias")):
            w_norm = jnp.linalg.norm(w.astype(jnp.float32).ravel())
            g_norm = jnp.linalg.norm((g.astype(jnp.float32) * rescale.astype(jnp.float32)).ravel())
            lars = self.eta * w_norm / (g_norm + wd * w_norm + self.eps)
            ok = (w_norm > 0) & (g_norm > 0)
            lr = lr * jnp.where(ok, lars, 1.0).astype(lr.dtype)
        upd, mom = _sgd(self, self.momentum, w, g, slots[0] if slots else None, lr, wd, rescale)
        return upd, (mom,) if slots else ()


@register
class DCASGD(Optimizer):
    """Delay-compensated async SGD: ``mom = momentum*mom - lr*(g + wd*w + lamda*g*g*(w - w_prev))``,
    ``w_prev = w``, ``w += mom`` where ``g = clip(rescale*grad)``.

    >>> DCASGD().lamda
    0.04
    """

    def __init__(self, momentum: float = 0.0, lamda: float = 0.04, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.momentum = momentum
        self.lamda = lamda

    def _init_slots(self, name, weight):
        prev = jnp.array(weight, copy=True)
        return (jnp.zeros_like(weight), prev) if self.momentum != 0.0 else (prev,)

    def _step(self, name, w, g, slots, lr, wd, rescale, t):
        g = self._clip(rescale * g)
        prev = slots[-1]
        step = -lr * (g + wd * w + self.lamda * g * g * (w - prev))
        if len(slots) == 2:
            mom = self.momentum * slots[0] + step
            return mom, (mom, w)
        return step, (w,)


@register
class SGLD(Optimizer):
    """Stochastic gradient Langevin dynamics: ``w += -lr/2 * (g + wd*w) + N(0, lr)``,
    ``g = clip(rescale*grad)``. The noise comes from a key kept in the state (``seed=``, keyword-only).

    >>> SGLD(seed=3).seed
    3
    """

    def __init__(self, *, seed: int = 0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.seed = seed

    def _init_slots(self, name, weight):
        key = jax.random.fold_in(jax.random.key(self.seed), zlib.crc32(name.encode()) & 0x7FFFFFFF)
        return (jax.random.key_data(key),)

    def _step(self, name, w, g, slots, lr, wd, rescale, t):
        key, sub = jax.random.split(jax.random.wrap_key_data(slots[0]))
        g = self._clip(rescale * g)
        noise = jax.random.normal(sub, w.shape, jnp.float32) * jnp.sqrt(lr.astype(jnp.float32))
        return -lr / 2 * (g + wd * w) + noise.astype(w.dtype), (jax.random.key_data(key),)
