"""Distributions inside Gluon: gradients of log-likelihoods and reparameterised samples under
``autograd.record()`` against ``jax.grad``, StochasticBlock/StochasticSequential eager and hybridized,
and where sampling takes its keys."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import autograd, gluon, np
from framework.gluon import nn
from framework.gluon import probability as mgp

KEY = jax.random.key(42)


class VAE(mgp.StochasticBlock):
    """A tiny variational auto-encoder: the KL to the prior collected with add_loss."""

    def __init__(self, key=None):
        super().__init__()
        self.key = key
        self.enc = nn.Dense(4, in_units=3)
        self.dec = nn.Dense(3, in_units=2)

    @mgp.StochasticBlock.collectLoss
    def forward(self, x):
        h = self.enc(x)
        q = mgp.Normal(h[:, :2], np.exp(h[:, 2:]))
        z = q.sample(key=self.key)
        self.add_loss(mgp.kl_divergence(q, mgp.Normal(0.0, 1.0)).sum())
        return self.dec(z)


def _net(key=KEY):
    net = VAE(key)
    net.initialize()
    rs = onp.random.RandomState(0)
    for p in net.collect_params().values():
        p.set_data(rs.uniform(-0.5, 0.5, p.shape).astype(onp.float32))
    return net


X = jnp.asarray(onp.random.RandomState(1).uniform(-1, 1, (5, 3)).astype(onp.float32))


def _pure_loss(net, params):
    out, losses = net.functional_call(params, X)
    return ((out - X) ** 2).sum() + sum(losses)


@pytest.mark.parametrize("hybridize", [False, True])
def test_vae_gradients_are_jax_grad(hybridize):
    net = _net()
    if hybridize:
        net.hybridize()
    with autograd.record():
        out = net(X)
        loss = ((out - X) ** 2).sum() + net.losses[0]
    loss.backward()
    assert len(net.losses) == 1 and net.losses[0].shape == ()
    want = jax.jit(jax.grad(lambda ps: _pure_loss(net, ps)))(net.collect_params().values_on())
    for name, p in net.collect_params().items():
        onp.testing.assert_allclose(p.grad(), want[name], rtol=1e-5, atol=1e-6, err_msg=name)


def test_log_likelihood_and_reparameterised_sample_gradients_under_record():
    loc = autograd.attach_grad(jnp.array([0.5, -1.0]))
    scale = autograd.attach_grad(jnp.array([1.5, 0.7]))
    x = jnp.array([0.2, 0.3])
    with autograd.record():
        d = mgp.Normal(loc, scale)
        nll = -d.log_prob(x).sum() + (d.sample_n(8, key=KEY) ** 2).mean()
        nll = nll + mgp.Gamma(scale, 2.0).entropy().sum()
    nll.backward()

    def f(lc, sc):
        dd = mgp.Normal(lc, sc)
        out = -dd.log_prob(x).sum() + (dd.sample_n(8, key=KEY) ** 2).mean()
        return out + mgp.Gamma(sc, 2.0).entropy().sum()

    gl, gs = jax.jit(jax.grad(f, argnums=(0, 1)))(jnp.array([0.5, -1.0]), jnp.array([1.5, 0.7]))
    onp.testing.assert_allclose(loc.grad, gl, rtol=1e-5)
    onp.testing.assert_allclose(scale.grad, gs, rtol=1e-5)
    # gamma samples are reparameterised too: d mean(x) / d shape = scale
    g = jax.jit(jax.grad(lambda a: mgp.Gamma(a, 2.0).sample_n(20000, key=KEY).mean()))(3.0)
    assert abs(float(g) - 2.0) < 0.1


def test_hybridized_draws_take_the_calls_key():
    net = _net(key=None)
    net.hybridize()
    a, b = net(X), net(X)
    assert not onp.allclose(a, b)  # a new key each call, not one traced in
    params = net.collect_params().values_on()
    k = jax.random.key(5)
    first = net.functional_call(params, X, key=k)[0]
    onp.testing.assert_array_equal(first, net.functional_call(params, X, key=k)[0])
    with pytest.raises(gluon.binding.MissingKeyError, match="needs randomness"):
        jax.jit(lambda ps: net.functional_call(ps, X, training=True)[0])(params)


def test_stochastic_sequential_collects_children_losses():
    net = mgp.StochasticSequential()
    dense = nn.Dense(3, in_units=3)
    dense.initialize()
    net.add(_net(), dense, _net())
    out = net(X)
    assert out.shape == (5, 3)
    assert len(net.losses) == 2 and all(len(item) == 1 for item in net.losses)
    assert len(net) == 3 and isinstance(net[1], nn.Dense) and len(net[:2]) == 2


def test_undecorated_forward_is_an_error():
    class Plain(mgp.StochasticBlock):
        def forward(self, x):
            return x

    with pytest.raises(ValueError, match="should be decorated by StochasticBlock.collectLoss"):
        Plain()(X)


def test_a_hybridized_parent_keeps_no_traced_losses_on_its_children():
    net = mgp.StochasticSequential()
    net.add(_net(), _net())
    net.hybridize()
    net(X)
    assert len(net.losses) == 2 and not isinstance(net.losses[0][0], jax.core.Tracer)
    assert all(child.losses == [] for child in net._children.values())
