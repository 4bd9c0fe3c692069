"""MXNet's Gluon model zoo: the classic vision networks with MXNet 1.9.1's architectures and parameter
names, so MXNet's ``.params`` files (pretrained or your own) load and give MXNet's numbers.

>>> from framework.gluon import model_zoo
>>> net = model_zoo.vision.get_model('resnet18_v1', classes=10)
>>> sorted(net.collect_params())[:2]
['features.0.weight', 'features.1.beta']
"""

from . import model_store, vision
from .vision import get_model

__all__ = ["vision", "model_store", "get_model"]
