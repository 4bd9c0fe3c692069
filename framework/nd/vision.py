"""MXNet 1.x's ``mx.nd`` vision operators beyond the core set: ``ROIPooling``.

>>> import framework as mx
>>> x = mx.nd.arange(16).reshape((1, 1, 4, 4))
>>> mx.nd.ROIPooling(x, mx.nd.array([[0, 0, 0, 3, 3]]), pooled_size=(1, 1), spatial_scale=1.0).tolist()
[[[[15.0]]]]
"""

from __future__ import annotations

from ..npx import roi as _roi
from ._op import nd_op

__all__ = ["ROIPooling"]

ROIPooling = nd_op(_roi.roi_pooling)
