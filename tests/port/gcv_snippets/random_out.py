# ruff: noqa: UP008, B905, I001  (MXNet 1.x code as its users wrote it)
"""An initializer that fills the array it is given: nd.random.normal(loc, scale, shape, out=arr)."""
import json

import mxnet as mx
from mxnet import gluon, init


@mx.init.register
class SmallNormal(init.Initializer):
    def _init_weight(self, _, arr):
        mx.nd.random.normal(0, 0.01, arr.shape, out=arr)


mx.random.seed(1)
net = gluon.nn.Dense(4, in_units=5000)
net.initialize(SmallNormal())
w = net.weight.data().asnumpy()
print(json.dumps({'shape': list(w.shape), 'std_ok': bool(0.009 < w.std() < 0.011),
                  'mean_ok': bool(abs(w.mean()) < 0.001), 'bias': net.bias.data().asnumpy().tolist()}))
