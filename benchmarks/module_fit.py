"""``Module.fit`` of the symbolic LeNet (MXNet's image-classification example's layout: two 5x5
convolutions with tanh and max pooling, a 500-unit layer, ``SoftmaxOutput``) on Fashion-MNIST, beside
MXNet 1.9.1 running the same code on the same data, batch order and initial parameters, one after the
other on this machine: seconds per epoch (the ``Time cost`` that ``fit`` logs) and the validation
accuracy after each epoch. The machine's load average is reported with the numbers.

``python -m benchmarks module_fit [--quick] [--data-root DIR] [--epochs N] [--mxnet PYTHON]``; the
MXNet side (``--mxnet``, default ``/tmp/mx/bin/python``) runs this file as a script with
``--mxnet-side IN.npz OUT.json`` and needs only MXNet and NumPy. The run fails (exit status 1) when
either side's accuracy is below 0.5, or ours is more than a point below MXNet's.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as onp

COMMON_OPTIONS = ("--quick", "--data-root", "--out")
BATCH, SEED = 64, 3
OPT = {"learning_rate": 0.05, "momentum": 0.9, "wd": 1e-4}
ROOT = Path(__file__).resolve().parents[1]


def lenet(mx):
    """The symbolic LeNet, automatic names (convolution0, ..., fullyconnected1, softmax)."""
    with mx.name.NameManager():
        x = mx.sym.var("data")
        for channels in (20, 50):
            x = mx.sym.Convolution(x, kernel=(5, 5), num_filter=channels)
            x = mx.sym.Activation(x, act_type="tanh")
            x = mx.sym.Pooling(x, pool_type="max", kernel=(2, 2), stride=(2, 2))
        x = mx.sym.Activation(mx.sym.FullyConnected(mx.sym.Flatten(x), num_hidden=500), act_type="tanh")
        return mx.sym.SoftmaxOutput(mx.sym.FullyConnected(x, num_hidden=10), name="softmax")


def initial_params(shapes: dict[str, tuple[int, ...]]) -> dict[str, onp.ndarray]:
    """Xavier-uniform weights (fan in + fan out), zero biases, drawn in name order."""
    rs = onp.random.RandomState(SEED)
    out = {}
    for name in sorted(shapes):
        shape = shapes[name]
        if name.endswith("weight"):
            fan_in, fan_out = onp.prod(shape[1:]), shape[0] * onp.prod(shape[2:])
            bound = onp.sqrt(6.0 / (fan_in + fan_out))
            out[name] = rs.uniform(-bound, bound, shape).astype(onp.float32)
        else:
            out[name] = onp.zeros(shape, onp.float32)
    return out


class _Times(logging.Handler):
    """Collects the ``Time cost`` and ``Validation-accuracy`` lines ``fit`` logs."""

    def __init__(self) -> None:
        super().__init__()
        self.seconds: list[float] = []
        self.val_acc: list[float] = []

    def emit(self, record: logging.LogRecord) -> None:
        msg = record.getMessage()
        if "Time cost=" in msg:
            self.seconds.append(float(msg.rsplit("=", 1)[1]))
        elif "Validation-accuracy=" in msg:
            self.val_acc.append(float(msg.rsplit("=", 1)[1]))


def run_fit(mx, data: dict, epochs: int) -> dict:
    """Train with ``mx`` (MXNet or this framework) and return the logged times and accuracies."""
    sym = lenet(mx)
    arg = {k[4:]: v for k, v in data.items() if k.startswith("arg:")}
    if mx.__name__ == "mxnet":
        arg = {k: mx.nd.array(v) for k, v in arg.items()}
    logger = logging.getLogger(f"module_fit.{mx.__name__}")
    logger.setLevel(logging.INFO)
    logger.propagate = False
    times = _Times()
    logger.addHandler(times)
    train = mx.io.NDArrayIter(data["x"], data["y"], BATCH, shuffle=False)
    val = mx.io.NDArrayIter(data["xv"], data["yv"], BATCH)
    mod = mx.mod.Module(sym, context=mx.cpu(), logger=logger)
    tic = time.perf_counter()
    mod.fit(train, eval_data=val, eval_metric="acc", optimizer="sgd", optimizer_params=OPT, arg_params=arg,
            num_epoch=epochs)
    return {"seconds_per_epoch": times.seconds, "val_acc": times.val_acc,
            "wall_s": time.perf_counter() - tic, "load_avg": os.getloadavg()}


def mxnet_side(inp: str, out: str) -> None:
    import mxnet as mx

    with onp.load(inp) as f:
        data = {k: f[k] for k in f.files}
    result = run_fit(mx, data, int(data["epochs"]))
    result["mxnet"] = mx.__version__
    Path(out).write_text(json.dumps(result))


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(prog="python -m benchmarks module_fit", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="6,400 training and 1,000 test images, one epoch")
    p.add_argument("--data-root", default=None)
    p.add_argument("--out", default=None)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--mxnet", default=os.environ.get("MXNET_PYTHON", "/tmp/mx/bin/python"))
    args = p.parse_args(argv)
    import framework as mx

    from .common import load_data, machine, markdown_table, write_results

    train, test = load_data(args.data_root, None)
    n, nv, epochs = (6400, 1000, 1) if args.quick else (len(train.x), len(test.x), args.epochs)
    net = lenet(mx)
    shapes = dict(zip(net.list_arguments(), net.infer_shape(data=(BATCH, 1, 28, 28))[0], strict=True))
    params = initial_params({k: v for k, v in shapes.items() if k not in ("data", "softmax_label")})
    data = {"x": onp.asarray(train.x[:n], onp.float32), "y": onp.asarray(train.y[:n], onp.float32),
            "xv": onp.asarray(test.x[:nv], onp.float32), "yv": onp.asarray(test.y[:nv], onp.float32),
            "epochs": onp.asarray(epochs), **{f"arg:{k}": v for k, v in params.items()}}
    ours = run_fit(mx, data, epochs)
    theirs = None
    if os.path.exists(args.mxnet):
        with tempfile.TemporaryDirectory() as tmp:
            onp.savez(os.path.join(tmp, "in.npz"), **data)
            subprocess.run([args.mxnet, str(Path(__file__)), "--mxnet-side", os.path.join(tmp, "in.npz"),
                            os.path.join(tmp, "out.json")], check=True, timeout=3600, cwd=ROOT,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            theirs = json.loads(Path(tmp, "out.json").read_text())
    rows = [{"variant": "framework Module.fit", **_row(ours)}]
    if theirs is not None:
        rows.append({"variant": f"MXNet {theirs['mxnet']} Module.fit", **_row(theirs)})
    cols = ["variant", "epoch_s", "val_acc", "load_avg"]
    print(markdown_table(rows, cols))
    ok = ours["val_acc"][-1] > 0.5 and (theirs is None or (
        theirs["val_acc"][-1] > 0.5 and ours["val_acc"][-1] >= theirs["val_acc"][-1] - 0.01))
    result = {"rows": rows, "ours": ours, "mxnet": theirs, "machine": machine(), "ok": ok,
              "train_images": n, "test_images": nv, "epochs": epochs}
    notes = [f"load average during our run {ours['load_avg'][0]:.1f}"
             + (f", during MXNet's {theirs['load_avg'][0]:.1f}" if theirs else "")
             + f" ({os.cpu_count()} cores); {n} training and {nv} test images, batch {BATCH}, SGD {OPT}"]
    write_results("module_fit", rows, cols, {"ours": ours, "mxnet": theirs, "notes": notes, "ok": ok},
                  out=Path(args.out) if args.out else None, bar_key="epoch_s_last",
                  title="Module.fit, symbolic LeNet, Fashion-MNIST")
    return result


def _row(r: dict) -> dict:
    return {"epoch_s_last": r["seconds_per_epoch"][-1],
            "epoch_s": " / ".join(f"{s:.2f}" for s in r["seconds_per_epoch"]),
            "val_acc": " / ".join(f"{a:.4f}" for a in r["val_acc"]),
            "load_avg": f"{r['load_avg'][0]:.1f}"}


if __name__ == "__main__":
    if sys.argv[1:2] == ["--mxnet-side"]:
        mxnet_side(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit(0 if main().get("ok") else 1)
