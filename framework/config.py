"""The framework's switches: every ``FRAMEWORK_*`` environment variable is read here and nowhere else.

Each switch has a name, an environment variable, a type, a default and a meaning (:data:`SWITCHES`;
the README's table lists them). A value is validated when read: a bad one raises
:class:`ConfigError` naming the variable, the value and the accepted values.

- *Program switches* (``fast_cpu``, ``cpu_conv``) change what the compile layer builds. They are read from the
  environment once, at import; :func:`set` changes one for the whole process and :func:`override` for
  a ``with`` block in the current thread. Their values are part of the cache key of every program
  (:func:`program_key`), so flipping one between two calls gives the other program.
- *Settings* (locations, multi-process defaults) are read when used, so a changed environment
  variable counts from the next use.

The platform a computation runs on is decided here too (:func:`platform`): from its arrays' device,
else from the device the compile layer is building a program for, else JAX's default backend.

>>> from framework import config
>>> config.get("fast_cpu") in (True, False)
True
>>> with config.override(fast_cpu=False):
...     config.get("fast_cpu"), ("fast_cpu", False) in config.program_key()
(False, True)
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .base import FrameworkError

__all__ = ["ConfigError", "Switch", "SWITCHES", "get", "set", "override", "program_key", "platform",
           "platform_scope", "fast_cpu_active", "xla_options"]


class ConfigError(FrameworkError, ValueError):
    """An environment variable or a :func:`set` value the framework cannot use."""


def _flag(raw: str) -> bool:
    value = raw.strip().lower()
    if value in ("1", "true", "on", "yes"):
        return True
    if value in ("0", "false", "off", "no"):
        return False
    raise ValueError("expected 1/0, true/false, on/off or yes/no")


def _count(raw: str) -> int:
    value = int(raw)
    if value < 0:
        raise ValueError("expected an integer >= 0")
    return value


def _positive(raw: str) -> int:
    value = int(raw)
    if value <= 0:
        raise ValueError("expected an integer > 0")
    return value


def _cpu_conv(raw: str) -> str:
    value = raw.strip().lower()
    if value not in _CPU_CONV_LIBRARIES:
        raise ValueError(f"expected one of {', '.join(_CPU_CONV_LIBRARIES)}")
    return value


def _text(raw: str) -> str:
    if not raw.strip():
        raise ValueError("expected a non-empty value")
    return raw


def _path(raw: str) -> Path:
    return Path(_text(raw)).expanduser()


@dataclass(frozen=True)
class Switch:
    """One switch: ``name`` (for :func:`get`/:func:`set`), its environment variable, how a value is
    parsed, its default, whether it changes compiled programs, what the accepted values are, and what
    it does."""

    name: str
    env: str
    parse: Callable[[str], Any]
    default: Any
    program: bool
    accepted: str
    meaning: str


# XLA:CPU's library fusions (DebugOptions.xla_cpu_experimental_ynn_fusion_type): jaxlib 0.10-0.12 default
# to individual dots, individual convolutions and reductions in YNNPACK; "eigen" keeps all but the
# convolutions, which then run in XLA's Eigen kernels (notes/speed.md, "Convolutions on XLA:CPU").
_YNN_OPTION = "xla_cpu_experimental_ynn_fusion_type"
_CPU_CONV_LIBRARIES = {
    "eigen": "LIBRARY_FUSION_TYPE_INDIVIDUAL_DOT,LIBRARY_FUSION_TYPE_REDUCE",
    "ynnpack": None,  # XLA's own default: nothing passed
}

SWITCHES: dict[str, Switch] = {s.name: s for s in (
    Switch("fast_cpu", "FRAMEWORK_FAST_CPU", _flag, True, True, "1/0 (true/false, on/off, yes/no)",
           "the XLA:CPU rewrites: banded-GEMM convolutions, pooling by reshape, Conv2D+MaxPool2D "
           "fused (on by default; off compares against XLA's own kernels)"),
    Switch("cpu_conv", "FRAMEWORK_CPU_CONV", _cpu_conv, "eigen", True, "eigen or ynnpack",
           "the library XLA:CPU runs the convolutions of the framework's programs in: eigen (default; "
           "a training step's weight gradients run several times faster there) or ynnpack (XLA's own "
           "default). A compiler option, so CPU only; your own jax.jit takes config.xla_options()"),
    Switch("compile_cache", "FRAMEWORK_COMPILE_CACHE", _flag, True, False, "1/0 (true/false, on/off, yes/no)",
           "the persistent compilation cache under home/compile_cache (read at import; on by default: a "
           "second process loads the programs the first compiled)"),
    Switch("compile_cache_mb", "FRAMEWORK_COMPILE_CACHE_MB", _count, 2048, False, "an integer >= 0",
           "the persistent compilation cache's size: at import, beyond it the oldest entries go"),
    Switch("home", "FRAMEWORK_HOME", _path, Path("~/.framework").expanduser(), False, "a directory",
           "the user cache: datasets under home/datasets, compiled programs under home/compile_cache"),
    Switch("port_cache", "FRAMEWORK_PORT_CACHE", _flag, True, False, "1/0 (true/false, on/off, yes/no)",
           "framework.run keeps ported modules under home/port-cache (a second import skips the porter)"),
    Switch("symbol_max_bytes", "FRAMEWORK_SYMBOL_MAX_BYTES", _positive, None, False, "an integer > 0",
           "the size budget of a loaded symbol graph's node outputs (read at import; default 64 times "
           "its parameters' and inputs' bytes, at least 64 MiB)"),
    Switch("image_max_pixels", "FRAMEWORK_IMAGE_MAX_PIXELS", _positive, 1 << 25, False, "an integer > 0",
           "the most pixels one decoded or resized image may have (read at import)"),
    Switch("mxnet_home", "MXNET_HOME", _path, None, False, "a directory",
           "MXNet's own variable: pretrained model files are looked for in MXNET_HOME/models"),
    Switch("eager_host_runs", "FRAMEWORK_EAGER_HOST_RUNS", _count, 4, False, "an integer >= 0",
           "how many times an operator of eager code on a CPU array runs in host memory for one signature "
           "(shapes, dtypes, static arguments) before JAX compiles it (framework.np.eager; 0: JAX always)"),
    Switch("offline", "FRAMEWORK_OFFLINE", _flag, False, False, "1/0 (true/false, on/off, yes/no)",
           "data sets never download (the not-found error comes at once; the tests run this way)"),
    Switch("gluon_repo", "MXNET_GLUON_REPO", _text, "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/",
           False, "a URL", "MXNet's own variable: the repository data sets are downloaded from first "
           "(<repo>/gluon/dataset/<name>/<file>); default MXNet's"),
    Switch("coordinator", "FRAMEWORK_COORDINATOR", _text, None, False, "host:port",
           "process 0's coordinator address for a multi-process run (parallel.initialize, "
           "python -m train)"),
    Switch("num_processes", "FRAMEWORK_NUM_PROCESSES", _count, None, False, "an integer >= 0",
           "the number of processes of a multi-process run"),
    Switch("process_id", "FRAMEWORK_PROCESS_ID", _count, None, False, "an integer >= 0",
           "this process's rank in a multi-process run"),
)}


def _read(switch: Switch) -> Any:
    raw = os.environ.get(switch.env)
    if raw is None or raw == "":
        return switch.default
    try:
        return switch.parse(raw)
    except ValueError as err:
        raise ConfigError(f"environment variable {switch.env}={raw!r}: {err}; accepted: {switch.accepted} "
                          f"({switch.meaning}). Fix or unset it.") from None


def _check(name: str, value: Any) -> Switch:
    switch = SWITCHES.get(name)
    if switch is None:
        raise ConfigError(f"framework.config: no switch named {name!r}; the switches are "
                          f"{', '.join(sorted(SWITCHES))}.")
    if switch.parse is _flag and not isinstance(value, bool):
        raise ConfigError(f"framework.config: {name}={value!r}; expected True or False.")
    if switch.parse is _cpu_conv and value not in _CPU_CONV_LIBRARIES:
        raise ConfigError(f"framework.config: {name}={value!r}; expected one of "
                          f"{', '.join(map(repr, _CPU_CONV_LIBRARIES))}.")
    return switch


# program switches: read once, here; changed with set() (process) or override() (this thread)
_lock = threading.Lock()
_base: dict[str, Any] = {s.name: _read(s) for s in SWITCHES.values() if s.program}
_overrides: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("framework_config",
                                                                                   default=None)
_key: list[tuple] = [tuple(sorted(_base.items()))]


def get(name: str) -> Any:
    """The value of switch ``name`` in the current thread."""
    switch = SWITCHES.get(name)
    if switch is None:
        _check(name, None)
    if not switch.program:
        return _read(switch)
    local = _overrides.get()
    if local is not None and name in local:
        return local[name]
    return _base[name]


def set(**values: Any) -> None:  # noqa: A001 - the public spelling: framework.config.set(fast_cpu=False)
    """Change program switches for the whole process, e.g. ``config.set(fast_cpu=False)`` (the next
    program built or looked up uses the new values; settings are changed in the environment)."""
    for name, value in values.items():
        switch = _check(name, value)
        if not switch.program:
            raise ConfigError(f"framework.config.set: {name} is read from ${switch.env} when used; set "
                              "the environment variable instead.")
    with _lock:
        _base.update(values)
        _key[0] = tuple(sorted(_base.items()))


@contextlib.contextmanager
def override(**values: Any) -> Iterator[None]:
    """Program switches changed for a ``with`` block in the current thread (and context) only."""
    for name, value in values.items():
        if not _check(name, value).program:
            raise ConfigError(f"framework.config.override: {name} is not a program switch.")
    merged = {**(_overrides.get() or {}), **values}
    token = _overrides.set(merged)
    try:
        yield
    finally:
        _overrides.reset(token)


def program_key() -> tuple:
    """The program switches' values, sorted by name: part of every compiled program's cache key."""
    local = _overrides.get()
    if local is None:
        return _key[0]
    return tuple(sorted({**_base, **local}.items()))


# ------------------------------------------------------------------------------------------ platform
_building = threading.local()


@contextlib.contextmanager
def platform_scope(device: Any) -> Iterator[None]:
    """While a pure call computes for ``device`` (the compile layer tracing a program for it): tracers
    have no device, so :func:`platform` reads it from here (None: leave it as it is)."""
    if device is None:
        yield
        return
    prev = getattr(_building, "device", None)
    _building.device = device
    try:
        yield
    finally:
        _building.device = prev


def platform(x: Any = None) -> str:
    """The platform (``'cpu'``, ``'gpu'``, ...) a computation on ``x`` runs on: ``x`` a device or a
    concrete array on one device gives its own; otherwise the device of the program being built, else
    JAX's default backend."""
    import jax  # here, not at import: DataLoader worker processes read config without JAX

    if x is not None:
        if isinstance(x, jax.Device):
            return x.platform
        if isinstance(x, jax.Array) and not isinstance(x, jax.core.Tracer):
            devices = x.devices()
            if len(devices) == 1:
                return next(iter(devices)).platform
        device = getattr(x, "device", None)  # a recorded value knows its device
        if isinstance(device, jax.Device):
            return device.platform
    device = getattr(_building, "device", None)
    if device is not None:
        return device.platform
    return jax.default_backend()


def xla_options() -> dict[str, str]:
    """The XLA compiler options the program switches ask for, for ``jax.jit(..., compiler_options=)``:
    the compile layer passes them to every program it builds; pass them to your own ``jax.jit`` to get
    the same programs. An option that ``XLA_FLAGS`` sets itself is left to it.

    >>> from framework import config
    >>> with config.override(cpu_conv="ynnpack"):
    ...     config.xla_options()
    {}
    """
    value = _CPU_CONV_LIBRARIES[get("cpu_conv")]
    if value is None or f"--{_YNN_OPTION}=" in os.environ.get("XLA_FLAGS", ""):
        return {}
    return {_YNN_OPTION: value}


def fast_cpu_active(x: Any = None) -> bool:
    """Whether the XLA:CPU rewrites apply to a computation on ``x`` (switch on, platform CPU)."""
    return get("fast_cpu") and platform(x) == "cpu"
