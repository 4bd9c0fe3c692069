"""Reference numbers for the ``npx`` extras, ``nd.contrib`` and the rest of ``mx.nd`` from real MXNet 1.9.1
(run in the MXNet side venv).

    /tmp/mx/bin/python tools/mxnet_reference/gen_ops.py

Writes ``tests/reference/ops/ops.npz``. Every case names an operator by its path (``npx.batch_dot``,
``nd.contrib.box_nms``, ``nd.ROIPooling``), its keyword arguments and its inputs (``<case>.in<i>``); MXNet's
outputs are ``<case>.out<j>``, and for differentiable cases a random head gradient (``<case>.head<j>``) and
MXNet's input gradients (``<case>.grad<i>``). ``npx.*`` cases run on ``mx.np`` arrays, the others on
``mx.nd`` arrays. ``__cases__`` holds the case table as JSON. ``tests/ops_reference.py`` replays them.

Control-flow cases (``foreach``, ``while_loop``, ``cond``) name their functions by keys of ``BODIES`` in
``ops_cases.py``; ``tests/ops_reference.py`` defines the same small functions for the replay.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

# oneDNN stays on: MXNet 1.9.1's own (non-oneDNN) CPU RNN kernel fails under autograd.record()
os.environ.setdefault("MXNET_STORAGE_FALLBACK_LOG_VERBOSE", "0")

import mxnet as mx  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ops_cases import CASES, build, invoke  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "tests" / "reference" / "ops" / "ops.npz"


def rs(seed: int):
    return np.random.RandomState(seed)


def resolve(path: str):
    obj = mx
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _convert(v):
    """A keyword argument for MXNet: lists become tuples."""
    return tuple(v) if isinstance(v, list) else v


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def run(cases: list | None = None, out_path: Path = OUT) -> None:
    """Run ``cases`` (``ops_cases.CASES`` after ``build()`` when None) and write ``out_path``."""
    if cases is None:
        build()
        cases = CASES
    out: dict[str, np.ndarray] = {}
    table = {}
    failed: list[str] = []
    only = os.environ.get("GEN_OPS_ONLY")  # comma-separated case names: run just those (debugging)
    for name, op, inputs, kwargs, grad, extra in cases:
        if only and name not in only.split(","):
            continue
        fn = resolve(op)
        if os.environ.get("GEN_OPS_VERBOSE"):
            print(name, file=sys.stderr, flush=True)
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
        if extra.get("csr"):  # the operator reads CSR storage (the replay passes the dense array)
            args = [a.tostype("csr") for a in args]
        for i in grad:
            args[i].attach_grad()
        mx_kw = {k: _convert(v) for k, v in kw.items()}
        if "out_is" in extra:  # out= the weight itself, as MXNet's optimizers call it
            mx_kw["out"] = args[extra["out_is"]]
        if extra.get("out_like"):  # MXNet's multi-tensor updates need out= to know their outputs
            mx_kw["out"] = [mod.zeros_like(args[i]) for i in extra["out_like"]]
        call_args = [args[:nlist]] + args[nlist:] if nlist else args
        try:
            with mx.autograd.record(train_mode=train) if (grad or train) else _null():
                if extra.get("call"):
                    res = invoke(fn, extra["call"], mod, args, mx_kw)
                else:
                    res = fn(*call_args, **mx_kw)
                outs = _flatten(res)
                # MXNet updates these inputs in place (optimizer states): they are outputs too
                outs = outs + [args[i] for i in extra.get("mutated", [])]
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
    if only:
        print(f"{len(table)} cases ran; nothing written (GEN_OPS_ONLY)", file=sys.stderr)
        return
    out_path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out_path, **out)
    print(f"{len(table)} cases, {out_path.stat().st_size} bytes -> {out_path}", file=sys.stderr)


def _flatten(res):
    if isinstance(res, (list, tuple)):
        flat = []
        for r in res:
            flat.extend(_flatten(r))
        return flat
    return [res]


if __name__ == "__main__":
    run()
