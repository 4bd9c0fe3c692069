"""Picklable helpers for the record-dataset tests' DataLoader workers (numpy only)."""

from __future__ import annotations

import numpy as onp


class PadTo:
    """A ``transform(img, label)`` that zero-pads HWC images to (h, w) so they batch."""

    def __init__(self, h: int, w: int) -> None:
        self.h, self.w = h, w

    def __call__(self, img, label):
        out = onp.zeros((self.h, self.w, img.shape[2]), onp.uint8)
        out[: img.shape[0], : img.shape[1]] = img
        return out, label
