"""This framework beside its peers, in one run, on the same data and model (the seed's LeNet, batch 256,
SGD 0.1, Fashion-MNIST normalised as the seed does, weights U(-0.07, 0.07), biases 0).

Variants: the main job's compiled loop and the seed's Gluon loop (this framework), a hand-written plain
JAX loop (jitted step, NCHW ``lax.conv``, ``reduce_window`` pooling), PyTorch eager on the CPU (skipped
with a note when ``torch`` is not importable: ``make bench`` installs it), and MXNet 1.9.1's figure on
this kind of machine, quoted with its source. Each variant trains epoch after epoch (warm-up excluded,
repeats interleaved, median reported) and reports its test accuracy after its last epoch; ratios are
against plain JAX and PyTorch measured in the same run.

``python -m benchmarks peers [--quick]``. The PyTorch part needs only torch and numpy.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from typing import Any

import numpy as onp

__all__ = ["main", "PlainJax", "Torch", "FrameworkLoop"]

# The entry point's common options this benchmark takes (python -m benchmarks passes these on).
COMMON_OPTIONS = ("--quick", "--repeats", "--data-root", "--out")

BATCH, LR, SEED = 256, 0.1, 0


def _uniform_init(shapes: dict[str, tuple[int, ...]], seed: int) -> dict[str, onp.ndarray]:
    rng = onp.random.default_rng(seed)
    return {k: (rng.uniform(-0.07, 0.07, s).astype(onp.float32) if k.endswith("weight")
                else onp.zeros(s, onp.float32)) for k, s in shapes.items()}


SHAPES = {"0.weight": (6, 1, 5, 5), "0.bias": (6,), "2.weight": (16, 6, 3, 3), "2.bias": (16,),
          "4.weight": (120, 400), "4.bias": (120,), "5.weight": (84, 120), "5.bias": (84,),
          "6.weight": (10, 84), "6.bias": (10,)}


class PlainJax:
    """A hand-written JAX training loop: what a JAX user would write for the seed's LeNet."""

    name = "plain JAX (jit step)"

    def __init__(self, train: Any, test: Any) -> None:
        import jax
        import jax.numpy as jnp
        from jax import lax

        def pool(x):
            return lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

        def conv(x, w, b):
            y = lax.conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=("NCHW", "OIHW", "NCHW"))
            return jax.nn.relu(y + b[None, :, None, None])

        def forward(p, x):
            x = pool(conv(x, p["0.weight"], p["0.bias"]))
            x = pool(conv(x, p["2.weight"], p["2.bias"]))
            x = x.reshape(x.shape[0], -1)
            x = jax.nn.relu(x @ p["4.weight"].T + p["4.bias"])
            x = jax.nn.relu(x @ p["5.weight"].T + p["5.bias"])
            return x @ p["6.weight"].T + p["6.bias"]

        def step(p, x, y, idx):
            xb, yb = x[idx], y[idx]

            def loss_fn(p):
                logp = jax.nn.log_softmax(forward(p, xb))
                return -jnp.take_along_axis(logp, yb[:, None], axis=1).sum()

            loss, g = jax.value_and_grad(loss_fn)(p)
            return jax.tree_util.tree_map(lambda w, d: w - (LR / BATCH) * d, p, g), loss

        self._step = jax.jit(step, donate_argnums=0)
        self._forward = jax.jit(forward)
        self.params = jax.device_put(_uniform_init(SHAPES, SEED))
        self.x, self.y = jax.device_put(train.x), jax.device_put(train.y)
        self.test = test
        self.n = len(train)
        self.rng = onp.random.default_rng(SEED)

    def epoch(self) -> float:
        import jax

        order = self.rng.permutation(self.n).astype(onp.int32)
        losses = []
        for i in range(0, self.n, BATCH):
            self.params, loss = self._step(self.params, self.x, self.y, order[i:i + BATCH])
            losses.append(loss)
        return float(jax.device_get(sum(losses))) / self.n

    def accuracy(self) -> float:
        logits = onp.concatenate([onp.asarray(self._forward(self.params, self.test.x[i:i + 2000]))
                                  for i in range(0, len(self.test), 2000)])
        return float((logits.argmax(-1) == self.test.y).mean())


