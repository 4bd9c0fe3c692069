"""Regenerate tests/reference/params/: MXNet 1.9.1 ``.params`` files and their expected arrays.

Run with real MXNet (see README, "Reference files"):

    /tmp/mx/bin/python tools/mxnet_reference/gen_params.py

Each ``X.params`` gets ``X.params.json`` holding the arrays it should load to (shape, dtype,
C-order data), written from the values handed to MXNet, then checked by loading the file back
with MXNet itself. ``small_net_export_{nd,np}`` are ``HybridBlock.export`` pairs (symbol JSON
and ``-0000.params``). Files:

- small_net_{nd,np}.params: ``save_parameters`` of a small net in legacy nd mode (V2 arrays)
  and after ``npx.set_np()`` (V3 arrays). Keys sorted; the i-th key holds
  ``arange(n).reshape(shape) * 0.5 + i`` (float32).
- dtypes_nd.params: ``mx.nd.save`` of a dict of 2x3 arrays, one per dtype.
- list_nd.params: ``mx.nd.save`` of a list (no names).
- sparse_nd.params: a row_sparse and a csr array.
- np_scalar.params: ``npx.save`` of a 0-d scalar, a vector and an empty (0, 3) array.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import mxnet as mx
import numpy as onp
from mxnet import gluon, npx

OUT = Path(__file__).resolve().parents[2] / "tests" / "reference" / "params"
NET = ("HybridSequential[Conv2D(2,3,in_channels=1,relu), BatchNorm(in_channels=2), "
       "MaxPool2D(2,2), Dense(3,in_units=18)]")
RULE = "sorted keys; i-th key gets arange(n).reshape(shape)*0.5 + i (float32)"
DTYPES = ["float32", "float64", "float16", "uint8", "int32", "int8", "int64", "bool"]


def dense_entry(a: onp.ndarray) -> dict:
    return {"shape": list(a.shape), "dtype": str(a.dtype), "data": a.reshape(-1).tolist()}


def write_json(name: str, mode: str, arrays, **extra) -> None:
    doc = {"file": name, "mode": mode, "mxnet": mx.__version__, **extra, "arrays": arrays}
    (OUT / f"{name}.json").write_text(json.dumps(doc, indent=1) + "\n")


def small_net():
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Conv2D(2, 3, in_channels=1, activation="relu"),
            gluon.nn.BatchNorm(in_channels=2),
            gluon.nn.MaxPool2D(2, 2),
            gluon.nn.Dense(3, in_units=18))
    net.initialize()
    structural = net._collect_params_with_prefix()
    values = {}
    for i, key in enumerate(sorted(structural)):
        p = structural[key]
        v = (onp.arange(int(onp.prod(p.shape)), dtype="float32").reshape(p.shape) * 0.5 + i)
        p.set_data(v)
        values[key] = (v.astype("float32"), p.name)
    return net, values


def gen_small_net(mode: str) -> None:
    """save_parameters and export of the small net; a fresh name scope so prefixes start at 0."""
    with mx.name.NameManager():
        net, values = small_net()
    name = f"small_net_{mode}.params"
    net.save_parameters(str(OUT / name))
    arrays = {k: {**dense_entry(v), "prefix_name": pname} for k, (v, pname) in values.items()}
    write_json(name, mode, arrays, net=NET, value_rule=RULE)
    net.hybridize()
    x = onp.zeros((1, 1, 8, 8), "float32")
    net(mx.np.array(x) if mode == "np" else mx.nd.array(x))
    net.export(str(OUT / f"small_net_export_{mode}"), epoch=0)
    # Check by loading the file back into a fresh net with MXNet.
    with mx.name.NameManager():
        net2, _ = small_net()
    net2.load_parameters(str(OUT / name))
    for k, p in net2._collect_params_with_prefix().items():
        onp.testing.assert_array_equal(p.data().asnumpy(), values[k][0])


def gen_nd_files() -> None:
    arrays = {}
    for i, dt in enumerate(DTYPES):
        a = (onp.arange(6).reshape(2, 3) % 2 == 0) if dt == "bool" else (onp.arange(6).reshape(2, 3) + i)
        arrays[dt] = a.astype(dt)
    mx.nd.save(str(OUT / "dtypes_nd.params"), {k: mx.nd.array(v, dtype=v.dtype) for k, v in arrays.items()})
    back = mx.nd.load(str(OUT / "dtypes_nd.params"))
    for k, v in arrays.items():
        assert str(back[k].dtype.__name__ if hasattr(back[k].dtype, "__name__") else back[k].dtype) in (
            k, "bool_"), (k, back[k].dtype)
        onp.testing.assert_array_equal(back[k].asnumpy(), v)
    write_json("dtypes_nd.params", "nd (mx.nd.save dict)", {k: dense_entry(v) for k, v in arrays.items()})

    lst = [onp.array([[1, 2], [3, 4]], "float32"), onp.array([5.0], "float32")]
    mx.nd.save(str(OUT / "list_nd.params"), [mx.nd.array(a) for a in lst])
    back = mx.nd.load(str(OUT / "list_nd.params"))
    assert isinstance(back, list) and len(back) == 2
    write_json("list_nd.params", "nd (mx.nd.save list, no names)", [dense_entry(a) for a in lst])

    rsp = onp.array([[0, 0], [1, 2], [0, 0], [3, 4]], "float32")
    csr = onp.array([[0, 5, 0], [0, 0, 0], [7, 0, 8]], "float32")
    mx.nd.save(str(OUT / "sparse_nd.params"), {
        "rsp": mx.nd.array(rsp).tostype("row_sparse"), "csr": mx.nd.array(csr).tostype("csr")})
    back = mx.nd.load(str(OUT / "sparse_nd.params"))
    assert back["rsp"].stype == "row_sparse" and back["csr"].stype == "csr"
    onp.testing.assert_array_equal(back["rsp"].asnumpy(), rsp)
    onp.testing.assert_array_equal(back["csr"].asnumpy(), csr)
    write_json("sparse_nd.params", "nd sparse", {
        "rsp": {"stype": "row_sparse", "dense": rsp.tolist()},
        "csr": {"stype": "csr", "dense": csr.tolist()}})


def gen_np_files() -> None:
    arrays = {"scalar": onp.array(3.5, "float32"), "vec": onp.array([1.0, 2.0], "float32"),
              "empty": onp.zeros((0, 3), "float32")}
    npx.save(str(OUT / "np_scalar.params"), {k: mx.np.array(v) for k, v in arrays.items()})
    back = npx.load(str(OUT / "np_scalar.params"))
    for k, v in arrays.items():
        assert back[k].shape == v.shape, (k, back[k].shape)
        onp.testing.assert_array_equal(back[k].asnumpy(), v)
    write_json("np_scalar.params", "np (npx.save)", {k: dense_entry(v) for k, v in arrays.items()})


def main() -> int:
    assert mx.__version__ == "1.9.1", f"MXNet 1.9.1 expected, found {mx.__version__}"
    OUT.mkdir(parents=True, exist_ok=True)
    for p in OUT.iterdir():
        if p.name != "MANIFEST.json":
            p.unlink()
    gen_nd_files()
    gen_small_net("nd")
    npx.set_np()
    gen_small_net("np")
    gen_np_files()
    npx.reset_np()
    print(f"wrote {len(os.listdir(OUT))} files to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
