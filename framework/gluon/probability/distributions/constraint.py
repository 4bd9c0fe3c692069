"""Constraints on parameters and values (MXNet 2.0's ``distributions.constraint``).

``constraint.check(value)`` returns ``value`` when it satisfies the constraint everywhere and raises
``ValueError`` naming the constraint otherwise. The check reads the value on the host; inside a trace
(``jax.jit``, a hybridized block) it cannot and returns the value unchecked.

>>> Positive().check(2.0)
2.0
>>> Interval(0, 1).check(1.5)
Traceback (most recent call last):
...
ValueError: Constraint violated: 1.5 should be >= 0 and <= 1.
"""

from __future__ import annotations

from typing import Any

import numpy as onp

from .utils import concrete

__all__ = ["Constraint", "Real", "Boolean", "Interval", "OpenInterval", "HalfOpenInterval",
           "UnitInterval", "IntegerInterval", "IntegerOpenInterval", "IntegerHalfOpenInterval",
           "GreaterThan", "GreaterThanEq", "IntegerGreaterThan", "IntegerGreaterThanEq", "LessThan",
           "LessThanEq", "IntegerLessThan", "IntegerLessThanEq", "Positive", "NonNegative",
           "PositiveInteger", "NonNegativeInteger", "Simplex", "LowerTriangular", "LowerCholesky",
           "PositiveDefinite", "Cat", "Stack", "is_dependent", "dependent_property"]


class Constraint:
    """Base class: ``check(value)`` returns the value or raises ``ValueError``."""

    def _holds(self, v: onp.ndarray) -> Any:
        raise NotImplementedError

    def _message(self, value: Any) -> str:
        raise NotImplementedError

    def check(self, value: Any) -> Any:
        v = concrete(value)
        if v is not None and not bool(onp.all(self._holds(v))):
            raise ValueError(self._message(value))
        return value


class _Dependent(Constraint):
    """A constraint that depends on other parameters: it cannot be checked by itself."""

    def check(self, value: Any) -> Any:
        raise ValueError("Cannot validate dependent constraint")


def is_dependent(constraint: Any) -> bool:
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property whose value is a constraint computed from the distribution's parameters."""


dependent_property = _DependentProperty


class Real(Constraint):
    def _holds(self, v):
        return v == v

    def _message(self, value):
        return f"Constraint violated: {value} should be a real tensor"


class Boolean(Constraint):
    def _holds(self, v):
        return (v == 0) | (v == 1)

    def _message(self, value):
        return f"Constraint violated: {value} should be either 0 or 1."


class _Bounded(Constraint):
    _integer = False
    _text = ""

    def _bounds_hold(self, v):
        raise NotImplementedError

    def _holds(self, v):
        ok = self._bounds_hold(v)
        return ok & (v % 1 == 0) if self._integer else ok

    def _message(self, value):
        kind = "be integer and be " if self._integer else "be "
        return f"Constraint violated: {value} should {kind}{self._text.format(**vars(self))}"


class Interval(_Bounded):
    _text = ">= {_lower_bound} and <= {_upper_bound}."

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self._lower_bound, self._upper_bound = lower_bound, upper_bound

    def _bounds_hold(self, v):
        return (v >= concrete(self._lower_bound)) & (v <= concrete(self._upper_bound))


class OpenInterval(Interval):
    _text = "> {_lower_bound} and < {_upper_bound}."

    def _bounds_hold(self, v):
        return (v > concrete(self._lower_bound)) & (v < concrete(self._upper_bound))


class HalfOpenInterval(Interval):
    _text = ">= {_lower_bound} and < {_upper_bound}."

    def _bounds_hold(self, v):
        return (v >= concrete(self._lower_bound)) & (v < concrete(self._upper_bound))


class UnitInterval(Interval):
    def __init__(self) -> None:
        super().__init__(0, 1)


class IntegerInterval(Interval):
    _integer = True


class IntegerOpenInterval(OpenInterval):
    _integer = True


class IntegerHalfOpenInterval(HalfOpenInterval):
    _integer = True


class GreaterThan(_Bounded):
    _text = "greater than {_lower_bound}"

    def __init__(self, lower_bound: Any) -> None:
        self._lower_bound = lower_bound

    def _bounds_hold(self, v):
        return v > concrete(self._lower_bound)


