"""Evaluation metrics (MXNet's ``gluon.metric``), accumulated on the host with NumPy.

``update(labels, preds)`` takes arrays (jax, NumPy, recorded values) or lists of per-device arrays,
zipped pairwise; each array crosses to the host once. Semantics follow MXNet 2's ``gluon.metric``
(F1/MCC/MAE/MSE/RMSE count over all samples seen, not per batch); MXNet 1.x's ``get_global`` /
``reset_local`` are kept.

>>> import jax.numpy as jnp
>>> from framework.gluon import metric
>>> acc = metric.Accuracy()
>>> acc.update([jnp.array([0, 1, 1])], [jnp.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])])
>>> acc.get()
('accuracy', 0.6666666666666666)
"""
from __future__ import annotations

from .base import (
                   CompositeEvalMetric,
                   CustomMetric,
                   EvalMetric,
                   Loss,
                   alias,
                   check_label_shapes,
                   create,
                   np,
                   register,
)
from .classification import F1, MCC, Accuracy, BinaryAccuracy, Fbeta, TopKAccuracy
from .extra import PCC, Caffe, NegativeLogLikelihood, Torch
from .regression import MAE, MSE, RMSE, CrossEntropy, PearsonCorrelation, Perplexity

__all__ = [
    "EvalMetric", "CompositeEvalMetric", "Accuracy", "TopKAccuracy", "BinaryAccuracy", "F1", "Fbeta",
    "MCC", "MAE", "MSE", "RMSE", "CrossEntropy", "Perplexity", "PearsonCorrelation", "Loss",
    "CustomMetric", "np", "create", "register", "alias", "check_label_shapes", "NegativeLogLikelihood", "PCC",
    "Torch", "Caffe",
]
