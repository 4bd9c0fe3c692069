"""MXNet's ``mx.callback``: callables for the end of a batch or an epoch of a training loop.

Batch-end callbacks take a ``param`` with ``epoch``, ``nbatch`` and ``eval_metric`` (MXNet's
``BatchEndParam``, offered here): :class:`Speedometer`, :class:`ProgressBar`, :func:`log_train_metric`,
:class:`LogValidationMetricsCallback` log through :mod:`logging` with MXNet's messages. Epoch-end
checkpoints: :func:`do_checkpoint` writes ``prefix-symbol.json`` (when given a symbol) and
``prefix-%04d.params`` with MXNet's ``arg:``/``aux:`` names, byte-identical to MXNet's ``save_checkpoint``;
``module_checkpoint`` calls ``mod.save_checkpoint``.

>>> import logging
>>> from framework import callback, metric
>>> acc = metric.Accuracy()
>>> acc.sum_metric, acc.num_inst = 3, 4
>>> cb = callback.log_train_metric(period=2)
>>> cb(callback.BatchEndParam(epoch=0, nbatch=2, eval_metric=acc, locals=None))
"""

from __future__ import annotations

import logging
import math
import os
import time
from collections import namedtuple
from typing import Any

__all__ = [
    "BatchEndParam",
    "Speedometer",
    "ProgressBar",
    "do_checkpoint",
    "module_checkpoint",
    "log_train_metric",
    "LogValidationMetricsCallback",
    "save_checkpoint",
]

BatchEndParam = namedtuple("BatchEndParam", ["epoch", "nbatch", "eval_metric", "locals"])


def save_checkpoint(
    prefix: str, epoch: int, symbol: Any, arg_params: dict, aux_params: dict, remove_amp_cast: bool = True
) -> None:
    """Write ``prefix-symbol.json`` (when ``symbol`` is given) and ``prefix-%04d.params`` holding
    ``arg:<name>`` and ``aux:<name>`` arrays (MXNet 1.x's format; atomic)."""
    from . import serialization

    if symbol is not None:
        if hasattr(symbol, "save"):
            symbol.save(f"{prefix}-symbol.json")
        else:
            text = symbol.tojson() if hasattr(symbol, "tojson") else str(symbol)
            tmp = f"{prefix}-symbol.json.tmp{os.getpid()}"
            with open(tmp, "w") as f:
                f.write(text)
            os.replace(tmp, f"{prefix}-symbol.json")
    arrays = {f"arg:{k}": v for k, v in arg_params.items()}
    arrays.update({f"aux:{k}": v for k, v in (aux_params or {}).items()})
    arrays = {k: (v.data() if hasattr(v, "data") and callable(v.data) else v) for k, v in arrays.items()}
    serialization.save(f"{prefix}-{epoch:04d}.params", arrays, format="nd")
    logging.info('Saved checkpoint to "%s-%04d.params"', prefix, epoch)


def module_checkpoint(mod: Any, prefix: str, period: int = 1, save_optimizer_states: bool = False):
    """Every ``period`` epochs call ``mod.save_checkpoint(prefix, epoch + 1, save_optimizer_states)``."""
    period = int(max(1, period))

    def _callback(iter_no: int, sym: Any = None, arg: Any = None, aux: Any = None) -> None:
        if (iter_no + 1) % period == 0:
            mod.save_checkpoint(prefix, iter_no + 1, save_optimizer_states)

    return _callback


def do_checkpoint(prefix: str, period: int = 1):
    """An epoch-end callback ``cb(iter_no, sym, arg, aux)`` saving a checkpoint every ``period``
    epochs (as epoch ``iter_no + 1``)."""
    period = int(max(1, period))

    def _callback(iter_no: int, sym: Any, arg: dict, aux: dict) -> None:
        if (iter_no + 1) % period == 0:
            save_checkpoint(prefix, iter_no + 1, sym, arg, aux)

    return _callback


def log_train_metric(period: int, auto_reset: bool = False):
    """Every ``period`` batches, log ``Iter[epoch] Batch[n] Train-<name>=<value>``."""

    def _callback(param: Any) -> None:
        if param.nbatch % period == 0 and param.eval_metric is not None:
            for name, value in param.eval_metric.get_name_value():
                logging.info("Iter[%d] Batch[%d] Train-%s=%f", param.epoch, param.nbatch, name, value)
            if auto_reset:
                param.eval_metric.reset_local()

    return _callback


class Speedometer:
    """Every ``frequent`` batches, log the samples per second (and the metric, reset each time with
    ``auto_reset``)."""

    def __init__(self, batch_size: int, frequent: int = 50, auto_reset: bool = True) -> None:
        self.batch_size, self.frequent, self.auto_reset = batch_size, frequent, auto_reset
        self.init = False
        self.tic = 0.0
        self.last_count = 0

    def __call__(self, param: Any) -> None:
        count = param.nbatch
        if self.last_count > count:
            self.init = False
        self.last_count = count
        if not self.init:
            self.init, self.tic = True, time.time()
            return
        if count % self.frequent != 0:
            return
        elapsed = time.time() - self.tic
        speed = self.frequent * self.batch_size / elapsed if elapsed > 0 else float("inf")
        if param.eval_metric is not None:
            pairs = param.eval_metric.get_name_value()
            flat = [v for pair in pairs for v in pair]
            if self.auto_reset:
                param.eval_metric.reset_local()
                msg = "Epoch[%d] Batch [%d-%d]\tSpeed: %.2f samples/sec" + "\t%s=%f" * len(pairs)
                logging.info(msg, param.epoch, count - self.frequent, count, speed, *flat)
            else:
                msg = "Epoch[%d] Batch [0-%d]\tSpeed: %.2f samples/sec" + "\t%s=%f" * len(pairs)
                logging.info(msg, param.epoch, count, speed, *flat)
        else:
            logging.info("Iter[%d] Batch [%d]\tSpeed: %.2f samples/sec", param.epoch, count, speed)
        self.tic = time.time()


class ProgressBar:
    """Log a progress bar of ``length`` characters for ``nbatch`` out of ``total``."""

    def __init__(self, total: int, length: int = 80) -> None:
        self.bar_len, self.total = length, total

    def __call__(self, param: Any) -> None:
        count = param.nbatch
        filled = int(round(self.bar_len * count / float(self.total)))
        percents = math.ceil(100.0 * count / float(self.total))
        logging.info("[%s] %s%s\r", "=" * filled + "-" * (self.bar_len - filled), percents, "%")


class LogValidationMetricsCallback:
    """Log ``Epoch[epoch] Validation-<name>=<value>`` for each metric value."""

    def __call__(self, param: Any) -> None:
        if not param.eval_metric:
            return
        for name, value in param.eval_metric.get_name_value():
            logging.info("Epoch[%d] Validation-%s=%f", param.epoch, name, value)
