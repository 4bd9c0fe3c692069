"""MXNet's optimizers (names, parameters, update rules of MXNet 1.9.1) as optax transformations.

``create(name, **kwargs)`` (or the classes) gives an :class:`Optimizer` with MXNet's host-side surface;
``opt.to_optax(lr_mult, wd_mult)`` gives the ``optax.GradientTransformation`` a Trainer (or any optax
loop) runs. Its state carries ``learning_rate`` and ``rescale_grad`` as arrays: change them every step
with :func:`set_hyperparams`, no recompilation. Updates are added to the parameters.

>>> import jax.numpy as jnp
>>> from framework import optimizer
>>> opt = optimizer.create('sgd', learning_rate=0.1, momentum=0.9)
>>> tx = opt.to_optax()
>>> params = {'w': jnp.ones(2)}
>>> state = tx.init(params)
>>> state = optimizer.set_hyperparams(state, learning_rate=0.2, rescale_grad=0.5)
>>> updates, state = tx.update({'w': jnp.ones(2)}, state, params)
>>> updates['w'].tolist()
[-0.10000000149011612, -0.10000000149011612]
"""

from __future__ import annotations

from .adam import FTML, LAMB, Adam, Adamax, AdamW, Nadam
from .adaptive import AdaDelta, AdaGrad, Ftrl, RMSProp
from .base import Optimizer, OptimizerState, create, get_hyperparams, register, set_hyperparams
from .indexed import IndexedState, Updater, get_updater
from .large_batch import LBSGD, Test
from .sgd import DCASGD, LARS, NAG, SGD, SGLD, Signum, ccSGD
from .wrap import OptaxOptimizer

__all__ = [
    "Optimizer", "OptimizerState", "OptaxOptimizer", "create", "register", "set_hyperparams",
    "get_hyperparams", "Updater", "get_updater", "IndexedState", "SGD", "ccSGD", "NAG", "Signum", "LARS",
    "DCASGD", "SGLD", "Adam", "AdamW",
    "Adamax", "Nadam", "LAMB", "FTML", "AdaGrad", "AdaDelta", "RMSProp", "Ftrl", "LBSGD", "Test",
    "contrib", "optimizer",
]

from . import contrib, optimizer  # noqa: E402  (MXNet's submodules; they read the names above)


def __getattr__(name: str):
    if name == "NDabs":  # MXNet's optimizer module imports nd.abs under this name
        from ..nd import abs as nd_abs

        return nd_abs
    raise AttributeError(f"framework.optimizer has no attribute {name!r}")
