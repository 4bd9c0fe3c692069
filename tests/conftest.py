"""Every test runs with 4 CPU devices, set before JAX starts computing."""

from __future__ import annotations

import os
from pathlib import Path

import jax

jax.config.update("jax_num_cpu_devices", 4)

import numpy as onp  # noqa: E402
import pytest  # noqa: E402

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
REFERENCE = SHARED / "mxnet-reference"
FASHION_DIRS = [SHARED / "data" / "fashion-mnist", Path("/usr/share/datasets/fashion-mnist")]


@pytest.fixture(scope="session")
def ref():
    """Outputs of real MXNet 1.9.1 (../shared/mxnet-reference/mx_reference_np.npz)."""
    path = REFERENCE / "mx_reference_np.npz"
    if not path.exists():
        pytest.fail(f"the MXNet reference is missing: {path}")
    with onp.load(path) as data:
        return {k: data[k] for k in data.files}


@pytest.fixture(scope="session")
def params_dir() -> Path:
    return REFERENCE / "params"


@pytest.fixture(scope="session")
def fashion_root() -> Path:
    """The directory holding the four real Fashion-MNIST files."""
    for d in FASHION_DIRS:
        if (d / "train-images-idx3-ubyte.gz").exists():
            return d
    pytest.fail("real Fashion-MNIST not found in " + ", ".join(map(str, FASHION_DIRS)))


@pytest.fixture(autouse=True)
def _seeded():
    from framework import np

    np.random.seed(0)
    yield


os.environ.setdefault("TQDM_DISABLE", "1")
