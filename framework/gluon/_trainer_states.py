"""``Trainer.save_states`` / ``load_states``: the optimizer state in MXNet's ``.params`` container.

One array per optimizer-state leaf (named by its path in the optax state) and a ``__meta__`` array of
UTF-8 JSON (``num_update``, ``learning_rate``, ``optimizer``). Loading validates everything before
anything is changed: the metadata field by field, the optimizer it was saved for, and every array's
name, shape and kind; a bad file raises ``ValueError`` naming the file and what is wrong, and leaves
the trainer as it was. Nothing is unpickled.

Format 2 (this one) adds ``format`` and ``sha256`` to the metadata: a SHA-256 digest over the other
metadata fields and every array's name, dtype, shape and bytes, checked before anything else, so a
flipped byte is refused. Files without a format (written before it) still load, with a warning. Optimizer
state that is not finite (NaN/Inf) is refused unless ``allow_non_finite=True``.

>>> import os, tempfile
>>> from framework import autograd, gluon, np
>>> net = gluon.nn.Dense(1, in_units=2); net.initialize()
>>> trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1, 'momentum': 0.9})
>>> path = os.path.join(tempfile.mkdtemp(), 'trainer.states')
>>> trainer.save_states(path); trainer.load_states(path); trainer.optimizer.num_update
0
"""

from __future__ import annotations

import hashlib
import json
import math
import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

__all__ = ["save_states", "load_states"]

_META = "__meta__"
FORMAT = 2


def _digest(meta: dict[str, Any], arrays: dict[str, Any]) -> str:
    """SHA-256 over the metadata (less ``sha256``) and every array but the metadata's, in name order."""
    h = hashlib.sha256()
    h.update(json.dumps({k: v for k, v in meta.items() if k != "sha256"}, sort_keys=True).encode())
    for name in sorted(k for k in arrays if k != _META):
        value = arrays[name]
        if value is None:
            h.update(f"\0{name}\0None".encode())
            continue
        value = onp.ascontiguousarray(value)
        h.update(f"\0{name}\0{value.dtype.str}\0{value.shape}\0".encode())
        h.update(value.tobytes())
    return h.hexdigest()


def save_states(trainer: Any, fname: str) -> None:
    from .. import serialization

    if trainer._update_fn is None:
        trainer._init()
    dev = trainer._devices()[0]
    leaves, _ = jax.tree_util.tree_flatten_with_path(trainer._states[dev])
    arrays = {jax.tree_util.keystr(path): onp.asarray(v) for path, v in leaves}
    meta = {"format": FORMAT, "num_update": trainer._optimizer.num_update,
            "learning_rate": trainer.learning_rate, "optimizer": type(trainer._optimizer).__name__}
    meta["sha256"] = _digest(meta, arrays)
    arrays[_META] = onp.frombuffer(json.dumps(meta).encode(), dtype=onp.uint8)
    serialization.save(fname, arrays)


def _meta(fname: str, arrays: Any, optimizer: str) -> dict[str, Any]:
    def bad(why: str) -> ValueError:
        return ValueError(f"{fname}: not a Trainer state file of this framework ({why}). Write it with "
                          "trainer.save_states(fname).")

    if not isinstance(arrays, dict) or _META not in arrays:
        raise bad(f"no {_META!r} entry")
    raw = arrays[_META]
    if raw is None or raw.dtype != onp.uint8 or raw.ndim != 1:
        raise bad(f"its {_META!r} entry is not 1-d uint8 JSON text")
    try:
        meta = json.loads(raw.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        raise bad(f"its metadata is not valid JSON: {err}") from None
    if not isinstance(meta, dict):
        raise bad(f"its metadata is a {type(meta).__name__}, expected an object")
    version = meta.get("format")
    if version is None:
        warnings.warn(f"{fname}: a Trainer state file without a digest (written before format {FORMAT}); "
                      "it cannot be checked for damage. Save it again with trainer.save_states to add one.",
                      UserWarning, stacklevel=4)
    elif version != FORMAT:
        raise bad(f"format {version!r}; this framework reads format {FORMAT} (and older files without one)")
    elif meta.get("sha256") != _digest(meta, arrays):
        raise ValueError(f"{fname}: the Trainer state file is damaged: its SHA-256 digest does not match its "
                         "content (a changed or truncated file). Use another copy, or save the states again.")
    n, lr, opt = meta.get("num_update"), meta.get("learning_rate"), meta.get("optimizer")
    if type(n) is not int or not 0 <= n < 2**62:
        raise bad(f"num_update is {n!r}; expected an int >= 0")
    if isinstance(lr, bool) or not isinstance(lr, (int, float)) or not math.isfinite(lr) or lr < 0:
        raise bad(f"learning_rate is {lr!r}; expected a finite number >= 0")
    if not isinstance(opt, str):
        raise bad(f"optimizer is {opt!r}; expected the optimizer's class name")
    if opt != optimizer:
        raise ValueError(f"{fname}: the states were saved for optimizer {opt!r}; this Trainer uses "
                         f"{optimizer!r}. Create the Trainer with the optimizer that saved them.")
    return meta


def load_states(trainer: Any, fname: str, allow_non_finite: bool = False) -> None:
    from .. import serialization

    if trainer._update_fn is None:
        trainer._init()
    arrays = serialization.load_numpy(fname)
    meta = _meta(fname, arrays, type(trainer._optimizer).__name__)
    devices = trainer._devices()
    leaves, treedef = jax.tree_util.tree_flatten_with_path(trainer._states[devices[0]])
    host = []
    for path, old in leaves:
        name = jax.tree_util.keystr(path)
        value = arrays.get(name)
        if value is None:
            raise ValueError(f"{fname}: optimizer state {name!r} is missing; the file was saved for another "
                             "optimizer or set of parameters.")
        old_shape, old_dtype = tuple(jnp.shape(old)), jnp.asarray(old).dtype
        if tuple(value.shape) != old_shape or value.dtype.kind not in "biuf":
            raise ValueError(f"{fname}: optimizer state {name!r} is {value.dtype} {tuple(value.shape)}; this "
                             f"Trainer's is {old_dtype} {old_shape}. The file was saved for other "
                             "parameters.")
        value = onp.asarray(value).astype(old_dtype)
        if not allow_non_finite and value.dtype.kind == "f" and not onp.isfinite(value).all():
            raise ValueError(f"{fname}: optimizer state {name!r} holds NaN or Inf; training from it would "
                             "corrupt the parameters. Use another copy of the states, or pass "
                             "allow_non_finite=True to load it anyway.")
        host.append(value)
    extra = sorted(set(arrays) - {jax.tree_util.keystr(p) for p, _ in leaves} - {_META})
    if extra:
        raise ValueError(f"{fname}: holds optimizer states this Trainer does not have: {extra[:5]}; the file "
                         "was saved for another optimizer or set of parameters.")
    # the optimizer refuses a learning rate it cannot train with (e.g. negative) before anything changes
    trainer._optimizer.set_learning_rate(float(meta["learning_rate"]))
    for dev in devices:  # everything is checked: now replace
        trainer._states[dev] = jax.tree_util.tree_unflatten(treedef, jax.device_put(host, dev))
    trainer._optimizer.num_update = meta["num_update"]
