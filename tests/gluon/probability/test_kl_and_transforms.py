"""KL divergences (closed forms against numerical integrals, exact sums, and Monte-Carlo estimates
with fixed keys; the registry's dispatch), transformations (inverses and log-determinants against
jax.jacobian) and the constraint registries."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework.gluon import probability as mgp
from framework.gluon.probability.distributions import constraint as C

# name: (p, q, integration range of p's support, or None for a Monte-Carlo check)
KL_PAIRS = {
    "normal": (mgp.Normal(0.3, 1.5), mgp.Normal(-0.2, 0.8), (-15.0, 15.0)),
    "halfnormal": (mgp.HalfNormal(1.5), mgp.HalfNormal(0.8), (0.0, 15.0)),
    "laplace": (mgp.Laplace(0.3, 1.5), mgp.Laplace(-0.2, 0.8), (-40.0, 40.0)),
    "gumbel": (mgp.Gumbel(0.3, 1.5), mgp.Gumbel(-0.2, 0.8), (-6.0, 40.0)),
    "exponential": (mgp.Exponential(1.5), mgp.Exponential(0.8), (0.0, 50.0)),
    "gamma": (mgp.Gamma(2.5, 0.7), mgp.Gamma(1.5, 1.2), (1e-7, 40.0)),
    "chi2_gamma": (mgp.Chi2(3.0), mgp.Gamma(1.5, 1.2), (1e-7, 80.0)),
    "beta": (mgp.Beta(2.5, 1.7), mgp.Beta(1.5, 3.2), (1e-7, 1 - 1e-7)),
    "pareto": (mgp.Pareto(3.0, 2.0), mgp.Pareto(2.0, 1.5), (2.0, 2000.0)),
    "uniform": (mgp.Uniform(0.0, 1.0), mgp.Uniform(-0.5, 2.0), (1e-7, 1 - 1e-7)),
    "uniform_normal": (mgp.Uniform(-1.0, 2.0), mgp.Normal(0.5, 1.5), (-1.0 + 1e-6, 2.0 - 1e-6)),
    "uniform_gumbel": (mgp.Uniform(-1.0, 2.0), mgp.Gumbel(0.5, 1.5), (-1.0 + 1e-6, 2.0 - 1e-6)),
    "exponential_gumbel": (mgp.Exponential(1.5), mgp.Gumbel(0.5, 1.5), (0.0, 50.0)),
    "exponential_normal": (mgp.Exponential(1.5), mgp.Normal(0.5, 1.5), (0.0, 50.0)),
    "exponential_gamma": (mgp.Exponential(1.5), mgp.Gamma(2.0, 1.2), (1e-7, 50.0)),
    "cauchy": (mgp.Cauchy(0.3, 1.5), mgp.Cauchy(-0.2, 0.8), None),
    "dirichlet": (mgp.Dirichlet(jnp.array([1.5, 2.0, 0.7])), mgp.Dirichlet(jnp.array([1.0, 3.0, 1.2])), None),
    "mvn": (mgp.MultivariateNormal(jnp.array([0.5, -0.3]), cov=jnp.array([[1.5, 0.4], [0.4, 0.8]])),
            mgp.MultivariateNormal(jnp.array([0.0, 0.2]), cov=jnp.array([[1.0, -0.3], [-0.3, 2.0]])), None),
}
DISCRETE = {
    "bernoulli": (mgp.Bernoulli(prob=0.3), mgp.Bernoulli(logit=0.7)),
    "categorical": (mgp.Categorical(3, prob=jnp.array([0.2, 0.5, 0.3])),
                    mgp.Categorical(3, logit=jnp.array([0.1, -0.4, 0.9]))),
    "onehot": (mgp.OneHotCategorical(3, prob=jnp.array([0.2, 0.5, 0.3])),
               mgp.OneHotCategorical(3, logit=jnp.array([0.1, -0.4, 0.9]))),
    "poisson": (mgp.Poisson(2.5), mgp.Poisson(1.2)),
    "geometric": (mgp.Geometric(prob=0.3), mgp.Geometric(prob=0.6)),
    "binomial": (mgp.Binomial(6, prob=0.3), mgp.Binomial(6, prob=0.6)),
    "binomial_fewer_trials": (mgp.Binomial(4, prob=0.3), mgp.Binomial(6, prob=0.6)),
}


def _support(p):
    if isinstance(p, mgp.Categorical):
        return jnp.arange(3)
    if isinstance(p, mgp.OneHotCategorical):
        return jnp.eye(3)
    if isinstance(p, mgp.Bernoulli):
        return jnp.array([0.0, 1.0])
    return jnp.arange(200.0)


@pytest.mark.parametrize("case", sorted(KL_PAIRS))
def test_closed_form_kl_matches_the_integral(case):
    p, q, support = KL_PAIRS[case]
    if support is None:  # Monte-Carlo with a fixed key: within 5 standard errors

        @jax.jit
        def both(key):
            x = p.sample_n(60000, key=key)
            return mgp.kl_divergence(p, q), p.log_prob(x) - q.log_prob(x)

        closed, ratio = both(jax.random.key(0))
        ratio = onp.asarray(ratio, onp.float64)
        estimate, err = ratio.mean(), ratio.std() / onp.sqrt(len(ratio))
        assert abs(float(closed) - estimate) < 5 * err + 2e-3, (case, float(closed), estimate, err)
        return
    x = onp.linspace(*support, 400001)  # the integral of p (log p - log q) by the trapezoid rule
    closed, lp, lq = jax.jit(lambda v: (mgp.kl_divergence(p, q), p.log_prob(v), q.log_prob(v)))(
        jnp.asarray(x, jnp.float32))
    lp, lq = onp.asarray(lp, onp.float64), onp.asarray(lq, onp.float64)
    integral = onp.trapezoid(onp.exp(lp) * (lp - lq), x)
    onp.testing.assert_allclose(float(closed), integral, rtol=2e-3, atol=2e-4, err_msg=case)


def test_empirical_kl_is_the_mean_log_ratio_of_samples():
    p, q, _ = KL_PAIRS["normal"]
    x = p.sample_n(1000, key=jax.random.key(1))
    onp.testing.assert_allclose(mgp.empirical_kl(p, q, 1000, key=jax.random.key(1)),
                                (p.log_prob(x) - q.log_prob(x)).mean(), rtol=1e-6)


@pytest.mark.parametrize("case", sorted(DISCRETE))
def test_discrete_kl_is_the_exact_sum(case):
    p, q = DISCRETE[case]

    @jax.jit
    def both(x):
        lp = p.log_prob(x)
        terms = jnp.where(jnp.isfinite(lp), jnp.exp(lp) * (lp - q.log_prob(x)), 0.0)
        return mgp.kl_divergence(p, q), terms.sum()

    closed, exact = both(_support(p))
    onp.testing.assert_allclose(float(closed), float(exact), rtol=1e-4, atol=1e-6)


def test_kl_outside_the_support_and_registry():
    assert float(mgp.kl_divergence(mgp.Uniform(-1.0, 2.0), mgp.Uniform(0.0, 1.0))) == onp.inf
    assert float(mgp.kl_divergence(mgp.Pareto(2.0, 1.0), mgp.Pareto(2.0, 1.5))) == onp.inf
    assert float(mgp.kl_divergence(mgp.Binomial(6, prob=0.3), mgp.Binomial(4, prob=0.3))) == onp.inf
    batched = mgp.kl_divergence(mgp.Normal(jnp.zeros(3), 1.0), mgp.Normal(jnp.arange(3.0), 1.0))
    onp.testing.assert_allclose(batched, [0.0, 0.5, 2.0])
    with pytest.raises(NotImplementedError, match="KL divergence between Normal and Gamma is not "):
        mgp.kl_divergence(mgp.Normal(), mgp.Gamma(1.0))

    class Shifted(mgp.Normal):
        pass

    assert float(mgp.kl_divergence(Shifted(0.0, 1.0), mgp.Normal(1.0, 1.0))) == 0.5  # the base class's

    @mgp.register_kl(Shifted, mgp.Normal)
    def _kl(p, q):
        return -1.0

    assert mgp.kl_divergence(Shifted(0.0, 1.0), mgp.Normal(1.0, 1.0)) == -1.0
    with pytest.raises(TypeError, match="exactly two arguments"):
        mgp.register_kl(Shifted, Shifted)(lambda p: 0)


def test_kl_gradients_are_jax_grad():
    def kl(params):
        return mgp.kl_divergence(mgp.Gamma(params[0], params[1]), mgp.Gamma(params[2], params[3]))

    kl = jax.jit(kl)
    x = jnp.array([2.5, 0.7, 1.5, 1.2])
    g = jax.jit(jax.grad(kl))(x)
    eps = 1e-3
    fd = [(kl(x.at[i].add(eps)) - kl(x.at[i].add(-eps))) / (2 * eps) for i in range(4)]
    onp.testing.assert_allclose(g, fd, rtol=2e-2, atol=1e-3)


TRANSFORMS = {
    "exp": (mgp.ExpTransform(), jnp.array([-1.0, 0.3, 1.2])),
    "affine": (mgp.AffineTransform(1.0, -2.5), jnp.array([-1.0, 0.3, 1.2])),
    "power": (mgp.PowerTransform(2.5), jnp.array([0.4, 1.3, 2.2])),
    "sigmoid": (mgp.SigmoidTransform(), jnp.array([-1.0, 0.3, 1.2])),
    "compose": (mgp.ComposeTransform([mgp.ExpTransform(), mgp.AffineTransform(1.0, 3.0),
                                      mgp.PowerTransform(0.5)]), jnp.array([-1.0, 0.3, 1.2])),
}


@pytest.mark.parametrize("case", sorted(TRANSFORMS))
def test_transformations_invert_and_their_log_det_is_the_jacobian(case):
    t, x = TRANSFORMS[case]
    y = t(x)
    onp.testing.assert_allclose(t.inv(y), x, rtol=1e-5, atol=1e-5)
    assert t.inv.inv is t
    jac = jnp.diagonal(jax.jacobian(t)(x))
    onp.testing.assert_allclose(t.log_det_jacobian(x, y), jnp.log(jnp.abs(jac)), rtol=1e-5, atol=1e-5)
    onp.testing.assert_allclose(t.inv.log_det_jacobian(y, x), -jnp.log(jnp.abs(jac)), rtol=1e-5, atol=1e-5)
    assert onp.all(onp.sign(jac) == onp.asarray(t.sign))


def test_transformed_distribution_is_lognormal_and_registries():
    lognormal = mgp.TransformedDistribution(mgp.Normal(0.2, 0.7), [mgp.ExpTransform()])
    x = jnp.array([0.5, 1.0, 2.5])
    want = -jnp.log(x * 0.7 * jnp.sqrt(2 * jnp.pi)) - (jnp.log(x) - 0.2) ** 2 / (2 * 0.49)
    onp.testing.assert_allclose(lognormal.log_prob(x), want, rtol=1e-5)
    u = jnp.array([0.1, 0.5, 0.9])
    onp.testing.assert_allclose(lognormal.cdf(lognormal.icdf(u)), u, rtol=1e-5)
    flipped = mgp.TransformedDistribution(mgp.Normal(0.0, 1.0), mgp.AffineTransform(0.0, -1.0))
    onp.testing.assert_allclose(flipped.cdf(jnp.array(1.0)), 0.8413447, rtol=1e-5)  # a decreasing map
    z = jnp.array([-3.0, 0.0, 2.0])
    cases = ((C.Positive(), lambda v: v > 0), (C.GreaterThan(2.0), lambda v: v > 2),
             (C.LessThan(-1.0), lambda v: v < -1), (C.Interval(2.0, 5.0), lambda v: (v > 2) & (v < 5)),
             (C.UnitInterval(), lambda v: (v > 0) & (v < 1)))
    for constraint, check in cases:
        for registry in (mgp.transform_to, mgp.biject_to):
            assert bool(check(registry(constraint)(z)).all()), constraint
    with pytest.raises(NotImplementedError, match="Cannot transform Simplex constraints"):
        mgp.biject_to(C.Simplex())
    softmax = mgp.SoftmaxTransform()
    onp.testing.assert_allclose(softmax(jnp.log(jnp.array([0.2, 0.3, 0.5]))), [0.2, 0.3, 0.5], rtol=1e-6)
    onp.testing.assert_allclose(mgp.AbsTransform()(jnp.array([-2.0, 3.0])), [2.0, 3.0])


def test_constraints():
    C.Simplex().check(onp.array([0.2, 0.8]))
    C.LowerCholesky().check(onp.array([[1.0, 0.0], [0.3, 2.0]]))
    C.PositiveDefinite().check(onp.array([[2.0, 0.3], [0.3, 1.0]]))
    bad = ((onp.array([0.2, 0.7]), C.Simplex()), (onp.array([[1.0, 0.5], [0.3, 2.0]]), C.LowerCholesky()),
           (onp.array([[1.0, 2.0], [2.0, 1.0]]), C.PositiveDefinite()), (2.5, C.IntegerInterval(0, 3)),
           (3.0, C.LessThan(3.0)), (onp.array([0.0, 2.0]), C.Boolean()))
    for value, constraint in bad:
        with pytest.raises(ValueError, match="Constraint violated"):
            constraint.check(value)
    C.Cat([C.Positive(), C.Real()], lengths=[1, 2]).check(onp.array([1.0, -2.0, 3.0]))
    with pytest.raises(ValueError, match="greater than 0"):
        C.Stack([C.Positive(), C.Real()]).check(onp.array([-1.0, 2.0]))
    assert jax.jit(lambda v: C.Positive().check(v))(jnp.array(-1.0)) == -1.0  # a trace cannot check
    assert C.is_dependent(mgp.Pareto.support)
