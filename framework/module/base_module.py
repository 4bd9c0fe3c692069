"""MXNet's ``BaseModule``: the training loop (``fit``), evaluation (``score``), prediction (``predict``,
``iter_predict``) and parameter files (``save_params``/``load_params``) every module shares, written
over the abstract interface (``bind``, ``init_params``, ``init_optimizer``, ``forward``, ``backward``,
``update``, ``update_metric``, ``get_outputs``, ``get_params``/``set_params``) that
:class:`~framework.module.Module`, :class:`~framework.module.BucketingModule` and
:class:`~framework.module.SequentialModule` implement.

>>> from framework.module.base_module import parse_data_desc
>>> data, label = parse_data_desc(['data'], ['softmax_label'], [('data', (8, 2))], [('softmax_label', (8,))])
>>> data[0].shape, label[0].name
((8, 2), 'softmax_label')
"""

from __future__ import annotations

import logging
import os
import time
import warnings
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from .. import model
from ..callback import BatchEndParam
from ..io import DataBatch, DataDesc, DataIter

__all__ = ["BaseModule", "parse_data_desc", "check_input_names", "as_list"]


def as_list(obj: Any) -> list:
    """``obj`` as a list (a list or tuple unchanged, anything else wrapped)."""
    return list(obj) if isinstance(obj, (list, tuple)) else [obj]


def check_input_names(symbol: Any, names: Sequence[str], typename: str, throw: bool) -> None:
    """Every name must be an argument of ``symbol`` (MXNet's message, listing likely candidates)."""
    args = symbol.list_arguments()
    for name in names:
        if name in args:
            continue
        candidates = [a for a in args if not a.endswith(("_weight", "_bias", "_gamma", "_beta"))]
        msg = (f"You created Module with Module(..., {typename}_names={list(names)}) but input with name "
               f"'{name}' is not found in symbol.list_arguments(). Did you mean one of:\n\t"
               + "\n\t".join(candidates))
        if throw:
            raise ValueError(msg)
        warnings.warn(msg, stacklevel=3)


def _descs(names: Sequence[str], shapes: Any, what: str) -> list[DataDesc]:
    if shapes is None:
        return []
    out = []
    for s in shapes:
        d = s if isinstance(s, DataDesc) else DataDesc(*s)
        out.append(d)
    given = [d.name for d in out]
    if sorted(given) != sorted(names):
        raise ValueError(f"Data provided by {what}_shapes don't match names specified by {what}_names "
                         f"({given} vs. {list(names)})")
    return out


def parse_data_desc(data_names: Sequence[str], label_names: Sequence[str], data_shapes: Any,
                    label_shapes: Any) -> tuple[list[DataDesc], list[DataDesc]]:
    """``(name, shape)`` pairs or DataDescs as DataDescs, checked against the expected names."""
    data = _descs(data_names, data_shapes, "data")
    label = _descs(label_names, label_shapes, "label") if label_shapes is not None else []
    return data, label


