"""``gluon.utils.download``: MXNet 1.9.1's signature and decisions, made atomic, against a server on
127.0.0.1 that serves, fails with 404/500, cuts bodies short and stalls (short timeouts, no pauses)."""

from __future__ import annotations

import hashlib
import inspect
import os
import socket

import pytest
from local_http import LocalServer

from framework import gluon
from framework.gluon import _download

BODY = bytes(range(256)) * 40  # 10 KiB
SHA1 = hashlib.sha1(BODY).hexdigest()


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setattr(_download, "TIMEOUT", 0.5)
    monkeypatch.setattr(_download, "PAUSE", 0.0)
    s = LocalServer()
    yield s
    s.close()


def leftovers(directory) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".part"))


def test_signature_is_mxnets():
    params = inspect.signature(gluon.utils.download).parameters
    assert [(n, p.default) for n, p in params.items()] == [
        ("url", inspect.Parameter.empty), ("path", None), ("overwrite", False), ("sha1_hash", None),
        ("retries", 5), ("verify_ssl", True)]
    assert gluon.utils.check_sha1 is _download.check_sha1


def test_downloads_to_a_directory_a_file_or_the_current_directory(server, tmp_path, monkeypatch, capsys):
    url = server.add("data/file.bin", BODY)
    got = gluon.utils.download(url, path=tmp_path, sha1_hash=SHA1)
    assert got == os.fspath(tmp_path / "file.bin") and (tmp_path / "file.bin").read_bytes() == BODY
    assert f"Downloading {tmp_path / 'file.bin'} from {url}..." in capsys.readouterr().out
    other = tmp_path / "sub" / "named.dat"  # a missing directory is made
    assert gluon.utils.download(url, path=other) == os.fspath(other) and other.read_bytes() == BODY
    monkeypatch.chdir(tmp_path / "sub")
    assert gluon.utils.download(url) == "file.bin" and (tmp_path / "sub" / "file.bin").read_bytes() == BODY
    assert oct((tmp_path / "file.bin").stat().st_mode)[-3:] != "600"  # not the temporary file's mode
    assert leftovers(tmp_path) == [] and leftovers(tmp_path / "sub") == []


def test_an_existing_file_is_kept_unless_overwrite_or_its_hash_differs(server, tmp_path):
    url = server.add("file.bin", BODY)
    target = tmp_path / "file.bin"
    target.write_bytes(b"old")
    assert gluon.utils.download(url, path=tmp_path) == os.fspath(target)
    assert target.read_bytes() == b"old" and server.hits["file.bin"] == 0
    gluon.utils.download(url, path=tmp_path, sha1_hash=SHA1)  # b"old" does not match: fetched again
    assert target.read_bytes() == BODY and server.hits["file.bin"] == 1
    gluon.utils.download(url, path=tmp_path, sha1_hash=SHA1)  # matches now: kept
    assert server.hits["file.bin"] == 1
    gluon.utils.download(url, path=tmp_path, overwrite=True)
    assert server.hits["file.bin"] == 2


def test_http_500_is_retried_then_names_the_url_and_the_fix(server, tmp_path):
    url = server.add("broken.bin", BODY, mode="status", status=500)
    with pytest.raises(gluon.utils.DownloadError) as err:
        gluon.utils.download(url, path=tmp_path, retries=3)
    msg = str(err.value)
    assert server.hits["broken.bin"] == 3  # retries is MXNet's number of attempts
    assert f"could not download {url} to {tmp_path / 'broken.bin'}" in msg
    assert msg.count("HTTP 500") == 3 and "attempt 3" in msg
    assert "MXNET_GLUON_REPO" in msg and f"put it at {tmp_path / 'broken.bin'}" in msg
    assert isinstance(err.value, OSError) and err.value.reached
    assert list(tmp_path.iterdir()) == []  # nothing half-written, no file in place


def test_a_500_that_recovers_succeeds_on_a_later_attempt(server, tmp_path, capsys):
    url = server.add("flaky.bin", BODY, mode="status", status=503, times=2)
    assert gluon.utils.download(url, path=tmp_path, sha1_hash=SHA1, retries=3)
    assert server.hits["flaky.bin"] == 3 and (tmp_path / "flaky.bin").read_bytes() == BODY
    assert "retrying, 2 attempts left" in capsys.readouterr().err


