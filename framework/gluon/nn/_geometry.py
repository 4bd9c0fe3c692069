"""The window arguments shared by the convolution and pooling layers: their layouts per dimension, and
``kernel_size``/``strides``/``padding`` given as one int or one per spatial axis.

>>> _tuple("strides", 2, 2, "Conv2D"), LAYOUTS[2]
((2, 2), ('NCHW', 'NHWC'))
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["LAYOUTS", "_tuple"]

#: The layouts a layer of 1, 2 or 3 spatial dimensions accepts (the first is its default).
LAYOUTS = {1: ("NCW", "NWC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _tuple(name: str, value: int | Sequence[int], nd: int, layer: str) -> tuple[int, ...]:
    """``value`` as one int per spatial axis; a clear error naming ``layer`` and ``name`` otherwise."""
    if isinstance(value, int):
        return (value,) * nd
    out = tuple(int(v) for v in value)
    if len(out) != nd:
        raise ValueError(f"{layer}: {name} must be a number or a list of {nd} ints, got {value!r}")
    return out
