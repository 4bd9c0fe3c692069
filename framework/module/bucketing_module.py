"""MXNet's ``BucketingModule``: one :class:`~framework.module.Module` per bucket key (a graph from
``sym_gen(key)`` and its own compiled programs for that bucket's shapes), all sharing one set of
parameters and one optimizer. A batch's ``bucket_key`` picks the module; the parameters move to it by
reference (arrays are immutable: nothing is copied).

>>> import numpy as onp
>>> import framework as mx
>>> def sym_gen(length):
...     data = mx.sym.var('data')
...     net = mx.sym.FullyConnected(mx.sym.sum(data, axis=1), num_hidden=2, name='fc')
...     return mx.sym.SoftmaxOutput(net, name='softmax'), ('data',), ('softmax_label',)
>>> mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=5)
>>> mod.bind([('data', (4, 5, 3))], [('softmax_label', (4,))])
>>> mod.init_params()
>>> mod.switch_bucket(7, [('data', (4, 7, 3))], [('softmax_label', (4,))])
>>> sorted(mod._buckets)
[5, 7]
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from .base_module import BaseModule
from .module import Module

__all__ = ["BucketingModule"]


class BucketingModule(BaseModule):
    """See the module docstring; ``sym_gen(bucket_key) -> (symbol, data_names, label_names)``."""

    def __init__(self, sym_gen: Callable[[Any], tuple], default_bucket_key: Any = None, logger: Any = logging,
                 context: Any = None, work_load_list: Any = None, fixed_param_names: Any = None,
                 state_names: Any = None, group2ctxs: Any = None, compression_params: Any = None) -> None:
        super().__init__(logger=logger)
        if default_bucket_key is None:
            raise ValueError("BucketingModule: default_bucket_key is required")
        self._default_bucket_key = default_bucket_key
        self._sym_gen = sym_gen
        symbol, data_names, label_names = self._call_sym_gen(default_bucket_key)
        self._data_names_default = list(data_names or [])
        self._label_names_default = list(label_names or [])
        self._fixed_param_names = fixed_param_names
        self._state_names = state_names
        self._context = context
        self._work_load_list = work_load_list
        self._group2ctxs = group2ctxs
        self._compression_params = compression_params
        self._buckets: dict[Any, Module] = {}
        self._curr_module: Module | None = None
        self._curr_bucket_key: Any = None
        self._params_dirty = False
        self._monitor: Any = None
        self._grad_req: Any = None

    def _call_sym_gen(self, key: Any) -> tuple:
        out = self._sym_gen(key)
        if not isinstance(out, tuple) or len(out) != 3:
            raise ValueError(f"sym_gen({key!r}) must return (symbol, data_names, label_names), got {out!r}")
        return out

    def _new_module(self, key: Any) -> Module:
        symbol, data_names, label_names = self._call_sym_gen(key)
        return Module(symbol, data_names, label_names, logger=self.logger, context=self._context,
                      work_load_list=self._work_load_list, fixed_param_names=self._fixed_param_names,
                      state_names=self._state_names)

    # ------------------------------------------------------------------ names
    @property
    def data_names(self) -> list[str]:
        return self._curr_module.data_names if self.binded else self._data_names_default

    @property
    def output_names(self) -> list[str]:
        return self._curr_module.output_names if self.binded else self._call_sym_gen(
            self._default_bucket_key)[0].list_outputs()

    @property
    def data_shapes(self) -> list:
        return self._curr_module.data_shapes

    @property
    def label_shapes(self) -> list:
        return self._curr_module.label_shapes

    @property
    def output_shapes(self) -> list:
        return self._curr_module.output_shapes

    @property
    def symbol(self) -> Any:
        return self._curr_module.symbol

    # ------------------------------------------------------------------ parameters
    def get_params(self) -> tuple[dict, dict]:
        self._check_ready("get_params")
        return self._curr_module.get_params()

    def init_params(self, initializer: Any = None, arg_params: dict | None = None,
                    aux_params: dict | None = None, allow_missing: bool = False, force_init: bool = False,
                    allow_extra: bool = False) -> None:
        if self.params_initialized and not force_init:
            return
        if not self.binded:
            raise RuntimeError("init_params: call bind() first")
        self._curr_module.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                                      allow_missing=allow_missing, force_init=force_init,
                                      allow_extra=allow_extra)
        self.params_initialized = True

    def set_params(self, arg_params: dict, aux_params: dict, allow_missing: bool = False,
                   force_init: bool = True, allow_extra: bool = False) -> None:
        if not allow_missing:
            self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                             allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra)
            return
        self._curr_module.set_params(arg_params, aux_params, allow_missing=allow_missing,
                                     force_init=force_init, allow_extra=allow_extra)
        self.params_initialized = True

    # ------------------------------------------------------------------ binding
    def bind(self, data_shapes: Any, label_shapes: Any = None, for_training: bool = True,
             inputs_need_grad: bool = False, force_rebind: bool = False, shared_module: Any = None,
             grad_req: Any = "write") -> None:
        if self.params_initialized:
            arg, aux = self.get_params()
        if force_rebind:
            self._buckets = {}
            self._curr_module = None
            self.binded = False
        if self.binded:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if shared_module is not None:
            raise ValueError("shared_module for BucketingModule is not supported")
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._grad_req = grad_req
        module = self._buckets.get(self._default_bucket_key) or self._new_module(self._default_bucket_key)
        module.bind(data_shapes, label_shapes, for_training, inputs_need_grad, grad_req=grad_req)
        self._buckets[self._default_bucket_key] = module
        self._curr_module = module
        self._curr_bucket_key = self._default_bucket_key
        self.binded = True
        if self.params_initialized:
            self.set_params(arg, aux)

    def switch_bucket(self, bucket_key: Any, data_shapes: Any, label_shapes: Any = None) -> None:
        """Make ``bucket_key``'s module current (made and bound on first use), carrying the
        parameters over."""
        if not self.binded:
            raise RuntimeError("switch_bucket: call bind() first")
        prev = self._curr_module
        module = self._buckets.get(bucket_key)
        if module is None:
            module = self._new_module(bucket_key)
            module.bind(data_shapes, label_shapes, prev.for_training, prev.inputs_need_grad,
                        shared_module=self._buckets[self._default_bucket_key], grad_req=self._grad_req)
            if self._monitor is not None:
                module.install_monitor(self._monitor)
            if self.optimizer_initialized:
                module.borrow_optimizer(prev)
            self._buckets[bucket_key] = module
        if module is not prev:
            _carry_params(prev, module)
        self._curr_module = module
        self._curr_bucket_key = bucket_key

    # ------------------------------------------------------------------ optimizer and computation
    def init_optimizer(self, kvstore: Any = "local", optimizer: Any = "sgd",
                       optimizer_params: Any = (("learning_rate", 0.01),), force_init: bool = False) -> None:
        self._check_ready("init_optimizer")
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring.")
            return
        self._curr_module.init_optimizer(kvstore, optimizer, optimizer_params, force_init=force_init)
        for mod in self._buckets.values():
            if mod is not self._curr_module:
                mod.borrow_optimizer(self._curr_module)
        self.optimizer_initialized = True

    def prepare(self, data_batch: Any, sparse_row_id_fn: Any = None) -> None:
        self._check_ready("prepare")
        key = getattr(data_batch, "bucket_key", None)
        if key is None:
            return
        orig_key, orig_data, orig_label = self._curr_bucket_key, self._curr_module.data_shapes, \
            self._curr_module.label_shapes
        self.switch_bucket(key, data_batch.provide_data, data_batch.provide_label)
        self.switch_bucket(orig_key, orig_data, orig_label)

    def forward(self, data_batch: Any, is_train: bool | None = None) -> None:
        self._check_ready("forward")
        key = getattr(data_batch, "bucket_key", None)
        if key is None:
            key = self._default_bucket_key
        self.switch_bucket(key, data_batch.provide_data, data_batch.provide_label)
        self._curr_module.forward(data_batch, is_train=is_train)

    def backward(self, out_grads: Any = None) -> None:
        self._check_ready("backward")
        self._curr_module.backward(out_grads=out_grads)

    def update(self) -> None:
        if not self.optimizer_initialized:
            raise RuntimeError("update: call init_optimizer() first")
        self._curr_module.update()

    def get_outputs(self, merge_multi_context: bool = True) -> list:
        return self._curr_module.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context: bool = True) -> list:
        return self._curr_module.get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric: Any, labels: Any, pre_sliced: bool = False) -> None:
        self._curr_module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon: Any) -> None:
        self._monitor = mon
        for mod in self._buckets.values():
            mod.install_monitor(mon)

    def save_checkpoint(self, prefix: str, epoch: int, remove_amp_cast: bool = False) -> None:
        """Every bucket's symbol (``prefix-<key>-symbol.json``) and the shared parameters."""
        for key, mod in self._buckets.items():
            mod.symbol.save(f"{prefix}-{key}-symbol.json", remove_amp_cast=remove_amp_cast)
        self.save_params(f"{prefix}-{epoch:04d}.params")


def _carry_params(src: Module, dst: Module) -> None:
    """Point ``dst``'s executors at ``src``'s current parameter arrays (no copy)."""
    names = set(src._param_names) & set(dst._param_names)
    aux = set(src._aux_names) & set(dst._aux_names)
    for s, d in zip(src._exec_group.execs, dst._exec_group.execs, strict=True):
        for n in names:
            d.arg_dict[n] = s.arg_dict[n]
        for n in aux:
            d.aux_dict[n] = s.aux_dict[n]
    dst._params_dirty = True
    dst._arg_params = src._arg_params
    dst._aux_params = src._aux_params
