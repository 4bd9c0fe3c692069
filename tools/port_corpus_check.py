"""Run the porter over every Python module of real trees read from git snapshots at run time, and check
that each ported module compiles and is unchanged by a second port (nothing is written or kept).

    python -m tools.port_corpus_check GITDIR[:REV[:SUBDIR,...]] ...

``GITDIR`` is a bare repository or a ``.git`` directory; ``REV`` defaults to ``HEAD``; ``SUBDIRS`` limit
the walk (e.g. ``/work/.mirror/apache+mxnet/repo:v1.x:example,python``). Prints one line per failure and
a table of counts; exit status 1 when any module fails. Modules whose source does not compile under this
Python (Python 2 files) are counted apart, never ported.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from pathlib import Path

from framework.port import Report, port_source


def _extract(gitdir: str, rev: str, subdirs: list[str], into: Path) -> Path:
    archive = into / "tree.tar"
    cmd = ["git", "--git-dir", gitdir, "archive", "--format=tar", "-o", str(archive), rev, *subdirs]
    subprocess.run(cmd, check=True)
    root = into / "tree"
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if m.isfile() and m.name.endswith(".py")]
        tar.extractall(root, members=members, filter="data")
    archive.unlink()
    return root


def check_tree(root: Path, label: str, counts: Counter, failures: list[str]) -> None:
    for path in sorted(root.rglob("*.py")):
        name = f"{label}/{path.relative_to(root)}"
        try:
            source = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            counts["not utf-8"] += 1
            continue
        try:
            compile(source, name, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            counts["source does not compile (Python 2)"] += 1
            continue
        counts["modules"] += 1
        report = Report()
        try:
            once = port_source(source, name, report)
        except Exception as err:  # noqa: BLE001  (PortError or a porter crash: each is a failure)
            counts["FAILED: porter error"] += 1
            failures.append(f"{name}: {type(err).__name__}: {err}")
            continue
        if once == source:
            counts["unchanged by the port"] += 1
            continue
        counts["ported"] += 1
        try:
            compile(once, name, "exec", dont_inherit=True)
        except SyntaxError as err:
            counts["FAILED: ported module does not compile"] += 1
            failures.append(f"{name}:{err.lineno}: ported module does not compile: {err.msg}")
            continue
        twice = port_source(once, name, Report())
        if twice != once:
            counts["FAILED: second port changes it"] += 1
            failures.append(f"{name}: a second port changes the ported module")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.port_corpus_check",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("trees", nargs="+", help="GITDIR[:REV[:SUBDIR,...]]")
    args = p.parse_args(argv)
    counts: Counter = Counter()
    failures: list[str] = []
    tic = time.perf_counter()
    for spec in args.trees:
        gitdir, _, rest = spec.partition(":")
        rev, _, sub = rest.partition(":")
        subdirs = [s for s in sub.split(",") if s]
        with tempfile.TemporaryDirectory() as tmp:
            root = _extract(gitdir, rev or "HEAD", subdirs, Path(tmp))
            check_tree(root, Path(gitdir).parent.name + (f"@{rev}" if rev else ""), counts, failures)
    for line in failures:
        print(f"FAILED {line}")
    print("| what | modules |\n|---|---|")
    for key in sorted(counts):
        print(f"| {key} | {counts[key]} |")
    print(f"({time.perf_counter() - tic:.0f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
