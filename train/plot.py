"""The PNG of the main job's curves: training loss and test accuracy per epoch.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "curves.png")
>>> plot_curves([{"epoch": 1, "loss": 1.5, "test_acc": 0.7}, {"epoch": 2, "loss": 0.8, "test_acc": 0.8}],
...             path, title="LeNet")
>>> os.path.getsize(path) > 0
True
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["plot_curves"]


def plot_curves(rows: Sequence[Mapping[str, Any]], path: str | os.PathLike, *, title: str = "",
                reference: Sequence[float] | None = None, reference_label: str = "reference loss") -> None:
    """Draw loss (left axis) and test accuracy (right axis) against the epoch and save a PNG;
    ``reference`` (losses of epochs 1, 2, ...) is drawn dashed for comparison."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    from .metrics import atomic_write_bytes

    epochs = [r["epoch"] for r in rows]
    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=100)
    try:
        ax.plot(epochs, [r["loss"] for r in rows], "o-", color="tab:blue", label="train loss")
        if reference:
            ref = list(reference)[: max(epochs)]
            ax.plot(range(1, len(ref) + 1), ref, "--", color="gray", label=reference_label)
            ax.legend(loc="center right", fontsize="small")
        ax.set_xlabel("epoch")
        ax.set_ylabel("train loss (mean per sample)", color="tab:blue")
        acc = ax.twinx()
        acc.plot(epochs, [r["test_acc"] for r in rows], "s-", color="tab:orange", label="test accuracy")
        acc.set_ylabel("test accuracy", color="tab:orange")
        ax.set_xticks(epochs)
        ax.grid(alpha=0.3)
        if title:
            ax.set_title(title)
        fig.tight_layout()
        import io

        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        atomic_write_bytes(path, buf.getvalue())
    finally:
        plt.close(fig)