def test_http_404_is_not_retried(server, tmp_path):
    with pytest.raises(gluon.utils.DownloadError, match="HTTP 404"):
        gluon.utils.download(server.url("nothing.bin"), path=tmp_path)
    assert server.hits["nothing.bin"] == 1 and list(tmp_path.iterdir()) == []


def test_a_cut_body_resumes_from_where_it_stopped(server, tmp_path):
    url = server.add("cut.bin", BODY, mode="truncate", times=1)
    gluon.utils.download(url, path=tmp_path, sha1_hash=SHA1)
    assert (tmp_path / "cut.bin").read_bytes() == BODY and server.hits["cut.bin"] == 2
    assert server.ranges == [("cut.bin", f"bytes={len(BODY) // 2}-")]
    assert leftovers(tmp_path) == []


def test_a_body_always_cut_short_fails_and_leaves_nothing(server, tmp_path):
    url = server.add("cut.bin", BODY, mode="truncate", ranges=False)
    (tmp_path / "cut.bin").write_bytes(b"the previous version")
    with pytest.raises(gluon.utils.DownloadError, match=r"truncated: got 5120 of the 10240 bytes"):
        gluon.utils.download(url, path=tmp_path, overwrite=True, retries=2)
    assert server.hits["cut.bin"] == 2
    assert (tmp_path / "cut.bin").read_bytes() == b"the previous version"  # untouched
    assert leftovers(tmp_path) == []


def test_a_truncated_file_fails_its_hash_and_is_retried(server, tmp_path):
    url = server.add("short.bin", BODY[:4000])  # a complete answer, but not the whole file
    with pytest.raises(gluon.utils.DownloadError) as err:
        gluon.utils.download(url, path=tmp_path, sha1_hash=SHA1, retries=2)
    msg = str(err.value)
    got = hashlib.sha1(BODY[:4000]).hexdigest()
    assert server.hits["short.bin"] == 2
    assert msg.count(f"checksum mismatch: SHA-1 {got}, expected {SHA1}") == 2
    assert url in msg and f"(SHA-1 {SHA1})" in msg
    assert list(tmp_path.iterdir()) == []


def test_a_stalled_server_times_out_and_is_retried(server, tmp_path):
    url = server.add("slow.bin", BODY, mode="stall")
    with pytest.raises(gluon.utils.DownloadError) as err:
        gluon.utils.download(url, path=tmp_path, retries=2)
    msg = str(err.value)
    assert server.hits["slow.bin"] == 2 and "the server stopped sending (no byte for 0.5 s)" in msg
    assert url in msg and list(tmp_path.iterdir()) == []


def test_a_closed_port_says_the_server_was_not_reached(server, tmp_path):
    with socket.socket() as s:  # a port on 127.0.0.1 that nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(gluon.utils.DownloadError, match="cannot connect") as err:
        gluon.utils.download(f"http://127.0.0.1:{port}/x.bin", path=tmp_path, retries=2)
    assert not err.value.reached and list(tmp_path.iterdir()) == []


def test_bad_arguments(server, tmp_path):
    url = server.add("f.bin", BODY)
    with pytest.raises(ValueError, match="retries must be a whole number >= 0"):
        gluon.utils.download(url, path=tmp_path, retries=-1)
    with pytest.raises(ValueError, match="cannot take a file name from the URL"):
        gluon.utils.download(server.base)
    gluon.utils.download(url, path=tmp_path, retries=0)  # MXNet: still one attempt
    assert server.hits["f.bin"] == 1
    with pytest.warns(UserWarning, match="verify_ssl=False"):
        gluon.utils.download(url, path=tmp_path / "g.bin", verify_ssl=False)


def test_repo_url_follows_mxnet_gluon_repo(monkeypatch):
    monkeypatch.delenv("MXNET_GLUON_REPO", raising=False)
    assert gluon.utils._get_repo_url() == "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/"
    monkeypatch.setenv("MXNET_GLUON_REPO", "http://127.0.0.1:1/mirror")
    assert gluon.utils._get_repo_file_url("gluon/dataset/mnist", "a.gz") == \
        "http://127.0.0.1:1/mirror/gluon/dataset/mnist/a.gz"
