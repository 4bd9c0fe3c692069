"""The main job: train, evaluate, checkpoint every epoch, write ``net.params``, metrics and a plot.

:func:`run` takes a :class:`~train.config.Config` and returns the process exit status: 0 done; 2 the
data cannot be found or read; 3 a checkpoint problem (damaged, mismatched, or present without
``--resume``/``--overwrite``); 4 a non-finite training loss (training stopped, the last good checkpoint
kept). Only process 0 of a multi-process run writes files.
"""

from __future__ import annotations

import math
import os
import sys
import time
from typing import Any

from . import checkpoint as ckpt_mod
from .config import Config
from .metrics import format_row

__all__ = ["run", "EXIT_OK", "EXIT_DATA", "EXIT_CHECKPOINT", "EXIT_NONFINITE"]

# Real MXNet 1.9.1, the seed's settings, one CPU: mean training loss of epochs 1..10 (test accuracy 0.851).
MXNET_LOSSES = (1.559, 0.790, 0.612, 0.511, 0.458, 0.414, 0.384, 0.363, 0.344, 0.331)

EXIT_OK, EXIT_DATA, EXIT_CHECKPOINT, EXIT_NONFINITE = 0, 2, 3, 4


def _say(msg: str, *, err: bool = False) -> None:
    print(msg, file=sys.stderr if err else sys.stdout, flush=True)


def _previous(cfg: Config) -> ckpt_mod.Checkpoint | None:
    """The checkpoint to resume from (None to start afresh); raises CheckpointError when unusable."""
    path = cfg.checkpoint_path
    if not path.exists():
        if cfg.resume:
            _say(f"note: no checkpoint at {path}; starting from epoch 1.")
        return None
    if cfg.overwrite and not cfg.resume:
        _say(f"note: --overwrite: {path} will be replaced at the end of the first epoch.")
        return None
    saved = ckpt_mod.load(path)  # a damaged file stops the job here, whatever the flags
    if not cfg.resume:
        if saved.meta.get("finished"):  # its outputs were written: a new run may replace it
            _say(f"note: the run in {path} had finished; starting a new one (its checkpoint is replaced "
                 "after epoch 1).")
            return None
        raise ckpt_mod.CheckpointError(
            f"an unfinished run's checkpoint (after epoch {saved.epoch}) exists at {path}. Pass --resume to "
            "continue it, --overwrite to start again and replace it, or --out DIR to train elsewhere."
        )
    ckpt_mod.compare_fingerprints(saved.meta.get("fingerprint", {}), cfg.fingerprint(), str(path))
    if saved.meta.get("lr") != cfg.lr:
        _say(f"note: the learning rate changes from {saved.meta.get('lr')} (checkpoint) to {cfg.lr}.")
    return saved


def _device_note(saved: ckpt_mod.Checkpoint, devices: list) -> None:
    before = saved.meta.get("devices") or []
    if len(before) != len(devices):
        _say(f"note: the checkpoint was written training on {len(before)} device(s), this run uses "
             f"{len(devices)}: the same training, with different float rounding.")


def _hang_hook(cfg: Config, epoch: int) -> Any:
    """Testing aid (--_hang-at E:B): stop at a batch, say so, and wait to be killed."""
    if not cfg.hang_at or cfg.hang_at[0] != epoch + 1:
        return None

    def on_batch(b: int) -> None:
        if b + 1 >= cfg.hang_at[1]:
            _say(f"hang point reached: epoch {epoch + 1}, batch {b + 1}")
            while True:
                time.sleep(60)

    return on_batch


