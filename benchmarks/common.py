"""Shared pieces of the benchmarks: data, timing, machine description, and the result files.

Every benchmark writes ``benchmarks/results/<name>.json``, ``<name>.md`` (a Markdown table) and
``<name>.png`` (a bar chart of seconds per epoch), and prints the table. Timings are medians of repeats,
interleaved across variants so that drift on a shared machine hits them alike, with warm-up (compiles)
excluded.

>>> fmt_ratio(2.0, 1.0)
'2.00x'
>>> markdown_table([{"a": 1, "b": 0.5}], ["a", "b"]).splitlines()[0]
'| a | b |'
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "RESULTS", "MXNET_EPOCH_S", "MXNET_SOURCE", "machine", "load_data", "interleaved", "timed",
    "fmt_ratio", "markdown_table", "write_results", "accuracy_of_logits",
]

RESULTS = Path(__file__).resolve().parent / "results"

# MXNet 1.9.1 cannot be installed next to this framework (Python 3.11, no wheel): its figure is quoted.
MXNET_EPOCH_S = (5.0, 5.2)
MXNET_SOURCE = ("MXNet 1.9.1, seed LeNet hybridized, batch 256, one Fashion-MNIST epoch on this kind of "
                "2-core AMD EPYC machine: 5.0-5.2 s (project measurement, 2026-12; older notes say 6-8 s; "
                "shared/FACTS.md gives 4.58 s on one core). Quoted, not measured in this run.")


def machine() -> dict[str, Any]:
    """Date, host, CPU, cores and the JAX backend, for the result files."""
    import jax

    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "date": _dt.datetime.now().isoformat(timespec="seconds"), "host": platform.node(), "cpu": cpu,
        "cores": os.cpu_count(), "python": platform.python_version(), "jax": jax.__version__,
        "backend": jax.default_backend(), "devices": [str(d) for d in jax.devices()],
    }


def load_data(root: str | None, subset: int | None) -> tuple[Any, Any]:
    """(train, test) :class:`train.data.Split`s: normalised float32 NCHW images and int32 labels."""
    from train import data

    return data.load(root, True, subset), data.load(root, False, subset)


def timed(fn: Callable[[], Any]) -> float:
    """Seconds ``fn()`` takes; ``fn`` must block until its work is done."""
    tic = time.perf_counter()
    fn()
    return time.perf_counter() - tic


def interleaved(runs: Mapping[str, Callable[[], Any]], repeats: int) -> dict[str, list[float]]:
    """Time each callable ``repeats`` times, round-robin; the lists of seconds."""
    out: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, fn in runs.items():
            out[name].append(timed(fn))
    return out


def median(xs: Sequence[float]) -> float:
    return float(statistics.median(xs))


def fmt_ratio(x: float, baseline: float) -> str:
    return f"{x / baseline:.2f}x"


def accuracy_of_logits(logits: Any, labels: Any) -> float:
    import numpy as onp

    return float((onp.asarray(logits).argmax(-1) == onp.asarray(labels)).mean())


def markdown_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> str:
    def cell(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.4g}" if abs(v) < 1e4 else f"{v:.0f}"
        return "" if v is None else str(v)

    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(r.get(c)) for c in columns) + " |" for r in rows]
    return "\n".join(lines)


def write_results(name: str, rows: Sequence[Mapping[str, Any]], columns: Sequence[str],
                  info: Mapping[str, Any], *, out: Path | None = None, bar_key: str = "s_per_epoch",
                  label_key: str = "variant", title: str = "") -> dict[str, str]:
    """Write ``<name>.json``, ``<name>.md`` and ``<name>.png`` under ``out``; the paths written."""
    out = Path(out or RESULTS)
    out.mkdir(parents=True, exist_ok=True)
    doc = {"benchmark": name, "machine": machine(), **info, "rows": [dict(r) for r in rows]}
    paths = {ext: str(out / f"{name}.{ext}") for ext in ("json", "md", "png")}
    Path(paths["json"]).write_text(json.dumps(doc, indent=2, default=str) + "\n")
    m = doc["machine"]
    header = f"# {title or name}\n\n{m['date']}, {m['cpu']} ({m['cores']} cores), JAX {m['jax']} " \
             f"({m['backend']})\n\n"
    notes = "".join(f"\n- {n}" for n in info.get("notes", []))
    table = markdown_table(rows, columns)
    Path(paths["md"]).write_text(header + table + "\n" + (notes + "\n" if notes else ""))
    _bar_chart([r for r in rows if r.get(bar_key) is not None], bar_key, label_key, paths["png"],
               title or name)
    return paths


def _bar_chart(rows: Sequence[Mapping[str, Any]], key: str, label: str, path: str, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.0, 0.5 + 0.45 * max(len(rows), 1)), dpi=100)
    try:
        names = [str(r[label]) for r in rows]
        values = [float(r[key]) for r in rows]
        ax.barh(names, values, color="tab:blue")
        for i, v in enumerate(values):
            ax.text(v, i, f" {v:.2f}", va="center")
        ax.invert_yaxis()
        ax.set_xlabel(key.replace("_", " "))
        ax.set_title(title)
        fig.tight_layout()
        fig.savefig(path)
    finally:
        plt.close(fig)
