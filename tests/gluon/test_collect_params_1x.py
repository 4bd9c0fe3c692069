"""``collect_params(select)`` of a network written for MXNet 1.x matches MXNet 1.9.1's full names, and a
ParameterDict answers them (MXNet printed the selections below for the same network)."""

from __future__ import annotations

import framework as mx


class _Net(mx.gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.w = self.params.get("w", shape=(2,))
            self.aux_s = self.params.get("aux_s", shape=(2,))
            self.d = mx.gluon.nn.Dense(3)

    def hybrid_forward(self, F, x, w, aux_s):
        return self.d(x)


def test_select_matches_the_1x_full_names():
    net = _Net(prefix="rbm_")
    # MXNet 1.9.1: ['rbm_dense0_bias', 'rbm_dense0_weight', 'rbm_w'], ['rbm_dense0_weight'], []
    kept = net.collect_params("^(?!.*_aux_.*).*$")
    assert sorted(kept) == ["d.bias", "d.weight", "w"]
    assert sorted(net.collect_params(".*weight")) == ["d.weight"]
    assert len(net.collect_params("w")) == 0  # 1.x names start with the prefix
    assert kept["rbm_dense0_weight"] is net.d.weight  # looked up by the 1.x name
    assert sorted(mx.gluon.nn.Dense(3).collect_params("w.*")) == ["weight"]  # 2.x code: structural names
