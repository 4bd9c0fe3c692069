"""Reference data for gluon.model_zoo.vision, made by real MXNet 1.9.1.

Run: /tmp/mx/bin/python tools/mxnet_reference/gen_zoo.py   (writes tests/reference/zoo/)

- ``names.json.gz``: for every model of ``get_model``, its parameters' structural names and shapes as
  MXNet declares them at construction (0 = inferred from the first input), classes=1000.
- ``<model>.npz`` for one member of each family, computed in float64 by MXNet, with MXNet's float32
  error on each array (``err:<key>``, elementwise |float32 - float64|): with the seeded weights of
  ``zoo_weights.py`` (seed 7, classes=10), MXNet's inference output, and one training-mode
  forward+backward of ``sum(out * R)``: the output, the input's gradient, a few parameters' gradients
  (each as its first 2048 values, sum and sum of squares) and the BatchNorm running statistics after
  backward. Dropout layers are set to rate 0 for the training pass (random
  masks cannot agree across frameworks). The inferred shapes of all parameters are stored too. The input
  x and R are ``RandomState(0).uniform(-1, 1, ...)`` (x first), rebuilt by the test.
"""

import gzip
import json
import os
import sys

import mxnet as mx
import numpy as onp
from mxnet.gluon import nn
from mxnet.gluon.model_zoo import vision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from zoo_weights import checksum, seeded_params  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "reference", "zoo")
SEED = 7
# model -> input (N, C, H, W): the smallest the head allows
CASES = {
    "resnet18_v1": (4, 3, 64, 64),
    "resnet18_v2": (4, 3, 64, 64),
    "resnet50_v1": (4, 3, 64, 64),
    "vgg11_bn": (4, 3, 64, 64),
    "alexnet": (2, 3, 64, 64),
    "squeezenet1.1": (2, 3, 224, 224),
    "densenet_small": (2, 3, 224, 224),
    "inceptionv3": (1, 3, 299, 299),
    "mobilenet0.25": (4, 3, 64, 64),
    "mobilenetv2_0.25": (4, 3, 64, 64),
}
MODELS = [
    "resnet18_v1",
    "resnet34_v1",
    "resnet50_v1",
    "resnet101_v1",
    "resnet152_v1",
    "resnet18_v2",
    "resnet34_v2",
    "resnet50_v2",
    "resnet101_v2",
    "resnet152_v2",
    "vgg11",
    "vgg13",
    "vgg16",
    "vgg19",
    "vgg11_bn",
    "vgg13_bn",
    "vgg16_bn",
    "vgg19_bn",
    "alexnet",
    "densenet121",
    "densenet161",
    "densenet169",
    "densenet201",
    "squeezenet1.0",
    "squeezenet1.1",
    "inceptionv3",
    "mobilenet1.0",
    "mobilenet0.75",
    "mobilenet0.5",
    "mobilenet0.25",
    "mobilenetv2_1.0",
    "mobilenetv2_0.75",
    "mobilenetv2_0.5",
    "mobilenetv2_0.25",
]


def declared_names():
    table = {}
    for name in MODELS:
        net = vision.get_model(name)
        table[name] = [[k, list(v.shape)] for k, v in net._collect_params_with_prefix().items()]
    with gzip.open(os.path.join(OUT, "names.json.gz"), "wt") as f:
        json.dump({"mxnet": mx.__version__, "models": table}, f, separators=(",", ":"))


def _build(name):
    """A zoo model with 10 classes; ``densenet_small`` is DenseNet's class in a small configuration
    (DenseNet's code paths at a fraction of densenet121's compile time; densenet121's names and shapes
    are checked from names.json.gz)."""
    if name == "densenet_small":
        return vision.DenseNet(16, 8, [2, 2, 2, 2], bn_size=2, classes=10)
    return vision.get_model(name, classes=10)


def _sample(a, size=2048):
    """A bounded fingerprint of an array: its first ``size`` values (flattened), sum and sum of squares."""
    flat = a.reshape(-1).astype(onp.float64)
    return onp.concatenate([flat[:size], [flat.sum(), (flat * flat).sum()]]).astype(onp.float32)


def _bn_names(names):
    return [n for n in names if n.endswith("running_mean")]


def _run(name, shape, dtype):
    """MXNet's numbers for model ``name`` with the seeded weights, computed in ``dtype``."""
    net = _build(name)
    net.initialize()
    rs = onp.random.RandomState(0)
    x = rs.uniform(-1, 1, shape).astype(onp.float32)
    net(mx.nd.array(x))  # infer shapes
    params = net._collect_params_with_prefix()
    shapes = {k: v.shape for k, v in params.items()}
    values = seeded_params(shapes, SEED)
    net.cast(dtype)
    for k, p in params.items():
        p.set_data(mx.nd.array(values[k], dtype=dtype))
    eval_out = net(mx.nd.array(x, dtype=dtype)).asnumpy()
    # one training step's forward+backward, Dropout off
    net.apply(lambda b: setattr(b, "_rate", 0.0) if isinstance(b, nn.Dropout) else None)
    r = rs.uniform(-1, 1, eval_out.shape).astype(onp.float32)
    xin = mx.nd.array(x, dtype=dtype)
    xin.attach_grad()
    with mx.autograd.record(train_mode=True):
        out = net(xin)
        loss = (out * mx.nd.array(r, dtype=dtype)).sum()
    loss.backward()
    names = list(params)
    grad_names = [names[0], names[-1], names[len(names) // 2], names[-2]]
    grad_names = [n for n in grad_names if params[n].grad_req != "null"]
    bns = _bn_names(names)
    stat_names = []
    if bns:
        for b in (bns[0], bns[-1]):
            stem = b[: -len("running_mean")]
            stat_names += [stem + "running_mean", stem + "running_var"]
    arrays = {"eval_out": eval_out, "train_out": out.asnumpy(), "grad_x": _sample(xin.grad.asnumpy())}
    for n in grad_names:
        arrays["grad:" + n] = _sample(params[n].grad().asnumpy())
    for n in stat_names:
        arrays["state:" + n] = params[n].data().asnumpy()
    meta = {
        "checksum": onp.float64(checksum(values)),
        "seed": onp.int64(SEED),
        "shape_names": onp.array(names),
        "shape_dims": onp.array(json.dumps([list(shapes[n]) for n in names])),
    }
    return arrays, meta


def numbers(name, shape):
    """float64 values as the reference, and MXNet's own float32 error on each (``err:<key>`` =
    |float32 - float64| elementwise): random-weight networks are ill-conditioned in float32."""
    single, meta = _run(name, shape, "float32")
    double, _ = _run(name, shape, "float64")
    arrays = dict(meta)
    for k, v in double.items():
        arrays[k] = v.astype(onp.float64)
        arrays["err:" + k] = onp.abs(single[k].astype(onp.float64) - v).astype(onp.float32)
    onp.savez_compressed(os.path.join(OUT, f"{name}.npz"), **arrays)
    print(name, {k: float(v.max()) for k, v in arrays.items() if k.startswith("err:")}, flush=True)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    only = sys.argv[1:]
    if not only or "names" in only:
        declared_names()
    for model, shape in CASES.items():
        if not only or model in only:
            numbers(model, shape)
