"""MXNet's ``SequentialModule``: modules run one after another, each one's outputs the next one's data;
the backward runs in reverse, each module's input gradients the previous one's head gradients.
``add(module, take_labels=True)`` gives a module the batch's labels; ``auto_wiring=True`` renames the
previous outputs to the module's data names.

>>> import framework as mx
>>> net1 = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=4, name='fc1')
>>> net2 = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc2'),
...                             name='softmax')
>>> seq = mx.mod.SequentialModule()
>>> seq = seq.add(mx.mod.Module(net1, label_names=None)).add(mx.mod.Module(net2), take_labels=True,
...                                                           auto_wiring=True)
>>> seq.bind([('data', (3, 5))], [('softmax_label', (3,))])
>>> seq.init_params()
>>> sorted(seq.get_params()[0])
['fc1_bias', 'fc1_weight', 'fc2_bias', 'fc2_weight']
"""

from __future__ import annotations

import logging
from typing import Any

from ..io import DataBatch, DataDesc
from .base_module import BaseModule

__all__ = ["SequentialModule"]

META_TAKE_LABELS = "take_labels"
META_AUTO_WIRING = "auto_wiring"


class SequentialModule(BaseModule):
    """See the module docstring."""

    META_TAKE_LABELS = META_TAKE_LABELS
    META_AUTO_WIRING = META_AUTO_WIRING

    def __init__(self, logger: Any = logging) -> None:
        super().__init__(logger=logger)
        self._modules: list[BaseModule] = []
        self._metas: list[dict[str, bool]] = []
        self._label_shapes: list = []
        self._data_shapes: list = []

    def add(self, module: BaseModule, **kwargs: bool) -> SequentialModule:
        """Append ``module`` (``take_labels``, ``auto_wiring``); returns self, for chaining."""
        unknown = [k for k in kwargs if k not in (META_TAKE_LABELS, META_AUTO_WIRING)]
        if unknown:
            raise TypeError(f"SequentialModule.add: unknown meta {unknown}; expected take_labels, "
                            "auto_wiring")
        self._modules.append(module)
        self._metas.append(dict(kwargs))
        self.binded = self.params_initialized = self.optimizer_initialized = False
        return self

    @property
    def data_names(self) -> list[str]:
        return self._modules[0].data_names if self._modules else []

    @property
    def output_names(self) -> list[str]:
        return self._modules[-1].output_names if self._modules else []

    @property
    def data_shapes(self) -> list:
        return self._modules[0].data_shapes

    @property
    def label_shapes(self) -> list:
        return self._label_shapes

    @property
    def output_shapes(self) -> list:
        return self._modules[-1].output_shapes

    def get_params(self) -> tuple[dict, dict]:
        self._check_ready("get_params")
        arg, aux = {}, {}
        for m in self._modules:
            a, x = m.get_params()
            arg.update(a)
            aux.update(x)
        return arg, aux

    def init_params(self, initializer: Any = None, arg_params: dict | None = None,
                    aux_params: dict | None = None, allow_missing: bool = False, force_init: bool = False,
                    allow_extra: bool = False) -> None:
        if self.params_initialized and not force_init:
            return
        if not self.binded:
            raise RuntimeError("init_params: call bind() first")
        for m in self._modules:
            m.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                          allow_missing=allow_missing, force_init=force_init, allow_extra=True)
        self.params_initialized = True

    def set_params(self, arg_params: dict, aux_params: dict, allow_missing: bool = False,
                   force_init: bool = True, allow_extra: bool = False) -> None:
        for m in self._modules:
            m.set_params(arg_params, aux_params, allow_missing=True, force_init=force_init, allow_extra=True)
        self.params_initialized = True

    def bind(self, data_shapes: Any, label_shapes: Any = None, for_training: bool = True,
             inputs_need_grad: bool = False, force_rebind: bool = False, shared_module: Any = None,
             grad_req: Any = "write") -> None:
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if shared_module is not None:
            raise ValueError("Shared module is not supported")
        if not self._modules:
            raise ValueError("Attempting to bind an empty SequentialModule")
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._label_shapes = list(label_shapes or [])
        shapes = data_shapes
        anybody_ever_needs_label = False
        for i, (m, meta) in enumerate(zip(self._modules, self._metas, strict=True)):
            labels = None
            if meta.get(META_TAKE_LABELS):
                labels = label_shapes
                anybody_ever_needs_label = True
            need_grad = inputs_need_grad or (for_training and i > 0)
            if meta.get(META_AUTO_WIRING):
                names = m.data_names
                if len(names) != len(shapes):
                    raise ValueError(f"auto_wiring: module {i} takes {len(names)} inputs, the previous one "
                                     f"gives {len(shapes)}")
                shapes = [DataDesc(n, tuple(_shape_of(s))) for n, s in zip(names, shapes, strict=True)]
            m.bind(data_shapes=shapes, label_shapes=labels, for_training=for_training,
                   inputs_need_grad=need_grad, force_rebind=force_rebind, grad_req=grad_req)
            shapes = m.output_shapes
        if not anybody_ever_needs_label:
            self._label_shapes = []
        self.binded = True

    def init_optimizer(self, kvstore: Any = "local", optimizer: Any = "sgd",
                       optimizer_params: Any = (("learning_rate", 0.01),), force_init: bool = False) -> None:
        self._check_ready("init_optimizer")
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring.")
            return
        for m in self._modules:
            m.init_optimizer(kvstore=kvstore, optimizer=optimizer, optimizer_params=optimizer_params,
                             force_init=force_init)
        self.optimizer_initialized = True

    def forward(self, data_batch: Any, is_train: bool | None = None) -> None:
        self._check_ready("forward")
        batch = data_batch
        for i, m in enumerate(self._modules):
            m.forward(batch, is_train=is_train)
            if i + 1 == len(self._modules):
                break
            batch = DataBatch(m.get_outputs(), label=data_batch.label, pad=data_batch.pad)

    def backward(self, out_grads: Any = None) -> None:
        self._check_ready("backward")
        for i, m in reversed(list(enumerate(self._modules))):
            m.backward(out_grads=out_grads)
            if i == 0:
                break
            out_grads = m.get_input_grads()

    def update(self) -> None:
        if not self.optimizer_initialized:
            raise RuntimeError("update: call init_optimizer() first")
        for m in self._modules:
            m.update()

    def get_outputs(self, merge_multi_context: bool = True) -> list:
        return self._modules[-1].get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context: bool = True) -> list:
        return self._modules[0].get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric: Any, labels: Any, pre_sliced: bool = False) -> None:
        for m, meta in zip(self._modules, self._metas, strict=True):
            if meta.get(META_TAKE_LABELS):
                m.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon: Any) -> None:
        for m in self._modules:
            m.install_monitor(mon)

    @property
    def symbol(self) -> Any:
        return self._modules[-1].symbol if self._modules else None


def _shape_of(s: Any) -> tuple:
    if isinstance(s, DataDesc):
        return s.shape
    if isinstance(s, tuple) and len(s) == 2 and isinstance(s[0], str):
        return s[1]
    return s
