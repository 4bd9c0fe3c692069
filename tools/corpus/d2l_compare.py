"""Final values of d2l runs side by side: the series each run recorded, loaded from finished run folders
(``tools/corpus/d2l.py`` writes them), averaged over several runs of an engine (seeded runs).

    python tools/corpus/d2l.py --compare FW_DIRS MX_DIRS

>>> mean_finals([])
{}
"""

from __future__ import annotations

import collections
import glob
import json
from pathlib import Path

__all__ = ["load", "load_all", "final_losses", "loss_rows", "TRAINING_CHAPTERS", "runs", "mean_finals",
           "compare"]


def final_losses(records: list[dict]) -> dict[str, dict]:
    """Per section and cell: each recorded series' first and final value (mean over its last epoch)."""
    out = {}
    for sec in records:
        for rec in sec["cells"]:
            for label, points in (rec.get("series") or {}).items():
                if not points:
                    continue
                last_x = points[-1][0]
                tail = [y for x, y in points if x > last_x - 1.0] or [points[-1][1]]
                out[f"{sec['section']}:{rec['line']}:{label}"] = {
                    "first": points[0][1], "final": sum(tail) / len(tail), "n": len(points)}
    return out


def load(root: Path) -> list[dict]:
    path = root / "summary.json"
    return json.loads(path.read_text())["sections"] if path.exists() else []


def load_all(roots: list[Path]) -> list[dict]:
    """The sections of several runs of the same engine; a later run's record of a section wins."""
    merged: dict[str, dict] = {}
    for root in roots:
        for rec in load(root):
            merged[rec["section"]] = rec
    return [merged[k] for k in sorted(merged)]


# the chapters whose training runs are compared (linear regression through computer vision)
TRAINING_CHAPTERS = ("chapter_linear-regression", "chapter_linear-classification",
                     "chapter_multilayer-perceptrons", "chapter_builders-guide",
                     "chapter_convolutional-neural-networks", "chapter_convolutional-modern",
                     "chapter_recurrent-neural-networks", "chapter_recurrent-modern",
                     "chapter_attention-mechanisms-and-transformers", "chapter_optimization",
                     "chapter_computational-performance", "chapter_computer-vision")


def loss_rows(fw_records: list[dict], mx_records: list[dict]) -> list[tuple]:
    a, b = final_losses(fw_records), final_losses(mx_records)
    rows = []
    for key in sorted(set(a) | set(b)):
        if "loss" not in key.rsplit(":", 1)[-1] or not key.startswith(TRAINING_CHAPTERS):
            continue
        x, y = a.get(key), b.get(key)
        rel = (x["final"] - y["final"]) / abs(y["final"]) if x and y and y["final"] else None
        rows.append((key, x, y, rel))
    return rows


def runs(spec: str) -> list[Path]:
    """The run folders a --compare argument names: comma-separated, each a folder or a glob."""
    out: list[Path] = []
    for part in spec.split(","):
        matched = sorted(glob.glob(part))
        out += [Path(m) for m in matched] if matched else [Path(part)]
    return out


def mean_finals(folders: list[Path]) -> dict[str, list[float]]:
    """Per series (section:line:label): its final value in each run that recorded it."""
    out: dict[str, list[float]] = collections.defaultdict(list)
    for run in folders:
        for key, v in final_losses(load(run)).items():
            out[key].append(v["final"])
    return dict(out)


def compare(fw: str, mx: str) -> int:
    """Final values side by side; several runs per engine (seeded runs): their mean, spread and count,
    and the relative difference of the means."""
    a, b = mean_finals(runs(fw)), mean_finals(runs(mx))
    several = any(len(v) > 1 for v in (*a.values(), *b.values()))
    head = f"{'series':80} {'framework':>10} {'mxnet':>10} {'rel':>7}"
    print(head + (f"  {'fw min..max (n)':>24}  {'mx min..max (n)':>24}" if several else ""))
    for key in sorted(set(a) | set(b)):
        xs, ys = a.get(key, []), b.get(key, [])
        x = sum(xs) / len(xs) if xs else None
        y = sum(ys) / len(ys) if ys else None
        rel = f"{(x - y) / abs(y) * 100:+6.1f}%" if x is not None and y not in (None, 0) else ""
        fmt = lambda v: f"{v:10.4f}" if v is not None else f"{'-':>10}"  # noqa: E731
        spread = lambda vs: f"{min(vs):.4f}..{max(vs):.4f} ({len(vs)})" if vs else "-"  # noqa: E731
        line = f"{key[-80:]:80} {fmt(x)} {fmt(y)} {rel:>7}"
        print(line + (f"  {spread(xs):>24}  {spread(ys):>24}" if several else ""))
    return 0
