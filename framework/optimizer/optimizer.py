"""MXNet's ``mx.optimizer.optimizer`` (the module its optimizers are defined in, which code imports them
from: ``from mxnet.optimizer.optimizer import Optimizer``): the same names as :mod:`framework.optimizer`.

>>> from framework.optimizer.optimizer import SGD, Optimizer
>>> issubclass(SGD, Optimizer)
True
"""

import sys

_package = vars(sys.modules[__package__])
__all__ = [n for n in _package["__all__"] if n != "optimizer"]
globals().update({_n: _package[_n] for _n in __all__})
