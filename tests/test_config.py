"""framework.config: every switch read in one place, validated, and part of the programs' cache keys."""

import os
import re
import subprocess
import sys

import jax
import numpy as onp
import pytest

from framework import _compile, config, np
from framework.gluon import nn


def _compiles(fn):
    seen = []

    def listen(event, duration, **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            seen.append(event)

    jax.monitoring.register_event_duration_secs_listener(listen)
    try:
        out = fn()
    finally:
        jax.monitoring.unregister_event_duration_listener(listen)
    return out, len(seen)


def test_flipping_the_fast_cpu_switch_between_two_calls_gives_the_other_program():
    net = nn.Conv2D(4, 3, in_channels=1)
    net.initialize()
    net.hybridize()
    x = np.ones((2, 1, 12, 12))
    dev = jax.devices()[0]
    texts, outs = [], []
    for fast in (True, False, True):
        config.set(fast_cpu=fast)
        out, compiled = _compiles(lambda: net(x))
        outs.append(onp.asarray(out))
        program = _compile.block_program(net, False, True, dev)
        params = net.collect_params().values_on()
        key = (jax.random.key(0), onp.uint32(0))
        texts.append(program.lower(params, key, x).as_text())
        assert compiled == (1 if len(texts) < 3 else 0)  # a new program for the new value; then cached
    assert "convolution" not in texts[0] and "convolution" in texts[1] and texts[2] == texts[0]
    onp.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-6)


def test_override_is_for_the_block_and_thread_only():
    config.set(fast_cpu=True)
    with config.override(fast_cpu=False):
        assert config.get("fast_cpu") is False and ("fast_cpu", False) in config.program_key()
    assert config.get("fast_cpu") is True and ("fast_cpu", True) in config.program_key()


def test_bad_values_name_the_variable_the_value_and_what_is_accepted(monkeypatch):
    with pytest.raises(config.ConfigError, match="fast_cpu=1; expected True or False"):
        config.set(fast_cpu=1)
    with pytest.raises(config.ConfigError, match="no switch named 'fastcpu'"):
        config.set(fastcpu=False)
    monkeypatch.setenv("FRAMEWORK_NUM_PROCESSES", "two")
    with pytest.raises(config.ConfigError, match=r"FRAMEWORK_NUM_PROCESSES='two'.*an integer >= 0"):
        config.get("num_processes")
    monkeypatch.setenv("FRAMEWORK_HOME", "~/elsewhere")
    assert config.get("home") == config.Path(os.path.expanduser("~/elsewhere"))


def test_a_bad_program_switch_fails_at_import_with_the_fix():
    env = {**os.environ, "FRAMEWORK_FAST_CPU": "maybe"}
    run = subprocess.run([sys.executable, "-c", "import framework.config"], env=env, capture_output=True,
                         text=True, cwd=os.path.dirname(os.path.dirname(__file__)))
    assert run.returncode != 0
    assert "FRAMEWORK_FAST_CPU='maybe'" in run.stderr and "accepted: 1/0" in run.stderr


def test_no_other_module_reads_a_switch_from_the_environment():
    import pathlib
    import re

    import framework

    root = pathlib.Path(framework.__file__).parent
    names = "|".join(s.env for s in config.SWITCHES.values())
    read = re.compile(rf"(environ\.get\(|environ\[|getenv\()\s*[\"']({names})")
    readers = sorted(str(p.relative_to(root)) for p in root.rglob("*.py") if read.search(p.read_text()))
    assert readers == [] and "os.environ.get(switch.env)" in (root / "config.py").read_text()


def _ynn_convolutions(text):
    """How many convolutions of a compiled CPU program run as YNNPACK fusions."""
    called = re.findall(r'calls=%([\w.\-]+)[^\n]*"__ynn_fusion"', text)
    bodies = dict(re.findall(r"^%([\w.\-]+) \(.*?\{\n(.*?)\n\}", text, re.S | re.M))
    return sum("convolution(" in bodies.get(name, "") for name in called)


def test_the_cpu_conv_switch_picks_the_library_that_runs_the_convolutions():
    net = nn.Conv2D(32, 3, in_channels=32)  # 32 channels: wide enough for YNNPACK, past the CPU rewrites
    net.initialize()
    net.hybridize()
    x = np.ones((2, 32, 12, 12))
    dev = jax.devices()[0]
    texts, outs = [], []
    for library in ("eigen", "ynnpack", "eigen"):
        config.set(cpu_conv=library)
        out, compiled = _compiles(lambda: net(x))
        outs.append(onp.asarray(out))
        program = _compile.block_program(net, False, True, dev)
        params = net.collect_params().values_on()
        texts.append(program.lower(params, (jax.random.key(0), onp.uint32(0)), x).compile().as_text())
        assert compiled == (1 if len(texts) < 3 else 0)  # a new program for the new value; then cached
    assert [_ynn_convolutions(t) for t in texts] == [0, 1, 0]
    onp.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-5)
    assert config.xla_options() == {"xla_cpu_experimental_ynn_fusion_type":
                                     "LIBRARY_FUSION_TYPE_INDIVIDUAL_DOT,LIBRARY_FUSION_TYPE_REDUCE"}
    own = jax.jit(lambda w, x: jax.lax.conv(x, w, (1, 1), "SAME"), compiler_options=config.xla_options())
    w = jax.numpy.ones((32, 32, 3, 3))
    assert _ynn_convolutions(own.lower(w, x).compile().as_text()) == 0
    assert _ynn_convolutions(jax.jit(own.__wrapped__).lower(w, x).compile().as_text()) == 1


def test_an_xla_flag_of_the_user_wins_over_the_cpu_conv_switch(monkeypatch):
    config.set(cpu_conv="eigen")
    flag = "--xla_cpu_experimental_ynn_fusion_type=LIBRARY_FUSION_TYPE_INDIVIDUAL_DOT"
    monkeypatch.setenv("XLA_FLAGS", f"--xla_force_host_platform_device_count=4 {flag}")
    assert config.xla_options() == {}
    with pytest.raises(config.ConfigError, match=r"cpu_conv='mkl'; expected one of 'eigen', 'ynnpack'"):
        config.set(cpu_conv="mkl")
    monkeypatch.setenv("FRAMEWORK_CPU_CONV", "onednn")
    with pytest.raises(config.ConfigError, match=r"FRAMEWORK_CPU_CONV='onednn'.*eigen or ynnpack"):
        config._read(config.SWITCHES["cpu_conv"])
