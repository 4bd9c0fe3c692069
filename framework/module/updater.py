"""The Module's optimizer step: MXNet's ``local`` kvstore semantics (each parameter's gradients summed over
the devices, one update with the optimizer's rule, the new value copied to every device) as ONE
compiled program per device set, through the compile layer. The optimizer is MXNet's (``framework.
optimizer``: its optax form); learning-rate schedules advance on the host (``num_update``), the rate is
an input of the program.

Optimizer state files (``save_optimizer_states``) are MXNet's ``.params`` container (no pickle):
``count``, ``num_update`` and one array per state slot (``slot:<param>:<i>``).

>>> import jax.numpy as jnp
>>> from framework import optimizer
>>> up = ModuleUpdater(optimizer.create('sgd', learning_rate=0.5), ['w'], {}, {})
>>> new = up.step([{'w': jnp.ones(2)}], [{'w': jnp.ones(2)}])
>>> new[0]['w'].tolist()
[0.5, 0.5]
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from .. import _compile, serialization
from ..optimizer import set_hyperparams

__all__ = ["ModuleUpdater", "mxnet_mults"]


def mxnet_mults(param_names: Sequence[str], attrs: Mapping[str, Mapping[str, str]]) -> tuple[dict, dict]:
    """MXNet's per-parameter multipliers for a Module: ``__lr_mult__``/``__wd_mult__`` attributes, and no
    weight decay for parameters whose names end neither in ``_weight`` nor in ``_gamma``."""
    lr_mult, wd_mult = {}, {}
    for n in param_names:
        if not n.endswith(("_weight", "_gamma")):
            wd_mult[n] = 0.0
        a = attrs.get(n, {})
        if "__lr_mult__" in a:
            lr_mult[n] = float(a["__lr_mult__"])
        if "__wd_mult__" in a:
            wd_mult[n] = float(a["__wd_mult__"])
    return lr_mult, wd_mult


def _update_fn(tx: Any, names: tuple[str, ...]):
    def update(values, grads, state, lr, rescale):
        total = grads[0]
        for other in grads[1:]:
            total = jax.tree_util.tree_map(jnp.add, total, other)
        state = set_hyperparams(state, learning_rate=lr, rescale_grad=rescale)
        updates, new_state = tx.update(total, state, values)
        return {n: values[n] + updates[n].astype(values[n].dtype) for n in names}, new_state
    return update


class ModuleUpdater:
    """Updates a Module's parameters from its executors' gradients (see the module docstring)."""

    def __init__(self, optimizer: Any, param_names: Sequence[str], lr_mult: Mapping[str, float],
                 wd_mult: Mapping[str, float]) -> None:
        self.optimizer = optimizer
        self.param_names = tuple(param_names)
        self.tx = optimizer.to_optax(lr_mult=dict(lr_mult), wd_mult=dict(wd_mult))
        self.state: Any = None
        self._pending_state: dict[str, onp.ndarray] | None = None

    def _init_state(self, values: dict[str, jax.Array]) -> None:
        init = _compile.jit(("module_optimizer_init", id(self.tx)), lambda: self.tx.init, owner=self)
        self.state = init(values)
        if self._pending_state is not None:
            self.state = _restore(self.state, self._pending_state)
            self._pending_state = None

    def step(self, values_per_device: list[dict[str, jax.Array]],
             grads_per_device: list[dict[str, jax.Array]]) -> list[dict[str, jax.Array]]:
        """New parameter values for every device (``values_per_device[0]``'s device does the update)."""
        opt = self.optimizer
        opt.num_update += 1
        lr = onp.float32(opt.learning_rate)
        rescale = onp.float32(opt.rescale_grad)
        values = values_per_device[0]
        if self.state is None:
            self._init_state(values)
        dev = next(iter(next(iter(values.values())).devices())) if values else None
        grads = [grads_per_device[0]] + [jax.device_put(g, dev) for g in grads_per_device[1:]]
        fn = _compile.jit(("module_update", id(self.tx), self.param_names, len(grads)),
                          lambda: _update_fn(self.tx, self.param_names), owner=self)
        new, self.state = fn(values, grads, self.state, lr, rescale)
        out = [new]
        for other in values_per_device[1:]:
            d = next(iter(next(iter(other.values())).devices()))
            out.append(jax.device_put(new, d))
        return out

    # ------------------------------------------------------------------ state files
    def save_states(self, fname: str | os.PathLike) -> None:
        """Write the optimizer state (MXNet's .params container; no pickle)."""
        arrays: dict[str, Any] = {"num_update": onp.asarray([self.optimizer.num_update], onp.int64)}
        if self.state is not None:
            arrays["count"] = onp.asarray(self.state.count).reshape(1)
            for name, slots in self.state.slots.items():
                for i, s in enumerate(slots):
                    arrays[f"slot:{name}:{i}"] = onp.asarray(s)
        serialization.save(os.fspath(fname), arrays, format="nd")

    def load_states(self, fname: str | os.PathLike) -> None:
        """Read what :meth:`save_states` wrote (validated against the parameters before anything
        changes; applied when the state exists, else on the first update)."""
        loaded = serialization.load(os.fspath(fname))
        if not isinstance(loaded, dict) or "num_update" not in loaded:
            raise ValueError(f"{fname}: not an optimizer state file of this framework's Module (no "
                             "num_update); MXNet's pickled .states files cannot be read (they would run "
                             "code)")
        arrays = {k: onp.asarray(v) for k, v in loaded.items()}
        unknown = sorted({k.split(":")[1] for k in arrays if k.startswith("slot:")} - set(self.param_names))
        if unknown:
            raise ValueError(f"{fname}: holds optimizer state for {unknown}, which are not parameters of "
                             f"this module ({list(self.param_names)[:10]}...)")
        self.optimizer.num_update = int(arrays["num_update"].reshape(-1)[0])
        if self.state is not None:
            self.state = _restore(self.state, arrays, str(fname))
        else:
            self._pending_state = arrays


def _restore(state: Any, arrays: Mapping[str, onp.ndarray], source: str = "optimizer states") -> Any:
    slots = {}
    for name, old in state.slots.items():
        new = []
        for i, s in enumerate(old):
            key = f"slot:{name}:{i}"
            if key not in arrays:
                raise ValueError(f"{source}: no state {key!r} (the file was written for another optimizer "
                                 "or network)")
            v = arrays[key]
            if tuple(v.shape) != tuple(s.shape):
                raise ValueError(f"{source}: state {key!r} has shape {tuple(v.shape)}, expected "
                                 f"{tuple(s.shape)}")
            new.append(jax.device_put(jnp.asarray(v, s.dtype), next(iter(s.devices()))))
        slots[name] = tuple(new)
    count = state.count
    if "count" in arrays:
        count = jnp.asarray(arrays["count"].reshape(()), state.count.dtype)
    return type(state)(count=count, hyperparams=state.hyperparams, slots=slots)
