"""A tqdm progress bar that is quiet when the output is not a terminal.

``mode`` is 'auto' (a bar only when stderr is a terminal), 'on' or 'off'. ``TQDM_DISABLE=1`` is obeyed.

>>> bar = progress_bar(10, "epoch 1", mode="off")
>>> bar.update(3); bar.close()
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["progress_bar", "MODES"]

MODES = ("auto", "on", "off")


class _Null:
    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, s: str) -> None:
        pass

    def close(self) -> None:
        pass


def progress_bar(total: int, desc: str, *, mode: str = "auto") -> Any:
    """A bar over ``total`` batches (a do-nothing object when quiet)."""
    if mode not in MODES:
        raise ValueError(f"progress mode {mode!r}: expected one of {MODES}.")
    quiet = mode == "off" or (mode == "auto" and not sys.stderr.isatty()) \
        or os.environ.get("TQDM_DISABLE", "") not in ("", "0")
    if quiet:
        return _Null()
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="batch", leave=False, file=sys.stderr, dynamic_ncols=True)
