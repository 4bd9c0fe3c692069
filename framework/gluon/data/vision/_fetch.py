"""Getting a catalogued dataset's files into a directory, verified: downloaded, or copied from a local
directory. The dataset classes (when their files are nowhere to be found) and ``python -m datasets
fetch`` both come here.

Downloads try, in order, MXNet's repository layout (``$MXNET_GLUON_REPO``, default MXNet's own
repository: ``<repo>/gluon/dataset/<namespace>/<file>``, checked against the SHA-1 MXNet publishes)
and the dataset's canonical mirrors (the catalogue's ``urls``). Each file goes through
:func:`framework.gluon.utils.download`'s machinery (a temporary file in the target directory, retries,
a progress bar) and is verified against the catalogue (IDX structure and checksums, CIFAR batch SHA-1s)
*before* it is renamed into place, so nothing unverified is ever left where a reader looks. A source
that cannot be reached at all (unknown host, refused, silent) is not tried again for the other files.
CIFAR archives are unpacked member by member (only the catalogued batch files; no links, devices or
absolute paths are ever created), each batch verified before it is renamed into place.

>>> [u.split("/gluon/")[-1] for u in sources("mnist", "t10k-labels-idx1-ubyte.gz")[:1]]
['dataset/mnist/t10k-labels-idx1-ubyte.gz']
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tarfile
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ....base import FrameworkError
from ..._download import DownloadError, fetch_url, gluon_repo_url, repo_file_url
from . import _files
from .catalogue import entry_for

__all__ = ["FetchError", "Check", "check_file", "check_dir", "fetch", "sources"]

Log = Callable[[str], Any]


class FetchError(FrameworkError, RuntimeError):
    """A dataset's files could not be obtained; the message lists every source tried and why it failed."""


@dataclass(frozen=True)
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
            how = "sha256 of the content" if spec.get("sha256") else "checksum of the gzip file"
        else:
            _files.read_cifar(path, name, spec, entry["label_bytes"], verify=True)
            how = "size and sha1"
    except (_files.DataFileError, OSError) as err:
        return Check(filename, path, False, str(err))
    return Check(filename, path, True, f"verified ({how})")


def check_dir(name: str, directory: Path, files: Iterable[str] | None = None) -> list[Check]:
    """The state of every catalogued file of ``name`` (or of ``files``) in ``directory``."""
    entry = entry_for(name)
    out = []
    for filename in entry["files"] if files is None else files:
        path = _files.find_file(directory, filename, _inner(entry))
        out.append(check_file(name, filename, path) if path else Check(filename, None, False, "missing"))
    return out


def sources(name: str, download_name: str) -> list[str]:
    """The URLs ``download_name`` (e.g. ``train-images-idx3-ubyte.gz``) is tried from, in order."""
    entry = entry_for(name)
    urls = []
    if entry.get("mxnet_namespace"):
        urls.append(repo_file_url(f"gluon/dataset/{entry['mxnet_namespace']}", download_name))
    urls += [base + download_name for base in entry.get("urls", [])]
    return urls


