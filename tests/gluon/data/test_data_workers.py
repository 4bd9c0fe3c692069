"""DataLoader worker processes: same batches as num_workers=0, crashes become errors, nothing left behind.

Each pool start costs about half a second (a fresh interpreter importing numpy), so tests reuse loaders.
"""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import data_worker_helpers as helpers
import numpy as onp
import pytest

from framework import np
from framework.gluon import data

T = data.vision.transforms
ROOT = Path(__file__).resolve().parents[3]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def _wait_gone(pids, seconds=10.0):
    deadline = time.monotonic() + seconds
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [p for p in pids if _alive(p)]


def _epoch(loader):
    return [[onp.asarray(part) for part in batch] for batch in loader]


def _dataset(n=40):
    rng = onp.random.default_rng(0)
    x = rng.integers(0, 256, (n, 6, 6, 3), dtype=onp.uint8)
    return data.ArrayDataset(x, onp.arange(n, dtype=onp.int32))


def test_workers_give_the_batches_of_num_workers_0_and_are_cleaned_up():
    ds = _dataset().transform_first(T.Compose([T.RandomFlipLeftRight(), T.RandomBrightness(0.3), T.ToTensor(),
                                               T.Normalize(0.5, 0.2)]))
    same = data.DataLoader(ds, 6, shuffle=True, last_batch="rollover")
    np.random.seed(11)
    ref = [_epoch(same), _epoch(same)]
    loader = data.DataLoader(ds, 6, shuffle=True, last_batch="rollover", num_workers=2)
    np.random.seed(11)
    got = [_epoch(loader), _epoch(loader)]
    for e_ref, e_got in zip(ref, got, strict=True):
        assert len(e_ref) == len(e_got)
        for (xa, ya), (xb, yb) in zip(e_ref, e_got, strict=True):
            onp.testing.assert_array_equal(xa, xb)
            onp.testing.assert_array_equal(ya, yb)
    pids = loader._worker_pool.pids
    assert len(pids) == 2 and all(_alive(p) for p in pids)
    n = len(loader)  # with rollover the length depends on what the last epoch carried over
    assert len(_epoch(loader)) == n and loader._worker_pool.pids == pids  # persistent pool
    it = iter(loader)
    next(it)  # an epoch abandoned half-way leaves the pool usable
    del it
    n = len(loader)
    assert len(_epoch(loader)) == n
    del loader
    gc.collect()
    assert _wait_gone(pids, 5) == []


def _maps_of(pid: int) -> str:
    return Path(f"/proc/{pid}/maps").read_text()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_start_with_the_loader_and_map_the_dataset_from_one_shared_file():
    ds = _dataset(64)
    loader = data.DataLoader(ds, 8, num_workers=2)
    pids = loader._worker_pool.pids  # started by the constructor, as MXNet 1.x's pool
    assert len(pids) == 2 and all(_alive(p) for p in pids)
    got = _epoch(loader)  # each worker has loaded the dataset once it answered
    onp.testing.assert_array_equal(onp.concatenate([x for x, _ in got]), ds._data[0])
    for pid in pids:  # one mapping of the one anonymous file: the arrays never went down a pipe
        assert "memfd:framework-dataloader" in _maps_of(pid)


def test_without_memfd_the_shared_file_is_an_unlinked_temporary_file(monkeypatch):
    monkeypatch.delattr(os, "memfd_create", raising=False)  # as on macOS
    ds = _dataset(24)
    got = _epoch(data.DataLoader(ds, 8, num_workers=2))
    onp.testing.assert_array_equal(onp.concatenate([x for x, _ in got]), ds._data[0])


def test_a_transform_may_write_into_its_samples_and_the_main_process_keeps_its_data():
    ds = _dataset(16)
    before = ds._data[0].copy()
    loader = data.DataLoader(ds.transform(helpers.read_then_zero), 4, num_workers=2)
    got = onp.concatenate([x for x, _ in _epoch(loader)])
    onp.testing.assert_array_equal(got, before)  # the workers' arrays are writable (copy-on-write)
    onp.testing.assert_array_equal(ds._data[0], before)
    fresh = data.DataLoader(ds.transform(helpers.read_then_zero), 4, num_workers=2)
    onp.testing.assert_array_equal(onp.concatenate([x for x, _ in _epoch(fresh)]), before)


def test_samples_are_loaded_in_the_workers():
    loader = data.DataLoader(_dataset(8).transform(helpers.pid_of_worker), 2, num_workers=2)
    pids = set(loader._pool().pids)
    seen = {int(p) for _, label in loader for p in onp.asarray(label)}
    assert seen == pids and os.getpid() not in seen


def test_an_exception_in_a_worker_names_the_worker_and_the_cause():
    loader = data.DataLoader(_dataset(12).transform(helpers.RaiseAt(5)), 4, num_workers=2)
    with pytest.raises(RuntimeError, match=r"DataLoader worker 1 \(pid \d+\) raised FileNotFoundError: "
                                           r"bad sample 5 while loading batch 1 "
                                           r"\(sample indices \[4, 5, 6, 7\]\)"):
        list(loader)
    pool = loader._worker_pool
    with pytest.raises(RuntimeError, match="bad sample 5"):  # the pool survives a Python error
        list(loader)
    assert loader._worker_pool is pool


