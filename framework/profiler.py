"""MXNet's ``mx.profiler`` over :mod:`jax.profiler`.

``set_config(filename=...)``, ``set_state('run')`` ... ``set_state('stop')``, then ``dump()`` writes a
Chrome-trace JSON file (``{"traceEvents": [...]}``, what MXNet writes; Perfetto and ``chrome://tracing``
open it) holding JAX's host and device events: each compiled program run (``PjitFunction(<name>)``),
its XLA thunks and transfers, plus the user's ``Task``/``Frame``/``Event`` spans (as
``jax.profiler.TraceAnnotation`` s), ``Counter`` values and ``Marker`` s. JAX's own TensorBoard profile
of the same run is kept beside it, in ``<filename without .json>_jax/`` (``tensorboard --logdir`` it).
``pause()``/``resume()`` stop and restart the trace; ``dumps()`` returns per-name aggregate statistics.

>>> import os, tempfile, json
>>> import jax.numpy as jnp
>>> from framework import profiler
>>> path = os.path.join(tempfile.mkdtemp(), 'profile.json')
>>> profiler.set_config(filename=path, aggregate_stats=True)
>>> profiler.set_state('run')
>>> with profiler.Task(profiler.Domain('demo'), 'work'):
...     _ = (jnp.ones(4) * 2).block_until_ready()
>>> profiler.set_state('stop')
>>> profiler.dump()
>>> any(e.get('name') == 'work' for e in json.load(open(path))['traceEvents'])
True
"""

from __future__ import annotations

import glob
import gzip
import json
import os
import shutil
import tempfile
import threading
import time
import warnings
from typing import Any

import jax

__all__ = [
    "set_config",
    "set_state",
    "dump",
    "dumps",
    "pause",
    "resume",
    "Domain",
    "Task",
    "Frame",
    "Event",
    "Counter",
    "Marker",
    "profiler_set_config",
    "profiler_set_state",
    "dump_profile",
]

_CONFIG_KEYS = {
    "filename",
    "profile_all",
    "profile_symbolic",
    "profile_imperative",
    "profile_memory",
    "profile_api",
    "continuous_dump",
    "dump_period",
    "aggregate_stats",
    "gpu_memory_profile_tag",
}
_lock = threading.RLock()


class _State:
    def __init__(self) -> None:
        self.config: dict[str, Any] = {"filename": "profile.json", "aggregate_stats": False}
        self.running = False  # a jax trace is active
        self.wanted = False  # set_state('run') and not stopped (a pause keeps it wanted)
        self.paused = False
        self.segments: list[tuple[str, int]] = []  # (jax log dir, monotonic start ns)
        self.extra: list[tuple[int, dict]] = []  # (monotonic ns, event) for counters and markers
        self.events: list[dict] = []  # the last collected trace, for dumps()


_state = _State()


def set_config(**kwargs: Any) -> None:
    """MXNet's profiler settings; ``filename`` is where :func:`dump` writes. The ``profile_*`` switches
    are accepted (JAX traces host and device activity together)."""
    unknown = set(kwargs) - _CONFIG_KEYS
    if unknown:
        raise TypeError(
            f"profiler.set_config: unknown arguments {sorted(unknown)}; known: {sorted(_CONFIG_KEYS)}"
        )
    if kwargs.get("continuous_dump"):
        raise ValueError("profiler.set_config: continuous_dump is not supported; call dump() when done")
    with _lock:
        _state.config.update(kwargs)


def _start_segment() -> None:
    log_dir = tempfile.mkdtemp(prefix="framework-profile-")
    options = jax.profiler.ProfileOptions()
    options.python_tracer_level = 0  # Python frames would swamp the trace; the spans come from annotations
    start = time.monotonic_ns()
    jax.profiler.start_trace(log_dir, create_perfetto_trace=True, profiler_options=options)
    _state.segments.append((log_dir, start))
    _state.running = True


def _stop_segment() -> None:
    if _state.running:
        jax.profiler.stop_trace()
        _state.running = False


def set_state(state: str = "stop", profile_process: str = "worker") -> None:
    """``'run'`` starts tracing, ``'stop'`` stops it."""
    if profile_process != "worker":
        raise ValueError("profiler.set_state: profile_process must be 'worker' (there are no servers)")
    if state not in ("run", "stop"):
        raise ValueError(f"profiler.set_state: state={state!r}; expected 'run' or 'stop'")
    with _lock:
        if state == "run" and not _state.wanted:
            _state.wanted, _state.paused = True, False
            _start_segment()
        elif state == "stop" and _state.wanted:
            _stop_segment()
            _state.wanted = _state.paused = False


