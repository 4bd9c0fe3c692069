"""MXNet 1.9.1's ``gluon.contrib.estimator``: :class:`Estimator` (``fit``/``evaluate``), the
:class:`BatchProcessor` hook and the event handlers.

>>> from framework.gluon.contrib import estimator
>>> issubclass(estimator.CheckpointHandler, estimator.EpochEnd)
True
"""

from . import batch_processor, estimator, event_handler, events, utils
from .batch_processor import BatchProcessor
from .estimator import Estimator
from .event_handler import (
    BatchBegin,
    BatchEnd,
    CheckpointHandler,
    EarlyStoppingHandler,
    EpochBegin,
    EpochEnd,
    GradientUpdateHandler,
    LoggingHandler,
    MetricHandler,
    StoppingHandler,
    TrainBegin,
    TrainEnd,
    ValidationHandler,
)

__all__ = ["Estimator", "BatchProcessor", "TrainBegin", "TrainEnd", "EpochBegin", "EpochEnd", "BatchBegin",
           "BatchEnd", "StoppingHandler", "MetricHandler", "ValidationHandler", "LoggingHandler",
           "CheckpointHandler", "EarlyStoppingHandler", "GradientUpdateHandler",
           "batch_processor", "estimator", "event_handler", "events", "utils"]
