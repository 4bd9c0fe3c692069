"""``CheckpointHandler``: save parameters and Trainer states every few epochs or batches under MXNet's
names, keep the best by a monitored metric, and resume from the latest.

Files in ``model_dir`` (``prefix`` = ``model_prefix``): ``prefix-epoch{E}batch{B}.params`` and
``.states`` (``net.save_parameters``, ``trainer.save_states``), ``prefix-best.params``/``.states``
with ``save_best``, and ``prefix-symbol.json`` after the first batch when the net runs as a compiled
HybridBlock that was hybridized (``net.export``'s graph, as MXNet writes the cached graph of a
hybridized net). At most
``max_checkpoints`` numbered checkpoints are kept (the oldest removed; the best is not counted).

>>> import tempfile
>>> handler = CheckpointHandler(tempfile.mkdtemp(), epoch_period=2)
>>> handler.model_prefix, handler.max_checkpoints
('model', 5)
"""

from __future__ import annotations

import math
import os
import re
import shutil
import tempfile
from typing import Any

import numpy as onp

from ...block import HybridBlock
from ...metric import EvalMetric
from .events import BatchEnd, EpochEnd, TrainBegin, _monitor_op

__all__ = ["CheckpointHandler"]


def _hybridized(net: HybridBlock) -> bool:
    """Whether ``net.hybridize()`` is in force (MXNet writes the symbol of a hybridized net only).
    The Block API has no public flag for it yet: this reads the one ``hybridize`` sets."""
    return bool(net.__dict__.get("_active", False))


