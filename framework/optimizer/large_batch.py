"""MXNet 1.x's large-batch SGD (``LBSGD``), its ``Test`` optimizer and ``contrib.GroupAdaGrad``.

``LBSGD`` adds up ``batch_scale`` gradients per parameter and applies their mean every
``batch_scale``-th update with the SGD (momentum) rule and a learning rate scaled by its warm-up
(``'linear'``, ``'power2'``, ``'sqrt'`` from 1 to ``batch_scale`` over ``warmup_epochs *
updates_per_epoch`` updates, counted from ``begin_epoch * updates_per_epoch``) or by a LARS factor
(``'lars'``: ``sqrt(|w|^2 / (|g|^2 + wd |w|^2))`` in [0.01, 100]); the other updates leave the weight
as it is. All of it runs inside the compiled step (no host synchronisation).

>>> import jax.numpy as jnp
>>> from framework import optimizer
>>> tx = optimizer.create('lbsgd', learning_rate=1.0, batch_scale=2, warmup_epochs=0).to_optax()
>>> p = {'w': jnp.zeros(1)}
>>> s = tx.init(p)
>>> u1, s = tx.update({'w': jnp.ones(1)}, s, p)
>>> u2, s = tx.update({'w': jnp.full(1, 3.0)}, s, p)
>>> u1['w'].tolist(), u2['w'].tolist()
([0.0], [-4.0])
"""

from __future__ import annotations

import logging
from typing import Any

import jax.numpy as jnp

from .base import Optimizer, register
from .sgd import _sgd

__all__ = ["LBSGD", "Test", "GroupAdaGrad"]


@register
class LBSGD(Optimizer):
    """Large-batch SGD (see the module docstring)."""

    def __init__(self, momentum: float = 0.0, multi_precision: bool = False, warmup_strategy: str = "linear",
                 warmup_epochs: int = 5, batch_scale: int = 1, updates_per_epoch: int = 32,
                 begin_epoch: int = 0, num_epochs: int = 60, **kwargs: Any) -> None:
        super().__init__(multi_precision=multi_precision, **kwargs)
        if int(batch_scale) < 1:
            raise ValueError(f"LBSGD: batch_scale={batch_scale} must be a positive integer")
        logging.info("Running Large-Batch SGD Algorithm (batch_scale=%s, warmup_epochs=%d, "
                     "warmup_strategy=%s, updates_per_epoch=%d)", batch_scale, warmup_epochs,
                     warmup_strategy, updates_per_epoch)
        self.momentum = momentum
        self.warmup_strategy = warmup_strategy
        self.warmup_epochs = warmup_epochs
        self.batch_scale = batch_scale
        self.updates_per_epoch = updates_per_epoch
        self.init_updates = begin_epoch * updates_per_epoch
        self.num_epochs = num_epochs

    def _init_slots(self, name, weight):
        mom = (jnp.zeros_like(weight),) if self.momentum != 0.0 else ()
        return (*mom, jnp.zeros_like(weight), jnp.asarray(self.init_updates, jnp.int32))

    def _warmup(self, nup: Any) -> Any:
        nwup = self.warmup_epochs * self.updates_per_epoch
        top = float(self.batch_scale)
        frac = nup.astype(jnp.float32) / max(nwup, 1)
        if nwup <= 1:
            ramp = jnp.float32(1.0)
        elif self.warmup_strategy == "linear":
            ramp = 1.0 + (top - 1) * frac
        elif self.warmup_strategy == "power2":
            ramp = 1.0 + (top - 1) * frac * frac
        elif self.warmup_strategy == "sqrt":
            ramp = 1.0 + (top - 1) * jnp.sqrt(frac)
        else:
            ramp = jnp.float32(1.0)
        return jnp.where(nup >= nwup, jnp.float32(top), ramp)

    def _step(self, name, w, g, slots, lr, wd, rescale, t):
        mom = slots[0] if self.momentum != 0.0 else None
        cum, num = slots[-2] + g, slots[-1] + 1
        apply = num % int(self.batch_scale) == 0
        mean = cum / self.batch_scale
        if self.warmup_strategy == "lars":
            w2 = jnp.sum(jnp.square(w.astype(jnp.float32)))
            g2 = jnp.sum(jnp.square(mean.astype(jnp.float32)))
            mult = jnp.clip(jnp.sqrt(w2 / (g2 + wd * w2 + 1e-18)), 0.01, 100.0)
        else:
            mult = self._warmup(num)
        upd, new_mom = _sgd(self, self.momentum, w, mean, mom, lr * mult.astype(lr.dtype), wd, rescale)
        upd = jnp.where(apply, upd, jnp.zeros_like(upd))
        kept = (jnp.where(apply, new_mom, mom),) if mom is not None else ()
        return upd, (*kept, jnp.where(apply, jnp.zeros_like(cum), cum), num)


@register
class Test(Optimizer):
    """MXNet's test optimizer: ``w += rescale_grad * grad``; its state holds the new weight."""

    def _init_slots(self, name, weight):
        return (jnp.zeros_like(weight),)

    def _step(self, name, w, g, slots, lr, wd, rescale, t):
        upd = g * rescale
        return upd, (w + upd,)


@register
class GroupAdaGrad(Optimizer):
    """AdaGrad with one accumulator per row of a 2-D weight: ``h += mean(g^2, axis=1)``,
    ``w -= lr * g / sqrt(h + eps)`` with ``g = clip(rescale * grad)``; no weight decay (MXNet's
    ``optimizer.contrib.GroupAdaGrad``)."""

    def __init__(self, eps: float = 1e-5, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def _init_slots(self, name, weight):
        if weight.ndim != 2:
            raise ValueError(f"GroupAdaGrad: parameter {name!r} has shape {tuple(weight.shape)}; it takes "
                             "2-D weights only (one accumulator per row)")
        return (jnp.zeros((weight.shape[0], 1), weight.dtype),)

    def _step(self, name, w, g, slots, lr, wd, rescale, t):
        if wd != 0:
            raise ValueError(f"GroupAdaGrad: weight decay is not supported (wd={wd} for {name!r})")
        g = self._clip(rescale * g)
        hist = slots[0] + jnp.mean(jnp.square(g), axis=1, keepdims=True)
        return -lr * g / jnp.sqrt(hist + self.float_stable_eps), (hist,)
