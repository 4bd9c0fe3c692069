"""Running cases in batches, each batch in its own process, with a watchdog and a memory meter.

A worker process (``python -m fuzzing.batch TARGET SEED START COUNT``) warms up (imports, first
calls), then runs its cases one by one, printing one JSON line per case; resident growth is measured
per case with Linux's resettable peak counter. The parent reads the lines; a worker silent for longer
than the watchdog allows is killed, the case it was on is counted as ``hang``, and a new worker goes
on from the next case. Workers run one at a time unless ``jobs`` > 1.

>>> WATCHDOG_S > 5  # a worker gets far longer than the per-case limit before it is called hung
True
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

__all__ = ["run", "worker", "WATCHDOG_S", "STARTUP_S"]

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
#: A worker that prints nothing for this long is killed (one case ran far past the 5 s limit).
WATCHDOG_S = 60.0
#: How long a worker may take to import and warm up (on a loaded machine: minutes) before it counts.
STARTUP_S = 900.0


def worker(name: str, seed: int, start: int, count: int, out: Callable[[str], None] = print) -> None:
    """Run cases ``start .. start + count - 1`` of ``name`` here, reporting each as a JSON line."""
    from . import engine, targets

    target = targets()[name]
    scratch = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
    path = os.path.join(scratch, f"fuzz-{os.getpid()}{target.suffix}")
    meter = engine.PeakMeter()
    try:
        if target.warm is not None:
            target.warm()
        for i in range(8):  # warm-up: imports, first compilations, allocator pools
            engine.run_case(target, engine.make_case(target, seed + 1, i), path, meter)
        out(json.dumps({"ready": True}))  # the watchdog times cases from here, not the start-up
        for index in range(start, start + count):
            case = engine.make_case(target, seed, index)
            outcome = engine.run_case(target, case, path, meter)
            row = {"i": index, "kind": outcome.kind, "mode": outcome.mode, "s": round(outcome.seconds, 4),
                   "mem": outcome.growth}
            if outcome.failed:
                row.update(detail=case.detail, message=outcome.message)
            out(json.dumps(row))
    finally:
        if os.path.exists(path):
            os.unlink(path)


def _spawn(name: str, seed: int, start: int, count: int) -> subprocess.Popen:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE.parent), str(REPO), env.get("PYTHONPATH", "")])
    env.setdefault("JAX_PLATFORMS", "cpu")
    return subprocess.Popen([sys.executable, "-m", "fuzzing.batch", name, str(seed), str(start), str(count)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=str(REPO))


class _Lines:
    """Lines from a pipe with a deadline: select() on the descriptor, our own buffer (a buffered file
    object would hold lines that select() then cannot see)."""

    def __init__(self, fd: int) -> None:
        self.fd, self.buf, self.eof = fd, b"", False

    def next(self, deadline: float) -> tuple[bool, str]:
        """(False, '') when nothing came before the deadline; (True, '') at the end of the stream."""
        while b"\n" not in self.buf and not self.eof:
            readable, _, _ = select.select([self.fd], [], [], max(0.0, deadline - time.monotonic()))
            if not readable:
                return False, ""
            chunk = os.read(self.fd, 1 << 16)
            self.eof = not chunk
            self.buf += chunk
        if b"\n" not in self.buf:
            return True, ""
        line, self.buf = self.buf.split(b"\n", 1)
        return True, line.decode() + "\n"


def _batch(name: str, seed: int, start: int, count: int, failures: list[dict]) -> dict[str, float]:
    """Run one batch to its end, restarting after a hang or a dead worker; ``{kind: count}`` plus the
    slowest case (``max_s``) and the largest resident growth (``max_mem``, bytes)."""
    counts: dict[str, float] = {"max_s": 0.0, "max_mem": 0}
    next_index, end = start, start + count
    while next_index < end:
        proc = _spawn(name, seed, next_index, end - next_index)
        assert proc.stdout is not None
        started = False
        deadline = time.monotonic() + STARTUP_S  # imports and warm-up are not timed as a case
        try:
            lines = _Lines(proc.stdout.fileno())
            while next_index < end:
                readable, line = lines.next(deadline)
                if not started:
                    if not line or not json.loads(line).get("ready"):
                        raise RuntimeError(
                            f"the fuzz worker for {name} did not start within {STARTUP_S:.0f} s, or died "
                            f"while starting; run it by hand to see why: python -m fuzzing.batch {name} "
                            f"{seed} {next_index} 1 (with tests/fuzz on PYTHONPATH)")
                    started = True
                    deadline = time.monotonic() + WATCHDOG_S
                    continue
                if not line:  # silent too long, or the worker died: the case it was on failed
                    proc.kill()
                    kind = "hang" if not readable else "crash:worker-died"
                    counts[kind] = counts.get(kind, 0) + 1
                    failures.append({"target": name, "seed": seed, "i": next_index, "kind": kind})
                    next_index += 1
                    break
                row = json.loads(line)
                counts[row["kind"]] = counts.get(row["kind"], 0) + 1
                counts["max_s"] = max(counts["max_s"], row["s"])
                counts["max_mem"] = max(counts["max_mem"], row["mem"])
                if "detail" in row:
                    failures.append({"target": name, "seed": seed, **row})
                next_index = row["i"] + 1
                deadline = time.monotonic() + WATCHDOG_S
        finally:
            proc.kill()
            proc.wait()
            proc.stdout.close()
    return counts


def run(names: Sequence[str], seed: int, cases: int, batch: int = 5000, jobs: int = 1,
        failures: list[dict] | None = None,
        progress: Callable[[str, int, dict[str, float]], None] | None = None) -> dict[str, dict[str, float]]:
    """``cases`` cases of each target in ``names``; ``{target: {outcome: count, 'max_s', 'max_mem'}}``."""
    failures = [] if failures is None else failures
    table: dict[str, dict[str, int]] = {}
    for name in names:
        chunks = [(s, min(batch, cases - s)) for s in range(0, cases, batch)]
        row: dict[str, float] = {}
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = [pool.submit(_batch, name, seed, s, n, failures) for s, n in chunks]
            done = 0
            for fut, (_, n) in zip(futures, chunks, strict=True):
                for kind, k in fut.result().items():
                    row[kind] = max(row.get(kind, 0), k) if kind.startswith("max_") else row.get(kind, 0) + k
                done += n
                if progress:
                    progress(name, done, row)
        table[name] = row
    return table


if __name__ == "__main__":
    worker(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]),
           out=lambda line: print(line, flush=True))
