"""MXNet 2.0's probability distributions, KL divergences and helpers.

>>> from framework.gluon.probability import distributions
>>> float(distributions.kl_divergence(distributions.Normal(0.0, 1.0), distributions.Normal(0.0, 1.0)))
0.0
"""

from . import constraint
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .dirichlet import Dirichlet
from .distribution import Distribution
from .divergence import empirical_kl, kl_divergence, register_kl
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .fishersnedecor import FisherSnedecor
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .laplace import Laplace
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_one_hot_categorical import RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import (
    cached_property,
    constraint_check,
    digamma,
    erf,
    erfinv,
    gammaln,
    logit2prob,
    prob2logit,
    sample_n_shape_converter,
)
from .weibull import Weibull

__all__ = ["Distribution", "ExponentialFamily", "Exponential", "Weibull", "Pareto", "Uniform", "Normal",
           "Laplace", "Cauchy", "HalfCauchy", "Poisson", "Geometric", "NegativeBinomial", "Gamma",
           "Dirichlet", "Beta", "Chi2", "FisherSnedecor", "StudentT", "HalfNormal", "Independent",
           "Bernoulli", "Binomial", "RelaxedBernoulli", "Gumbel", "Categorical", "OneHotCategorical",
           "RelaxedOneHotCategorical", "Multinomial", "MultivariateNormal", "TransformedDistribution",
           "register_kl", "kl_divergence", "empirical_kl", "prob2logit", "logit2prob",
           "cached_property", "sample_n_shape_converter", "constraint_check", "digamma", "gammaln",
           "erfinv", "erf", "constraint"]
