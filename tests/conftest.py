"""Every test runs with 4 CPU devices, set before JAX starts computing.

Reference numbers come from files in this repository (``tests/reference/<area>/``, made by real
MXNet 1.9.1 with ``tools/mxnet_reference/``); real Fashion-MNIST is found where the library looks
for it (``$FRAMEWORK_HOME/datasets``, then Debian's package directory).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jax

jax.config.update("jax_num_cpu_devices", 4)

import numpy as onp  # noqa: E402
import pytest  # noqa: E402

# What a test worker that died left behind, printed at the end (tests/crash_reports.py).
pytest_plugins = ["crash_reports"]

REFERENCE = Path(__file__).resolve().parent / "reference"
COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"


def count_compiles(fn) -> int:
    """How many programs XLA compiled while ``fn()`` ran (its ``jax.monitoring`` events)."""
    seen = []

    def listen(event, duration, **kwargs):
        if event == COMPILE_EVENT:
            seen.append(event)

    jax.monitoring.register_event_duration_secs_listener(listen)
    try:
        fn()
    finally:
        jax.monitoring.unregister_event_duration_listener(listen)
    return len(seen)


def aligned_host(shape: tuple, value: float) -> onp.ndarray:
    """A float32 NumPy array filled with ``value`` whose memory starts on a 64-byte boundary: JAX's CPU
    client shares such memory (a ``jax.Array`` made from it may change with it) instead of copying it."""
    n = int(onp.prod(shape))
    raw = onp.empty(n + 16, onp.float32)
    start = (-raw.ctypes.data % 64) // 4
    out = raw[start:start + n].reshape(shape)
    out[...] = value
    return out


_COMPILES_PRELUDE = """
import json, jax
_compiled = []
def _listen(name, secs, fun_name=None, **kw):
    if name.endswith("backend_compile_duration"):
        _compiled.append(fun_name)
jax.monitoring.register_event_duration_secs_listener(_listen)
"""


def compiled_in_new_process(code: str, **env: str) -> list[str]:
    """The names of the programs XLA compiled while ``code`` ran in a new Python process (this checkout
    on its path, ``env`` added to the environment), in order; fails with the child's error output."""
    root = Path(__file__).resolve().parents[1]
    program = _COMPILES_PRELUDE + code + "\nprint('COMPILED', json.dumps(_compiled))"
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=300,
                         cwd=root, env={**os.environ, "PYTHONPATH": str(root), **env})
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.rsplit("COMPILED", 1)[1])


GET_FASHION = ("make data   (as root on Debian: apt-get install dataset-fashion-mnist), or "
               "python -m datasets fetch fashion-mnist   (needs the network; writes "
               "$FRAMEWORK_HOME/datasets)")


@pytest.fixture(scope="session")
def ref() -> dict[str, onp.ndarray]:
    """Outputs of real MXNet 1.9.1 (tests/reference/core/mx_reference_np.npz; inputs documented in
    tools/mxnet_reference/gen_core.py)."""
    path = REFERENCE / "core" / "mx_reference_np.npz"
    with onp.load(path, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


@pytest.fixture(scope="session")
def params_dir() -> Path:
    """MXNet 1.9.1 ``.params`` files with their expected arrays (tools/mxnet_reference/gen_params.py)."""
    return REFERENCE / "params"


@pytest.fixture(scope="session")
def fashion_root() -> Path:
    """The directory holding the four real Fashion-MNIST files; fails (never skips) without them."""
    from framework.gluon.data.vision import _files
    from framework.gluon.data.vision.catalogue import CATALOGUE

    files = list(CATALOGUE["fashion-mnist"]["files"])
    places = _files.search_dirs("fashion-mnist")
    for _, d in places:
        if all(_files.find_file(d, f) for f in files):
            return d
    pytest.fail("real Fashion-MNIST not found in " + ", ".join(str(d) for _, d in places)
                + ". Get it with: " + GET_FASHION, pytrace=False)


@pytest.fixture(autouse=True)
def _seeded():
    from framework import np

    np.random.seed(0)
    yield


@pytest.fixture(autouse=True)
def _restore_global_state():
    """JAX flags, jax.monitoring listeners, the framework's thread-local state and os.environ come back
    after each test (tests/hygiene.py)."""
    from hygiene import restored_global_state

    with restored_global_state():
        yield


os.environ.setdefault("TQDM_DISABLE", "1")
# No test reaches the network: data sets never download (the download tests turn this off and serve
# their files from 127.0.0.1).
os.environ["FRAMEWORK_OFFLINE"] = "1"
os.environ.setdefault("FRAMEWORK_PORT_CACHE", "0")  # framework.run's cache: only the tests that use it

# Scripts run by tests through framework.run (they import mxnet): data for tests, not test modules.
collect_ignore_glob = ["port/gcv_snippets/*"]
