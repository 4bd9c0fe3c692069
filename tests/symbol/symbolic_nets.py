"""Networks written with the symbolic API, shared by tools/mxnet_reference/gen_symbolic.py (run with MXNet
1.9.1 as ``mx``) and the tests (run with ``import framework as mx``): the same code builds both graphs.

Each builder takes the ``mx`` module and returns ``(symbol, input shapes, label names)``.
"""

from __future__ import annotations

import numpy as onp

BATCH = 4


def mlp(mx):
    """MXNet's example MLP (example/image-classification/symbols/mlp.py's layout), automatic names."""
    data = mx.sym.Variable("data")
    data = mx.sym.Flatten(data=data)
    fc1 = mx.sym.FullyConnected(data=data, name="fc1", num_hidden=32)
    act1 = mx.sym.Activation(data=fc1, name="relu1", act_type="relu")
    fc2 = mx.sym.FullyConnected(data=act1, name="fc2", num_hidden=16)
    act2 = mx.sym.Activation(data=fc2, name="relu2", act_type="relu")
    fc3 = mx.sym.FullyConnected(data=act2, name="fc3", num_hidden=10)
    return mx.sym.SoftmaxOutput(data=fc3, name="softmax"), {"data": (BATCH, 1, 28, 28)}, ["softmax_label"]


def lenet_bn(mx, channels=(6, 16), hidden=(120, 84)):
    """A LeNet with BatchNorm after each convolution (automatic names: convolution0, batchnorm0, ...)."""
    data = mx.sym.var("data")
    x = data
    for c in channels:
        x = mx.sym.Convolution(x, kernel=(5, 5), num_filter=c)
        x = mx.sym.BatchNorm(x, fix_gamma=False)
        x = mx.sym.Activation(x, act_type="tanh")
        x = mx.sym.Pooling(x, pool_type="max", kernel=(2, 2), stride=(2, 2))
    x = mx.sym.Flatten(x)
    for h in hidden:
        x = mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=h), act_type="tanh")
    x = mx.sym.FullyConnected(x, num_hidden=10)
    return mx.sym.SoftmaxOutput(x, name="softmax"), {"data": (BATCH, 1, 28, 28)}, ["softmax_label"]


def lenet_module(mx):
    """The LeNet of the Module tests: BatchNorm, ReLU, SGD-trainable in a few hundred samples."""
    data = mx.sym.var("data")
    x = data
    for c in (8, 16):
        x = mx.sym.Convolution(x, kernel=(5, 5), num_filter=c)
        x = mx.sym.BatchNorm(x, fix_gamma=False)
        x = mx.sym.Activation(x, act_type="relu")
        x = mx.sym.Pooling(x, pool_type="max", kernel=(2, 2), stride=(2, 2))
    x = mx.sym.FullyConnected(mx.sym.Flatten(x), num_hidden=64)
    x = mx.sym.FullyConnected(mx.sym.Activation(x, act_type="relu"), num_hidden=10)
    return mx.sym.SoftmaxOutput(x, name="softmax"), {"data": (64, 1, 28, 28)}, ["softmax_label"]


T, N, I, H, V = 5, BATCH, 6, 8, 7  # steps, batch, input size, hidden size, classes


def lstm_fused(mx):
    """One fused LSTM layer (``mx.sym.RNN``) over (T, N, I), a classifier on every step."""
    data = mx.sym.var("data")
    rnn = mx.sym.RNN(data, state_size=H, num_layers=1, mode="lstm", name="lstm")
    flat = mx.sym.Reshape(rnn, shape=(-1, H))
    fc = mx.sym.FullyConnected(flat, num_hidden=V, name="pred")
    return mx.sym.SoftmaxOutput(fc, name="softmax"), {"data": (T, N, I)}, ["softmax_label"]


