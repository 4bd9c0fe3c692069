"""gluon.Trainer: MXNet's update semantics over an optax transformation.

``step(batch_size)`` = ``allreduce_grads()`` + ``update(batch_size)``: gradients of each Parameter are
summed over its devices (kvstore 'device'), scaled by ``1/batch_size`` (``rescale_grad``), and one optax
update runs per device as ONE compiled call over all parameters, so every replica stays identical. The
learning rate and the rescale factor are inputs of that call: changing them never recompiles.

>>> from framework import autograd, gluon, np
>>> net = gluon.nn.Dense(1, in_units=2)
>>> net.initialize()
>>> trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
>>> with autograd.record():
...     loss = net(np.ones((4, 2))).sum()
>>> loss.backward()
>>> trainer.step(4)
>>> trainer.learning_rate
0.1
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from .. import _compile
from .. import optimizer as _opt
from ..base import StrictKwargs
from . import _fused_step, _trainer_states
from .parameter import Parameter, ParameterDict

__all__ = ["Trainer"]


def _not_a_parameter(where: str, p: Any) -> ValueError:
    kind = "jax.Array" if isinstance(p, jax.Array) else type(p).__name__
    hint = (" Arrays hold no gradient or optimizer state here: give the Trainer the Parameters that own "
            "them." if isinstance(p, (jax.Array, onp.ndarray)) else "")
    return ValueError(f"First argument must be a list or dict of Parameters, got {where} of type {kind}."
                      f"{hint} Pass net.collect_params() (or a list of gluon.Parameter).")


def _as_named(params: Any) -> list[tuple[str, Parameter]]:
    if isinstance(params, Mapping):
        items = list(params.items())
    elif isinstance(params, (list, tuple)):
        for i, p in enumerate(params):
            if not isinstance(p, Parameter):
                raise _not_a_parameter(f"item {i} of a {type(params).__name__}", p)
        items = [(p._structural_name or p.name, p) for p in params]
    else:
        raise ValueError(
            f"First argument must be a list or dict of Parameters, got {type(params).__name__}. "
            "Pass net.collect_params()."
        )
    seen: dict[int, str] = {}
    out = []
    for name, p in items:
        if not isinstance(p, Parameter):
            raise _not_a_parameter(f"{name!r}", p)
        if id(p) in seen:
            continue
        seen[id(p)] = name
        out.append((name, p))
    return out


#: Optimizer hyperparameters that are numbers (a string there is a mistake caught at construction).
_NUMERIC = ("learning_rate", "lr", "wd", "momentum", "rescale_grad", "clip_gradient", "beta1", "beta2",
            "epsilon", "gamma1", "gamma2", "lamda1", "beta", "rho", "eta", "clip_weights",
            "initial_accumulator")


def _check_number(what: str, value: Any) -> None:
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return
    if isinstance(value, str):
        try:
            fix = f"pass {float(value)!r}, a number"
        except ValueError:
            fix = "pass a number"
        raise TypeError(f"{what} is the string {value!r}; expected a number: {fix}.")
    if value is not None:
        raise TypeError(f"{what} is {value!r} ({type(value).__name__}); expected a number (int or float).")


def _check_batch_size(method: str, batch_size: Any) -> None:
    if isinstance(batch_size, numbers.Real) and not isinstance(batch_size, bool) and batch_size > 0:
        return
    raise ValueError(f"Trainer.{method}: batch_size must be a positive number (the summed gradients are "
                     f"divided by it); got {batch_size!r}. Pass the number of samples in the batch, e.g. "
                     f"trainer.{method}(data.shape[0]).")


class Trainer(StrictKwargs):
    """Applies an optimizer to a set of Parameters (MXNet's signature).

    ``skip_nonfinite=True`` (keyword-only): a step whose summed gradients hold a NaN or an infinity
    leaves every Parameter and the optimizer state unchanged and is counted in :attr:`skipped_steps`,
    as mixed-precision loss scalers do; the check runs inside the compiled update (no host sync). The
    step counter ``optimizer.num_update`` still advances. Without it, one NaN loss turns every weight
    into NaN. ``gluon.utils.check_finite`` checks a loss or any arrays on the host.

    >>> from framework import autograd, gluon, np
    >>> net = gluon.nn.Dense(1, in_units=2); net.initialize()
    >>> trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1}, skip_nonfinite=True)
    >>> with autograd.record():
    ...     loss = (net(np.ones((4, 2))) * np.nan).sum()
    >>> loss.backward(); trainer.step(4)
    >>> trainer.skipped_steps, bool(np.isfinite(net.weight.data()).all())
    (1, True)
    """

    def __init__(self, params: Any, optimizer: Any, optimizer_params: dict[str, Any] | None = None,
                 kvstore: Any = "device", compression_params: Any = None,
                 update_on_kvstore: bool | None = None, *, skip_nonfinite: bool = False) -> None:
        self._params = _as_named(params)
        if optimizer_params is not None and not isinstance(optimizer_params, Mapping):
            raise TypeError(f"optimizer_params must be a dict such as {{'learning_rate': 0.1}}; got "
                            f"{type(optimizer_params).__name__}.")
        optimizer_params = dict(optimizer_params or {})
        for key in _NUMERIC:
            if key in optimizer_params:
                _check_number(f"optimizer_params[{key!r}]", optimizer_params[key])
        if not isinstance(skip_nonfinite, bool):
            raise TypeError(f"skip_nonfinite must be True or False; got {skip_nonfinite!r}.")
        self._skip_nonfinite = skip_nonfinite
        self._skipped: dict[jax.Device, Any] = {}
        if isinstance(optimizer, _opt.Optimizer):
            if optimizer_params:
                raise ValueError(
                    "optimizer_params must be None if optimizer is an instance of Optimizer instead of str"
                )
            self._optimizer = optimizer
        else:
            self._optimizer = _opt.create(optimizer, **optimizer_params)
        self._scale = float(self._optimizer.rescale_grad)
        self._kvstore = kvstore
        self._update_on_kvstore = update_on_kvstore
        self._trainable = [(n, p) for n, p in self._params if p.grad_req != "null"]
        self._tx = None
        self._states: dict[jax.Device, Any] = {}
        self._update_fn: Any = None
        self._fused = _fused_step.FusedStep()

    # ------------------------------------------------------------------ properties
    @property
    def optimizer(self) -> Any:
        return self._optimizer

    @property
    def learning_rate(self) -> float:
        return self._optimizer.learning_rate

    def set_learning_rate(self, lr: float) -> None:
        _check_number("set_learning_rate: lr", lr)
        self._optimizer.set_learning_rate(lr)

    @property
    def skipped_steps(self) -> int:
        """Steps skipped for non-finite gradients (``skip_nonfinite=True``); reading it syncs."""
        if not self._skipped:
            return 0
        return int(next(iter(self._skipped.values())))

    # ------------------------------------------------------------------ the step
    def _devices(self) -> list[jax.Device]:
        devices: dict[jax.Device, None] = {}
        for _, p in self._trainable:
            devices.update(dict.fromkeys(p.list_ctx()))
        return list(devices)

    def _initial_state(self, values: dict[str, jax.Array]) -> Any:
        """The optimizer state for ``values``: made at once when it holds scalars only (a step count and
        hyperparameters, as plain SGD's: there is no program worth building), else by one compiled
        program (momentum and other per-weight slots)."""
        abstract = jax.eval_shape(self._tx.init, values)
        if all(leaf.ndim == 0 for leaf in jax.tree_util.tree_leaves(abstract)):
            return self._tx.init(values)
        return _compile.jit(("optimizer_init", id(self._tx)), lambda: self._tx.init, owner=self)(values)

    def _init(self) -> None:
        for name, p in self._trainable:
            p._check_initialized()
            if p._grad_slots is None:  # not p._grad: reading it would run a waiting backward here, alone
                raise RuntimeError(f"Parameter '{name}' has grad_req={p.grad_req!r} but no gradient buffer.")
        _compile.forget(self)  # programs of an earlier optimizer transformation
        lr_mult = {n: p.lr_mult for n, p in self._trainable}
        wd_mult = {n: p.wd_mult for n, p in self._trainable}
        self._tx = self._optimizer.to_optax(lr_mult=lr_mult, wd_mult=wd_mult)
        for dev in self._devices():
            values = {n: p._data[dev] for n, p in self._trainable}
            self._states[dev] = jax.device_put(self._initial_state(values), dev)
        tx = self._tx
        names = [n for n, _ in self._trainable]
        skip_nonfinite = self._skip_nonfinite
        for dev in self._devices():
            self._skipped[dev] = jax.device_put(onp.int32(0), dev)

        def update(values, grads, state, fresh, lr, rescale, skipped):
            # grads: one dict per device, in the same device order everywhere, so that every replica
            # computes the bit-identical sum (kvstore 'device' reduces once and broadcasts).
            total = grads[0]
            for other in grads[1:]:
                total = jax.tree_util.tree_map(jnp.add, total, other)
            state = _opt.set_hyperparams(state, learning_rate=lr, rescale_grad=rescale)
            updates, new_state = tx.update(total, state, values)
            # fresh: a static tuple of bools in parameter order (all True in steady state: one compile
            # and no per-step transfer; ignore_stale_grad with unused parameters compiles once per mask)
            new = {n: values[n] + updates[n].astype(values[n].dtype) if f else values[n]
                   for n, f in zip(names, fresh, strict=True)}
            if skip_nonfinite:  # every replica sees the same sum, so all skip together
                leaves = jax.tree_util.tree_leaves(total)
                finite = jnp.all(jnp.stack([jnp.all(jnp.isfinite(g)) for g in leaves]))

                def keep(a, b):
                    return jnp.where(finite, a, b)

                new = jax.tree_util.tree_map(keep, new, values)
                new_state = jax.tree_util.tree_map(keep, new_state, state)
                skipped = skipped + jnp.where(finite, 0, 1).astype(skipped.dtype)
            return new, new_state, total, skipped

        self._update_py = update  # traced into the fused backward+update program too (_fused_step)
        self._fused = _fused_step.FusedStep()
        self._update_fn = _compile.jit(("update", id(tx)), lambda: update, owner=self, static_argnums=3)

    def step(self, batch_size: int, ignore_stale_grad: bool = False) -> None:
        """Sum gradients over devices, rescale by ``1/batch_size`` and update every Parameter."""
        _check_batch_size("step", batch_size)
        self._optimizer.rescale_grad = self._scale / batch_size
        self._update(ignore_stale_grad, allreduce=True)

    def allreduce_grads(self) -> None:
        """Sum each Parameter's gradient over its devices and write the sum to every replica."""
        for _, p in self._trainable:
            grads = p._grad
            if grads is None or len(grads) < 2:
                continue
            devs = list(grads)
            total = None
            for dev in devs:
                moved = jax.device_put(grads[dev], devs[0])
                total = moved if total is None else total + moved
            for dev in devs:
                grads[dev] = jax.device_put(total, dev)
        self._reduced = True

    def update(self, batch_size: int, ignore_stale_grad: bool = False) -> None:
        """Update with the gradients as they are (call :meth:`allreduce_grads` first on several devices)."""
        _check_batch_size("update", batch_size)
        self._optimizer.rescale_grad = self._scale / batch_size
        self._update(ignore_stale_grad, allreduce=False)

    def _fresh_mask(self, dev: jax.Device, ignore_stale_grad: bool) -> dict[str, bool]:
        fresh = {}
        for name, p in self._trainable:
            ok = p._fresh_grad.get(dev, False)
            if not ok and not ignore_stale_grad:
                warnings.warn(
                    f"Gradient of Parameter `{name}` on context {dev} has not been updated by backward "
                    "since last `step`. This could mean a bug in your model that made it only use a subset "
                    "of the Parameters (Blocks) for this iteration. If you are intentionally only using a "
                    "subset, call step with ignore_stale_grad=True to suppress this warning and skip "
                    "updating of Parameters with stale gradient",
                    UserWarning,
                    stacklevel=4,
                )
            fresh[name] = ok or not ignore_stale_grad
        return fresh

    def _update(self, ignore_stale_grad: bool, allreduce: bool) -> None:
        if self._update_fn is None:
            self._init()
        opt = self._optimizer
        opt.num_update += 1
        lr = onp.float32(opt.learning_rate)
        rescale = onp.float32(opt.rescale_grad)
        if _fused_step.fused_step(self, lr, rescale):
            return
        devices = self._devices()
        grads = {d: {n: p._grad[d] for n, p in self._trainable} for d in devices}
        for dev in devices:
            if allreduce and len(devices) > 1:  # the other devices' gradients moved here, in device order
                moved = iter(jax.device_put([grads[o] for o in devices if o != dev], dev))
                here = [grads[o] if o == dev else next(moved) for o in devices]
            else:
                here = [grads[dev]]
            values = {n: p._data[dev] for n, p in self._trainable}
            fresh = tuple(bool(f) for f in self._fresh_mask(dev, ignore_stale_grad).values())
            new, self._states[dev], total, self._skipped[dev] = self._update_fn(
                values, here, self._states[dev], fresh, lr, rescale, self._skipped[dev])
            for name, p in self._trainable:
                p._stepped(dev, new[name])
                if allreduce:
                    p._grad[dev] = total[name]

    # ------------------------------------------------------------------ states
    def save_states(self, fname: str) -> None:
        """Write the optimizer state (and its counters) in MXNet's .params format: no pickle."""
        _trainer_states.save_states(self, fname)

    def load_states(self, fname: str, allow_non_finite: bool = False) -> None:
        """Restore what :meth:`save_states` wrote onto every device (validated first: a bad file raises
        ``ValueError`` naming it and changes nothing; NaN/Inf state only with ``allow_non_finite``)."""
        _trainer_states.load_states(self, fname, allow_non_finite)

    def zero_grad(self) -> None:
        ParameterDict(self._params).zero_grad()
