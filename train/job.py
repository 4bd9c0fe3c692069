"""The main job: train, evaluate, checkpoint every epoch, write ``net.params``, metrics and a plot.

:func:`run` takes a :class:`~train.config.Config` and returns the process exit status (the table of
:data:`EXIT_STATUSES`, also in ``--help`` and the README). Before the first epoch it checks every output
path, locks ``--out`` against a second run, checks the checkpoint (and, across processes, that every
process resumes from the same one) and the data. Only process 0 of a multi-process run writes files.

>>> EXIT_STATUSES[EXIT_LOCKED]
'another run holds --out (OUT/train.lock names its pid); nothing was changed'
"""

from __future__ import annotations

import math
import os
import sys
import time
from typing import Any

from . import checkpoint as ckpt_mod
from . import faultpoints, outputs
from .config import Config
from .metrics import format_row
from .multihost import EXIT_MULTIHOST

__all__ = ["run", "EXIT_OK", "EXIT_ERROR", "EXIT_DATA", "EXIT_CHECKPOINT", "EXIT_NONFINITE", "EXIT_LOCKED",
           "EXIT_MULTIHOST", "EXIT_INTERRUPTED", "EXIT_STATUSES"]

# Real MXNet 1.9.1, the seed's settings, one CPU: mean training loss of epochs 1..10 (test accuracy 0.851).
MXNET_LOSSES = (1.559, 0.790, 0.612, 0.511, 0.458, 0.414, 0.384, 0.363, 0.344, 0.331)

EXIT_OK, EXIT_ERROR, EXIT_DATA, EXIT_CHECKPOINT, EXIT_NONFINITE, EXIT_LOCKED = 0, 1, 2, 3, 4, 5
EXIT_INTERRUPTED = 130

EXIT_STATUSES = {
    EXIT_OK: "done: net.params, metrics and the plot are written",
    EXIT_ERROR: "an unexpected error (a bug: the traceback is printed); the last checkpoint is kept",
    EXIT_DATA: "bad arguments, an output path that cannot be written, or data that cannot be found or read "
               "(an explicit --data-root without the files, a damaged or oversized file)",
    EXIT_CHECKPOINT: "checkpoint problem: damaged, invalid metadata, made with other settings, an unfinished "
                     "run's without --resume/--overwrite, or processes that would resume from different "
                     "checkpoints; the file is never changed",
    EXIT_NONFINITE: "the training loss became non-finite: training stopped, the last good checkpoint is kept",
    EXIT_LOCKED: "another run holds --out (OUT/train.lock names its pid); nothing was changed",
    EXIT_MULTIHOST: "multi-process run failed: the coordinator cannot be reached, not every process joined "
                    "within --join-timeout, or a process was lost (named in the message)",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C, SIGINT): the last checkpoint is kept; continue with --resume",
}
"""Every exit status ``python -m train`` chooses, and what it means (the README's table says the same).
Signals end it with 128 + the signal: 137 (SIGKILL: out of memory, or killed; the checkpoint is intact,
continue with --resume) and 134 (SIGABRT from XLA's C++ runtime, which Python cannot catch: a peer
lost inside JAX's own start-up handshake, or process 0, the coordination service's host, lost)."""


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
        if saved.meta["finished"]:  # its outputs were written: a new run may replace it
            _say(f"note: the run in {path} had finished; starting a new one (its checkpoint is replaced "
                 "after epoch 1).")
            return None
        raise ckpt_mod.CheckpointError(
            f"an unfinished run's checkpoint (after epoch {saved.epoch}) exists at {path}. Pass --resume to "
            "continue it, --overwrite to start again and replace it, or --out DIR to train elsewhere."
        )
    ckpt_mod.compare_fingerprints(saved.meta["fingerprint"], cfg.fingerprint(), str(path))
    if saved.epoch > cfg.epochs:
        raise ckpt_mod.CheckpointError(
            f"{path} was written after epoch {saved.epoch}, past --epochs {cfg.epochs}: resuming would train "
            f"nothing. Pass --epochs N with N > {saved.epoch} to train on, --overwrite to start again, or "
            "--out DIR to train elsewhere; the checkpoint is not changed.")
    if saved.meta["lr"] != cfg.lr:
        _say(f"note: the learning rate changes from {saved.meta['lr']} (checkpoint) to {cfg.lr}.")
    return saved