def run(cfg: Config, devices: list) -> int:
    """Train as ``cfg`` says on ``devices``; the exit status."""
    import jax
    import numpy as onp

    from framework import np

    from . import data, loops
    from .progress import progress_bar

    writer = jax.process_index() == 0
    if writer:  # temporary files of a checkpoint write that a kill interrupted
        for stale in cfg.out_dir.glob(f".{cfg.checkpoint_path.name}.*.tmp"):
            stale.unlink(missing_ok=True)
    try:
        saved = _previous(cfg)
    except ckpt_mod.CheckpointError as err:
        _say(f"error: {err}", err=True)
        return EXIT_CHECKPOINT
    from framework.gluon.data import vision

    try:
        train = data.load(cfg.data_root, True, cfg.subset)
        test = data.load(cfg.data_root, False, cfg.subset)
    except (vision.DatasetNotFoundError, vision.DataFileError) as err:
        _say(f"error: Fashion-MNIST could not be read. {err}\n(or pass --data-root DIR)", err=True)
        return EXIT_DATA
    loop = loops.build(cfg, devices, train)
    history: list[dict[str, Any]] = []
    start = 0
    if saved is not None:
        try:
            loop.load_state_arrays(saved.arrays)
        except ValueError as err:
            _say(f"error: checkpoint {cfg.checkpoint_path} does not fit this network: {err}", err=True)
            return EXIT_CHECKPOINT
        _device_note(saved, devices)
        np.random.set_state(saved.meta["rng"])
        history = list(saved.meta.get("history", []))
        start = saved.epoch
        _say(f"Resuming {cfg.checkpoint_path} after epoch {start}.")
    names = ", ".join(str(d) for d in devices)
    _say(f"Training LeNet on Fashion-MNIST ({len(train)} train / {len(test)} test) with the {cfg.loop} loop "
         f"on {len(devices)} device(s) [{names}]: batch {cfg.batch_size}, sgd lr {cfg.lr}, "
         f"epochs {start + 1}..{cfg.epochs}")
    for epoch in range(start, cfg.epochs):
        bar = progress_bar(loop.batches, f"epoch {epoch + 1}/{cfg.epochs}", mode=cfg.progress)
        tic = time.perf_counter()
        losses = loop.run_epoch(epoch, bar, _hang_hook(cfg, epoch))
        host = onp.asarray(jax.device_get(losses), onp.float64)
        seconds = time.perf_counter() - tic
        bar.close()
        total = float(host.sum())
        if not math.isfinite(total):
            bad = int(onp.argmax(~onp.isfinite(host))) + 1
            _say(f"error: epoch {epoch + 1}: the training loss became {total} at batch {bad} of "
                 f"{len(host)}. Training stopped; {_kept(cfg, epoch)} is kept unchanged. Lower --lr "
                 f"(now {cfg.lr}) and resume with --resume, or start again with --overwrite.", err=True)
            return EXIT_NONFINITE
        row = {"epoch": epoch + 1, "loss": total / len(train), "test_acc": loop.accuracy(test),
               "seconds": seconds, "samples_per_s": len(train) / seconds}
        history.append(row)
        _say(format_row(row, cfg.epochs))
        if writer:
            meta = {"epoch": epoch + 1, "fingerprint": cfg.fingerprint(), "rng": np.random.get_state(),
                    "data_order": {"scheme": "permutation(fold_in(key(seed), epoch), n)",
                                   "seed": cfg.seed, "next_epoch": epoch + 1, "n": len(train)},
                    "history": history, "lr": cfg.lr, "devices": [str(d) for d in devices],
                    "finished": epoch + 1 >= cfg.epochs}
            ckpt_mod.save(cfg.checkpoint_path, loop.state_arrays(), meta)
    loop.sync()
    if writer:
        _write_outputs(cfg, loop, history, devices)
    return EXIT_OK


def _kept(cfg: Config, epoch: int) -> str:
    if cfg.checkpoint_path.exists() and epoch > 0:
        return f"the last good checkpoint {cfg.checkpoint_path} (after epoch {epoch})"
    return "no checkpoint (none was written before this epoch)"


def _write_outputs(cfg: Config, loop: Any, history: list[dict[str, Any]], devices: list) -> None:
    from . import metrics, plot

    params = os.path.abspath(cfg.params)
    os.makedirs(os.path.dirname(params), exist_ok=True)
    loop.net.save_parameters(params)
    run_info = {**cfg.to_json(), "devices_used": [str(d) for d in devices]}
    metrics.write(cfg.out_dir, history, run_info)
    seed_settings = (cfg.batch_size, cfg.lr, cfg.momentum, cfg.wd, cfg.subset) == (256, 0.1, 0.0, 0.0, None)
    plot.plot_curves(history, cfg.out_dir / "curves.png",
                     title=f"LeNet on Fashion-MNIST ({cfg.loop} loop, {len(devices)} device(s))",
                     reference=MXNET_LOSSES if seed_settings else None,
                     reference_label="MXNet 1.9.1, same settings")
    _say(f"Wrote {cfg.params}, {cfg.out_dir / 'metrics.json'}, {cfg.out_dir / 'metrics.csv'}, "
         f"{cfg.out_dir / 'curves.png'} and {cfg.checkpoint_path}.")
