"""Reference numbers for MXNet's per-parameter optimizer API and scheduler-driven learning rates, from
real MXNet 1.9.1 (run in the MXNet side venv).

    /tmp/mx/bin/python tools/mxnet_reference/gen_optimizer_api.py

Writes ``tests/reference/optimizer_api/optimizer_api.npz`` (read by ``tests/test_optimizer_api.py``).
"""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("MXNET_STORAGE_FALLBACK_LOG_VERBOSE", "0")

import mxnet as mx  # noqa: E402
import numpy as np  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "tests" / "reference" / "optimizer_api" / "optimizer_api.npz"


def grads(seed, n, shape):
    return np.random.RandomState(seed).uniform(-2, 2, (n,) + shape).astype(np.float32)


def main() -> None:
    out: dict[str, np.ndarray] = {}
    w0 = np.random.RandomState(0).uniform(-1, 1, (3, 2)).astype(np.float32)
    out["w0"] = w0
    out["g"] = g = grads(1, 4, (3, 2))
    # SGD with momentum, wd, rescale and clipping: create_state/update, four updates of index 0
    opt = mx.optimizer.create(
        "sgd", learning_rate=0.1, momentum=0.9, wd=0.01, rescale_grad=0.5, clip_gradient=0.8
    )
    w = mx.nd.array(w0)
    st = opt.create_state(0, w)
    for i in range(4):
        opt.update(0, w, mx.nd.array(g[i]), st)
        out[f"sgd_w{i}"] = w.asnumpy()
    # Adam, two indices interleaved (per-index step counts), lr_mult on index 1
    opt = mx.optimizer.create("adam", learning_rate=0.01)
    opt.set_lr_mult({1: 0.5})
    ws = [mx.nd.array(w0), mx.nd.array(w0 * 2)]
    sts = [opt.create_state(i, ws[i]) for i in range(2)]
    for i, idx in enumerate([0, 1, 0, 0]):
        opt.update(idx, ws[idx], mx.nd.array(g[i]), sts[idx])
    out["adam_w0"], out["adam_w1"] = ws[0].asnumpy(), ws[1].asnumpy()
    # a scheduler's base_lr drives the learning rate when none is given (issue 18 item 2)
    opt = mx.optimizer.Optimizer(lr_scheduler=mx.lr_scheduler.FactorScheduler(step=1, base_lr=1024))
    out["sched_lr_default"] = np.float32(opt.learning_rate)
    opt = mx.optimizer.create(
        "sgd", lr_scheduler=mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.5)
    )
    w = mx.nd.array(w0)
    st = opt.create_state(0, w)
    lrs = []
    for i in range(4):
        opt.update(0, w, mx.nd.array(g[i]), st)
        lrs.append(opt.learning_rate)
    out["sched_sgd_w"], out["sched_sgd_lrs"] = w.asnumpy(), np.float32(lrs)
    out["sgd_default_lr"] = np.float32(mx.optimizer.SGD().learning_rate)
    # Updater
    upd = mx.optimizer.get_updater(mx.optimizer.create("sgd", learning_rate=0.2, momentum=0.5))
    w = mx.nd.array(w0)
    for i in range(3):
        upd(7, mx.nd.array(g[i]), w)
    out["updater_w"] = w.asnumpy()
    # multi-precision SGD on a float16 weight
    opt = mx.optimizer.create("sgd", learning_rate=0.1, momentum=0.9, multi_precision=True)
    w = mx.nd.array(w0, dtype="float16")
    st = opt.create_state_multi_precision(0, w)
    for i in range(3):
        opt.update_multi_precision(0, w, mx.nd.array(g[i], dtype="float16"), st)
    out["mp_w"] = w.asnumpy()
    # Trainer driven by a scheduler given in optimizer_params, no learning_rate
    net = mx.gluon.nn.Dense(3, in_units=2)
    net.initialize()
    net.weight.set_data(mx.nd.array(w0))
    net.bias.set_data(mx.nd.zeros(3))
    trainer = mx.gluon.Trainer(
        net.collect_params(),
        "sgd",
        {"lr_scheduler": mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.5)},
    )
    out["x"] = x = np.random.RandomState(3).uniform(-1, 1, (4, 4, 2)).astype(np.float32)
    tlrs = []
    for i in range(4):
        with mx.autograd.record():
            loss = (net(mx.nd.array(x[i])) ** 2).sum()
        loss.backward()
        trainer.step(4)
        tlrs.append(trainer.learning_rate)
    out["trainer_w"], out["trainer_b"] = net.weight.data().asnumpy(), net.bias.data().asnumpy()
    out["trainer_lrs"] = np.float32(tlrs)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez(OUT, **out)
    print(f"{len(out)} arrays -> {OUT}")


if __name__ == "__main__":
    main()
