"""Reference files for Gluon Blocks called on Symbols, made by real MXNet 1.9.1.

Run from the repository root: ``/tmp/mx/bin/python tools/mxnet_reference/gen_symbolic_call.py``, then
``python tools/mxnet_reference/manifest.py tests/reference/symbolic_call --generator
tools/mxnet_reference/gen_symbolic_call.py --mxnet-version 1.9.1``. For each network of
``tests/gluon/symbolic_call_nets.py`` it writes into ``tests/reference/symbolic_call/``:

- ``<net>-symbol.json``: ``net(mx.sym.var('data')).tojson()``, the graph MXNet builds (node names,
  operators, attributes, variables), for the networks that name internal outputs;
- ``<net>.npz``: ``param:<name>`` the values given to every Parameter, by the name ``save_parameters``
  writes (seeded in the order of those names; BatchNorm statistics made non-trivial), ``input``,
  ``direct<i>``: the network's own inference outputs, and, for the networks that name internal
  outputs, ``out<i>``: those of a ``SymbolBlock`` over them and the network's output, made with
  ``params=net.collect_params()`` (GluonCV's ``FeatureExtractor``).
"""

from __future__ import annotations

import os
import sys

import mxnet as mx
import numpy as np

sys.path.insert(0, os.path.join("tests", "gluon"))
from symbolic_call_nets import NETS  # noqa: E402

OUT = os.path.join("tests", "reference", "symbolic_call")


def _value(name, shape, rs):
    if name.endswith(("running_var", "moving_var")):
        return rs.uniform(0.5, 1.5, shape)
    if name.endswith(("gamma", "alpha")):
        return rs.uniform(0.8, 1.2, shape)
    if name.endswith(("beta", "bias", "running_mean", "moving_mean")):
        return rs.normal(0.0, 0.1, shape)
    return rs.normal(0.0, np.sqrt(2.0 / max(1, int(np.prod(shape[1:])))), shape)


def _outputs(out):
    return [o.asnumpy() for o in (out if isinstance(out, (list, tuple)) else [out])]


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, build in NETS.items():
        net, shape, internals = build(mx)
        net.initialize()
        data = mx.sym.var("data")
        x = np.random.RandomState(1).uniform(-1, 1, shape).astype(np.float32)
        net(mx.nd.array(x))  # finish deferred shapes
        rs = np.random.RandomState(0)
        arrays = {"input": x}
        params = net._collect_params_with_prefix()  # the names save_parameters writes
        for pname in sorted(params):
            v = _value(pname, params[pname].shape, rs).astype(np.float32)
            params[pname].set_data(mx.nd.array(v))
            arrays["param:" + pname] = v
        for i, o in enumerate(_outputs(net(mx.nd.array(x)))):
            arrays[f"direct{i}"] = o
        if internals is not None:
            out = net(data)
            with open(os.path.join(OUT, f"{name}-symbol.json"), "w") as f:
                f.write(out.tojson())
            inner = out.get_internals()
            heads = [inner[n + "_output"] for n in internals] + [out]
            block = mx.gluon.SymbolBlock(heads, data, params=net.collect_params())
            for i, o in enumerate(_outputs(block(mx.nd.array(x)))):
                arrays[f"out{i}"] = o
        np.savez(os.path.join(OUT, f"{name}.npz"), **arrays)
        print(name, sorted(k for k in arrays if not k.startswith("param:")))


if __name__ == "__main__":
    main()
