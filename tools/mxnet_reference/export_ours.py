"""Networks exported by THIS framework, for MXNet 1.9.1 to run (run with the project's venv, from the
repository root: ``python tools/mxnet_reference/export_ours.py``; then
``/tmp/mx/bin/python tools/mxnet_reference/gen_symbol.py --ours``).

Writes ``tests/reference/symbol/<name>-symbol.json`` (our export) and ``<name>.npz`` (the input, the
parameter names/shapes of the export, its small constants, and OUR output). The weights are not
committed: both sides redraw them with ``seeded_params`` (tests/symbol/symbol_helpers.py).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as onp

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "tests" / "reference" / "symbol"
SEEDS = {"ours_lenet": 22, "ours_resnet18": 11}  # the seeds build_ours drew the weights with


def _helpers():
    path = ROOT / "tests" / "symbol" / "symbol_helpers.py"
    spec = importlib.util.spec_from_file_location("symbol_test_helpers", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main() -> None:
    from framework import serialization

    helpers = _helpers()
    for name in [*SEEDS, *helpers.LAYERS]:
        net, x = helpers.build_ours(name)
        y = onp.asarray(net(x))
        with tempfile.TemporaryDirectory() as d:
            sym, params = net.export(os.path.join(d, name))
            saved = serialization.load_numpy(params) or {}
            (OUT / f"{name}-symbol.json").write_text(Path(sym).read_text())
        bare = {k.split(":", 1)[1]: k for k in saved}
        # the order seeded_params drew them in (sorted structural names), under their export names
        names = [bare[n.replace(".", "_")] for n in sorted(net.collect_params())]
        consts = {f"const:{k}": v for k, v in saved.items() if k.split(":", 1)[1].startswith("_const")}
        onp.savez(OUT / f"{name}.npz", x=onp.asarray(x), y=y, names=onp.array(names, dtype=str),
                  seed=onp.array(SEEDS.get(name, 33)),
                  shapes=onp.array(json.dumps([list(saved[n].shape) for n in names])), **consts)
        print(f"{name}: {len(names)} parameters, {len(consts)} constants")


if __name__ == "__main__":
    main()
