"""Reference files for symbol JSON import/export, made by real MXNet 1.9.1.

Run from the repository root: ``/tmp/mx/bin/python tools/mxnet_reference/gen_symbol.py``.
Writes into ``tests/reference/symbol/``:

- ``lenet_bn-symbol.json`` / ``lenet_bn-0000.params``: a hybridized LeNet with BatchNorm and Dropout,
  exported by ``HybridBlock.export``; ``lenet_bn.npz``: input, inference output and the gradients of
  ``sum(output)`` w.r.t. every trained parameter (recorded in predict mode).
- ``mix-symbol.json`` / ``mix-0000.params`` / ``mix.npz``: 1.x operators (RNN LSTM/GRU, PReLU, LayerNorm,
  SliceChannel, Reshape codes, scalar ops, dot, ...), one output per operator family.
- ``npmix-symbol.json`` / ``npmix-0000.params`` / ``npmix.npz``: the same idea in NumPy mode
  (``npx.set_np()``: ``_npi_*``, ``_np_*`` names).
- ``resnet18-symbol.json`` / ``resnet18.npz``: model_zoo ``resnet18_v1`` exported; its weights are not
  committed: they are drawn by :func:`seeded_params` (tests/symbol/symbol_helpers.py has the same
  lines), the npz holds the parameter names and shapes, the input and MXNet's output.
- ``--ours``: the graphs this framework exported (``ours_*``, ``layer_*``, written by
  tools/mxnet_reference/export_ours.py) run in MXNet with the seeded weights: ``<name>_mx.npz``.

``--check-ours PREFIX OUT.npz``: load ``PREFIX-symbol.json`` / ``PREFIX-0000.params`` written by this
framework's ``export`` with MXNet's ``SymbolBlock.imports`` and save MXNet's output on the input in OUT.npz.
"""

from __future__ import annotations

import json
import os
import sys

import mxnet as mx
import numpy as np
from mxnet import autograd, gluon, nd
from mxnet.gluon import nn, rnn

OUT = os.path.join("tests", "reference", "symbol")


def seeded_params(names_shapes, seed=0):
    """Deterministic weights for a network: drawn in the order given (sorted names), He-scaled."""
    rs = np.random.RandomState(seed)
    out = {}
    for name, shape in names_shapes:
        shape = tuple(int(s) for s in shape)
        if name.endswith(("running_var", "moving_var")):
            v = rs.uniform(0.5, 1.5, shape)
        elif name.endswith("gamma"):
            v = rs.uniform(0.8, 1.2, shape)
        elif name.endswith(("beta", "bias", "running_mean", "moving_mean")):
            v = rs.normal(0.0, 0.1, shape)
        else:
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
            v = rs.normal(0.0, np.sqrt(2.0 / fan_in), shape)
        out[name] = v.astype(np.float32)
    return out


def _randomize(net, seed, array=nd.array):
    """Weights plus non-trivial BatchNorm statistics, so aux states matter."""
    params = net.collect_params()
    names = sorted(params.keys())
    values = seeded_params([(n, params[n].shape) for n in names], seed)
    for n in names:
        params[n].set_data(array(values[n]))


def lenet_bn():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(6, 5), nn.BatchNorm(), nn.Activation("relu"), nn.MaxPool2D(2),
            nn.Conv2D(16, 3, padding=1, activation="relu"), nn.BatchNorm(momentum=0.8, epsilon=1e-3),
            nn.AvgPool2D(2), nn.Flatten(), nn.Dense(32, activation="relu"), nn.Dropout(0.5),
            nn.Dense(10))
    net.initialize()
    x = nd.array(np.random.RandomState(1).uniform(-1, 1, (4, 1, 28, 28)).astype(np.float32))
    net(x)
    _randomize(net, 3)
    net.hybridize()
    with autograd.record(train_mode=False):
        y = net(x)
    y.backward()
    grads = {"grad:" + n: p.grad().asnumpy() for n, p in net.collect_params().items()
             if p.grad_req != "null"}
    net.export(os.path.join(OUT, "lenet_bn"))
    np.savez(os.path.join(OUT, "lenet_bn.npz"), x=x.asnumpy(), y=y.asnumpy(), **grads)


