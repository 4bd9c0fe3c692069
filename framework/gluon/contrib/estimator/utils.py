"""Metric checks shared by the Estimator and its event handlers (MXNet 1.9.1's estimator.utils).

>>> from framework.gluon import metric
>>> [type(m).__name__ for m in _check_metrics(metric.Accuracy())]
['Accuracy']
"""

from __future__ import annotations

from typing import Any

from ...loss import SoftmaxCrossEntropyLoss
from ...metric import Accuracy, CompositeEvalMetric, EvalMetric

__all__: list[str] = []


def _check_metrics(metrics: Any) -> list[EvalMetric]:
    """A metric, a composite (flattened) or a list of metrics, as a list."""
    if isinstance(metrics, CompositeEvalMetric):
        return [m for metric in metrics.metrics for m in _check_metrics(metric)]
    if isinstance(metrics, EvalMetric):
        return [metrics]
    metrics = list(metrics or [])
    bad = [m for m in metrics if not isinstance(m, EvalMetric)]
    if bad:
        raise ValueError(f"metrics must be a Metric or a list of Metric (framework.gluon.metric.EvalMetric); "
                         f"got {bad[0]!r} of type {type(bad[0]).__name__}")
    return metrics


def _check_handler_metric_ref(handler: Any, known_metrics: set[int]) -> None:
    """A handler's attributes whose name holds 'metric' must refer to the estimator's own metrics
    (MXNet checks exactly those attributes; ``monitor`` is not checked)."""
    for attribute in dir(handler):
        if "metric" not in attribute:
            continue
        reference = getattr(handler, attribute)
        if not reference:
            continue
        for metric in reference if isinstance(reference, list) else [reference]:
            if id(metric) not in known_metrics:
                raise ValueError(
                    f"Event handler {type(handler).__name__} refers to a metric instance {metric} outside of "
                    "the known training and validation metrics. Please use the metrics from "
                    "estimator.train_metrics and estimator.val_metrics instead.")


def _suggest_metric_for_loss(loss: Any) -> EvalMetric | None:
    return Accuracy() if isinstance(loss, SoftmaxCrossEntropyLoss) else None
