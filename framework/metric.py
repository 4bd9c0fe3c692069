"""``mxnet.metric``, MXNet 1.x's module of evaluation metrics: the very module
:mod:`framework.gluon.metric` (one module object under both names, so ``from mxnet.metric import
EvalMetric`` and ``mx.metric.Accuracy`` reach the same classes as ``gluon.metric``).
"""

import sys

from .gluon import metric as _metric

sys.modules[__name__] = _metric
