"""MXNet's ``DataParallelExecutorGroup``: one executor per device, each bound to its slice of the batch
(MXNet's split: sizes proportional to ``work_load_list``), the parameters replicated on every device.
Outputs are concatenated on the batch axis; gradients are summed by the updater (MXNet's ``local``
kvstore: reduce, update once, broadcast).

>>> split_input_slice(10, [1, 1, 1])
[slice(0, 3, None), slice(3, 6, None), slice(6, 10, None)]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from ..io import DataDesc

__all__ = ["DataParallelExecutorGroup", "split_input_slice"]


def split_input_slice(batch_size: int, work_load_list: Sequence[float]) -> list[slice]:
    """The batch slice of each device, sized by its share of ``work_load_list`` (MXNet's rounding)."""
    total = float(sum(work_load_list))
    if total <= 0:
        raise ValueError(f"work_load_list {list(work_load_list)} must sum to a positive number")
    sizes = [int(round(w * batch_size / total)) for w in work_load_list]
    sizes[-1] = batch_size - sum(sizes[:-1])
    if any(s <= 0 for s in sizes):
        raise ValueError(f"Too many slices: a batch of {batch_size} cannot be split over "
                         f"{len(work_load_list)} devices with work loads {list(work_load_list)}; use a "
                         "larger batch or fewer devices")
    out, start = [], 0
    for s in sizes:
        out.append(slice(start, start + s))
        start += s
    return out


def _batch_axis(desc: DataDesc) -> int:
    return DataDesc.get_batch_axis(getattr(desc, "layout", "NCHW"))


def _take(x: Any, sl: slice, axis: int) -> Any:
    if axis <= 0:
        return x[sl]
    index = [slice(None)] * x.ndim
    index[axis] = sl
    return x[tuple(index)]


class DataParallelExecutorGroup:
    """Executors of one symbol on several devices (see the module docstring)."""

    def __init__(self, symbol: Any, contexts: Sequence[jax.Device], workload: Sequence[float] | None,
                 data_shapes: list[DataDesc], label_shapes: list[DataDesc], param_names: list[str],
                 for_training: bool, inputs_need_grad: bool, shared_group: Any = None,
                 fixed_param_names: Sequence[str] | None = None, grad_req: Any = "write",
                 state_names: Sequence[str] | None = None) -> None:
        self.symbol = symbol
        self.contexts = list(contexts)
        self.workload = list(workload) if workload is not None else [1] * len(self.contexts)
        self.param_names = list(param_names)
        self.fixed_param_names = list(fixed_param_names or [])
        self.state_names = list(state_names or [])
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.arg_names = symbol.list_arguments()
        self.aux_names = symbol.list_auxiliary_states()
        self.output_names = symbol.list_outputs()
        self._grad_req = grad_req
        self.execs: list[Any] = []
        self.bind_exec(data_shapes, label_shapes, shared_group)

    # ------------------------------------------------------------------ binding
    def _reqs(self) -> dict[str, str]:
        data_names = [d.name for d in self.data_shapes]
        reqs = {}
        for name in self.arg_names:
            if not self.for_training:
                reqs[name] = "null"
            elif name in self.param_names:
                req = self._grad_req
                base = req.get(name, "write") if isinstance(req, dict) else req
                reqs[name] = "null" if name in self.fixed_param_names else base
            elif name in data_names:
                reqs[name] = "write" if self.inputs_need_grad else "null"
            else:
                reqs[name] = "null"
        return reqs

    def bind_exec(self, data_shapes: list[DataDesc], label_shapes: list[DataDesc],
                  shared_group: Any = None, reshape: bool = False) -> None:
        """Bind (or rebind for new shapes) one executor per device, keeping the parameter arrays."""
        self.data_shapes = list(data_shapes)
        self.label_shapes = list(label_shapes or [])
        self.batch_size = self.data_shapes[0].shape[_batch_axis(self.data_shapes[0])]
        self.slices = split_input_slice(self.batch_size, self.workload)
        old = self.execs if self.execs else (shared_group.execs if shared_group is not None else [])
        reqs = self._reqs()
        execs = []
        for i, dev in enumerate(self.contexts):
            shapes = {}
            for d in self.data_shapes + self.label_shapes:
                axis = _batch_axis(d)
                shape = list(d.shape)
                if axis >= 0:
                    shape[axis] = self.slices[i].stop - self.slices[i].start
                shapes[d.name] = tuple(shape)
            types = {d.name: getattr(d, "dtype", onp.float32) for d in self.data_shapes + self.label_shapes}
            exe = self.symbol.simple_bind(dev, grad_req=reqs, type_dict=types,
                                          shared_exec=old[i] if i < len(old) else None, **shapes)
            execs.append(exe)
        self.execs = execs

    def reshape(self, data_shapes: list[DataDesc], label_shapes: list[DataDesc]) -> None:
        """Rebind for other input shapes (the parameters carry over)."""
        if data_shapes == self.data_shapes and list(label_shapes or []) == self.label_shapes:
            return
        self.bind_exec(data_shapes, label_shapes, reshape=True)

    # ------------------------------------------------------------------ parameters
    @property
    def param_arrays(self) -> list[list[jax.Array]]:
        return [[e.arg_dict[n] for e in self.execs] for n in self.param_names]

    @property
    def grad_arrays(self) -> list[list[jax.Array]]:
        names = [n for n in self.param_names if n in self.execs[0].grad_dict]
        return [[e.grad_dict[n] for e in self.execs] for n in names]

    @property
    def aux_arrays(self) -> list[list[jax.Array]]:
        return [[e.aux_dict[n] for e in self.execs] for n in self.aux_names]

    def set_params(self, arg_params: dict, aux_params: dict, allow_extra: bool = False) -> None:
        """Copy the values onto every device."""
        for exe in self.execs:
            exe.copy_params_from(arg_params, aux_params, allow_extra_params=allow_extra)

    def get_params(self, arg_params: dict, aux_params: dict) -> None:
        """Write the parameters (averaged over the devices, as MXNet does) into the dicts, on the CPU."""
        cpu = jax.devices("cpu")[0]
        for name in self.param_names:
            arg_params[name] = _average([e.arg_dict[name] for e in self.execs], cpu)
        for name in self.aux_names:
            aux_params[name] = _average([e.aux_dict[name] for e in self.execs], cpu)

    # ------------------------------------------------------------------ running
    def _inputs(self, batch: Any, descs: list[DataDesc], values: Sequence[Any] | None) -> list[dict]:
        per_dev: list[dict] = [{} for _ in self.execs]
        if values is None:
            return per_dev
        for d, v in zip(descs, values, strict=False):
            axis = _batch_axis(d)
            for i in range(len(self.execs)):
                part = v if len(self.execs) == 1 else _take(v, self.slices[i], axis)
                per_dev[i][d.name] = part
        return per_dev

    def forward(self, data_batch: Any, is_train: bool | None = None) -> None:
        """Slice the batch over the devices and run each executor's forward."""
        if is_train is None:
            is_train = self.for_training
        data = self._inputs(data_batch, self.data_shapes, data_batch.data)
        labels = self._inputs(data_batch, self.label_shapes, data_batch.label if self.label_shapes else None)
        for i, exe in enumerate(self.execs):
            feed = {**data[i], **(labels[i] if is_train or labels[i] else {})}
            feed = {k: v for k, v in feed.items() if k in exe.arg_dict}
            exe.forward(is_train=is_train, **feed)

    def backward(self, out_grads: Sequence[Any] | None = None) -> None:
        """Each executor's backward (``out_grads`` sliced like the outputs)."""
        if not self.for_training:
            raise RuntimeError("backward: re-bind with for_training=True to run backward")
        for i, exe in enumerate(self.execs):
            grads = None
            if out_grads is not None:
                grads = [g if len(self.execs) == 1 else _take(g, self.slices[i], 0) for g in out_grads]
            exe.backward(out_grads=grads)

    def get_outputs(self, merge_multi_context: bool = True) -> list:
        outs = [exe.outputs for exe in self.execs]
        per_output = [[o[k] for o in outs] for k in range(len(outs[0]))]
        if not merge_multi_context:
            return per_output
        return [_merge(parts) for parts in per_output]

    def get_input_grads(self, merge_multi_context: bool = True) -> list:
        if not self.inputs_need_grad:
            raise RuntimeError("get_input_grads: bind with inputs_need_grad=True")
        grads = [[exe.grad_dict[d.name] for exe in self.execs] for d in self.data_shapes]
        return [_merge(g) for g in grads] if merge_multi_context else grads

    def update_metric(self, eval_metric: Any, labels: Sequence[Any], pre_sliced: bool = False) -> None:
        """Update the metric with each device's outputs and its slice of the labels."""
        for i, exe in enumerate(self.execs):
            if pre_sliced:
                lab = labels[i]
            elif len(self.execs) == 1:
                lab = labels
            else:
                lab = [_take(x, self.slices[i], max(_batch_axis(d), 0))
                       for x, d in zip(labels, self.label_shapes or [DataDesc("label", (0,))] * len(labels),
                                       strict=False)]
            names = [d.name for d in self.label_shapes] or [f"label{k}" for k in range(len(lab))]
            eval_metric.update_dict(dict(zip(names, lab, strict=False)),
                                    dict(zip(self.output_names, exe.outputs, strict=True)))

    def install_monitor(self, mon: Any) -> None:
        for exe in self.execs:
            mon.install(exe)


def _average(arrays: list[jax.Array], device: jax.Device) -> jax.Array:
    if len(arrays) == 1:
        return jax.device_put(arrays[0], device)
    total = jax.device_put(arrays[0], device)
    for a in arrays[1:]:
        total = total + jax.device_put(a, device)
    return total / len(arrays)


def _merge(parts: list[jax.Array]) -> jax.Array:
    if len(parts) == 1:
        return parts[0]
    dev = next(iter(parts[0].devices()))
    return jnp.concatenate([jax.device_put(p, dev) for p in parts], axis=0)
