"""MXNet 2.0's ``gluon.probability``: distributions with ``log_prob``, ``sample``/``sample_n``,
moments and entropies, KL divergences, transformations and stochastic blocks, as pure JAX functions.

Distributions accept numbers, arrays, values recorded by ``autograd.record()`` (gradients reach the
parameters, through reparameterised samples too) and tracers (``jax.jit``, ``jax.grad``, hybridized
blocks). ``sample(size, key=...)`` takes an explicit ``jax.random`` key where reproducibility under a
trace matters; without one, a draw inside a block call uses the call's key, elsewhere the framework's
key stream (``np.random.seed``).

>>> import jax
>>> from framework.gluon import probability as mgp
>>> d = mgp.Normal(0.0, 1.0)
>>> d.sample_n((3, 2), key=jax.random.key(0)).shape
(3, 2)
>>> float(mgp.kl_divergence(mgp.Bernoulli(prob=0.5), mgp.Bernoulli(prob=0.5)))
0.0
"""

from .block import StochasticBlock, StochasticSequential
from .distributions import *  # noqa: F403 (MXNet's flat namespace; distributions.__all__ lists it)
from .distributions import __all__ as _distributions_all
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
    biject_to,
    domain_map,
    transform_to,
)

__all__ = ["StochasticBlock", "StochasticSequential", *_distributions_all, "Transformation", "TransformBlock",
           "ComposeTransform", "ExpTransform", "AffineTransform", "PowerTransform", "AbsTransform",
           "SigmoidTransform", "SoftmaxTransform", "domain_map", "biject_to", "transform_to"]
