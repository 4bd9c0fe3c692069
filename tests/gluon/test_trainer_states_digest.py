"""Trainer state files carry a SHA-256 digest (format 2): a flipped byte is refused, an old file loads
with a warning, NaN/Inf state is refused unless asked."""

import json
import os

import numpy as onp
import pytest

from framework import gluon, serialization


def _trainer():
    net = gluon.nn.Dense(2, in_units=3)
    net.initialize()
    t = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    t._init()
    return t


def test_flipped_byte_in_a_state_is_refused(tmp_path):
    t = _trainer()
    path = str(tmp_path / "s.states")
    t.save_states(path)
    arrays = serialization.load_numpy(path)
    name = next(k for k in arrays if k != "__meta__")
    arrays[name] = arrays[name] + onp.float32(1e-3)  # the kind of change a flipped bit makes
    serialization.save(path, arrays)
    with pytest.raises(ValueError, match="digest does not match"):
        _trainer().load_states(path)


def test_saved_file_has_format_and_digest_and_loads(tmp_path):
    t = _trainer()
    path = str(tmp_path / "s.states")
    t.save_states(path)
    meta = json.loads(serialization.load_numpy(path)["__meta__"].tobytes())
    assert meta["format"] == 2 and len(meta["sha256"]) == 64
    _trainer().load_states(path)


def _old_file(path, value):
    t = _trainer()
    t.save_states(path)
    arrays = serialization.load_numpy(path)
    meta = json.loads(arrays["__meta__"].tobytes())
    del meta["format"], meta["sha256"]
    arrays["__meta__"] = onp.frombuffer(json.dumps(meta).encode(), onp.uint8)
    for k in arrays:
        if k != "__meta__":
            arrays[k] = onp.full_like(arrays[k], value)
    serialization.save(path, arrays)


def test_old_file_without_digest_loads_with_a_warning(tmp_path):
    path = str(tmp_path / "old.states")
    _old_file(path, 0.5)
    with pytest.warns(UserWarning, match="without a digest"):
        _trainer().load_states(path)


@pytest.mark.parametrize("value", [onp.nan, onp.inf])
def test_non_finite_state_refused_unless_asked(tmp_path, value):
    path = str(tmp_path / "nan.states")
    _old_file(path, value)
    t = _trainer()
    with pytest.warns(UserWarning), pytest.raises(ValueError, match="NaN or Inf.*allow_non_finite=True"):
        t.load_states(path)
    with pytest.warns(UserWarning):
        t.load_states(path, allow_non_finite=True)
    assert os.path.exists(path)
