"""A Gluon 1.x network (name scopes, hybrid_forward with explicit Parameters, F.FullyConnected,
F.Activation) made by real MXNet 1.9.1 (run in the MXNet side venv):

    /tmp/mx/bin/python tools/mxnet_reference/gen_gluon_1x.py

Writes to ``tests/reference/gluon_1x/``: ``net.params`` (``save_parameters``: structural names),
``net_prefixed.params`` (``collect_params().save``: 1.x prefixed names such as ``net0_dense0_weight``)
and ``io.npz`` (input, output, parameter names, the gradient of ``sum(out ** 2)`` for each parameter).
``tests/gluon/test_legacy_blocks.py`` defines the same network for framework and checks them; with the
side venv present it also imports ``Net`` from here in MXNet to load a file saved by framework.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("MXNET_STORAGE_FALLBACK_LOG_VERBOSE", "0")

import mxnet as mx  # noqa: E402
import numpy as np  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "tests" / "reference" / "gluon_1x"


class Net(mx.gluon.HybridBlock):
    """The 1.x network: explicit Parameters through self.params.get, a Dense child, hybrid_forward."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.fc1_weight = self.params.get("fc1_weight", shape=(8, 4))
            self.fc1_bias = self.params.get("fc1_bias", shape=(8,), init="zeros")
            self.out = mx.gluon.nn.Dense(3, in_units=8)

    def hybrid_forward(self, F, x, fc1_weight, fc1_bias):
        h = F.Activation(F.FullyConnected(x, fc1_weight, fc1_bias, num_hidden=8), act_type="tanh")
        return self.out(h)


def build_and_fill():
    net = Net(prefix="net0_")
    net.initialize()
    rs = np.random.RandomState(5)
    for _, p in sorted(net.collect_params().items()):
        p.set_data(mx.nd.array(rs.uniform(-0.5, 0.5, p.shape)))
    return net


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    net = build_and_fill()
    x = np.random.RandomState(6).uniform(-1, 1, (5, 4)).astype(np.float32)
    xs = mx.nd.array(x)
    with mx.autograd.record():
        y = net(xs)
        loss = (y ** 2).sum()
    loss.backward()
    out = {"x": x, "y": y.asnumpy(), "prefixed_names": np.array(sorted(net.collect_params().keys()))}
    for name, p in net.collect_params().items():
        out[f"grad:{name}"] = p.grad().asnumpy()
    net.save_parameters(str(OUT / "net.params"))
    net.collect_params().save(str(OUT / "net_prefixed.params"))
    out["structural_names"] = np.array(sorted(mx.nd.load(str(OUT / "net.params")).keys()))
    np.savez(OUT / "io.npz", **out)
    print(f"-> {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
