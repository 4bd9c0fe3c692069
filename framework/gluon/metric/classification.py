"""Classification metrics: Accuracy, TopKAccuracy, BinaryAccuracy, F1, Fbeta, MCC."""

from __future__ import annotations

import math
from typing import Any

import numpy as onp

from .base import EvalMetric, _host, alias, check_label_shapes, register

__all__ = ["Accuracy", "TopKAccuracy", "BinaryAccuracy", "F1", "Fbeta", "MCC"]


@register
@alias("acc")
class Accuracy(EvalMetric):
    """Fraction of argmax(pred, axis) (or the pred itself, if shaped like the label) equal to label."""

    def __init__(self, axis: int = 1, name: str = "accuracy", **kwargs: Any) -> None:
        super().__init__(name, axis=axis, **kwargs)
        self.axis = axis

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds, strict=True):
            label, pred = _host(label), _host(pred)
            if pred.shape != label.shape:
                pred = onp.argmax(pred, axis=self.axis)
            label, pred = label.astype("int64").ravel(), pred.astype("int64").ravel()
            check_label_shapes(label, pred)
            self._add(int((pred == label).sum()), pred.size)


@register
@alias("top_k_accuracy", "top_k_acc")
class TopKAccuracy(EvalMetric):
    """Fraction of samples whose label is among the ``top_k`` highest predictions."""

    def __init__(self, top_k: int = 1, name: str = "top_k_accuracy", **kwargs: Any) -> None:
        super().__init__(name, top_k=top_k, **kwargs)
        if top_k < 1:
            raise ValueError(f"top_k must be at least 1, got {top_k}")
        self.top_k = top_k
        if top_k > 1:
            self.name += f"_{top_k}"

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds, strict=True):
            label, pred = _host(label).astype("int64").ravel(), _host(pred).astype("float32")
            if pred.ndim > 2:
                raise ValueError(f"TopKAccuracy: predictions should be no more than 2 dims, got {pred.shape}")
            if pred.ndim == 1:
                self._add(int((pred.astype("int64") == label).sum()), pred.shape[0])
                continue
            k = min(pred.shape[1], self.top_k)
            top = onp.argpartition(pred, -k, axis=1)[:, -k:]
            self._add(int((top == label[:, None]).any(axis=1).sum()), pred.shape[0])


@register
class BinaryAccuracy(EvalMetric):
    """Accuracy of ``pred > threshold`` against 0/1 labels (binary or multilabel)."""

    def __init__(self, name: str = "binary_accuracy", threshold: float = 0.5, **kwargs: Any) -> None:
        super().__init__(name, threshold=threshold, **kwargs)
        self.threshold = threshold

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds, strict=True):
            pred = (_host(pred) > self.threshold).astype("int64").ravel()
            label = _host(label).astype("int64").ravel()
            check_label_shapes(label, pred)
            self._add(int((pred == label).sum()), pred.size)


