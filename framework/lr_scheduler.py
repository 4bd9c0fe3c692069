"""MXNet's learning-rate schedulers, in closed form, with optax schedules to match.

``sched(num_update)`` returns what MXNet 1.9.1's scheduler returns for ``num_update`` (MXNet counts
updates from 1: the first update asks for ``sched(1)``). MXNet's Factor and MultiFactor schedulers
are stateful (they multiply ``base_lr`` in place); here they are pure closed forms that give the same
numbers for any non-decreasing sequence of ``num_update``. Poly and Cosine return ``final_lr`` after
``max_update`` (MXNet keeps the last value it computed, which is ``final_lr`` when updates are counted
one by one).

MXNet quirks kept on purpose: an optimizer overwrites ``base_lr`` with its ``learning_rate`` (so pass
``learning_rate`` to the optimizer/Trainer); warmup ramps towards the ``base_lr`` given to the
*scheduler's constructor*; Poly and Cosine decay from that constructor ``base_lr`` too.

:meth:`LRScheduler.as_optax` gives an optax schedule of optax's zero-based step ``count`` that returns
``sched(count + 1)``, so optax code reproduces MXNet's sequence.

>>> from framework import lr_scheduler
>>> s = lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=1.0)
>>> [s(n) for n in range(1, 7)]
[1.0, 1.0, 0.5, 0.5, 0.25, 0.25]
>>> [float(s.as_optax()(c)) for c in range(0, 6)]
[1.0, 1.0, 0.5, 0.5, 0.25, 0.25]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

__all__ = ["LRScheduler", "FactorScheduler", "MultiFactorScheduler", "PolyScheduler", "CosineScheduler"]


class LRScheduler:
    """Base class: ``sched(num_update) -> float``, with MXNet's linear/constant warmup.

    ``num_update < warmup_steps`` gives ``warmup_begin_lr + (base_lr - warmup_begin_lr) * num_update /
    warmup_steps`` ('linear') or ``warmup_begin_lr`` ('constant').
    """

    def __init__(self, base_lr: float = 0.01, warmup_steps: int = 0, warmup_begin_lr: float = 0,
                 warmup_mode: str = "linear") -> None:
        if not isinstance(warmup_steps, (int, onp.integer)) or isinstance(warmup_steps, bool):
            raise TypeError(f"warmup_steps must be an int, got {warmup_steps!r}")
        self.base_lr = base_lr
        self.warmup_steps = int(warmup_steps)
        self.warmup_final_lr = base_lr
        self.warmup_begin_lr = warmup_begin_lr
        if self.warmup_begin_lr > self.warmup_final_lr:
            raise ValueError(f"Base lr has to be higher than warmup_begin_lr (base_lr={base_lr}, "
                             f"warmup_begin_lr={warmup_begin_lr})")
        if self.warmup_steps < 0:
            raise ValueError(f"Warmup steps has to be positive or 0, got {warmup_steps}")
        if warmup_mode not in ("linear", "constant"):
            raise ValueError(f"Supports only linear and constant modes of warmup, got {warmup_mode!r}")
        self.warmup_mode = warmup_mode

    def get_warmup_lr(self, num_update: int) -> float:
        """The warmup learning rate for ``num_update < warmup_steps``."""
        if num_update >= self.warmup_steps:
            raise ValueError(f"num_update {num_update} is past the warmup ({self.warmup_steps} steps)")
        return float(self._warmup(onp.float64(num_update), onp))

    def __call__(self, num_update: int) -> float:
        n = onp.float64(num_update)
        return float(self._with_warmup(n, onp))

    def as_optax(self) -> Callable[[Any], jax.Array]:
        """An optax schedule: zero-based ``count`` -> float32 learning rate of update ``count + 1``.

        >>> import jax.numpy as jnp
        >>> PolyScheduler(max_update=4, base_lr=1.0, pwr=1).as_optax()(jnp.int32(1)).item()
        0.5
        """
        def schedule(count: Any) -> jax.Array:
            n = jnp.asarray(count, jnp.float32) + 1.0
            return jnp.asarray(self._with_warmup(n, jnp), jnp.float32)
        return schedule

    # --- closed forms over a numpy-like namespace (numpy float64 on the host, jnp in optax) ------
    def _warmup(self, n: Any, xp: Any) -> Any:
        if self.warmup_mode == "constant":
            return xp.asarray(self.warmup_begin_lr, dtype=n.dtype) + 0 * n
        increase = (self.warmup_final_lr - self.warmup_begin_lr) * n / float(max(self.warmup_steps, 1))
        return self.warmup_begin_lr + increase

    def _with_warmup(self, n: Any, xp: Any) -> Any:
        value = self._value(n, xp)
        if self.warmup_steps > 0:
            value = xp.where(n < self.warmup_steps, self._warmup(n, xp), value)
        return value

    def _value(self, n: Any, xp: Any) -> Any:
        raise NotImplementedError("must override this")

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({fields})"


class FactorScheduler(LRScheduler):
    """``base_lr * factor ** k`` where ``k = max(0, ceil(num_update / step) - 1)``, never below
    ``stop_factor_lr`` once decayed.

    >>> FactorScheduler(step=10, factor=0.1, stop_factor_lr=1e-3, base_lr=1.0)(45)
    0.001
    """

    def __init__(self, step: int, factor: float = 1, stop_factor_lr: float = 1e-8, base_lr: float = 0.01,
                 warmup_steps: int = 0, warmup_begin_lr: float = 0, warmup_mode: str = "linear") -> None:
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if step < 1:
            raise ValueError(f"Schedule step must be greater or equal than 1 round, got step={step}")
        if factor > 1.0:
            raise ValueError(f"Factor must be no more than 1 to make lr reduce, got factor={factor}")
        self.step = step
        self.factor = factor
        self.stop_factor_lr = stop_factor_lr

    def _value(self, n, xp):
        k = xp.maximum(xp.ceil(n / self.step) - 1, 0)
        decayed = xp.maximum(self.base_lr * xp.power(self.factor, k), self.stop_factor_lr)
        return xp.where(k > 0, decayed, self.base_lr + 0 * n)


class MultiFactorScheduler(LRScheduler):
    """``base_lr * factor ** k`` where ``k`` counts the steps ``s`` with ``num_update > s``.

    >>> s = MultiFactorScheduler(step=[2, 4], factor=0.5, base_lr=1.0)
    >>> [s(n) for n in range(1, 6)]
    [1.0, 1.0, 0.5, 0.5, 0.25]
    """

    def __init__(self, step: Sequence[int], factor: float = 1, base_lr: float = 0.01, warmup_steps: int = 0,
                 warmup_begin_lr: float = 0, warmup_mode: str = "linear") -> None:
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if not isinstance(step, (list, tuple)) or len(step) < 1:
            raise TypeError(f"MultiFactorScheduler's step must be a non-empty list of ints, got {step!r}")
        for i, s in enumerate(step):
            if i != 0 and step[i] <= step[i - 1]:
                raise ValueError(f"Schedule step must be an increasing integer list, got {list(step)}")
            if s < 1:
                raise ValueError(f"Schedule step must be greater or equal than 1 round, got {list(step)}")
        if factor > 1.0:
            raise ValueError(f"Factor must be no more than 1 to make lr reduce, got factor={factor}")
        self.step = list(step)
        self.factor = factor

    def _value(self, n, xp):
        k = sum(xp.where(n > s, 1.0, 0.0) for s in self.step)
        return self.base_lr * xp.power(self.factor, k)


def _check_max_update(max_update: Any) -> int:
    if not isinstance(max_update, (int, onp.integer)) or isinstance(max_update, bool):
        raise TypeError(f"max_update must be an int, got {max_update!r}")
    if max_update < 1:
        raise ValueError(f"maximum number of updates must be strictly positive, got {max_update}")
    return int(max_update)


class PolyScheduler(LRScheduler):
    """``final_lr + (base_lr - final_lr) * (1 - (n - warmup_steps) / (max_update - warmup_steps)) ** pwr``.

    >>> PolyScheduler(max_update=10, base_lr=1.0, pwr=2)(5)
    0.25
    """

    def __init__(self, max_update: int, base_lr: float = 0.01, pwr: float = 2, final_lr: float = 0,
                 warmup_steps: int = 0, warmup_begin_lr: float = 0, warmup_mode: str = "linear") -> None:
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        self.max_update = _check_max_update(max_update)
        self.power = pwr
        self.base_lr_orig = self.base_lr
        self.final_lr = final_lr
        self.max_steps = self.max_update - self.warmup_steps

    def _value(self, n, xp):
        frac = xp.clip(1.0 - (n - self.warmup_steps) / float(self.max_steps), 0.0, None)
        value = self.final_lr + (self.base_lr_orig - self.final_lr) * xp.power(frac, self.power)
        return xp.where(n <= self.max_update, value, self.final_lr + 0 * n)


class CosineScheduler(LRScheduler):
    """``final_lr + (base_lr - final_lr) * (1 + cos(pi * (n - warmup_steps) / max_steps)) / 2``.

    >>> CosineScheduler(max_update=10, base_lr=1.0)(5)
    0.5
    """

    def __init__(self, max_update: int, base_lr: float = 0.01, final_lr: float = 0, warmup_steps: int = 0,
                 warmup_begin_lr: float = 0, warmup_mode: str = "linear") -> None:
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        self.max_update = _check_max_update(max_update)
        self.base_lr_orig = base_lr
        self.final_lr = final_lr
        self.max_steps = self.max_update - self.warmup_steps

    def _value(self, n, xp):
        cos = xp.cos(math.pi * (n - self.warmup_steps) / float(self.max_steps))
        value = self.final_lr + (self.base_lr_orig - self.final_lr) * (1 + cos) / 2
        return xp.where(n <= self.max_update, value, self.final_lr + 0 * n)
