"""Transformations and the constraint registries (MXNet 2.0's ``probability.transformation``).

>>> from framework.gluon.probability import transformation
>>> transformation.ExpTransform().bijective
True
"""

from .domain_map import biject_to, domain_map, transform_to
from .transformation import (
    AbsTransform,
    AffineTransform,
    ComposeTransform,
    ExpTransform,
    PowerTransform,
    SigmoidTransform,
    SoftmaxTransform,
    Transformation,
    TransformBlock,
)

__all__ = ["Transformation", "TransformBlock", "ComposeTransform", "ExpTransform", "AffineTransform",
           "PowerTransform", "AbsTransform", "SigmoidTransform", "SoftmaxTransform", "domain_map",
           "biject_to", "transform_to"]
