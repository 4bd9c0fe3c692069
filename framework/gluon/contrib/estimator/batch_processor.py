"""``BatchProcessor``: how the Estimator trains and evaluates one batch (override to customise).

>>> from framework import gluon
>>> callable(BatchProcessor().fit_batch) and callable(BatchProcessor().evaluate_batch)
True
"""

from __future__ import annotations

from typing import Any

from .... import autograd
from ...utils import split_and_load

__all__ = ["BatchProcessor"]


class BatchProcessor:
    """``fit_batch`` splits a ``(data, label)`` batch over ``estimator.context`` along ``batch_axis``,
    runs the net and the loss inside ``autograd.record()`` and calls ``backward`` on each device's loss
    (the :class:`GradientUpdateHandler` steps the Trainer afterwards); ``evaluate_batch`` runs
    ``estimator.val_net`` and ``val_loss``. Both return ``(data, label, pred, loss)``, lists with one
    entry per device."""

    def _get_data_and_label(self, batch: Any, ctx: list[Any], batch_axis: int = 0) -> tuple[list, list]:
        data = split_and_load(batch[0], ctx_list=ctx, batch_axis=batch_axis)
        label = split_and_load(batch[1], ctx_list=ctx, batch_axis=batch_axis)
        return data, label

    def evaluate_batch(self, estimator: Any, val_batch: Any, batch_axis: int = 0) -> tuple[list, list, list,
                                                                                          list]:
        data, label = self._get_data_and_label(val_batch, estimator.context, batch_axis)
        pred = [estimator.val_net(x) for x in data]
        loss = [estimator.val_loss(y_hat, y) for y_hat, y in zip(pred, label, strict=True)]
        return data, label, pred, loss

    def fit_batch(self, estimator: Any, train_batch: Any,
                  batch_axis: int = 0) -> tuple[list, list, list, list]:
        data, label = self._get_data_and_label(train_batch, estimator.context, batch_axis)
        with autograd.record():
            pred = [estimator.net(x) for x in data]
            loss = [estimator.loss(y_hat, y) for y_hat, y in zip(pred, label, strict=True)]
        for item in loss:
            item.backward()
        return data, label, pred, loss
