"""``python -m framework.port PATH... [--diff | --write [--backup] | --check]``.

Without an option it prints the report (what would change, what it cannot port). ``--diff`` adds a
unified diff per file, ``--check`` exits with status 1 when any file would change (for CI). ``--write``
rewrites the files, all or nothing: every file is ported (and its result compiled) before any is
written, each is written to a temporary file beside it and renamed over the original only when all are
written, so an error or a kill leaves every file original or fully ported (``--backup`` keeps each
original as ``NAME.orig``). Symlinks (``--follow-symlinks``), hard-linked files (``--hard-links``) and
anything that is not a regular file are skipped and listed. Exit status 2 names the file that failed.
The report goes to stderr when a diff is printed, else to stdout.
"""

from __future__ import annotations

import argparse
import difflib
import sys

from ._porter import PortedFile, port_source, read_source
from ._write import WriteError, _kill_at, collect, write_all
from .report import Report


def _port_all(files: list[str], report: Report) -> list[PortedFile]:
    out = []
    for path in files:
        try:
            source = read_source(path)
        except UnicodeDecodeError as e:
            raise ValueError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
        except OSError as e:
            raise ValueError(f"{path}: cannot be read: {e.strerror or e}") from None
        try:
            out.append(PortedFile(path, source, port_source(source, path, report)))
        except SyntaxError:
            raise
        except Exception as e:  # libcst's ParserSyntaxError is not a SyntaxError
            if type(e).__name__ != "ParserSyntaxError":
                raise
            raise ValueError(f"{path}: cannot parse: {e}") from None
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m framework.port",
                                     description="Rewrite MXNet code to run on framework (source to source).")
    parser.add_argument("paths", nargs="+", help="Python files or directories (every *.py under them)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--diff", action="store_true", help="print a unified diff of every change")
    mode.add_argument("--write", action="store_true", help="rewrite the files (all or nothing)")
    mode.add_argument("--check", action="store_true", help="exit 1 if any file would change")
    parser.add_argument("--backup", action="store_true", help="with --write: keep each original as NAME.orig")
    parser.add_argument("--follow-symlinks", action="store_true",
                        help="port the files that symlinks name, also outside the tree")
    parser.add_argument("--hard-links", action="store_true",
                        help="rewrite hard-linked files (this name only; the other names keep the original)")
    # tests: SIGKILL this process at write step N
    parser.add_argument("--_kill-at", type=int, default=-1, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.backup and not args.write:
        parser.error("--backup goes with --write")
    _kill_at[0] = args._kill_at
    report = Report()
    try:
        found = collect(args.paths, follow_symlinks=args.follow_symlinks, hard_links=args.hard_links)
        files = _port_all(found.files, report)
    except (OSError, ValueError, SyntaxError) as e:
        print(f"framework.port: {e}", file=sys.stderr)
        print("framework.port: nothing was written", file=sys.stderr)
        return 2
    out = sys.stdout
    if args.diff:
        for f in files:
            if f.changed:
                sys.stdout.writelines(difflib.unified_diff(
                    f.source.splitlines(keepends=True), f.ported.splitlines(keepends=True),
                    fromfile=f.path, tofile=f"{f.path} (ported)"))
        out = sys.stderr
    if args.write:
        try:
            write_all([(f.path, f.ported) for f in files if f.changed], backup=args.backup)
        except WriteError as e:
            print(f"framework.port: {e.strerror}", file=sys.stderr)
            return 2
    for s in found.skipped:
        print(f"framework.port: skipped {s.path}: {s.why}", file=out)
    print(report.format(written=args.write), file=out)
    if args.check and report.changed:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