class Mix(nn.HybridBlock):
    def __init__(self):
        super().__init__()
        self.lstm = rnn.LSTM(8, num_layers=2, layout="NTC", bidirectional=True)
        self.gru = rnn.GRU(4, layout="TNC")
        self.rnn = rnn.RNN(3, activation="relu", layout="TNC")
        self.prelu = nn.PReLU()
        self.ln = nn.LayerNorm()
        self.emb = nn.Embedding(7, 4)

    def hybrid_forward(self, F, x, idx):
        y = self.gru(self.lstm(x))
        y = self.prelu(y)
        y = self.ln(y)
        a, b = F.split(y, 2, axis=2)
        e = self.emb(idx)
        return (F.Reshape(a, shape=(0, -3)), F.Reshape(a, shape=(-4, 1, -1, -2)), F.clip(b, -0.1, 0.1) + 1,
                3 - b, 2 / (b + 5), b ** 2, b / 4, b * 3 - 2, F.transpose(b, axes=(1, 0, 2)),
                F.expand_dims(b, 1), F.mean(b, axis=1, keepdims=True), F.sum(b, axis=(0, 2)), F.identity(b),
                F.Flatten(b), F.log_softmax(b), F.softmax(b, axis=0), F.sigmoid(b), F.tanh(b),
                F.Activation(b, "softrelu"), F.LeakyReLU(b, act_type="elu"), F.LeakyReLU(b, slope=0.3),
                F.broadcast_mul(a, F.sum(b, axis=0, keepdims=True)), a * b, a - b, a + b, a / (b + 3),
                F.maximum(a, b), F.minimum(a, 0.1), F.exp(b), F.sqrt(F.abs(b)), F.relu(b),
                F.dot(a.reshape((-1, 2)), b.reshape((-1, 2)), transpose_b=True),
                F.concat(a, b, e.reshape((4, 3, 2)), dim=0), F.SoftmaxActivation(b.reshape((0, -1))),
                self.rnn(b), F.slice_axis(b, axis=1, begin=1, end=3), F.negative(b))


def mix():
    net = Mix()
    net.initialize()
    rs = np.random.RandomState(2)
    x = nd.array(rs.uniform(-1, 1, (2, 3, 5)).astype(np.float32))
    idx = nd.array(np.array([[0, 6], [3, 9], [1, 2]], np.float32))
    net(x, idx)
    _randomize(net, 4)
    net.hybridize()
    ys = net(x, idx)
    net.export(os.path.join(OUT, "mix"))
    np.savez(os.path.join(OUT, "mix.npz"), x=x.asnumpy(), idx=idx.asnumpy(),
             **{f"y{i}": y.asnumpy() for i, y in enumerate(ys)})


def npmix():
    from mxnet import np as mnp
    from mxnet import npx

    npx.set_np()
    try:
        class N(nn.HybridBlock):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2D(4, 3, padding=1, strides=2, use_bias=False)
                self.bn = nn.BatchNorm()
                self.dense = nn.Dense(6, flatten=False)
                self.emb = nn.Embedding(10, 4)

            def hybrid_forward(self, F, x, i):
                y = F.npx.relu(self.bn(self.conv(x)))
                y = F.npx.pooling(y, kernel=(2, 2), pool_type="avg", global_pool=True)
                y = y.reshape((-1, 4))
                z = self.dense(y) * 2 + 1
                z = F.np.concatenate([z, self.emb(i).sum(axis=1)], axis=1)
                s0, s1 = F.np.split(z, 2, axis=1)
                return (F.npx.softmax(z), F.npx.log_softmax(z, axis=0), F.npx.leaky_relu(z, slope=0.1),
                        s0.reshape(-1), s1 - s0, s1 / (s0 + 3), F.np.tanh(z), F.npx.sigmoid(z), 5 - z,
                        z.transpose(), F.np.expand_dims(z, 0), z.mean(axis=0), F.np.maximum(s0, s1),
                        F.np.exp(-z), z.max(axis=1), F.npx.batch_flatten(F.np.stack([s0, s1])),
                        F.np.sqrt(F.np.abs(z)) ** 2, F.np.clip(z, -1, 1))

        net = N()
        net.initialize()
        rs = np.random.RandomState(5)
        x = mnp.array(rs.uniform(-1, 1, (3, 2, 8, 8)).astype(np.float32))
        i = mnp.array(np.array([[1, 2], [3, 9], [0, 0]], np.float32))
        net(x, i)
        _randomize(net, 6, mnp.array)
        net.hybridize()
        ys = net(x, i)
        net.export(os.path.join(OUT, "npmix"))
        np.savez(os.path.join(OUT, "npmix.npz"), x=x.asnumpy(), idx=i.asnumpy(),
                 **{f"y{k}": y.asnumpy() for k, y in enumerate(ys)})
    finally:
        npx.reset_np()


