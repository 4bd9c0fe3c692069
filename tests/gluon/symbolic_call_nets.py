"""Gluon networks called on ``mx.sym.var('data')``, shared by tools/mxnet_reference/gen_symbolic_call.py
(run with MXNet 1.9.1 as ``mx``) and tests/gluon/test_symbolic_call.py (run with ``import framework as
mx``): the same code builds both graphs.

Each builder takes the ``mx`` module and returns ``(net, input shape, internal outputs to extract)``.
"""

from __future__ import annotations


def layers(mx):
    """One of each framework layer with a symbolic form, in a prefixed HybridSequential."""
    nn = mx.gluon.nn
    net = nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(nn.Conv2D(4, 3, padding=1, activation="relu", in_channels=3), nn.BatchNorm(in_channels=4),
                nn.Activation("tanh"), nn.MaxPool2D(), nn.Conv2D(4, 3, in_channels=4, use_bias=False),
                nn.LeakyReLU(0.1), nn.ELU(0.5), nn.SELU(), nn.GELU(), nn.Swish(), nn.PReLU(in_channels=4),
                nn.AvgPool2D(pool_size=2, strides=1, padding=1), nn.Flatten(),
                nn.Dropout(0.5), nn.Dense(8, activation="sigmoid", in_units=36), nn.Dense(3, in_units=8))
    return net, (2, 3, 8, 8), ["net_conv0_relu_fwd", "net_tanh0_fwd", "net_dense0_sigmoid_fwd"]


def residual(mx):
    """ResNet's layout: residual blocks made with ``prefix=''`` whose ``hybrid_forward`` calls
    ``F.Activation`` itself (its outputs are counted per stage: ``stage1_activation1``), a block with a
    Parameter of its own, and a plain ``forward`` Block holding children."""
    nn = mx.gluon.nn

    class Basic(mx.gluon.HybridBlock):
        def __init__(self, channels, **kwargs):
            super().__init__(**kwargs)
            self.body = nn.HybridSequential(prefix="")
            self.body.add(nn.Conv2D(channels, 3, padding=1, use_bias=False, in_channels=channels),
                          nn.BatchNorm(in_channels=channels), nn.Activation("relu"),
                          nn.Conv2D(channels, 3, padding=1, use_bias=False, in_channels=channels))

        def hybrid_forward(self, F, x):
            return F.Activation(self.body(x) + x, act_type="relu")

    class Scale(mx.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.alpha = self.params.get("alpha", shape=(1, 4, 1, 1), init="ones")

        def hybrid_forward(self, F, x, alpha):
            return F.broadcast_mul(x, alpha) * 0.5

    class Head(mx.gluon.HybridBlock):  # a 2.0-style forward calling its children
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.pool = nn.GlobalAvgPool2D()
                self.out = nn.Dense(5, in_units=4)

        def forward(self, x):
            return self.out(self.pool(x))

    net = nn.HybridSequential(prefix="res_")
    with net.name_scope():
        net.add(nn.Conv2D(4, 3, padding=1, in_channels=3), Scale())
        stage = nn.HybridSequential(prefix="stage1_")
        with stage.name_scope():
            stage.add(Basic(4, prefix=""), Basic(4, prefix=""))
        net.add(stage, Head())
    return net, (2, 3, 6, 6), ["res_stage1_activation0", "res_stage1_activation1", "res_scale0__mulscalar0"]


def expander(mx):
    """GluonCV's FeatureExpander: inside a detector's name scope, a base network called on a Symbol, its
    internal outputs extended by ``mx.sym`` layers (named in the detector's scope) and wrapped in a
    SymbolBlock that shares the base network's Parameters; the detector runs a head on each output."""
    nn = mx.gluon.nn

    class Expander(mx.gluon.SymbolBlock):
        def __init__(self, base, outputs):
            data = mx.sym.var("data")
            inner = base(data).get_internals()
            feats = [inner[base.prefix + o + "_output"] for o in outputs]
            y = mx.sym.Convolution(feats[-1], num_filter=4, kernel=(1, 1), no_bias=True, name="expand_conv0")
            y = mx.sym.BatchNorm(y, name="expand_bn0")
            feats.append(mx.sym.Activation(y, act_type="relu", name="expand_relu0"))
            super().__init__(feats, data, params=base.collect_params())

    class Detector(mx.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                base = nn.HybridSequential()
                with base.name_scope():
                    base.add(nn.Conv2D(4, 3, padding=1, in_channels=3), nn.Activation("relu"),
                             nn.Conv2D(4, 3, padding=1, in_channels=4), nn.BatchNorm(in_channels=4),
                             nn.Activation("relu"))
                self.features = Expander(base, ["relu0_fwd", "relu1_fwd"])
                self.head = nn.Conv2D(2, 1, in_channels=4)

        def hybrid_forward(self, F, x):
            return [self.head(f) for f in self.features(x)]

    return Detector(), (2, 3, 6, 6), None


def deferred(mx):
    """A 1.x block whose Parameters are declared with unknown shapes and no ``infer_shape``: MXNet
    infers them through the graph of its ``hybrid_forward`` at the first call."""

    class Deferred(mx.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                get = self.params.get
                self.w = get("w", shape=(0, 0), allow_deferred_init=True)
                self.b = get("b", shape=(0,), allow_deferred_init=True)
                self.gamma = get("gamma", shape=(0,), allow_deferred_init=True)
                self.beta = get("beta", shape=(0,), allow_deferred_init=True)
                self.running_mean = get("running_mean", shape=(0,), allow_deferred_init=True, grad_req="null")
                self.running_var = get("running_var", shape=(0,), allow_deferred_init=True, grad_req="null")

        def hybrid_forward(self, F, x, w, b, gamma, beta, running_mean, running_var):
            y = F.FullyConnected(x, w, b, num_hidden=7)
            return F.BatchNorm(y, gamma, beta, running_mean, running_var)

    return Deferred(prefix="d_"), (3, 5), None


NETS = {"layers": layers, "residual": residual, "expander": expander, "deferred": deferred}
