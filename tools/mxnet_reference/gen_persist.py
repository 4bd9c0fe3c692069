"""Reference files for load_parameters' allow_missing / ignore_extra (run in the MXNet 1.9.1 side venv).

For a single layer, a nested block and a HybridSequential, writes a file that lacks one parameter
and one that has an extra one, loads each with MXNet under every (allow_missing, ignore_extra)
setting, and records the outcome (loaded values, or the error) in ``outcomes.json``.

    /tmp/mx/bin/python tools/mxnet_reference/gen_persist.py
"""

from __future__ import annotations

import json
import os

import mxnet as mx
import numpy as np
from mxnet import gluon, nd
from mxnet.gluon import nn

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "reference", "persist")


class Nested(gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.body = nn.HybridSequential()
        self.body.add(nn.Dense(2, in_units=3), nn.Dense(1, in_units=2))
        self.head = nn.Dense(1, in_units=1)

    def hybrid_forward(self, F, x):
        return self.head(self.body(x))


def single():
    return nn.Dense(2, in_units=3)


def sequential():
    net = nn.HybridSequential()
    net.add(nn.Dense(2, in_units=3), nn.Dense(1, in_units=2))
    return net


SHAPES = {
    "single": {"weight": (2, 3), "bias": (2,)},
    "nested": {"body.0.weight": (2, 3), "body.0.bias": (2,), "body.1.weight": (1, 2), "body.1.bias": (1,),
               "head.weight": (1, 1), "head.bias": (1,)},
    "sequential": {"0.weight": (2, 3), "0.bias": (2,), "1.weight": (1, 2), "1.bias": (1,)},
}
MAKERS = {"single": single, "nested": Nested, "sequential": sequential}
DROP = {"single": "bias", "nested": "body.1.bias", "sequential": "1.weight"}
EXTRA = {"single": "foo", "nested": "body.2.weight", "sequential": "2.weight"}


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    outcomes = {}
    for shape_name, shapes in SHAPES.items():
        full = {k: nd.array(np.arange(int(np.prod(s)), dtype=np.float32).reshape(s) + 1 + i)
                for i, (k, s) in enumerate(shapes.items())}
        kept = {k: v for k, v in full.items() if k != DROP[shape_name]}
        extra = {EXTRA[shape_name]: nd.ones((1,))}
        files = {"missing": kept, "extra": {**full, **extra}, "both": {**kept, **extra}}
        for kind, arrays in files.items():
            fname = f"{shape_name}_{kind}.params"
            nd.save(os.path.join(OUT, fname), arrays)
            for allow_missing in (False, True):
                for ignore_extra in (False, True):
                    net = MAKERS[shape_name]()
                    net.initialize(mx.init.Constant(-7.0))
                    key = f"{fname}:{int(allow_missing)}{int(ignore_extra)}"
                    try:
                        net.load_parameters(os.path.join(OUT, fname), allow_missing=allow_missing,
                                            ignore_extra=ignore_extra)
                    except (AssertionError, ValueError) as err:
                        outcomes[key] = {"error": type(err).__name__, "message": str(err).splitlines()[0]}
                        continue
                    params = net.collect_params()
                    keys = list(params.keys())  # MXNet's prefixed names, in the order of SHAPES
                    values = {name: params[keys[j]].data().asnumpy().ravel().tolist()
                              for j, name in enumerate(shapes)}
                    outcomes[key] = {"values": values}
    with open(os.path.join(OUT, "outcomes.json"), "w") as f:
        json.dump({"mxnet": mx.__version__, "outcomes": outcomes}, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
