"""The one place for what differs between the supported JAX versions (0.10.2 to 0.12.x, see
pyproject.toml) and for the few JAX internals the framework and its tools reach. Code elsewhere
never tests ``jax.__version__``; when a JAX release changes something, it is met here.

Measured on 2026-12-05 with JAX 0.10.2 (Python 3.11) and JAX 0.12.0.1 (Python 3.13), the whole test
suite passing on both:

- ``jnp.empty`` returns uninitialised memory from JAX 0.11 on (zeros before). The framework's
  ``np.empty``/``nd.empty`` never call it: they return zeros on every version (:func:`empty`), so a
  program's results do not depend on the JAX version.
- ``jax.pmap`` is ``jit`` over ``shard_map`` on every supported version (since 0.8); replicated
  gradients still need the explicit ``lax.psum`` (``framework/_compile.py`` is the only caller; the
  multi-device-equals-single-device tests guard it). ``device_put_replicated``/``_sharded`` are gone on
  all of them.
- Devices are named alike (``CpuDevice(id=i)``, ``str`` ``cpu:i``, platform ``cpu``).
- ``jax.core`` keeps shrinking (``subjaxprs``, ``Jaxpr`` ... have moved to ``jax.extend.core``);
  ``jax.core.Tracer`` remains on all supported versions (:func:`is_tracer`).
- Private internals, present alike on all supported versions: the coordination-service client of
  ``jax.distributed`` (:func:`distributed_client`) and ``jax.monitoring``'s listener lists
  (:func:`monitoring_listener_lists`, which the tests use to restore global state).
- From JAX 0.12.1 on, processes of one multi-process run that load their step from the persistent
  compilation cache hang in their first collective (two CPU processes on loopback, gloo; measured
  2026-12-06: the second run of the same job never finishes its first epoch, the first run does).
  :data:`MULTIPROCESS_CACHE_HANGS` says so; ``framework.parallel.initialize`` then switches the cache
  off for the process (``framework/_compile_cache.py``).

>>> JAX_VERSION >= (0, 10, 2)
True
>>> empty((2,)).tolist()
[0.0, 0.0]
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from jax._src import config as _jax_config
from jax._src import core as _jax_core

__all__ = ["JAX_VERSION", "MULTIPROCESS_CACHE_HANGS", "empty", "is_tracer", "trace_state_clean",
           "evaluates_eagerly", "distributed_client", "monitoring_listener_lists"]


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text.split("+")[0])[:4])


#: The running JAX's version as numbers, e.g. ``(0, 12, 0, 1)``.
JAX_VERSION: tuple[int, ...] = _version(jax.__version__)

#: Whether a multi-process run hangs when its programs come from the persistent compilation cache.
MULTIPROCESS_CACHE_HANGS: bool = JAX_VERSION >= (0, 12, 1)


def empty(shape: Any, dtype: Any = jnp.float32) -> jax.Array:
    """Zeros: what ``jnp.empty`` gave before JAX 0.11, and what the framework's ``empty`` promises
    (uninitialised memory would make results depend on the JAX version and the allocator)."""
    return jnp.zeros(shape, dtype)


def is_tracer(x: Any) -> bool:
    """Whether ``x`` is an abstract value being traced (under ``jit``/``grad``/``vmap``...)."""
    return isinstance(x, jax.core.Tracer)


def _never_clean() -> bool:
    return False


#: Whether no trace is in progress in this thread (no ``jit``/``grad``/``vmap``... being traced), where
#: JAX would refuse a nested ``jax.jit`` that carries compiler options. JAX has no public test for it:
#: its ``core.trace_state_clean`` (JAX 0.4-0.12); with an unknown JAX, never (no compiler options).
trace_state_clean: Callable[[], bool] = getattr(_jax_core, "trace_state_clean", _never_clean)


_FOLDING = getattr(_jax_config, "eager_constant_folding", None)


def _eager_trace() -> bool:
    if isinstance(_jax_core.trace_ctx.trace, _jax_core.EvalTrace):
        return True
    return _FOLDING is not None and _FOLDING.value


#: Whether an operation on concrete arrays called now gives a concrete array rather than being recorded
#: into a trace: outside every trace, or inside ``jax.ensure_compile_time_eval()`` (where an outer trace
#: folds constants, and :func:`trace_state_clean` is False). JAX has no public test for it: its
#: ``core.trace_ctx`` and ``eager_constant_folding`` setting (JAX 0.4.36-0.12); with an unknown JAX,
#: :func:`trace_state_clean`.
_KNOWS_TRACES = hasattr(_jax_core, "trace_ctx") and hasattr(_jax_core, "EvalTrace")
evaluates_eagerly: Callable[[], bool] = _eager_trace if _KNOWS_TRACES else trace_state_clean


def distributed_client() -> Any:
    """The key-value client of JAX's coordination service (after ``jax.distributed.initialize``)."""
    from jax._src import distributed

    client = getattr(distributed.global_state, "client", None)
    if client is None:
        raise RuntimeError("JAX's distributed runtime is not initialised: call "
                           "framework.parallel.initialize(coordinator, num_processes, process_id) first.")
    return client


def monitoring_listener_lists() -> list[list]:
    """The lists holding ``jax.monitoring``'s registered listeners (to snapshot and restore them)."""
    from jax._src import monitoring

    return [v for k, v in vars(monitoring).items() if k.endswith("_listeners") and isinstance(v, list)]
