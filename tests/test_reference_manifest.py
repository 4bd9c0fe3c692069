"""Every reference area's MANIFEST.json matches its files, and the manifest writer is honest.

The checker here is written independently of ``tools/mxnet_reference/manifest.py`` (it only
shares the JSON layout), so a bug in the writer does not hide itself.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "tests" / "reference"
WRITER = ROOT / "tools" / "mxnet_reference" / "manifest.py"


def problems(area: Path, root: Path = ROOT) -> list[str]:
    """What is wrong between ``area/MANIFEST.json`` and the files of ``area`` (empty: nothing)."""
    path = area / "MANIFEST.json"
    if not path.is_file():
        return [f"{area} has no MANIFEST.json (run tools/mxnet_reference/manifest.py)"]
    content = json.loads(path.read_text())
    out = []
    if content.get("area") != area.name:
        out.append(f"{path}: area {content.get('area')!r}, expected {area.name!r}")
    listed = {}
    for e in content["files"]:
        name = e["file"]
        if name in listed:
            out.append(f"{path}: {name} listed twice")
        listed[name] = e
        f = area / name
        if not f.is_file():
            out.append(f"{path}: {name} is listed but missing")
            continue
        data = f.read_bytes()
        if hashlib.sha256(data).hexdigest() != e["sha256"]:
            out.append(f"{path}: {name} has changed (SHA-256 differs); regenerate it with {e['generator']}")
        if len(data) != e["size"]:
            out.append(f"{path}: {name} is {len(data)} bytes, the manifest says {e['size']}")
        if not (root / e["generator"]).is_file():
            out.append(f"{path}: {name}'s generator {e['generator']} is not in the repository")
        if not isinstance(e.get("mxnet_version"), str) or not e["mxnet_version"]:
            out.append(f"{path}: {name} has no MXNet version")
    on_disk = {p.relative_to(area).as_posix() for p in area.rglob("*")
               if p.is_file() and p.name != "MANIFEST.json"}
    for name in sorted(on_disk - set(listed)):
        out.append(f"{path}: {name} is in the area but not in the manifest")
    return out


def test_every_reference_area_matches_its_manifest():
    areas = sorted(p for p in REFERENCE.iterdir() if p.is_dir()) if REFERENCE.is_dir() else []
    found = [msg for area in areas for msg in problems(area)]
    assert found == []


def _writer():
    spec = importlib.util.spec_from_file_location("mxnet_reference_manifest", WRITER)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def area(tmp_path):
    a = tmp_path / "tests" / "reference" / "demo"
    (a / "sub").mkdir(parents=True)
    (a / "x.npz").write_bytes(b"\x00\x01abc")
    (a / "sub" / "y.params").write_bytes(b"params")
    gen = tmp_path / "tools" / "gen_demo.py"
    gen.parent.mkdir()
    gen.write_text("")
    _writer().write_manifest(a, "tools/gen_demo.py", "1.9.1")
    return a


def test_writer_lists_every_file_with_its_hash(area):
    content = json.loads((area / "MANIFEST.json").read_text())
    assert {e["file"]: e["sha256"] for e in content["files"]} == {
        "sub/y.params": hashlib.sha256(b"params").hexdigest(),
        "x.npz": hashlib.sha256(b"\x00\x01abc").hexdigest(),
    }
    assert {e["generator"] for e in content["files"]} == {"tools/gen_demo.py"}
    assert {e["mxnet_version"] for e in content["files"]} == {"1.9.1"}
    assert problems(area, root=area.parents[2]) == []


def test_checker_sees_a_changed_file(area):
    (area / "x.npz").write_bytes(b"\x00\x01abd")
    assert [m for m in problems(area, root=area.parents[2]) if "x.npz has changed" in m]


def test_checker_sees_an_unlisted_file(area):
    (area / "z.npz").write_bytes(b"")
    assert problems(area, root=area.parents[2]) == [
        f"{area / 'MANIFEST.json'}: z.npz is in the area but not in the manifest"]


def test_checker_sees_a_missing_file(area):
    (area / "sub" / "y.params").unlink()
    assert problems(area, root=area.parents[2]) == [
        f"{area / 'MANIFEST.json'}: sub/y.params is listed but missing"]


def test_writer_only_keeps_other_generators_entries(area):
    (area / "x.npz").write_bytes(b"new")
    _writer().write_manifest(area, "tools/gen_other.py", "1.9.1", only=["x.*"])
    by_file = {e["file"]: e for e in json.loads((area / "MANIFEST.json").read_text())["files"]}
    assert by_file["x.npz"]["generator"] == "tools/gen_other.py"
    assert by_file["x.npz"]["sha256"] == hashlib.sha256(b"new").hexdigest()
    assert by_file["sub/y.params"]["generator"] == "tools/gen_demo.py"
