"""Invertible transformations of random variables (MXNet 2.0's ``probability.transformation``).

``t(x)`` maps forward, ``t.inv(y)`` back, ``t.log_det_jacobian(x, y)`` is ``log|dy/dx|`` summed over
the transformation's ``event_dim`` rightmost axes; ``sign`` is the sign of the derivative.

>>> import jax.numpy as jnp
>>> t = ComposeTransform([ExpTransform(), AffineTransform(1.0, 2.0)])
>>> y = t(jnp.array(0.0)); float(y), float(t.inv(y))
(3.0, 0.0)
>>> round(float(t.log_det_jacobian(jnp.array(0.0), y)), 4)   # log(2 * e**0)
0.6931
"""

from __future__ import annotations

import weakref
from typing import Any

import jax
import jax.numpy as jnp

from ...block import HybridBlock
from ..distributions.utils import EPS, cached_property, op, sum_right_most

__all__ = ["Transformation", "TransformBlock", "ComposeTransform", "ExpTransform", "AffineTransform",
           "PowerTransform", "AbsTransform", "SigmoidTransform", "SoftmaxTransform"]


class Transformation:
    """Base class. Subclasses define ``_forward_compute``, ``_inverse_compute``, ``log_det_jacobian``
    and ``sign``; ``bijective`` says whether the inverse is exact."""

    bijective = False
    event_dim = 0

    def __init__(self) -> None:
        self._inv: Any = None
        super().__init__()

    @property
    def sign(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not define sign")

    @property
    def inv(self) -> Transformation:
        """The inverse transformation (cached weakly, as MXNet does)."""
        inv = self._inv() if self._inv is not None else None
        if inv is None:
            inv = _InverseTransformation(self)
            self._inv = weakref.ref(inv)
        return inv

    def __call__(self, x: Any) -> Any:
        return self._forward_compute(x)

    def _inv_call(self, y: Any) -> Any:
        return self._inverse_compute(y)

    def _forward_compute(self, x: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not define its forward map")

    def _inverse_compute(self, y: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not define its inverse")

    def log_det_jacobian(self, x: Any, y: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not define log_det_jacobian")


class _InverseTransformation(Transformation):
    def __init__(self, forward: Transformation) -> None:
        super().__init__()
        self._inv = forward

    @property
    def inv(self) -> Transformation:
        return self._inv

    @property
    def sign(self) -> Any:
        return self._inv.sign

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self._inv.event_dim

    def __call__(self, x: Any) -> Any:
        return self._inv._inverse_compute(x)

    def log_det_jacobian(self, x: Any, y: Any) -> Any:
        return -self._inv.log_det_jacobian(y, x)


class TransformBlock(Transformation, HybridBlock):
    """A transformation with Parameters (a HybridBlock): define its maps over them."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)


class ComposeTransform(Transformation):
    """``parts`` applied in order."""

    def __init__(self, parts: list[Transformation]) -> None:
        super().__init__()
        self._parts = list(parts)

    def _forward_compute(self, x: Any) -> Any:
        for t in self._parts:
            x = t(x)
        return x

    @cached_property
    def sign(self) -> Any:
        sign = 1
        for p in self._parts:
            sign = sign * p.sign
        return sign

    @cached_property
    def event_dim(self) -> int:  # type: ignore[override]
        return max(p.event_dim for p in self._parts) if self._parts else 0

    @property
    def inv(self) -> Transformation:
        inv = self._inv() if self._inv is not None else None
        if inv is None:
            inv = ComposeTransform([t.inv for t in reversed(self._parts)])
            self._inv = weakref.ref(inv)
            inv._inv = weakref.ref(self)
        return inv

    def log_det_jacobian(self, x: Any, y: Any) -> Any:
        if not self._parts:
            return op(jnp.zeros_like, x)
        result: Any = 0
        for t in self._parts[:-1]:
            x_next = t(x)
            result = result + sum_right_most(t.log_det_jacobian(x, x_next), self.event_dim - t.event_dim)
            x = x_next
        last = self._parts[-1]
        return result + sum_right_most(last.log_det_jacobian(x, y), self.event_dim - last.event_dim)


class ExpTransform(Transformation):
    """``y = exp(x)``."""

    bijective = True
    sign = 1

    def _forward_compute(self, x: Any) -> Any:
        return op(jnp.exp, x)

    def _inverse_compute(self, y: Any) -> Any:
        return op(jnp.log, y)

    def log_det_jacobian(self, x: Any, y: Any) -> Any:
        return x


def _affine_ldj(x, scale, event_dim):
    value = jnp.ones_like(x) * jnp.log(jnp.abs(scale))
    return jnp.sum(value, axis=tuple(range(-event_dim, 0))) if event_dim else value


class AffineTransform(Transformation):
    """``y = loc + scale * x`` (``event_dim`` rightmost axes form one event)."""

    bijective = True

    def __init__(self, loc: Any, scale: Any, event_dim: int = 0) -> None:
        super().__init__()
        self._loc, self._scale = loc, scale
        self.event_dim = event_dim

    def _forward_compute(self, x: Any) -> Any:
        return self._loc + self._scale * x

    def _inverse_compute(self, y: Any) -> Any:
        return (y - self._loc) / self._scale

    def log_det_jacobian(self, x: Any, y: Any) -> Any:
        return op(_affine_ldj, x, self._scale, self.event_dim)

    @property
    def sign(self) -> Any:
        return op(jnp.sign, self._scale)


def _power(x, exponent):
    return jnp.power(x, exponent)


def _power_ldj(x, y, exponent):
    return jnp.log(jnp.abs(exponent * y / x))


class PowerTransform(Transformation):
    """``y = x ** exponent`` (x > 0)."""

    bijective = True
    sign = 1

    def __init__(self, exponent: Any) -> None:
        super().__init__()
        self._exponent = exponent

    def _forward_compute(self, x: Any) -> Any:
        return op(_power, x, self._exponent)

    def _inverse_compute(self, y: Any) -> Any:
        return op(_power, y, 1 / self._exponent)

    def log_det_jacobian(self, x: Any, y: Any) -> Any:
        return op(_power_ldj, x, y, self._exponent)


def _sigmoid(x):
    return jnp.clip(jax.nn.sigmoid(x), EPS, 1 - EPS)


def _logit(y):
    p = jnp.clip(y, EPS, 1 - EPS)
    return jnp.log(p) - jnp.log1p(-p)


def _sigmoid_ldj(x):
    return -jax.nn.softplus(-x) - jax.nn.softplus(x)


class SigmoidTransform(Transformation):
    """``y = sigmoid(x)`` (clipped into (0, 1) by float32's eps, as MXNet)."""

    bijective = True
    sign = 1

    def _forward_compute(self, x: Any) -> Any:
        return op(_sigmoid, x)

    def _inverse_compute(self, y: Any) -> Any:
        return op(_logit, y)

    def log_det_jacobian(self, x: Any, y: Any) -> Any:
        return op(_sigmoid_ldj, x)


def _softmax(x):
    return jax.nn.softmax(x, axis=-1)


class SoftmaxTransform(Transformation):
    """``y = softmax(x)`` over the last axis (not bijective: the inverse is ``log``)."""

    event_dim = 1

    def _forward_compute(self, x: Any) -> Any:
        return op(_softmax, x)

    def _inverse_compute(self, y: Any) -> Any:
        return op(jnp.log, y)


class AbsTransform(Transformation):
    """``y = |x|`` (not bijective: the inverse returns ``y``)."""

    def _forward_compute(self, x: Any) -> Any:
        return op(jnp.abs, x)

    def _inverse_compute(self, y: Any) -> Any:
        return y