def test_a_killed_worker_is_an_error_not_a_hang_and_the_next_epoch_recovers():
    loader = data.DataLoader(_dataset(40), 2, num_workers=2, timeout=60)
    it = iter(loader)
    next(it)
    victim = loader._worker_pool.pids[1]
    os.kill(victim, signal.SIGKILL)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=rf"DataLoader worker 1 \(pid {victim}\) was killed by SIGKILL"):
        for _ in it:
            pass
    assert time.monotonic() - start < 30
    assert loader._worker_pool is None and not _alive(victim)
    assert len(_epoch(loader)) == 20  # a fresh pool


def test_a_worker_that_cannot_load_the_dataset_says_why(tmp_path, monkeypatch):
    module = tmp_path / "vanishing_transforms.py"
    module.write_text("def ident(x):\n    return x\n")
    monkeypatch.syspath_prepend(os.fspath(tmp_path))
    import vanishing_transforms

    module.unlink()  # the workers cannot import what the main process could
    loader = data.DataLoader(_dataset(4).transform_first(vanishing_transforms.ident), 2, num_workers=1)
    with pytest.raises(RuntimeError, match=r"(?s)DataLoader worker 0 \(pid \d+\) could not load the "
                                           r"dataset:.*No module named 'vanishing_transforms'"):
        list(loader)
    assert loader._worker_pool is None


def test_a_slow_worker_times_out():
    loader = data.DataLoader(_dataset(8).transform(helpers.SleepAt(0, 3.0)), 4, num_workers=1, timeout=0.3)
    with pytest.raises(TimeoutError, match=r"DataLoader worker 0 \(pid \d+\) timed out after 0.3 seconds "
                                           r"loading batch 0 \(sample indices \[0, 1, 2, 3\]\).*increase "
                                           r"timeout="):
        list(loader)


def test_a_worker_that_exits_names_its_status_and_the_samples():
    loader = data.DataLoader(_dataset(12).transform(helpers.ExitAt(9, 3)), 4, num_workers=2, timeout=60)
    pids = loader._pool().pids
    with pytest.raises(RuntimeError, match=r"DataLoader worker 0 \(pid \d+\) exited with code 3 while "
                                           r"loading batch 2 \(sample indices \[8, 9, 10, 11\]\)"):
        list(loader)
    assert loader._worker_pool is None
    assert _wait_gone(pids, 5) == []  # the other worker too: no process is left behind


def test_a_thread_worker_times_out_naming_the_thread_and_the_samples():
    loader = data.DataLoader(_dataset(8).transform(helpers.SleepAt(5, 2.0)), 4, num_workers=2,
                             thread_pool=True, timeout=0.3)
    with pytest.raises(TimeoutError, match=r"DataLoader thread worker [01] timed out after 0.3 seconds "
                                           r"loading batch 1 \(sample indices \[4, 5, 6, 7\]\)"):
        list(loader)


def test_unpicklable_datasets_fall_back_to_threads():
    fallback = r"cannot be sent to worker processes.*Loading with 2 threads"
    with pytest.warns(RuntimeWarning, match=fallback) as seen:
        loader = data.DataLoader(_dataset(6).transform_first(lambda x: x[:1]), 3, num_workers=2)
    assert seen[0].filename == __file__  # the warning points at the user's line
    batches = _epoch(loader)
    assert [b[0].shape for b in batches] == [(3, 1, 6, 3)] * 2
    assert loader._thread_pool


def test_no_worker_outlives_its_interpreter(tmp_path):
    script = tmp_path / "uses_workers.py"
    script.write_text(textwrap.dedent(f"""
        import os, sys
        sys.path[:0] = [{os.fspath(ROOT)!r}]
        import numpy as onp
        from framework.gluon import data
        loader = data.DataLoader(data.ArrayDataset(onp.arange(20)), 2, num_workers=2)
        it = iter(loader)
        next(it)
        print(*loader._worker_pool.pids, flush=True)
        if sys.argv[1] == "kill":
            os.kill(os.getpid(), 9)   # no clean-up at all: the workers see their pipe close
    """))
    runs = {how: subprocess.Popen([sys.executable, os.fspath(script), how], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for how in ("exit", "kill")}
    for how, proc in runs.items():
        out, err = proc.communicate(timeout=120)
        pids = [int(p) for p in out.split()]
        assert len(pids) == 2, err
        assert _wait_gone(pids) == [], f"workers left behind after {how}"


def test_workers_start_without_jax_where_framework_is_found_by_its_installer(tmp_path):
    # The script's folder, not the repository, starts sys.path: framework comes from a finder on
    # sys.meta_path (this checkout's), as an editable install serves it in a user's project folder; the
    # workers find it through the installation's own finder.
    script = tmp_path / "loads.py"
    script.write_text(textwrap.dedent(f"""
        import importlib.machinery, sys
        class Installed:
            def find_spec(self, name, path=None, target=None):
                if name == "framework":
                    return importlib.machinery.PathFinder.find_spec(name, [{os.fspath(ROOT)!r}])
                return None
        sys.meta_path.insert(0, Installed())
        sys.path[:0] = [{os.fspath(Path(helpers.__file__).parent)!r}]
        import numpy as onp
        import data_worker_helpers as helpers
        from framework.gluon import data
        ds = data.ArrayDataset(onp.zeros(4), onp.arange(4)).transform(helpers.jax_loaded)
        labels = next(iter(data.DataLoader(ds, 4, num_workers=1)))[1]
        print("jax in worker", *onp.asarray(labels).tolist())
    """))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, os.fspath(script)], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["jax", "in", "worker", "0", "0", "0", "0"], done.stdout + done.stderr


