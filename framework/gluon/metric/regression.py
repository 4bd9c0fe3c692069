"""Regression and likelihood metrics: MAE, MSE, RMSE, CrossEntropy, Perplexity, PearsonCorrelation."""

from __future__ import annotations

import math
from typing import Any

import numpy as onp

from .base import EvalMetric, _host, alias, check_label_shapes, register

__all__ = ["MAE", "MSE", "RMSE", "CrossEntropy", "Perplexity", "PearsonCorrelation"]


class _Regression(EvalMetric):
    def _per_sample(self, diff: onp.ndarray) -> onp.ndarray:
        raise NotImplementedError

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds, strict=True):
            label, pred = _host(label).astype("float64"), _host(pred).astype("float64")
            n = label.shape[0] if label.ndim else 1
            if label.size != pred.size:
                raise ValueError(f"{type(self).__name__}: label of shape {label.shape} and prediction of "
                                 f"shape {pred.shape} must have the same number of elements")
            diff = label.reshape(n, -1) - pred.reshape(n, -1)
            self._add(float(self._per_sample(diff).sum()), n)


@register
class MAE(_Regression):
    """Mean absolute error (per-sample mean over non-batch axes, averaged over samples)."""

    def __init__(self, name: str = "mae", **kwargs: Any) -> None:
        super().__init__(name, **kwargs)

    def _per_sample(self, diff):
        return onp.abs(diff).mean(axis=-1)


@register
class MSE(_Regression):
    """Mean squared error (per-sample mean over non-batch axes, averaged over samples)."""

    def __init__(self, name: str = "mse", **kwargs: Any) -> None:
        super().__init__(name, **kwargs)

    def _per_sample(self, diff):
        return (diff ** 2).mean(axis=-1)


@register
class RMSE(MSE):
    """Root of :class:`MSE` over every sample seen."""

    def __init__(self, name: str = "rmse", **kwargs: Any) -> None:
        super().__init__(name, **kwargs)

    def _value(self, total, count):
        return math.sqrt(total / count)


@register
@alias("ce")
class CrossEntropy(EvalMetric):
    """Mean of ``-log(max(eps, p[label]))`` over samples (``from_logits``: softmax first); samples whose
    label is ``ignore_label`` do not count."""

    def __init__(self, eps: float = 1e-12, ignore_label: int | None = None, axis: int = -1,
                 from_logits: bool = False, name: str = "cross-entropy", **kwargs: Any) -> None:
        super().__init__(name, eps=eps, ignore_label=ignore_label, axis=axis, from_logits=from_logits,
                         **kwargs)
        self.eps, self.ignore_label, self.axis, self.from_logits = eps, ignore_label, axis, from_logits

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds, strict=True):
            label, pred = _host(label), _host(pred).astype("float64")
            pred = onp.moveaxis(pred, self.axis, -1)
            if label.size != pred.size // pred.shape[-1]:
                raise ValueError(f"{type(self).__name__}: label shape {label.shape} does not match "
                                 f"prediction shape {pred.shape} (one label per distribution)")
            pred = pred.reshape(-1, pred.shape[-1])
            if self.from_logits:
                pred = onp.exp(pred - pred.max(-1, keepdims=True))
                pred /= pred.sum(-1, keepdims=True)
            label = label.reshape(-1).astype("int64")
            keep = onp.ones(label.shape, bool) if self.ignore_label is None else label != self.ignore_label
            prob = pred[onp.arange(label.size), onp.where(keep, label, 0)]
            self._add(float(-onp.log(onp.maximum(self.eps, prob[keep])).sum()), int(keep.sum()))


@register
class Perplexity(CrossEntropy):
    """``exp`` of the :class:`CrossEntropy` (MXNet 1.x argument order: ``ignore_label`` first).

    >>> p = Perplexity(ignore_label=None)
    >>> p.update([onp.array([0, 1, 1])], [onp.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])])
    >>> round(p.get()[1], 6)
    1.771098
    """

    def __init__(self, ignore_label: int | None = None, axis: int = -1, name: str = "perplexity", *,
                 eps: float = 1e-12, from_logits: bool = False, **kwargs: Any) -> None:
        super().__init__(eps=eps, ignore_label=ignore_label, axis=axis, from_logits=from_logits, name=name,
                         **kwargs)

    def _value(self, total, count):
        return math.exp(total / count)


@register
@alias("pearsonr")
class PearsonCorrelation(EvalMetric):
    """Pearson correlation of all label/prediction values seen (streaming, Welford-style)."""

    def __init__(self, name: str = "pearsonr", **kwargs: Any) -> None:
        super().__init__(name, **kwargs)

    def reset(self):
        super().reset()
        self._n, self._mean_l, self._mean_p, self._m2_l, self._m2_p, self._c = 0, 0.0, 0.0, 0.0, 0.0, 0.0

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds, strict=True):
            label, pred = _host(label), _host(pred)
            check_label_shapes(label, pred, False, True)
            x, y = label.reshape(-1).astype("float64"), pred.reshape(-1).astype("float64")
            self._n += x.size
            dx, dy = x - self._mean_l, y - self._mean_p
            self._mean_l += dx.sum() / self._n
            self._mean_p += dy.sum() / self._n
            self._m2_l += float((dx * (x - self._mean_l)).sum())
            self._m2_p += float((dy * (y - self._mean_p)).sum())
            self._c += float(((x - self._mean_l) * dy).sum())
            self.num_inst += 1
            self.global_num_inst += 1

    def get(self):
        if self.num_inst == 0:
            return self.name, float("nan")
        return self.name, float(self._c / math.sqrt(self._m2_l * self._m2_p))

    get_global = get

