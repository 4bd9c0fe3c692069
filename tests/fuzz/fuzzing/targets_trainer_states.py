"""``Trainer.load_states`` files (the optimizer state in MXNet's container with a JSON ``__meta__``).

Valid files are written by ``save_states`` of an SGD-with-momentum and an Adam trainer over a small
network, with random state values and counters. A structured mutation changes one metadata value or
one state array (another shape, dtype or name) and writes the file again with the library's own
writer (with its digest made consistent in most cases, so the checks behind the digest are reached).
A state array of NaN/Inf must be refused. The documented error is ``ValueError`` naming the file
(``ParamsFormatError`` is one); a rejected file must leave the trainer's state as it was.

>>> import random
>>> TARGET.generate(random.Random(0)).label.startswith("states ")
True
"""

from __future__ import annotations

import copy
import json
import os
import random
import tempfile
from typing import Any

import jax
import numpy as onp

from framework import gluon, serialization
from framework.gluon._trainer_states import FORMAT, _digest

from .engine import INTERESTING, Target, Valid

__all__ = ["TARGET"]

_SCRATCH = os.path.join("/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir(),
                        f"fuzz-states-{os.getpid()}.states")
_TRAINERS: dict[str, Any] = {}


def _trainer(kind: str) -> Any:
    if kind not in _TRAINERS:
        net = gluon.nn.Dense(3, in_units=2)
        net.initialize()
        opt = {"sgd": ("sgd", {"learning_rate": 0.1, "momentum": 0.9}), "adam": ("adam", {})}[kind]
        trainer = gluon.Trainer(net.collect_params(), *opt)
        trainer._init()
        _TRAINERS[kind] = trainer
    return _TRAINERS[kind]


def _state_arrays(trainer: Any) -> dict[str, onp.ndarray]:
    leaves, _ = jax.tree_util.tree_flatten_with_path(trainer._states[trainer._devices()[0]])
    return {jax.tree_util.keystr(p): onp.asarray(v) for p, v in leaves}


def _generate(rng: random.Random) -> Valid:
    kind = rng.choice(["sgd", "adam"])
    trainer = _trainer(kind)
    arrays = {k: onp.asarray(rng.random(), v.dtype) * onp.ones_like(v)
              for k, v in _state_arrays(trainer).items()}
    meta = {"num_update": rng.randint(0, 10**6), "learning_rate": rng.choice([0.1, 0.001, 1e-5]),
            "optimizer": type(trainer.optimizer).__name__, "format": FORMAT}
    meta["sha256"] = _digest(meta, arrays)
    blob = {**arrays, "__meta__": onp.frombuffer(json.dumps(meta).encode(), onp.uint8)}
    serialization.save(_SCRATCH, blob)
    with open(_SCRATCH, "rb") as f:
        return Valid(f.read(), (kind, arrays, meta), [], f"states {kind}")


def _structured(rng: random.Random, valid: Valid) -> bytes:
    kind, arrays, meta = copy.deepcopy(valid.expected)
    if rng.random() < 0.5:
        key = rng.choice(sorted(meta))
        if rng.random() < 0.2:
            del meta[key]
        else:
            meta[key] = rng.choice([None, "x", -1, 1.5, 2**64, [], {}, True, 1e308, rng.choice(INTERESTING),
                                    "SGD", "Adam"])
        text = json.dumps(meta).encode()
    else:
        text = json.dumps(meta).encode()
        name = rng.choice(sorted(arrays))
        what = rng.random()
        if what < 0.4:
            arrays[name] = onp.zeros(tuple(rng.choice([0, 1, 3, 7]) for _ in range(rng.randint(0, 3))),
                                     onp.float32)
        elif what < 0.7:
            arrays[name] = arrays[name].astype(rng.choice(["float64", "int8", "bool", "float16", "uint64"]))
        elif what < 0.78:
            arrays[name + "x"] = arrays.pop(name)
        elif what < 0.85:  # poison: refused unless allow_non_finite
            arrays[name] = onp.full_like(arrays[name], rng.choice([onp.nan, onp.inf, -onp.inf]))
        else:
            del arrays[name]
    if rng.random() < 0.7 and isinstance(meta, dict):  # a consistent digest: the checks behind it are reached
        meta["sha256"] = _digest(meta, arrays)
        text = json.dumps(meta).encode()
    if rng.random() < 0.1:
        text = rng.choice([b"", b"[]", b"{", b"\xff\xfe", b"null", b'{"num_update": 1}'])
    blob = {**arrays, "__meta__": onp.frombuffer(text, onp.uint8)}
    serialization.save(_SCRATCH, blob)
    with open(_SCRATCH, "rb") as f:
        return f.read()


def _load(path: str) -> Any:
    results = {}
    for kind in ("sgd", "adam"):
        trainer = _trainer(kind)
        before = _state_arrays(trainer)
        try:
            trainer.load_states(path)
        except ValueError:
            after = _state_arrays(trainer)  # a refused file changes nothing
            assert all(before[k].tobytes() == after[k].tobytes() for k in before), \
                "a refused file changed states"
            results[kind] = None
            continue
        results[kind] = (_state_arrays(trainer), trainer.optimizer.num_update, trainer.learning_rate)
    if all(v is None for v in results.values()):
        trainer.load_states(path)  # raise the documented error for this case
    return results


def _check(result: Any, expected: Any) -> None:
    assert isinstance(result, dict)
    if expected is None:
        return
    kind, arrays, meta = expected
    states, num_update, lr = result[kind]
    assert num_update == meta["num_update"] and lr == meta["learning_rate"]
    assert all(states[k].tobytes() == arrays[k].tobytes() for k in arrays)


TARGET = Target("trainer_states", ".states", _generate, _load, (ValueError,), _check, structured=_structured)
