"""``F.np`` / ``F.npx`` in a 1.x ``hybrid_forward`` (MXNet's ``nd.np`` / ``nd.npx``), eager and
hybridized, give MXNet 1.9.1's output (``tests/reference/d2l/behaviour.json``, ``gen_d2l.py``)."""

import json
from pathlib import Path

import numpy as onp
import pytest

import framework as mx
from framework import gluon, init, np

REF = json.loads((Path(__file__).parents[1] / "reference" / "d2l" / "behaviour.json").read_text())["hybrid_F"]


class NpF(gluon.nn.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.hidden = gluon.nn.Dense(4, in_units=3, weight_initializer=init.Constant(0.1))
        self.output = gluon.nn.Dense(2, in_units=4, weight_initializer=init.Constant(-0.2))

    def hybrid_forward(self, F, x):
        h = F.npx.relu(self.hidden(x) - 0.5)
        return self.output(h) + F.np.sum(x, axis=1, keepdims=True)


@pytest.mark.parametrize("mode", ["eager", "hybridized"])
def test_hybrid_forward_uses_F_np_and_F_npx(mode):
    net = NpF()
    net.initialize()
    if mode == "hybridized":
        net.hybridize()
    out = onp.asarray(net(np.arange(6).reshape(2, 3)))
    onp.testing.assert_allclose(out, onp.asarray(REF[mode]["value"]["array"]), rtol=1e-6)
    assert mx.nd.numpy is mx.nd.np and mx.nd.numpy_extension is mx.nd.npx
