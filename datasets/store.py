"""Getting a catalogued dataset's files into a directory, verified: from a local copy or by download.

Every file is checked (size, IDX structure, checksums) before it is moved into place, through a
temporary name, so an interrupted fetch never leaves a file that looks complete. CIFAR archives are
extracted with tarfile's ``data`` filter (no absolute paths, links or devices).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from framework.gluon.data.vision import _files
from framework.gluon.data.vision.catalogue import entry_for

__all__ = ["FetchError", "Check", "check_dir", "fetch", "download_timeout"]

download_timeout = 30.0


class FetchError(RuntimeError):
    """The files could not be obtained; the message lists what was tried."""


@dataclass
class Check:
    """The state of one catalogued file in a directory."""

    name: str
    path: Path | None
    ok: bool
    detail: str


def _inner(entry: dict[str, Any]) -> str | None:
    return entry.get("inner_dir")


def check_file(name: str, filename: str, path: Path) -> Check:
    """Verify ``path`` as the catalogued ``filename`` of dataset ``name``."""
    entry = entry_for(name)
    spec = entry["files"][filename]
    try:
        if entry["format"] == "idx":
            _files.read_idx(path, name, spec, verify=True)
            how = "sha256 of the content" if spec.get("sha256") else "sha256 of the gzip file"
        else:
            _files.read_cifar(path, name, spec, entry["label_bytes"], verify=True)
            how = "size and sha1"
    except (_files.DataFileError, OSError) as err:
        return Check(filename, path, False, str(err))
    return Check(filename, path, True, f"verified ({how})")


def check_dir(name: str, directory: Path) -> list[Check]:
    """The state of every catalogued file of ``name`` in ``directory``."""
    entry = entry_for(name)
    out = []
    for filename in entry["files"]:
        path = _files.find_file(directory, filename, _inner(entry))
        out.append(check_file(name, filename, path) if path else Check(filename, None, False, "missing"))
    return out


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _install(tmp: Path, final: Path) -> None:
    umask = os.umask(0)
    os.umask(umask)
    tmp.chmod(0o666 & ~umask)  # mkstemp made it private; a dataset is readable as any other file
    final.parent.mkdir(parents=True, exist_ok=True)
    os.replace(tmp, final)


def _download(url: str, dest: Path, size: int | None) -> None:
    with urllib.request.urlopen(url, timeout=download_timeout) as response, dest.open("wb") as out:
        shutil.copyfileobj(response, out, 1 << 20)
    if size is not None and dest.stat().st_size != size:
        raise FetchError(f"{url}: got {dest.stat().st_size} bytes, expected {size}")


def _obtain(name: str, filename: str, dest_dir: Path, src: Path | None, urls: list[str],
            suffix: str, size: int | None, verify: Any, log: Any) -> Path:
    """Copy ``filename`` from ``src``, or download it from ``urls``; verify with ``verify(tmp_path)``."""
    tried = []
    dest_dir.mkdir(parents=True, exist_ok=True)
    candidates: list[tuple[str, Any]] = []
    if src is not None:
        found = _files.find_file(src, filename, _inner(entry_for(name)))
        if found is None:
            raise FetchError(f"{filename}(.gz) is not in {src}")
        candidates.append((os.fspath(found), lambda tmp, p=found: shutil.copyfile(p, tmp)))
        final_name = found.name
    else:
        final_name = filename + suffix
        for base in urls:
            url = base + filename + suffix
            candidates.append((url, lambda tmp, u=url: _download(u, tmp, size)))
    for where, get in candidates:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{final_name}.", suffix=".part", dir=dest_dir)
        os.close(fd)
        tmp = Path(tmp_name)
        try:
            log(f"  {filename}: from {where}")
            get(tmp)
            problem = verify(tmp, final_name)
            if problem:
                raise FetchError(problem)
            _install(tmp, dest_dir / final_name)
            return dest_dir / final_name
        except (OSError, urllib.error.URLError, FetchError, ValueError) as err:
            tried.append(f"{where}: {err}")
        finally:
            tmp.unlink(missing_ok=True)
    raise FetchError(f"could not get {filename}:\n" + "\n".join(f"    - {t}" for t in tried))


def _problem(name: str, filename: str, tmp: Path) -> str | None:
    """What is wrong with ``tmp`` as the catalogued ``filename`` (None: nothing)."""
    result = check_file(name, filename, tmp)
    return None if result.ok else result.detail


def fetch(name: str, dest: Path, src: Path | None = None, log: Any = print) -> list[Check]:
    """Put the verified files of ``name`` into ``dest`` (from ``src`` if given, else from the network)."""
    entry = entry_for(name)
    dest = Path(dest).expanduser()
    src = None if src is None else Path(src).expanduser()
    if src is not None and not src.is_dir():
        raise FetchError(f"--from {src}: no such directory")
    state = check_dir(name, dest)
    if all(c.ok for c in state):
        log(f"{name}: already in {dest}, verified")
        return state
    if entry["format"] == "idx":
        for c in state:
            if c.ok:
                continue
            spec = entry["files"][c.name]
            _obtain(name, c.name, dest, src, entry["urls"], ".gz", spec["gz"]["size"],
                    lambda tmp, final, f=c.name: _problem(name, f, tmp), log)
    else:
        _fetch_archive(name, entry, dest, src, log)
    state = check_dir(name, dest)
    bad = [c for c in state if not c.ok]
    if bad:
        raise FetchError("after fetching, these files are still wrong:\n" +
                         "\n".join(f"    - {c.name}: {c.detail}" for c in bad))
    return state


def _fetch_archive(name: str, entry: dict[str, Any], dest: Path, src: Path | None, log: Any) -> None:
    archive = entry["archive"]
    if src is not None and all(_files.find_file(src, f, _inner(entry)) for f in entry["files"]):
        for filename in entry["files"]:
            _obtain(name, filename, dest / entry["inner_dir"], src, [], "", None,
                    lambda tmp, final, f=filename: _problem(name, f, tmp), log)
        return

    def verify(tmp: Path, final_name: str) -> str | None:
        got = _sha256(tmp)
        return None if got == archive["sha256"] else f"sha256 {got}, expected {archive['sha256']}"

    path = _obtain(name, archive["name"], dest, src, entry["urls"], "", archive["size"], verify, log)
    log(f"  extracting {path.name}")
    with tarfile.open(path) as tar:
        members = [m for m in tar.getmembers() if m.name.startswith(entry["inner_dir"] + "/")]
        tar.extractall(dest, members=members, filter="data")

