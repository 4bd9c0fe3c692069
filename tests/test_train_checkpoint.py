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


def _meta(n: int = 3, **changes) -> dict:
    """Metadata as the main job writes it."""
    rows = [{"epoch": e, "loss": 1.5 / e, "test_acc": 0.5, "seconds": 2.0, "samples_per_s": 100.0}
            for e in range(1, n + 1)]
    meta = {"epoch": n, "fingerprint": {"batch_size": 64, "seed": 0, "normalize": [0.13, 0.31]},
            "rng": {"seed": 0, "count": 12}, "history": rows, "lr": 0.1, "devices": ["TFRT_CPU_0"],
            "data_order": {"scheme": "permutation", "seed": 0, "next_epoch": n, "n": 256},
            "finished": False}
    meta.update(changes)
    return meta


def test_round_trip(tmp_path):
    path = tmp_path / "checkpoint.params"
    meta = _meta()
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
    checkpoint.save(path, _arrays(), _meta(1))
    blob = bytearray(path.read_bytes())
    blob[200] ^= 0x40  # inside the first array's data
    path.write_bytes(bytes(blob))
    with pytest.raises(checkpoint.CheckpointError, match="damaged.*digest"):
        checkpoint.load(path)


def test_truncated_file_is_detected(tmp_path):
    path = tmp_path / "checkpoint.params"
    checkpoint.save(path, _arrays(), _meta(1))
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
    got = checkpoint.load(path, required=("epoch",))
    assert got.epoch == 1
    assert float(got.arrays["param/w"].max()) == 0.0
    assert len(checkpoint.temporary_files(path)) == 1  # the interrupted write's; the job removes it


def test_the_digest_covers_the_metadata(tmp_path):
    """One bit turns "epoch": 1 into 9 in the JSON: the digest must see it (it covered the arrays only)."""
    path = tmp_path / "checkpoint.params"
    checkpoint.save(path, _arrays(), _meta(1, history=[]))  # no history row: "epoch":1 occurs once
    blob = bytearray(path.read_bytes())
    at = blob.index(b'"epoch": 1,')
    blob[at + len(b'"epoch": ')] ^= 0x08  # '1' (0x31) -> '9' (0x39)
    path.write_bytes(bytes(blob))
    with pytest.raises(checkpoint.CheckpointError, match="damaged.*digest .* arrays and metadata"):
        checkpoint.load(path, required=())


def _crafted(path: Path, meta: dict) -> None:
    """A checkpoint whose digest is intact but whose metadata is whatever ``meta`` says (NaN allowed)."""
    import json

    from framework import serialization

    arrays = _arrays()
    info = {**meta, "format": checkpoint.FORMAT, "version": checkpoint.VERSION}
    info["digest"] = checkpoint.digest(arrays, info)
    arrays["__meta__"] = onp.frombuffer(json.dumps(info).encode(), onp.uint8)
    serialization.save(path, arrays)


@pytest.mark.parametrize("change, message", [
    ({"rng": None}, r"field 'rng' is None \(NoneType\); expected an object"),
    ({"epoch": "one"}, r"field 'epoch' is 'one' \(str\); expected an integer from 0 to 1000000"),
    ({"epoch": True}, r"field 'epoch' is True \(bool\)"),
    ({"epoch": -1}, r"field 'epoch' is -1 \(int\)"),
    ({"fingerprint": [1, 2]}, r"field 'fingerprint' is \[1, 2\] \(list\)"),
    ({"fingerprint": {"seed": {"a": 1}}}, r"field 'fingerprint.seed'"),
    ({"rng": {"seed": 0, "count": -1}}, r"field 'rng.count' is -1"),
    ({"rng": {"seed": 0.5, "count": 1}}, r"field 'rng.seed' is 0.5"),
    ({"rng": [0, 1]}, r"field 'rng' is \[0, 1\]"),
    ({"lr": "0.1"}, r"field 'lr' is '0.1' \(str\); expected a finite number above 0"),
    ({"lr": float("nan")}, r"field 'lr' is nan"),
    ({"finished": "yes"}, r"field 'finished' is 'yes'"),
    ({"devices": "cpu"}, r"field 'devices' is 'cpu'"),
    ({"history": []}, r"field 'history' is '<0 rows>'.*one row per completed epoch \(3\)"),
    ({"data_order": {"scheme": "p", "seed": 0, "next_epoch": 2, "n": 256}},
     r"field 'data_order.next_epoch' is 2"),
])
def test_metadata_is_validated_field_by_field(tmp_path, change, message):
    path = tmp_path / "checkpoint.params"
    meta = _meta(3, **change)
    if change.get("rng", 0) is None:
        del meta["rng"]
        message = r"field\(s\) \['rng'\] missing"
    _crafted(path, meta)
    with pytest.raises(checkpoint.CheckpointError, match=r"has invalid metadata: " + message):
        checkpoint.load(path)


def test_a_history_row_is_checked(tmp_path):
    path = tmp_path / "checkpoint.params"
    meta = _meta(2)
    meta["history"][1]["test_acc"] = 7
    _crafted(path, meta)
    with pytest.raises(checkpoint.CheckpointError, match=r"'history\[1\].test_acc' is 7 \(int\); expected a "
                                                         r"finite number from 0.0 to 1.0"):
        checkpoint.load(path)


def test_version_1_is_refused_with_the_reason(tmp_path):
    path = tmp_path / "checkpoint.params"
    import json

    from framework import serialization

    arrays = _arrays()
    arrays["__meta__"] = onp.frombuffer(json.dumps({"format": checkpoint.FORMAT, "version": 1}).encode(),
                                        onp.uint8)
    serialization.save(path, arrays)
    with pytest.raises(checkpoint.CheckpointError, match="version 1; this program reads version 2"):
        checkpoint.load(path)