class Torch:
    """PyTorch eager on the CPU, the same LeNet, init, data, batch and SGD (needs only torch + numpy)."""

    name = "PyTorch eager (CPU)"

    def __init__(self, train: Any, test: Any) -> None:
        import torch
        from torch import nn

        torch.manual_seed(SEED)
        self.torch = torch
        self.net = nn.Sequential(
            nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Conv2d(6, 16, 3), nn.ReLU(),
            nn.MaxPool2d(2, 2), nn.Flatten(), nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
            nn.Linear(84, 10))
        init = _uniform_init(SHAPES, SEED)
        layers = [m for m in self.net if isinstance(m, (nn.Conv2d, nn.Linear))]
        with torch.no_grad():
            for layer, prefix in zip(layers, ("0", "2", "4", "5", "6"), strict=True):
                layer.weight.copy_(torch.from_numpy(init[f"{prefix}.weight"]))
                layer.bias.copy_(torch.from_numpy(init[f"{prefix}.bias"]))
        self.opt = torch.optim.SGD(self.net.parameters(), lr=LR)
        self.loss = nn.CrossEntropyLoss(reduction="sum")
        self.x, self.y = torch.from_numpy(train.x), torch.from_numpy(train.y.astype(onp.int64))
        self.test = test
        self.gen = torch.Generator().manual_seed(SEED)

    def epoch(self) -> float:
        torch = self.torch
        n = self.x.shape[0]
        order = torch.randperm(n, generator=self.gen)
        total = 0.0
        self.net.train()
        for i in range(0, n, BATCH):
            idx = order[i:i + BATCH]
            self.opt.zero_grad(set_to_none=True)
            loss = self.loss(self.net(self.x[idx]), self.y[idx])
            (loss / BATCH).backward()  # the seed's rescale: 1/batch_size
            self.opt.step()
            total += float(loss.detach())
        return total / n

    def accuracy(self) -> float:
        torch = self.torch
        self.net.eval()
        with torch.no_grad():
            logits = self.net(torch.from_numpy(self.test.x)).numpy()
        return float((logits.argmax(-1) == self.test.y).mean())


class FrameworkLoop:
    """This framework through the main job's own loop classes (``--loop compiled`` or ``gluon``)."""

    def __init__(self, train: Any, test: Any, loop: str, devices: Sequence[Any] | None = None) -> None:
        import jax

        from train.config import Config
        from train.loops import build

        self.name = f"framework --loop {loop}"
        self.cfg = Config(loop=loop, batch_size=BATCH, lr=LR, seed=SEED)
        self.loop = build(self.cfg, list(devices or jax.devices()[:1]), train)
        state = self.loop.state_arrays()  # start from the peers' initial weights
        state.update({f"param/{k}": v for k, v in _uniform_init(SHAPES, SEED).items()})
        self.loop.load_state_arrays(state)
        self.train, self.test, self.e = train, test, 0

    def epoch(self) -> float:
        import jax

        from train.progress import progress_bar

        losses = self.loop.run_epoch(self.e, progress_bar(0, "", mode="off"))
        self.e += 1
        return float(onp.asarray(jax.device_get(losses), onp.float64).sum()) / len(self.train)

    def accuracy(self) -> float:
        return self.loop.accuracy(self.test)


