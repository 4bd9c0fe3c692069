"""Event handlers of the Estimator (MXNet 1.9.1's ``estimator.event_handler``).

A handler subclasses the events it reacts to (``TrainBegin``, ``EpochBegin``, ``BatchBegin``,
``BatchEnd``, ``EpochEnd``, ``TrainEnd``); ``batch_end``/``epoch_end`` returning True stops training.
Handlers run in ascending ``priority`` (GradientUpdateHandler -2000, Metric/ValidationHandler -1000,
others 0, LoggingHandler last).

>>> handler = StoppingHandler(max_epoch=2)
>>> class Est: max_epoch, max_batch = 2, None
>>> handler.train_begin(Est())
>>> [handler.epoch_end(Est()), handler.epoch_end(Est())]
[False, True]
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as onp

from ...metric import CompositeEvalMetric, EvalMetric
from ...metric import Loss as _LossMetric
from ...metric import Loss as metric_loss  # MXNet's module offers gluon.metric.Loss under this name
from .checkpoint import CheckpointHandler
from .events import (
    BatchBegin,
    BatchEnd,
    EpochBegin,
    EpochEnd,
    EventHandler,
    TrainBegin,
    TrainEnd,
    _monitor_op,
)
from .utils import _check_metrics

__all__ = ["TrainBegin", "TrainEnd", "EpochBegin", "EpochEnd", "BatchBegin", "BatchEnd", "EventHandler",
           "StoppingHandler", "MetricHandler", "ValidationHandler", "LoggingHandler", "CheckpointHandler",
           "EarlyStoppingHandler", "GradientUpdateHandler", "metric_loss"]


class StoppingHandler(TrainBegin, BatchEnd, EpochEnd):
    """Stop after ``max_epoch`` epochs or ``max_batch`` batches (taken from the estimator's ``fit``)."""

    def __init__(self, max_epoch: int | None = None, max_batch: int | None = None) -> None:
        self.max_epoch, self.max_batch = max_epoch, max_batch
        self.current_batch = self.current_epoch = 0
        self.stop_training = False

    def train_begin(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        self.max_epoch, self.max_batch = estimator.max_epoch, estimator.max_batch
        self.current_batch = self.current_epoch = 0

    def batch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> bool:
        self.current_batch += 1
        if self.current_batch == self.max_batch:
            self.stop_training = True
        return self.stop_training

    def epoch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> bool:
        self.current_epoch += 1
        if self.current_epoch == self.max_epoch:
            self.stop_training = True
        return self.stop_training


class MetricHandler(EpochBegin, BatchEnd):
    """Reset ``metrics`` at each epoch's start; update them at each batch's end (a ``metric.Loss`` with
    the losses, the others with ``(label, pred)``)."""

    def __init__(self, metrics: Any, priority: float = -1000) -> None:
        self.metrics = _check_metrics(metrics)
        self.priority = priority

    def epoch_begin(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        for metric in self.metrics:
            metric.reset()

    def batch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> bool:
        pred, label, loss = kwargs["pred"], kwargs["label"], kwargs["loss"]
        for metric in self.metrics:
            if isinstance(metric, _LossMetric):
                metric.update(0, loss)
            else:
                metric.update(label, pred)
        return False


class ValidationHandler(TrainBegin, BatchEnd, EpochEnd):
    """Run ``eval_fn(val_data=..., batch_axis=..., event_handlers=...)`` every ``epoch_period`` epochs
    and, when given, every ``batch_period`` batches."""

    def __init__(self, val_data: Any, eval_fn: Callable[..., Any], epoch_period: int | None = 1,
                 batch_period: int | None = None, priority: float = -1000,
                 event_handlers: Any = None) -> None:
        self.val_data, self.eval_fn = val_data, eval_fn
        self.epoch_period, self.batch_period = epoch_period, batch_period
        self.current_batch = self.current_epoch = 0
        self.priority = priority
        self.event_handlers = event_handlers

    def train_begin(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        self.current_batch = self.current_epoch = 0

    def batch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> bool:
        self.current_batch += 1
        if self.batch_period and self.current_batch % self.batch_period == 0:
            self.eval_fn(val_data=self.val_data, batch_axis=estimator.batch_axis,
                         event_handlers=self.event_handlers)
        return False

    def epoch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> bool:
        self.current_epoch += 1
        if self.epoch_period and self.current_epoch % self.epoch_period == 0:
            self.eval_fn(val_data=self.val_data, batch_axis=estimator.batch_axis,
                         event_handlers=self.event_handlers)
        return False


def _metric_text(metrics: list[EvalMetric]) -> str:
    return "".join("{}: {:.4f}, ".format(*metric.get()) for metric in metrics)


class LoggingHandler(TrainBegin, TrainEnd, EpochBegin, EpochEnd, BatchBegin, BatchEnd):
    """Log the optimizer and learning rate at the start, ``metrics`` at each epoch's end (or every
    ``log_interval`` batches, an int) and at the end, on ``estimator.logger`` (MXNet's messages)."""

    def __init__(self, log_interval: int | str = "epoch", metrics: Any = None,
                 priority: float = math.inf) -> None:
        if not isinstance(log_interval, int) and log_interval != "epoch":
            raise ValueError("log_interval must be either an integer or string 'epoch'")
        self.metrics = _check_metrics(metrics)
        self.batch_index = self.current_epoch = self.processed_samples = 0
        self.priority = priority
        self.log_interval = log_interval
        self.log_interval_time = 0.0

    def train_begin(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        self.train_start = time.time()
        trainer = estimator.trainer
        estimator.logger.info("Training begin: using optimizer %s with current learning rate %.4f ",
                              type(trainer.optimizer).__name__, trainer.learning_rate)
        if estimator.max_epoch:
            estimator.logger.info("Train for %d epochs.", estimator.max_epoch)
        else:
            estimator.logger.info("Train for %d batches.", estimator.max_batch)
        self.current_epoch = self.batch_index = self.processed_samples = 0
        self.log_interval_time = 0.0

    def train_end(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        train_time = time.time() - self.train_start
        msg = f"Train finished using total {int(train_time)}s with {self.current_epoch} epochs. "
        estimator.logger.info((msg + _metric_text(self.metrics)).rstrip(", "))

    def batch_begin(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        if isinstance(self.log_interval, int):
            self.batch_start = time.time()

    def batch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> bool:
        if isinstance(self.log_interval, int):
            batch_time = time.time() - self.batch_start
            msg = f"[Epoch {self.current_epoch}][Batch {self.batch_index}]"
            self.processed_samples += kwargs["batch"][0].shape[0]
            msg += f"[Samples {self.processed_samples}] "
            self.log_interval_time += batch_time
            if self.batch_index % self.log_interval == 0:
                msg += f"time/interval: {self.log_interval_time:.3f}s "
                self.log_interval_time = 0.0
                estimator.logger.info((msg + _metric_text(self.metrics)).rstrip(", "))
        self.batch_index += 1
        return False

    def epoch_begin(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        self.epoch_start = time.time()
        if any("training" in metric.name for metric in self.metrics):
            estimator.logger.info("[Epoch %d] Begin, current learning rate: %.4f", self.current_epoch,
                                  estimator.trainer.learning_rate)
        else:
            estimator.logger.info("Validation Begin")

    def epoch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> bool:
        epoch_time = time.time() - self.epoch_start
        msg = f"[Epoch {self.current_epoch}] Finished in {epoch_time:.3f}s, "
        estimator.logger.info((msg + _metric_text(self.metrics)).rstrip(", "))
        self.current_epoch += 1
        self.batch_index = 0
        return False


class EarlyStoppingHandler(TrainBegin, EpochEnd, TrainEnd):
    """Stop when ``monitor`` has not improved by more than ``min_delta`` for ``patience`` epochs.

    ``mode``: 'min', 'max', or 'auto' (max for accuracy/F1 metrics, min otherwise -- the documented
    rule; MXNet 1.9.1's code picks max for every metric in auto mode). ``baseline`` is the value to
    beat at the start.
    """

    def __init__(self, monitor: EvalMetric, min_delta: float = 0, patience: int = 0, mode: str = "auto",
                 baseline: float | None = None) -> None:
        if not isinstance(monitor, EvalMetric):
            raise ValueError("Please provide one of the metric objects from estimator.train_metrics and "
                             "estimator.val_metrics as monitor.")
        if isinstance(monitor, CompositeEvalMetric):
            raise ValueError("CompositeEvalMetric is not supported for EarlyStoppingHandler, please specify "
                             "a simple metric instead.")
        self.monitor, self.baseline, self.patience = monitor, baseline, patience
        self.wait = self.stopped_epoch = self.current_epoch = 0
        self.stop_training = False
        self.monitor_op = _monitor_op(mode, monitor, "EarlyStopping")
        self.min_delta = min_delta if self.monitor_op is onp.greater else -min_delta

    def train_begin(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        self.wait = self.stopped_epoch = self.current_epoch = 0
        self.stop_training = False
        if self.baseline is not None:
            self.best = self.baseline
        else:
            self.best = math.inf if self.monitor_op is onp.less else -math.inf

    def epoch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> bool:
        name, value = self.monitor.get()
        if math.isnan(value):
            warnings.warn(f"{name} is not updated, make sure you pass one of the metric objects from "
                          "estimator.train_metrics and estimator.val_metrics as monitor.", RuntimeWarning,
                          stacklevel=2)
        elif self.monitor_op(value - self.min_delta, self.best):
            self.best, self.wait = value, 0
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = self.current_epoch
                self.stop_training = True
        self.current_epoch += 1
        return self.stop_training

    def train_end(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        if self.stopped_epoch > 0:
            estimator.logger.info("[Epoch %d] EarlyStoppingHanlder: early stopping due to %s not improving",
                                  self.stopped_epoch, self.monitor.get()[0])


class GradientUpdateHandler(BatchEnd):
    """Step the Trainer at each batch's end with the batch size summed over the devices' losses."""

    def __init__(self, priority: float = -2000) -> None:
        self.priority = priority

    def batch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> bool:
        loss = kwargs["loss"]
        losses = loss if isinstance(loss, list) else [loss]
        estimator.trainer.step(sum(item.shape[0] for item in losses))
        return False