def _agree(cfg: Config, session: Any, saved: ckpt_mod.Checkpoint | None, error: str | None) -> None:
    """Every process must start from the same point: raise CheckpointError naming what each one has."""
    if saved is not None:
        mine = {"epoch": saved.epoch, "digest": saved.digest, "path": str(cfg.checkpoint_path)}
    else:
        mine = {"epoch": 0, "digest": None, "path": str(cfg.checkpoint_path)}
    if error is not None:
        mine["error"] = error.splitlines()[0][:300]
    everyone = session.agree(mine, timeout=max(30.0, cfg.join_timeout))

    def show(rank: int, r: dict[str, Any]) -> str:
        if r.get("error"):
            return f"process {rank}: cannot use its checkpoint ({r['error']})"
        if r.get("digest"):
            return (f"process {rank}: resumes after epoch {r['epoch']} from {r['path']} "
                    f"(digest {r['digest'][:12]})")
        return f"process {rank}: starts at epoch 1 (no checkpoint used at {r['path']})"

    points = {(r.get("epoch"), r.get("digest"), bool(r.get("error"))) for r in everyone}
    if len(points) > 1 or any(r.get("error") for r in everyone):
        lines = "\n  ".join(show(i, r) for i, r in enumerate(everyone))
        raise ckpt_mod.CheckpointError(
            f"the {len(everyone)} processes do not agree on where to start:\n  {lines}\nEvery process must "
            "read the same checkpoint: use one --out on a shared filesystem, or copy process 0's "
            "OUT/checkpoint.params into every process's --out; or start all afresh with --overwrite.")


def _device_note(saved: ckpt_mod.Checkpoint, devices: list) -> None:
    before = saved.meta["devices"]
    if len(before) != len(devices):
        _say(f"note: the checkpoint was written training on {len(before)} device(s), this run uses "
             f"{len(devices)}: the same training, with different float rounding.")


def _hang_hook(cfg: Config, epoch: int) -> Any:
    """Testing aids: --_hang-at E:B stops at a batch and waits to be killed; kill points ``batchB``."""
    hang = cfg.hang_at if cfg.hang_at and cfg.hang_at[0] == epoch + 1 else None

    def on_batch(b: int) -> None:
        faultpoints.reached(f"batch{b + 1}")
        if hang and b + 1 >= hang[1]:
            _say(f"hang point reached: epoch {epoch + 1}, batch {b + 1}")
            while True:  # short naps: a signal that the kernel hands to another thread (JAX's, the
                time.sleep(0.1)  # loader's) is run by the main thread only when its sleep returns

    return on_batch


def _prepare_outputs(cfg: Config) -> outputs.RunLock:
    """Check the output paths, create --out, lock it, and remove an interrupted write's temporary files."""
    outputs.check_paths(cfg.out, cfg.params)
    lock = outputs.RunLock(cfg.out)
    lock.acquire()
    for stale in ckpt_mod.temporary_files(cfg.checkpoint_path):
        os.unlink(stale)
    return lock


def run(cfg: Config, devices: list, session: Any = None) -> int:
    """Train as ``cfg`` says on ``devices``; the exit status (``session``: the multi-process run)."""
    import jax

    writer = jax.process_index() == 0
    lock = None
    try:
        if writer:
            lock = _prepare_outputs(cfg)
        return _run(cfg, devices, session, writer)
    except outputs.OutputPathError as err:
        _say(f"error: {err}", err=True)
        return EXIT_DATA
    except outputs.LockedError as err:
        _say(f"error: {err}", err=True)
        return EXIT_LOCKED
    finally:
        if lock is not None:
            lock.release()


