"""The events of the Estimator's loop (base classes a handler subclasses) and the rule that turns a
``mode`` into a comparison (shared by the early-stopping and checkpoint handlers).

>>> issubclass(BatchEnd, EventHandler)
True
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as onp

from ...metric import EvalMetric

__all__ = ["EventHandler", "TrainBegin", "TrainEnd", "EpochBegin", "EpochEnd", "BatchBegin", "BatchEnd"]


class EventHandler:
    """Base of every handler."""


def _check_event_handlers(handlers: Any) -> list[EventHandler]:
    if isinstance(handlers, EventHandler):
        return [handlers]
    handlers = list(handlers or [])
    if not all(isinstance(h, EventHandler) for h in handlers):
        raise ValueError(f"handlers must be an EventHandler or a list of EventHandler, got: {handlers}")
    return handlers


class TrainBegin(EventHandler):
    def train_begin(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        pass


class TrainEnd(EventHandler):
    def train_end(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        pass


class EpochBegin(EventHandler):
    def epoch_begin(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        pass


class EpochEnd(EventHandler):
    def epoch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> bool:
        return False


class BatchBegin(EventHandler):
    def batch_begin(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        pass


class BatchEnd(EventHandler):
    def batch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> bool:
        return False


def _monitor_op(mode: str, monitor: EvalMetric, who: str) -> Callable[[Any, Any], Any]:
    """``onp.less`` or ``onp.greater`` for ``mode`` ('min', 'max', 'auto': greater for a metric whose name
    holds 'acc' or 'f1', less otherwise, with MXNet's warning)."""
    if mode not in ("auto", "min", "max"):
        warnings.warn(f"{who} mode {mode} is unknown, fallback to auto mode. {who} will use max mode for f1 "
                      "and accuracy metric comparison and use min mode other wise", RuntimeWarning,
                      stacklevel=3)
        mode = "auto"
    if mode == "min":
        return onp.less
    if mode == "max":
        return onp.greater
    name = str(monitor.get()[0])
    if "acc" in name.lower() or "f1" in name.lower():
        warnings.warn(f"`greater` operator will be used to determine if {name} has improved. Please "
                      "specify `mode='min'` to use the `less` operator. Specify `mode='max' to disable this "
                      "warning.`", stacklevel=3)
        return onp.greater
    warnings.warn(f"`less` operator will be used to determine if {name} has improved. Please specify "
                  "`mode='max'` to use the `greater` operator. Specify `mode='min' to disable this warning.`",
                  stacklevel=3)
    return onp.less
