"""MXNet 1.x's remaining metrics: ``NegativeLogLikelihood``, ``PCC`` (the multi-class Matthews
correlation over a confusion matrix), and the ``Torch``/``Caffe`` loss metrics (a mean of the outputs).

>>> import numpy as onp
>>> from framework.gluon import metric
>>> nll = metric.NegativeLogLikelihood()
>>> nll.update([onp.array([1, 0])], [onp.array([[0.25, 0.75], [0.5, 0.5]])])
>>> round(nll.get()[1], 6)
0.490415
"""

from __future__ import annotations

from typing import Any

import numpy as onp

from .base import EvalMetric, Loss, _host, alias, check_label_shapes, register

__all__ = ["NegativeLogLikelihood", "PCC", "Torch", "Caffe"]


@register
@alias("nll_loss")
class NegativeLogLikelihood(EvalMetric):
    """Mean of ``-log(p[label] + eps)`` over samples (the prediction's first axis)."""

    def __init__(self, eps: float = 1e-12, name: str = "nll-loss", **kwargs: Any) -> None:
        super().__init__(name, eps=eps, **kwargs)
        self.eps = eps

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds, strict=True):
            label, pred = _host(label).ravel(), _host(pred).astype("float64")
            n = pred.shape[0]
            if label.shape[0] != n:
                raise ValueError(f"NegativeLogLikelihood: {label.shape[0]} labels for {n} predictions")
            prob = pred[onp.arange(n), label.astype(onp.int64)]
            self._add(float((-onp.log(prob + self.eps)).sum()), n)


@register
class PCC(EvalMetric):
    """The multi-class Matthews correlation of the confusion matrix of everything seen (labels and
    argmax predictions); the matrix grows with the largest class seen."""

    def __init__(self, name: str = "pcc", **kwargs: Any) -> None:
        self.k = 2
        super().__init__(name, **kwargs)

    def _grow(self, inc: int) -> None:
        self.lcm = onp.pad(self.lcm, ((0, inc), (0, inc)))
        self.gcm = onp.pad(self.gcm, ((0, inc), (0, inc)))
        self.k += inc

    @staticmethod
    def _mcc(cmat: onp.ndarray) -> float:
        n = cmat.sum()
        x, y = cmat.sum(axis=1), cmat.sum(axis=0)
        cov_xx, cov_yy = onp.sum(x * (n - x)), onp.sum(y * (n - y))
        if cov_xx == 0 or cov_yy == 0:
            return float("nan")
        return float(onp.sum(cmat.diagonal() * n - x * y) / (cov_xx * cov_yy) ** 0.5)

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds, strict=True):
            label, pred = _host(label).astype(onp.int32), _host(pred)
            pred = pred.argmax(axis=1) if pred.shape != label.shape else pred.astype(onp.int32)
            label, pred = label.ravel(), pred.ravel()
            n = int(max(pred.max(), label.max()))
            if n >= self.k:
                self._grow(n + 1 - self.k)
            counts = onp.zeros((self.k, self.k))
            onp.add.at(counts, (pred, label), 1)
            self.lcm += counts
            self.gcm += counts
        self.num_inst += 1
        self.global_num_inst += 1

    @property
    def sum_metric(self) -> float:
        return self._mcc(self.lcm) * self.num_inst

    @sum_metric.setter
    def sum_metric(self, value: float) -> None:  # the base class's reset assigns it
        pass

    @property
    def global_sum_metric(self) -> float:
        return self._mcc(self.gcm) * self.global_num_inst

    @global_sum_metric.setter
    def global_sum_metric(self, value: float) -> None:
        pass

    def reset(self) -> None:
        self.global_num_inst = 0
        self.gcm = onp.zeros((self.k, self.k))
        self.reset_local()

    def reset_local(self) -> None:
        self.num_inst = 0
        self.lcm = onp.zeros((self.k, self.k))


@register
class Torch(Loss):
    """The mean of the outputs (a loss computed by the network), named 'torch'."""

    def __init__(self, name: str = "torch", **kwargs: Any) -> None:
        super().__init__(name, **kwargs)


@register
class Caffe(Loss):
    """The mean of the outputs (a loss computed by the network), named 'caffe'."""

    def __init__(self, name: str = "caffe", **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