def lstm_unrolled(mx):
    """An LSTM unrolled by hand over (N, T, I): one set of weights shared by every step."""
    data = mx.sym.var("data")
    i2h_w, i2h_b = mx.sym.var("i2h_weight"), mx.sym.var("i2h_bias")
    h2h_w, h2h_b = mx.sym.var("h2h_weight"), mx.sym.var("h2h_bias")
    h, c = mx.sym.var("init_h"), mx.sym.var("init_c")
    steps = mx.sym.SliceChannel(data, num_outputs=T, axis=1, squeeze_axis=True)
    outs = []
    for t in range(T):
        i2h = mx.sym.FullyConnected(steps[t], weight=i2h_w, bias=i2h_b, num_hidden=4 * H, name=f"t{t}_i2h")
        h2h = mx.sym.FullyConnected(h, weight=h2h_w, bias=h2h_b, num_hidden=4 * H, name=f"t{t}_h2h")
        gates = mx.sym.SliceChannel(i2h + h2h, num_outputs=4, name=f"t{t}_slice")
        in_gate = mx.sym.Activation(gates[0], act_type="sigmoid")
        forget = mx.sym.Activation(gates[1], act_type="sigmoid")
        transform = mx.sym.Activation(gates[2], act_type="tanh")
        out_gate = mx.sym.Activation(gates[3], act_type="sigmoid")
        c = forget * c + in_gate * transform
        h = out_gate * mx.sym.Activation(c, act_type="tanh")
        outs.append(mx.sym.expand_dims(h, axis=1))
    seq = mx.sym.Concat(*outs, dim=1)
    fc = mx.sym.FullyConnected(mx.sym.Reshape(seq, shape=(-1, H)), num_hidden=V, name="pred")
    shapes = {"data": (N, T, I), "init_h": (N, H), "init_c": (N, H)}
    return mx.sym.SoftmaxOutput(fc, name="softmax"), shapes, ["softmax_label"]


def arith(mx):
    """Arithmetic, comparisons, scalars, indexing, reductions and every loss head in one group."""
    a, b = mx.sym.var("a"), mx.sym.var("b")
    # one label per head, and no loss head right on a variable: MXNet 1.9.1 then sums its gradients wrong
    # (garbage in a shared label's, an overwritten sum for a variable a regression head reads directly)
    x = (a + b) * 2.0 - b / (a * a + 1.0)
    y = mx.sym.maximum(a, b) + mx.sym.minimum(a, 0.5) + (a > b) + (b <= 0.25) - (a != 1.0)
    z = mx.sym.sum(mx.sym.exp(-abs(a)) ** 2, axis=1) + mx.sym.mean(3.0 - a, axis=1)
    w = mx.sym.slice_axis(mx.sym.transpose(b), axis=0, begin=1, end=3)
    v = mx.sym.BlockGrad(a) * b + mx.sym.stop_gradient(b * 3) + 1 / (b * b + 1)
    heads = [x, y, z, w, v,
             mx.sym.LinearRegressionOutput(a * b, mx.sym.var("lab1"), grad_scale=2.0, name="lin"),
             mx.sym.LogisticRegressionOutput(a - b, mx.sym.var("lab2"), name="logistic"),
             mx.sym.MAERegressionOutput(a * 1.5, mx.sym.var("lab3"), name="mae"),
             mx.sym.MakeLoss(mx.sym.square(a - b), grad_scale=0.5, normalization="batch", name="mk"),
             mx.sym.SoftmaxOutput(a * 3, mx.sym.var("cls"), use_ignore=True, ignore_label=1,
                                  normalization="valid", name="sm"),
             mx.sym.SoftmaxOutput(mx.sym.reshape(b, shape=(BATCH, 3, 2)), mx.sym.var("cls2"),
                                  multi_output=True, grad_scale=0.5, name="sm2")]
    shapes = {"a": (BATCH, 6), "b": (BATCH, 6), "cls": (BATCH,), "cls2": (BATCH, 2),
              **{f"lab{i}": (BATCH, 6) for i in (1, 2, 3)}}
    return mx.sym.Group(heads), shapes, ["lab1", "lab2", "lab3", "cls", "cls2"]


NETS = {"mlp": mlp, "lenet_bn": lenet_bn, "lstm_fused": lstm_fused, "lstm_unrolled": lstm_unrolled,
        "arith": arith}


def inputs_for(name, shapes, labels, seed=0):
    """Deterministic inputs: data in [-1, 1), class labels as floats (MXNet's convention)."""
    rs = onp.random.RandomState(100 + seed)
    out = {}
    for k, shape in shapes.items():
        if k in labels:
            continue
        out[k] = rs.uniform(-1, 1, shape).astype(onp.float32)
        if k.startswith("init_"):
            out[k] = onp.zeros(shape, onp.float32)
    return out


def labels_for(name, label_shapes, seed=0):
    rs = onp.random.RandomState(200 + seed)
    out = {}
    for k, shape in label_shapes.items():
        if k.startswith("lab"):
            out[k] = rs.uniform(0, 1, shape).astype(onp.float32)
        elif k == "cls2":
            out[k] = rs.randint(0, 3, shape).astype(onp.float32)
        elif k == "cls":
            out[k] = rs.randint(0, 6, shape).astype(onp.float32)
        else:
            out[k] = rs.randint(0, V if name.startswith("lstm") else 10, shape).astype(onp.float32)
    return out