def pause(profile_process: str = "worker") -> None:
    """Stop recording until :func:`resume` (the trace keeps what was recorded)."""
    with _lock:
        if _state.wanted and not _state.paused:
            _stop_segment()
            _state.paused = True


def resume(profile_process: str = "worker") -> None:
    """Continue recording after :func:`pause`."""
    with _lock:
        if _state.wanted and _state.paused:
            _state.paused = False
            _start_segment()


def _collect() -> list[dict]:
    """Every event of the finished segments (times in microseconds from the first segment's start),
    with counters and markers; the segments are consumed."""
    events: list[dict] = []
    base = _state.segments[0][1] if _state.segments else time.monotonic_ns()
    for log_dir, start in _state.segments:
        found = glob.glob(os.path.join(log_dir, "plugins", "profile", "*", "perfetto_trace.json.gz"))
        if not found:
            continue
        with gzip.open(found[0], "rt") as f:
            trace = json.load(f)
        shift = (start - base) / 1000.0
        for e in trace.get("traceEvents", []):
            if "ts" in e:
                e = dict(e, ts=e["ts"] + shift)
            events.append(e)
    pid = next((e["pid"] for e in events if "pid" in e), os.getpid())
    for t, e in _state.extra:
        events.append(dict(e, ts=(t - base) / 1000.0, pid=pid))
    return events


def dump(finished: bool = True, profile_process: str = "worker") -> None:
    """Write the trace of what was recorded so far to ``filename`` (Chrome-trace JSON; atomic) and keep
    JAX's TensorBoard profile in ``<filename stem>_jax/``. With ``finished=True`` the profiler stops."""
    with _lock:
        restart = _state.running and not finished
        _stop_segment()
        events = _collect()
        filename = os.fspath(_state.config["filename"])
        tb_dir = os.path.splitext(filename)[0] + "_jax"
        shutil.rmtree(tb_dir, ignore_errors=True)
        for i, (log_dir, _) in enumerate(_state.segments):
            if os.path.isdir(os.path.join(log_dir, "plugins")):
                shutil.copytree(
                    os.path.join(log_dir, "plugins"), os.path.join(tb_dir, f"segment{i}", "plugins")
                )
            shutil.rmtree(log_dir, ignore_errors=True)
        _state.segments, _state.extra, _state.events = [], [], events
        os.makedirs(os.path.dirname(os.path.abspath(filename)), exist_ok=True)
        tmp = f"{filename}.tmp{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump({"traceEvents": events, "displayTimeUnit": "ms"}, f)
        os.replace(tmp, filename)
        if finished:
            _state.wanted = _state.paused = False
        elif restart:
            _start_segment()


def dumps(reset: bool = False, format: str = "table", sort_by: str = "total", ascending: bool = False) -> str:
    """Aggregate statistics (count, total/min/max/avg milliseconds per event name) of the trace written by
    the last :func:`dump` (MXNet also needs ``aggregate_stats=True``), as a table or JSON."""
    if format not in ("table", "json"):
        raise ValueError(f"profiler.dumps: format={format!r}; expected 'table' or 'json'")
    keys = {"total": 1, "avg": 4, "min": 2, "max": 3, "count": 0}
    if sort_by not in keys:
        raise ValueError(f"profiler.dumps: sort_by={sort_by!r}; expected one of {sorted(keys)}")
    with _lock:
        if not _state.config.get("aggregate_stats"):
            warnings.warn("profiler.dumps: set_config(aggregate_stats=True) was not set", stacklevel=2)
        stats: dict[str, list[float]] = {}
        for e in _state.events:
            if e.get("ph") == "X" and "dur" in e:
                ms = e["dur"] / 1000.0
                s = stats.setdefault(e["name"], [0, 0.0, float("inf"), 0.0])
                s[0] += 1
                s[1] += ms
                s[2], s[3] = min(s[2], ms), max(s[3], ms)
        if reset:
            _state.events = []
    rows = sorted(
        ((n, s[0], s[1], s[2], s[3], s[1] / s[0]) for n, s in stats.items()),
        key=lambda r: r[1 + keys[sort_by]],
        reverse=not ascending,
    )
    if format == "json":
        return json.dumps(
            {
                "Time": {
                    n: {"Count": c, "Total": t, "Min": lo, "Max": hi, "Avg": a} for n, c, t, lo, hi, a in rows
                },
                "Unit": {"Time": "ms"},
            }
        )
    width = max([len(r[0]) for r in rows] + [4])
    lines = [
        "Profile Statistics:",
        "\tNote that times are in milliseconds.",
        "",
        f"{'Name':<{width}}  {'Total Count':>11}  {'Time (ms)':>12}  {'Min Time (ms)':>13}  "
        f"{'Max Time (ms)':>13}  {'Avg Time (ms)':>13}",
        f"{'----':<{width}}  {'-----------':>11}  {'---------':>12}  {'-------------':>13}  "
        f"{'-------------':>13}  {'-------------':>13}",
    ]
    for n, c, t, lo, hi, a in rows:
        lines.append(f"{n:<{width}}  {c:>11d}  {t:>12.4f}  {lo:>13.4f}  {hi:>13.4f}  {a:>13.4f}")
    return "\n".join(lines) + "\n"


