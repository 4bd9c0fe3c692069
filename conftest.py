"""Root pytest configuration: 4 CPU devices before JAX starts (for tests and docstring examples).

Processes the tests start get the environment they assume: a device count exported in ``XLA_FLAGS``
(``--xla_force_host_platform_device_count=N``, as JAX users on a CPU often have it) is removed from this
process's environment, which they inherit; a test that wants devices there sets them itself."""

import os
import re

import jax

_flags = re.sub(r"--xla_force_host_platform_device_count=\S*", "", os.environ.get("XLA_FLAGS", "")).strip()
if _flags:
    os.environ["XLA_FLAGS"] = _flags
else:
    os.environ.pop("XLA_FLAGS", None)

jax.config.update("jax_num_cpu_devices", 4)

# The persistent compilation cache stays off in the test processes (tests/test_compile_cache.py turns it
# on in processes of its own): tests that count compiles must not find programs another worker wrote.
os.environ.setdefault("FRAMEWORK_COMPILE_CACHE", "0")

# framework/metric.py makes ``framework.metric`` the module framework.gluon.metric (one object, two
# names): its doctests are gluon.metric's, collected there; collecting the alias would import a mismatch.
collect_ignore = ["framework/metric.py"]
