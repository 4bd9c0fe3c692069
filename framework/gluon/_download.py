"""Downloading a file over HTTP(S) the way MXNet's ``gluon.utils.download`` does, made safe.

``download(url, path=None, overwrite=False, sha1_hash=None, retries=5, verify_ssl=True)`` keeps MXNet
1.9.1's signature, return value (the file's path) and decisions: ``path`` may be a file or a directory
(the URL's last part names the file), an existing file is kept unless ``overwrite`` or its SHA-1
differs from ``sha1_hash``, and ``retries`` is the number of attempts (at least one). What it adds:

- **Atomic.** The body goes to a temporary file in the target directory (``.NAME.XXXX.part``), is
  checked (length against ``Content-Length``, SHA-1 against ``sha1_hash``), and only then renamed over
  ``NAME``: a reader never sees half a file, and a failed or interrupted download leaves nothing in
  place (the temporary file is removed; an existing ``NAME`` is untouched).
- **Resuming retries.** A dropped connection is retried from the byte it stopped at when the server
  honours ``Range`` requests (else from the start); the SHA-1 is checked over the whole file.
- **What is retried.** Timeouts (no byte for ``timeout`` seconds), dropped connections, truncated
  bodies, HTTP 5xx/408/429 and checksum mismatches, after a short growing pause. Not retried: an
  unknown host, other HTTP 4xx (404, 403...) and bad arguments -- they would fail the same way again.
- **Clear errors.** :class:`DownloadError` names the URL, the target file, every attempt's failure and
  what to do (check the address, set ``MXNET_GLUON_REPO`` to a mirror, or put the file there by hand).
- A progress bar (tqdm) on stderr when it is a terminal.

>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> with open(os.path.join(d, "a.txt"), "wb") as f:
...     _ = f.write(b"hello")
>>> url = "file://" + os.path.join(d, "a.txt")
>>> path = download(url, os.path.join(d, "copy"),
...                 sha1_hash="aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d")  # doctest: +ELLIPSIS
Downloading ... from file://...a.txt...
>>> open(path, "rb").read()
b'hello'
"""

from __future__ import annotations

import hashlib
import http.client
import os
import socket
import ssl
import sys
import tempfile
import time
import urllib.error
import urllib.request
import warnings
from collections.abc import Callable
from pathlib import Path

from .. import config
from ..base import FrameworkError

__all__ = ["download", "DownloadError", "check_sha1", "fetch_url", "gluon_repo_url", "repo_file_url",
           "downloads_allowed", "DEFAULT_REPO"]

#: MXNet's default repository of data sets and models (what ``MXNET_GLUON_REPO`` overrides).
DEFAULT_REPO = config.SWITCHES["gluon_repo"].default
#: Seconds without a byte from the server before an attempt fails (tests make it short).
TIMEOUT = 30.0
#: The pause before the second attempt; it doubles for each further one, up to ``MAX_PAUSE``.
PAUSE = 0.5
MAX_PAUSE = 8.0
_CHUNK = 1 << 16
_USER_AGENT = "framework-gluon-download/1 (Python urllib)"


class DownloadError(FrameworkError, OSError):
    """A download failed; the message names the URL, the file, each attempt's error and the fix.

    Attributes: ``url``, ``failures`` (one line per attempt) and ``reached`` (whether the server
    answered at all: False for an unknown host, a refused connection or a silent server).
    """

    def __init__(self, message: str, url: str = "", failures: tuple[str, ...] = (),
                 reached: bool = False) -> None:
        super().__init__(message)
        self.url, self.failures, self.reached = url, failures, reached


class _Attempt(Exception):
    """One attempt failed; ``retry`` says whether another could succeed, ``answered`` whether the
    server answered."""

    def __init__(self, message: str, retry: bool = True, answered: bool = True) -> None:
        super().__init__(message)
        self.retry, self.answered = retry, answered


def gluon_repo_url() -> str:
    """The base URL of MXNet's repository layout: ``$MXNET_GLUON_REPO`` (read by
    :mod:`framework.config`) or MXNet's default, with a trailing slash.

    >>> gluon_repo_url() == (config.get("gluon_repo").rstrip("/") + "/")
    True
    """
    url = config.get("gluon_repo")
    return url if url.endswith("/") else url + "/"


def repo_file_url(namespace: str, filename: str) -> str:
    """``<repo>/<namespace>/<filename>`` (MXNet's ``_get_repo_file_url``)."""
    return f"{gluon_repo_url()}{namespace}/{filename}"


def downloads_allowed() -> bool:
    """False when ``FRAMEWORK_OFFLINE=1``: data sets then never try the network (an air-gapped
    machine gets the not-found error at once)."""
    return not config.get("offline")


