"""``mxnet.image.image``: the module MXNet 1.x's image functions live in. Libraries import helpers from it
by this path; the functions are the package's own (:mod:`framework.image`).

``_get_interp_method(interp, sizes)`` resolves MXNet's interpolation codes as MXNet 1.9.1 does (OpenCV's
numbering: 0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos; 9 picks from the sizes, 10 draws one at
random from Python's ``random``).

>>> _get_interp_method(9, (10, 10, 20, 20)), _get_interp_method(9, (20, 20, 10, 10)), _get_interp_method(9)
(2, 3, 2)
>>> _get_interp_method(1)
1
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from . import *  # noqa: F403
from . import __all__ as _package_all

__all__ = [*_package_all, "_get_interp_method"]


def _get_interp_method(interp: int, sizes: Sequence[int] = ()) -> int:
    """The interpolation code (0-4) that ``interp`` stands for, given ``(old_h, old_w, new_h, new_w)``."""
    if interp == 9:
        if not sizes:
            return 2
        if len(sizes) != 4:
            raise ValueError(f"_get_interp_method: sizes must be (old_h, old_w, new_h, new_w), got {sizes!r}")
        oh, ow, nh, nw = sizes
        if nh > oh and nw > ow:
            return 2
        if nh < oh and nw < ow:
            return 3
        return 1
    if interp == 10:
        return random.randint(0, 4)
    if interp not in (0, 1, 2, 3, 4):
        raise ValueError(f"Unknown interp method {interp}: use 0-4, 9 (by size) or 10 (random)")
    return interp
