"""Compiled data-parallel training: the one home of multi-device and multi-host code.

``DataParallel(net, loss, trainer)`` builds ONE XLA program per step -- forward, backward, ``lax.psum`` of
the gradients over the device axis, the optax update -- mapped over the devices with ``jax.pmap``.
Parameters and optimizer state are replicated; batches are sharded along axis 0; buffers are donated.
``epoch(...)`` runs a whole epoch of device-resident data, shuffled on the device, as one ``lax.scan``
program on CPUs (a few programs of unrolled steps on accelerators). The semantics are the Gluon
loop's: gradients summed over devices and scaled by ``1/batch_size``.

>>> import jax
>>> from framework import gluon, np, parallel
>>> net = gluon.nn.Dense(2, in_units=3); net.initialize()
>>> trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
>>> step = parallel.DataParallel(net, gluon.loss.L2Loss(), trainer, devices=jax.devices()[:2])
>>> loss = step(np.ones((4, 3)), np.zeros((4, 2)))
>>> step.sync()  # the Gluon net now holds the trained parameters
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Literal

import jax
import jax.numpy as jnp
import numpy as onp
import optax

from . import _compile, _compile_cache, config
from . import optimizer as _opt
from .gluon.block import Block
from .np import random

__all__ = ["DataParallel", "initialize", "process_index", "process_count", "local_devices"]


# ------------------------------------------------------------------------------------------ multi-host
def initialize(coordinator_address: str | None = None, num_processes: int | None = None,
               process_id: int | None = None, *, local_device_ids: Sequence[int] | None = None,
               heartbeat_timeout_seconds: int = 10, initialization_timeout: int = 60) -> None:
    """Join a multi-process run through ``jax.distributed.initialize`` (JAX's own runtime).

    Arguments default to the environment: ``FRAMEWORK_COORDINATOR`` (host:port),
    ``FRAMEWORK_NUM_PROCESSES``, ``FRAMEWORK_PROCESS_ID`` (JAX's cluster auto-detection otherwise). When
    a peer dies, JAX's heartbeat stops every other process (non-zero exit) within about
    ``heartbeat_timeout_seconds``; nothing hangs. On JAX 0.12.1 and later the persistent compilation
    cache is switched off for a process of a multi-process run (cached multi-process programs hang
    there; ``framework._jax_compat``).
    """
    coordinator_address = coordinator_address or config.get("coordinator")
    if num_processes is None:
        num_processes = config.get("num_processes")
    if process_id is None:
        process_id = config.get("process_id")
    if coordinator_address and (num_processes is None or process_id is None):
        raise ValueError(
            f"parallel.initialize: coordinator_address={coordinator_address!r} needs num_processes and "
            f"process_id too (got {num_processes}, {process_id}); pass them or set FRAMEWORK_NUM_PROCESSES "
            "and FRAMEWORK_PROCESS_ID."
        )
    kwargs: dict[str, Any] = {
        "coordinator_address": coordinator_address, "num_processes": num_processes,
        "process_id": process_id, "initialization_timeout": initialization_timeout,
        "heartbeat_timeout_seconds": heartbeat_timeout_seconds,
    }
    if coordinator_address and process_id == 0:
        kwargs["coordinator_bind_address"] = coordinator_address
    if local_device_ids is not None:
        kwargs["local_device_ids"] = list(local_device_ids)
    jax.distributed.initialize(**kwargs)
    _compile_cache.off_for_multiprocess(jax.process_count())  # before this process's first compilation


def process_index() -> int:
    return jax.process_index()


def process_count() -> int:
    return jax.process_count()


def local_devices(backend: str | None = None) -> list[jax.Device]:
    return jax.local_devices(backend=backend)


# ------------------------------------------------------------------------------------------ the step
def _first(x: jax.Array) -> jax.Array:
    """The copy held by this process's first device (replicated values are equal everywhere)."""
    return x.addressable_data(0)[0]


def _loss_call(loss_fn: Any) -> Callable:
    if isinstance(loss_fn, Block):
        return lambda out, label: loss_fn.functional_call({}, out, label)
    return loss_fn


class DataParallel:
    """A compiled data-parallel training step over ``devices`` (default: every local device).

    ``trainer`` is a ``gluon.Trainer`` (its optimizer, learning rate, lr_mult/wd_mult and schedule are
    used) or any ``optax.GradientTransformation`` (applied to the summed, ``1/batch_size``-scaled
    gradients). ``sync_batchnorm=True`` averages BatchNorm statistics over the devices. A global batch
    that does not divide by the device count is padded and masked (padded samples weigh nothing); every
    batch is padded to the largest batch seen, so a short last batch does not recompile.
    """

    def __init__(self, net: Any, loss_fn: Any, trainer: Any, *, devices: Sequence[jax.Device] | None = None,
                 axis_name: str = "batch", sync_batchnorm: bool = False, donate: bool = True) -> None:
        self.net = net
        self.devices = list(devices) if devices is not None else jax.devices()
        self.n = len(self.devices)
        self._local = [d for d in self.devices if d.process_index == jax.process_index()]
        self.n_local = len(self._local)
        self.axis_name = axis_name
        self._mesh = jax.sharding.Mesh(onp.array(self.devices), (axis_name,))
        self._shardings: dict[int, jax.sharding.Sharding] = {}  # by number of dimensions
        self._loss = _loss_call(loss_fn)
        params = net.collect_params()
        for name, p in params.items():
            if p._data is None:
                raise RuntimeError(
                    f"DataParallel: Parameter '{name}' is not initialized. Call net.initialize() and run one "
                    "batch through the net (deferred shapes) before building the parallel step."
                )
        self._train_names = [n for n, p in params.items() if p.grad_req != "null"]
        self._state_names = [n for n, p in params.items() if p.grad_req == "null"]
        self._trainer = trainer if hasattr(trainer, "_optimizer") else None
        if self._trainer is not None:
            opt = self._trainer._optimizer
            self._tx = opt.to_optax(lr_mult={n: params[n].lr_mult for n in self._train_names},
                                    wd_mult={n: params[n].wd_mult for n in self._train_names})
            self._scale = self._trainer._scale
        elif isinstance(trainer, optax.GradientTransformation):
            self._tx, self._scale = trainer, 1.0
        else:
            raise TypeError(
                f"DataParallel: trainer={type(trainer).__name__}; expected a gluon.Trainer or an "
                "optax.GradientTransformation."
            )
        first = {n: p.list_data()[0] for n, p in params.items()}
        train = {n: first[n] for n in self._train_names}
        state = {n: first[n] for n in self._state_names}
        opt_state = self._tx.init(train)
        if self._trainer is not None and self._trainer._states:
            opt_state = next(iter(self._trainer._states.values()))
        self._carry = self._replicate((train, state, opt_state))
        self._sync_bn = sync_batchnorm
        self._batch = 0
        self._donate = donate
        self._serial_guard = self.devices[0].platform == "cpu" and self.n > 1

    # ------------------------------------------------------------------ plumbing
    def _replicate(self, tree: Any) -> Any:
        """The same value on every device, as one array with a leading device axis."""
        def put(x: Any) -> jax.Array:
            if isinstance(x, jax.Array) and jnp.issubdtype(x.dtype, jax.dtypes.prng_key):
                x = jax.random.key_data(x)
            x = onp.asarray(x)
            return self._global(onp.broadcast_to(x, (self.n_local,) + x.shape))

        return jax.tree_util.tree_map(put, tree)

    def _global(self, local: Any) -> jax.Array:
        """One global array with a leading device axis from this process's part of it (all of it when
        this process has every device: each device's row is then placed straight from the host array,
        a third of the general route's host time per step argument)."""
        shape = (self.n,) + tuple(local.shape[1:])
        sharding = self._shardings.get(local.ndim)
        if sharding is None:
            spec = jax.sharding.PartitionSpec(self.axis_name, *([None] * (local.ndim - 1)))
            sharding = self._shardings[local.ndim] = jax.sharding.NamedSharding(self._mesh, spec)
        if self.n_local == self.n:
            return jax.make_array_from_callback(shape, sharding, lambda index: local[index])
        return jax.make_array_from_process_local_data(sharding, local, shape)

    def _grads_and_update(self, train, state, opt_state, data, label, weight, key, lr, rescale):
        dev_key = jax.random.fold_in(jax.random.wrap_key_data(key), jax.lax.axis_index(self.axis_name))

        def objective(p):
            out, new_state = self.net.functional_call({**p, **state}, data, training=True, key=dev_key,
                                                      return_state=True)
            per_sample = self._loss(out, label)
            per_sample = per_sample.reshape(per_sample.shape[0], -1).sum(axis=1) if per_sample.ndim > 1 \
                else per_sample
            return jnp.sum(per_sample * weight), new_state

        (lsum, new_state), grads = jax.value_and_grad(objective, has_aux=True)(train)
        grads = jax.lax.psum(grads, self.axis_name)
        if self._trainer is not None:
            opt_state = _opt.set_hyperparams(opt_state, learning_rate=lr, rescale_grad=rescale)
        else:
            grads = jax.tree_util.tree_map(lambda g: g * rescale, grads)
        updates, opt_state = self._tx.update(grads, opt_state, train)
        train = optax.apply_updates(train, updates)
        if new_state:
            if self._sync_bn:
                new_state = jax.lax.pmean(new_state, self.axis_name)
            state = {**state, **new_state}
        return train, state, opt_state, jax.lax.psum(lsum, self.axis_name)

    def _program(self, name: str, fn: Callable, static: tuple[int, ...] = (),
                 donate: bool = True) -> Callable:
        """``fn`` mapped over the devices by the compile layer (cached on this step object)."""
        return _compile.pmap((name,), lambda: fn, owner=self, axis_name=self.axis_name, devices=self.devices,
                             static_broadcasted_argnums=static,
                             donate_argnums=(0,) if donate and self._donate else ())

    def _shard(self, x: Any, pad_to: int) -> Any:
        # a caller's NumPy buffer is copied (it may be filled again while the step has not run: JAX may
        # share a NumPy array's memory on a CPU); a jax.Array cannot change
        x = onp.array(x) if not isinstance(x, jax.Array) else x
        b = x.shape[0]
        if pad_to > b:
            x = jnp.concatenate([jnp.asarray(x), jnp.zeros((pad_to - b,) + x.shape[1:], x.dtype)]) \
                if isinstance(x, jax.Array) else onp.concatenate([x, onp.zeros((pad_to - b,) + x.shape[1:],
                                                                              x.dtype)])
        x = onp.asarray(x).reshape((self.n_local, pad_to // self.n_local) + tuple(x.shape[1:]))
        return self._global(x)

    # ------------------------------------------------------------------ public
    def __call__(self, data: Any, label: Any, batch_size: int | None = None) -> jax.Array:
        """One training step; returns the global batch's summed loss (a device scalar).

        ``data``/``label`` are this process's part of the batch (the whole batch in one process);
        ``batch_size`` (the rescale) defaults to the global batch size.
        """
        b = int(data.shape[0])
        self._batch = max(self._batch, math.ceil(b / self.n_local) * self.n_local)
        weight = onp.zeros((self._batch,), onp.float32)
        weight[:b] = 1.0
        key = random.next_key()
        lr, rescale = self._next_hyper(batch_size or b * jax.process_count())
        args = (self._shard(data, self._batch), self._shard(label, self._batch), None,
                self._shard(weight, self._batch), self._replicate(onp.int32(0)),
                self._replicate(onp.asarray([lr], onp.float32)), self._replicate(rescale),
                self._replicate(key))
        step = self._program("steps", self._chunk_fn, static=(9, 10))
        self._carry, loss = step(self._carry, *args, 1, self._batch // self.n_local)
        return _first(self._settled(loss))[0]

    def _settled(self, out: jax.Array) -> jax.Array:
        """``out``, waited for on several CPU devices: XLA:CPU's all-reduce can deadlock when programs
        holding one are dispatched back to back (FACTS)."""
        if self._serial_guard:
            out.block_until_ready()
        return out

    def _next_hyper(self, batch_size: int) -> tuple[onp.float32, onp.float32]:
        rescale = onp.float32(self._scale / batch_size)
        if self._trainer is None:
            return onp.float32(0.0), rescale
        opt = self._trainer._optimizer
        opt.num_update += 1
        return onp.float32(opt.learning_rate), rescale

    def _order_fn(self, key, n_total, padded, shuffle):
        """The epoch's sample order (padded) and the weights that mask the padding."""
        key = jax.random.wrap_key_data(key)
        order = jax.random.permutation(key, n_total) if shuffle else jnp.arange(n_total)
        order = jnp.concatenate([order, jnp.zeros((padded - n_total,), order.dtype)])
        return order, (jnp.arange(padded) < n_total).astype(jnp.float32)

    def _chunk_fn(self, carry, data, label, order, valid, first, lrs, rescale, key, n_steps, per_device):
        """``n_steps`` consecutive steps from step ``first`` of the epoch, unrolled in one program: THE
        training step of this module (a single batch is the chunk of one step, ``order=None``: ``data``,
        ``label`` and ``valid`` are then this device's part of the batch).

        Unrolled steps dispatch rarely without a while loop, whose condition an accelerator reads back
        every iteration; :meth:`epoch` scans single steps on CPUs instead (it compiles faster there).
        """
        index = jax.lax.axis_index(self.axis_name)
        key = jax.random.wrap_key_data(key)
        losses = []
        for k in range(n_steps):
            s = first + k
            if order is None:
                x, y, w = data, label, valid
            else:
                start = s * per_device * self.n + index * per_device
                idx = jax.lax.dynamic_slice(order, (start,), (per_device,))
                x, y, w = data[idx], label[idx], jax.lax.dynamic_slice(valid, (start,), (per_device,))
            step_key = jax.random.key_data(jax.random.fold_in(key, s + 1))
            train, state, opt_state = carry
            train, state, opt_state, loss = self._grads_and_update(
                train, state, opt_state, x, y, w, step_key, lrs[k], rescale)
            carry = (train, state, opt_state)
            losses.append(loss)
        return carry, jnp.stack(losses)

    def _scan_fn(self, carry, data, label, order, valid, first, lrs, rescale, key, steps, per_device):
        """All ``steps`` of the epoch as one ``lax.scan`` over single steps."""
        def body(c, s):
            c, loss = self._chunk_fn(c, data, label, order, valid, s, lrs[s][None], rescale, key, 1,
                                     per_device)
            return c, loss[0]

        return jax.lax.scan(body, carry, first + jnp.arange(steps))

    def epoch(self, data: Any, label: Any, batch_size: int, key: jax.Array | None = None, *,
              shuffle: bool = True, steps_per_program: int | None | Literal["auto"] = "auto") -> jax.Array:
        """A whole epoch over device-resident data (copied to every device once and cached for the same
        ``data`` object), ``steps_per_program`` unrolled steps per compiled program, or with ``None`` the
        whole epoch as ONE ``lax.scan`` program. ``"auto"`` (the default) is the whole-epoch program on
        CPU devices and programs of 8 unrolled steps on accelerators, where a while loop's every
        iteration reads its condition back to the host. On XLA:CPU (JAX 0.10.2 and 0.12.1, the seed's
        LeNet, one and two devices) the scan compiles about 2.5x faster than 8 unrolled steps and runs
        an epoch as fast or faster (``notes/speed.md``). Returns the per-batch summed losses (on the
        device).

        The order is ``jax.random.permutation(key, len(data))`` (identity with ``shuffle=False``),
        computed on the devices; the last batch is kept, padded and masked, as
        ``DataLoader(last_batch='keep')``.
        """
        if steps_per_program == "auto":
            steps_per_program = None if self.devices[0].platform == "cpu" else 8
        n_total = int(data.shape[0])
        if batch_size % self.n:
            raise ValueError(
                f"epoch: batch_size={batch_size} cannot be evenly split over {self.n} devices. Use a batch "
                f"size that's a multiple of {self.n}."
            )
        steps = math.ceil(n_total / batch_size)
        per_device = batch_size // self.n
        hyper = [self._next_hyper(batch_size) for _ in range(steps)]
        lrs = onp.asarray([lr for lr, _ in hyper], onp.float32)
        key = random.next_key() if key is None else key
        keys = self._replicate(key)
        order_program = self._program("order", self._order_fn, static=(1, 2, 3), donate=False)
        order, valid = order_program(keys, n_total, steps * batch_size, shuffle)
        data_r, label_r = self._resident(data), self._resident(label)
        rescale = self._replicate(hyper[0][1])
        if steps_per_program is None:
            self._carry, losses = self._program("scan", self._scan_fn, static=(9, 10))(
                self._carry, data_r, label_r, order, valid, self._replicate(onp.int32(0)),
                self._replicate(lrs), rescale, keys, steps, per_device)
            return _first(self._settled(losses))
        losses = []
        for first in range(0, steps, steps_per_program):
            n_steps = min(steps_per_program, steps - first)
            self._carry, chunk = self._program("steps", self._chunk_fn, static=(9, 10))(
                self._carry, data_r, label_r, order, valid, self._replicate(onp.int32(first)),
                self._replicate(lrs[first:first + n_steps]), rescale, keys, n_steps, per_device)
            losses.append(_first(self._settled(chunk)))
        return jnp.concatenate(losses)

    def _resident(self, x: Any) -> Any:
        key = id(x)
        cache = self.__dict__.setdefault("_resident_cache", {})
        hit = cache.get(key)
        if hit is not None and hit[0] is x:
            return hit[1]
        value = self._replicate(x)
        cache.clear()
        cache[key] = (x, value)
        return value

    def sync(self) -> None:
        """Write the trained parameters and state (and the Trainer's optimizer state) back."""
        train, state, opt_state = jax.tree_util.tree_map(_first, self._carry)
        params = self.net.collect_params()
        for name, value in {**train, **state}.items():
            p = params[name]
            p._data = {d: jax.device_put(value, d) for d in p._data}
        if self._trainer is not None:
            if self._trainer._update_fn is None:
                self._trainer._init()
            for dev in list(self._trainer._states):
                self._trainer._states[dev] = jax.device_put(opt_state, dev)

    def predict(self, data: Any, batch_size: int = 1024) -> jax.Array:
        """Inference outputs (training=False) with the current parameters, on the first device."""
        train, state, _ = jax.tree_util.tree_map(_first, self._carry)
        fn = _compile.jit(("predict",), lambda: lambda p, x: self.net.functional_call(p, x, training=False),
                          owner=self)
        outs = [fn({**train, **state}, jnp.asarray(data[i:i + batch_size]))
                for i in range(0, int(data.shape[0]), batch_size)]
        return jnp.concatenate(outs)

    def state_dict(self) -> dict[str, onp.ndarray]:
        """Host copies of parameters, state and optimizer state, keyed by name (for checkpoints)."""
        train, state, opt_state = jax.tree_util.tree_map(lambda x: onp.asarray(_first(x)), self._carry)
        out = {f"param/{k}": v for k, v in {**train, **state}.items()}
        for path, leaf in jax.tree_util.tree_flatten_with_path(opt_state)[0]:
            out[f"opt/{jax.tree_util.keystr(path)}"] = leaf
        if self._trainer is not None:
            out["num_update"] = onp.asarray(self._trainer._optimizer.num_update, onp.int64)
        return out

    def load_state_dict(self, arrays: dict[str, Any]) -> None:
        """Restore what :meth:`state_dict` returned (shapes and names must match)."""
        train, state, opt_state = jax.tree_util.tree_map(_first, self._carry)
        def pick(name: str, like: Any) -> Any:
            if name not in arrays:
                raise ValueError(f"load_state_dict: {name!r} is missing (saved for another network?).")
            value = onp.asarray(arrays[name])
            if value.shape != tuple(like.shape):
                raise ValueError(f"load_state_dict: {name!r} has shape {value.shape}, expected "
                                 f"{tuple(like.shape)}.")
            return value.astype(like.dtype)
        train = {k: pick(f"param/{k}", v) for k, v in train.items()}
        state = {k: pick(f"param/{k}", v) for k, v in state.items()}
        leaves, treedef = jax.tree_util.tree_flatten_with_path(opt_state)
        opt_state = jax.tree_util.tree_unflatten(
            treedef, [pick(f"opt/{jax.tree_util.keystr(p)}", v) for p, v in leaves])
        self._carry = self._replicate((train, state, opt_state))
        if self._trainer is not None and "num_update" in arrays:
            self._trainer._optimizer.num_update = int(arrays["num_update"])