class CheckpointHandler(TrainBegin, BatchEnd, EpochEnd):
    """Save the model and trainer every ``epoch_period`` epochs and/or ``batch_period`` batches.

    ``resume_from_checkpoint=True`` loads the latest ``prefix-epoch{E}batch{B}`` checkpoint at the start
    of ``fit`` and trains the remaining epochs (or batches), numbering new checkpoints after it, as
    MXNet 1.9.1 does. ``mode`` for ``save_best``: 'min', 'max' or 'auto' (max for accuracy/F1, min
    otherwise -- the documented rule; MXNet 1.9.1's code picks max for every metric in auto mode).
    """

    def __init__(self, model_dir: str, model_prefix: str = "model", monitor: EvalMetric | None = None,
                 verbose: int = 0, save_best: bool = False, mode: str = "auto", epoch_period: int | None = 1,
                 batch_period: int | None = None, max_checkpoints: int = 5,
                 resume_from_checkpoint: bool = False) -> None:
        self.monitor, self.verbose = monitor, verbose
        os.makedirs(model_dir, exist_ok=True)
        self.model_dir, self.model_prefix = os.fspath(model_dir), model_prefix
        self.save_best = save_best
        if save_best and not isinstance(monitor, EvalMetric):
            raise ValueError("To save best model only, please provide one of the metric objects from "
                             "estimator.train_metrics and estimator.val_metrics as monitor.")
        self.epoch_period, self.batch_period = epoch_period, batch_period
        self.current_batch = self.current_epoch = 0
        self.max_checkpoints = max_checkpoints
        self.resume_from_checkpoint = resume_from_checkpoint
        self.saved_checkpoints: list[str] = []
        self.trained_epoch = self.trained_batch = -1
        if save_best:
            self.monitor_op = _monitor_op(mode, monitor, "ModelCheckpoint")
            self.best = math.inf if self.monitor_op is onp.less else -math.inf

    def train_begin(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        self.current_epoch = self.current_batch = 0
        if self.save_best:
            self.best = math.inf if self.monitor_op is onp.less else -math.inf
        if self.resume_from_checkpoint:
            by_batch = bool(estimator.max_batch)
            if (by_batch and (not self.batch_period or self.epoch_period)) or \
                    (estimator.max_epoch and (not self.epoch_period or self.batch_period)):
                raise ValueError(
                    "To use resume from checkpoint, you must only specify the same type of period you used "
                    "for training. For example, if you are training based on number of epochs, you must save "
                    "only based on epochs, and set batch_period to None.")
            self._resume_from_checkpoint(estimator)

    def batch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> bool:
        if self.current_batch == 0:
            self._save_symbol(estimator)
        if self.batch_period and (self.current_batch + 1) % self.batch_period == 0:
            self._save_checkpoint(estimator)
        self.current_batch += 1
        return False

    def epoch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> bool:
        if self.epoch_period and (self.current_epoch + 1) % self.epoch_period == 0:
            self._save_checkpoint(estimator)
        self.current_epoch += 1
        return False

    # ------------------------------------------------------------------ saving
    def _save_checkpoint(self, estimator: Any) -> None:
        if self.resume_from_checkpoint:
            epoch = self.current_epoch + self.trained_epoch + 1
            batch = self.current_batch + self.trained_batch + (0 if estimator.max_epoch else 1)
        else:
            epoch, batch = self.current_epoch, self.current_batch
        prefix = f"{self.model_prefix}-epoch{epoch}batch{batch}"
        self._save_params_and_trainer(estimator, prefix)
        if self.verbose > 0:
            estimator.logger.info("[Epoch %d] CheckpointHandler: trained total %d batches, saving model "
                                  "at %s with prefix: %s", self.current_epoch, self.current_batch + 1,
                                  self.model_dir, prefix)
        if not self.save_best:
            return
        name, value = self.monitor.get()
        if math.isnan(value):
            import warnings

            warnings.warn(f"Skipping save best because {name} is not updated, make sure you pass one of the "
                          "metric objects estimator.train_metrics and estimator.val_metrics as monitor",
                          RuntimeWarning, stacklevel=2)
        elif self.monitor_op(value, self.best):
            prefix = self.model_prefix + "-best"
            self._save_params_and_trainer(estimator, prefix)
            if self.verbose > 0:
                estimator.logger.info("[Epoch %d] CheckpointHandler: %s improved from %0.5f to %0.5f, "
                                      "updating best model at %s with prefix: %s", self.current_epoch, name,
                                      self.best, value, self.model_dir, prefix)
            self.best = value
        elif self.verbose > 0:
            estimator.logger.info("[Epoch %d] CheckpointHandler: %s did not improve from %0.5f, skipping "
                                  "updating best model", self.current_batch, name, self.best)

    def _save_symbol(self, estimator: Any) -> None:
        symbol_file = os.path.join(self.model_dir, self.model_prefix + "-symbol.json")
        net = estimator.net
        if isinstance(net, HybridBlock) and _hybridized(net):
            tmp = tempfile.mkdtemp(dir=self.model_dir, prefix=".export-")
            try:
                sym, _ = net.export(os.path.join(tmp, "net"))  # the graph of the last compiled call
                os.replace(sym, symbol_file)
                return
            except RuntimeError:  # never ran compiled: no graph yet, as MXNet without hybridize
                pass
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        estimator.logger.info("Model architecture(symbol file) is not saved, please use HybridBlock to "
                              "construct your model, and call net.hybridize() before passing to Estimator in "
                              "order to save model architecture as %s.", symbol_file)

    def _save_params_and_trainer(self, estimator: Any, file_prefix: str) -> None:
        base = os.path.join(self.model_dir, file_prefix)
        estimator.net.save_parameters(base + ".params")
        estimator.trainer.save_states(base + ".states")
        if "best" not in file_prefix:
            self.saved_checkpoints.append(file_prefix)
        if len(self.saved_checkpoints) > self.max_checkpoints:
            old = os.path.join(self.model_dir, self.saved_checkpoints.pop(0))
            for ext in (".params", ".states"):
                if os.path.exists(old + ext):
                    os.remove(old + ext)

    # ------------------------------------------------------------------ resuming
    def _checkpoints(self) -> list[tuple[int, int]]:
        pattern = re.compile(re.escape(self.model_prefix) + r"-epoch(\d+)batch(\d+)\.params")
        found = []
        for fname in os.listdir(self.model_dir):
            if fname.startswith(self.model_prefix + "-epoch") and fname.endswith(".params"):
                m = pattern.fullmatch(fname)
                if m is None:
                    raise ValueError(
                        f"Error parsing checkpoint file {fname!r} in {self.model_dir}, please check your "
                        "checkpoints have the format: {model_name}-epoch{epoch_number}batch{batch_number}"
                        ".params, there should also be a .states file for each .params file")
                found.append((int(m.group(1)), int(m.group(2))))
        return found

    def _resume_from_checkpoint(self, estimator: Any) -> None:
        found = self._checkpoints()
        self.trained_epoch = max((e for e, _ in found), default=-1)
        self.trained_batch = max((b for e, b in found if e == self.trained_epoch), default=-1)
        if self.trained_epoch == -1:
            msg = "CheckpointHandler: No checkpoint found, training from scratch for "
            msg += (f"{estimator.max_batch} batches" if estimator.max_batch
                    else f"{estimator.max_epoch} epochs")
            estimator.logger.info(msg)
            return
        msg = (f"CheckpointHandler: Checkpoint resumed from epoch {self.trained_epoch} batch "
               f"{self.trained_batch}, continue to train for ")
        if estimator.max_epoch:
            if self.trained_epoch >= estimator.max_epoch - 1:
                raise ValueError(f"Found checkpoint with maximum number of epoch {estimator.max_epoch} "
                                 "reached, please specify resume_from_checkpoint=False (default value) if "
                                 "you want to train from scratch.")
            estimator.max_epoch = estimator.max_epoch - self.trained_epoch - 1
            msg += f"{estimator.max_epoch} epochs "
        if estimator.max_batch:
            if self.trained_batch >= estimator.max_batch - 1:
                raise ValueError(f"Found checkpoint with maximum number of batch {self.trained_batch} "
                                 "reached, please specify resume_from_checkpoint=False (default value) if "
                                 "you want to train from scratch.")
            estimator.max_batch = estimator.max_batch - self.trained_batch - 1
            msg += f"{estimator.max_batch} batches "
        base = os.path.join(self.model_dir,
                            f"{self.model_prefix}-epoch{self.trained_epoch}batch{self.trained_batch}")
        for ext in (".params", ".states"):
            if not os.path.exists(base + ext):
                raise FileNotFoundError(f"Failed to load checkpoint, {base + ext} does not exist")
        estimator.net.load_parameters(base + ".params", ctx=estimator.context)
        estimator.trainer.load_states(base + ".states")
        estimator.logger.warning(msg)
