"""MXNet 1.x's ``mx.nd`` vision operators beyond the core set: ``ROIPooling``, ``Crop``, ``LRN``,
``GridGenerator``, ``BilinearSampler``, ``SpatialTransformer``, ``Correlation``, ``im2col``, ``col2im``
(the kernels live in :mod:`framework.npx.roi` and :mod:`framework.npx.spatial`).

>>> import framework as mx
>>> x = mx.nd.arange(16).reshape((1, 1, 4, 4))
>>> mx.nd.ROIPooling(x, mx.nd.array([[0, 0, 0, 3, 3]]), pooled_size=(1, 1), spatial_scale=1.0).tolist()
[[[[15.0]]]]
"""

from __future__ import annotations

from ..npx import roi as _roi
from ..npx import spatial as _spatial
from ._op import nd_op

__all__ = ["ROIPooling", "Crop", "LRN", "GridGenerator", "BilinearSampler", "SpatialTransformer",
           "Correlation", "im2col", "col2im"]

ROIPooling = nd_op(_roi.roi_pooling)
Crop = nd_op(_spatial.crop)
LRN = nd_op(_spatial.lrn)
GridGenerator = nd_op(_spatial.grid_generator)
BilinearSampler = nd_op(_spatial.bilinear_sampler)
SpatialTransformer = nd_op(_spatial.spatial_transformer)
Correlation = nd_op(_spatial.correlation)
im2col = nd_op(_spatial.im2col)
col2im = nd_op(_spatial.col2im)
