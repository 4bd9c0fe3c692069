# ruff: noqa: UP008, B905, I001  (MXNet 1.x code as its users wrote it)
"""MXNet 1.x array methods on the arrays a Block receives and on nd results (MXNet's meanings)."""
import json

import mxnet as mx
import numpy as np
from mxnet import gluon, nd

out = {}


def record(name, arr):
    arr = arr if isinstance(arr, (list, tuple)) else [arr]
    out[name] = [[list(a.shape), a.asnumpy().round(5).tolist()] for a in arr]


class Heads(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super(Heads, self).__init__(**kwargs)
        self.scale = self.params.get('scale', shape=(1,), init=mx.init.One())

    def hybrid_forward(self, F, x, scale):
        y = x.reshape((0, -1, 2))            # 0 copies a dimension
        z = x.reshape((0, -3, -2))           # -3 merges, -2 copies the rest
        w = y.reshape((-4, 1, -1, -2))       # -4 splits
        e = x.expand_dims(1)
        t = y.transpose(axes=(0, 2, 1))
        f = x.flatten()
        s = x.slice_axis(axis=1, begin=1, end=3)
        parts = x.split(num_outputs=2, axis=1)
        first = parts[0].reshape((0, -1))
        top_v, top_i = f.topk(k=2, ret_typ='both')
        a = f.argmax(axis=1)
        return [y, z, w, e, F.broadcast_mul(t, scale), f, s, first, top_v, top_i, a, f.sum(), f.mean(axis=1)]


x = nd.array(np.arange(24, dtype='float32').reshape(2, 4, 3) / 7.0 - 1.5)
net = Heads()
net.initialize()
names = ['reshape0', 'reshape_m3', 'reshape_m4', 'expand_dims', 'transpose_axes', 'flatten', 'slice_axis',
         'split', 'topk_v', 'topk_i', 'argmax', 'sum', 'mean']
for n, v in zip(names, net(x)):
    record(n, v)
net.hybridize()
for n, v in zip(names, net(x)):
    record('hybrid_' + n, v)


class Plain(gluon.Block):
    def forward(self, x, shape=(3, 8)):
        h = x.reshape(shape).round()
        k = x.clip(a_min=-1.0, a_max=0.5)
        return h.detach(), k.reshape(0, -1).sum(axis=1)  # varargs shape (an NDArray's)


p = Plain()
h, k = p(x * 2.5)
record('forward_round', h)
record('forward_clip_sum', k)

m = nd.array([[0.5, 1.5, 2.5], [-0.5, -1.5, -2.5]])
record('module_round', m.round())
record('module_sum', m.sum())
record('module_take', m.take(nd.array([0, 5])))
print(json.dumps(out))
