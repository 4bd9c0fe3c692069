"""The schema of a checkpoint's metadata: every field checked for type and range before it is used.

A digest proves that a file is the one a writer wrote, not that the writer (or whoever crafted the file)
wrote something usable: :func:`validate` is applied after the digest check, field by field, and
answers with a :class:`SchemaError` naming the field, what it holds and what was expected.

>>> validate({"epoch": 2}, required=("epoch",))
>>> validate({"epoch": "one"}, required=("epoch",))
Traceback (most recent call last):
...
train.checkpoint_schema.SchemaError: field 'epoch' is 'one' (str); expected an integer from 0 to 1000000
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["SchemaError", "validate", "FIELDS", "JOB_FIELDS", "MAX_EPOCHS"]

MAX_EPOCHS = 1_000_000
_MAX_ITEMS = 4096  # devices, history rows, fingerprint entries


class SchemaError(ValueError):
    """A metadata field of the wrong type or out of range."""


def _show(v: Any) -> str:
    text = repr(v)
    return (text if len(text) <= 60 else text[:57] + "...") + f" ({type(v).__name__})"


def _fail(name: str, value: Any, expected: str) -> SchemaError:
    return SchemaError(f"field {name!r} is {_show(value)}; expected {expected}")


def _int(name: str, v: Any, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise _fail(name, v, f"an integer from {lo} to {hi}")
    return v


def _number(name: str, v: Any, lo: float = -math.inf, hi: float = math.inf, *,
            open_lo: bool = False) -> float:
    ok = isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and v <= hi \
        and (v > lo if open_lo else v >= lo)
    if not ok:
        low = f"above {lo}" if open_lo else (f"from {lo}" if lo > -math.inf else "")
        high = f" to {hi}" if hi < math.inf else ""
        raise _fail(name, v, f"a finite number {low}{high}".rstrip())
    return float(v)


def _dict(name: str, v: Any, keys: Iterable[str] | None = None) -> Mapping[str, Any]:
    if not isinstance(v, dict) or len(v) > _MAX_ITEMS or not all(isinstance(k, str) for k in v):
        raise _fail(name, v, "an object (dictionary) with string keys")
    if keys is not None and set(v) != set(keys):
        raise _fail(name, v, f"an object with exactly the keys {sorted(keys)}")
    return v


def _list(name: str, v: Any) -> list[Any]:
    if not isinstance(v, list) or len(v) > _MAX_ITEMS:
        raise _fail(name, v, f"a list of at most {_MAX_ITEMS} items")
    return v


def _scalar(v: Any) -> bool:
    if isinstance(v, float):
        return math.isfinite(v)
    return v is None or isinstance(v, bool | int | str)


def _fingerprint(name: str, v: Any, meta: Mapping[str, Any]) -> None:
    for k, item in _dict(name, v).items():
        if not (_scalar(item) or (isinstance(item, list) and len(item) <= 64 and all(map(_scalar, item)))):
            raise _fail(f"{name}.{k}", item, "a number, string, boolean, null or a short list of them")


def _rng(name: str, v: Any, meta: Mapping[str, Any]) -> None:
    d = _dict(name, v, ("seed", "count"))
    _int(f"{name}.seed", d["seed"], -(2 ** 63), 2 ** 64 - 1)
    _int(f"{name}.count", d["count"], 0, 2 ** 32 - 1)  # folded into the key as a uint32


def _data_order(name: str, v: Any, meta: Mapping[str, Any]) -> None:
    d = _dict(name, v, ("scheme", "seed", "next_epoch", "n"))
    if not isinstance(d["scheme"], str):
        raise _fail(f"{name}.scheme", d["scheme"], "a string")
    _int(f"{name}.seed", d["seed"], -(2 ** 63), 2 ** 64 - 1)
    _int(f"{name}.n", d["n"], 0, 2 ** 40)
    nxt = _int(f"{name}.next_epoch", d["next_epoch"], 0, MAX_EPOCHS)
    if "epoch" in meta and nxt != meta["epoch"]:
        raise _fail(f"{name}.next_epoch", nxt, f"the completed epoch count ({meta['epoch']})")


_ROW = {"epoch": (1, MAX_EPOCHS), "loss": None, "test_acc": (0.0, 1.0), "seconds": (0.0, math.inf),
        "samples_per_s": (0.0, math.inf)}


def _history(name: str, v: Any, meta: Mapping[str, Any]) -> None:
    rows = _list(name, v)
    if "epoch" in meta and len(rows) != meta["epoch"]:
        raise _fail(name, f"<{len(rows)} rows>", f"one row per completed epoch ({meta['epoch']})")
    for i, row in enumerate(rows):
        where = f"{name}[{i}]"
        _dict(where, row, _ROW)
        if _int(f"{where}.epoch", row["epoch"], 1, MAX_EPOCHS) != i + 1:
            raise _fail(f"{where}.epoch", row["epoch"], f"{i + 1} (rows in epoch order)")
        for key, bounds in _ROW.items():
            if key != "epoch":
                _number(f"{where}.{key}", row[key], *(bounds or ()))


def _lr(name: str, v: Any, meta: Mapping[str, Any]) -> None:
    _number(name, v, 0.0, open_lo=True)


def _devices(name: str, v: Any, meta: Mapping[str, Any]) -> None:
    for i, d in enumerate(_list(name, v)):
        if not isinstance(d, str) or len(d) > 256:
            raise _fail(f"{name}[{i}]", d, "a device name (string)")


def _finished(name: str, v: Any, meta: Mapping[str, Any]) -> None:
    if not isinstance(v, bool):
        raise _fail(name, v, "true or false")


def _epoch(name: str, v: Any, meta: Mapping[str, Any]) -> None:
    _int(name, v, 0, MAX_EPOCHS)


FIELDS: dict[str, Callable[[str, Any, Mapping[str, Any]], None]] = {
    "epoch": _epoch, "fingerprint": _fingerprint, "rng": _rng, "data_order": _data_order,
    "history": _history, "lr": _lr, "devices": _devices, "finished": _finished,
}
"""Every metadata field the main job reads, with its check (``epoch`` first: others refer to it)."""

JOB_FIELDS = tuple(FIELDS)
"""The fields a checkpoint of ``python -m train`` must have."""

_HEX64 = re.compile(r"[0-9a-f]{64}")


def validate(meta: Mapping[str, Any], *, required: Iterable[str] = JOB_FIELDS) -> None:
    """Check every known field of ``meta`` (and that ``required`` ones are present); :class:`SchemaError`."""
    if not isinstance(meta, dict):
        raise _fail("<metadata>", meta, "an object (dictionary)")
    missing = [k for k in required if k not in meta]
    if missing:
        raise SchemaError(f"field(s) {missing} missing; a checkpoint of `python -m train` has {list(FIELDS)}")
    if "epoch" in meta:  # first: the others are checked against it
        _epoch("epoch", meta["epoch"], {})
    for key, check in FIELDS.items():
        if key in meta:
            check(key, meta[key], meta)


def is_digest(value: Any) -> bool:
    """Whether ``value`` has the form of a SHA-256 hex digest."""
    return isinstance(value, str) and _HEX64.fullmatch(value) is not None
