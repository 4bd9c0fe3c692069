"""MXNet 1.9.1's vision model zoo: ResNet v1/v2, VGG (+BN), AlexNet, DenseNet, SqueezeNet, Inception v3,
MobileNet v1/v2, with MXNet's architectures, constructor names and parameter names.

``get_model(name, pretrained=False, ctx=None, root=None, classes=1000, ...)`` builds one by MXNet's model
name; ``pretrained=True`` loads MXNet's published file from ``root`` (see :mod:`..model_store`); nothing
is downloaded.

>>> net = get_model('mobilenetv2_0.25', classes=4)
>>> net.output[0].weight.shape   # the head: a 1x1 convolution to the classes
(4, 0, 1, 1)
"""

from __future__ import annotations

from typing import Any

from ...block import HybridBlock
from .alexnet import AlexNet, alexnet
from .densenet import DenseNet, densenet121, densenet161, densenet169, densenet201, get_densenet
from .inception import Inception3, inception_v3
from .mobilenet import (
    LinearBottleneck,
    MobileNet,
    MobileNetV2,
    get_mobilenet,
    get_mobilenet_v2,
    mobilenet0_5,
    mobilenet0_25,
    mobilenet0_75,
    mobilenet1_0,
    mobilenet_v2_0_5,
    mobilenet_v2_0_25,
    mobilenet_v2_0_75,
    mobilenet_v2_1_0,
)
from .resnet import (
    BasicBlockV1,
    BasicBlockV2,
    BottleneckV1,
    BottleneckV2,
    ResNetV1,
    ResNetV2,
    get_resnet,
    resnet18_v1,
    resnet18_v2,
    resnet34_v1,
    resnet34_v2,
    resnet50_v1,
    resnet50_v2,
    resnet101_v1,
    resnet101_v2,
    resnet152_v1,
    resnet152_v2,
)
from .squeezenet import SqueezeNet, get_squeezenet, squeezenet1_0, squeezenet1_1
from .vgg import VGG, get_vgg, vgg11, vgg11_bn, vgg13, vgg13_bn, vgg16, vgg16_bn, vgg19, vgg19_bn

_MODELS = {
    "resnet18_v1": resnet18_v1,
    "resnet34_v1": resnet34_v1,
    "resnet50_v1": resnet50_v1,
    "resnet101_v1": resnet101_v1,
    "resnet152_v1": resnet152_v1,
    "resnet18_v2": resnet18_v2,
    "resnet34_v2": resnet34_v2,
    "resnet50_v2": resnet50_v2,
    "resnet101_v2": resnet101_v2,
    "resnet152_v2": resnet152_v2,
    "vgg11": vgg11,
    "vgg13": vgg13,
    "vgg16": vgg16,
    "vgg19": vgg19,
    "vgg11_bn": vgg11_bn,
    "vgg13_bn": vgg13_bn,
    "vgg16_bn": vgg16_bn,
    "vgg19_bn": vgg19_bn,
    "alexnet": alexnet,
    "densenet121": densenet121,
    "densenet161": densenet161,
    "densenet169": densenet169,
    "densenet201": densenet201,
    "squeezenet1.0": squeezenet1_0,
    "squeezenet1.1": squeezenet1_1,
    "inceptionv3": inception_v3,
    "mobilenet1.0": mobilenet1_0,
    "mobilenet0.75": mobilenet0_75,
    "mobilenet0.5": mobilenet0_5,
    "mobilenet0.25": mobilenet0_25,
    "mobilenetv2_1.0": mobilenet_v2_1_0,
    "mobilenetv2_0.75": mobilenet_v2_0_75,
    "mobilenetv2_0.5": mobilenet_v2_0_5,
    "mobilenetv2_0.25": mobilenet_v2_0_25,
}


def get_model(name: str, **kwargs: Any) -> HybridBlock:
    """Build model ``name`` (case-insensitive; MXNet's names, e.g. ``'resnet50_v1'``, ``'squeezenet1.1'``)
    with the constructor's keyword arguments (``pretrained``, ``ctx``, ``root``, ``classes``, ...).

    >>> get_model('resnet9')
    Traceback (most recent call last):
    ...
    ValueError: Model 'resnet9' is not supported. Available options are: alexnet, densenet121, ...
    """
    key = name.lower()
    if key not in _MODELS:
        raise ValueError(
            f"Model {name!r} is not supported. Available options are: {', '.join(sorted(_MODELS))}"
        )
    return _MODELS[key](**kwargs)


__all__ = [
    "get_model",
    "ResNetV1",
    "ResNetV2",
    "BasicBlockV1",
    "BasicBlockV2",
    "BottleneckV1",
    "BottleneckV2",
    "get_resnet",
    "VGG",
    "get_vgg",
    "AlexNet",
    "DenseNet",
    "get_densenet",
    "SqueezeNet",
    "get_squeezenet",
    "Inception3",
    "MobileNet",
    "MobileNetV2",
    "LinearBottleneck",
    "get_mobilenet",
    "get_mobilenet_v2",
    "alexnet",
    "inception_v3",
    "squeezenet1_0",
    "squeezenet1_1",
    *[
        f.__name__
        for f in _MODELS.values()
        if f.__name__.startswith(("resnet", "vgg", "densenet", "mobilenet"))
    ],
]
