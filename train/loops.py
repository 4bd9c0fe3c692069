"""The two training paths of the main job, behind one small interface.

:class:`CompiledLoop` is the default: :class:`framework.parallel.DataParallel` runs each epoch as ONE
XLA program over device-resident data (forward, backward, ``psum``, SGD, shuffled on the device).
:class:`GluonLoop` is the seed's own loop: ``split_and_load``, ``autograd.record``, ``backward`` per
device, ``trainer.step(batch_size)``. Both draw the epoch order from the same key and rescale every
step by ``1/batch_size`` as the seed does, so they give the same numbers within float tolerance.

Each loop exposes ``run_epoch(epoch, bar) -> per-batch summed losses`` (a device array, no host sync),
``accuracy(split)``, ``state_arrays()`` / ``load_state_arrays(arrays)`` (``param/<name>``,
``opt/<path>``, ``num_update``: the checkpoint's content) and ``sync()`` (trained values into ``net``).
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable
from typing import Any

import numpy as onp

from .data import Split, epoch_key, epoch_order

__all__ = ["CompiledLoop", "GluonLoop", "build"]


def _build_net(seed: int, devices: list, hybridize: bool) -> Any:
    from framework import np

    from .lenet import lenet

    np.random.seed(seed)
    net = lenet()
    net.initialize(ctx=devices)
    if hybridize:  # before the first call: one compile of the whole net instead of one per layer
        net.hybridize()
    net(np.zeros((1, 1, 28, 28), device=devices[0]))  # fixes the deferred shapes
    return net


def _trainer(net: Any, cfg: Any) -> Any:
    from framework import gluon

    opts = {"learning_rate": cfg.lr}
    if cfg.momentum:
        opts["momentum"] = cfg.momentum
    if cfg.wd:
        opts["wd"] = cfg.wd
    return gluon.Trainer(net.collect_params(), "sgd", opts)


def _count_correct(logits: Any, labels: Any) -> Any:
    import jax.numpy as jnp

    return jnp.sum(jnp.argmax(logits, axis=-1).astype(jnp.int32) == labels)


class CompiledLoop:
    """Training through :class:`framework.parallel.DataParallel` (``--loop compiled``)."""

    def __init__(self, cfg: Any, devices: list, train: Split) -> None:
        import jax

        from framework import gluon, parallel

        self.cfg, self.devices, self.train = cfg, devices, train
        local = [d for d in devices if d.process_index == jax.process_index()] or devices
        self.net = _build_net(cfg.seed, local[:1], cfg.hybridize)
        self.trainer = _trainer(self.net, cfg)
        self.step = parallel.DataParallel(self.net, gluon.loss.SoftmaxCrossEntropyLoss(), self.trainer,
                                          devices=devices)
        self.batches = math.ceil(len(train) / cfg.batch_size)

    def run_epoch(self, epoch: int, bar: Any, on_batch: Callable[[int], None] | None = None) -> Any:
        losses = self.step.epoch(self.train.x, self.train.y, self.cfg.batch_size,
                                 epoch_key(self.cfg.seed, epoch))
        bar.update(self.batches)
        if on_batch is not None:  # one program per epoch: its batches are all done here
            on_batch(self.batches - 1)
        return losses

    def accuracy(self, split: Split) -> float:
        import jax.numpy as jnp

        logits = self.step.predict(split.x, batch_size=2000)
        return float(_count_correct(logits, jnp.asarray(split.y))) / len(split)

    def state_arrays(self) -> dict[str, onp.ndarray]:
        return dict(self.step.state_dict())

    def load_state_arrays(self, arrays: dict[str, onp.ndarray]) -> None:
        self.step.load_state_dict(arrays)

    def sync(self) -> None:
        self.step.sync()


class GluonLoop:
    """The seed's training loop (``--loop gluon``), one process, over ``devices``."""

    def __init__(self, cfg: Any, devices: list, train: Split) -> None:
        from framework import gluon

        self.cfg, self.devices, self.train = cfg, devices, train
        self.net = _build_net(cfg.seed, devices, cfg.hybridize)
        self.trainer = _trainer(self.net, cfg)
        self.loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
        self.batches = math.ceil(len(train) / cfg.batch_size)

    def run_epoch(self, epoch: int, bar: Any, on_batch: Callable[[int], None] | None = None) -> Any:
        import jax
        import jax.numpy as jnp

        from framework import autograd, gluon

        bs, devices = self.cfg.batch_size, self.devices
        order = epoch_order(self.cfg.seed, epoch, len(self.train))
        sums = []
        for b in range(self.batches):
            idx = order[b * bs:(b + 1) * bs]
            data_list = gluon.utils.split_and_load(self.train.x[idx], devices, even_split=False)
            label_list = gluon.utils.split_and_load(self.train.y[idx], devices, even_split=False)
            with autograd.record():
                losses = [self.loss_fn(self.net(X), y) for X, y in zip(data_list, label_list, strict=True)]
            for loss in losses:
                loss.backward()
            self.trainer.step(bs)  # the seed's rescale: 1/batch_size, also for the short last batch
            sums.extend(jax.device_put(jnp.sum(_value(loss)), devices[0]) for loss in losses)
            bar.update(1)
            if on_batch is not None:
                on_batch(b)
        per_device = len(devices)
        stacked = jnp.stack(sums).reshape(self.batches, per_device) if sums else jnp.zeros((0, 1))
        return stacked.sum(axis=1)

    def accuracy(self, split: Split) -> float:
        import jax
        import jax.numpy as jnp

        correct = 0
        for i in range(0, len(split), 2000):
            x = jax.device_put(split.x[i:i + 2000], self.devices[0])
            correct = correct + _count_correct(_value(self.net(x)), jnp.asarray(split.y[i:i + 2000]))
        return float(correct) / len(split)

    def state_arrays(self) -> dict[str, onp.ndarray]:
        from framework import serialization

        out = {f"param/{n}": onp.asarray(p.list_data()[0]) for n, p in self.net.collect_params().items()}
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "trainer.states")
            self.trainer.save_states(path)
            states = serialization.load_numpy(path)
        meta = states.pop("__meta__")
        import json

        out["num_update"] = onp.asarray(json.loads(bytes(meta).decode())["num_update"], onp.int64)
        out["opt_meta"] = onp.asarray(meta)  # the Trainer's own metadata, its digest included
        out.update({f"opt/{k}": v for k, v in states.items()})
        return out

    def load_state_arrays(self, arrays: dict[str, onp.ndarray]) -> None:
        import json

        from framework import serialization

        params = self.net.collect_params()
        for name, p in params.items():
            key = f"param/{name}"
            if key not in arrays:
                raise ValueError(f"the checkpoint has no {key!r} (saved for another network?).")
            p.set_data(arrays[key])
        opt = {k[len("opt/"):]: v for k, v in arrays.items() if k.startswith("opt/")}
        meta = {"num_update": int(arrays.get("num_update", 0)), "learning_rate": self.cfg.lr,
                "optimizer": "SGD"}
        saved = arrays.get("opt_meta")  # absent from checkpoints written before it was kept
        opt["__meta__"] = saved if saved is not None else onp.frombuffer(json.dumps(meta).encode(), onp.uint8)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "trainer.states")
            serialization.save(path, opt)
            self.trainer.load_states(path)

    def sync(self) -> None:
        pass


def _value(x: Any) -> Any:
    """The plain array behind a value recorded by autograd."""
    from framework.autograd import tape

    return tape.values_of(x)


def build(cfg: Any, devices: list, train: Split) -> CompiledLoop | GluonLoop:
    """The loop ``cfg.loop`` names."""
    return CompiledLoop(cfg, devices, train) if cfg.loop == "compiled" else GluonLoop(cfg, devices, train)