class GreaterThanEq(GreaterThan):
    _text = "greater than or equal to {_lower_bound}"

    def _bounds_hold(self, v):
        return v >= concrete(self._lower_bound)


class LessThan(_Bounded):
    _text = "less than {_upper_bound}"

    def __init__(self, upper_bound: Any) -> None:
        self._upper_bound = upper_bound

    def _bounds_hold(self, v):
        return v < concrete(self._upper_bound)


class LessThanEq(LessThan):
    _text = "less than or equal to {_upper_bound}"

    def _bounds_hold(self, v):
        return v <= concrete(self._upper_bound)


class IntegerGreaterThan(GreaterThan):
    _integer = True


class IntegerGreaterThanEq(GreaterThanEq):
    _integer = True


class IntegerLessThan(LessThan):
    _integer = True


class IntegerLessThanEq(LessThanEq):
    _integer = True


class Positive(GreaterThan):
    def __init__(self) -> None:
        super().__init__(0)


class NonNegative(GreaterThanEq):
    def __init__(self) -> None:
        super().__init__(0)


class PositiveInteger(IntegerGreaterThan):
    def __init__(self) -> None:
        super().__init__(0)


class NonNegativeInteger(IntegerGreaterThanEq):
    def __init__(self) -> None:
        super().__init__(0)


class Simplex(Constraint):
    def _holds(self, v):
        return onp.all(v >= 0, axis=-1) & (onp.abs(v.sum(-1) - 1) < 1e-6)

    def _message(self, value):
        return f"Constraint violated: {value} should be >= 0 and its rightmost dimension should sum up to 1"


class LowerTriangular(Constraint):
    def _holds(self, v):
        return onp.tril(v) == v

    def _message(self, value):
        return f"Constraint violated: {value} should be square lower triangular matrices"


class LowerCholesky(Constraint):
    def _holds(self, v):
        return onp.all(onp.tril(v) == v, axis=(-2, -1)) & onp.all(onp.diagonal(v, axis1=-2, axis2=-1) > 0, -1)

    def _message(self, value):
        return (f"Constraint violated: {value} should be square lower triangular matrices with real and "
                "positive diagonal entries")


class PositiveDefinite(Constraint):
    def _holds(self, v):
        sym = onp.all(onp.abs(v - onp.swapaxes(v, -1, -2)) < 1e-5, axis=(-2, -1))
        return sym & onp.all(onp.linalg.eigvalsh(v) > 0, axis=-1)

    def _message(self, value):
        return f"Constraint violated: {value} should be positive definite matrices"


class Cat(Constraint):
    """Constraints applied to consecutive slices (``lengths``) along ``axis``."""

    def __init__(self, constraint_seq: list[Constraint], axis: int = 0,
                 lengths: list[int] | None = None) -> None:
        self._constraint_seq = list(constraint_seq)
        if not all(isinstance(c, Constraint) for c in self._constraint_seq):
            raise TypeError("Cat: every item of constraint_seq must be a Constraint")
        self._lengths = list(lengths) if lengths is not None else [1] * len(self._constraint_seq)
        if len(self._lengths) != len(self._constraint_seq):
            raise ValueError(f"The number of lengths {len(self._lengths)} should be equal to number of "
                             f"constraints {len(self._constraint_seq)}")
        self._axis = axis

    def check(self, value: Any) -> Any:
        v = concrete(value)
        if v is not None:
            start = 0
            for length, c in zip(self._lengths, self._constraint_seq, strict=True):
                c.check(onp.take(v, onp.arange(start, start + length), axis=self._axis))
                start += length
        return value


class Stack(Constraint):
    """One constraint per index along ``axis``."""

    def __init__(self, constraint_seq: list[Constraint], axis: int = 0) -> None:
        self._constraint_seq = list(constraint_seq)
        if not all(isinstance(c, Constraint) for c in self._constraint_seq):
            raise TypeError("Stack: every item of constraint_seq must be a Constraint")
        self._axis = axis

    def check(self, value: Any) -> Any:
        v = concrete(value)
        if v is not None:
            for i, c in enumerate(self._constraint_seq):
                c.check(onp.take(v, i, axis=self._axis))
        return value
