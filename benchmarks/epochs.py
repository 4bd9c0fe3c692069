"""Epochs on CPU versus GPU: the main job's training (seed settings) on each backend and device count
present, for the three ways to run it -- the seed's Gluon loop, the compiled data-parallel step called per
batch, and the whole-epoch programs of ``--loop compiled`` -- warm-up excluded, median of repeats, test
accuracy after the last epoch.

Configurations: ``cpu x1`` and ``cpu x2`` (two host devices over the same cores: JAX's virtual CPU
devices), and ``gpu x1, x2, x4, ...`` up to every GPU when there are GPUs. Ratios are against the same
loop's ``cpu x1`` measured in the same run. ``python -m benchmarks epochs [--quick] [--loop NAME]``.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from typing import Any

__all__ = ["main", "configurations"]

# The entry point's common options this benchmark takes (python -m benchmarks passes these on).
COMMON_OPTIONS = ("--quick", "--repeats", "--data-root", "--out")


def configurations(max_cpu: int = 2) -> list[tuple[str, list[Any]]]:
    """(label, devices) for each backend and device count present."""
    import jax

    def local(platform: str) -> list[Any]:
        try:
            return list(jax.local_devices(backend=platform))
        except RuntimeError:
            return []

    out = []
    cpus = local("cpu")
    for k in (1, 2, 4, 8):
        if k <= min(len(cpus), max_cpu):
            out.append((f"cpu x{k}", cpus[:k]))
    gpus = local("gpu")
    counts = sorted({2 ** i for i in range(int(math.log2(len(gpus))) + 1)} | {len(gpus)}) if gpus else []
    for k in counts:
        out.append((f"gpu x{k}", gpus[:k]))
    return out


class StepRunner:
    """The compiled data-parallel step called once per batch (``DataParallel.__call__``), beside the
    whole-epoch programs of ``--loop compiled``: the same training, dispatched batch by batch."""

    def __init__(self, train: Any, test: Any, devices: Sequence[Any]) -> None:
        from .peers import FrameworkLoop

        self.inner = FrameworkLoop(train, test, "compiled", devices)
        self.train, self.e = train, 0

    def epoch(self) -> float:
        from train.data import epoch_order

        loop, bs = self.inner.loop, 256
        order = epoch_order(loop.cfg.seed, self.e, len(self.train))
        total = 0.0
        losses = [loop.step(self.train.x[order[i:i + bs]], self.train.y[order[i:i + bs]], bs)
                  for i in range(0, len(order), bs)]
        total = float(sum(float(v) for v in losses))
        self.e += 1
        return total / len(self.train)

    def accuracy(self) -> float:
        return self.inner.accuracy()


LOOPS = {"gluon loop": "gluon", "compiled step": "step", "whole-epoch program": "compiled"}


def run(train: Any, test: Any, repeats: int, loops: Sequence[str] = tuple(LOOPS),
        max_cpu: int = 2) -> list[dict[str, Any]]:
    """Time an epoch per (loop, backend, device count); the table rows."""
    from .common import interleaved, median
    from .peers import FrameworkLoop

    runners = {}
    for label, devices in configurations(max_cpu):
        if 256 % len(devices):
            continue
        for loop in loops:
            kind = LOOPS[loop]
            runner = (StepRunner(train, test, devices) if kind == "step"
                      else FrameworkLoop(train, test, kind, devices))
            runner.epoch()  # warm-up: compiles
            runners[f"{loop}, {label}"] = (runner, devices)
    times = interleaved({label: r.epoch for label, (r, _) in runners.items()}, repeats)
    rows = []
    for label, (runner, devices) in runners.items():
        s = median(times[label])
        rows.append({"variant": label, "backend": devices[0].platform, "devices": len(devices),
                     "device_kind": devices[0].device_kind, "s_per_epoch": s,
                     "samples_per_s": len(train) / s, "test_acc": runner.accuracy()})
    for r in rows:
        loop = r["variant"].split(",")[0]
        base = next((q["s_per_epoch"] for q in rows if q["variant"] == f"{loop}, cpu x1"), None)
        r["speedup_vs_cpu_x1"] = base / r["s_per_epoch"] if base else None
    return rows


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """``python -m benchmarks epochs``: run, print and write the table; the result document."""
    from .common import load_data, markdown_table, write_results

    p = argparse.ArgumentParser(prog="python -m benchmarks epochs", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="a fraction of an epoch, one repeat (smoke test)")
    p.add_argument("--repeats", type=int, default=None, help="timed epochs per configuration (default 3)")
    p.add_argument("--loop", choices=tuple(LOOPS), action="append", default=None,
                   help="a training loop to time (repeatable; default all three)")
    p.add_argument("--max-cpu-devices", type=int, default=2, help="largest CPU device count (default 2)")
    p.add_argument("--data-root", default=None, help="directory of the Fashion-MNIST .gz files")
    p.add_argument("--out", default=None, help="results directory (default benchmarks/results)")
    args = p.parse_args(argv)
    subset = 1024 if args.quick else None
    repeats = args.repeats or (1 if args.quick else 3)
    train, test = load_data(args.data_root, subset)
    rows = run(train, test, repeats, args.loop or tuple(LOOPS), args.max_cpu_devices)
    notes = ["speedup_vs_cpu_x1 = the same loop's cpu x1 seconds per epoch / this row's, same run.",
             "cpu xN are JAX's virtual host devices over the same cores."]
    if not any(r["backend"] != "cpu" for r in rows):
        notes.append("No GPU is visible to JAX on this machine: only CPU rows (install a CUDA jaxlib to "
                     "compare).")
    cols = ["variant", "s_per_epoch", "samples_per_s", "test_acc", "speedup_vs_cpu_x1"]
    info = {"settings": {"loops": args.loop or list(LOOPS), "batch_size": 256, "lr": 0.1,
                         "train_samples": len(train),
                         "repeats": repeats, "quick": args.quick}, "notes": notes}
    paths = write_results("epochs", rows, cols, info, out=args.out,
                          title="LeNet / Fashion-MNIST: seconds per epoch, CPU vs GPU")
    print(markdown_table(rows, cols))
    for n in notes:
        print("note:", n)
    from .peers import accuracy_ok

    return {"rows": rows, "notes": notes, "paths": paths, "ok": accuracy_ok(rows, args.quick)}