def _variants(train: Any, test: Any, notes: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for make in (lambda: FrameworkLoop(train, test, "compiled"), lambda: FrameworkLoop(train, test, "gluon"),
                 lambda: PlainJax(train, test), lambda: Torch(train, test)):
        try:
            v = make()
        except ImportError as err:
            notes.append(f"skipped a variant: {err} (PyTorch: `make bench` installs torch==2.13.0).")
            continue
        out[v.name] = v
    return out


def run(train: Any, test: Any, repeats: int, warmup: int = 1) -> tuple[list[dict[str, Any]], list[str]]:
    """Time every variant; the table rows and notes."""
    from .common import MXNET_EPOCH_S, MXNET_SOURCE, interleaved, median

    notes: list[str] = []
    variants = _variants(train, test, notes)
    losses: dict[str, float] = {}
    for name, v in variants.items():
        for _ in range(warmup):
            losses[name] = v.epoch()
    times = interleaved({name: (lambda v=v, name=name: losses.__setitem__(name, v.epoch()))
                         for name, v in variants.items()}, repeats)
    rows = []
    for name, v in variants.items():
        s = median(times[name])
        rows.append({"variant": name, "s_per_epoch": s, "samples_per_s": len(train) / s,
                     "last_loss": losses[name], "test_acc": v.accuracy(), "epochs": warmup + repeats})
    scale = 60000 / len(train)
    mx = sum(MXNET_EPOCH_S) / 2 / scale
    rows.append({"variant": "MXNet 1.9.1 hybridized (quoted)", "s_per_epoch": mx,
                 "samples_per_s": len(train) / mx, "last_loss": None, "test_acc": None, "epochs": None})
    notes.append(MXNET_SOURCE + (f" Scaled to {len(train)} samples." if scale != 1 else ""))
    base = {r["variant"]: r["s_per_epoch"] for r in rows}
    for r in rows:
        for peer, col in (("plain JAX (jit step)", "vs_plain_jax"), ("PyTorch eager (CPU)", "vs_pytorch"),
                          ("MXNet 1.9.1 hybridized (quoted)", "vs_mxnet")):
            r[col] = r["s_per_epoch"] / base[peer] if peer in base else None
    notes.append("vs_* = seconds per epoch divided by the peer's (below 1 is faster than the peer).")
    return rows, notes


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """``python -m benchmarks peers``: run, print and write the comparison; the result document."""
    from .common import load_data, write_results

    p = argparse.ArgumentParser(prog="python -m benchmarks peers", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="a fraction of an epoch, one repeat (smoke test)")
    p.add_argument("--repeats", type=int, default=None, help="timed epochs per variant (default 3)")
    p.add_argument("--data-root", default=None, help="directory of the Fashion-MNIST .gz files")
    p.add_argument("--out", default=None, help="results directory (default benchmarks/results)")
    args = p.parse_args(argv)
    subset = 1024 if args.quick else None
    repeats = args.repeats or (1 if args.quick else 3)
    train, test = load_data(args.data_root, subset)
    rows, notes = run(train, test, repeats)
    cols = ["variant", "s_per_epoch", "samples_per_s", "test_acc", "vs_plain_jax", "vs_pytorch", "vs_mxnet"]
    info = {"settings": {"batch_size": BATCH, "lr": LR, "train_samples": len(train), "repeats": repeats,
                         "quick": args.quick}, "notes": notes}
    paths = write_results("peers", rows, cols, info, out=args.out,
                          title="LeNet / Fashion-MNIST: seconds per epoch beside peers")
    from .common import markdown_table

    print(markdown_table(rows, cols))
    for n in notes:
        print("note:", n)
    return {"rows": rows, "notes": notes, "paths": paths, "ok": accuracy_ok(rows, args.quick)}


def accuracy_ok(rows: Sequence[dict[str, Any]], quick: bool) -> bool:
    """A fast-but-wrong variant is caught: each measured variant's test accuracy must be finite, within
    0.15 of the best one's (they start from the same weights), and at least 0.7 after full epochs."""
    accs = [r["test_acc"] for r in rows if r.get("test_acc") is not None]
    if not accs or not all(math.isfinite(a) for a in accs):
        return False
    best = max(accs)
    return all(a >= best - 0.15 and (quick or a >= 0.7) for a in accs)
