"""Per-epoch metrics of the main job, written as ``metrics.json`` and ``metrics.csv``.

Each record holds the epoch (1-based), the mean training loss per sample, the test accuracy, the
training seconds (evaluation excluded) and samples per second.

>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> rows = [{"epoch": 1, "loss": 1.5, "test_acc": 0.7, "seconds": 5.0, "samples_per_s": 12000.0}]
>>> write(d, rows, {"batch_size": 256})
>>> sorted(os.listdir(d))
['metrics.csv', 'metrics.json']
>>> format_row(rows[0], 10)
'Epoch 1/10: loss 1.500, test acc 0.7000, 5.0 s, 12000 samples/s'
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["FIELDS", "write", "format_row", "atomic_write_bytes"]

FIELDS = ("epoch", "loss", "test_acc", "seconds", "samples_per_s")


def format_row(row: Mapping[str, Any], epochs: int) -> str:
    """The line printed after each epoch."""
    return (f"Epoch {row['epoch']}/{epochs}: loss {row['loss']:.3f}, test acc {row['test_acc']:.4f}, "
            f"{row['seconds']:.1f} s, {row['samples_per_s']:.0f} samples/s")


def atomic_write_bytes(path: str | os.PathLike, blob: bytes) -> None:
    """Write ``blob`` to ``path`` through a temporary file, fsync and rename."""
    path = os.fspath(path)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(blob)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def write(out_dir: str | os.PathLike, rows: Sequence[Mapping[str, Any]], run: Mapping[str, Any]) -> None:
    """Write ``metrics.json`` (run settings + rows) and ``metrics.csv`` (rows) into ``out_dir``."""
    os.makedirs(out_dir, exist_ok=True)
    doc = {"run": dict(run), "epochs": [dict(r) for r in rows]}
    atomic_write_bytes(os.path.join(out_dir, "metrics.json"), (json.dumps(doc, indent=2) + "\n").encode())
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=FIELDS, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow(r)
    atomic_write_bytes(os.path.join(out_dir, "metrics.csv"), buf.getvalue().encode())
