"""The autouse fixture's context manager puts back what a test changes globally."""

import os

import jax
from hygiene import restored_global_state

from framework import autograd, config


def test_flags_listeners_thread_state_and_environ_come_back():
    before = [list(v) for v in _lists()]
    switches = config.get("fast_cpu"), config.get("cpu_conv")
    with restored_global_state():
        jax.config.update("jax_numpy_rank_promotion", "warn")
        jax.monitoring.register_event_duration_secs_listener(lambda *a, **k: None)
        autograd.set_recording(True)
        autograd.set_training(True)
        os.environ["FRAMEWORK_TEST_HYGIENE"] = "1"
        config.set(fast_cpu=not switches[0], cpu_conv="ynnpack" if switches[1] == "eigen" else "eigen")
    assert (config.get("fast_cpu"), config.get("cpu_conv")) == switches
    assert jax.config.jax_numpy_rank_promotion != "warn"
    assert [list(v) for v in _lists()] == before
    assert not autograd.is_recording() and not autograd.is_training()
    assert "FRAMEWORK_TEST_HYGIENE" not in os.environ


def _lists():
    from hygiene import _listener_lists

    return _listener_lists()
