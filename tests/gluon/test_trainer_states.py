"""Trainer.load_states on hostile or mismatched files: a ValueError naming the file, nothing changed."""

from __future__ import annotations

import json

import numpy as onp
import pytest

from framework import autograd, gluon, np, serialization


def _trainer(opt="sgd", params=None):
    net = gluon.nn.Dense(2, in_units=3)
    net.initialize()
    trainer = gluon.Trainer(net.collect_params(), opt, params or {"learning_rate": 0.1, "momentum": 0.9})
    with autograd.record():
        loss = net(np.ones((4, 3))).sum()
    loss.backward()
    trainer.step(4)
    return trainer


def _states(trainer, tmp_path):
    """The trainer's optimizer state arrays (through save_states), without the metadata."""
    path = str(tmp_path / "saved.states")
    trainer.save_states(path)
    return {k: v for k, v in serialization.load_numpy(path).items() if k != "__meta__"}


def _write(tmp_path, arrays, meta):
    path = tmp_path / "bad.states"
    text = meta if isinstance(meta, bytes) else json.dumps(meta).encode()
    serialization.save(str(path), {**arrays, "__meta__": onp.frombuffer(text, onp.uint8)})
    return str(path)


def test_round_trip_restores_counters(tmp_path):
    trainer = _trainer()
    path = str(tmp_path / "t.states")
    trainer.save_states(path)
    other = _trainer()
    other.optimizer.num_update = 7
    other.load_states(path)
    assert other.optimizer.num_update == trainer.optimizer.num_update == 1


@pytest.mark.parametrize("meta, match", [
    (b"[1, 2]", r"its metadata is a list, expected an object"),
    (b"{", r"its metadata is not valid JSON"),
    ({"num_update": "1", "learning_rate": 0.1, "optimizer": "SGD"}, r"num_update is '1'; expected an int"),
    ({"num_update": 1, "learning_rate": None, "optimizer": "SGD"}, r"learning_rate is None; expected a"),
    ({"num_update": 1, "learning_rate": -1, "optimizer": "SGD"}, r"learning_rate is -1; expected a finite "
                                                                 r"number >= 0"),
    ({"num_update": 1, "learning_rate": 0.1}, r"optimizer is None"),
    ({"num_update": 1, "learning_rate": 0.1, "optimizer": "Adam"}, r"saved for optimizer 'Adam'; this "
                                                                   r"Trainer uses 'SGD'"),
])
def test_bad_metadata_is_refused_and_changes_nothing(tmp_path, meta, match):
    trainer = _trainer()
    arrays = _states(trainer, tmp_path)
    before = {k: v.tobytes() for k, v in arrays.items()}
    with pytest.raises(ValueError, match=rf"bad.states: .*{match}"):
        trainer.load_states(_write(tmp_path, arrays, meta))
    assert {k: v.tobytes() for k, v in _states(trainer, tmp_path).items()} == before


def test_a_state_of_another_shape_or_name_is_refused(tmp_path):
    trainer = _trainer()
    arrays = _states(trainer, tmp_path)
    meta = {"num_update": 1, "learning_rate": 0.1, "optimizer": "SGD"}
    name = sorted(arrays)[0]
    wrong = {**arrays, name: onp.zeros((5,), onp.float32)}
    with pytest.raises(ValueError, match=rf"optimizer state '{name}' is float32 \(5,\); this Trainer's is"):
        trainer.load_states(_write(tmp_path, wrong, meta))
    with pytest.raises(ValueError, match=r"holds optimizer states this Trainer does not have: \['extra'\]"):
        trainer.load_states(_write(tmp_path, {**arrays, "extra": onp.zeros(1)}, meta))
    with pytest.raises(ValueError, match=r"no '__meta__' entry"):
        path = tmp_path / "plain.params"
        serialization.save(str(path), arrays)
        trainer.load_states(str(path))
