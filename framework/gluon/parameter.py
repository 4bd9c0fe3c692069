"""Gluon's Parameter: named state with one replica per device, and the ParameterDict of a block tree.

A Parameter holds values; it does no math. ``data()`` returns the replica on a device, or, inside a
block call, the value bound for that call (a tracer under ``jax.jit``). Shapes may hold 0 for a
dimension that the first input decides (deferred initialisation).

>>> from framework import gluon, npx
>>> p = gluon.Parameter('weight', shape=(2, 3))
>>> p.initialize(ctx=[npx.cpu(0), npx.cpu(1)])
>>> [d.shape for d in p.list_data()], p.list_ctx() == [npx.cpu(0), npx.cpu(1)]
([(2, 3), (2, 3)], True)
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from .. import device as _device
from .. import initializer as _init
from ..autograd import mode as _mode
from ..autograd import tape as _tape
from ..autograd.lazy import Deferred
from ..base import FrameworkError
from ..np import creation as _creation
from ..np import random
from . import binding as _binding

__all__ = ["Parameter", "ParameterDict", "DeferredInitializationError", "TracedValueError", "Constant"]

_GRAD_REQS = ("write", "add", "null")


class TracedValueError(FrameworkError, TypeError):
    """A traced value (inside jax.jit/grad/vmap) was about to be stored on a Parameter."""


class DeferredInitializationError(FrameworkError, RuntimeError):
    """A parameter's value was asked for before the first forward pass fixed its shape."""


def _as_devices(ctx: Any) -> list[jax.Device]:
    if ctx is None:
        return [_device.current_device()]
    if isinstance(ctx, (list, tuple)):
        devices = [_device.as_device(c, what="ctx") for c in ctx]
    else:
        devices = [_device.as_device(ctx, what="ctx")]
    # ctx=[] is accepted, as MXNet does (d2l's try_all_gpus() gives [] on a machine without GPUs): the
    # Parameter then lives nowhere and its first use says so. A device named twice holds one replica:
    # MXNet would keep two identical copies that receive the same update; one copy is equivalent and
    # saves the memory.
    return list(dict.fromkeys(devices))


def _not_on(name: str, dev: jax.Device, data: dict[jax.Device, Any]) -> RuntimeError:
    return RuntimeError(f"Parameter '{name}' was not initialized on context {dev}. It was only initialized "
                        f"on {list(data)}. Use initialize(ctx=[...]) or reset_ctx().")


def _device_of(x: jax.Array) -> jax.Device | None:
    devs = getattr(x, "devices", None)
    if devs is None:
        return None
    devs = devs()
    return next(iter(devs)) if len(devs) == 1 else None


def _forced(slots: dict[jax.Device, Any] | None) -> dict[jax.Device, jax.Array] | None:
    """``slots`` with every deferred result computed (in place: the slot then holds the array)."""
    if slots is not None:
        for dev, v in slots.items():
            if type(v) is Deferred:
                slots[dev] = v.force()
    return slots