_HUNG = """
import os, sys, time
sys.path[:0] = [{root!r}, {helpers!r}]
import numpy as onp
import data_worker_helpers as helpers
from framework.gluon import data
class InMain(data.Dataset):  # defined in __main__: cannot go to worker processes, so threads load it
    def __len__(self):
        return 8
    def __getitem__(self, i):
        if i == 1:
            time.sleep(600)
        return onp.float32(i)
kind = sys.argv[1]
if kind == "main":
    loader = data.DataLoader(InMain(), 4, num_workers=2, timeout=8)
else:
    ds = data.ArrayDataset(onp.zeros(8), onp.arange(8)).transform(helpers.SleepAt(1, 600))
    loader = data.DataLoader(ds, 4, num_workers=2, thread_pool=kind == "thread", timeout=8)
try:
    list(loader)
except TimeoutError as err:
    print("TimeoutError:", err, flush=True)
print("pids", *getattr(loader._worker_pool, "pids", []), flush=True)
"""


@pytest.mark.parametrize("kind", ["thread", "main", "process"])
def test_a_hung_worker_times_out_and_never_blocks_exit(tmp_path, kind):
    script = tmp_path / "hung.py"
    script.write_text(_HUNG.format(root=os.fspath(ROOT), helpers=os.fspath(Path(helpers.__file__).parent)))
    # The sleeping sample takes 600 s: `timeout` would end a process that waited for it (status 124).
    proc = subprocess.run(["timeout", "-k", "2", "100", sys.executable, os.fspath(script), kind],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    pids = [int(p) for p in proc.stdout.split("pids")[-1].split()]
    assert len(pids) == (2 if kind == "process" else 0)
    assert _wait_gone(pids, 5) == []  # the hung worker was killed when its interpreter ended
    assert "timed out after 8 seconds loading batch 0 (sample indices [0, 1, 2, 3])" in proc.stdout


_ORPHAN = """
import os, sys, threading
sys.path[:0] = [{root!r}, {helpers!r}]
import numpy as onp
import data_worker_helpers as helpers
from framework.gluon import data
loader = data.DataLoader(data.ArrayDataset(onp.zeros(8), onp.arange(8)).transform(helpers.SleepAt(3, 600)),
                         2, num_workers=2, timeout=600)
if sys.argv[1] == "thread":  # started from another thread: no parent-death signal, the pipe watchdog acts
    t = threading.Thread(target=loader._pool)
    t.start()
    t.join()
it = iter(loader)
next(it)  # batch 0 came from worker 0: the workers run; worker 1 is asleep in sample 3 (batch 1) for 600 s
print(*loader._worker_pool.pids, flush=True)
import time
time.sleep(0.5)
os.kill(os.getpid(), 9)
"""


@pytest.mark.parametrize("started_from", ["main", "thread"])
def test_busy_workers_die_with_their_killed_parent(tmp_path, started_from):
    script = tmp_path / "orphan.py"
    script.write_text(_ORPHAN.format(root=os.fspath(ROOT), helpers=os.fspath(Path(helpers.__file__).parent)))
    proc = subprocess.Popen([sys.executable, os.fspath(script), started_from], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    pids: list[int] = []
    try:
        pids = [int(p) for p in proc.stdout.readline().split()]  # not communicate(): orphans hold the pipe
        assert len(pids) == 2
        assert proc.wait(timeout=120) == -signal.SIGKILL
        assert _wait_gone(pids, 5) == [], "workers outlived their parent's SIGKILL"
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
        for p in pids:
            if _alive(p):
                os.kill(p, signal.SIGKILL)


@pytest.mark.parametrize("threads", [False, True])
def test_a_worker_that_timed_out_is_replaced_not_reused(tmp_path, threads):
    flag = tmp_path / "hang"
    flag.write_text("")
    loader = data.DataLoader(_dataset(8).transform(helpers.HangWhileFlag(0, str(flag))), 4, num_workers=1,
                             thread_pool=threads, timeout=1.0 if threads else 6.0)  # a process starts
    with pytest.raises(TimeoutError, match="timed out after .* seconds loading batch 0"):
        list(loader)
    flag.unlink()  # the hung worker still sleeps; a reused one would time out again
    batches = _epoch(loader)
    assert [b[0].shape[0] for b in batches] == [4, 4]
