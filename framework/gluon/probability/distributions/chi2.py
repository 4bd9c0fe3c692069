"""The chi-squared distribution: ``Gamma(df / 2, 2)``.

>>> from framework.gluon.probability import Chi2
>>> float(Chi2(4.0).mean), float(Chi2(4.0).df)
(4.0, 4.0)
"""

from __future__ import annotations

from typing import Any

from .constraint import Positive
from .gamma import Gamma

__all__ = ["Chi2"]


class Chi2(Gamma):
    """Chi-squared distribution with ``df`` degrees of freedom."""

    arg_constraints = {"df": Positive()}  # noqa: RUF012

    def __init__(self, df: Any, validate_args: bool | None = None) -> None:
        super().__init__(df / 2, 2, validate_args)

    @property
    def df(self) -> Any:
        return self.shape * 2
