"""``LBSGD`` (each warm-up strategy, gradient accumulation over ``batch_scale`` updates, LARS), MXNet's
``Test`` optimizer and ``optimizer.contrib.GroupAdaGrad`` against MXNet 1.9.1's weights after each of six
updates (``tests/reference/api2/optimizer.npz``, ``tools/mxnet_reference/gen_api2.py optimizer``)."""

from __future__ import annotations

import json
from pathlib import Path

import jax.numpy as jnp
import numpy as onp
import pytest

import framework as mx

REF = Path(__file__).resolve().parent / "reference" / "api2" / "optimizer.npz"
with onp.load(REF) as _f:
    R = {k: _f[k] for k in _f.files}
CONFIG = json.loads(str(R["__config__"]))


@pytest.mark.parametrize("key", sorted(CONFIG))
def test_matches_mxnet_update_by_update(key):
    name, kwargs = CONFIG[key]
    opt = mx.optimizer.create(name, **kwargs)
    w = jnp.asarray(R["w0"])
    state = opt.create_state(0, w)
    for step, g in enumerate(R["grads"]):
        w = opt.update(0, w, jnp.asarray(g), state)
        onp.testing.assert_allclose(w, R[f"{key}.w{step}"], rtol=1e-5, atol=1e-6,
                                    err_msg=f"{key} step {step}")


def test_optimizer_submodules_and_names():
    assert mx.optimizer.contrib.GroupAdaGrad is mx.optimizer.large_batch.GroupAdaGrad
    assert mx.optimizer.optimizer.SGD is mx.optimizer.SGD
    assert float(mx.optimizer.NDabs(mx.nd.array([-2.0]))[0]) == 2.0
    with pytest.raises(ValueError, match="weight decay is not supported"):
        opt = mx.optimizer.contrib.GroupAdaGrad(wd=0.1)
        w = jnp.ones((2, 2))
        opt.update(0, w, w, opt.create_state(0, w))