class BaseModule:
    """The loops of MXNet's modules, over the interface the subclasses implement."""

    def __init__(self, logger: Any = logging) -> None:
        self.logger = logger
        self.binded = False
        self.for_training = False
        self.inputs_need_grad = False
        self.params_initialized = False
        self.optimizer_initialized = False
        self._symbol: Any = None
        self._total_exec_bytes = 0

    # ------------------------------------------------------------------ high level
    def forward_backward(self, data_batch: DataBatch) -> None:
        """A training forward and the backward."""
        self.forward(data_batch, is_train=True)
        self.backward()

    def score(self, eval_data: DataIter, eval_metric: Any, num_batch: int | None = None,
              batch_end_callback: Any = None, score_end_callback: Any = None, reset: bool = True,
              epoch: int = 0, sparse_row_id_fn: Any = None) -> list[tuple[str, float]]:
        """Run ``eval_data`` through the module (inference) and return the metric's ``(name, value)``s."""
        from ..gluon import metric

        self._check_ready("score")
        if reset:
            eval_data.reset()
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        eval_metric.reset()
        actual = 0
        for nbatch, batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(batch, is_train=False)
            if isinstance(batch, list):
                self.update_metric(eval_metric, [b.label for b in batch], pre_sliced=True)
            else:
                self.update_metric(eval_metric, batch.label)
            if batch_end_callback is not None:
                params = BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric, locals=locals())
                for cb in as_list(batch_end_callback):
                    cb(params)
            actual += 1
        if score_end_callback:
            params = BatchEndParam(epoch=epoch, nbatch=actual, eval_metric=eval_metric, locals=locals())
            for cb in as_list(score_end_callback):
                cb(params)
        return eval_metric.get_name_value()

    def iter_predict(self, eval_data: DataIter, num_batch: int | None = None, reset: bool = True,
                     sparse_row_id_fn: Any = None):
        """Yield ``(outputs, nbatch, batch)`` for each batch (padding removed)."""
        self._check_ready("iter_predict")
        if reset:
            eval_data.reset()
        for nbatch, batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(batch, is_train=False)
            pad = batch.pad or 0
            yield [o[:o.shape[0] - pad] for o in self.get_outputs()], nbatch, batch

    def predict(self, eval_data: Any, num_batch: int | None = None, merge_batches: bool = True,
                reset: bool = True, always_output_list: bool = False, sparse_row_id_fn: Any = None) -> Any:
        """The outputs for ``eval_data`` (a DataIter, or one array), batches concatenated."""
        self._check_ready("predict")
        if isinstance(eval_data, (jax.Array, onp.ndarray)):
            self.forward(DataBatch([jnp.asarray(eval_data)]))
            return self.get_outputs()[0]
        if not isinstance(eval_data, DataIter):
            raise ValueError(f"eval_data must be of type NDArray or DataIter, got {type(eval_data).__name__}")
        if reset:
            eval_data.reset()
        outs = []
        for nbatch, batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(batch, is_train=False)
            pad = batch.pad or 0
            outs.append([o[:o.shape[0] - pad] for o in self.get_outputs()])
        if not outs:
            return outs
        if not merge_batches:
            return outs
        n = len(outs[0])
        if any(len(o) != n for o in outs):
            raise ValueError("Cannot merge batches, as num of outputs is not the same in mini-batches. "
                             "Maybe bucketing is used?")
        merged = [jnp.concatenate([o[i] for o in outs]) for i in range(n)]
        return merged[0] if n == 1 and not always_output_list else merged

    def fit(self, train_data: DataIter, eval_data: DataIter | None = None, eval_metric: Any = "acc",
            epoch_end_callback: Any = None, batch_end_callback: Any = None, kvstore: Any = "local",
            optimizer: Any = "sgd", optimizer_params: Any = (("learning_rate", 0.01),),
            eval_end_callback: Any = None, eval_batch_end_callback: Any = None, initializer: Any = None,
            arg_params: dict | None = None, aux_params: dict | None = None, allow_missing: bool = False,
            force_rebind: bool = False, force_init: bool = False, begin_epoch: int = 0,
            num_epoch: int | None = None, validation_metric: Any = None, monitor: Any = None,
            sparse_row_id_fn: Any = None) -> None:
        """Train for epochs ``begin_epoch`` to ``num_epoch - 1`` (MXNet's loop: bind, init_params,
        init_optimizer, then per batch forward_backward, update, update_metric and the callbacks;
        per epoch the train metric, the time, ``epoch_end_callback(epoch, symbol, arg, aux)`` and the
        validation score are logged)."""
        from .. import initializer as init_mod
        from ..gluon import metric

        if num_epoch is None:
            raise ValueError("fit: please specify number of epochs (num_epoch=...)")
        self.bind(data_shapes=train_data.provide_data, label_shapes=train_data.provide_label,
                  for_training=True, force_rebind=force_rebind)
        if monitor is not None:
            self.install_monitor(monitor)
        self.init_params(initializer=initializer if initializer is not None else init_mod.Uniform(0.01),
                         arg_params=arg_params, aux_params=aux_params, allow_missing=allow_missing,
                         force_init=force_init)
        self.init_optimizer(kvstore=kvstore, optimizer=optimizer, optimizer_params=optimizer_params)
        if validation_metric is None:
            validation_metric = eval_metric
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        for epoch in range(begin_epoch, num_epoch):
            tic = time.time()
            eval_metric.reset()
            nbatch = 0
            data_iter = iter(train_data)
            end_of_batch = False
            next_batch = next(data_iter)
            while not end_of_batch:
                batch = next_batch
                if monitor is not None:
                    monitor.tic()
                self.forward_backward(batch)
                self.update()
                if isinstance(batch, list):
                    self.update_metric(eval_metric, [b.label for b in batch], pre_sliced=True)
                else:
                    self.update_metric(eval_metric, batch.label)
                try:
                    next_batch = next(data_iter)
                    self.prepare(next_batch, sparse_row_id_fn=sparse_row_id_fn)
                except StopIteration:
                    end_of_batch = True
                if monitor is not None:
                    monitor.toc_print()
                if end_of_batch:
                    name_values = eval_metric.get_global_name_value()
                if batch_end_callback is not None:
                    params = BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric,
                                           locals=locals())
                    for cb in as_list(batch_end_callback):
                        cb(params)
                nbatch += 1
            for name, val in name_values:
                self.logger.info("Epoch[%d] Train-%s=%f", epoch, name, val)
            self.logger.info("Epoch[%d] Time cost=%.3f", epoch, time.time() - tic)
            arg, aux = self.get_params()
            self.set_params(arg, aux)
            if epoch_end_callback is not None:
                for cb in as_list(epoch_end_callback):
                    cb(epoch, self.symbol, arg, aux)
            if eval_data is not None:
                res = self.score(eval_data, validation_metric, score_end_callback=eval_end_callback,
                                 batch_end_callback=eval_batch_end_callback, epoch=epoch)
                for name, val in res:
                    self.logger.info("Epoch[%d] Validation-%s=%f", epoch, name, val)
            train_data.reset()

    # ------------------------------------------------------------------ parameters
    def save_params(self, fname: str | os.PathLike) -> None:
        """Write ``arg:``/``aux:`` parameters in MXNet's .params format."""
        arg, aux = self.get_params()
        model.save_params_file(os.fspath(fname), arg, aux)

    def load_params(self, fname: str | os.PathLike) -> None:
        """Read what :meth:`save_params` (or MXNet) wrote and :meth:`set_params` it."""
        self.set_params(*model.load_params_file(os.fspath(fname)))

    def set_params(self, arg_params: dict, aux_params: dict, allow_missing: bool = False,
                   force_init: bool = True, allow_extra: bool = False) -> None:
        """Assign parameter values (``init_params`` with these, forced)."""
        self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra)

    # ------------------------------------------------------------------ defaults
    def prepare(self, data_batch: Any, sparse_row_id_fn: Any = None) -> None:
        """Prepare for a batch (nothing to do: kept for MXNet's API)."""

    def install_monitor(self, mon: Any) -> None:
        raise NotImplementedError(f"{type(self).__name__} does not support monitors")

    def get_states(self, merge_multi_context: bool = True) -> list:
        if self.binded and self.params_initialized:
            return []
        raise RuntimeError("get_states: bind the module and initialise its parameters first")

    def set_states(self, states: Any = None, value: Any = None) -> None:
        if not (states is None and value is None) and not (states == [] or value is None):
            raise ValueError("set_states: this module has no states")

    @property
    def symbol(self) -> Any:
        return self._symbol

    def _check_ready(self, what: str) -> None:
        if not (self.binded and self.params_initialized):
            raise RuntimeError(f"{what}: call bind() and init_params() first")
