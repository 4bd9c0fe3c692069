"""The ``prob``/``logit`` parameterisation shared by the binary distributions (private).

>>> b = _Binary(prob=0.25)
>>> round(float(b.logit), 4)
-1.0986
"""

from __future__ import annotations

from typing import Any

from .utils import broadcast, cached_property, logit2prob, prob2logit


class _Binary:
    """``prob`` or ``logit`` (exactly one given); the other is derived once (MXNet's rule)."""

    def _set_prob_logit(self, prob: Any, logit: Any) -> None:
        if (prob is None) == (logit is None):
            raise ValueError("Either `prob` or `logit` must be specified, but not both. "
                             f"Received prob={prob}, logit={logit}")
        if prob is not None:
            self.prob = prob
        else:
            self.logit = logit

    def __init__(self, prob: Any = None, logit: Any = None) -> None:
        self._set_prob_logit(prob, logit)

    @cached_property
    def prob(self) -> Any:
        return logit2prob(self.logit, True)

    @cached_property
    def logit(self) -> Any:
        return prob2logit(self.prob, True)

    def _given(self) -> str:
        return "prob" if "prob" in self.__dict__ else "logit"

    def _broadcast_given(self, batch_shape: tuple[int, ...]) -> dict[str, Any]:
        name = self._given()
        return {name: broadcast(getattr(self, name), batch_shape)}
