"""MXNet 1.9.1's behaviour for the constructs the d2l corpus runner found missing (area ``d2l``).

Run in MXNet's side venv from the repository root; writes ``tests/reference/d2l/behaviour.json``:

    /tmp/mx/bin/python tools/mxnet_reference/gen_d2l.py
    python tools/mxnet_reference/manifest.py tests/reference/d2l \
        --generator tools/mxnet_reference/gen_d2l.py --mxnet-version 1.9.1

Each entry is what an expression gave (``value``: a nested list, a number, a string) or the error it
raised (``error``: the exception's class name). Only facts, never MXNet's code or messages.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import mxnet as mx
from mxnet import autograd, gluon, init, np, npx

npx.set_np()
OUT = Path(__file__).resolve().parents[2] / "tests" / "reference" / "d2l"


def plain(v):
    if hasattr(v, "asnumpy"):
        a = v.asnumpy()
        return {"array": a.tolist(), "dtype": str(a.dtype), "shape": list(a.shape)}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, (bool, int, float, str)) or v is None:
        return v
    return repr(v)


def fact(f):
    try:
        return {"value": plain(f())}
    except Exception as e:  # the class of error is the fact
        return {"error": type(e).__name__}


def device_facts() -> dict:
    g = npx.gpu(0)
    return {
        "repr": fact(lambda: [repr(g), str(g), repr(npx.gpu(3)), repr(mx.Context("gpu", 1))]),
        "type_id": fact(lambda: [g.device_type, g.device_id, npx.gpu(2).device_id]),
        "equal": fact(lambda: [g == npx.gpu(0), g == npx.gpu(1), g == npx.cpu(0)]),
        "is_context": fact(lambda: isinstance(g, mx.Context)),
        "num_gpus": fact(lambda: npx.num_gpus()),
        "np_ones": fact(lambda: np.ones(2, ctx=g)),
        "nd_ones": fact(lambda: mx.nd.ones(2, ctx=g)),
        "as_in_ctx": fact(lambda: np.ones(2).as_in_ctx(g)),
        "copyto": fact(lambda: np.ones(2).copyto(g)),
        "initialize": fact(lambda: gluon.nn.Dense(2, in_units=2).initialize(ctx=g)),
    }


def indexing_facts() -> dict:
    x = np.arange(10)
    y_hat = np.array([[0.3, 0.6, 0.1], [0.2, 0.3, 0.5]])

    def set_float():
        z = np.zeros(5)
        z[np.array([1.0, 3.9])] = 7
        return z

    def set_range():
        z = np.zeros((2, 3))
        z[range(2), np.array([0.0, 2.0])] = 7
        return z

    def recorded():
        w = np.arange(6).reshape(2, 3)
        w.attach_grad()
        with autograd.record():
            loss = w[range(2), np.array([2.0, 0.0])].sum() * 2
        loss.backward()
        return w.grad

    def set_leading_ones():
        z = np.zeros(5)
        z[2] = np.ones((1, 1)) * 3
        w = np.zeros((2, 3))
        w[1, 1:3] = np.ones((1, 1, 2)) * 4
        return [z, w]

    return {
        "set_leading_ones": fact(set_leading_ones),
        "range_and_float": fact(lambda: y_hat[range(2), np.array([0.0, 2.0])]),
        "range": fact(lambda: x[range(3)]),
        "float_array": fact(lambda: x[np.array([1.0, 2.7, -1.5])]),
        "float_list": fact(lambda: x[[1.0, 2.7]]),
        "int_list": fact(lambda: x[[4, 1]]),
        "float_rows": fact(lambda: y_hat[np.array([1.0, 0.0])]),
        "float_pair": fact(lambda: y_hat[np.array([1.0]), np.array([2.0])]),
        "float_0d": fact(lambda: x[np.array(2.7)]),
        "set_float": fact(set_float),
        "set_range": fact(set_range),
        "recorded_grad": fact(recorded),
    }


def initializer_facts() -> dict:
    class Masked(init.Initializer):
        def _init_weight(self, name, data):
            data[:] = np.random.uniform(-10, 10, data.shape)
            data *= np.abs(data) >= 5

    class Exact(init.Initializer):
        def _init_weight(self, name, data):
            data[:] = np.arange(data.size).reshape(data.shape)
            data *= data >= 3
            data += 1
            data[0, 0] = -np.abs(data).max()
            data /= 2

    def weights(initializer):
        net = gluon.nn.Dense(4, in_units=3)
        net.initialize(initializer)
        return net.weight.data()

    def masked_property():
        w = weights(Masked()).asnumpy()
        return [bool(((w == 0) | (abs(w) >= 5)).all()), bool((abs(w) <= 10).all()), bool((w != 0).any())]

    return {"masked_property": fact(masked_property), "exact": fact(lambda: weights(Exact()))}


class _NpF(gluon.nn.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.hidden = gluon.nn.Dense(4, in_units=3, weight_initializer=init.Constant(0.1))
        self.output = gluon.nn.Dense(2, in_units=4, weight_initializer=init.Constant(-0.2))

    def hybrid_forward(self, F, x):
        h = F.npx.relu(self.hidden(x) - 0.5)
        return self.output(h) + F.np.sum(x, axis=1, keepdims=True)


def hybrid_f_facts() -> dict:
    def run(hybridize):
        net = _NpF()
        net.initialize()
        if hybridize:
            net.hybridize()
        return net(np.arange(6).reshape(2, 3))

    return {"eager": fact(lambda: run(False)), "hybridized": fact(lambda: run(True))}


def linalg_facts() -> dict:
    def control_flow():
        a = np.array([0.3, -0.2])
        a.attach_grad()
        with autograd.record():
            b = a * 2
            while np.linalg.norm(b) < 1000:
                b = b * 2
            d = b if b.sum() > 0 else 100 * b
        d.backward()
        return [d, a.grad]

    def norm_grad():
        x = np.array([[3.0, 4.0], [1.0, 2.0]])
        x.attach_grad()
        with autograd.record():
            n = np.linalg.norm(x) + np.linalg.norm(x[0])
        n.backward()
        return [n, x.grad]

    return {"control_flow": fact(control_flow), "norm_grad": fact(norm_grad)}


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    facts = {"mxnet": mx.__version__, "device": device_facts(), "indexing": indexing_facts(),
             "initializer": initializer_facts(), "hybrid_F": hybrid_f_facts(),
             "linalg": linalg_facts()}
    (OUT / "behaviour.json").write_text(json.dumps(facts, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT / 'behaviour.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
