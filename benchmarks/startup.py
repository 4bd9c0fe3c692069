"""Compile latency as a user meets it: seconds from starting a new Python process to the end of its first
(and second) training step, for the seed's LeNet, a hybridized model-zoo ResNet-18 and an LSTM language
model, beside PyTorch eager doing the same in its own new process, in one run.

Each framework model runs three times, each a new process: ``first run`` (an empty persistent
compilation cache: what a first ever run costs), ``second run`` (the same cache: a re-run script or
notebook) and ``cache off`` (``FRAMEWORK_COMPILE_CACHE=0``). ``second/first`` is the figure the persistent
cache is for; ``vs_pytorch`` divides by PyTorch's seconds to its first step. Each child also reports its
compilations and the cache's hits. The framework's and the benchmarks' bytecode is written first
(``compileall``), as an installed package has it, so that no run compiles Python source where
``PYTHONDONTWRITEBYTECODE`` is set.

``python -m benchmarks startup [--quick] [--torch PYTHON] [--models lenet,resnet18,lstm]``; PyTorch runs
under ``--torch`` (a Python that imports torch; default this one, skipped with a note when it cannot).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["main", "MODELS"]

COMMON_OPTIONS = ("--quick", "--out", "--torch")
ROOT = Path(__file__).resolve().parents[1]
MODELS = ("lenet", "resnet18", "lstm")
# (batch, input size) per model; --quick shrinks them
SIZES = {"lenet": (256, 28), "resnet18": (16, 224), "lstm": (32, 35)}
QUICK = {"lenet": (32, 28), "resnet18": (2, 64), "lstm": (4, 8)}
VOCAB, HIDDEN, LAYERS = 2000, 256, 2


# ------------------------------------------------------------------------------------ children
def _framework_child(model: str, batch: int, size: int) -> dict[str, Any]:
    t_start = time.time()
    import collections

    import jax

    events: collections.Counter = collections.Counter()
    jax.monitoring.register_event_listener(lambda name, **kw: events.update([name]))
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: events.update({name: 1, name + ":s": secs}))
    import numpy as onp

    from framework import autograd, gluon, np
    from framework.gluon import nn
    t_import = time.time()
    rs = onp.random.RandomState(0)
    if model == "lenet":
        net = nn.Sequential()
        net.add(nn.Conv2D(6, kernel_size=5, activation="relu"), nn.MaxPool2D(pool_size=2, strides=2),
                nn.Conv2D(16, kernel_size=3, activation="relu"), nn.MaxPool2D(pool_size=2, strides=2),
                nn.Dense(120, activation="relu"), nn.Dense(84, activation="relu"), nn.Dense(10))
        x, y = rs.rand(batch, 1, size, size).astype("float32"), rs.randint(0, 10, batch)
    elif model == "resnet18":
        from framework.gluon.model_zoo import vision

        net = vision.resnet18_v1(classes=1000)
        x, y = rs.rand(batch, 3, size, size).astype("float32"), rs.randint(0, 1000, batch)
    else:
        net = _framework_lm(nn)
        x, y = rs.randint(0, VOCAB, (size, batch)), rs.randint(0, VOCAB, (size, batch))
    net.initialize()
    if model == "resnet18":
        net.hybridize()
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01})
    marks = []
    for _ in range(2):
        xb, yb = np.array(x), np.array(y)
        with autograd.record():
            loss = loss_fn(net(xb), yb)
        loss.backward()
        trainer.step(batch)
        float(loss.sum())
        marks.append(time.time())
    hits = events["/jax/compilation_cache/cache_hits"]
    return {"t_start": t_start, "t_import": t_import, "t_step1": marks[0], "t_step2": marks[1],
            "compiles": events["/jax/core/compile/backend_compile_duration"],
            "compile_s": round(events["/jax/core/compile/backend_compile_duration:s"], 2), "cache_hits": hits}


def _framework_lm(nn: Any) -> Any:
    from framework.gluon import rnn

    class LM(nn.Block):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(VOCAB, HIDDEN)
            self.rnn = rnn.LSTM(HIDDEN, num_layers=LAYERS, input_size=HIDDEN)
            self.out = nn.Dense(VOCAB, flatten=False, in_units=HIDDEN)

        def forward(self, tokens: Any) -> Any:
            return self.out(self.rnn(self.embed(tokens)))

    return LM()


def _torch_child(model: str, batch: int, size: int) -> dict[str, Any]:
    t_start = time.time()
    import numpy as onp
    import torch

    from benchmarks import torch_models
    t_import = time.time()
    rs = onp.random.RandomState(0)
    if model == "lenet":
        net = torch_models.lenet()
        x, y = rs.rand(batch, 1, size, size).astype("float32"), rs.randint(0, 10, batch)
    elif model == "resnet18":
        net = torch_models.resnet(18)
        x, y = rs.rand(batch, 3, size, size).astype("float32"), rs.randint(0, 1000, batch)
    else:
        net = torch_models.lstm_lm(VOCAB, HIDDEN, LAYERS)
        x, y = rs.randint(0, VOCAB, (size, batch)), rs.randint(0, VOCAB, (size, batch))
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss(reduction="sum")
    marks = []
    for _ in range(2):
        xb, yb = torch.from_numpy(x), torch.from_numpy(y.astype("int64"))
        opt.zero_grad(set_to_none=True)
        out = net(xb)
        loss = loss_fn(out.reshape(-1, out.shape[-1]), yb.reshape(-1))
        (loss / batch).backward()
        opt.step()
        float(loss)
        marks.append(time.time())
    return {"t_start": t_start, "t_import": t_import, "t_step1": marks[0], "t_step2": marks[1]}


# ------------------------------------------------------------------------------------- parent
def _spawn(python: str, kind: str, model: str, batch: int, size: int, env: dict[str, str]) -> dict[str, Any]:
    """Run one child; its report with times relative to the moment it was started."""
    cmd = [python, "-m", "benchmarks.startup", "--child", kind, model, str(batch), str(size)]
    t0 = time.time()
    run = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=3600)
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{run.stderr[-3000:]}")
    report = json.loads(run.stdout.strip().splitlines()[-1])
    for k in ("t_start", "t_import", "t_step1", "t_step2"):
        report[k.replace("t_", "s_")] = report.pop(k) - t0
    return report


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_COMPILATION_CACHE", "FRAMEWORK_"))}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def torch_python(given: str | None) -> str | None:
    """A Python that imports torch: ``given``, else this one, else None."""
    for cand in ([given] if given else [sys.executable]):
        ok = subprocess.run([cand, "-c", "import torch"], capture_output=True).returncode == 0
        if ok:
            return cand
    return None


def run(models: Sequence[str], quick: bool, torch: str | None) -> tuple[list[dict[str, Any]], list[str]]:
    """The rows (one per model and variant) and notes."""
    rows, notes = [], []
    sizes = QUICK if quick else SIZES
    sources = [str(ROOT / "framework"), str(ROOT / "benchmarks")]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *sources], check=True, capture_output=True)
    with tempfile.TemporaryDirectory(prefix="startup-") as home:
        for model in models:
            batch, size = sizes[model]
            got: dict[str, dict[str, Any]] = {}
            got["first run"] = _spawn(sys.executable, "framework", model, batch, size,
                                      _env(FRAMEWORK_HOME=home))
            got["second run"] = _spawn(sys.executable, "framework", model, batch, size,
                                       _env(FRAMEWORK_HOME=home))
            got["cache off"] = _spawn(sys.executable, "framework", model, batch, size,
                                      _env(FRAMEWORK_HOME=home, FRAMEWORK_COMPILE_CACHE="0"))
            if torch is not None:
                got["pytorch eager"] = _spawn(torch, "torch", model, batch, size, _env())
            first, peer = got["first run"]["s_step1"], got.get("pytorch eager", {}).get("s_step1")
            for variant, r in got.items():
                rows.append({"label": f"{model}: {variant}", "model": model, "variant": variant,
                             "batch": batch, "import_s": r["s_import"],
                             "first_step_s": r["s_step1"], "second_step_s": r["s_step2"],
                             "vs_first_run": r["s_step1"] / first if variant != "pytorch eager" else None,
                             "vs_pytorch": r["s_step1"] / peer if peer else None,
                             "compiles": r.get("compiles"), "compile_s": r.get("compile_s"),
                             "cache_hits": r.get("cache_hits")})
    if torch is None:
        notes.append("PyTorch is not importable here: no peer (pass --torch /path/to/python-with-torch).")
    notes.append("Seconds from starting the process to the end of its first / second training step "
                 "(record, backward, trainer.step, reading the loss); vs_first_run = this row's first step "
                 "/ the first run's; vs_pytorch = / PyTorch's (below 1: sooner).")
    return rows, notes


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(prog="python -m benchmarks startup", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="small inputs (a smoke run)")
    p.add_argument("--models", default=",".join(MODELS), help=f"comma-separated subset of {MODELS}")
    p.add_argument("--torch", default=None, help="a Python that imports torch (the peer)")
    p.add_argument("--out", default=None, help="results directory (default benchmarks/results)")
    p.add_argument("--child", nargs=4, metavar=("KIND", "MODEL", "BATCH", "SIZE"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        kind, model, batch, size = args.child
        child = _framework_child if kind == "framework" else _torch_child
        print(json.dumps(child(model, int(batch), int(size))), flush=True)
        return {"ok": True}
    from .common import markdown_table, write_results

    models = [m for m in args.models.split(",") if m]
    unknown = sorted(set(models) - set(MODELS))
    if unknown:
        p.error(f"unknown model(s) {unknown}; choose from {MODELS}")
    rows, notes = run(models, args.quick, torch_python(args.torch))
    cols = ["model", "variant", "batch", "import_s", "first_step_s", "second_step_s", "vs_first_run",
            "vs_pytorch", "compiles", "compile_s", "cache_hits"]
    print(markdown_table(rows, cols))
    for n in notes:
        print("note:", n)
    paths = write_results("startup", rows, cols, {"notes": notes, "load_average": os.getloadavg()},
                          out=args.out, bar_key="first_step_s",
                          label_key="label", title="Seconds from process start to the first training step")
    return {"rows": rows, "notes": notes, "paths": paths}


if __name__ == "__main__":
    main()
