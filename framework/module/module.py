"""MXNet's ``Module``: a symbol with its parameters, bound to one or more devices (data parallel: each
device gets a slice of the batch, gradients are summed, one optimizer step per batch), trained with
``fit`` or by hand (``forward``/``backward``/``update``), saved as MXNet checkpoints.

>>> import numpy as onp
>>> import framework as mx
>>> net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc'),
...                            name='softmax')
>>> mod = mx.mod.Module(net, context=mx.cpu())
>>> it = mx.io.NDArrayIter(onp.ones((8, 3), 'f'), onp.zeros(8, 'f'), batch_size=4)
>>> mod.fit(it, num_epoch=1, optimizer_params={'learning_rate': 0.1})
>>> sorted(mod.get_params()[0])
['fc_bias', 'fc_weight']
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from .. import model as _model
from ..io import DataDesc
from .base_module import BaseModule, check_input_names, parse_data_desc
from .executor_group import DataParallelExecutorGroup
from .updater import ModuleUpdater, mxnet_mults

__all__ = ["Module"]


def _contexts(context: Any) -> list[jax.Device]:
    if context is None:
        return [jax.devices("cpu")[0]]
    ctxs = list(context) if isinstance(context, (list, tuple)) else [context]
    if not ctxs:
        raise ValueError("Module: context must name at least one device")
    return ctxs


class Module(BaseModule):
    """See the module docstring. ``symbol``'s arguments are the data (``data_names``), the labels
    (``label_names``), states (``state_names``) and the parameters (all others; ``fixed_param_names``
    are not trained)."""

    def __init__(self, symbol: Any, data_names: Sequence[str] | None = ("data",),
                 label_names: Sequence[str] | None = ("softmax_label",), logger: Any = logging,
                 context: Any = None, work_load_list: Sequence[float] | None = None,
                 fixed_param_names: Sequence[str] | None = None, state_names: Sequence[str] | None = None,
                 group2ctxs: Any = None, compression_params: Any = None) -> None:
        super().__init__(logger=logger)
        from ..device import cpu

        self._context = _contexts(context if context is not None else cpu())
        n = len(self._context)
        self._work_load_list = list(work_load_list) if work_load_list is not None else [1] * n
        if len(self._work_load_list) != len(self._context):
            raise ValueError(f"work_load_list has {len(self._work_load_list)} entries for "
                             f"{len(self._context)} devices")
        self._symbol = symbol
        self._data_names = list(data_names) if data_names is not None else []
        self._label_names = list(label_names) if label_names is not None else []
        self._state_names = list(state_names) if state_names is not None else []
        self._fixed_param_names = list(fixed_param_names) if fixed_param_names is not None else []
        check_input_names(symbol, self._data_names, "data", True)
        check_input_names(symbol, self._label_names, "label", False)
        check_input_names(symbol, self._state_names, "state", True)
        check_input_names(symbol, self._fixed_param_names, "fixed_param", True)
        inputs = set(self._data_names + self._label_names + self._state_names)
        self._param_names = [n for n in symbol.list_arguments() if n not in inputs]
        self._aux_names = symbol.list_auxiliary_states()
        self._output_names = symbol.list_outputs()
        self._arg_params: dict[str, Any] | None = None
        self._aux_params: dict[str, Any] | None = None
        self._params_dirty = False
        self._exec_group: DataParallelExecutorGroup | None = None
        self._data_shapes: list[DataDesc] = []
        self._label_shapes: list[DataDesc] = []
        self._optimizer: Any = None
        self._updater: ModuleUpdater | None = None
        self._kvstore: Any = None
        self._update_on_kvstore = False
        self._preload_opt_states: str | None = None
        self._grad_req: Any = None

    # ------------------------------------------------------------------ checkpoints
    @staticmethod
    def load(prefix: str, epoch: int, load_optimizer_states: bool = False, **kwargs: Any) -> Module:
        """A Module from ``prefix-symbol.json`` and ``prefix-%04d.params`` (MXNet's checkpoint);
        ``kwargs`` go to the constructor. The parameters are set at ``bind``."""
        sym, args, auxs = _model.load_checkpoint(prefix, epoch)
        mod = Module(symbol=sym, **kwargs)
        mod._arg_params = args
        mod._aux_params = auxs
        mod.params_initialized = True
        if load_optimizer_states:
            mod._preload_opt_states = f"{prefix}-{epoch:04d}.states"
        return mod

    def save_checkpoint(self, prefix: str, epoch: int, save_optimizer_states: bool = False,
                        remove_amp_cast: bool = True) -> None:
        """Write ``prefix-symbol.json``, ``prefix-%04d.params`` (and ``.states``)."""
        self._symbol.save(f"{prefix}-symbol.json", remove_amp_cast=remove_amp_cast)
        param_name = f"{prefix}-{epoch:04d}.params"
        self.save_params(param_name)
        logging.info('Saved checkpoint to "%s"', param_name)
        if save_optimizer_states:
            state_name = f"{prefix}-{epoch:04d}.states"
            self.save_optimizer_states(state_name)
            logging.info('Saved optimizer state to "%s"', state_name)

    # ------------------------------------------------------------------ names and shapes
    @property
    def data_names(self) -> list[str]:
        return self._data_names

    @property
    def label_names(self) -> list[str]:
        return self._label_names

    @property
    def output_names(self) -> list[str]:
        return self._output_names

    @property
    def data_shapes(self) -> list[DataDesc]:
        self._need("data_shapes", bound=True)
        return self._data_shapes

    @property
    def label_shapes(self) -> list[DataDesc]:
        self._need("label_shapes", bound=True)
        return self._label_shapes

    @property
    def output_shapes(self) -> list[tuple[str, tuple[int, ...]]]:
        self._need("output_shapes", bound=True)
        outs = self._exec_group.get_outputs() if self._exec_group.execs[0]._outputs is not None else None
        if outs is not None:
            return [(n, tuple(o.shape)) for n, o in zip(self._output_names, outs, strict=True)]
        shapes = {d.name: d.shape for d in self._data_shapes + self._label_shapes}
        _, out_shapes, _ = self._symbol.infer_shape(**shapes)
        return list(zip(self._output_names, out_shapes, strict=True))

    def _need(self, what: str, bound: bool = False, params: bool = False, optimizer: bool = False) -> None:
        if bound and not self.binded:
            raise RuntimeError(f"{what}: call bind() first")
        if params and not self.params_initialized:
            raise RuntimeError(f"{what}: call init_params() first")
        if optimizer and not self.optimizer_initialized:
            raise RuntimeError(f"{what}: call init_optimizer() first")

    # ------------------------------------------------------------------ parameters
    def get_params(self) -> tuple[dict, dict]:
        """``(arg_params, aux_params)``: the current values on the CPU (averaged over devices)."""
        self._need("get_params", bound=True, params=True)
        if self._params_dirty:
            self._sync_params_from_devices()
        return dict(self._arg_params), dict(self._aux_params)

    def init_params(self, initializer: Any = None, arg_params: dict | None = None,
                    aux_params: dict | None = None, allow_missing: bool = False, force_init: bool = False,
                    allow_extra: bool = False) -> None:
        """Initialise the parameters: values from ``arg_params``/``aux_params`` where given, else
        ``initializer`` (default ``Uniform(0.01)``; a variable's own ``__init__`` attribute wins)."""
        from .. import initializer as init_mod
        from ..np import random as _random

        if self.params_initialized and not force_init:
            logging.warning("Parameters already initialized and force_init=False. init_params call ignored.")
            return
        self._need("init_params", bound=True)
        if initializer is None and arg_params is None and aux_params is None:
            initializer = init_mod.Uniform(0.01)
        attrs = self._symbol.attr_dict()
        first = self._exec_group.execs[0]
        cpu = jax.devices("cpu")[0]
        new_arg, new_aux = {}, {}
        for names, given, out, source in ((self._param_names, arg_params, new_arg, first.arg_dict),
                                          (self._aux_names, aux_params, new_aux, first.aux_dict)):
            for name in sorted(names):
                arr = source[name]
                if given is not None and name in given:
                    value = jnp.asarray(onp.asarray(given[name]))
                    if tuple(value.shape) != tuple(arr.shape):
                        raise ValueError(f"init_params: {name} has shape {tuple(value.shape)}, the module "
                                         f"needs {tuple(arr.shape)}")
                    out[name] = jax.device_put(value.astype(arr.dtype), cpu)
                elif given is not None and not allow_missing:
                    raise RuntimeError(f"{name} is not presented")
                elif initializer is not None:
                    desc = init_mod.InitDesc(name, attrs.get(name))
                    out[name] = jax.device_put(initializer(desc, arr.shape, arr.dtype,
                                                           key=_random.next_key()), cpu)
                else:
                    out[name] = jax.device_put(arr, cpu)
        # MXNet draws in sorted order but keeps (and saves) the parameters in the symbol's order
        self._arg_params = {name: new_arg[name] for name in self._param_names}
        self._aux_params = {name: new_aux[name] for name in self._aux_names}
        self.params_initialized = True
        self._params_dirty = False
        self._exec_group.set_params(self._arg_params, self._aux_params, allow_extra=allow_extra)

    def set_params(self, arg_params: dict, aux_params: dict, allow_missing: bool = False,
                   force_init: bool = True, allow_extra: bool = False) -> None:
        """Assign parameter values (every parameter unless ``allow_missing``)."""
        if not allow_missing:
            self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                             allow_missing=False, force_init=force_init, allow_extra=allow_extra)
            return
        if self.params_initialized and not force_init:
            logging.warning("Parameters already initialized and force_init=False. set_params call ignored.")
            return
        self._exec_group.set_params(arg_params, aux_params, allow_extra=allow_extra)
        self._params_dirty = True
        self.params_initialized = True

    def _copy_to_devices(self, allow_extra: bool = False) -> None:
        if self._exec_group is not None and self._arg_params is not None:
            self._exec_group.set_params(self._arg_params, self._aux_params or {}, allow_extra=allow_extra)

    def _sync_params_from_devices(self) -> None:
        self._exec_group.get_params(self._arg_params, self._aux_params)
        self._params_dirty = False

    # ------------------------------------------------------------------ binding
    def bind(self, data_shapes: Any, label_shapes: Any = None, for_training: bool = True,
             inputs_need_grad: bool = False, force_rebind: bool = False, shared_module: Module | None = None,
             grad_req: Any = "write") -> None:
        """Bind executors for inputs of these shapes (``[('data', (64, 1, 28, 28))]`` or DataDescs)."""
        if force_rebind:
            self._exec_group = None
            self.binded = False
        if self.binded:
            self.logger.warning("Already bound, ignoring bind()")
            return
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._grad_req = grad_req
        if not for_training and inputs_need_grad:
            raise ValueError("bind: inputs_need_grad needs for_training=True")
        self._data_shapes, self._label_shapes = parse_data_desc(self._data_names, self._label_names,
                                                                data_shapes, label_shapes)
        shared_group = shared_module._exec_group if shared_module is not None else None
        self._exec_group = DataParallelExecutorGroup(
            self._symbol, self._context, self._work_load_list, self._data_shapes, self._label_shapes,
            self._param_names, for_training, inputs_need_grad, shared_group,
            fixed_param_names=self._fixed_param_names, grad_req=grad_req, state_names=self._state_names)
        self.binded = True
        if shared_module is not None:
            self.params_initialized = True
            self._arg_params = shared_module._arg_params
            self._aux_params = shared_module._aux_params
        elif self.params_initialized:  # loaded from a checkpoint: the values go to the devices now
            self._copy_to_devices()

    def reshape(self, data_shapes: Any, label_shapes: Any = None) -> None:
        """Rebind for other input shapes, keeping the parameters."""
        self._need("reshape", bound=True)
        self._data_shapes, self._label_shapes = parse_data_desc(self._data_names, self._label_names,
                                                                data_shapes, label_shapes)
        self._exec_group.reshape(self._data_shapes, self._label_shapes)

    # ------------------------------------------------------------------ optimizer
    def init_optimizer(self, kvstore: Any = "local", optimizer: Any = "sgd",
                       optimizer_params: Any = (("learning_rate", 0.01),), force_init: bool = False) -> None:
        """Create the optimizer (``rescale_grad`` = 1/batch size unless given) and its updater."""
        from .. import optimizer as opt

        self._need("init_optimizer", bound=True, params=True)
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring...")
            return
        if self._params_dirty:
            self._sync_params_from_devices()
        batch_size = self._exec_group.batch_size
        if kvstore is not None and not isinstance(kvstore, str) and "dist" in getattr(kvstore, "type", "") \
                and "_sync" in kvstore.type:
            batch_size *= kvstore.num_workers
        rescale_grad = 1.0 / batch_size
        idx2name = dict(enumerate(self._exec_group.param_names))
        if isinstance(optimizer, str):
            params = dict(optimizer_params)
            params.setdefault("rescale_grad", rescale_grad)
            optimizer = opt.create(optimizer, sym=self._symbol, param_idx2name=idx2name, **params)
        else:
            if not isinstance(optimizer, opt.Optimizer):
                raise TypeError(f"init_optimizer: optimizer must be a name or an Optimizer, got "
                                f"{type(optimizer).__name__}")
            if optimizer.rescale_grad != rescale_grad:
                self.logger.warning("Optimizer created manually outside Module but rescale_grad is not "
                                    "normalized to 1.0/batch_size/num_workers (%s vs. %s). Is this intended?",
                                    optimizer.rescale_grad, rescale_grad)
            if not optimizer.idx2name:
                optimizer.idx2name = idx2name
        trained = [n for n in self._exec_group.param_names if n not in self._fixed_param_names]
        lr_mult, wd_mult = mxnet_mults(trained, self._symbol.attr_dict())
        lr_mult.update({k: v for k, v in optimizer.lr_mult.items() if k in trained})
        wd_mult.update({k: v for k, v in optimizer.wd_mult.items() if k in trained})
        self._optimizer = optimizer
        self._kvstore = kvstore
        self._updater = ModuleUpdater(optimizer, trained, lr_mult, wd_mult)
        self.optimizer_initialized = True
        if self._preload_opt_states is not None:
            self.load_optimizer_states(self._preload_opt_states)
            self._preload_opt_states = None

    def borrow_optimizer(self, shared_module: Module) -> None:
        """Share ``shared_module``'s optimizer and updater (its state too)."""
        if not shared_module.optimizer_initialized:
            raise RuntimeError("borrow_optimizer: the shared module has no optimizer yet")
        self._optimizer = shared_module._optimizer
        self._kvstore = shared_module._kvstore
        self._updater = shared_module._updater
        self.optimizer_initialized = True

    # ------------------------------------------------------------------ computation
    def forward(self, data_batch: Any, is_train: bool | None = None) -> None:
        """Forward a batch; a batch of other shapes rebinds (the parameters carry over)."""
        self._need("forward", bound=True, params=True)
        shapes = [tuple(x.shape) for x in data_batch.data]
        bound = [tuple(d.shape) for d in self._data_shapes]
        if shapes != bound:
            provide_data = getattr(data_batch, "provide_data", None) or [
                DataDesc(d.name, s, getattr(d, "dtype", onp.float32), getattr(d, "layout", "NCHW"))
                for d, s in zip(self._data_shapes, shapes, strict=True)]
            provide_label = getattr(data_batch, "provide_label", None)
            if provide_label is None and data_batch.label is not None and self._label_shapes:
                provide_label = [DataDesc(d.name, tuple(x.shape), getattr(d, "dtype", onp.float32),
                                          getattr(d, "layout", "NCHW"))
                                 for d, x in zip(self._label_shapes, data_batch.label, strict=False)]
            self.reshape(provide_data, provide_label or None)
        self._exec_group.forward(data_batch, is_train)

    def backward(self, out_grads: Any = None) -> None:
        """Backward of the last training forward (``out_grads`` for heads that are not loss layers)."""
        self._need("backward", bound=True, params=True)
        self._exec_group.backward(out_grads=out_grads)

    def update(self) -> None:
        """One optimizer step from the gradients of the last backward (summed over devices)."""
        self._need("update", bound=True, params=True, optimizer=True)
        self._params_dirty = True
        names = self._updater.param_names
        execs = self._exec_group.execs
        values = [{n: e.arg_dict[n] for n in names} for e in execs]
        grads = [{n: e.grad_dict[n] for n in names} for e in execs]
        new = self._updater.step(values, grads)
        for e, v in zip(execs, new, strict=True):
            e.arg_dict.update(v)

    def get_outputs(self, merge_multi_context: bool = True) -> list:
        self._need("get_outputs", bound=True, params=True)
        return self._exec_group.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context: bool = True) -> list:
        self._need("get_input_grads", bound=True, params=True)
        return self._exec_group.get_input_grads(merge_multi_context=merge_multi_context)

    def get_states(self, merge_multi_context: bool = True) -> list:
        self._need("get_states", bound=True, params=True)
        states = [[e.arg_dict[n] for e in self._exec_group.execs] for n in self._state_names]
        if not merge_multi_context:
            return states
        return [s[0] if len(s) == 1 else jnp.concatenate(s) for s in states]

    def set_states(self, states: Any = None, value: Any = None) -> None:
        self._need("set_states", bound=True, params=True)
        for i, name in enumerate(self._state_names):
            for k, e in enumerate(self._exec_group.execs):
                old = e.arg_dict[name]
                if value is not None:
                    e.arg_dict[name] = jnp.full(old.shape, value, old.dtype)
                else:
                    src = states[i][k] if isinstance(states[i], (list, tuple)) else states[i]
                    e.arg_dict[name] = jax.device_put(jnp.asarray(src, old.dtype), next(iter(old.devices())))

    def update_metric(self, eval_metric: Any, labels: Any, pre_sliced: bool = False) -> None:
        self._exec_group.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon: Any) -> None:
        self._need("install_monitor", bound=True)
        self._exec_group.install_monitor(mon)

    # ------------------------------------------------------------------ optimizer states
    def save_optimizer_states(self, fname: str | os.PathLike) -> None:
        """Write the optimizer state (MXNet's .params container, no pickle)."""
        self._need("save_optimizer_states", optimizer=True)
        self._updater.save_states(fname)

    def load_optimizer_states(self, fname: str | os.PathLike) -> None:
        """Read what :meth:`save_optimizer_states` wrote (validated first)."""
        self._need("load_optimizer_states", optimizer=True)
        self._updater.load_states(fname)
