"""``python -m benchmarks [names...] [--quick] [--data-root DIR] [--out DIR]``: the one entry point.

Each benchmark is a module of this package with ``main(argv=None)`` (returning a dict, or an exit
status), imported only when it runs; one that is missing or fails is reported and the others still run.
The common options are passed on to each benchmark in the spelling its own parser uses. Exit status: 0
when every benchmark that is present ran and its variants learned (test accuracy checked), 1 otherwise.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
import traceback
from collections.abc import Sequence
from typing import Any

from . import available


def _parser(names: Sequence[str]) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0],
                                epilog="benchmarks: " + ", ".join(names))
    p.add_argument("names", nargs="*", metavar="NAME", help="benchmarks to run (default: all)")
    p.add_argument("--quick", action="store_true", help="a fraction of an epoch, one repeat: the smoke test")
    p.add_argument("--repeats", type=int, default=None, help="timed repeats per variant")
    p.add_argument("--data-root", default=None, help="directory of the Fashion-MNIST .gz files")
    p.add_argument("--out", default=None, help="results directory (default benchmarks/results)")
    p.add_argument("--cases", type=int, default=None, help="cases per format (the fuzz run)")
    p.add_argument("--torch", default=None, metavar="PYTHON",
                   help="a Python that imports torch, for the PyTorch peers run in a subprocess")
    p.add_argument("--cpu-devices", type=int, default=2, help="host CPU devices to create (default 2)")
    return p


def _argv_for(module: Any, args: argparse.Namespace) -> list[str]:
    """The common options that this module declares in ``COMMON_OPTIONS`` (others are left out)."""
    takes = set(getattr(module, "COMMON_OPTIONS", ()))
    sub: list[str] = []
    if args.quick and "--quick" in takes:
        sub.append("--quick")
    for flag, value in (("--repeats", args.repeats), ("--data-root", args.data_root), ("--out", args.out),
                        ("--cases", args.cases), ("--torch", args.torch)):
        if value is not None and flag in takes:
            sub += [flag, str(value)]
    return sub


def _ok(result: Any) -> bool:
    if isinstance(result, dict):
        return result.get("ok") is not False
    if isinstance(result, int) and not isinstance(result, bool):
        return result == 0
    return True


def main(argv: Sequence[str] | None = None) -> int:
    names = available()
    p = _parser(names)
    args = p.parse_args(argv)
    unknown = [n for n in args.names if n not in names]
    if unknown:
        p.error(f"unknown benchmark(s) {unknown}; choose from {', '.join(names)}.")
    if "device_count" not in os.environ.get("XLA_FLAGS", ""):
        import jax

        if int(jax.config.jax_num_cpu_devices or 0) < args.cpu_devices:
            jax.config.update("jax_num_cpu_devices", args.cpu_devices)
    failures = []
    for name in args.names or names:
        try:
            module = importlib.import_module(f"benchmarks.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"benchmarks.{name}":
                raise
            print(f"note: benchmark {name!r} is not in this checkout (benchmarks/{name}.py): skipped.")
            continue
        sub = _argv_for(module, args)
        print(f"== {name} {' '.join(sub)}", flush=True)
        tic = time.perf_counter()
        crashed = False
        try:
            result = module.main(sub)
        except SystemExit as err:
            result = err.code or 0
        except Exception:
            traceback.print_exc()
            result, crashed = None, True
        if crashed or not _ok(result):
            failures.append(name)
            print(f"error: benchmark {name!r} failed (see above: an error, or a variant whose test accuracy "
                  "shows it did not learn).", file=sys.stderr)
        print(f"== {name} done in {time.perf_counter() - tic:.1f} s", flush=True)
    if failures:
        print(f"failed: {', '.join(failures)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
