"""Argument helpers shared by the npx operator modules (private).

>>> _spatial("stride", (), 2, default=1, op="convolution")
(1, 1)
>>> _spatial("pad", 1, 3, default=0, op="pooling")
(1, 1, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..autograd import mode as _mode

# Channel-first and channel-last layouts MXNet accepts, by number of spatial dimensions.
_FIRST = {1: "NCW", 2: "NCHW", 3: "NCDHW"}
_LAST = {1: "NWC", 2: "NHWC", 3: "NDHWC"}


def _spatial(name: str, value: Any, nd: int, *, default: int, op: str) -> tuple[int, ...]:
    """Normalise an MXNet shape argument (``()``/None -> default, int -> repeated) to ``nd`` ints."""
    if value is None or (isinstance(value, Sequence) and len(value) == 0):
        return (default,) * nd
    if isinstance(value, int):
        return (int(value),) * nd
    try:
        out = tuple(int(v) for v in value)
    except TypeError:
        raise TypeError(f"{op}: {name} must be an int or a tuple of ints, got {value!r}") from None
    if len(out) != nd:
        raise ValueError(
            f"{op}: {name}={value!r} has {len(out)} values but the data has {nd} spatial dimension(s). "
            f"Pass {nd} values, one per spatial axis."
        )
    return out


def _layout(layout: str | None, nd: int, op: str) -> bool:
    """Return True for a channel-last layout (NWC/NHWC/NDHWC), False for channel-first."""
    if layout is None or layout == _FIRST.get(nd):
        return False
    if layout == _LAST.get(nd):
        return True
    raise ValueError(
        f"{op}: layout={layout!r} does not fit {nd}-D spatial data; expected "
        f"{_FIRST.get(nd)!r} (default) or {_LAST.get(nd)!r}."
    )


def _check_ndim(data: Any, nd: int, op: str, what: str = "kernel") -> None:
    if data.ndim != nd + 2:
        raise ValueError(
            f"{op}: {what} has {nd} spatial dimension(s) so data must be {nd + 2}-D "
            f"({_FIRST.get(nd, 'N,C,...')}), got data of shape {tuple(data.shape)}. "
            f"Pass a {what} with {data.ndim - 2} values or reshape the data."
        )


def _is_training(training: bool | None) -> bool:
    """Resolve ``training=None`` to ``framework.autograd.is_training()``."""
    if training is not None:
        return bool(training)
    return _mode.is_training()
