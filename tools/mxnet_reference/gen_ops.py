"""Reference numbers for the ``npx`` extras, ``nd.contrib`` and the rest of ``mx.nd`` from real MXNet 1.9.1
(run in the MXNet side venv).

    /tmp/mx/bin/python tools/mxnet_reference/gen_ops.py

Writes ``tests/reference/ops/ops.npz``. Every case names an operator by its path (``npx.batch_dot``,
``nd.contrib.box_nms``, ``nd.ROIPooling``), its keyword arguments and its inputs (``<case>.in<i>``); MXNet's
outputs are ``<case>.out<j>``, and for differentiable cases a random head gradient (``<case>.head<j>``) and
MXNet's input gradients (``<case>.grad<i>``). ``npx.*`` cases run on ``mx.np`` arrays, the others on
``mx.nd`` arrays. ``__cases__`` holds the case table as JSON. ``tests/ops_reference.py`` replays them.

Cases whose keyword arguments name a function (``foreach``, ``while_loop``, ``cond``) name it by a key of
``BODIES`` in ``tests/ops_reference.py``; the same small functions are defined here.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("MXNET_MKLDNN_ENABLED", "0")
os.environ.setdefault("MXNET_STORAGE_FALLBACK_LOG_VERBOSE", "0")

import mxnet as mx  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ops_cases import BODIES, CASES, build  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "tests" / "reference" / "ops" / "ops.npz"


def rs(seed: int):
    return np.random.RandomState(seed)


def resolve(path: str):
    obj = mx
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _convert(v, mod):
    """A keyword argument for MXNet: lists become tuples; ``{"body": key}`` the function; ``{"array": i}``
    one of the inputs (for arguments that are arrays but not positional)."""
    if isinstance(v, list):
        return tuple(v)
    if isinstance(v, dict) and "body" in v:
        return BODIES[v["body"]](mod)
    return v


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def run() -> None:
    build()
    out: dict[str, np.ndarray] = {}
    table = {}
    failed: list[str] = []
    for name, op, inputs, kwargs, grad, extra in CASES:
        fn = resolve(op)
        npmode = op.startswith("npx.") or op.startswith("np.")
        mod = mx.np if npmode else mx.nd
        kw = dict(kwargs)
        train = kw.pop("__train__", False)
        nlist = kw.pop("__list__", None)  # inputs [0:nlist] are passed as one list
        if npmode:
            mx.npx.set_np()
        else:
            mx.npx.reset_np()
        args = [mod.array(a, dtype=a.dtype) for a in inputs]
        for i in grad:
            args[i].attach_grad()
        mx_kw = {k: _convert(v, mod) for k, v in kw.items()}
        call_args = [args[:nlist]] + args[nlist:] if nlist else args
        try:
            with mx.autograd.record(train_mode=train) if (grad or train) else _null():
                res = fn(*call_args, **mx_kw)
                outs = _flatten(res)
        except mx.base.MXNetError as e:
            failed.append(f"{name}: {str(e).strip().splitlines()[-1]}")
            continue
        for i, a in enumerate(inputs):
            out[f"{name}.in{i}"] = a
        try:
            for j, o in enumerate(outs):
                out[f"{name}.out{j}"] = o.asnumpy()
        except mx.base.MXNetError as e:
            failed.append(f"{name}: {str(e).strip().splitlines()[-1]}")
            continue
        if grad:
            heads = [mod.array(rs(99 + j).uniform(-1, 1, o.shape).astype(np.float32), dtype=o.dtype)
                     for j, o in enumerate(outs)]
            diff = [j for j, o in enumerate(outs) if j not in extra.get("no_head", [])]
            mx.autograd.backward([outs[j] for j in diff], [heads[j] for j in diff])
            for j in diff:
                out[f"{name}.head{j}"] = heads[j].asnumpy()
            for i in grad:
                out[f"{name}.grad{i}"] = args[i].grad.asnumpy()
        else:
            diff = []
        table[name] = {"op": op, "kwargs": kwargs, "n_in": len(inputs), "n_out": len(outs), "grad": grad,
                       "heads": diff, **{k: v for k, v in extra.items() if k != "no_head"}}
    mx.npx.reset_np()
    if failed:
        raise SystemExit("MXNet refused these cases:\n" + "\n".join(failed))
    out["__cases__"] = np.array(json.dumps(table, sort_keys=True))
    out["__mxnet__"] = np.array(mx.__version__)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **out)
    print(f"{len(table)} cases, {OUT.stat().st_size} bytes -> {OUT}", file=sys.stderr)


def _flatten(res):
    if isinstance(res, (list, tuple)):
        flat = []
        for r in res:
            flat.extend(_flatten(r))
        return flat
    return [res]


if __name__ == "__main__":
    run()
