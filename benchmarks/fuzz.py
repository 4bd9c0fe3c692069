"""The long fuzz run of the file readers: ``python -m benchmarks fuzz --cases N`` (or ``make fuzz``).

Runs ``N`` seeded cases of every format registered in ``tests/fuzz/fuzzing`` (``.params``, IDX/gz,
checkpoints, and any format added there), each batch in its own process with a watchdog and a
resident-memory meter, and prints a table of outcomes per format: ``loaded`` and ``rejected`` (the
documented error, naming the file and offset) are allowed; ``crash:*``, ``wrong``, ``unlocated``,
``slow`` (> 5 s of CPU time), ``memory`` (resident growth over 48 MiB + 64 x the file size) and ``hang`` are
failures. Failures are listed with the case that reproduces them (``--replay FORMAT:SEED:INDEX``
writes that case's file). Exit status 1 when any case failed. Results: ``<out>/fuzz.json``.

No peer is timed here: this is a correctness run; the throughput (cases/s) is reported for scale.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["main"]

COMMON_OPTIONS = ("--quick", "--out", "--cases")
HERE = Path(__file__).resolve().parent
FUZZ_DIR = HERE.parent / "tests" / "fuzz"


def _fuzzing() -> Any:
    if str(FUZZ_DIR) not in sys.path:
        sys.path.insert(0, str(FUZZ_DIR))
    import fuzzing
    import fuzzing.batch

    return fuzzing


def _table(table: dict[str, dict[str, float]], seconds: dict[str, float]) -> str:
    from fuzzing.engine import FAILURES

    kinds = sorted({k for row in table.values() for k in row if not k.startswith("max_")},
                   key=lambda k: (k.split(":")[0] in FAILURES, k))
    head = ["format", "cases", *kinds, "failures", "slowest case (s)", "max resident growth (MiB)", "cases/s"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, row in table.items():
        total = int(sum(v for k, v in row.items() if not k.startswith("max_")))
        failed = int(sum(v for k, v in row.items()
                         if not k.startswith("max_") and k.split(":")[0] in FAILURES))
        cells = [name, str(total), *(str(int(row.get(k, 0))) for k in kinds), str(failed),
                 f"{row.get('max_s', 0):.3f}", f"{row.get('max_mem', 0) / 2**20:.1f}",
                 f"{total / max(seconds[name], 1e-9):.0f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(prog="python -m benchmarks fuzz", description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", type=int, default=None, help="cases per format (default 2000; --quick 200)")
    p.add_argument("--seed", type=int, default=0, help="the run's seed (each case is (format, seed, index))")
    p.add_argument("--formats", default=None, help="comma-separated formats (default: all registered)")
    p.add_argument("--batch", type=int, default=5000, help="cases per worker process")
    p.add_argument("--jobs", type=int, default=1, help="worker processes at a time")
    p.add_argument("--quick", action="store_true", help="200 cases per format")
    p.add_argument("--out", default=None, help="results directory (default benchmarks/results)")
    p.add_argument("--replay", default=None, metavar="FORMAT:SEED:INDEX",
                   help="write that case's file to --out and load it here, with its traceback")
    args = p.parse_args(argv)
    import os

    os.environ.setdefault("FUZZ_SYMBOL_RUN", "1")  # symbol graphs run for real here (workers inherit it)
    fuzzing = _fuzzing()
    registry = fuzzing.targets()
    out_dir = Path(args.out) if args.out else HERE / "results"
    out_dir.mkdir(parents=True, exist_ok=True)
    if args.replay:
        return _replay(fuzzing, registry, args.replay, out_dir)
    names = args.formats.split(",") if args.formats else list(registry)
    unknown = [n for n in names if n not in registry]
    if unknown:
        p.error(f"unknown format(s) {unknown}; registered: {', '.join(registry)}")
    cases = args.cases if args.cases is not None else (200 if args.quick else 2000)
    failures: list[dict] = []
    table: dict[str, dict[str, float]] = {}
    seconds: dict[str, float] = {}
    for name in names:
        tic = time.perf_counter()

        def progress(fmt: str, done: int, row: dict[str, float], tic: float = tic) -> None:
            counts = ", ".join(f"{k} {int(v)}" for k, v in sorted(row.items()) if not k.startswith("max_"))
            print(f"  {fmt}: {done}/{cases} ({time.perf_counter() - tic:.0f} s) {counts}", flush=True)

        table.update(fuzzing.batch.run([name], args.seed, cases, batch=args.batch, jobs=args.jobs,
                                       failures=failures, progress=progress))
        seconds[name] = time.perf_counter() - tic
    text = _table(table, seconds)
    print(text)
    for f in failures[:50]:
        print(f"FAILED {f['target']}:{f['seed']}:{f['i']} {f['kind']} {f.get('detail', '')} "
              f"{f.get('message', '')}")
    result = {"cases_per_format": cases, "seed": args.seed, "table": table, "seconds": seconds,
              "failures": failures[:1000], "ok": not failures}
    (out_dir / "fuzz.json").write_text(json.dumps(result, indent=1))
    (out_dir / "fuzz.md").write_text(text + "\n")
    return result


def _replay(fuzzing: Any, registry: dict, spec: str, out_dir: Path) -> dict[str, Any]:
    from fuzzing import engine

    name, seed, index = spec.split(":")
    target = registry[name]
    case = engine.make_case(target, int(seed), int(index))
    path = out_dir / f"fuzz-{name}-{seed}-{index}{target.suffix}"
    path.write_bytes(case.data)
    print(f"{spec}: {case.mode} {case.detail} -> {path}")
    target.load(str(path))  # raises with the full traceback when it fails
    print("loaded")
    return {"ok": True}


if __name__ == "__main__":
    raise SystemExit(0 if main().get("ok") else 1)
