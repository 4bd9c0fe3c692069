"""Resumable checkpoints: one file, MXNet's ``.params`` container, written atomically.

A checkpoint holds the training state as named arrays (``param/<name>``, ``opt/<path>``, ``num_update``)
and one ``__meta__`` array: UTF-8 JSON with the completed epoch count, the settings fingerprint, the
framework RNG position, the data-order state, the metrics so far and a SHA-256 digest of every array.
``save`` goes through :func:`framework.serialization.save` (temporary file in the same directory,
fsync, rename, directory fsync), so a crash leaves the previous checkpoint or the new one, never a mix.
``load`` checks structure and digest, so a damaged file raises :class:`CheckpointError` instead of
resuming from garbage. Nothing here unpickles.

>>> import os, tempfile
>>> import numpy as onp
>>> path = os.path.join(tempfile.mkdtemp(), "checkpoint.params")
>>> save(path, {"param/w": onp.ones(3, "float32")}, {"epoch": 2})
>>> ckpt = load(path)
>>> ckpt.epoch, ckpt.arrays["param/w"].tolist()
(2, [1.0, 1.0, 1.0])
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as onp

__all__ = ["Checkpoint", "CheckpointError", "save", "load", "digest", "compare_fingerprints", "FORMAT"]

FORMAT = "framework-train-checkpoint"
VERSION = 1
_META = "__meta__"


class CheckpointError(RuntimeError):
    """A checkpoint that cannot be used: damaged, of another format, or made by a different run."""


@dataclass
class Checkpoint:
    """What :func:`load` returns: the arrays and the metadata (``meta['epoch']`` epochs completed)."""

    arrays: dict[str, onp.ndarray]
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def epoch(self) -> int:
        return int(self.meta.get("epoch", 0))


def digest(arrays: Mapping[str, Any]) -> str:
    """SHA-256 over names, dtypes, shapes and bytes of ``arrays`` (in name order)."""
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = onp.ascontiguousarray(arrays[name])
        h.update(f"{name}\0{a.dtype.str}\0{a.shape}\0".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def save(path: str | os.PathLike, arrays: Mapping[str, Any], meta: Mapping[str, Any]) -> None:
    """Write ``arrays`` and ``meta`` (JSON-serialisable) to ``path`` atomically."""
    from framework import serialization

    host = {str(k): onp.asarray(v) for k, v in arrays.items()}
    if _META in host:
        raise ValueError(f"checkpoint.save: the array name {_META!r} is reserved for the metadata.")
    info = {"format": FORMAT, "version": VERSION, **meta, "digest": digest(host)}
    blob = json.dumps(info, sort_keys=True).encode("utf-8")
    host[_META] = onp.frombuffer(blob, dtype=onp.uint8)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    serialization.save(path, host)


def _damaged(path: str, why: str) -> CheckpointError:
    return CheckpointError(
        f"checkpoint {path} is damaged ({why}). It was left as it is. Move it away to keep it, then resume "
        "from another copy, or start again with --overwrite (or another --out directory)."
    )


def load(path: str | os.PathLike) -> Checkpoint:
    """Read and verify a checkpoint written by :func:`save`."""
    from framework import serialization

    path = os.fspath(path)
    try:
        arrays = serialization.load_numpy(path)
    except FileNotFoundError:
        raise
    except (serialization.ParamsFormatError, ValueError, OSError) as err:
        raise _damaged(path, f"not a readable .params file: {err}") from err
    if not isinstance(arrays, dict) or _META not in arrays:
        raise _damaged(path, f"no {_META!r} entry; it is not a checkpoint of `python -m train`")
    raw = arrays.pop(_META)
    try:
        meta = json.loads(bytes(onp.asarray(raw, onp.uint8)).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise _damaged(path, f"its metadata is not valid JSON: {err}") from err
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise _damaged(path, f"metadata format is {meta.get('format') if isinstance(meta, dict) else meta!r}"
                             f", expected {FORMAT!r}")
    if meta.get("version") != VERSION:
        raise CheckpointError(
            f"checkpoint {path} has version {meta.get('version')!r}; this program reads version {VERSION}. "
            "Resume it with the program version that wrote it, or start again with --overwrite."
        )
    expected, actual = meta.get("digest"), digest(arrays)
    if expected != actual:
        raise _damaged(path, f"content digest {actual[:12]}... does not match the recorded "
                             f"{str(expected)[:12]}...")
    return Checkpoint(arrays, meta)


def compare_fingerprints(saved: Mapping[str, Any], current: Mapping[str, Any], path: str) -> None:
    """Raise :class:`CheckpointError` naming every setting in which a checkpoint differs from this run."""
    keys = sorted(set(saved) | set(current))
    diffs = [f"{k}: checkpoint {saved.get(k)!r}, now {current.get(k)!r}" for k in keys
             if _norm(saved.get(k)) != _norm(current.get(k))]
    if diffs:
        raise CheckpointError(
            f"checkpoint {path} was made by a run with other settings ({'; '.join(diffs)}). It was left as "
            "it is. Resume with the same settings, or start a new run with --overwrite or another --out."
        )


def _norm(v: Any) -> Any:
    return list(v) if isinstance(v, tuple) else v
