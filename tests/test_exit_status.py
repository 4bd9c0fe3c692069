"""Every exit status of ``python -m train`` is provoked here or named below: the README's table is the
contract. The cases here fail before any training (cheap); the ones that need a run live in
tests/test_train_faults.py (5, 130, 137), tests/test_train_job.py (0, 3, 4) and
tests/test_train_multihost.py (3 across processes, 6)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as onp
import pytest

from train import checkpoint, cli, job

REPO = Path(__file__).resolve().parents[1]


def _argv(root: Path | str, out: Path, *extra: str) -> list[str]:
    return ["--data-root", str(root), "--subset", "64", "--batch-size", "16", "--epochs", "2",
            "--out", str(out), "--params", str(out / "net.params"), "--progress", "off", *extra]


def test_the_readme_table_is_the_jobs_table():
    readme = (REPO / "README.md").read_text()
    rows = dict(re.findall(r"^\| (\d+) \| (.+) \|$", readme, re.M))
    for code, text in job.EXIT_STATUSES.items():
        assert str(code) in rows, f"exit status {code} is missing from the README's table"
        words = set(re.findall(r"[a-z]{4,}", text.lower()))
        assert words <= set(re.findall(r"[a-z]{4,}", rows[str(code)].lower())), (code, words)
    assert {"134", "137"} <= set(rows)  # the signals the job cannot choose are documented too
    assert set(rows) == {str(c) for c in job.EXIT_STATUSES} | {"134", "137"}


@pytest.mark.parametrize("argv, message", [
    (["--epochs", "0"], "--epochs 0: must be at least 1"),
    (["--num-processes", "2", "--process-id", "2", "--coordinator", "127.0.0.1:1"],
     "--process-id 2: must be from 0 to 1 for --num-processes 2"),
    (["--num-processes", "2", "--process-id", "-1", "--coordinator", "127.0.0.1:1"], "--process-id -1"),
    (["--num-processes", "2", "--process-id", "0"], "needs --coordinator"),
    (["--num-processes", "2", "--process-id", "0", "--coordinator", "localhost"], "expected HOST:PORT"),
    (["--num-processes", "0", "--process-id", "0", "--coordinator", "127.0.0.1:5"], "--num-processes 0"),
    (["--join-timeout", "0"], "--join-timeout 0"),
])
def test_2_bad_arguments_are_refused_at_once(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == job.EXIT_DATA
    assert message in capsys.readouterr().err


def test_2_an_explicit_data_root_without_the_files(tmp_path, capsys):
    """It used to fall back to the next copy in the framework's search and train on it (exit 0)."""
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli.main(_argv(empty, tmp_path / "run")) == job.EXIT_DATA
    err = capsys.readouterr().err
    assert f"--data-root {empty}: missing t10k-images-idx3-ubyte(.gz)" in err
    assert cli.main(_argv(tmp_path / "nowhere", tmp_path / "run")) == job.EXIT_DATA
    assert "nowhere: does not exist" in capsys.readouterr().err
    assert not (tmp_path / "run" / "checkpoint.params").exists()


def test_2_output_paths_are_checked_before_the_first_epoch(tmp_path, fashion_root, capsys):
    """--params under a regular file used to fail after the last epoch with a FileExistsError traceback."""
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    out = tmp_path / "run"
    argv = _argv(fashion_root, out)
    argv[argv.index("--params") + 1] = str(blocker / "sub" / "net.params")
    assert cli.main(argv) == job.EXIT_DATA
    assert f"--params {blocker / 'sub' / 'net.params'}: {blocker} is a file, not a directory" in \
        capsys.readouterr().err
    assert not (out / "checkpoint.params").exists()
    assert cli.main(_argv(fashion_root, blocker / "out")) == job.EXIT_DATA
    assert f"--out {blocker / 'out'}: {blocker} is a file" in capsys.readouterr().err
    argv = _argv(fashion_root, out)
    argv[argv.index("--params") + 1] = str(tmp_path)
    assert cli.main(argv) == job.EXIT_DATA
    assert f"--params {tmp_path}: is a directory" in capsys.readouterr().err


def _job_meta(epoch: int = 1) -> dict:
    from train.config import Config

    cfg = Config(subset=64, batch_size=16)
    rows = [{"epoch": e, "loss": 2.0, "test_acc": 0.1, "seconds": 1.0, "samples_per_s": 64.0}
            for e in range(1, epoch + 1)]
    return {"epoch": epoch, "fingerprint": cfg.fingerprint(), "rng": {"seed": 0, "count": 3},
            "data_order": {"scheme": "permutation(fold_in(key(seed), epoch), n)", "seed": 0,
                           "next_epoch": epoch, "n": 64},
            "history": rows, "lr": 0.1, "devices": ["TFRT_CPU_0"], "finished": False}


def _crafted(path: Path, meta: dict) -> None:
    from framework import serialization

    arrays = {"param/0.weight": onp.zeros((6, 1, 5, 5), onp.float32)}
    info = {**meta, "format": checkpoint.FORMAT, "version": checkpoint.VERSION}
    info["digest"] = checkpoint.digest(arrays, info)
    arrays["__meta__"] = onp.frombuffer(json.dumps(info).encode(), onp.uint8)
    path.parent.mkdir(parents=True, exist_ok=True)
    serialization.save(path, arrays)


