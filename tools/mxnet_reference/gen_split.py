"""Reference data for ``gluon.utils.split_and_load`` onto one device named several times (the seed's
``[gpu, gpu_1]`` on a machine with no GPU), made by real MXNet 1.9.1.

Run: /tmp/mx/bin/python tools/mxnet_reference/gen_split.py   (writes tests/reference/split/)

``split.npz``: the input ``x`` (shape (7, 3, 2)) and, for each case ``<n>:<axis>:<even>``, the slices
``<case>:<i>`` that ``split_and_load(x, [mx.cpu(0)] * n, batch_axis=axis, even_split=even)`` returns;
a case MXNet refuses (a batch that does not split evenly) is listed in ``refused`` with MXNet's message.
"""

import os

import mxnet as mx
import numpy as onp
from mxnet import gluon, nd

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "reference", "split")
CASES = [(2, 0, False), (3, 0, False), (2, 1, True), (3, 1, True), (2, 2, True), (2, 0, True), (7, 0, True)]


def main():
    os.makedirs(OUT, exist_ok=True)
    x_host = onp.arange(42, dtype=onp.float32).reshape(7, 3, 2)
    out = {"x": x_host}
    refused = []
    for n, axis, even in CASES:
        case = f"{n}:{axis}:{int(even)}"
        try:
            parts = gluon.utils.split_and_load(nd.array(x_host), [mx.cpu(0)] * n, batch_axis=axis,
                                               even_split=even)
        except ValueError as err:
            refused.append(f"{case} {str(err).splitlines()[0]}")
            continue
        for i, p in enumerate(parts):
            out[f"{case}:{i}"] = p.asnumpy()
    out["refused"] = onp.array(refused)
    onp.savez(os.path.join(OUT, "split.npz"), **out)
    print("wrote", OUT, "with MXNet", mx.__version__)


if __name__ == "__main__":
    main()
