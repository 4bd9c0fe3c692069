"""Typed reading of MXNet's string attributes (``"(1, 1)"``, ``"False"``, ``"None"``, ``"1e-05"``).

Nothing is evaluated: tuples are split by hand and each item parsed as an int (or ``None``).

>>> a = Attrs({"kernel": "(3, 3)", "no_bias": "False", "eps": "1e-05", "axes": "None"}, "conv0")
>>> a.shape("kernel"), a.bool("no_bias"), a.float("eps"), a.opt_shape("axes")
((3, 3), False, 1e-05, None)
"""

from __future__ import annotations

import functools
import json
from typing import Any

__all__ = ["Attrs", "AttrError", "SUBGRAPHS"]

#: The attribute that carries a node's ``subgraphs`` (the fused operators of MXNet's subgraph backends,
#: ``_sg_mkldnn_conv``): their JSON text, validated as graphs on load and written back as ``subgraphs``.
SUBGRAPHS = "__subgraphs__"

_MISSING = object()

_parse_subgraphs = functools.lru_cache(maxsize=256)(json.loads)  # one parse per node text, not per call


class AttrError(ValueError):
    """An operator attribute that cannot be read (names the node, the attribute and the value)."""


class Attrs:
    """A node's attributes with typed getters; the error names the node and the attribute."""

    def __init__(self, raw: dict[str, str], node: str, op: str = "") -> None:
        self.raw = {k: v for k, v in raw.items() if not k.startswith("__")}
        self.node = node
        self.op = op
        self._subgraphs = raw.get(SUBGRAPHS)

    def subgraphs(self) -> list[dict[str, Any]]:
        """The node's subgraphs (MXNet's fused operators): their JSON documents, validated on load (shared:
        read them, do not change them)."""
        return _parse_subgraphs(self._subgraphs) if self._subgraphs else []

    def _err(self, key: str, value: str, what: str) -> AttrError:
        return AttrError(f"symbol node {self.node!r} (op {self.op!r}): attribute {key}={value!r} is not "
                         f"{what}")

    def has(self, key: str) -> bool:
        return key in self.raw and self.raw[key] not in ("None", "")

    def str(self, key: str, default: Any = _MISSING) -> Any:
        if key not in self.raw:
            if default is _MISSING:
                raise AttrError(f"symbol node {self.node!r} (op {self.op!r}) needs attribute {key!r}")
            return default
        return self.raw[key]

    def int(self, key: str, default: Any = _MISSING) -> Any:
        v = self.str(key, default)
        if not isinstance(v, str):
            return v
        if v == "None":
            return None if default is _MISSING else default
        try:
            return int(v)
        except ValueError:
            pass
        try:
            f = float(v)
        except ValueError:
            f = 0.5
        if not f.is_integer():
            raise self._err(key, v, "an integer")
        return int(f)

    def float(self, key: str, default: Any = _MISSING) -> Any:
        v = self.str(key, default)
        if not isinstance(v, str):
            return v
        if v == "None":
            return None if default is _MISSING else default
        try:
            return float(v)
        except ValueError:
            raise self._err(key, v, "a number") from None

    def bool(self, key: str, default: Any = False) -> bool:
        v = self.str(key, default)
        if not isinstance(v, str):
            return bool(v)
        low = v.strip().lower()
        if low in ("true", "1"):
            return True
        if low in ("false", "0", "none"):
            return False
        raise self._err(key, v, "a boolean (True/False/1/0)")

    def opt_shape(self, key: str, default: Any = None) -> Any:
        """A tuple of ints (``None`` for ``"None"`` or a missing key); ``"3"`` is ``(3,)``."""
        v = self.str(key, None)
        if v is None or v.strip() in ("None", ""):
            return default
        return parse_tuple(v, lambda: self._err(key, v, "a tuple of integers"))

    def shape(self, key: str, default: Any = _MISSING) -> Any:
        v = self.opt_shape(key, _MISSING)
        if v is _MISSING:
            if default is _MISSING:
                raise AttrError(f"symbol node {self.node!r} (op {self.op!r}) needs attribute {key!r}")
            return default
        return v

    def axis(self, key: str = "axis") -> Any:
        """None, an int or a tuple of ints (MXNet reductions accept all three)."""
        v = self.str(key, None)
        if v is None or v.strip() in ("None", "()", "[]", ""):
            return None
        t = parse_tuple(v, lambda: self._err(key, v, "an axis or a tuple of axes"))
        return t[0] if len(t) == 1 and "(" not in v and "[" not in v else t


def parse_tuple(text: str, err) -> tuple:
    s = text.strip()
    if s[:1] in "([" and s[-1:] in ")]":
        s = s[1:-1]
    if len(s) > 4096:
        raise err()
    out: list[Any] = []
    for item in s.split(","):
        item = item.strip()
        if not item:
            continue
        if item == "None":
            out.append(None)
            continue
        if item.endswith("L"):
            item = item[:-1]
        try:
            out.append(int(item))
        except ValueError:
            raise err() from None
    return tuple(out)
