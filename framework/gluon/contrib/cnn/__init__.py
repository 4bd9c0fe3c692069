"""MXNet 1.9.1's ``gluon.contrib.cnn``: deformable convolutions (v1 and the modulated v2).

>>> from framework.gluon.contrib import cnn
>>> sorted(cnn.DeformableConvolution(2, kernel_size=3).collect_params())
['deformable_conv_bias', 'deformable_conv_weight', 'offset_bias', 'offset_weight']
"""

from . import conv_layers, deformable
from .conv_layers import DeformableConvolution, ModulatedDeformableConvolution

__all__ = ["DeformableConvolution", "ModulatedDeformableConvolution", "conv_layers", "deformable"]
