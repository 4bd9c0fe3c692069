"""The persistent compilation cache (framework/_compile_cache.py): on by default under FRAMEWORK_HOME, a
second process loads what the first compiled, off by its switch, refused in a directory others can write,
pruned by age beyond its size, wiped by clear_caches(disk=True)."""

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from framework import _compile_cache, config

ROOT = Path(__file__).resolve().parents[1]

# one fresh process: a small model's training step; prints the cache's status and JAX's cache events
_CHILD = textwrap.dedent("""
    import collections, jax
    events = collections.Counter()
    jax.monitoring.register_event_listener(lambda name, **kw: events.update([name]))
    from framework import _compile_cache, autograd, gluon, init, np
    from framework.gluon import nn
    net = nn.Sequential()
    net.add(nn.Dense(8, in_units=4, activation="relu"), nn.Dense(3, in_units=8))
    net.initialize(init.Normal(0.1))  # a normal draw's program (uniform ones need none on a CPU)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    for _ in range(2):
        with autograd.record():
            loss = gluon.loss.L2Loss()(net(np.ones((2, 4))), np.zeros((2, 3)))
        loss.backward()
        trainer.step(2)
    float(loss.sum())
    st = _compile_cache.status()
    print("STATUS", st.enabled, st.directory)
    hits, misses = (events[f"/jax/compilation_cache/cache_{k}"] for k in ("hits", "misses"))
    print("HITS", hits, "MISSES", misses)
""")


def _child(home: Path, **env: str) -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items()
               if not k.startswith(("JAX_COMPILATION_CACHE", "FRAMEWORK_"))}
    environ.update(FRAMEWORK_HOME=str(home), PYTHONPATH=str(ROOT), **env)
    run = subprocess.run([sys.executable, "-c", _CHILD], env=environ, capture_output=True, text=True,
                         timeout=600, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-3000:]
    out = {}
    for line in run.stdout.splitlines():
        word, *rest = line.split()
        out[word] = rest
    return out


def test_a_second_process_loads_the_programs_the_first_compiled(tmp_path):
    first = _child(tmp_path)
    cache = tmp_path / "compile_cache"
    assert first["STATUS"] == ["True", str(cache)]
    written = sorted(p.name for p in cache.iterdir() if p.name.endswith(_compile_cache.SUFFIX))
    assert len(written) >= 3  # every program is kept, however fast it compiled
    assert int(first["HITS"][2]) >= 3  # the misses: each program compiled once
    second = _child(tmp_path)
    hits, misses = int(second["HITS"][0]), int(second["HITS"][2])
    assert misses == 0 and hits >= len(written), second  # nothing compiled again: no process constants
    assert oct(cache.stat().st_mode & 0o777) == oct(0o700)


def test_a_directory_others_can_write_is_not_used(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / "compile_cache").mkdir(parents=True)
    os.chmod(home / "compile_cache", 0o777)
    monkeypatch.setenv("FRAMEWORK_HOME", str(home))
    monkeypatch.setenv("FRAMEWORK_COMPILE_CACHE", "1")  # the suite runs with it off (conftest.py)
    status = _compile_cache._configure(None)
    assert not status.enabled and "writable by other users" in status.reason
    monkeypatch.setenv("FRAMEWORK_COMPILE_CACHE", "off")
    assert _compile_cache._configure(None).reason == "off: FRAMEWORK_COMPILE_CACHE=0"
    assert config.get("compile_cache") is False


def test_prune_removes_the_oldest_entries_beyond_the_limit(tmp_path):
    now = time.time()
    for i in range(10):
        p = tmp_path / f"jit_f-{i:02d}{_compile_cache.SUFFIX}"
        p.write_bytes(b"x" * 1000)
        os.utime(p, (now - 100 + i, now - 100 + i))
    (tmp_path / "jit_f-00-atime").write_bytes(b"")  # JAX's bookkeeping files are not entries
    assert _compile_cache.prune(tmp_path, 20_000) == 0
    assert _compile_cache.prune(tmp_path, 8_000) == 4  # down to 3/4 of the limit: 6 entries
    left = sorted(p.name[6:8] for p in tmp_path.glob(f"*{_compile_cache.SUFFIX}"))
    assert left == [f"{i:02d}" for i in range(4, 10)]


def test_clear_caches_on_disk_wipes_only_the_frameworks_own_directory(tmp_path, monkeypatch):
    import framework

    entry = tmp_path / f"jit_g-1{_compile_cache.SUFFIX}"
    entry.write_bytes(b"x")
    monkeypatch.setattr(_compile_cache, "_status",
                        _compile_cache.Status(True, tmp_path, "JAX's own setting (jax_compilation_cache_dir) "
                                                              "is used as it is"))
    framework.clear_caches(disk=True)
    assert entry.exists()  # the user's own JAX cache directory is theirs
    monkeypatch.setattr(_compile_cache, "_status",
                        _compile_cache.Status(True, tmp_path, "on (framework default)"))
    framework.clear_caches(disk=True)
    assert not entry.exists()


def test_a_process_of_a_multiprocess_run_switches_the_cache_off_where_jax_hangs(tmp_path, monkeypatch):
    import jax

    from framework import _jax_compat

    on = _compile_cache.Status(True, tmp_path, "on (framework default)")
    monkeypatch.setattr(_compile_cache, "_status", on)
    before = jax.config.jax_enable_compilation_cache
    try:
        jax.config.update("jax_enable_compilation_cache", True)
        monkeypatch.setattr(_jax_compat, "MULTIPROCESS_CACHE_HANGS", False)
        assert _compile_cache.off_for_multiprocess(2) == on  # a JAX without the hang keeps it
        monkeypatch.setattr(_jax_compat, "MULTIPROCESS_CACHE_HANGS", True)
        assert _compile_cache.off_for_multiprocess(1) == on  # one process: nothing to hang on
        assert jax.config.jax_enable_compilation_cache
        status = _compile_cache.off_for_multiprocess(2)
        assert not status.enabled and status.reason.startswith("off: one of 2 processes, and JAX ")
        assert not jax.config.jax_enable_compilation_cache
    finally:
        jax.config.update("jax_enable_compilation_cache", before)
