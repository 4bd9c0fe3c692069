"""``python -m benchmarks [names...] [--quick] [--data-root DIR] [--out DIR]``: the one entry point.

Each benchmark is a module of this package with ``main(argv=None) -> dict``, imported only when it
runs; one that is missing or fails is reported and the others still run. Exit status: 0 when every
benchmark ran and its variants learned (test accuracy checked), 1 otherwise.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
import traceback
from collections.abc import Sequence

from . import BENCHMARKS

_OURS = ("epochs", "peers")  # these take --data-root, --out and --repeats


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0],
                                epilog="benchmarks: " + ", ".join(BENCHMARKS))
    p.add_argument("names", nargs="*", metavar="NAME", help="benchmarks to run (default: all)")
    p.add_argument("--quick", action="store_true", help="a fraction of an epoch, one repeat: the smoke test")
    p.add_argument("--repeats", type=int, default=None, help="timed epochs per variant (epochs, peers)")
    p.add_argument("--data-root", default=None, help="directory of the Fashion-MNIST .gz files")
    p.add_argument("--out", default=None, help="results directory (default benchmarks/results)")
    p.add_argument("--cpu-devices", type=int, default=2, help="host CPU devices to create (default 2)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    unknown = [n for n in args.names if n not in BENCHMARKS]
    if unknown:
        _parser().error(f"unknown benchmark(s) {unknown}; choose from {', '.join(BENCHMARKS)}.")
    if "XLA_FLAGS" not in os.environ or "device_count" not in os.environ["XLA_FLAGS"]:
        import jax

        if int(jax.config.jax_num_cpu_devices or 0) < args.cpu_devices:
            jax.config.update("jax_num_cpu_devices", args.cpu_devices)
    failures = []
    for name in args.names or BENCHMARKS:
        sub = ["--quick"] if args.quick else []
        if name in _OURS:
            for flag, value in (("--repeats", args.repeats), ("--data-root", args.data_root),
                                ("--out", args.out)):
                if value is not None:
                    sub += [flag, str(value)]
        print(f"== {name} {' '.join(sub)}", flush=True)
        try:
            module = importlib.import_module(f"benchmarks.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"benchmarks.{name}":
                raise
            print(f"note: benchmark {name!r} is not in this checkout (benchmarks/{name}.py): skipped.")
            continue
        tic = time.perf_counter()
        try:
            result = module.main(sub)
        except SystemExit as err:
            if err.code not in (0, None):
                failures.append(name)
                print(f"error: benchmark {name!r} exited with status {err.code}.", file=sys.stderr)
            continue
        except Exception:
            failures.append(name)
            traceback.print_exc()
            continue
        if isinstance(result, dict) and result.get("ok") is False:
            failures.append(name)
            print(f"error: benchmark {name!r}: a variant did not learn (test accuracy too low).",
                  file=sys.stderr)
        print(f"== {name} done in {time.perf_counter() - tic:.1f} s", flush=True)
    if failures:
        print(f"failed: {', '.join(failures)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