def _run(cfg: Config, devices: list, session: Any, writer: bool) -> int:
    import jax
    import numpy as onp

    from framework import np

    from . import data, loops
    from .progress import progress_bar

    saved, problem = None, None
    try:
        saved = _previous(cfg)
    except ckpt_mod.CheckpointError as err:
        problem = str(err)
    if session is not None:
        try:
            _agree(cfg, session, saved, problem)
        except ckpt_mod.CheckpointError as err:
            problem = str(err)
    if problem is not None:
        _say(f"error: {problem}", err=True)
        return EXIT_CHECKPOINT
    from framework.gluon.data import vision

    try:
        data.check_root(cfg.data_root)
        train = data.load(cfg.data_root, True, cfg.subset)
        test = data.load(cfg.data_root, False, cfg.subset)
    except data.DataRootError as err:
        _say(f"error: {err}", err=True)
        return EXIT_DATA
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
        history = list(saved.meta["history"])
        start = saved.epoch
        _say(f"Resuming {cfg.checkpoint_path} after epoch {start}.")
    names = ", ".join(str(d) for d in devices)
    _say(f"Training LeNet on Fashion-MNIST ({len(train)} train / {len(test)} test) with the {cfg.loop} loop "
         f"on {len(devices)} device(s) [{names}]: batch {cfg.batch_size}, sgd lr {cfg.lr}, "
         f"epochs {start + 1}..{cfg.epochs}")
    for epoch in range(start, cfg.epochs):
        faultpoints.at_epoch(epoch + 1)
        bar = progress_bar(loop.batches, f"epoch {epoch + 1}/{cfg.epochs}", mode=cfg.progress)
        tic = time.perf_counter()
        try:
            losses = loop.run_epoch(epoch, bar, _hang_hook(cfg, epoch))
            host = onp.asarray(jax.device_get(losses), onp.float64)
            seconds = time.perf_counter() - tic
            accuracy = loop.accuracy(test)
        except Exception as err:  # a collective whose peer is gone fails here (gloo: connection reset)
            if session is None:
                raise
            _say(session.lost_peer(err), err=True)
            return EXIT_MULTIHOST
        bar.close()
        faultpoints.reached("trained")
        total = float(host.sum())
        if not math.isfinite(total):
            bad = int(onp.argmax(~onp.isfinite(host))) + 1
            _say(f"error: epoch {epoch + 1}: the training loss became {total} at batch {bad} of "
                 f"{len(host)}. Training stopped; {_kept(cfg, epoch)} is kept unchanged. Lower --lr "
                 f"(now {cfg.lr}) and resume with --resume, or start again with --overwrite.", err=True)
            return EXIT_NONFINITE
        row = {"epoch": epoch + 1, "loss": total / len(train), "test_acc": accuracy,
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
    faultpoints.at_epoch(cfg.epochs)  # the outputs' points belong to the last epoch, resumed or not
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
    faultpoints.reached("params-written")
    run_info = {**cfg.to_json(), "devices_used": [str(d) for d in devices]}
    metrics.write(cfg.out_dir, history, run_info)
    faultpoints.reached("metrics-written")
    seed_settings = (cfg.batch_size, cfg.lr, cfg.momentum, cfg.wd, cfg.subset) == (256, 0.1, 0.0, 0.0, None)
    plot.plot_curves(history, cfg.out_dir / "curves.png",
                     title=f"LeNet on Fashion-MNIST ({cfg.loop} loop, {len(devices)} device(s))",
                     reference=MXNET_LOSSES if seed_settings else None,
                     reference_label="MXNet 1.9.1, same settings")
    faultpoints.reached("outputs-written")
    _say(f"Wrote {cfg.params}, {cfg.out_dir / 'metrics.json'}, {cfg.out_dir / 'metrics.csv'}, "
         f"{cfg.out_dir / 'curves.png'} and {cfg.checkpoint_path}.")
