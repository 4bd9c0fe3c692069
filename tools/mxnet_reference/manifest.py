"""Write the MANIFEST.json of one reference area (stdlib only: runs in the MXNet side venv too).

Every file under ``tests/reference/<area>/`` (except the manifest itself) gets an entry: its path
relative to the area, SHA-256, size in bytes, the generator that made it (a repository-relative
path) and the MXNet version the generator ran. ``tests/test_reference_manifest.py`` checks every
manifest against the files, so a file changed, added or removed by hand fails the suite.

Usage (from the repository root)::

    python tools/mxnet_reference/manifest.py tests/reference/core \
        --generator tools/mxnet_reference/gen_core.py --mxnet-version 1.9.1

An area made by several generators: pass ``--only GLOB`` (repeatable) to (re)write the entries
of the matching files only; the other entries are kept as they are (and still checked by the test).
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import sys
from pathlib import Path

MANIFEST = "MANIFEST.json"
FORMAT = 1


def sha256(path: Path) -> str:
    """The hex SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def area_files(area: Path) -> list[str]:
    """Every file of an area, relative to it, sorted, without the manifest."""
    return sorted(
        p.relative_to(area).as_posix()
        for p in area.rglob("*")
        if p.is_file() and p.relative_to(area).as_posix() != MANIFEST
    )


def write_manifest(area: Path, generator: str, mxnet_version: str,
                   only: list[str] | None = None) -> dict:
    """Write ``area/MANIFEST.json`` and return its content."""
    area = Path(area)
    if not area.is_dir():
        raise SystemExit(f"manifest: {area} is not a directory; run the generator first")
    old: dict[str, dict] = {}
    path = area / MANIFEST
    if path.exists():
        old = {e["file"]: e for e in json.loads(path.read_text())["files"]}
    entries = []
    unlisted = []
    for name in area_files(area):
        if only and not any(fnmatch.fnmatch(name, pat) for pat in only):
            if name not in old:
                unlisted.append(name)
                continue
            entries.append(old[name])
            continue
        p = area / name
        entries.append({"file": name, "sha256": sha256(p), "size": p.stat().st_size,
                        "generator": generator, "mxnet_version": mxnet_version})
    if unlisted:
        raise SystemExit(f"manifest: {', '.join(unlisted)} in {area} match no --only pattern and are "
                         "not in the manifest yet; list them with --only or remove them")
    content = {"format": FORMAT, "area": area.name, "files": entries}
    path.write_text(json.dumps(content, indent=1, sort_keys=True) + "\n")
    return content


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("area", type=Path, help="the directory tests/reference/<area>")
    ap.add_argument("--generator", required=True,
                    help="repository-relative path of the script that made the files")
    ap.add_argument("--mxnet-version", default="1.9.1", help="MXNet version the generator ran (1.9.1)")
    ap.add_argument("--only", action="append", default=None, metavar="GLOB",
                    help="rewrite only the entries of files matching GLOB (repeatable)")
    args = ap.parse_args(argv)
    if not Path(args.generator).is_file():
        raise SystemExit(f"manifest: --generator {args.generator} is not a file (run from the repo root)")
    content = write_manifest(args.area, args.generator, args.mxnet_version, args.only)
    print(f"{args.area / MANIFEST}: {len(content['files'])} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
