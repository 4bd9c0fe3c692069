"""Registries from constraints to transformations (MXNet 2.0's ``biject_to``/``transform_to``):
``transform_to(constraint)`` maps the real line onto the constrained set, e.g. to optimise a positive
parameter without constraints.

>>> import jax.numpy as jnp
>>> from framework.gluon.probability.distributions.constraint import Interval, Positive
>>> float(transform_to(Positive())(jnp.array(0.0)))
1.0
>>> float(biject_to(Interval(2.0, 4.0))(jnp.array(0.0)))
3.0
"""

from __future__ import annotations

from collections.abc import Callable
from numbers import Number
from typing import Any

from ..distributions.constraint import (
    Constraint,
    GreaterThan,
    GreaterThanEq,
    HalfOpenInterval,
    Interval,
    LessThan,
    Positive,
)
from .transformation import AffineTransform, ComposeTransform, ExpTransform, SigmoidTransform, Transformation

__all__ = ["domain_map", "biject_to", "transform_to"]


class domain_map:  # noqa: N801 (MXNet's name)
    """A registry: ``register(constraint_type, factory)`` (also as a decorator), then
    ``registry(constraint)`` builds the transformation for that constraint; a constraint's class is
    looked up along its MRO (a subclass of a registered constraint uses its factory)."""

    def __init__(self) -> None:
        self._storage: dict[type, Callable[[Any], Transformation]] = {}

    def register(self, constraint: Any, factory: Callable[[Any], Transformation] | None = None) -> Any:
        if factory is None:
            return lambda f: self.register(constraint, f)
        if isinstance(constraint, Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint, Constraint):
            raise TypeError("Expected constraint to be either a Constraint subclass or instance, but got "
                            f"{constraint}")
        self._storage[constraint] = factory
        return factory

    def __call__(self, constraint: Constraint) -> Transformation:
        for kind in type(constraint).__mro__:
            factory = self._storage.get(kind)
            if factory is not None:
                return factory(constraint)
        raise NotImplementedError(f"Cannot transform {type(constraint).__name__} constraints")


biject_to = domain_map()
transform_to = domain_map()


def _to_positive(constraint: Any) -> Transformation:
    return ExpTransform()


def _to_greater_than(constraint: Any) -> Transformation:
    return ComposeTransform([ExpTransform(), AffineTransform(constraint._lower_bound, 1)])


def _to_less_than(constraint: Any) -> Transformation:
    return ComposeTransform([ExpTransform(), AffineTransform(constraint._upper_bound, -1)])


def _to_interval(constraint: Any) -> Transformation:
    low, high = constraint._lower_bound, constraint._upper_bound
    if isinstance(low, Number) and low == 0 and isinstance(high, Number) and high == 1:
        return SigmoidTransform()
    return ComposeTransform([SigmoidTransform(), AffineTransform(low, high - low)])


for _registry in (biject_to, transform_to):
    _registry.register(Positive, _to_positive)
    _registry.register(GreaterThan, _to_greater_than)
    _registry.register(GreaterThanEq, _to_greater_than)
    _registry.register(LessThan, _to_less_than)
    _registry.register(Interval, _to_interval)
    _registry.register(HalfOpenInterval, _to_interval)