def _record(event: dict) -> None:
    with _lock:
        if _state.running:
            _state.extra.append((time.monotonic_ns(), event))


class Domain:
    """A named group of tasks, frames, counters and markers."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __str__(self) -> str:
        return self.name

    def new_task(self, name: str) -> Task:
        return Task(self, name)

    def new_frame(self, name: str) -> Frame:
        return Frame(self, name)

    def new_counter(self, name: str, value: int | None = None) -> Counter:
        return Counter(self, name, value)

    def new_marker(self, name: str) -> Marker:
        return Marker(self, name)


class _Span:
    """A span of the trace between ``start()`` and ``stop()`` (also a context manager)."""

    def __init__(self, domain: Domain | None, name: str) -> None:
        self.domain, self.name = domain, name
        self._annotation: Any = None

    def start(self) -> None:
        if self._annotation is None:
            self._annotation = jax.profiler.TraceAnnotation(self.name)
            self._annotation.__enter__()

    def stop(self) -> None:
        if self._annotation is not None:
            self._annotation.__exit__(None, None, None)
            self._annotation = None

    def __enter__(self) -> _Span:
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def __str__(self) -> str:
        return self.name


class Task(_Span):
    """A task of ``domain``: ``start()`` ... ``stop()``."""

    def __init__(self, domain: Domain, name: str) -> None:
        super().__init__(domain, name)


class Frame(_Span):
    """A frame (e.g. one training step) of ``domain``: ``start()`` ... ``stop()``."""

    def __init__(self, domain: Domain, name: str) -> None:
        super().__init__(domain, name)


class Event(_Span):
    """A named event: ``start()`` ... ``stop()``."""

    def __init__(self, name: str) -> None:
        super().__init__(None, name)


class Counter:
    """A numeric value over time (a counter track of the trace)."""

    def __init__(self, domain: Domain, name: str, value: int | None = None) -> None:
        self.domain, self.name = domain, name
        self.value = 0
        if value is not None:
            self.set_value(value)

    def set_value(self, value: int) -> None:
        self.value = value
        _record({"ph": "C", "name": self.name, "cat": str(self.domain), "tid": 0, "args": {self.name: value}})

    def increment(self, delta: int = 1) -> None:
        self.set_value(self.value + delta)

    def decrement(self, delta: int = 1) -> None:
        self.set_value(self.value - delta)

    def __iadd__(self, delta: int) -> Counter:
        self.increment(delta)
        return self

    def __isub__(self, delta: int) -> Counter:
        self.decrement(delta)
        return self

    def __str__(self) -> str:
        return self.name


class Marker:
    """An instant in the trace: ``mark(scope)`` with scope 'global', 'process', 'thread', 'task' or
    'marker'."""

    _SCOPES = {"global": "g", "process": "p", "thread": "t", "task": "t", "marker": "t"}

    def __init__(self, domain: Domain, name: str) -> None:
        self.domain, self.name = domain, name

    def mark(self, scope: str = "process") -> None:
        if scope not in self._SCOPES:
            raise ValueError(f"Marker.mark: scope={scope!r}; expected one of {sorted(self._SCOPES)}")
        _record({"ph": "i", "name": self.name, "cat": str(self.domain), "tid": 0, "s": self._SCOPES[scope]})


def profiler_set_config(mode: str = "symbolic", filename: str = "profile.json") -> None:
    """MXNet's deprecated spelling of ``set_config(profile_all=..., filename=...)``."""
    warnings.warn(
        "profiler.profiler_set_config is deprecated; use set_config", DeprecationWarning, stacklevel=2
    )
    set_config(profile_all=mode == "all", filename=filename)


def profiler_set_state(state: str = "stop") -> None:
    """MXNet's deprecated spelling of :func:`set_state`."""
    warnings.warn(
        "profiler.profiler_set_state is deprecated; use set_state", DeprecationWarning, stacklevel=2
    )
    set_state(state)


def dump_profile() -> None:
    """MXNet's deprecated spelling of :func:`dump`."""
    warnings.warn("profiler.dump_profile is deprecated; use dump", DeprecationWarning, stacklevel=2)
    dump(True)
