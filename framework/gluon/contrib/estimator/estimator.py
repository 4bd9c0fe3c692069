"""``Estimator``: MXNet 1.9.1's high-level training loop over a net, a loss, a Trainer and event handlers.

>>> import logging
>>> from framework import gluon, np
>>> net = gluon.nn.Dense(2)
>>> net.initialize()
>>> data = gluon.data.DataLoader(gluon.data.ArrayDataset(np.ones((8, 3)), np.zeros(8)), batch_size=4)
>>> est = Estimator(net, gluon.loss.SoftmaxCrossEntropyLoss(),
...                 trainer=gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1}))
>>> est.logger.setLevel(logging.WARNING)
>>> est.fit(data, batches=1)
>>> [m.name for m in est.train_metrics]
['training accuracy', 'training softmaxcrossentropyloss']
"""

from __future__ import annotations

import copy
import logging
import sys
import warnings
from typing import Any

import jax

from .... import device as _device
from ...block import Block
from ...data import DataLoader
from ...loss import Loss as _Loss
from ...metric import EvalMetric
from ...metric import Loss as _LossMetric
from ...trainer import Trainer
from .batch_processor import BatchProcessor
from .event_handler import (
    GradientUpdateHandler,
    LoggingHandler,
    MetricHandler,
    StoppingHandler,
    ValidationHandler,
)
from .events import (
    BatchBegin,
    BatchEnd,
    EpochBegin,
    EpochEnd,
    EventHandler,
    TrainBegin,
    TrainEnd,
    _check_event_handlers,
)
from .utils import _check_handler_metric_ref, _check_metrics, _suggest_metric_for_loss

__all__ = ["Estimator"]

_EVENTS = (("train_begin", TrainBegin), ("epoch_begin", EpochBegin), ("batch_begin", BatchBegin),
           ("batch_end", BatchEnd), ("epoch_end", EpochEnd), ("train_end", TrainEnd))


