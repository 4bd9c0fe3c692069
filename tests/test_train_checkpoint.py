"""train.checkpoint: round trip, damage detection, settings mismatch, atomic replacement under SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as onp
import pytest

from train import checkpoint

REPO = Path(__file__).resolve().parents[1]


def _arrays(v: float = 1.0) -> dict[str, onp.ndarray]:
    return {"param/0.weight": onp.full((6, 1, 5, 5), v, onp.float32), "num_update": onp.asarray(7, onp.int64),
            "opt/[0]": onp.arange(4, dtype=onp.float32)}


def test_round_trip(tmp_path):
    path = tmp_path / "checkpoint.params"
    meta = {"epoch": 3, "rng": {"seed": 0, "count": 12}, "history": [{"epoch": 1, "loss": 1.5}]}
    checkpoint.save(path, _arrays(), meta)
    got = checkpoint.load(path)
    assert got.epoch == 3
    assert got.meta["rng"] == {"seed": 0, "count": 12}
    assert got.meta["format"] == checkpoint.FORMAT
    assert set(got.arrays) == set(_arrays())
    for k, v in _arrays().items():
        onp.testing.assert_array_equal(got.arrays[k], v)
        assert got.arrays[k].dtype == v.dtype


def test_reserved_name(tmp_path):
    with pytest.raises(ValueError, match="reserved"):
        checkpoint.save(tmp_path / "c.params", {"__meta__": onp.zeros(1)}, {})


def test_flipped_byte_is_detected(tmp_path):
    path = tmp_path / "checkpoint.params"
    checkpoint.save(path, _arrays(), {"epoch": 1})
    blob = bytearray(path.read_bytes())
    blob[200] ^= 0x40  # inside the first array's data
    path.write_bytes(bytes(blob))
    with pytest.raises(checkpoint.CheckpointError, match="damaged.*digest"):
        checkpoint.load(path)


def test_truncated_file_is_detected(tmp_path):
    path = tmp_path / "checkpoint.params"
    checkpoint.save(path, _arrays(), {"epoch": 1})
    path.write_bytes(path.read_bytes()[:150])
    with pytest.raises(checkpoint.CheckpointError, match="damaged.*left as it is"):
        checkpoint.load(path)


def test_foreign_params_file_is_rejected(tmp_path):
    from framework import serialization

    path = tmp_path / "net.params"
    serialization.save(path, {"0.weight": onp.zeros(3, onp.float32)})
    with pytest.raises(checkpoint.CheckpointError, match="not a checkpoint of `python -m train`"):
        checkpoint.load(path)


def test_fingerprint_mismatch_names_the_setting():
    saved = {"batch_size": 256, "seed": 0, "normalize": [0.13, 0.31]}
    checkpoint.compare_fingerprints(saved, {"batch_size": 256, "seed": 0, "normalize": (0.13, 0.31)}, "c")
    with pytest.raises(checkpoint.CheckpointError, match="batch_size: checkpoint 256, now 128"):
        checkpoint.compare_fingerprints(saved, {"batch_size": 128, "seed": 0, "normalize": [0.13, 0.31]}, "c")


def test_kill_during_write_keeps_the_previous_checkpoint(tmp_path):
    """SIGKILL while the new checkpoint is being written (stalled in fsync): the old one survives."""
    path = tmp_path / "checkpoint.params"
    script = textwrap.dedent(f"""
        import os, sys, time
        import numpy as onp
        sys.path.insert(0, {str(REPO)!r})
        from train import checkpoint
        path = {str(path)!r}
        checkpoint.save(path, {{"param/w": onp.zeros(100_000, onp.float32)}}, {{"epoch": 1}})
        def stalled(fd):
            print("writing", flush=True)
            time.sleep(120)
        os.fsync = stalled
        checkpoint.save(path, {{"param/w": onp.ones(100_000, onp.float32)}}, {{"epoch": 2}})
        print("finished", flush=True)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.strip() == "writing", line
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait(timeout=30)
        proc.stdout.close()
    got = checkpoint.load(path)
    assert got.epoch == 1
    assert float(got.arrays["param/w"].max()) == 0.0
