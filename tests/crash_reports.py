"""What a test worker that died left behind, printed at the end of the run.

pytest-xdist reports a worker that died only as "worker 'gw0' crashed while running <test>", and
what the dying process printed scrolls away among the progress dots. With this plugin every worker
writes Python's fault report (``faulthandler``: the stack of every thread at a segmentation fault,
an abort or a bus error) to its own file, and keeps one line up to date with the test it runs and
its peak memory; a worker that ends normally removes both. At the end of the run the controller
prints what the workers that did not end normally left, so the last lines of a CI log say where a
crash happened. A worker killed by SIGKILL (the kernel's out-of-memory killer) leaves no report, only
its last line: its peak memory tells whether memory ran out.
"""

from __future__ import annotations

import faulthandler
import os
import shutil
import tempfile
from pathlib import Path
from typing import IO

import pytest

try:
    import resource  # POSIX: the peak memory
except ImportError:  # pragma: no cover (Windows)
    resource = None

_DIR = "framework_crash_dir"  # the key of the directory in the workers' workerinput
_dir_key = pytest.StashKey[Path]()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    """xdist's controller: tell each new worker where its files go."""
    directory = node.config.stash.get(_dir_key, None)
    if directory is not None:
        node.workerinput[_DIR] = os.fspath(directory)


_worker_files: list[IO[str]] = []  # a worker's fault report and last line, open while it runs


@pytest.hookimpl(trylast=True)  # after pytest's own faulthandler plugin, which reports to stderr
def pytest_configure(config: pytest.Config) -> None:
    worker = getattr(config, "workerinput", None)
    if worker is None:
        if getattr(config.option, "numprocesses", None):
            config.stash[_dir_key] = Path(tempfile.mkdtemp(prefix="framework-test-crashes-"))
        return
    if _DIR not in worker:
        return
    stem = Path(worker[_DIR]) / f"{worker['workerid']}-{os.getpid()}"
    _worker_files[:] = [open(f"{stem}.fault", "w"), open(f"{stem}.last", "w")]  # noqa: SIM115
    faulthandler.enable(_worker_files[0], all_threads=True)


def pytest_runtest_logstart(nodeid: str, location: object) -> None:
    """A worker: note the test it starts and its peak memory so far."""
    if not _worker_files:
        return
    last = _worker_files[1]
    peak = "" if resource is None else \
        f" (peak memory so far {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MB)"
    last.seek(0)
    last.write(f"started {nodeid}{peak}\n")
    last.truncate()
    last.flush()


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    """The controller: print what the workers that did not end normally left (nothing in a run without
    crashes: a worker that ends removes its files)."""
    directory = config.stash.get(_dir_key, None)
    if directory is None:
        return
    for last in sorted(directory.glob("*.last")):
        fault = last.with_suffix(".fault")
        report = fault.read_text(errors="replace").strip() if fault.exists() else ""
        terminalreporter.section(f"test worker {last.stem} did not end normally", sep="-")
        terminalreporter.write_line(last.read_text(errors="replace").strip())
        terminalreporter.write_line(report[-8000:] if report else
                                    "no fault report: killed by a signal it cannot catch (SIGKILL: out of "
                                    "memory?)")


def pytest_unconfigure(config: pytest.Config) -> None:
    if _worker_files:
        faulthandler.disable()
        for f in _worker_files:
            f.close()
            os.unlink(f.name)
        _worker_files.clear()
    directory = config.stash.get(_dir_key, None)
    if directory is not None:
        shutil.rmtree(directory, ignore_errors=True)