class _Counts:
    """True/false positive/negative counts per class, accumulated over updates."""

    def __init__(self, class_type: str = "binary", threshold: float = 0.5, beta: float = 1) -> None:
        if class_type not in ("binary", "multiclass", "multilabel"):
            raise ValueError(f"Wrong class_type {class_type!r}! Only supports "
                             "['binary', 'multiclass', 'multilabel']")
        self.class_type, self.threshold, self.beta = class_type, threshold, beta
        self.reset()

    def reset(self) -> None:
        self.tp = self.fp = self.fn = self.tn = None

    def update(self, label: Any, pred: Any) -> None:
        label, pred = _host(label).astype("int64"), _host(pred)
        if self.class_type == "binary":
            if label.size and label.max() > 1:
                raise ValueError(f"Wrong label for binary classification: labels must be 0 or 1, got max "
                                 f"{label.max()}")
            if pred.shape != label.shape:
                if pred.shape[-1] > 2:
                    raise ValueError(f"The shape of prediction {pred.shape} is wrong for binary "
                                     "classification: use class_type='multiclass'")
                pred = pred.reshape(-1, pred.shape[-1])[:, -1]
            p, lab = (pred > self.threshold).reshape(-1, 1), label.reshape(-1, 1) == 1
        elif self.class_type == "multiclass":
            num = pred.shape[-1]
            eye = onp.eye(num, dtype=bool)
            p, lab = eye[pred.reshape(-1, num).argmax(-1)], eye[label.reshape(-1)]
        else:
            num = pred.shape[-1]
            p, lab = (pred > self.threshold).reshape(-1, num), label.reshape(-1, num) == 1
        counts = [(p & lab).sum(0), (p & ~lab).sum(0), (~p & lab).sum(0), (~p & ~lab).sum(0)]
        if self.tp is None:
            self.tp, self.fp, self.fn, self.tn = (c.astype("float64") for c in counts)
        else:
            if counts[0].shape != self.tp.shape:
                raise ValueError(f"Input number of classes has changed from {self.tp.shape[0]} to "
                                 f"{counts[0].shape[0]}")
            self.tp, self.fp, self.fn, self.tn = (a + c for a, c in zip(
                (self.tp, self.fp, self.fn, self.tn), counts, strict=True))

    @property
    def total(self) -> int:
        return 0 if self.tp is None else int(self.tp[0] + self.fp[0] + self.fn[0] + self.tn[0])

    def fscore(self, average: str | None) -> Any:
        b2 = self.beta ** 2
        if average == "micro":
            tp, fp, fn = self.tp.sum(), self.fp.sum(), self.fn.sum()
        else:
            tp, fp, fn = self.tp, self.fp, self.fn
        prec, rec = tp / onp.maximum(tp + fp, 1e-12), tp / onp.maximum(tp + fn, 1e-12)
        f = (1 + b2) * prec * rec / onp.maximum(b2 * prec + rec, 1e-12)
        if average == "macro":
            return float(f.mean())
        if average in ("micro", "binary"):
            return float(onp.asarray(f).reshape(-1)[-1])
        return f

    def mcc(self) -> float:
        tp, fp, fn, tn = (float(c.sum()) for c in (self.tp, self.fp, self.fn, self.tn))
        terms = [tp + fp, tp + fn, tn + fp, tn + fn]
        denom = math.prod(t for t in terms if t != 0)
        return (tp * tn - fp * fn) / math.sqrt(denom)


@register
class F1(EvalMetric):
    """F1 over every sample seen. ``average``: 'micro' (global counts), 'macro' (mean of per-class
    F1), 'binary' (the positive class; binary data), None (per-class array).

    >>> f1 = F1()
    >>> f1.update([onp.array([0., 1., 1.])], [onp.array([[0.3, 0.7], [0., 1.], [0.4, 0.6]])])
    >>> round(f1.get()[1], 6)
    0.8
    """

    def __init__(self, name: str = "f1", class_type: str = "binary", threshold: float = 0.5,
                 average: str | None = "micro", beta: float = 1, **kwargs: Any) -> None:
        if average not in ("micro", "macro", "binary", None):
            raise ValueError(f"average must be 'micro', 'macro', 'binary' or None, got {average!r}")
        if average == "binary" and class_type != "binary":
            raise ValueError(f"average='binary' needs class_type='binary', got {class_type!r}; use "
                             "'micro' or 'macro' for several classes")
        self.average = average
        self.metrics = _Counts(class_type, threshold, beta)
        super().__init__(name, class_type=class_type, threshold=threshold, average=average, **kwargs)

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds, strict=True):
            self.metrics.update(label, pred)
        n = self.metrics.total
        self.sum_metric = self.global_sum_metric = self.metrics.fscore(self.average) * n
        self.num_inst = self.global_num_inst = n

    def _value(self, total, count):
        return total / count if onp.ndim(total) else float(total) / count

    def reset(self):
        super().reset()
        if hasattr(self, "metrics"):
            self.metrics.reset()


@register
class Fbeta(F1):
    """F-beta score: ``(1 + beta^2) * P * R / (beta^2 * P + R)``."""

    def __init__(self, name: str = "fbeta", class_type: str = "binary", beta: float = 1,
                 threshold: float = 0.5, average: str | None = "micro", **kwargs: Any) -> None:
        super().__init__(name, class_type=class_type, threshold=threshold, average=average, beta=beta,
                         **kwargs)


@register
class MCC(EvalMetric):
    """Matthews correlation coefficient of a binary problem (zero terms of the denominator count as 1)."""

    def __init__(self, name: str = "mcc", **kwargs: Any) -> None:
        self._metrics = _Counts()
        super().__init__(name, **kwargs)

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds, strict=True):
            self._metrics.update(label, pred)
        n = self._metrics.total
        self.sum_metric = self.global_sum_metric = self._metrics.mcc() * n if n else 0.0
        self.num_inst = self.global_num_inst = n

    def reset(self):
        super().reset()
        if hasattr(self, "_metrics"):
            self._metrics.reset()

