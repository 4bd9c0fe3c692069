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


class _Shared(mx.gluon.HybridBlock):
    """A child reached by two names (``self.fc`` and ``self.head[1]``), as GluonCV's I3D head is."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.body = mx.gluon.nn.Dense(4)
            self.head = mx.gluon.nn.HybridSequential()
            self.fc = mx.gluon.nn.Dense(2)
            self.head.add(mx.gluon.nn.Dropout(0.5))
            self.head.add(self.fc)

    def hybrid_forward(self, F, x):
        return self.head(self.body(x))


def test_a_shared_parameter_is_collected_once_in_1x_code(tmp_path):
    net = _Shared(prefix="net_")
    # MXNet 1.9.1: collect_params() ['net_dense0_weight', 'net_dense0_bias', 'net_dense1_weight',
    # 'net_dense1_bias']; _collect_params_with_prefix() ['body.weight', 'body.bias', 'head.1.weight',
    # 'head.1.bias', 'fc.weight', 'fc.bias']
    params = net.collect_params()
    assert list(params) == ["body.weight", "body.bias", "head.1.weight", "head.1.bias"]
    assert [p._var_name for p in params.values()] == ["net_dense0_weight", "net_dense0_bias",
                                                       "net_dense1_weight", "net_dense1_bias"]
    assert list(net._collect_params_with_prefix()) == ["body.weight", "body.bias", "head.1.weight",
                                                       "head.1.bias", "fc.weight", "fc.bias"]
    net.initialize()
    net(mx.nd.ones((1, 3)))
    net.save_parameters(str(tmp_path / "n.params"))  # every name, as MXNet writes them
    assert sorted(mx.nd.load(str(tmp_path / "n.params"))) == sorted(net._collect_params_with_prefix())
    twin = _Shared(prefix="net_")
    twin.load_parameters(str(tmp_path / "n.params"))
    assert (twin.fc.weight.data() == net.fc.weight.data()).all()
