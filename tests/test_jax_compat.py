"""framework/_jax_compat.py and the supported stack: the running Python, JAX and NumPy are inside the
ranges pyproject.toml declares (CI runs the suite at both ends), and the JAX differences it meets."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as onp
import pytest
from packaging.requirements import Requirement

from framework import _jax_compat, nd, np

ROOT = Path(__file__).resolve().parents[1]


def declared() -> dict[str, Requirement]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    reqs = {Requirement(r).name: Requirement(r) for r in project["dependencies"]}
    reqs["python"] = Requirement("python" + project["requires-python"])
    return reqs


def test_the_running_stack_is_a_supported_one():
    reqs = declared()
    python = ".".join(map(str, sys.version_info[:3]))
    assert reqs["python"].specifier.contains(python)
    assert reqs["jax"].specifier.contains(jax.__version__, prereleases=True), jax.__version__
    assert reqs["numpy"].specifier.contains(onp.__version__) and onp.__version__.startswith("2.")
    assert reqs["jax"].specifier.contains("0.10.2") and reqs["jax"].specifier.contains("0.12.0.1")
    assert not reqs["jax"].specifier.contains("0.10.1") and not reqs["jax"].specifier.contains("0.13.0")
    if sys.version_info < (3, 12):  # JAX 0.11 dropped Python 3.11: it runs the oldest supported JAX
        assert _jax_compat.JAX_VERSION[:2] == (0, 10)


def test_version_parsing():
    assert _jax_compat._version("0.12.0.1") == (0, 12, 0, 1)
    assert _jax_compat._version("0.10.2.dev20261201+cuda") == (0, 10, 2, 20261201)


def test_empty_is_zeros_on_every_jax():
    assert _jax_compat.empty((2, 3), jnp.int32).tolist() == [[0, 0, 0], [0, 0, 0]]
    big = np.empty((64, 64))  # large enough for an allocator to hand back used memory
    assert big.dtype == jnp.float32 and not bool(jnp.any(big != 0))
    assert not bool(jnp.any(nd.empty((8, 8)) != 0))
    assert not bool(jnp.any(np.empty_like(jnp.ones((4, 4))) != 0))
    for fn in (lambda: np.empty((3,)), lambda: nd.empty((3,)), lambda: _jax_compat.empty((3,))):
        # JAX >= 0.11 has an `empty` primitive (uninitialised memory); zeros are a broadcast of 0
        assert "empty[" not in str(jax.make_jaxpr(fn)())


def test_is_tracer():
    seen = []
    jax.jit(lambda x: seen.append(_jax_compat.is_tracer(x)) or x)(jnp.ones(2))
    assert seen == [True] and not _jax_compat.is_tracer(jnp.ones(2))


def test_monitoring_listener_lists_see_registrations():
    def listener(*args, **kwargs):
        pass

    before = sum(len(v) for v in _jax_compat.monitoring_listener_lists())
    jax.monitoring.register_event_duration_secs_listener(listener)
    lists = _jax_compat.monitoring_listener_lists()
    assert sum(len(v) for v in lists) == before + 1 and any(listener in v for v in lists)


def test_distributed_client_without_a_run_says_what_to_do():
    if jax.distributed.is_initialized():
        pytest.fail("this test process must not be part of a distributed run")
    with pytest.raises(RuntimeError, match=r"framework\.parallel\.initialize"):
        _jax_compat.distributed_client()


def test_evaluates_eagerly_follows_the_trace_that_would_take_an_operation():
    seen = []

    def f(x):
        seen.append(_jax_compat.evaluates_eagerly())
        with jax.ensure_compile_time_eval():  # an outer trace that folds constants
            seen.append(_jax_compat.evaluates_eagerly())
        return x

    assert _jax_compat.evaluates_eagerly()
    jax.jit(f)(1.0)
    jax.eval_shape(f, jnp.ones(2))  # another signature: traced again
    assert seen == [False, True, False, True]
    with jax.ensure_compile_time_eval():
        assert _jax_compat.evaluates_eagerly()