class Parameter:
    """A trainable (or state) array of a Block, replicated on each device it is initialised on.

    ``shape`` may contain 0 for dimensions decided at the first forward pass. ``grad_req`` is
    'write' (default), 'add' (accumulate across backward calls) or 'null' (no gradient).
    """

    def __init__(
        self,
        name: str = "weight",
        grad_req: str = "write",
        shape: int | Sequence[int] | None = None,
        dtype: Any = "float32",
        lr_mult: float = 1.0,
        wd_mult: float = 1.0,
        init: Any = None,
        allow_deferred_init: bool = False,
        differentiable: bool = True,
        stype: str = "default",
        grad_stype: str = "default",
    ) -> None:
        self.name = name
        self._shape: tuple[int, ...] | None = None
        self.shape = shape  # type: ignore[assignment]
        self.dtype = jnp.dtype(dtype)
        self.lr_mult = float(lr_mult)
        self.wd_mult = float(wd_mult)
        self.init = init
        self.allow_deferred_init = allow_deferred_init
        self._differentiable = differentiable
        self._grad_req = "null"
        self.grad_req = grad_req if differentiable else "null"
        # per device: an array, or a deferred result of a backward (framework.autograd.lazy) that a
        # read computes: a gradient, or a layer's state (BatchNorm statistics)
        self._replicas: dict[jax.Device, Any] | None = None
        self._grad_slots: dict[jax.Device, Any] | None = None
        self._fresh_grad: dict[jax.Device, bool] = {}
        self._deferred: tuple[Any, list[jax.Device], Any, jax.Array] | None = None
        self._structural_name: str | None = None
        # initialize(ctx=[d, d]) keeps one replica on d; the gradients of the batch slices that
        # split_and_load sends to d then add up (as if d were two devices) instead of overwriting.
        self._repeated = False

    # ------------------------------------------------------------------ arrays
    # ``_data`` / ``_grad``: the replicas and gradients per device, computed (a deferred result in a slot
    # is computed when read through these); ``_replicas`` / ``_grad_slots`` are the slots themselves.
    @property
    def _data(self) -> dict[jax.Device, jax.Array] | None:
        return _forced(self._replicas)

    @_data.setter
    def _data(self, value: dict[jax.Device, Any] | None) -> None:
        self._replicas = value

    @property
    def _grad(self) -> dict[jax.Device, jax.Array] | None:
        return _forced(self._grad_slots)

    @_grad.setter
    def _grad(self, value: dict[jax.Device, Any] | None) -> None:
        self._grad_slots = value

    # ------------------------------------------------------------------ descriptive state
    def __repr__(self) -> str:
        return f"Parameter {self.name} (shape={self.shape}, dtype={onp.dtype(self.dtype).name})"

    @property
    def shape(self) -> tuple[int, ...] | None:
        return self._shape

    @shape.setter
    def shape(self, new: int | Sequence[int] | None) -> None:
        if new is None:
            self._shape = None
            return
        new = (int(new),) if isinstance(new, int) else tuple(int(d) for d in new)
        old = self._shape
        if old is not None and self._data is not None:
            compatible = len(old) == len(new) and all(o in (0, n) for o, n in zip(old, new, strict=True))
            if not compatible:
                raise ValueError(
                    f"Parameter '{self.name}': cannot change its shape from {old} to {new} once "
                    "initialised. Re-create the layer, or load parameters of the right shape."
                )
        self._shape = new

    @property
    def grad_req(self) -> str:
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req: str) -> None:
        if req not in _GRAD_REQS:
            raise ValueError(f"Parameter '{self.name}': grad_req={req!r}; expected one of {_GRAD_REQS}.")
        if not self._differentiable:
            req = "null"
        self._grad_req = req
        if getattr(self, "_replicas", None) is not None:
            self._grad = None if req == "null" else {
                d: _creation.zeros_like(v) for d, v in self._data.items()}

    @property
    def differentiable(self) -> bool:
        return self._differentiable

    @property
    def _known(self) -> bool:
        return self._shape is not None and all(d > 0 for d in self._shape)

    # ------------------------------------------------------------------ initialisation
    def initialize(
        self,
        init: Any = None,
        ctx: Any = None,
        default_init: Any = None,
        force_reinit: bool = False,
        *,
        device: Any = None,
        key: jax.Array | None = None,
    ) -> None:
        """Create the replicas. ``init`` overrides ``self.init``, which overrides ``default_init``
        (MXNet's precedence). Shape unknown and ``allow_deferred_init``: wait for the first forward."""
        if device is not None:
            ctx = device
        if self._data is not None and not force_reinit:
            warnings.warn(
                f"Parameter '{self.name}' is already initialized, ignoring. "
                "Set force_reinit=True to re-initialize.",
                stacklevel=2,
            )
            return
        devices = _as_devices(ctx)
        listed = [ctx] if not isinstance(ctx, (list, tuple)) else list(ctx)
        self._repeated = len(listed) > len(devices)
        if default_init is None:
            default_init = _init.Uniform()
        if key is None:
            key = _binding.name_key(random.next_key(), self._structural_name or self.name)
        self._data = self._grad = None
        if not self._known:
            if self.allow_deferred_init:
                self._deferred = (init, devices, default_init, key)
                return
            raise ValueError(
                f"Cannot initialize Parameter '{self.name}' because it has invalid shape: {self.shape}. "
                "Give the layer its input size (e.g. in_units=, in_channels=) or allow deferred init."
            )
        self._deferred = (init, devices, default_init, key)
        self._finish_deferred_init()

    def _finish_deferred_init(self) -> None:
        if self._deferred is None:
            return
        if not self._known:
            raise DeferredInitializationError(self._deferred_message())
        init, devices, default_init, key = self._deferred
        explicit = init if init is not None else self.init
        with jax.ensure_compile_time_eval():
            # MXNet (1.x and 2.0) applies the Parameter's own init, else the default one, by its
            # weight rule whatever the Parameter's name
            rule = explicit if explicit is not None else default_init
            value = _init.create(rule).init_array(self._shape, self.dtype, key=key,
                                                  name=self._structural_name or self.name)
            value = jnp.asarray(value, self.dtype)
            self._set_replicas(value, devices)
        self._deferred = None

    def _deferred_message(self) -> str:
        return (
            f"Parameter '{self._structural_name or self.name}' has not been initialized yet because "
            "initialization was deferred. Actual initialization happens during the first forward pass. "
            "Please pass one batch of data through the network before accessing Parameters. You can also "
            "avoid deferred initialization by specifying in_units, num_features, etc., for network layers."
        )

    def _set_replicas(self, value: jax.Array, devices: Iterable[jax.Device]) -> None:
        self._data = {d: jax.device_put(value, d) for d in devices}
        self._grad = None if self._grad_req == "null" else {
            d: _creation.zeros_like(v) for d, v in self._data.items()
        }
        self._fresh_grad = dict.fromkeys(self._data, False)

    def _check_initialized(self) -> dict[jax.Device, jax.Array]:
        data = self._data
        if data is not None:
            return data
        if self._deferred is not None:
            raise DeferredInitializationError(self._deferred_message())
        raise RuntimeError(
            f"Parameter '{self._structural_name or self.name}' has not been initialized. Note that you "
            "should initialize parameters and create Trainer with Block.collect_params() instead of "
            "Block.params because the later does not include Parameters of nested child Blocks"
        )

    # ------------------------------------------------------------------ access
    def _pick_device(self, data: dict[jax.Device, jax.Array], ctx: Any) -> jax.Device:
        if ctx is None and not data:  # initialize(ctx=[])
            ctx = _device.current_device()
        if ctx is None:
            bound = _binding.current()
            if bound is not None and bound.device is not None and bound.device in data:
                return bound.device
            if len(data) == 1:
                return next(iter(data))
            cur = _device.current_device()
            return cur if cur in data else next(iter(data))
        dev = _device.as_device(ctx, what="ctx")
        if dev not in data:
            raise _not_on(self._structural_name or self.name, dev, data)
        return dev

    def data(self, ctx: Any = None, *, device: Any = None) -> jax.Array:
        """The value on ``ctx`` (default: the device of the current call, else the only/current one).

        Inside a bound block call this is the bound value; while autograd records, a recorded value.
        """
        bound = _binding.current()
        if bound is not None and bound.values is not None and self in bound.values:
            return bound.values[self]
        data = self._check_initialized()
        dev = self._pick_device(data, device if device is not None else ctx)
        value = data[dev]
        if self._grad_req != "null" and _mode.is_recording():
            return _tape.parameter_leaf(self, dev, value)
        return value

    def list_data(self) -> list[jax.Array]:
        return list(self._check_initialized().values())

    def list_ctx(self) -> list[jax.Device]:
        if self._data is None and self._deferred is not None:
            return list(self._deferred[1])
        return list(self._check_initialized())

    list_device = list_ctx

    def grad(self, ctx: Any = None, *, device: Any = None) -> jax.Array:
        data = self._check_initialized()
        if self._grad is None:
            raise RuntimeError(
                f"Cannot get gradient array for Parameter '{self._structural_name or self.name}' "
                "because grad_req='null'"
            )
        return self._grad[self._pick_device(data, device if device is not None else ctx)]

    def list_grad(self) -> list[jax.Array]:
        self._check_initialized()
        if self._grad is None:
            raise RuntimeError(
                f"Cannot get gradient array for Parameter '{self._structural_name or self.name}' "
                "because grad_req='null'"
            )
        return list(self._grad.values())

    def set_data(self, data: Any) -> None:
        """Set the value on every device. Inside a bound call, record a state update instead."""
        bound = _binding.current()
        if bound is not None and bound.values is not None and self in bound.values:
            bound.values[self] = data
            bound.state[self] = data
            return
        if any(isinstance(x, jax.core.Tracer) for x in jax.tree_util.tree_leaves(data)):
            raise TracedValueError(
                f"Parameter '{self._structural_name or self.name}'.set_data got a traced value (inside "
                "jax.jit, grad or vmap): a Parameter stores concrete arrays, and a tracer stored now would "
                "fail later. Return the new value from the traced function and call set_data on the "
                "result, or compute state with functional_call(..., return_state=True)."
            )
        # a NumPy array is copied (MXNet copies into the Parameter): JAX may share its memory on a CPU
        copy = jnp.array if isinstance(data, onp.ndarray) else jnp.asarray
        value = copy(data, self.dtype)
        if self._shape is not None and not self._known:
            self.shape = value.shape
        elif self._shape is not None and tuple(value.shape) != self._shape:
            raise ValueError(
                f"Parameter '{self._structural_name or self.name}': set_data got shape {tuple(value.shape)}, "
                f"expected {self._shape}."
            )
        else:
            self._shape = tuple(value.shape)
        if self._data is None:
            if self._deferred is None:
                raise RuntimeError(
                    f"Parameter '{self._structural_name or self.name}' has not been initialized; call "
                    "initialize() before set_data()."
                )
            self._set_replicas(value, self._deferred[1])
            self._deferred = None
            return
        self._data = {d: jax.device_put(value, d) for d in self._data}

    def _load_init(self, value: Any, ctx: Any = None, cast_dtype: bool = False) -> None:
        """Install loaded values (used by ``load_parameters``)."""
        arr = onp.asarray(value)
        if cast_dtype:
            arr = arr.astype(self.dtype)
        if self._shape is not None:
            ok = len(self._shape) == arr.ndim and all(
                s in (0, a) for s, a in zip(self._shape, arr.shape, strict=True)
            )
            if not ok:
                raise ValueError(
                    f"Failed loading Parameter '{self._structural_name or self.name}' from saved params: "
                    f"shape incompatible expected {self._shape} vs saved {arr.shape}"
                )
        if not cast_dtype and arr.dtype != self.dtype:
            raise ValueError(
                f"Failed loading Parameter '{self._structural_name or self.name}' from saved params: "
                f"dtype incompatible expected {self.dtype} vs saved {arr.dtype}. "
                "Set cast_dtype=True to cast the dtype of saved params."
            )
        self._shape = tuple(arr.shape)
        if ctx is not None:
            devices = _as_devices(ctx)
        elif self._data is not None:
            devices = list(self._data)
        elif self._deferred is not None:
            devices = self._deferred[1]
        else:
            devices = [_device.current_device()]
        self._set_replicas(jnp.asarray(arr), devices)
        self._deferred = None

    def reset_ctx(self, ctx: Any) -> None:
        """Move every replica to the devices ``ctx`` (one or a list)."""
        devices = _as_devices(ctx)
        if self._data:
            first = next(iter(self._data.values()))
            self._set_replicas(first, devices)
        elif self._deferred is not None:
            init, _, default_init, key = self._deferred
            self._deferred = (init, devices, default_init, key)
        else:  # never initialized, or initialized on no device (ctx=[]), as MXNet says
            raise ValueError(f"Cannot reset context for Parameter '{self.name}' because it has not been "
                             "initialized.")

    reset_device = reset_ctx

    def zero_grad(self) -> None:
        slots = self._grad_slots
        if slots is not None:  # a deferred gradient is replaced, never computed
            data = self._data
            # called every step in a loop that accumulates gradients: the same shapes each time, so
            # JAX's one compiled fill per shape, not a host allocation and copy per call
            self._grad_slots = {d: jnp.zeros_like(data[d]) for d in slots}

    def cast(self, dtype: Any) -> None:
        self.dtype = jnp.dtype(dtype)
        if self._data is not None:
            self._data = {d: v.astype(self.dtype) for d, v in self._data.items()}
            if self._grad is not None:
                self._grad = {d: g.astype(self.dtype) for d, g in self._grad.items()}

    @property
    def _var_name(self) -> str:
        """The name of this Parameter's Symbol variable: its 1.x full name (``dense0_weight``) when it
        has one, else its own name."""
        return getattr(self, "_legacy_name", None) or self.name

    def var(self) -> Any:
        """This Parameter as a Symbol variable (its name, shape when known, dtype, lr/wd multipliers),
        as MXNet 1.x's ``Parameter.var()``: what a Block called on Symbols passes for it."""
        from ..symbol import var

        init = self.init
        if not (isinstance(init, str) or callable(getattr(init, "dumps", None))):
            init = None  # MXNet records a named or serialisable initializer only
        return var(self._var_name, shape=self.shape, dtype=self.dtype, lr_mult=self.lr_mult,
                   wd_mult=self.wd_mult, init=init, stype="default")

    # ------------------------------------------------------------------ what a backward writes
    # (framework.autograd.pending.GradientLeaf / StateHolder: the recorder's interface to Parameters)
    def accept_grad(self, device: jax.Device, grad: Deferred) -> None:
        """A backward's (deferred) gradient on ``device``: it replaces the slot (``grad_req='write'``)
        or adds to it (``'add'``, and the second slice of a device named twice in ``initialize``)."""
        grads = self._grad_slots
        if grads is None:
            return
        old = grads.get(device)
        if old is not None and (self._grad_req == "add" or (self._repeated and self._fresh_grad.get(device))):
            grad = Deferred(grad.source, grad.kind, grad.index, base=old)
        grads[device] = grad
        self._fresh_grad[device] = True

    def settle_grad(self, device: jax.Device, grad: Deferred, value: jax.Array) -> None:
        """``grad`` was computed: ``value`` takes its place if the slot still holds it."""
        grads = self._grad_slots
        if grads is not None and grads.get(device) is grad:
            grads[device] = value

    def accept_state(self, device: jax.Device, value: Deferred) -> None:
        """A recorded call's (deferred) new state on ``device`` (BatchNorm statistics: MXNet commits
        them at backward)."""
        replicas = self._replicas
        if replicas is not None and device in replicas:
            replicas[device] = value

    def settle_state(self, device: jax.Device, value: Deferred, computed: jax.Array) -> None:
        replicas = self._replicas
        if replicas is not None and replicas.get(device) is value:
            replicas[device] = computed

    def _stepped(self, dev: jax.Device, value: jax.Array, grad: jax.Array | None = None) -> None:
        """Install an optimizer step's new value on ``dev`` (and the gradient it used, when the step
        computed it); the gradient there is no longer fresh."""
        self._replicas[dev] = value
        if grad is not None:
            self._grad_slots[dev] = grad
        self._fresh_grad[dev] = False