@pytest.mark.parametrize("case", ["epoch-bit-flip", "epoch-one", "no-rng", "fingerprint-list", "unfinished"])
def test_3_checkpoint_problems(tmp_path, fashion_root, capsys, case):
    out = tmp_path / "run"
    path = out / "checkpoint.params"
    meta = _job_meta()
    expected = {"epoch-one": "field 'epoch' is 'one'", "no-rng": "field(s) ['rng'] missing",
                "fingerprint-list": "field 'fingerprint' is [", "epoch-bit-flip": "is damaged",
                "unfinished": "an unfinished run's checkpoint (after epoch 1) exists"}[case]
    if case == "epoch-one":
        meta["epoch"] = "one"
    elif case == "no-rng":
        del meta["rng"]
    elif case == "fingerprint-list":
        meta["fingerprint"] = list(meta["fingerprint"])
    _crafted(path, meta)
    if case == "epoch-bit-flip":  # one bit: "epoch": 1 -> 9 would resume at the wrong epoch with exit 0
        checkpoint.save(path, checkpoint.load(path).arrays, {**meta, "history": []})
        blob = bytearray(path.read_bytes())
        at = blob.index(b'"epoch": 1,') + len(b'"epoch": ')
        blob[at] ^= 0x08
        path.write_bytes(bytes(blob))
    before = path.read_bytes()
    extra = () if case == "unfinished" else ("--resume",)
    assert cli.main(_argv(fashion_root, out, *extra)) == job.EXIT_CHECKPOINT
    assert expected in capsys.readouterr().err
    assert path.read_bytes() == before


def test_1_an_unexpected_error_prints_its_traceback(tmp_path, fashion_root):
    code = ("import sys\nfrom train import loops, cli\n"
            "def broken(*a, **k):\n    raise ZeroDivisionError('injected bug')\n"
            "loops.build = broken\nsys.exit(cli.main(sys.argv[1:]))\n")
    proc = subprocess.run([sys.executable, "-c", code, *_argv(fashion_root, tmp_path / "run")], cwd=REPO,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == job.EXIT_ERROR, proc.stderr
    assert "Traceback" in proc.stderr and "ZeroDivisionError: injected bug" in proc.stderr


def _bomb(path: Path, declared: tuple[int, ...], inflated: int) -> None:
    """A gzip file whose IDX header declares ``declared`` but whose content inflates to ``inflated`` bytes."""
    import struct
    import zlib

    header = struct.pack(">I", 0x0800 | len(declared)) + struct.pack(f">{len(declared)}I", *declared)
    z = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: the gzip container
    parts, zeros = [z.compress(header)], bytes(1 << 24)
    for _ in range((inflated - len(header)) // len(zeros)):
        parts.append(z.compress(zeros))
    parts.append(z.flush())
    path.write_bytes(b"".join(parts))


def _peak_rss_kb(argv: list[str]) -> tuple[int, str, int]:
    """Exit status, stderr and peak resident memory (KiB) of ``python -m train argv`` (its own wrapper, so
    nothing else counts)."""
    wrapper = ("import resource, subprocess, sys\n"
               "p = subprocess.run([sys.executable, '-m', 'train', *sys.argv[1:]], capture_output=True,\n"
               "                   text=True)\n"
               "sys.stderr.write(p.stderr)\n"
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
               "sys.exit(p.returncode)\n")
    proc = subprocess.run([sys.executable, "-c", wrapper, *argv], cwd=REPO, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "TQDM_DISABLE": "1"})
    return proc.returncode, proc.stderr, int(proc.stdout.split()[-1])


def test_2_a_gzip_bomb_is_rejected_within_bounded_memory(tmp_path, fashion_root):
    """A ~1 MiB .gz whose header declares Fashion-MNIST's 47 MB of training images but inflates to 1 GiB:
    exit 2 naming the file, and resident memory grows by a small multiple of the declared size, not 1 GiB
    (it used to cost 2.2 GB and 11 s)."""
    root = tmp_path / "bomb"
    root.mkdir()
    for name in ("train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"):
        src = next(p for p in (fashion_root / f"{name}.gz", fashion_root / name) if p.exists())
        (root / src.name).symlink_to(src)
    bomb = root / "train-images-idx3-ubyte.gz"
    _bomb(bomb, (60000, 28, 28), 1 << 30)
    assert bomb.stat().st_size < 2 << 20
    declared = 60000 * 28 * 28
    empty = tmp_path / "empty"
    empty.mkdir()
    status, _, baseline = _peak_rss_kb(_argv(empty, tmp_path / "run0"))  # stops just before reading data
    assert status == job.EXIT_DATA
    status, err, peak = _peak_rss_kb(_argv(root, tmp_path / "run1"))
    assert status == job.EXIT_DATA, err
    assert f"{bomb}" in err and "longer than its header says" in err
    growth = (peak - baseline) * 1024
    assert growth < 3 * declared, f"resident memory grew by {growth / 2**20:.0f} MiB reading the bomb"