def check_sha1(filename: str | os.PathLike, sha1_hash: str) -> bool:
    """Whether the file's SHA-1 equals ``sha1_hash`` (hex digits, either case)."""
    return _sha1(Path(filename)) == sha1_hash.lower()


def _sha1(path: Path) -> str:
    digest = hashlib.sha1()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _target(url: str, path: str | os.PathLike | None) -> Path:
    name = url.split("?")[0].rstrip().split("/")[-1]
    if path is None:
        if not name:
            raise ValueError(f"download: cannot take a file name from the URL {url!r}; pass path= with "
                             "the file (or directory) to write.")
        return Path(name)
    path = Path(os.path.expanduser(os.fspath(path)))
    if path.is_dir():
        if not name:
            raise ValueError(f"download: cannot take a file name from the URL {url!r} to put into the "
                             f"directory {path}; pass path= with the file to write.")
        return path / name
    return path


def _progress(total: int | None, name: str, initial: int) -> object:
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit="B", unit_scale=True, unit_divisor=1024, desc=name,
                leave=False, disable=None, file=sys.stderr)


def _context(verify_ssl: bool) -> ssl.SSLContext:
    context = ssl.create_default_context()
    if not verify_ssl:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


def _classify(err: BaseException) -> _Attempt:
    """The failure of one attempt, worded for the user, with whether a retry could help."""
    if isinstance(err, urllib.error.HTTPError):
        retry = err.code >= 500 or err.code in (408, 429)
        return _Attempt(f"the server answered HTTP {err.code} {err.reason}", retry)
    if isinstance(err, urllib.error.URLError):
        reason = err.reason
        if isinstance(reason, ssl.SSLCertVerificationError):
            return _Attempt(f"the server's certificate was rejected ({reason.verify_message}); fix the "
                            "system's certificates, or pass verify_ssl=False to skip the check", False)
        if isinstance(reason, socket.gaierror):
            return _Attempt(f"cannot resolve the host ({reason}): no network, or a wrong address", False,
                            answered=False)
        if isinstance(reason, (TimeoutError, socket.timeout)):
            return _Attempt("no answer from the server (timed out connecting)", answered=False)
        if isinstance(reason, OSError) and not isinstance(reason, ssl.SSLError):
            return _Attempt(f"cannot connect ({reason})", answered=False)
        return _Attempt(f"cannot connect ({reason})")
    if isinstance(err, (TimeoutError, socket.timeout)):
        return _Attempt(f"the server stopped sending (no byte for {TIMEOUT:g} s)", answered=False)
    if isinstance(err, http.client.IncompleteRead):
        return _Attempt(f"the connection closed early ({len(err.partial)} bytes of the last read)")
    if isinstance(err, (ConnectionError, http.client.HTTPException)):
        return _Attempt(f"the connection failed ({type(err).__name__}: {err})")
    return _Attempt(f"{type(err).__name__}: {err}")


def _attempt(url: str, part: Path, context: ssl.SSLContext, name: str) -> None:
    """Bring ``part`` up to the whole body of ``url`` (resuming from its current size when the server
    allows); raise ``_Attempt`` on failure."""
    have = part.stat().st_size
    request = urllib.request.Request(url, headers={"User-Agent": _USER_AGENT})
    if have and url.startswith(("http://", "https://")):
        request.add_header("Range", f"bytes={have}-")
    try:
        response = urllib.request.urlopen(request, timeout=TIMEOUT, context=context)
    except Exception as err:  # noqa: BLE001 - every failure is worded by _classify
        if isinstance(err, urllib.error.HTTPError) and err.code == 416 and have:
            part.write_bytes(b"")  # the partial file is not a prefix the server knows: start afresh
            raise _Attempt("the server refused to resume (HTTP 416)") from err
        raise _classify(err) from err
    with response:
        status = getattr(response, "status", None) or 200
        if status == 206 and (response.headers.get("Content-Range") or "").startswith(f"bytes {have}-"):
            mode = "ab"
        elif status == 200:
            mode, have = "wb", 0
        elif status == 206:  # a range other than the one asked for
            part.write_bytes(b"")
            raise _Attempt("the server resumed at another byte than asked; starting afresh")
        else:
            raise _Attempt(f"the server answered HTTP {status} where 200 was expected", status >= 500)
        length = response.headers.get("Content-Length")
        total = have + int(length) if length and length.isdigit() else None
        got = have
        bar = _progress(total, name, have)
        try:
            with open(part, mode) as out:
                while True:
                    try:
                        chunk = response.read(_CHUNK)
                    except Exception as err:  # noqa: BLE001
                        raise _classify(err) from err
                    if not chunk:
                        break
                    out.write(chunk)
                    got += len(chunk)
                    bar.update(len(chunk))  # type: ignore[attr-defined]
        finally:
            bar.close()  # type: ignore[attr-defined]
    if total is not None and got != total:
        raise _Attempt(f"truncated: got {got} of the {total} bytes the server announced")