class Estimator:
    """Train ``net`` with ``loss`` through :meth:`fit` and evaluate it through :meth:`evaluate`.

    Without ``train_metrics`` it tracks accuracy (for ``SoftmaxCrossEntropyLoss``) and the mean loss;
    their names get a ``'training '`` prefix, the validation copies a ``'validation '`` one. Without a
    ``trainer``: SGD at 0.001 (with MXNet's warning). ``context`` is a device or a list of devices (each
    batch is split over them); default the first GPU, else the CPU. ``val_net``/``val_loss`` default to
    ``net``/``loss``; ``batch_processor`` supplies ``fit_batch``/``evaluate_batch``. ``logger`` writes
    INFO and above to stdout.
    """

    logger: logging.Logger | None = None

    def __init__(self, net: Block, loss: _Loss, train_metrics: Any = None, val_metrics: Any = None,
                 initializer: Any = None, trainer: Trainer | None = None, context: Any = None,
                 val_net: Block | None = None, val_loss: _Loss | None = None,
                 batch_processor: Any = None) -> None:
        self.net = net
        self.loss = self._check_loss(loss)
        self._train_metrics = _check_metrics(train_metrics)
        self._val_metrics = _check_metrics(val_metrics)
        self._add_default_training_metrics()
        self._add_validation_metrics()
        self.val_loss = self._check_loss(val_loss) if val_loss is not None else self.loss
        self.val_net = val_net if val_net is not None else self.net
        self.logger = logging.Logger(name="Estimator", level=logging.INFO)
        self.logger.addHandler(logging.StreamHandler(sys.stdout))
        self.context = self._check_context(context)
        self._initialize(initializer)
        self.trainer = self._check_trainer(trainer)
        self.batch_processor = self._check_batch_processor(batch_processor)
        self.max_epoch: int | None = None
        self.max_batch: int | None = None
        self.batch_axis = 0

    # ------------------------------------------------------------------ checks
    @staticmethod
    def _check_loss(loss: Any) -> _Loss:
        if not isinstance(loss, _Loss):
            raise ValueError(f"loss must be a Loss (framework.gluon.loss.Loss), got {loss!r}")
        return loss

    @staticmethod
    def _check_context(context: Any) -> list[jax.Device]:
        if context:
            if isinstance(context, jax.Device):
                context = [context]
            elif not (isinstance(context, list) and all(isinstance(c, jax.Device) for c in context)):
                raise ValueError("context must be a Context or a list of Context, for example mx.cpu() or "
                                 f"[mx.gpu(0), mx.gpu(1)]; got {context!r}")
            return context
        gpus = _device.num_gpus()
        if gpus > 1:
            warnings.warn("You have multiple GPUs, gpu(0) will be used by default. To utilize all your "
                          "GPUs, specify context as a list of gpus, e.g. context=[mx.gpu(0), mx.gpu(1)] ",
                          stacklevel=3)
        return [_device.gpu(0)] if gpus > 0 else [_device.cpu()]

    @staticmethod
    def _check_batch_processor(batch_processor: Any) -> Any:
        if batch_processor is None:
            return BatchProcessor()
        if not callable(getattr(batch_processor, "fit_batch", None)) or \
                not callable(getattr(batch_processor, "evaluate_batch", None)):
            raise ValueError("Customized Batch Processor must contain fit_batch() and evaluate_batch() "
                             "methods")
        return batch_processor

    def _is_initialized(self) -> bool:
        for param in self.net.collect_params().values():
            try:
                param.list_ctx()
            except RuntimeError:
                return False
        return True

    def _initialize(self, initializer: Any) -> None:
        if not self._is_initialized():
            self.net.initialize(init=initializer, ctx=self.context) if initializer else \
                self.net.initialize(ctx=self.context)
        elif initializer:
            warnings.warn("Network already fully initialized, skipping initialization. You don't need to "
                          "pass initializer if you already initialized your net. You can use net.initialize("
                          "init=your_initializer, force_reinit=True)to force re-initialize.", stacklevel=3)

    def _check_trainer(self, trainer: Any) -> Trainer:
        if not trainer:
            warnings.warn("No trainer specified, default SGD optimizer with learning rate 0.001 is used.",
                          stacklevel=3)
            return Trainer(self.net.collect_params(), "sgd", {"learning_rate": 0.001})
        if not isinstance(trainer, Trainer):
            raise ValueError("Trainer must be a Gluon Trainer instance (framework.gluon.Trainer), got "
                             f"{trainer!r}")
        return trainer

    def _add_default_training_metrics(self) -> None:
        if not self._train_metrics:
            suggested = _suggest_metric_for_loss(self.loss)
            if suggested:
                self._train_metrics = [suggested]
            self._train_metrics.append(_LossMetric(self.loss.name.rstrip("1234567890")))
        for metric in self._train_metrics:
            metric.name = "training " + metric.name

    def _add_validation_metrics(self) -> None:
        if not self._val_metrics:
            self._val_metrics = [copy.deepcopy(metric) for metric in self._train_metrics]
        for metric in self._val_metrics:
            metric.name = metric.name.replace("training", "validation") if "training" in metric.name \
                else "validation " + metric.name

    @property
    def train_metrics(self) -> list[EvalMetric]:
        return self._train_metrics

    @property
    def val_metrics(self) -> list[EvalMetric]:
        return self._val_metrics

    @staticmethod
    def _check_loader(data: Any, what: str) -> None:
        if not isinstance(data, DataLoader):
            raise ValueError(f"Estimator only support input as Gluon DataLoader ({what} is a "
                             f"{type(data).__name__}). Alternatively, you can transform your DataIter or any "
                             "NDArray into Gluon DataLoader. Refer to gluon.data.DataLoader")

    # ------------------------------------------------------------------ loops
    def evaluate(self, val_data: DataLoader, batch_axis: int = 0, event_handlers: Any = None) -> None:
        """Run ``val_net`` over ``val_data``, updating the validation metrics (a MetricHandler and a
        LoggingHandler are added unless given)."""
        self._check_loader(val_data, "val_data")
        for metric in self.val_metrics:
            metric.reset()
        handlers = self._categorize_handlers(self._prepare_default_validation_handlers(event_handlers))
        for handler in handlers["epoch_begin"]:
            handler.epoch_begin(self)
        for batch in val_data:
            for handler in handlers["batch_begin"]:
                handler.batch_begin(self, batch=batch)
            _, label, pred, loss = self.batch_processor.evaluate_batch(self, batch, batch_axis)
            for handler in handlers["batch_end"]:
                handler.batch_end(self, batch=batch, pred=pred, label=label, loss=loss)
        for handler in handlers["epoch_end"]:
            handler.epoch_end(self)

    def fit(self, train_data: DataLoader, val_data: DataLoader | None = None, epochs: int | None = None,
            event_handlers: Any = None, batches: int | None = None, batch_axis: int = 0) -> None:
        """Train for ``epochs`` epochs or ``batches`` batches (exactly one of them); validate on
        ``val_data`` after every epoch when given. Default handlers (stopping, gradient update, metrics,
        validation, logging) are added unless given; a handler's True at batch or epoch end stops."""
        self._check_loader(train_data, "train_data")
        if (not epochs) == (not batches):
            raise ValueError("Fit only support exactly one type of iteration, train by number of epochs or "
                             "number of batches. Please specify one and only one of: epochs or batches.")
        self.max_epoch, self.max_batch, self.batch_axis = epochs, batches, batch_axis
        handlers = self._categorize_handlers(self._prepare_default_handlers(val_data, event_handlers))
        for handler in handlers["train_begin"]:
            handler.train_begin(self)
        while True:
            for handler in handlers["epoch_begin"]:
                handler.epoch_begin(self)
            for batch in train_data:
                for handler in handlers["batch_begin"]:
                    handler.batch_begin(self, batch=batch)
                _, label, pred, loss = self.batch_processor.fit_batch(self, batch, batch_axis)
                stops = [handler.batch_end(self, batch=batch, pred=pred, label=label, loss=loss)
                         for handler in handlers["batch_end"]]
                if any(stops):
                    break
            if any([handler.epoch_end(self) for handler in handlers["epoch_end"]]):
                break
        for handler in handlers["train_end"]:
            handler.train_end(self)

    # ------------------------------------------------------------------ handlers
    def _prepare_default_handlers(self, val_data: Any, event_handlers: Any) -> list[EventHandler]:
        event_handlers = _check_event_handlers(event_handlers)
        added: list[EventHandler] = [StoppingHandler(self.max_epoch, self.max_batch)]
        if not any(isinstance(h, GradientUpdateHandler) for h in event_handlers):
            added.append(GradientUpdateHandler())
        if not any(isinstance(h, MetricHandler) for h in event_handlers):
            added.append(MetricHandler(metrics=self.train_metrics))
        if not any(isinstance(h, ValidationHandler) for h in event_handlers) and val_data:
            added.append(ValidationHandler(val_data=val_data, eval_fn=self.evaluate))
        if not any(isinstance(h, LoggingHandler) for h in event_handlers):
            added.append(LoggingHandler(metrics=self.train_metrics))
        return self._merge(event_handlers, added, self.train_metrics + self.val_metrics)

    def _prepare_default_validation_handlers(self, event_handlers: Any) -> list[EventHandler]:
        event_handlers = _check_event_handlers(event_handlers)
        added: list[EventHandler] = []
        if not any(isinstance(h, MetricHandler) for h in event_handlers):
            added.append(MetricHandler(metrics=self.val_metrics))
        if not any(isinstance(h, LoggingHandler) for h in event_handlers):
            added.append(LoggingHandler(metrics=self.val_metrics))
        return self._merge(event_handlers, added, self.val_metrics)

    @staticmethod
    def _merge(given: list[EventHandler], added: list[EventHandler],
               known: list[EvalMetric]) -> list[EventHandler]:
        mixing = bool(given) and bool(added)
        handlers = given + added
        if mixing:  # user handlers beside default ones must use the estimator's metric objects
            ids = {id(m) for m in known}
            for handler in handlers:
                _check_handler_metric_ref(handler, ids)
        handlers.sort(key=lambda h: getattr(h, "priority", 0))
        return handlers

    @staticmethod
    def _categorize_handlers(event_handlers: list[EventHandler]) -> dict[str, list[EventHandler]]:
        """The handlers of each event, in priority order (only those that define it are called)."""
        return {name: [h for h in event_handlers if isinstance(h, kind)] for name, kind in _EVENTS}
