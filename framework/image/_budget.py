"""The pixel budget: no image decode or resize makes an image larger than it allows.

An image costs its pixels plus 16 for each row (the decoder keeps each row apart: a 1-pixel-wide image
of N rows costs as much memory as 17 N pixels). ``width * height + 16 * height`` must be at most the
budget, checked from the image's header before a byte is decoded and from the target size before a
resize. A decode's peak memory is then about 12 bytes per budgeted pixel at most (RGB through Pillow),
so the default, 2**25 (an 8K frame, 7680 x 4320, fits), bounds it near 400 MB.

Override it for the process with :func:`set_max_pixels` (or the environment variable
``FRAMEWORK_IMAGE_MAX_PIXELS`` at import), or for one call with ``imdecode(..., max_pixels=N)``.

>>> from framework import image
>>> old = image.set_max_pixels(1000)
>>> try:
...     image.imresize(__import__('numpy').zeros((2, 2, 3), 'uint8'), 100, 100)
... except ValueError as e:
...     print(str(e)[:78])
imresize: a 100x100 (width x height) image costs 11600 pixels, above the image
>>> _ = image.set_max_pixels(old)
"""

from __future__ import annotations

from .. import config

__all__ = ["set_max_pixels", "get_max_pixels", "check_pixels", "DEFAULT_MAX_PIXELS", "ROW_COST"]

DEFAULT_MAX_PIXELS = config.SWITCHES["image_max_pixels"].default
ROW_COST = 16


_state = {"max": config.get("image_max_pixels")}


def get_max_pixels() -> int:
    """The current pixel budget."""
    return _state["max"]


def set_max_pixels(n: int) -> int:
    """Set the pixel budget for this process (every decode and resize); returns the previous one."""
    if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
        raise ValueError(f"set_max_pixels: n must be a positive int number of pixels; got {n!r}")
    old, _state["max"] = _state["max"], n
    return old


def check_pixels(w: int, h: int, what: str, max_pixels: int | None = None) -> None:
    """Raise ``ValueError`` naming ``what`` when a ``w`` x ``h`` image is above the budget."""
    budget = _state["max"] if max_pixels is None else max_pixels
    cost = int(w) * int(h) + ROW_COST * int(h)
    if cost > budget:
        raise ValueError(f"{what}: a {w}x{h} (width x height) image costs {cost} pixels, above the image "
                         f"pixel budget of {budget} (a decompression bomb, or a resize too large). Raise it "
                         "with framework.image.set_max_pixels(n) or FRAMEWORK_IMAGE_MAX_PIXELS if you trust "
                         "the image.")