class Constant(Parameter):
    """A parameter that never receives a gradient (``grad_req='null'``), initialised to ``value``."""

    def __init__(self, value: Any, name: str = "const") -> None:
        value = jnp.asarray(value)
        super().__init__(name, grad_req="null", shape=value.shape, dtype=value.dtype,
                         differentiable=False)
        self._value = value

        class _Init:
            def init_array(_self, shape: Any, dtype: Any, *, key: Any = None, name: str = "") -> jax.Array:
                return value.astype(dtype)

        self.init = _Init()


class ParameterDict(dict):
    """An ordered ``{structural name: Parameter}`` mapping with MXNet's collective methods."""

    def __repr__(self) -> str:
        body = "\n".join(f"  {v}" for v in self.values())
        return f"ParameterDict(\n{body}\n)"

    def __missing__(self, key: str) -> Parameter:
        """``d['rbm_dense0_weight']``: a Parameter found by its MXNet 1.x full name, as 1.x code keys them."""
        for p in self.values():
            if p._var_name == key:
                return p
        raise KeyError(key)

    def initialize(self, init: Any = None, ctx: Any = None, verbose: bool = False,
                   force_reinit: bool = False, *, device: Any = None) -> None:
        """Initialise every parameter; ``init`` is the default for those without their own."""
        default = _init.Uniform() if init is None else init
        base = random.next_key()
        for name, p in self._unique():
            p.initialize(None, device if device is not None else ctx, default_init=default,
                         force_reinit=force_reinit, key=_binding.name_key(base, name))

    def _unique(self) -> list[tuple[str, Parameter]]:
        """(first name, Parameter) once per Parameter: a shared one is listed under several names."""
        first: dict[int, tuple[str, Parameter]] = {}
        for name, p in self.items():
            first.setdefault(id(p), (name, p))
        return list(first.values())

    def zero_grad(self) -> None:
        for _, p in self._unique():
            p.zero_grad()

    def reset_ctx(self, ctx: Any) -> None:
        for _, p in self._unique():
            p.reset_ctx(ctx)

    reset_device = reset_ctx

    def setattr(self, name: str, value: Any) -> None:
        """Set an attribute on every parameter, e.g. ``setattr('grad_req', 'null')``."""
        for _, p in self._unique():
            setattr(p, name, value)

    def list_ctx(self) -> list[jax.Device]:
        out: dict[jax.Device, None] = {}
        for p in self.values():
            out.update(dict.fromkeys(p.list_ctx()))
        return list(out)

    def values_on(self, ctx: Any = None, *, device: Any = None) -> dict[str, jax.Array]:
        """``{name: value}`` on one device (default: each parameter's first): a pytree for
        ``Block.functional_call``."""
        ctx = device if device is not None else ctx
        dev = None if ctx is None else _device.as_device(ctx, what="ctx")
        out = {}
        for name, p in self.items():
            data = p._check_initialized()
            if not data:  # initialize(ctx=[])
                raise _not_on(name, dev or _device.current_device(), data)
            if dev is None:
                out[name] = next(iter(data.values()))
            elif dev in data:
                out[name] = data[dev]
            else:
                here = ", ".join(str(d) for d in data)
                raise RuntimeError(
                    f"Parameter '{name}' is on [{here}] but the input is on {dev}: initialize the "
                    "network on that device (initialize(ctx=[...]) or reset_ctx) or move the input with "
                    f"x.to_device({next(iter(data))})."
                )
        return out

    def save(self, filename: str, strip_prefix: str = "") -> None:
        """MXNet 1.x: write each Parameter under its 1.x name less ``strip_prefix``."""
        from . import persist

        persist.save_dict(self, filename, strip_prefix)

    def load(self, filename: str, ctx: Any = None, allow_missing: bool = False, ignore_extra: bool = False,
             restore_prefix: str = "", cast_dtype: bool = False, dtype_source: str = "current") -> None:
        """MXNet 1.x: load a ``.params`` file into these Parameters (names in the file get
        ``restore_prefix`` prepended), as ``Block.load_parameters`` matches them."""
        from . import persist

        persist.load_into(self, filename, ctx, allow_missing, ignore_extra, cast_dtype, dtype_source,
                          restore_prefix)

    def select(self, pattern: str) -> ParameterDict:
        regex = re.compile(pattern)
        return ParameterDict((k, v) for k, v in self.items() if regex.match(k))
