"""The suite does not depend on the caller's environment: with a device count exported in XLA_FLAGS, a
process started under the root conftest sees JAX's default (one CPU device), as the tests that start
processes assume."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_PROBE = ("import runpy, subprocess, sys\n"
          "runpy.run_path('conftest.py')\n"  # what pytest does first
          "out = subprocess.run([sys.executable, '-c', 'import jax; print(jax.device_count())'],\n"
          "                     capture_output=True, text=True, check=True).stdout\n"
          "print(out.strip())\n")


def test_exported_device_count_does_not_reach_the_processes_tests_start():
    flags = "--xla_force_host_platform_device_count=4 --xla_cpu_enable_fast_math=false"
    env = {**os.environ, "XLA_FLAGS": flags, "JAX_PLATFORMS": "cpu"}
    out = subprocess.run([sys.executable, "-c", _PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "1", out.stdout