def fetch_url(url: str, fname: str | os.PathLike, *, sha1_hash: str | None = None, retries: int = 5,
              verify_ssl: bool = True, check: Callable[[Path], str | None] | None = None,
              quiet: bool = False) -> Path:
    """Download ``url`` to ``fname`` atomically (always, whether or not ``fname`` exists).

    ``check(tmp_path)`` may inspect the downloaded temporary file before it is renamed into place and
    return a problem (a string) that fails the attempt like a checksum mismatch. Raises
    :class:`DownloadError` when every attempt fails.
    """
    fname = Path(fname)
    if not isinstance(retries, int) or retries < 0:
        raise ValueError(f"download: retries must be a whole number >= 0 (the number of attempts), got "
                         f"{retries!r}.")
    directory = fname.absolute().parent
    directory.mkdir(parents=True, exist_ok=True)
    context = _context(verify_ssl)
    attempts = max(1, retries)
    failures: list[str] = []
    answered = False
    fd, tmp_name = tempfile.mkstemp(prefix=f".{fname.name}.", suffix=".part", dir=directory)
    os.close(fd)
    part = Path(tmp_name)
    try:
        for n in range(1, attempts + 1):
            if not quiet:
                print(f"Downloading {fname} from {url}...")
            try:
                _attempt(url, part, context, fname.name)
                problem = None
                if sha1_hash and (got := _sha1(part)) != sha1_hash.lower():
                    problem = f"checksum mismatch: SHA-1 {got}, expected {sha1_hash.lower()}"
                if problem is None and check is not None:
                    problem = check(part)
                if problem is not None:
                    part.write_bytes(b"")  # the next attempt starts afresh
                    raise _Attempt(problem)
            except _Attempt as failure:
                failures.append(f"attempt {n}: {failure}")
                answered = answered or failure.answered
                if not failure.retry or n == attempts:
                    break
                left = attempts - n
                print(f"download of {url} failed ({failure}); retrying, {left} attempt"
                      f"{'s' if left > 1 else ''} left", file=sys.stderr)
                time.sleep(min(PAUSE * 2 ** (n - 1), MAX_PAUSE))
                continue
            _install(part, fname)
            return fname
    finally:
        part.unlink(missing_ok=True)
    raise DownloadError(_message(url, fname, sha1_hash, failures), url, tuple(failures), answered)


def _install(part: Path, fname: Path) -> None:
    umask = os.umask(0)
    os.umask(umask)
    part.chmod(0o666 & ~umask)  # mkstemp made it private; a download is readable like any other file
    os.replace(part, fname)


def _message(url: str, fname: Path, sha1_hash: str | None, failures: list[str]) -> str:
    lines = [f"could not download {url} to {fname}:"] + [f"  - {f}" for f in failures]
    lines.append(f"Nothing was written to {fname}. To fix: check the URL and the network (a proxy is taken "
                 "from $https_proxy/$http_proxy); for MXNet's data sets and models, point MXNET_GLUON_REPO "
                 "at a reachable mirror of MXNet's repository; or download the file by other means and "
                 f"put it at {fname}" + (f" (SHA-1 {sha1_hash})." if sha1_hash else "."))
    return "\n".join(lines)


def download(url: str, path: str | os.PathLike | None = None, overwrite: bool = False,
             sha1_hash: str | None = None, retries: int = 5, verify_ssl: bool = True) -> str:
    """Download ``url`` and return the file's path (MXNet's ``gluon.utils.download``).

    ``path``: the file to write, or a directory to put it in under the URL's last part (default: that
    name in the current directory). An existing file is returned as it is unless ``overwrite`` is true
    or its SHA-1 differs from ``sha1_hash``. ``retries``: the number of attempts (MXNet's meaning; at
    least one is made). ``verify_ssl=False`` skips certificate checks (with a warning). Atomic: see the
    module's documentation; failures raise :class:`DownloadError`.
    """
    fname = _target(url, path)
    if not verify_ssl:
        warnings.warn("Unverified HTTPS request is being made (verify_ssl=False). Adding certificate "
                      "verification is strongly advised.", stacklevel=2)
    if not overwrite and fname.exists() and (not sha1_hash or check_sha1(fname, sha1_hash)):
        return os.fspath(fname)
    return os.fspath(fetch_url(url, fname, sha1_hash=sha1_hash, retries=retries, verify_ssl=verify_ssl))
