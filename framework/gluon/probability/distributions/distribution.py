"""``Distribution``: the base class of MXNet 2.0's probability distributions.

A distribution holds its parameters (numbers, arrays, values recorded by ``autograd.record()`` or
tracers); every method is a pure function of them, so a distribution works eagerly, inside
``autograd.record()`` (gradients reach the parameters), and inside ``jax.jit``/``jax.grad``/a
hybridized block. ``sample``/``sample_n`` take an optional ``key=`` (a ``jax.random`` key); without
it a draw inside a block call uses the call's key and one outside uses the framework's key stream
(``np.random.seed``).

>>> from framework.gluon.probability import Normal
>>> d = Normal(0.0, 2.0)
>>> round(float(d.log_prob(0.0)), 4), float(d.variance)
(-1.6121, 4.0)
"""

from __future__ import annotations

from numbers import Number
from typing import Any, ClassVar

from .utils import op

__all__ = ["Distribution"]


def _exp(x):
    import jax.numpy as jnp

    return jnp.exp(x)


def _sqrt(x):
    import jax.numpy as jnp

    return jnp.sqrt(x)


class Distribution:
    """Base class. ``event_dim``: the number of rightmost axes of one event; ``validate_args``: check
    the parameters against ``arg_constraints`` (and values against ``support``) on the host.

    Subclasses define ``log_prob``, ``sample``, ``sample_n``, ``mean``, ``variance`` and, where they
    exist in closed form, ``cdf``, ``icdf``, ``entropy``, ``broadcast_to`` and ``enumerate_support``.
    """

    has_grad = False
    has_enumerate_support = False
    arg_constraints: ClassVar[dict[str, Any]] = {}
    support: Any = None
    _validate_args = False

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Validate the arguments of every distribution made from now on (or not)."""
        if value not in (True, False):
            raise ValueError(f"set_default_validate_args: value={value!r} must be True or False")
        Distribution._validate_args = value

    def __init__(self, event_dim: int | None = None, validate_args: bool | None = None) -> None:
        self.event_dim = event_dim
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            for param, constraint in self.arg_constraints.items():
                if param not in self.__dict__:
                    continue  # a cached property not computed (the other parameterisation was given)
                setattr(self, param, constraint.check(getattr(self, param)))

    def _validate_samples(self, value: Any) -> Any:
        """Check that ``value`` lies in the support (only with ``validate_args``)."""
        if self._validate_args and self.support is not None:
            return self.support.check(value)
        return value

    # ------------------------------------------------------------------ the interface
    def log_prob(self, value: Any) -> Any:
        """The log density (or mass) at ``value``."""
        raise NotImplementedError(f"{type(self).__name__} does not define log_prob")

    def pdf(self, value: Any) -> Any:
        """``exp(log_prob(value))``."""
        return op(_exp, self.log_prob(value))

    def cdf(self, value: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} has no closed-form cdf")

    def icdf(self, value: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} has no closed-form icdf")

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        """A sample of shape ``size`` (default: the parameters' broadcast shape)."""
        raise NotImplementedError(f"{type(self).__name__} does not define sample")

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        """``size`` independent samples: shape ``size + batch_shape`` (``size`` an int or a tuple)."""
        raise NotImplementedError(f"{type(self).__name__} does not define sample_n")

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> Distribution:
        """The same distribution with its parameters broadcast to ``batch_shape``."""
        raise NotImplementedError(f"{type(self).__name__} does not define broadcast_to")

    def enumerate_support(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__} has no enumerable support")

    @property
    def mean(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not define mean")

    @property
    def variance(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not define variance")

    @property
    def stddev(self) -> Any:
        return op(_sqrt, self.variance)

    def entropy(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__} has no closed-form entropy")

    def perplexity(self) -> Any:
        """``exp(entropy())``."""
        return op(_exp, self.entropy())

    def _new_like(self, **params: Any) -> Distribution:
        """A new instance of this class holding ``params`` (for ``broadcast_to``)."""
        new = self.__new__(type(self))
        new.__dict__.update(params)
        Distribution.__init__(new, event_dim=self.event_dim, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def __repr__(self) -> str:
        parts = []
        for k in self.arg_constraints:
            v = self.__dict__.get(k)
            shape = None if v is None else (() if isinstance(v, Number) else tuple(getattr(v, "shape", ())))
            parts.append(f"{k}: size {shape}")
        parts.append(f"event_dim: {self.event_dim}")
        return f"{type(self).__name__}({', '.join(parts)})"
