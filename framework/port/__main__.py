"""``python -m framework.port PATH... [--diff | --write | --check]``.

Without an option it prints the report (what would change, what it cannot port). ``--diff`` adds a
unified diff per file, ``--write`` rewrites the files in place, ``--check`` exits with status 1 when any
file would change (for CI). The report goes to stderr when a diff is printed, else to stdout.
"""

from __future__ import annotations

import argparse
import difflib
import sys

from ._porter import port_paths
from .report import Report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m framework.port",
                                     description="Rewrite MXNet code to run on framework (source to source).")
    parser.add_argument("paths", nargs="+", help="Python files or directories (every *.py under them)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--diff", action="store_true", help="print a unified diff of every change")
    mode.add_argument("--write", action="store_true", help="rewrite the files in place")
    mode.add_argument("--check", action="store_true", help="exit 1 if any file would change")
    args = parser.parse_args(argv)
    report = Report()
    try:
        files = port_paths(args.paths, report)
    except (OSError, SyntaxError, UnicodeDecodeError) as e:
        print(f"framework.port: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # libcst's ParserSyntaxError is not a SyntaxError
        if type(e).__name__ != "ParserSyntaxError":
            raise
        print(f"framework.port: cannot parse: {e}", file=sys.stderr)
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
        for f in files:
            if f.changed:
                with open(f.path, "w", encoding="utf-8", newline="") as fh:
                    fh.write(f.ported)
    print(report.format(written=args.write), file=out)
    if args.check and report.changed:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
