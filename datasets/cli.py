"""``python -m datasets list|where|fetch|verify|prepare NAME``: the catalogue's command-line tool.

Run from the repository root. Exit status 0 on success, 1 when files are missing or wrong, 2 on
usage errors.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from framework.gluon.data.vision import _files, _tfds
from framework.gluon.data.vision._fetch import FetchError, check_dir, fetch
from framework.gluon.data.vision.catalogue import CATALOGUE, entry_for

from . import im2rec as _im2rec

__all__ = ["main"]


def _size(entry: dict[str, Any]) -> int:
    if entry.get("archive"):
        return int(entry["archive"]["size"])
    return sum(int(f["gz"]["size"]) for f in entry["files"].values())


def _present(name: str, directory: Path) -> dict[str, Path | None]:
    """Which catalogued files are in ``directory`` (presence only, no checksums: cheap)."""
    entry = entry_for(name)
    return {f: _files.find_file(directory, f, entry.get("inner_dir")) for f in entry["files"]}


def _found(name: str) -> Path | None:
    for _, directory in _files.search_dirs(name):
        if all(_present(name, directory).values()):
            return directory
    return None


def cmd_list(args: argparse.Namespace) -> int:
    print(f"{'name':15s} {'title':15s} {'download':>9s}  {'licence':28s} here")
    for name, entry in CATALOGUE.items():
        where = _found(name)
        prepared = _tfds.prepared(entry)
        state = os.fspath(where) if where else f"tensorflow-datasets: {prepared}" if prepared else "-"
        licence = entry["licence"] if len(entry["licence"]) <= 28 else entry["licence"][:25] + "..."
        print(f"{name:15s} {entry['title']:15s} {_size(entry) / 1e6:7.1f}MB  {licence:28s} {state}")
    return 0


def cmd_where(args: argparse.Namespace) -> int:
    entry = entry_for(args.name)
    used = None
    for place, directory in _files.search_dirs(args.name, args.dir):
        present = _present(args.name, directory)
        have = [p for p in present.values() if p is not None]
        if not directory.is_dir():
            state = "no such directory"
        elif len(have) == len(present):
            state = "complete"
            used = used or directory
        else:
            state = f"{len(have)} of {len(present)} files"
        print(f"{place}\n    {directory}: {state}")
    spec = entry.get("tfds")
    if spec:
        prepared = _tfds.prepared(entry)
        state = f"prepared at {prepared}" if prepared else "not prepared"
        print(f"tensorflow-datasets '{spec['name']}' {spec['version']} ($TFDS_DATA_DIR)\n"
              f"    {_tfds.data_dir()}: {state}")
    if used:
        print(f"{entry['title']} loads from {used}")
        return 0
    if spec and _tfds.prepared(entry):
        print(f"{entry['title']} loads from the tensorflow-datasets copy")
        return 0
    print(f"{entry['title']} is not here: python -m datasets fetch {args.name} [--from DIR]")
    return 1


def _report(checks: list[Any]) -> int:
    for c in checks:
        print(f"  {'ok ' if c.ok else 'BAD'} {c.name}: {c.detail}")
    return 0 if all(c.ok for c in checks) else 1


def cmd_fetch(args: argparse.Namespace) -> int:
    dest = Path(args.dir) if args.dir else _files.cache_dir(args.name)
    try:
        checks = fetch(args.name, dest, args.src)
    except FetchError as err:
        print(f"fetch {args.name} into {dest} failed: {err}", file=sys.stderr)
        if args.src is None:
            print(f"Without network, copy the files from a machine that has them: python -m datasets fetch "
                  f"{args.name} --dir DIR there, then python -m datasets fetch {args.name} --from DIR here.",
                  file=sys.stderr)
        return 1
    print(f"{args.name} is in {dest}")
    return _report(checks)


def cmd_verify(args: argparse.Namespace) -> int:
    dirs = [Path(args.dir)] if args.dir else [d for _, d in _files.search_dirs(args.name) if d.is_dir()]
    status, seen = 0, False
    for directory in dirs:
        checks = check_dir(args.name, directory)
        if args.dir or any(c.path for c in checks):
            seen = True
            print(directory)
            status |= _report(checks)
    if not seen:
        print(f"no files of {args.name} found; python -m datasets where {args.name} lists the places "
              "looked in")
        return 1
    return status


def cmd_prepare(args: argparse.Namespace) -> int:
    status = cmd_fetch(args)
    if status:
        return status
    dest = Path(args.dir) if args.dir else _files.cache_dir(args.name)
    from framework.gluon.data import vision

    cls = {"mnist": vision.MNIST, "fashion-mnist": vision.FashionMNIST, "cifar10": vision.CIFAR10,
           "cifar100": vision.CIFAR100}[args.name]
    splits = {}
    for train in (True, False):
        ds = cls(root=dest, train=train)
        splits["train" if train else "test"] = (ds._data, ds._label)
        print(f"  {'train' if train else 'test'}: {len(ds)} samples of {ds._data.shape[1:]} read back")
    if args.tfds:
        if not entry_for(args.name).get("tfds"):
            print(f"{args.name} has no tensorflow-datasets counterpart here", file=sys.stderr)
            return 1
        from .tfds_copy import build

        where = build(args.name, splits, _tfds.data_dir())
        print(f"tensorflow-datasets copy written to {where}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m datasets", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="the supported datasets and where they are")
    names = sorted(CATALOGUE)
    for command, text in (("where", "each place looked in, and what it holds"),
                          ("fetch", "put the verified files into the cache (or --dir)"),
                          ("verify", "check the files' sizes and checksums"),
                          ("prepare", "fetch, verify, read back (--tfds: and a tensorflow-datasets copy)")):
        p = sub.add_parser(command, help=text)
        p.add_argument("name", choices=names)
        p.add_argument("--dir", help="the directory to use instead of $FRAMEWORK_HOME/datasets/<name>")
        if command in ("fetch", "prepare"):
            p.add_argument("--from", dest="src", help="copy from this directory instead of downloading")
        if command == "prepare":
            p.add_argument("--tfds", action="store_true", help="also write a tensorflow-datasets copy")
    _im2rec.add_parser(sub)
    args = parser.parse_args(argv)
    handler = {"list": cmd_list, "where": cmd_where, "fetch": cmd_fetch, "verify": cmd_verify,
               "prepare": cmd_prepare, "im2rec": _im2rec.run}[args.command]
    return handler(args)
