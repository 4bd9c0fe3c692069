"""The seed's program as a user runs it: a new process trains LeNet on Fashion-MNIST with
``DataLoader(num_workers=4)`` on one device, epoch after epoch; beside it, in new processes of their
own, the main job's compiled loop (whole-epoch programs) and PyTorch eager (the same LeNet, batch, SGD
and data: in-memory tensors, and a ``torch.utils.data.DataLoader`` with 4 workers).

Reported per variant: the seconds to import, the first epoch (its DataLoader workers, compiles and
first-touch allocations included) and the median of the later epochs, and both as ratios to PyTorch
eager's (in-memory tensors) in the same run. ``--runs N`` repeats the whole set; ``--busy`` adds a run
with a CPU-bound process spinning beside it (another user of the machine).

``python -m benchmarks seed_epochs [--quick] [--epochs 3] [--runs 1] [--busy] [--torch PYTHON]``
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["main"]

COMMON_OPTIONS = ("--quick", "--data-root", "--out", "--torch")
ROOT = Path(__file__).resolve().parents[1]
BATCH, LR = 256, 0.1
_BURNER = "import numpy as n\na = n.ones((300, 300))\nwhile True:\n    a = a @ a * 1e-3 + 1.0\n"


# ------------------------------------------------------------------------------------ children
def _idx(root: str, name: str) -> Any:
    import numpy as onp

    path = Path(root) / name
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as f:
        raw = f.read()
    ndim = raw[3]
    shape = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return onp.frombuffer(raw, onp.uint8, offset=4 + 4 * ndim).reshape(shape)


def _gluon_child(root: str, epochs: int, workers: int, subset: int | None) -> dict[str, Any]:
    t_start = time.time()
    from framework import autograd, gluon, np  # noqa: F401 -- the seed's import line
    from framework.gluon import nn
    t_import = time.time()
    transformer = gluon.data.vision.transforms.Compose([
        gluon.data.vision.transforms.ToTensor(), gluon.data.vision.transforms.Normalize(0.13, 0.31)])
    dataset = gluon.data.vision.datasets.FashionMNIST(root=root, train=True).transform_first(transformer)
    train_data = gluon.data.DataLoader(dataset, BATCH, shuffle=True, num_workers=workers)
    net = nn.Sequential()
    net.add(nn.Conv2D(channels=6, kernel_size=5, activation="relu"), nn.MaxPool2D(pool_size=2, strides=2),
            nn.Conv2D(channels=16, kernel_size=3, activation="relu"), nn.MaxPool2D(pool_size=2, strides=2),
            nn.Dense(120, activation="relu"), nn.Dense(84, activation="relu"), nn.Dense(10))
    net.initialize()
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": LR})
    epoch_s, losses = [], []
    for _ in range(epochs):
        tic = time.time()
        total, n = 0.0, 0
        for data, label in train_data:
            with autograd.record():
                loss = loss_fn(net(data), label)
            loss.backward()
            trainer.step(BATCH)
            total += float(loss.sum())
            n += data.shape[0]
            if subset and n >= subset:
                break
        epoch_s.append(time.time() - tic)
        losses.append(total / n)
    return {"t_start": t_start, "t_import": t_import, "epoch_s": epoch_s, "loss": losses}


def _compiled_child(root: str, epochs: int, workers: int, subset: int | None) -> dict[str, Any]:
    t_start = time.time()
    import jax

    from benchmarks.peers import FrameworkLoop
    from train import data
    t_import = time.time()
    train = data.load(root, True, subset)
    loop = FrameworkLoop(train, train, "compiled", jax.devices()[:1])
    epoch_s, losses = [], []
    for _ in range(epochs):
        tic = time.time()
        losses.append(loop.epoch())
        epoch_s.append(time.time() - tic)
    return {"t_start": t_start, "t_import": t_import, "epoch_s": epoch_s, "loss": losses}


def _torch_child(root: str, epochs: int, workers: int, subset: int | None) -> dict[str, Any]:
    t_start = time.time()
    import numpy as onp
    import torch

    from benchmarks.torch_models import lenet
    t_import = time.time()
    x = ((_idx(root, "train-images-idx3-ubyte.gz").astype(onp.float32) / 255 - 0.13) / 0.31)[:, None]
    y = _idx(root, "train-labels-idx1-ubyte.gz").astype(onp.int64)
    if subset:
        x, y = x[:subset], y[:subset]
    torch.manual_seed(0)
    net = lenet()
    opt = torch.optim.SGD(net.parameters(), lr=LR)
    loss_fn = torch.nn.CrossEntropyLoss(reduction="sum")
    tx, ty = torch.from_numpy(x), torch.from_numpy(y)
    if workers:
        loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(tx, ty), BATCH, shuffle=True,
                                             num_workers=workers)
    epoch_s, losses = [], []
    for _ in range(epochs):
        tic = time.time()
        total = 0.0
        if workers:
            batches = iter(loader)
        else:
            order = torch.randperm(len(tx))
            batches = ((tx[order[i:i + BATCH]], ty[order[i:i + BATCH]]) for i in range(0, len(tx), BATCH))
        for xb, yb in batches:
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(net(xb), yb)
            (loss / BATCH).backward()
            opt.step()
            total += float(loss.detach())
        epoch_s.append(time.time() - tic)
        losses.append(total / len(tx))
    return {"t_start": t_start, "t_import": t_import, "epoch_s": epoch_s, "loss": losses}


CHILDREN = {"gluon": _gluon_child, "compiled": _compiled_child, "torch": _torch_child}


# ------------------------------------------------------------------------------------- parent
def _spawn(python: str, kind: str, root: str, epochs: int, workers: int, subset: int | None,
           env: dict[str, str]) -> dict[str, Any]:
    cmd = [python, "-m", "benchmarks.seed_epochs", "--child", kind, root, str(epochs), str(workers),
           str(subset or 0)]
    t0 = time.time()
    run = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=3600)
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{run.stderr[-3000:]}")
    report = json.loads(run.stdout.strip().splitlines()[-1])
    report["import_s"] = report.pop("t_import") - t0
    report.pop("t_start")
    return report


def _data_root(given: str | None) -> str:
    """The directory holding Fashion-MNIST: ``given``, else the first place the framework searches."""
    if given:
        return given
    from framework.gluon.data.vision import _files

    for _, directory in _files.search_dirs("fashion-mnist"):
        if _files.find_file(directory, "train-images-idx3-ubyte") is not None:
            return str(directory)
    raise SystemExit("seed_epochs: give --data-root DIR (the directory of the Fashion-MNIST .gz files)")


def run_once(root: str, epochs: int, subset: int | None, torch: str | None, label: str,
             home: str) -> list[dict[str, Any]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FRAMEWORK_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["FRAMEWORK_HOME"] = home
    variants = [("framework: the seed's Gluon loop, DataLoader(num_workers=4)", sys.executable, "gluon", 4),
                ("framework: the seed's Gluon loop, num_workers=0", sys.executable, "gluon", 0),
                ("framework: --loop compiled (whole-epoch programs)", sys.executable, "compiled", 0)]
    if torch:
        variants += [("pytorch eager (in-memory tensors)", torch, "torch", 0),
                     ("pytorch eager (DataLoader, num_workers=4)", torch, "torch", 4)]
    rows = []
    for name, python, kind, workers in variants:
        r = _spawn(python, kind, root, epochs, workers, subset, env)
        later = r["epoch_s"][1:]
        rows.append({"run": label, "variant": name, "import_s": r["import_s"],
                     "first_epoch_s": r["epoch_s"][0],
                     "later_epoch_s": statistics.median(later) if later else None,
                     "last_loss": r["loss"][-1]})
    peer = next((r for r in rows if r["variant"].startswith("pytorch eager (in-memory")), None)
    for r in rows:
        if peer:
            r["first_vs_pytorch"] = r["first_epoch_s"] / peer["first_epoch_s"]
            if r["later_epoch_s"] and peer["later_epoch_s"]:
                r["later_vs_pytorch"] = r["later_epoch_s"] / peer["later_epoch_s"]
    return rows


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(prog="python -m benchmarks seed_epochs", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="5,120 samples, 2 epochs (a smoke run)")
    p.add_argument("--epochs", type=int, default=None, help="epochs per process (default 3)")
    p.add_argument("--runs", type=int, default=1, help="repeat the whole set (default 1)")
    p.add_argument("--busy", action="store_true", help="one more run beside a CPU-bound process")
    p.add_argument("--torch", default=None, help="a Python that imports torch (the peer)")
    p.add_argument("--data-root", default=None, help="directory of the Fashion-MNIST .gz files")
    p.add_argument("--out", default=None, help="results directory (default benchmarks/results)")
    p.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        kind, root, epochs, workers, subset = args.child
        out = CHILDREN[kind](root, int(epochs), int(workers), int(subset) or None)
        print(json.dumps(out), flush=True)
        return {"ok": True}
    import tempfile

    from .common import markdown_table, write_results
    from .startup import torch_python

    root = _data_root(args.data_root)
    epochs = args.epochs or (2 if args.quick else 3)
    subset = 5120 if args.quick else None
    torch = torch_python(args.torch)
    rows: list[dict[str, Any]] = []
    loads = []
    with tempfile.TemporaryDirectory(prefix="seed-epochs-") as home:
        busy = ["run beside a busy process"] if args.busy else []
        labels = [f"run {i + 1}" for i in range(args.runs)] + busy
        for label in labels:
            burner = subprocess.Popen([sys.executable, "-c", _BURNER]) if "busy" in label else None
            try:
                loads.append((label, os.getloadavg()[0]))
                rows += run_once(root, epochs, subset, torch, label, home)
            finally:
                if burner is not None:
                    burner.kill()
                    burner.wait()
    cols = ["run", "variant", "import_s", "first_epoch_s", "later_epoch_s", "first_vs_pytorch",
            "later_vs_pytorch", "last_loss"]
    notes = [f"{epochs} epochs per process, batch {BATCH}, SGD {LR}, one CPU device; each variant a new "
             "process (its first epoch includes its DataLoader workers' start and its compiles; the "
             "persistent "
             "compilation cache is shared by the runs, so run 2 and later load the programs run 1 compiled).",
             "x_vs_pytorch = this epoch's seconds / PyTorch eager's (in-memory tensors) in the same run.",
             "load average (1 min) at each run's start: " + ", ".join(f"{k} {v:.1f}" for k, v in loads)]
    if torch is None:
        notes.append("PyTorch is not importable here: no peer (pass --torch /path/to/python-with-torch).")
    print(markdown_table(rows, cols))
    for n in notes:
        print("note:", n)
    for r in rows:
        r["label"] = f"{r['run']}: {r['variant']}"
    paths = write_results("seed_epochs", rows, cols, {"notes": notes}, out=args.out, bar_key="first_epoch_s",
                          label_key="label", title="The seed's program: first and later epochs")
    return {"rows": rows, "notes": notes, "paths": paths}


if __name__ == "__main__":
    main()
