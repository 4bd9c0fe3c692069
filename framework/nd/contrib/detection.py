"""``nd.contrib``'s detection and resizing operators under their MXNet 1.x names (``box_nms``,
``MultiBoxPrior``, ``ROIAlign``, ``BilinearResize2D``, ``Proposal``, ``PSROIPooling``, ...): the
``framework.npx`` kernels with 1.x's ``name=``/``out=`` handling and recording.

>>> import framework as mx
>>> boxes = mx.nd.array([[0, 0.9, 0, 0, 1, 1], [0, 0.8, 0, 0, 1, 0.95]])
>>> mx.nd.contrib.box_nms(boxes, overlap_thresh=0.5)[:, 1].tolist()
[0.8999999761581421, -1.0]
"""

from __future__ import annotations

from ...npx import boxes as _boxes
from ...npx import deformable as _deformable
from ...npx import multibox as _multibox
from ...npx import proposal as _proposal
from ...npx import psroi as _psroi
from ...npx import resize as _resize
from ...npx import roi as _roi
from .._op import nd_op

__all__ = ["box_nms", "box_non_maximum_suppression", "box_iou", "box_encode", "box_decode",
           "bipartite_matching", "MultiBoxPrior", "MultiBoxTarget", "MultiBoxDetection", "ROIAlign",
           "BilinearResize2D", "AdaptiveAvgPooling2D", "DeformableConvolution",
           "ModulatedDeformableConvolution", "Proposal", "MultiProposal", "PSROIPooling",
           "DeformablePSROIPooling", "RROIAlign"]

box_nms = nd_op(_boxes.box_nms)
box_non_maximum_suppression = nd_op(_boxes.box_non_maximum_suppression)
box_iou = nd_op(_boxes.box_iou)
box_encode = nd_op(_boxes.box_encode)
box_decode = nd_op(_boxes.box_decode)
bipartite_matching = nd_op(_boxes.bipartite_matching)
MultiBoxPrior = nd_op(_multibox.multibox_prior)
MultiBoxTarget = nd_op(_multibox.multibox_target)
MultiBoxDetection = nd_op(_multibox.multibox_detection)
ROIAlign = nd_op(_roi.roi_align)
BilinearResize2D = nd_op(_resize.bilinear_resize_2d)
AdaptiveAvgPooling2D = nd_op(_resize.adaptive_avg_pooling_2d)
DeformableConvolution = nd_op(_deformable.deformable_convolution)
ModulatedDeformableConvolution = nd_op(_deformable.modulated_deformable_convolution)
Proposal = nd_op(_proposal.proposal)
MultiProposal = nd_op(_proposal.multi_proposal)
PSROIPooling = nd_op(_psroi.psroi_pooling)
DeformablePSROIPooling = nd_op(_psroi.deformable_psroi_pooling)
RROIAlign = nd_op(_psroi.rroi_align)
