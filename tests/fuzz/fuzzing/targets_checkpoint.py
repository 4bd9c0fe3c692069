"""Checkpoints of ``python -m train``, read as ``--resume`` reads them.

Valid files are written by ``train.checkpoint.save`` itself with the metadata the training job
writes. A structured mutation changes one metadata value (another type, a huge or negative number,
a missing key) and saves again through ``save``, so the digest is intact: a buggy writer or a crafted
file. The loader is ``train.checkpoint.load`` followed by what the job does with the result (the
epoch, the settings fingerprint, the RNG position, the history); the documented error is
``CheckpointError`` naming the file.

>>> import random
>>> sorted(TARGET.generate(random.Random(2)).expected[1])[:3]
['data_order', 'devices', 'epoch']
"""

from __future__ import annotations

import copy
import os
import random
import tempfile
from typing import Any

import numpy as onp

from framework.np import random as fw_random
from train import checkpoint

from .engine import INTERESTING, Target, Valid

__all__ = ["TARGET"]

_SCRATCH = os.path.join("/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir(),
                        f"fuzz-ckpt-{os.getpid()}.params")
FINGERPRINT = {"model": "lenet", "dataset": "fashion-mnist", "optimizer": "sgd", "loop": "jit",
               "batch_size": 256, "momentum": 0.0, "wd": 0.0, "seed": 0, "subset": None,
               "normalize": [0.286, 0.353]}


def _meta(rng: random.Random) -> dict[str, Any]:
    epoch = rng.randint(1, 5)
    history = [{"epoch": e + 1, "loss": rng.random(), "test_acc": rng.random(), "seconds": rng.random(),
                "samples_per_s": 1e4 * rng.random()} for e in range(epoch)]
    return {"epoch": epoch, "fingerprint": dict(FINGERPRINT), "rng": {"seed": 0, "count": rng.randint(0, 99)},
            "data_order": {"scheme": "permutation(fold_in(key(seed), epoch), n)", "seed": 0,
                           "next_epoch": epoch, "n": 60000},
            "history": history, "lr": 0.1, "devices": ["TFRT_CPU_0"], "finished": rng.random() < 0.3}


def _arrays(rng: random.Random) -> dict[str, onp.ndarray]:
    out = {}
    for i in range(rng.randint(1, 3)):
        shape = tuple(rng.choice([1, 2, 3]) for _ in range(rng.randint(0, 2)))
        out[f"param/{i}.weight"] = onp.frombuffer(rng.randbytes(4 * int(onp.prod(shape))), onp.int32) \
            .astype(onp.float32).reshape(shape)
    out["num_update"] = onp.array(rng.randint(0, 10**6), onp.int64)
    return out


def _write(arrays: dict[str, onp.ndarray], meta: dict[str, Any]) -> bytes:
    checkpoint.save(_SCRATCH, arrays, meta)
    with open(_SCRATCH, "rb") as f:
        return f.read()


def _generate(rng: random.Random) -> Valid:
    arrays, meta = _arrays(rng), _meta(rng)
    return Valid(_write(arrays, meta), (arrays, meta), [], f"checkpoint epoch={meta['epoch']}")


def _odd_value(rng: random.Random) -> Any:
    return rng.choice([None, True, "one", "", -1, -(2**63), 2**64, 1.5, 1e308, [], [1, 2], {},
                       {"seed": [1]}, rng.choice(INTERESTING), [[0]], "nan", {"a": None}])


def _structured(rng: random.Random, valid: Valid) -> bytes:
    arrays, meta = copy.deepcopy(valid.expected)
    keys = [(k,) for k in meta] + [(k, s) for k, v in meta.items() if isinstance(v, dict) for s in v]
    path = rng.choice(keys)
    holder = meta
    for k in path[:-1]:
        holder = holder[k]
    if rng.random() < 0.25:
        del holder[path[-1]]
    else:
        holder[path[-1]] = _odd_value(rng)
    if rng.random() < 0.1:  # a whole section of another type
        meta[rng.choice(list(meta))] = _odd_value(rng)
    try:
        return _write(arrays, meta)
    except (TypeError, ValueError):  # what even a buggy writer cannot produce (e.g. JSON without NaN)
        return valid.data


def _load(path: str) -> Any:
    """What ``python -m train --resume`` does with a checkpoint before training."""
    ck = checkpoint.load(path)
    epoch = ck.epoch
    checkpoint.compare_fingerprints(ck.meta["fingerprint"], FINGERPRINT, path)
    state = fw_random.get_state()
    try:
        fw_random.set_state(ck.meta["rng"])
    finally:
        fw_random.set_state(state)
    history = list(ck.meta.get("history", []))
    return ck, epoch, history


def _check(result: Any, expected: Any) -> None:
    ck, epoch, history = result
    assert isinstance(epoch, int) and epoch >= 0
    assert isinstance(history, list)
    if expected is None:
        return
    arrays, meta = expected
    assert epoch == meta["epoch"] and history == meta["history"]
    assert sorted(ck.arrays) == sorted(arrays)
    for k, v in arrays.items():
        assert ck.arrays[k].dtype == v.dtype and ck.arrays[k].tobytes() == v.tobytes()


TARGET = Target("checkpoint", ".params", _generate, _load, (checkpoint.CheckpointError,), _check,
                structured=_structured)
