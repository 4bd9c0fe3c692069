"""Global state a test may change, put back afterwards (used by an autouse fixture in conftest.py).

>>> import jax
>>> with restored_global_state():
...     jax.config.update("jax_enable_x64", True)
>>> jax.config.jax_enable_x64
False
"""

from __future__ import annotations

import contextlib
import importlib
import os
from collections.abc import Iterator

import jax

# JAX flags a test may change (directly or through the code under test).
JAX_FLAGS = ("jax_enable_x64", "jax_numpy_dtype_promotion", "jax_numpy_rank_promotion", "jax_debug_nans",
             "jax_debug_infs", "jax_disable_jit", "jax_default_matmul_precision", "jax_log_compiles",
             "jax_check_tracer_leaks", "jax_default_prng_impl", "jax_enable_checks")
# The framework's per-thread state: recording/training flags, device scopes, bindings, the data RNG.
THREAD_STATE = (("framework.autograd.mode", "flags"), ("framework.device", "_scope"),
                ("framework.gluon.binding", "bindings"), ("framework.gluon.block", "_infer"),
                ("framework.gluon.data._rng", "_local"))


def _listener_lists() -> list[list]:
    from framework._jax_compat import monitoring_listener_lists

    return monitoring_listener_lists()


@contextlib.contextmanager
def restored_global_state() -> Iterator[None]:
    """Snapshot JAX flags, jax.monitoring listeners, the framework's thread-local state, its program
    switches (``framework.config``) and ``os.environ``; restore them on exit."""
    from framework import config

    flags = {name: getattr(jax.config, name) for name in JAX_FLAGS}
    switches = {name: config.get(name) for name, s in config.SWITCHES.items() if s.program}
    lists = _listener_lists()
    listeners = [list(v) for v in lists]
    locals_ = [getattr(importlib.import_module(m), a) for m, a in THREAD_STATE]
    thread_state = [{k: (list(v) if isinstance(v, list) else v) for k, v in vars(o).items()} for o in locals_]
    environ = dict(os.environ)
    try:
        yield
    finally:
        for name, value in flags.items():
            if getattr(jax.config, name) != value:
                jax.config.update(name, value)
        if {name: config.get(name) for name in switches} != switches:
            config.set(**switches)
        for lst, saved in zip(lists, listeners, strict=True):
            lst[:] = saved
        for o, saved in zip(locals_, thread_state, strict=True):
            vars(o).clear()
            vars(o).update(saved)
        if dict(os.environ) != environ:
            os.environ.clear()
            os.environ.update(environ)
