"""The suite does not depend on the caller's environment: with a device count exported in XLA_FLAGS, a
process a test starts sees JAX's default (one CPU device), as the tests that start processes assume."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_started_process_sees_jax_default_devices():
    out = subprocess.run([sys.executable, "-c", "import jax; print(jax.device_count())"],
                         env={**os.environ, "JAX_PLATFORMS": "cpu"}, capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "1", out


def test_exported_device_count_does_not_reach_the_processes_tests_start():
    flags = "--xla_force_host_platform_device_count=4 --xla_cpu_enable_fast_math=false"
    env = {**os.environ, "XLA_FLAGS": flags}
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          f"{__file__}::test_a_started_process_sees_jax_default_devices"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
