"""The seed program (MXNet's "Use GPUs" tutorial) runs with only its imports and copyto changed."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as onp
import pytest

ROOT = Path(__file__).resolve().parents[1]
SEED = (ROOT / "examples" / "use_gpus.py").read_text()


def run_seed(monkeypatch, tmp_path, fashion_root, devices_expr, subset, epochs=2):
    """Execute the seed with: FRAMEWORK_HOME pointing at the real files, `devices` replaced, a subset of
    the data (for CI time) and fewer epochs."""
    from framework import gluon

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FRAMEWORK_HOME", str(tmp_path / "home"))
    original = gluon.data.vision.datasets.FashionMNIST

    def small(train=True, **kw):
        ds = original(root=str(fashion_root), train=train, **kw)
        return ds.take(subset if train else subset // 2)

    monkeypatch.setattr(gluon.data.vision.datasets, "FashionMNIST", small)
    code = SEED.replace("devices = [gpu, gpu_1]", f"devices = {devices_expr}")
    code = code.replace("range(10)", f"range({epochs})").replace("num_workers=4", "num_workers=0")
    printed = []
    namespace = {"__name__": "seed", "print": lambda *a, **k: printed.append(" ".join(map(str, a)))}
    exec(compile(code, "use_gpus.py", "exec"), namespace)
    return printed, namespace


@pytest.mark.parametrize("n", [2, 4])
def test_seed_multi_device_section_learns(monkeypatch, tmp_path, fashion_root, n):
    printed, ns = run_seed(monkeypatch, tmp_path, fashion_root, f"[npx.cpu(i) for i in range({n})]",
                           subset=2048, epochs=2)
    lines = [p for p in printed if p.startswith("Epoch")]
    assert len(lines) == 2
    losses = [float(re.match(r"Epoch \d+: loss ([0-9.]+), in [0-9.]+ sec", line).group(1)) for line in lines]
    assert losses[1] < losses[0] < 2.31
    params = ns["net"].collect_params()
    for p in params.values():
        reps = p.list_data()
        assert len(reps) == n
        for r in reps[1:]:
            onp.testing.assert_array_equal(r, reps[0])
