"""gluon.probability distributions against scipy.stats (a dependency of JAX; MXNet 2.0 itself cannot be
installed here): log densities, cdf/icdf, moments and entropies on batched parameters, inside one
``jax.jit`` per distribution and eagerly; sampling shapes and statistics with fixed keys."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as onp
import pytest
import scipy.special as sps
import scipy.stats as st

from framework.gluon import probability as mgp

RS = onp.random.RandomState(0)
A = RS.uniform(0.5, 2.5, (2, 3))   # positive parameters (batch (2, 3)), float64 for scipy
B = RS.uniform(0.5, 2.5, (2, 3))
LOC = RS.uniform(-1, 1, (2, 3))
P = RS.uniform(0.1, 0.9, (2, 3))
X_REAL = RS.uniform(-2, 2, (2, 3))
X_POS = RS.uniform(0.2, 3, (2, 3))
X_UNIT = RS.uniform(0.05, 0.95, (2, 3))
X_COUNT = RS.randint(0, 6, (2, 3)).astype(onp.float64)
U = RS.uniform(0.05, 0.95, (2, 3))

# name: (make(params) -> distribution, params, scipy frozen distribution, value, extra methods)
CASES = {
    "normal": (lambda p: mgp.Normal(p[0], p[1]), (LOC, A), st.norm(LOC, A), X_REAL, ("cdf", "icdf",
                                                                                     "entropy")),
    "laplace": (lambda p: mgp.Laplace(p[0], p[1]), (LOC, A), st.laplace(LOC, A), X_REAL,
                ("cdf", "icdf", "entropy")),
    "cauchy": (lambda p: mgp.Cauchy(p[0], p[1]), (LOC, A), st.cauchy(LOC, A), X_REAL, ("cdf", "icdf",
                                                                                       "entropy")),
    "gumbel": (lambda p: mgp.Gumbel(p[0], p[1]), (LOC, A), st.gumbel_r(LOC, A), X_REAL,
               ("cdf", "icdf", "entropy")),
    "exponential": (lambda p: mgp.Exponential(p[0]), (A,), st.expon(scale=A), X_POS, ("cdf", "icdf",
                                                                                      "entropy")),
    "gamma": (lambda p: mgp.Gamma(p[0], p[1]), (A, B), st.gamma(A, scale=B), X_POS, ("entropy",)),
    "chi2": (lambda p: mgp.Chi2(p[0] * 2), (A,), st.chi2(A * 2), X_POS, ("entropy",)),
    "beta": (lambda p: mgp.Beta(p[0], p[1]), (A, B), st.beta(A, B), X_UNIT, ("entropy",)),
    "uniform": (lambda p: mgp.Uniform(p[0], p[0] + p[1]), (LOC, A), st.uniform(LOC, A), LOC + A * U,
                ("cdf", "icdf", "entropy")),
    "studentT": (lambda p: mgp.StudentT(p[0] + 4.0, p[1], p[2]), (A, LOC, B), st.t(A + 4.0, LOC, B), X_REAL,
                 ("entropy",)),
    "fisher": (lambda p: mgp.FisherSnedecor(p[0], p[1] + 4.0), (A, B), st.f(A, B + 4.0), X_POS, ()),
    "halfnormal": (lambda p: mgp.HalfNormal(p[0]), (A,), st.halfnorm(scale=A), X_POS, ("cdf", "icdf",
                                                                                       "entropy")),
    "halfcauchy": (lambda p: mgp.HalfCauchy(p[0]), (A,), st.halfcauchy(scale=A), X_POS,
                   ("cdf", "icdf", "entropy")),
    "weibull": (lambda p: mgp.Weibull(p[0], p[1]), (A, B), st.weibull_min(A, scale=B), X_POS, ("entropy",)),
    "pareto": (lambda p: mgp.Pareto(p[0] + 2.0, p[1]), (A, B), st.pareto(A + 2.0, scale=B), B + X_POS,
               ("entropy",)),
    "poisson": (lambda p: mgp.Poisson(p[0]), (A,), st.poisson(A), X_COUNT, ()),
    "bernoulli": (lambda p: mgp.Bernoulli(prob=p[0]), (P,), st.bernoulli(P),
                  (X_COUNT > 2).astype(onp.float32),
                  ("entropy",)),
    "bernoulli_logit": (lambda p: mgp.Bernoulli(logit=p[0]), (LOC,), st.bernoulli(sps.expit(LOC)),
                        (X_COUNT > 2).astype(onp.float32), ("entropy",)),
    "binomial": (lambda p: mgp.Binomial(5, prob=p[0]), (P,), st.binom(5, P), X_COUNT, ()),
    "geometric": (lambda p: mgp.Geometric(prob=p[0]), (P,), st.geom(P, loc=-1), X_COUNT, ("entropy",)),
    "negbinomial": (lambda p: mgp.NegativeBinomial(p[0], prob=p[1]), (A, P), st.nbinom(A, 1 - P), X_COUNT,
                    ()),
}


def _scipy(dist, name, x):
    if name == "log_prob":
        return dist.logpmf(x) if hasattr(dist.dist, "pmf") else dist.logpdf(x)
    return {"cdf": lambda: dist.cdf(x), "icdf": lambda: dist.ppf(U), "entropy": dist.entropy,
            "mean": dist.mean, "variance": dist.var}[name]()


def _ours(d, name, x):
    if name == "icdf":
        return d.icdf(jnp.asarray(U))
    if name in ("mean", "variance"):
        return jnp.broadcast_to(jnp.asarray(getattr(d, name)), (2, 3))
    if name == "entropy":
        return d.entropy()
    return getattr(d, name)(jnp.asarray(x))


def _moments(case):
    skip = {"cauchy", "halfcauchy"}  # no finite moments (ours: NaN / inf, scipy: nan / inf)
    return () if case in skip else ("mean", "variance")


@pytest.mark.parametrize("case", sorted(CASES))
def test_against_scipy(case):
    make, params, ref, x, extra = CASES[case]
    names = ("log_prob", *_moments(case), *extra)
    jitted = jax.jit(lambda ps, x: {n: _ours(make(ps), n, x) for n in names})
    got = jitted(tuple(jnp.asarray(p) for p in params), jnp.asarray(x))
    eager = _ours(make(params), "log_prob", x)  # and once eagerly
    for name in names:
        want = onp.asarray(_scipy(ref, name, x), onp.float64)
        onp.testing.assert_allclose(got[name], want, rtol=2e-4, atol=2e-5, err_msg=f"{case}.{name}")
    onp.testing.assert_allclose(eager, got["log_prob"], rtol=1e-5, atol=1e-5)


def test_cauchy_family_moments_are_undefined():
    assert onp.isnan(mgp.Cauchy(LOC, A).mean).all() and onp.isnan(mgp.Cauchy(LOC, A).variance).all()
    assert onp.isinf(mgp.HalfCauchy(A).mean).all()


def test_multivariate_and_simplex_distributions_against_scipy():
    cov = onp.array([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]])
    loc = onp.array([[0.1, -0.2, 0.3], [1.0, 0.0, -1.0]])
    x = RS.normal(size=(4, 2, 3))
    alpha = onp.array([[0.5, 1.5, 2.0], [3.0, 1.0, 0.7]])
    v = onp.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])
    prob = onp.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])
    counts = onp.array([[1.0, 0.0, 3.0], [2.0, 1.0, 1.0]])

    @jax.jit
    def ours(cov, loc, x, alpha, v, prob, counts):
        out = {}
        for kind, d in (("cov", mgp.MultivariateNormal(loc, cov=cov)),
                        ("precision", mgp.MultivariateNormal(loc, precision=jnp.linalg.inv(cov))),
                        ("tril", mgp.MultivariateNormal(loc, scale_tril=jnp.linalg.cholesky(cov)))):
            out.update({f"{kind}:log_prob": d.log_prob(x), f"{kind}:entropy": d.entropy(),
                        f"{kind}:variance": jnp.broadcast_to(d.variance, (2, 3)), f"{kind}:cov": d.cov})
        d = mgp.Dirichlet(alpha)
        out.update({"dir:log_prob": d.log_prob(v), "dir:entropy": d.entropy(), "dir:variance": d.variance})
        out["multinomial"] = mgp.Multinomial(3, prob=prob, total_count=4).log_prob(counts)
        c = mgp.Categorical(3, logit=jnp.log(prob) + 1.7)  # unnormalised logits
        out.update({"cat:log_prob": c.log_prob(jnp.array([2, 0])), "cat:entropy": c.entropy(),
                    "onehot": mgp.OneHotCategorical(3, prob=prob).log_prob(jnp.eye(3)[jnp.array([2, 0])])})
        return out

    got = ours(*(jnp.asarray(a, jnp.float32) for a in (cov, loc, x, alpha, v, prob, counts)))
    mvn = [st.multivariate_normal(loc[i], cov) for i in range(2)]
    want = {"log_prob": onp.stack([mvn[i].logpdf(x[:, i]) for i in range(2)], 1),
            "entropy": [r.entropy() for r in mvn], "variance": onp.broadcast_to(onp.diag(cov), (2, 3)),
            "cov": cov}
    for kind in ("cov", "precision", "tril"):
        for name, value in want.items():
            onp.testing.assert_allclose(got[f"{kind}:{name}"], value, rtol=2e-4, atol=1e-4,
                                        err_msg=f"{kind}:{name}")
    dirichlet = [st.dirichlet(a) for a in alpha]
    onp.testing.assert_allclose(got["dir:log_prob"], [d.logpdf(b) for d, b in zip(dirichlet, v, strict=True)],
                                rtol=1e-4)
    onp.testing.assert_allclose(got["dir:entropy"], [d.entropy() for d in dirichlet], rtol=1e-4)
    onp.testing.assert_allclose(got["dir:variance"], [d.var() for d in dirichlet], rtol=1e-4)
    multinomial = [st.multinomial(4, p).logpmf(c) for p, c in zip(prob, counts, strict=True)]
    onp.testing.assert_allclose(got["multinomial"], multinomial, rtol=1e-5)
    onp.testing.assert_allclose(got["cat:log_prob"], onp.log([0.5, 0.6]), rtol=1e-5)
    onp.testing.assert_allclose(got["cat:entropy"], [st.entropy(p) for p in prob], rtol=1e-5)
    onp.testing.assert_allclose(got["onehot"], onp.log([0.5, 0.6]), rtol=1e-5)
    c, oh = mgp.Categorical(3, prob=prob), mgp.OneHotCategorical(3, prob=prob)
    assert c.enumerate_support().shape == (3, 2) and oh.enumerate_support().shape == (3, 2, 3)


def _draws(d, n, key=0):
    return onp.asarray(d.sample_n(n, key=jax.random.key(key)), onp.float64)


SAMPLED = {  # name: (distribution, scipy reference, continuous)
    "normal": (mgp.Normal(0.5, 2.0), st.norm(0.5, 2.0), True),
    "gamma": (mgp.Gamma(2.5, 0.5), st.gamma(2.5, scale=0.5), True),
    "beta": (mgp.Beta(2.0, 5.0), st.beta(2.0, 5.0), True),
    "studentT": (mgp.StudentT(5.0, 1.0, 2.0), st.t(5.0, 1.0, 2.0), True),
    "fisher": (mgp.FisherSnedecor(5.0, 8.0), st.f(5.0, 8.0), True),
    "weibull": (mgp.Weibull(1.5, 2.0), st.weibull_min(1.5, scale=2.0), True),
    "pareto": (mgp.Pareto(3.0, 2.0), st.pareto(3.0, scale=2.0), True),
    "halfnormal": (mgp.HalfNormal(2.0), st.halfnorm(scale=2.0), True),
    "cauchy": (mgp.Cauchy(1.0, 0.5), st.cauchy(1.0, 0.5), True),
    "gumbel": (mgp.Gumbel(1.0, 2.0), st.gumbel_r(1.0, 2.0), True),
    "laplace": (mgp.Laplace(1.0, 2.0), st.laplace(1.0, 2.0), True),
    "uniform": (mgp.Uniform(-1.0, 3.0), st.uniform(-1.0, 4.0), True),
    "exponential": (mgp.Exponential(2.0), st.expon(scale=2.0), True),
    "poisson": (mgp.Poisson(3.5), st.poisson(3.5), False),
    "geometric": (mgp.Geometric(prob=0.3), st.geom(0.3, loc=-1), False),
    "binomial": (mgp.Binomial(7, prob=0.3), st.binom(7, 0.3), False),
    "negbinomial": (mgp.NegativeBinomial(3.0, prob=0.4), st.nbinom(3.0, 0.6), False),
    "bernoulli": (mgp.Bernoulli(prob=0.3), st.bernoulli(0.3), False),
}


@pytest.mark.parametrize("case", sorted(SAMPLED))
def test_samples_follow_the_distribution(case):
    d, ref, continuous = SAMPLED[case]
    x = _draws(d, 4000)
    if continuous:  # Kolmogorov-Smirnov with a fixed key: deterministic
        assert st.kstest(x, ref.cdf).pvalue > 1e-3, case
    else:  # the frequency of each value against the mass function
        values, counts = onp.unique(x, return_counts=True)
        onp.testing.assert_allclose(counts / len(x), ref.pmf(values), atol=0.03, err_msg=case)
    assert not onp.array_equal(x, _draws(d, 4000, key=1))


def _shape(fn):
    return jax.eval_shape(fn).shape  # abstract: no program is compiled


def test_sample_shapes_follow_mxnet():
    k = jax.random.key(0)
    d = mgp.Normal(jnp.zeros((2, 3)), 1.0)
    assert _shape(lambda: d.sample(key=k)) == (2, 3)
    assert _shape(lambda: d.sample((4, 2, 3), key=k)) == (4, 2, 3)  # size is the whole shape
    assert _shape(lambda: d.sample_n(4, key=k)) == (4, 2, 3)
    assert _shape(lambda: d.sample_n((4, 5), key=k)) == (4, 5, 2, 3)
    assert _shape(lambda: mgp.Normal(0.0, 1.0).sample_n(3, key=k)) == (3,)
    c = mgp.Categorical(4, prob=jnp.full((2, 4), 0.25))
    assert _shape(lambda: c.sample(key=k)) == (2,) and _shape(lambda: c.sample_n(5, key=k)) == (5, 2)
    mvn = mgp.MultivariateNormal(jnp.zeros(3), cov=jnp.eye(3))
    assert _shape(lambda: mvn.sample(key=k)) == (3,) and _shape(lambda: mvn.sample_n(4, key=k)) == (4, 3)
    assert _shape(lambda: mvn.sample((6,), key=k)) == (6, 3)
    dr = mgp.Dirichlet(jnp.ones((2, 3)))
    assert _shape(lambda: dr.sample(key=k)) == (2, 3) and _shape(lambda: dr.sample_n(5, key=k)) == (5, 2, 3)
    m = mgp.Multinomial(3, prob=jnp.array([0.2, 0.3, 0.5]), total_count=6)
    assert bool((m.sample_n(4, key=k).sum(-1) == 6).all())
    onehot = mgp.OneHotCategorical(3, prob=jnp.array([0.2, 0.3, 0.5]))
    assert _shape(lambda: onehot.sample_n(2, key=k)) == (2, 3)
    assert _shape(lambda: d.broadcast_to((5, 2, 3)).sample(key=k)) == (5, 2, 3)
    assert _shape(lambda: mgp.Bernoulli(prob=jnp.full(3, 0.5)).broadcast_to((2, 3)).mean) == (2, 3)


def test_multivariate_normal_samples_have_the_covariance():
    cov = jnp.array([[2.0, 0.8], [0.8, 1.0]])
    x = onp.asarray(mgp.MultivariateNormal(jnp.array([1.0, -1.0]), cov=cov).sample_n(50000,
                                                                                     key=jax.random.key(0)))
    onp.testing.assert_allclose(onp.cov(x.T), cov, atol=0.05)
    onp.testing.assert_allclose(x.mean(0), [1.0, -1.0], atol=0.03)


def test_draws_without_a_key_follow_the_seed():
    from framework import np

    np.random.seed(7)
    a = mgp.Normal(0.0, 1.0).sample_n(3)
    np.random.seed(7)
    b = mgp.Normal(0.0, 1.0).sample_n(3)
    assert onp.array_equal(a, b) and not onp.array_equal(a, mgp.Normal(0.0, 1.0).sample_n(3))


def test_relaxed_distributions():
    rb = mgp.RelaxedBernoulli(0.5, prob=jnp.array([0.2, 0.8]))
    x = jax.jit(lambda k: rb.sample_n(2000, key=k))(jax.random.key(0))
    assert bool(((x > 0) & (x < 1)).all())
    onp.testing.assert_allclose((onp.asarray(x) > 0.5).mean(0), [0.2, 0.8], atol=0.03)
    # its density is the Concrete density (Maddison et al., 2017, eq. 24)
    y, t, alpha = onp.linspace(0.05, 0.95, 7), 0.5, 0.3 / 0.7
    dens = t * alpha * y ** (-t - 1) * (1 - y) ** (-t - 1) / (alpha * y ** -t + (1 - y) ** -t) ** 2
    log_prob = jax.jit(lambda v: mgp.RelaxedBernoulli(t, prob=0.3).log_prob(v))(jnp.asarray(y))
    onp.testing.assert_allclose(log_prob, onp.log(dens), rtol=1e-4, atol=1e-5)
    ro = mgp.RelaxedOneHotCategorical(0.3, 3, prob=jnp.array([0.2, 0.3, 0.5]))
    y = jax.jit(lambda k: ro.sample_n(3000, key=k))(jax.random.key(1))
    onp.testing.assert_allclose(y.sum(-1), 1.0, rtol=1e-5)
    onp.testing.assert_allclose(onp.bincount(onp.asarray(y).argmax(-1), minlength=3) / 3000, [0.2, 0.3, 0.5],
                                atol=0.03)
    lp = jax.jit(ro.log_prob)(y[:5])
    assert lp.shape == (5,) and bool(jnp.isfinite(lp).all())


def test_validate_args_and_errors():
    with pytest.raises(ValueError, match="Constraint violated: .* should be greater than 0"):
        mgp.Normal(0.0, -1.0, validate_args=True)
    with pytest.raises(ValueError, match="should be >= 0 and <= 1"):
        mgp.Bernoulli(prob=1.5, validate_args=True)
    with pytest.raises(ValueError, match="Either `prob` or `logit` must be specified, but not both"):
        mgp.Bernoulli(prob=0.5, logit=0.0)
    with pytest.raises(ValueError, match="Exactly one of `cov` or `precision` or `scale_tril`"):
        mgp.MultivariateNormal(jnp.zeros(2))
    d = mgp.Exponential(1.0, validate_args=True)
    with pytest.raises(ValueError, match="should be greater than 0"):
        d.log_prob(jnp.array([-1.0]))
    assert math.isclose(float(mgp.Normal(0.0, 1.0).perplexity()), math.exp(0.5 + 0.5 * math.log(2 * math.pi)),
                        rel_tol=1e-6)
    assert repr(mgp.Normal(jnp.zeros(3), 1.0)) == "Normal(loc: size (3,), scale: size (), event_dim: 0)"
