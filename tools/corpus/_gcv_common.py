"""What the GluonCV and MXNet-examples corpus runners share: extracting a part of a git snapshot (never
copied into this repository), running a program under MXNet 1.9.1 and under ``python -m framework.run``,
and printing tables.

Both runners compare this framework with real MXNet 1.9.1 (a side virtual environment, by default
``/tmp/mx/bin/python``). Third-party packages the fetched code imports (GluonCV needs tqdm, portalocker,
Pillow, scipy) are found through ``--mxnet-path`` / ``--our-path`` (extra ``PYTHONPATH`` entries, e.g. a
``pip install --target`` directory), so neither virtual environment is modified.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MXNET_PYTHON = os.environ.get("MXNET_PYTHON", "/tmp/mx/bin/python")
GLUONCV_GIT = "/work/.mirror/dmlc+gluon-cv/repo"
MXNET_GIT = "/work/.mirror/apache+mxnet/repo"

__all__ = ["ROOT", "MXNET_PYTHON", "GLUONCV_GIT", "MXNET_GIT", "extract", "env_with", "run_logged",
           "read_jsonl", "markdown_table", "our_command"]


def _present_files(git_dir: str, commit: str, paths: Sequence[str]) -> list[str]:
    """The files under ``paths`` at ``commit`` whose contents the git directory holds (a snapshot may
    list its largest files without them: those are left out, with a line saying so)."""
    listing = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "-z", commit, "--", *paths],
                             check=True, capture_output=True).stdout.decode().split("\0")
    entries = [line.split("\t", 1) for line in listing if line]
    blobs = [(meta.split()[2], path) for meta, path in entries if meta.split()[1] == "blob"]
    check = subprocess.run(["git", "--git-dir", git_dir, "cat-file", "--batch-check"], check=True,
                           input="".join(f"{sha}\n" for sha, _ in blobs), capture_output=True, text=True)
    present = []
    for (_, path), answer in zip(blobs, check.stdout.splitlines(), strict=True):
        if answer.endswith(" missing"):
            print(f"extract: {path} is not in the snapshot {git_dir}; left out", file=sys.stderr)
        else:
            present.append(path)
    return present


def extract(git_dir: str, rev: str, paths: Sequence[str], dest: Path) -> Path:
    """``git archive rev paths | tar -x`` into ``dest`` (once per revision: ``dest/.rev`` records it)."""
    commit = subprocess.run(["git", "--git-dir", git_dir, "rev-parse", f"{rev}^{{commit}}"], check=True,
                            capture_output=True, text=True).stdout.strip()
    stamp = dest / ".rev"
    if stamp.exists() and stamp.read_text().split() == [commit, *paths]:
        return dest
    dest.mkdir(parents=True, exist_ok=True)
    archive = subprocess.Popen(["git", "--git-dir", git_dir, "archive", commit, "--",
                                *_present_files(git_dir, commit, paths)], stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", str(dest)], stdin=archive.stdout, check=True)
    if archive.wait() != 0:
        raise RuntimeError(f"git archive {commit} {' '.join(paths)} failed in {git_dir}")
    stamp.write_text(" ".join([commit, *paths]))
    return dest


def env_with(extra_path: Sequence[str], **extra: str) -> dict[str, str]:
    """The environment with ``extra_path`` in front of ``PYTHONPATH`` (and ``extra`` variables)."""
    env = dict(os.environ)
    parts = [p for p in extra_path if p] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    if parts:
        env["PYTHONPATH"] = os.pathsep.join(parts)
    env.update(extra)
    return env


def our_command(script: str | Path, *args: str) -> list[str]:
    """``python -m framework.run script args`` with this repository's framework."""
    return [sys.executable, "-m", "framework.run", str(script), *args]


def run_logged(cmd: Sequence[str], env: dict[str, str], cwd: Path, log: Path,
               timeout: float) -> tuple[int, float]:
    """Run ``cmd`` with stdout and stderr appended to ``log``; (exit status, seconds). A run past
    ``timeout`` is killed and reported as status 124."""
    t0 = time.time()
    with open(log, "ab") as fh:
        fh.write(f"\n$ {' '.join(cmd)}\n".encode())
        fh.flush()
        proc = subprocess.Popen(list(cmd), cwd=cwd, env=env, stdout=fh, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
            rc = 124
    return rc, time.time() - t0


def read_jsonl(path: Path) -> list[dict]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c).replace("|", "/") for c in row) + " |" for row in rows]
    return "\n".join(lines)
