"""tests/crash_reports.py: a pytest-xdist worker that dies leaves its fault report and its last test,
printed at the end of the run; a run without crashes prints nothing more and leaves no files."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _run(tmp_path: Path, body: str, options: tuple[str, ...] = ("-n", "2")) -> subprocess.CompletedProcess:
    """A run of the tests ``body`` with the plugin loaded (on two workers unless ``options`` say otherwise);
    its standard output holds the summary (a dying worker's own report goes to standard error)."""
    (tmp_path / "conftest.py").write_text(f"import sys\nsys.path.insert(0, {os.fspath(HERE)!r})\n"
                                          "pytest_plugins = ['crash_reports']\n")
    (tmp_path / "test_inner.py").write_text(textwrap.dedent(body))
    return subprocess.run([sys.executable, "-m", "pytest", *options, "-q", "-p",
                           "no:cacheprovider", os.fspath(tmp_path)], capture_output=True, text=True,
                          cwd=tmp_path, env={**os.environ, "TMPDIR": os.fspath(tmp_path)}, timeout=300)


def test_a_segmentation_fault_is_reported_with_the_test_and_the_stack(tmp_path):
    out = _run(tmp_path, """
        import faulthandler
        def test_fine(): pass
        def test_dies_here(): faulthandler._sigsegv()
    """).stdout
    summary = out[out.index("did not end normally"):]
    assert "started test_inner.py::test_dies_here (peak memory so far" in summary
    assert "Fatal Python error: Segmentation fault" in summary
    assert 'test_inner.py", line 4 in test_dies_here' in summary
    assert "1 failed, 1 passed" in out


def test_a_worker_killed_without_a_report_names_its_last_test(tmp_path):
    out = _run(tmp_path, """
        import os, signal
        def test_killed(): os.kill(os.getpid(), signal.SIGKILL)
        def test_fine(): pass
    """).stdout
    summary = out[out.index("did not end normally"):]
    assert "started test_inner.py::test_killed" in summary
    assert "no fault report: killed by a signal it cannot catch" in summary


def test_a_run_without_crashes_adds_nothing_and_leaves_no_files(tmp_path):
    out = _run(tmp_path, """
        def test_one(): pass
        def test_two(): pass
    """).stdout
    assert "2 passed" in out and "did not end normally" not in out
    assert not list(tmp_path.glob("framework-test-crashes-*"))


@pytest.mark.parametrize("options", [("-n", "0"), ()])  # workers off; no -n at all
def test_without_workers_the_plugin_does_nothing(tmp_path, options):
    proc = _run(tmp_path, "def test_one(): pass\n", options)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not list(tmp_path.glob("framework-test-crashes-*"))
