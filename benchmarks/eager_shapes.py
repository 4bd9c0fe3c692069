"""Eager code whose shapes change at every step, ours against MXNet 1.9.1.

Two loops, written once for both frameworks (``np`` is ``framework.np`` or ``mxnet.np``), as detection
and statistics code writes them:

- ``nms``: non-maximum suppression over ``--boxes`` random boxes (d2l's form: sort by score, keep the
  best, drop the boxes overlapping it by more than 0.5 IoU with ``np.nonzero``, repeat on the shrinking
  index array);
- ``kde``: a kernel density estimate at ``--points`` points, each from the slice ``xs[:i]`` of a new
  length.

Every step is a new shape. MXNet runs each operation as a kernel; JAX compiles a program for each
primitive on each new shape (20-40 ms each on XLA:CPU). The loops are compiled as ``framework.run``
compiles the code it runs (:mod:`framework.port.operators`), so their operators, indexing and ``np``
functions run first-seen shapes in host memory (:mod:`framework.np.eager`). Prints seconds per loop,
the programs compiled (``jax.monitoring``) and the ratio to MXNet's time in the same run
(``--mxnet-python``, default ``/tmp/mx/bin/python``; skipped when absent).
``python -m benchmarks.eager_shapes [--quick]``.

>>> sizes(quick=True)
{'boxes': 60, 'points': 20}
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

__all__ = ["main", "sizes", "run_framework", "LOOPS"]

COMMON_OPTIONS = ("--quick", "--repeats", "--out")

# Written once for both frameworks: `np` is framework.np or mxnet.np.
LOOPS = """
import numpy as onp


def box_iou(np, a, b):
    area = lambda x: (x[:, 2] - x[:, 0]) * (x[:, 3] - x[:, 1])
    lt = np.maximum(a[:, None, :2], b[:, :2])
    rb = np.minimum(a[:, None, 2:], b[:, 2:])
    wh = np.clip(rb - lt, 0, None)
    inter = wh[:, :, 0] * wh[:, :, 1]
    return inter / (area(a)[:, None] + area(b) - inter)


def nms(np, n):
    rs = onp.random.RandomState(0)
    xy = rs.uniform(0, 1, (n, 2)).astype("float32")
    wh = rs.uniform(0.02, 0.2, (n, 2)).astype("float32")
    boxes = np.array(onp.concatenate([xy, xy + wh], axis=1))
    scores = np.array(rs.uniform(0, 1, n).astype("float32"))
    order = np.argsort(scores)[::-1]
    keep = []
    while order.size > 0:
        i = order[0]
        keep.append(int(i))
        if order.size == 1:
            break
        iou = box_iou(np, boxes[i, :].reshape(-1, 4), boxes[order[1:], :].reshape(-1, 4)).reshape(-1)
        inds = np.nonzero(iou <= 0.5)[0]
        order = order[inds + 1]
    return len(keep)


def kde(np, n):
    rs = onp.random.RandomState(0)
    xs = np.array(rs.normal(0, 1, n).astype("float32"))
    ys = [float(np.sum(np.exp(-(xs[:i] - xs[i]) ** 2 / 0.02)) / n) for i in range(1, n)]
    return len(ys)
"""

MXNET_MAIN = """
import json, sys, time
from mxnet import np, npx
npx.set_np()
sizes = json.loads(sys.argv[1])
out = {}
for name, n in (("nms", sizes["boxes"]), ("kde", sizes["points"])):
    start = time.perf_counter()
    steps = globals()[name](np, n)
    out[name] = {"seconds": time.perf_counter() - start, "steps": steps}
print(json.dumps(out))
"""


def sizes(quick: bool = False) -> dict[str, int]:
    """The loops' sizes: boxes for ``nms``, points for ``kde``."""
    return {"boxes": 60, "points": 20} if quick else {"boxes": 400, "points": 150}


def run_framework(n: dict[str, int]) -> dict[str, Any]:
    """Both loops on the framework: seconds, steps and programs compiled each."""
    import jax

    from framework import np
    from framework.port.operators import compile_ported

    scope: dict[str, Any] = {}
    # compiled as framework.run compiles the code it runs (operators routed through framework.np.eager)
    exec(compile_ported(LOOPS, "<eager_shapes loops>"), scope)  # noqa: S102 (this module's own loop text)
    compiles: list[str] = []

    def listen(event: str, duration: float, **kwargs: Any) -> None:
        if event == "/jax/core/compile/backend_compile_duration":
            compiles.append(event)

    jax.monitoring.register_event_duration_secs_listener(listen)
    out = {}
    try:
        for name, size in (("nms", n["boxes"]), ("kde", n["points"])):
            before, start = len(compiles), time.perf_counter()
            steps = scope[name](np, size)
            out[name] = {"seconds": time.perf_counter() - start, "steps": steps,
                         "programs": len(compiles) - before}
    finally:
        jax.monitoring.unregister_event_duration_listener(listen)
    return out


def run_mxnet(python: str, n: dict[str, int]) -> dict[str, Any] | None:
    if not os.path.exists(python):
        return None
    code = LOOPS + MXNET_MAIN
    done = subprocess.run([python, "-c", code, json.dumps(n)], capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        print(f"MXNet run failed: {done.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=1, help="accepted for the common interface (one run: "
                    "a repeat would find every shape compiled)")
    ap.add_argument("--out", default=None, help="results directory (default benchmarks/results)")
    ap.add_argument("--mxnet-python", default="/tmp/mx/bin/python")
    args = ap.parse_args(argv)
    n = sizes(args.quick)
    ours = run_framework(n)
    theirs = run_mxnet(args.mxnet_python, n)
    print(f"eager loops of new shapes ({n['boxes']} boxes, {n['points']} points), seconds:")
    rows = []
    for name, r in ours.items():
        row = {"loop": name, "steps": r["steps"], "programs": r["programs"], "framework_s": r["seconds"],
               "mxnet_s": None, "vs_mxnet": None}
        line = f"  {name}: framework {r['seconds']:.2f} s, {r['steps']} steps, {r['programs']} programs"
        if theirs is not None:
            m = theirs[name]
            row.update(mxnet_s=m["seconds"], vs_mxnet=r["seconds"] / m["seconds"])
            line += f"; MXNet 1.9.1 {m['seconds']:.3f} s ({row['vs_mxnet']:.1f}x)"
        rows.append(row)
        print(line)
    if theirs is None:
        print("  MXNet 1.9.1: not available (--mxnet-python)")
    from .common import write_results

    write_results("eager_shapes", rows, list(rows[0]), {"sizes": n}, out=args.out, bar_key="framework_s",
                  label_key="loop", title="Eager loops of new shapes, framework beside MXNet 1.9.1")
    return {"sizes": n, "framework": ours, "mxnet": theirs}

if __name__ == "__main__":
    main()
