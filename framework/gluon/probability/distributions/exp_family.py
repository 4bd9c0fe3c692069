"""``ExponentialFamily``: distributions of the form ``p(x) = h(x) exp(<t(x), theta> - A(theta))``.

Subclasses give their natural parameters (``_natural_params``) and log normaliser
(``_log_normalizer``); the mean of the sufficient statistic is the gradient of ``A``.

>>> from framework.gluon.probability import Normal
>>> isinstance(Normal(), ExponentialFamily)
True
"""

from __future__ import annotations

from typing import Any

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base class of exponential-family distributions (MXNet 2.0's)."""

    @property
    def _natural_params(self) -> tuple[Any, ...]:
        raise NotImplementedError(f"{type(self).__name__} does not define its natural parameters")

    def _log_normalizer(self, *natural_params: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not define its log normalizer")

    def _mean_carrier_measure(self, x: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not define its carrier measure")
