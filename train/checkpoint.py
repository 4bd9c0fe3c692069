"""Resumable checkpoints: one file, MXNet's ``.params`` container, written atomically.

A checkpoint holds the training state as named arrays (``param/<name>``, ``opt/<path>``, ``num_update``,
``opt_meta``: the Trainer state file's metadata with its digest)
and one ``__meta__`` array: UTF-8 JSON with the completed epoch count, the settings fingerprint, the
framework RNG position, the data-order state, the metrics so far and a SHA-256 digest of every array
AND of the metadata itself (all of it but the digest field, as canonical JSON). :func:`save` writes a
temporary file in the same directory, fsyncs it, renames it over the old file and fsyncs the
directory, so a crash leaves the previous checkpoint or the new one, never a mix. :func:`load` checks
the structure, the digest, then every metadata field's type and range
(:mod:`train.checkpoint_schema`), so a damaged or crafted file raises :class:`CheckpointError` instead
of resuming from garbage. Nothing here unpickles.

>>> import os, tempfile
>>> import numpy as onp
>>> path = os.path.join(tempfile.mkdtemp(), "checkpoint.params")
>>> save(path, {"param/w": onp.ones(3, "float32")}, {"epoch": 2})
>>> ckpt = load(path, required=("epoch",))
>>> ckpt.epoch, ckpt.arrays["param/w"].tolist()
(2, [1.0, 1.0, 1.0])
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as onp

from . import checkpoint_schema as schema
from . import faultpoints

__all__ = ["Checkpoint", "CheckpointError", "save", "load", "digest", "compare_fingerprints", "FORMAT",
           "VERSION", "temporary_files"]

FORMAT = "framework-train-checkpoint"
VERSION = 2  # 2: the digest covers the metadata too (version 1 covered the arrays only)
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

    @property
    def digest(self) -> str:
        return str(self.meta.get("digest", ""))


def _canonical(meta: Mapping[str, Any]) -> bytes:
    body = {k: v for k, v in meta.items() if k != "digest"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def digest(arrays: Mapping[str, Any], meta: Mapping[str, Any] | None = None) -> str:
    """SHA-256 over names, dtypes, shapes and bytes of ``arrays`` (in name order), then over ``meta``
    (every field but ``digest``, as canonical JSON)."""
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = onp.ascontiguousarray(arrays[name])
        h.update(f"{name}\0{a.dtype.str}\0{a.shape}\0".encode())
        h.update(a.tobytes())
    h.update(b"\0" + _META.encode() + b"\0")
    h.update(_canonical(meta or {}))
    return h.hexdigest()


def temporary_files(path: str | os.PathLike) -> list[str]:
    """Temporary files that an interrupted :func:`save` of ``path`` may have left."""
    directory, base = os.path.split(os.path.abspath(os.fspath(path)))
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    return [os.path.join(directory, n) for n in names if n.startswith(f".{base}.") and n.endswith(".tmp")]


def save(path: str | os.PathLike, arrays: Mapping[str, Any], meta: Mapping[str, Any]) -> None:
    """Write ``arrays`` and ``meta`` (JSON-serialisable) to ``path`` atomically."""
    from framework import serialization

    host = {str(k): onp.asarray(v) for k, v in arrays.items()}
    if _META in host:
        raise ValueError(f"checkpoint.save: the array name {_META!r} is reserved for the metadata.")
    info = {**meta, "format": FORMAT, "version": VERSION}
    info["digest"] = digest(host, info)
    blob = json.dumps(info, sort_keys=True, allow_nan=False).encode("utf-8")
    host[_META] = onp.frombuffer(blob, dtype=onp.uint8)
    data = serialization.dumps(host)
    target = os.path.abspath(os.fspath(path))
    directory, base = os.path.split(target)
    os.makedirs(directory, exist_ok=True)
    faultpoints.reached("ckpt-begin")
    temp = os.path.join(directory, f".{base}.{secrets.token_hex(6)}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            half = len(data) // 2
            f.write(data[:half])
            f.flush()
            faultpoints.reached("ckpt-half")
            f.write(data[half:])
            f.flush()
            faultpoints.reached("ckpt-written")
            os.fsync(f.fileno())
        faultpoints.reached("ckpt-fsynced")
        os.replace(temp, target)
    except BaseException:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass
        raise
    faultpoints.reached("ckpt-renamed")
    _fsync_directory(directory)
    faultpoints.reached("ckpt-dir-synced")


def _fsync_directory(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # platforms that cannot open directories
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _damaged(path: str, why: str) -> CheckpointError:
    return CheckpointError(
        f"checkpoint {path} is damaged ({why}). It was left as it is. Move it away to keep it, then resume "
        "from another copy, or start again with --overwrite (or another --out directory)."
    )


def load(path: str | os.PathLike, *, required: Iterable[str] = schema.JOB_FIELDS) -> Checkpoint:
    """Read and verify a checkpoint written by :func:`save`: structure, digest (arrays and metadata),
    then every metadata field against :mod:`train.checkpoint_schema` (``required`` must be present)."""
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
    if raw.dtype != onp.uint8 or raw.ndim != 1:
        raise _damaged(path, f"its {_META!r} entry is {raw.dtype} {raw.shape}, expected 1-d uint8 JSON text")
    try:
        meta = json.loads(raw.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        raise _damaged(path, f"its metadata is not valid JSON: {err}") from err
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        found = meta.get("format") if isinstance(meta, dict) else type(meta).__name__
        raise _damaged(path, f"metadata format is {found!r}, expected {FORMAT!r}")
    version = meta.get("version")
    if version != VERSION or isinstance(version, bool):
        raise CheckpointError(
            f"checkpoint {path} has version {version!r}; this program reads version {VERSION} (version 1's "
            "digest did not cover the metadata). Resume it with the program version that wrote it, or "
            "start again with --overwrite."
        )
    expected = meta.get("digest")
    if not schema.is_digest(expected):
        raise _damaged(path, f"its recorded digest {str(expected)[:20]!r} is not a SHA-256 hex digest")
    try:
        actual = digest(arrays, meta)
    except (TypeError, ValueError) as err:  # metadata the writer could not have produced
        raise _damaged(path, f"its metadata cannot be digested: {err}") from err
    if expected != actual:
        raise _damaged(path, f"content digest {actual[:12]}... of the arrays and metadata does not match "
                             f"the recorded {expected[:12]}...")
    try:
        schema.validate(meta, required=required)
    except schema.SchemaError as err:
        raise CheckpointError(
            f"checkpoint {path} has invalid metadata: {err}. Its digest is intact, so the program that "
            "wrote it is at fault (or it was crafted). It was left as it is; start again with --overwrite "
            "or another --out directory."
        ) from err
    return Checkpoint(arrays, meta)


def compare_fingerprints(saved: Mapping[str, Any], current: Mapping[str, Any], path: str) -> None:
    """Raise :class:`CheckpointError` naming every setting in which a checkpoint differs from this run."""
    if not isinstance(saved, Mapping):
        raise CheckpointError(f"checkpoint {path} has no settings fingerprint (got {type(saved).__name__}).")
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
