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
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

from framework.port import Report, port_source

_IMPORTS_MXNET = re.compile(r"^[ \t]*(?:import|from)[ \t]+mxnet\b", re.M)


def read_modules(gitdir: str, rev: str, subdirs: list[str]) -> Iterator[tuple[str, bytes]]:
    """``(path, content)`` of every ``*.py`` blob of ``rev`` under ``subdirs`` (read with git itself: a
    snapshot may lack large files, so nothing is checked out)."""
    listing = subprocess.run(["git", "--git-dir", gitdir, "ls-tree", "-r", "-z", rev, "--", *subdirs],
                             check=True, capture_output=True).stdout.split(b"\0")
    blobs = []
    for entry in listing:
        if not entry:
            continue
        meta, _, path = entry.partition(b"\t")
        mode, kind, sha = meta.split()
        if kind == b"blob" and path.endswith(b".py") and mode != b"120000":
            blobs.append((path.decode("utf-8", "replace"), sha))
    proc = subprocess.Popen(["git", "--git-dir", gitdir, "cat-file", "--batch"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for path, sha in blobs:
            proc.stdin.write(sha + b"\n")
            proc.stdin.flush()
            header = proc.stdout.readline().split()
            if len(header) < 3 or header[1] == b"missing":
                continue
            data = proc.stdout.read(int(header[2]))
            proc.stdout.read(1)
            yield path, data
    finally:
        proc.stdin.close()
        proc.wait()


def check_modules(modules: Iterable[tuple[str, bytes]], label: str, counts: Counter,
                  failures: list[str]) -> None:
    for path, data in modules:
        name = f"{label}/{path}"
        try:
            source = data.decode("utf-8")
        except UnicodeDecodeError:
            counts["not utf-8"] += 1
            continue
        try:
            compile(source, name, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            counts["source does not compile (Python 2)"] += 1
            continue
        counts["modules"] += 1
        if not _IMPORTS_MXNET.search(source):  # the porter returns these unchanged without parsing more
            counts["no mxnet import (unchanged)"] += 1
            continue
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
        label = Path(gitdir).parent.name + (f"@{rev}" if rev else "")
        check_modules(read_modules(gitdir, rev or "HEAD", subdirs), label, counts, failures)
    for line in failures:
        print(f"FAILED {line}")
    print("| what | modules |\n|---|---|")
    for key in sorted(counts):
        print(f"| {key} | {counts[key]} |")
    print(f"({time.perf_counter() - tic:.0f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
