"""The framework's modules and functions one steady-state step of the seed's loop runs through.

``python tools/trace_step.py [ROOT]`` (ROOT: a checkout, default this one) runs five steps of the seed's
loop (LeNet, one device, batch 8), then traces one more with ``sys.setprofile`` and prints every
framework function called (by module, comprehensions included), the named ones in call order, and the
counts. notes/core.md gives the counts before and after the core rework.
"""

from __future__ import annotations

import collections
import importlib
import os
import sys


def main(root: str) -> None:
    sys.path.insert(0, root)
    fw = importlib.import_module("framework")
    autograd, gluon, np, npx = fw.autograd, fw.gluon, fw.np, fw.npx
    nn = gluon.nn
    net = nn.Sequential()
    net.add(nn.Conv2D(channels=6, kernel_size=5, activation="relu"), nn.MaxPool2D(pool_size=2, strides=2),
            nn.Conv2D(channels=16, kernel_size=3, activation="relu"), nn.MaxPool2D(pool_size=2, strides=2),
            nn.Dense(120, activation="relu"), nn.Dense(84, activation="relu"), nn.Dense(10))
    net.collect_params().initialize(force_reinit=True, ctx=[npx.cpu(0)])
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    x, y = np.ones((8, 1, 28, 28)), np.zeros((8,), dtype="int32")

    def step() -> float:
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(8)
        return float(loss.sum())

    for _ in range(5):
        step()
    seen: collections.OrderedDict = collections.OrderedDict()
    prefix = os.path.join(root, "framework")

    def hook(frame, event, arg):  # noqa: ANN001, ANN202 - the sys.setprofile signature
        if event == "call" and frame.f_code.co_filename.startswith(prefix):
            key = (os.path.relpath(frame.f_code.co_filename, root), frame.f_code.co_name)
            seen[key] = seen.get(key, 0) + 1

    sys.setprofile(hook)
    step()
    sys.setprofile(None)
    modules = list(dict.fromkeys(m for m, _ in seen))
    for m in modules:
        print(" ", m, ":", ", ".join(f for mm, f in seen if mm == m))
    named = [(m, f) for m, f in seen if not f.startswith("<")]
    print(f"{len(modules)} modules, {len(named)} named functions ({len(seen)} with comprehensions), "
          f"{sum(seen.values())} calls")
    print("order:", " -> ".join(f"{m.split('/')[-1][:-3]}.{f}" for m, f in named))


if __name__ == "__main__":
    main(os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")))
