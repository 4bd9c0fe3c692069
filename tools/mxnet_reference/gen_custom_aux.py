"""Reference files for custom operators with auxiliary states, made by real MXNet 1.9.1.

Run from the repository root: ``/tmp/mx/bin/python tools/mxnet_reference/gen_custom_aux.py``, then
``python tools/mxnet_reference/manifest.py tests/reference/custom_aux --generator
tools/mxnet_reference/gen_custom_aux.py --mxnet-version 1.9.1``. With ``tests/custom_aux_ops.py``'s
operator and Block it writes ``tests/reference/custom_aux/custom_aux.npz`` and ``symbol.json``:

- ``symbol.json``: the names MXNet gives ``mx.sym.Custom(data, op_type='acc_aux', units=3, name='c')``'s
  arguments, auxiliary states and outputs, and the shapes it infers from ``data`` (2, 4);
- for the Block (``prefix='acc_'``, Constant 0.5 initialisation), plain and hybridized
  (``<mode>`` ``plain``/``hybrid``): ``<mode>_predict``: the first output outside ``record()``;
  ``<mode>_total1``/``last1``/``wgrad1``: the auxiliary states and the weight's gradient after
  ``record()``, a forward and ``backward()`` of the outputs' sum; ``<mode>_total2``/``wgrad2`` after a
  second such step; ``<mode>_shapes``: the inferred Parameter shapes (weight, total, last, flattened).
"""

from __future__ import annotations

import json
import os
import sys

import mxnet as mx
import numpy as np

sys.path.insert(0, "tests")
from custom_aux_ops import define  # noqa: E402

OUT = os.path.join("tests", "reference", "custom_aux")


def main():
    os.makedirs(OUT, exist_ok=True)
    block_cls = define(mx)
    s = mx.sym.Custom(mx.sym.var("data"), op_type="acc_aux", units=3, name="c")
    arg, out, aux = s.infer_shape(data=(2, 4))
    with open(os.path.join(OUT, "symbol.json"), "w") as f:
        json.dump({"arguments": s.list_arguments(), "aux": s.list_auxiliary_states(),
                   "outputs": s.list_outputs(), "arg_shapes": arg, "out_shapes": out, "aux_shapes": aux}, f,
                  indent=1)
    x = mx.nd.array(np.arange(8, dtype="float32").reshape(2, 4) / 10.0)
    arrays = {"x": x.asnumpy()}
    for mode in ("plain", "hybrid"):
        b = block_cls(prefix="acc_")
        b.initialize(mx.init.Constant(0.5))
        if mode == "hybrid":
            b.hybridize()
        arrays[f"{mode}_predict"] = b(x)[0].asnumpy()
        for step in (1, 2):
            with mx.autograd.record():
                o = b(x)
                loss = (o[0] + o[1]).sum()
            loss.backward()
            arrays[f"{mode}_total{step}"] = b.total.data().asnumpy()
            arrays[f"{mode}_last{step}"] = b.last.data().asnumpy()
            arrays[f"{mode}_wgrad{step}"] = b.weight.grad().asnumpy()
        arrays[f"{mode}_shapes"] = np.array([*b.weight.shape, *b.total.shape, *b.last.shape])
    np.savez(os.path.join(OUT, "custom_aux.npz"), **arrays)


if __name__ == "__main__":
    main()