def _base(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


class _Downloader:
    """Tries each source of a file in turn; remembers servers that could not be reached at all."""

    def __init__(self, name: str, log: Log) -> None:
        self.name, self.log = name, log
        self.unreachable: dict[str, str] = {}

    def get(self, download_name: str, final: Path, mxnet_sha1: str | None,
            check: Callable[[Path], str | None]) -> Path:
        tried = []
        for url in sources(self.name, download_name):
            server = _base(url)
            if server in self.unreachable:
                tried.append(f"{url}: skipped, {server} could not be reached ({self.unreachable[server]})")
                continue
            from_repo = url.startswith(gluon_repo_url())
            self.log(f"Downloading {final} from {url}...")
            try:
                return fetch_url(url, final, sha1_hash=mxnet_sha1 if from_repo else None, check=check,
                                 quiet=True)
            except DownloadError as err:
                tried.append(f"{url}: {_grouped(err.failures)}")
                if not err.reached:
                    self.unreachable[server] = err.failures[-1].split(": ", 1)[-1]
        raise FetchError(f"could not download {download_name}; tried:\n" +
                         "\n".join(f"    - {t}" for t in tried))


def _grouped(failures: tuple[str, ...]) -> str:
    """``attempt 1: X; attempt 2: X`` -> ``attempts 1-2: X``."""
    texts = [f.split(": ", 1)[-1] for f in failures]
    if len(texts) > 1 and len(set(texts)) == 1:
        return f"attempts 1-{len(texts)}: {texts[0]}"
    return "; ".join(failures)


def _problem(name: str, filename: str) -> Callable[[Path], str | None]:
    """A check of a downloaded temporary file as the catalogued ``filename`` (None: it is right)."""

    def check(tmp: Path) -> str | None:
        result = check_file(name, filename, tmp)
        if result.ok:
            return None
        detail = result.detail.replace(os.fspath(tmp), "the downloaded file")
        for advice in _READER_ADVICE:  # advice about files on disk, not about a download
            detail = detail.split(advice)[0]
        return detail.rstrip(" .") + " (not the catalogued file)"

    return check


_READER_ADVICE = (" Pass verify=False", " Delete it and fetch", " (or pass verify=False", " Is it the file")


def _copy(name: str, filename: str, src: Path, dest_dir: Path, log: Log) -> Path:
    found = _files.find_file(src, filename, _inner(entry_for(name)))
    if found is None:
        raise FetchError(f"{filename}(.gz) is not in {src}")
    log(f"  {filename}: from {found}")
    dest_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{found.name}.", suffix=".part", dir=dest_dir)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        shutil.copyfile(found, tmp)
        problem = _problem(name, filename)(tmp)
        if problem:
            raise FetchError(f"could not get {filename}:\n    - {found}: {problem}")
        _install(tmp, dest_dir / found.name)
    finally:
        tmp.unlink(missing_ok=True)
    return dest_dir / found.name


def _install(tmp: Path, final: Path) -> None:
    umask = os.umask(0)
    os.umask(umask)
    tmp.chmod(0o666 & ~umask)  # mkstemp made it private; a dataset is readable as any other file
    final.parent.mkdir(parents=True, exist_ok=True)
    os.replace(tmp, final)


def fetch(name: str, dest: Path, src: Path | None = None, log: Log = print,
          files: Iterable[str] | None = None) -> list[Check]:
    """Put the verified files of ``name`` (all, or ``files``) into ``dest``: copied from ``src`` when
    given, else downloaded. Files already there and verified are kept. Raises :class:`FetchError`."""
    entry = entry_for(name)
    dest = Path(dest).expanduser()
    src = None if src is None else Path(src).expanduser()
    wanted = list(entry["files"] if files is None else files)
    if src is not None and not src.is_dir():
        raise FetchError(f"--from {src}: no such directory")
    state = check_dir(name, dest, wanted)
    if all(c.ok for c in state):
        log(f"{name}: already in {dest}, verified")
        return state
    if entry["format"] == "idx":
        downloader = _Downloader(name, log)
        for c in state:
            if c.ok:
                continue
            if src is not None:
                _copy(name, c.name, src, dest, log)
            else:
                spec = entry["files"][c.name]
                downloader.get(f"{c.name}.gz", dest / f"{c.name}.gz", (spec["gz"].get("sha1") or [None])[0],
                               _problem(name, c.name))
    else:
        _fetch_archive(name, entry, dest, src, log)
    state = check_dir(name, dest, wanted)
    bad = [c for c in state if not c.ok]
    if bad:
        raise FetchError("after fetching, these files are still wrong:\n" +
                         "\n".join(f"    - {c.name}: {c.detail}" for c in bad))
    return state


def _archive_problem(archive: dict[str, Any]) -> Callable[[Path], str | None]:
    def check(tmp: Path) -> str | None:
        sha1, sha256 = hashlib.sha1(), hashlib.sha256()
        with open(tmp, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                sha1.update(block)
                sha256.update(block)
        if sha256.hexdigest() == archive["sha256"] or sha1.hexdigest() == archive.get("sha1"):
            return None
        return (f"checksum mismatch: sha256 {sha256.hexdigest()} (expected {archive['sha256']}), sha1 "
                f"{sha1.hexdigest()} (MXNet's copy: {archive.get('sha1')})")

    return check


def _fetch_archive(name: str, entry: dict[str, Any], dest: Path, src: Path | None, log: Log) -> None:
    archive = entry["archive"]
    inner = dest / entry["inner_dir"]
    if src is not None and all(_files.find_file(src, f, _inner(entry)) for f in entry["files"]):
        for filename in entry["files"]:
            _copy(name, filename, src, inner, log)
        return
    path = dest / archive["name"]
    check = _archive_problem(archive)
    if path.is_file() and check(path) is None:
        log(f"  {archive['name']}: already in {dest}, verified")
    elif src is not None:
        found = src / archive["name"]
        if not found.is_file():
            raise FetchError(f"neither the batch files nor {archive['name']} are in {src}")
        log(f"  {archive['name']}: from {found}")
        problem = check(found)
        if problem:
            raise FetchError(f"could not get {archive['name']}:\n    - {found}: {problem}")
        dest.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{archive['name']}.", suffix=".part", dir=dest)
        os.close(fd)
        try:
            shutil.copyfile(found, tmp_name)
            _install(Path(tmp_name), path)
        finally:
            Path(tmp_name).unlink(missing_ok=True)
    else:
        _Downloader(name, log).get(archive["name"], path, archive.get("sha1"), check)
    _extract(name, entry, path, inner, log)


def _extract(name: str, entry: dict[str, Any], archive: Path, inner: Path, log: Log) -> None:
    """Unpack the catalogued batch files of ``archive`` (at its top level or under the inner
    directory) into ``inner``, each verified before it is renamed into place."""
    log(f"  extracting {archive.name}")
    wanted = set(entry["files"])
    inner.mkdir(parents=True, exist_ok=True)
    done = set()
    with tarfile.open(archive) as tar:
        for member in tar:
            parts = Path(member.name).parts
            filename = parts[-1] if parts else ""
            if not member.isfile() or filename not in wanted or filename in done or \
                    parts not in ((filename,), (entry["inner_dir"], filename)):
                continue
            source = tar.extractfile(member)
            if source is None:
                continue
            fd, tmp_name = tempfile.mkstemp(prefix=f".{filename}.", suffix=".part", dir=inner)
            tmp = Path(tmp_name)
            try:
                with source, os.fdopen(fd, "wb") as out:
                    shutil.copyfileobj(source, out, 1 << 20)
                problem = _problem(name, filename)(tmp)
                if problem:
                    raise FetchError(f"{archive}: the member {member.name} is wrong: {problem}")
                _install(tmp, inner / filename)
                done.add(filename)
            finally:
                tmp.unlink(missing_ok=True)
    missing = sorted(wanted - done)
    if missing:
        raise FetchError(f"{archive} does not hold {', '.join(missing)} (looked for them at its top level "
                         f"and under {entry['inner_dir']}/)")