def resnet18():
    from mxnet.gluon.model_zoo import vision

    net = vision.resnet18_v1()
    net.initialize()
    x = nd.array(np.random.RandomState(7).uniform(-1, 1, (2, 3, 32, 32)).astype(np.float32))
    net(x)
    params = net.collect_params()
    names = sorted(params.keys())
    values = seeded_params([(n, params[n].shape) for n in names], 11)
    for n in names:
        params[n].set_data(nd.array(values[n]))
    net.hybridize()
    y = net(x)
    prefix = os.path.join(OUT, "resnet18")
    net.export(prefix)
    os.remove(prefix + "-0000.params")  # 45 MB: the test redraws it from the seed
    np.savez(os.path.join(OUT, "resnet18.npz"), x=x.asnumpy(), y=y.asnumpy(),
             names=np.array(names), shapes=np.array(json.dumps([list(params[n].shape) for n in names])))


def check_ours(prefix, out, input_names=("data",), inputs_npz=None):
    """MXNet's outputs for a symbol/params pair written by this framework."""
    data = np.load(inputs_npz)
    block = gluon.SymbolBlock.imports(prefix + "-symbol.json", list(input_names), prefix + "-0000.params")
    ys = block(*[nd.array(data[n]) for n in input_names])
    ys = ys if isinstance(ys, (list, tuple)) else [ys]
    np.savez(out, **{f"y{i}": y.asnumpy() for i, y in enumerate(ys)})


def ours():
    """Run the networks this framework exported (tools/mxnet_reference/export_ours.py) in MXNet, with
    the weights redrawn from the seed: ``ours_<name>_mx.npz`` holds MXNet's output."""
    import glob
    import tempfile

    found = glob.glob(os.path.join(OUT, "ours_*.npz")) + glob.glob(os.path.join(OUT, "layer_*.npz"))
    for path in sorted(found):
        if path.endswith("_mx.npz"):
            continue
        name = os.path.basename(path)[:-4]
        d = np.load(path)
        seed = int(d["seed"])
        names = [str(n) for n in d["names"]]
        shapes = json.loads(str(d["shapes"]))
        values = seeded_params([(n.split(":", 1)[1], s) for n, s in zip(names, shapes, strict=True)], seed)
        arrays = {n: nd.array(values[n.split(":", 1)[1]]) for n in names}
        arrays.update({k[len("const:"):]: nd.array(d[k]) for k in d.files if k.startswith("const:")})
        with tempfile.TemporaryDirectory() as tmp:
            params = os.path.join(tmp, "p.params")
            nd.save(params, arrays)
            block = gluon.SymbolBlock.imports(os.path.join(OUT, name + "-symbol.json"), ["data"],
                                              params if arrays else None)
            y = block(nd.array(d["x"]))
        np.savez(os.path.join(OUT, name + "_mx.npz"), y=y.asnumpy())
        print(name, "max |mxnet - ours|", float(np.abs(y.asnumpy() - d["y"]).max()))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--check-ours":
        prefix, out, inputs_npz, *names = sys.argv[2:]
        check_ours(prefix, out, tuple(names) or ("data",), inputs_npz)
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--ours":
        ours()
        return
    os.makedirs(OUT, exist_ok=True)
    mx.random.seed(0)
    np.random.seed(0)
    lenet_bn()
    mix()
    npmix()
    resnet18()


if __name__ == "__main__":
    main()
