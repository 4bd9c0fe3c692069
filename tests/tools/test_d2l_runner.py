"""The d2l corpus runner's own logic on made-up notebooks: d2lbook's tab rules, the epoch reduction and
the failure cascade (no snapshot of the book is needed)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "corpus"))

import d2l_extract  # noqa: E402
import d2l_prepare  # noqa: E402

NOTEBOOK = '''Text.

```{.python .input  n=1}
%load_ext d2lbook.tab
tab.interact_select(['mxnet', 'pytorch'])
```

```{.python .input}
%%tab mxnet
from mxnet import np
x = np.ones(2)
```

```{.python .input}
#@tab pytorch
import torch
```

```{.python .input}
%%tab all
y = 1
if tab.selected('mxnet'):
    z = x + y
if tab.selected('pytorch', 'jax'):
    z = torch.ones(2)
w = 2
```

```{.python .input}
default_tab_only = True
```

```python
not_a_cell = 1
```
'''


def test_tab_rules_pick_the_mxnet_cells():
    cells = d2l_extract.section_cells(NOTEBOOK, "mxnet", "pytorch")
    assert [c.line for c in cells] == [9, 20]
    assert "from mxnet import np" in cells[0].source and "%%tab" not in cells[0].source
    assert cells[1].source.split("\n") == ["", "y = 1", "z = x + y", "w = 2"]


def test_a_notebook_without_mxnet_cells_has_no_mxnet_notebook():
    only_all = NOTEBOOK.replace("%%tab mxnet", "%%tab pytorch")
    assert d2l_extract.section_cells(only_all, "mxnet", "pytorch") is None
    assert [c.line for c in d2l_extract.section_cells(NOTEBOOK, "pytorch", "pytorch")] == [15, 20, 30]


def test_epoch_reduction_keeps_lines_and_records_each_change():
    src = ("%matplotlib inline\nlr, num_epochs = 0.1, 10\ntrainer = Trainer(max_epochs=3, num_gpus=1)\n"
           "def train(net, num_epochs=5): pass\nepochs = 1\n!ls x*\n")
    out, notes = d2l_prepare.prepare(src, 1)
    assert out.split("\n") == ["", "lr, num_epochs = 0.1, 1", "trainer = Trainer(max_epochs=1, num_gpus=1)",
                               "def train(net, num_epochs=1): pass", "epochs = 1", "_d2l_system('ls x*')", ""]
    assert [n for n in notes if "->" in n] == ["line 2: num_epochs 10 -> 1", "line 3: max_epochs 3 -> 1",
                                              "line 4: num_epochs 5 -> 1"]


def test_names_read_include_free_names_of_functions():
    src = "def f(a):\n    return net(a) + b\nz = f(x)\n"
    assert d2l_prepare.names_read(src) >= {"net", "b", "x", "f"} and "a" not in d2l_prepare.names_read(src)
    assert d2l_prepare.names_bound(src) == {"f", "z"}


def test_a_seed_makes_every_random_stream_of_a_section_repeat():
    import random

    import d2l_harness
    import numpy

    import framework

    def draws():
        return (random.random(), float(numpy.random.rand()),
                framework.np.random.uniform(size=3).tolist())

    note = d2l_harness.seed_everything("framework", 7)
    first = draws()
    d2l_harness.seed_everything("framework", 7)
    assert draws() == first
    d2l_harness.seed_everything("framework", 8)
    other = draws()
    assert all(a != b for a, b in zip(first, other, strict=True))
    assert "7" in note


def test_compare_averages_seeded_runs(tmp_path, capsys):
    import json

    import d2l_compare

    def run(name, finals):
        folder = tmp_path / name
        folder.mkdir()
        cells = [{"line": 10, "series": {"train_loss": [[0.0, 9.0], [1.0, final]]}} for final in finals]
        sections = [{"section": f"chapter_linear-regression/s{i}.md", "cells": [cell]}
                    for i, cell in enumerate(cells)]
        (folder / "summary.json").write_text(json.dumps({"sections": sections}))

    run("fw_seed0", [2.0, 4.0])
    run("fw_seed1", [4.0, 4.0])
    run("mx_seed0", [2.0, 5.0])
    means = d2l_compare.mean_finals(d2l_compare.runs(str(tmp_path / "fw_seed*")))
    assert means == {"chapter_linear-regression/s0.md:10:train_loss": [2.0, 4.0],
                     "chapter_linear-regression/s1.md:10:train_loss": [4.0, 4.0]}
    d2l_compare.compare(str(tmp_path / "fw_seed*"), str(tmp_path / "mx_seed0"))
    lines = capsys.readouterr().out.splitlines()
    s0 = next(line for line in lines if "s0.md" in line).split()
    assert s0[1:4] == ["3.0000", "2.0000", "+50.0%"] and s0[-1] == "(1)" and "(2)" in s0
    s1 = next(line for line in lines if "s1.md" in line).split()
    assert s1[1:4] == ["4.0000", "5.0000", "-20.0%"]


def test_sections_on_framework_never_wait_for_downloads(tmp_path, monkeypatch):
    import argparse
    import importlib.util

    spec = importlib.util.spec_from_file_location("d2l_runner", ROOT / "tools" / "corpus" / "d2l.py")
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    monkeypatch.delenv("FRAMEWORK_OFFLINE", raising=False)  # the tests' own environment sets it
    args = argparse.Namespace(engine="framework", extra_path=None, data=None)
    assert runner._engine_env(args, tmp_path)["FRAMEWORK_OFFLINE"] == "1"


def test_framework_sections_run_eager_code_of_new_shapes_without_compiling(tmp_path):
    import json
    import os
    import subprocess

    cell = '''
import jax, numpy as onp
from mxnet import np
seen = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: seen.append(event) if "backend_compile" in event else None)
for n in range(5, 9):
    x = np.array(onp.arange(n, dtype="float32"))
    y = (x[1:] * 2 + 1).reshape(-1)
print("compiled", len(seen))
'''
    results = tmp_path / "results.jsonl"
    job = {"engine": "framework", "section": "chapter_x/s.md", "results": str(results),
           "d2l_root": str(tmp_path), "data_dir": None, "batches": 4, "seed": None,
           "cells": [{"index": 0, "line": 3, "source": cell, "notes": []}]}
    job_path = tmp_path / "job.json"
    job_path.write_text(json.dumps(job))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("FRAMEWORK_EAGER_HOST_RUNS", None)
    subprocess.run([sys.executable, str(ROOT / "tools" / "corpus" / "d2l_harness.py"), str(job_path)],
                   env=env, cwd=tmp_path, check=True, timeout=300, capture_output=True)
    record = [json.loads(line) for line in results.read_text().splitlines()][1]
    assert record["status"] == "ok", record
    assert "compiled 0" in record["stdout_tail"]


def test_a_failure_raised_through_the_operator_dispatch_is_placed_at_the_cell():
    import importlib.util

    spec = importlib.util.spec_from_file_location("d2l_runner", ROOT / "tools" / "corpus" / "d2l.py")
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    eager = str(ROOT / "framework" / "np" / "eager" / "_core.py")
    rec = {"line": 30, "frames": [["harness.py", 402, "main"], ["chapter_x/s.md", 35, "<module>"],
                                  [eager, 295, "getitem"]]}
    assert runner._where(rec, "chapter_x/s.md") == "chapter_x/s.md:35"
    rec["frames"].append([str(ROOT / "framework" / "gluon" / "block.py"), 10, "f"])
    assert runner._where(rec, "chapter_x/s.md") == "framework/gluon/block.py:10"
