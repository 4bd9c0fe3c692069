"""``npx`` operators beyond the core set (``batch_dot``, ``gather_nd``, ``roi_pooling``, ``multibox_*``,
``rnn``, ...) against MXNet 1.9.1: compiled with gradients, and eagerly inside ``autograd.record()``."""

from __future__ import annotations

import jax.numpy as jnp
import pytest
from ops_reference import check_compiled, check_recorded, names, recorded_names

from framework import npx

NPX = names("npx.")


@pytest.mark.parametrize("name", NPX)
def test_matches_mxnet_compiled(name):
    check_compiled(name)


@pytest.mark.parametrize("name", recorded_names("npx."))
def test_matches_mxnet_recorded(name):
    check_recorded(name)


def test_nonzero_refuses_tracers_with_the_fix():
    import jax

    with pytest.raises(TypeError, match="cannot run inside jax.jit"):
        jax.jit(npx.nonzero)(jnp.ones(3))


def test_errors_name_the_shapes():
    with pytest.raises(ValueError, match=r"N-D with the same N >= 3.*\(2, 3\)"):
        npx.batch_dot(jnp.ones((2, 3)), jnp.ones((3, 2)))
    with pytest.raises(ValueError, match="cannot take the shape"):
        npx.reshape_like(jnp.ones((2, 3)), jnp.ones((4,)))
    with pytest.raises(ValueError, match="positive"):
        npx.constraint_check(jnp.array([True, False]), "positive")
