"""Epochs on CPU versus GPU: the main job's training (compiled loop, seed settings) on each backend and
device count present, warm-up excluded, median of repeats, test accuracy after the last epoch.

Configurations: ``cpu x1`` and ``cpu x2`` (two host devices over the same cores: JAX's virtual CPU
devices), and ``gpu x1, x2, x4, ...`` up to every GPU when there are GPUs. Ratios are against ``cpu x1``
measured in the same run. ``python -m benchmarks epochs [--quick]``.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from typing import Any

__all__ = ["main", "configurations"]


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


def run(train: Any, test: Any, repeats: int, loop: str = "compiled",
        max_cpu: int = 2) -> list[dict[str, Any]]:
    """Time an epoch per configuration; the table rows."""
    from .common import interleaved, median
    from .peers import FrameworkLoop

    runners = {}
    for label, devices in configurations(max_cpu):
        if 256 % len(devices):
            continue
        runner = FrameworkLoop(train, test, loop, devices)
        runner.epoch()  # warm-up: compiles
        runners[label] = (runner, devices)
    times = interleaved({label: r.epoch for label, (r, _) in runners.items()}, repeats)
    rows = []
    for label, (runner, devices) in runners.items():
        s = median(times[label])
        rows.append({"variant": label, "backend": devices[0].platform, "devices": len(devices),
                     "device_kind": devices[0].device_kind, "s_per_epoch": s,
                     "samples_per_s": len(train) / s, "test_acc": runner.accuracy()})
    base = next((r["s_per_epoch"] for r in rows if r["variant"] == "cpu x1"), None)
    for r in rows:
        r["speedup_vs_cpu_x1"] = base / r["s_per_epoch"] if base else None
    return rows


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """``python -m benchmarks epochs``: run, print and write the table; the result document."""
    from .common import load_data, markdown_table, write_results

    p = argparse.ArgumentParser(prog="python -m benchmarks epochs", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="a fraction of an epoch, one repeat (smoke test)")
    p.add_argument("--repeats", type=int, default=None, help="timed epochs per configuration (default 3)")
    p.add_argument("--loop", choices=("compiled", "gluon"), default="compiled", help="training loop")
    p.add_argument("--max-cpu-devices", type=int, default=2, help="largest CPU device count (default 2)")
    p.add_argument("--data-root", default=None, help="directory of the Fashion-MNIST .gz files")
    p.add_argument("--out", default=None, help="results directory (default benchmarks/results)")
    args = p.parse_args(argv)
    subset = 1024 if args.quick else None
    repeats = args.repeats or (1 if args.quick else 3)
    train, test = load_data(args.data_root, subset)
    rows = run(train, test, repeats, args.loop, args.max_cpu_devices)
    notes = ["speedup_vs_cpu_x1 = cpu x1 seconds per epoch / this configuration's, same run.",
             "cpu xN are JAX's virtual host devices over the same cores."]
    if not any(r["backend"] != "cpu" for r in rows):
        notes.append("No GPU is visible to JAX on this machine: only CPU rows (install a CUDA jaxlib to "
                     "compare).")
    cols = ["variant", "s_per_epoch", "samples_per_s", "test_acc", "speedup_vs_cpu_x1"]
    info = {"settings": {"loop": args.loop, "batch_size": 256, "lr": 0.1, "train_samples": len(train),
                         "repeats": repeats, "quick": args.quick}, "notes": notes}
    paths = write_results("epochs", rows, cols, info, out=args.out,
                          title="LeNet / Fashion-MNIST: seconds per epoch, CPU vs GPU")
    print(markdown_table(rows, cols))
    for n in notes:
        print("note:", n)
    from .peers import accuracy_ok

    return {"rows": rows, "notes": notes, "paths": paths, "ok": accuracy_ok(rows, args.quick)}
