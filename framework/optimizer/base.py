"""The Optimizer base class: MXNet's hyperparameters on the host, an optax transformation inside.

An :class:`Optimizer` keeps MXNet's host-side surface (``learning_rate``, ``lr_scheduler``,
``num_update``, ``rescale_grad``, ``wd``, ``clip_gradient``, ``set_lr_mult`` ...) and builds, with
:meth:`Optimizer.to_optax`, an ``optax.GradientTransformation`` over a dict of parameters keyed by
name. That transformation applies MXNet's fused update rule to each parameter. Its state
(:class:`OptimizerState`) carries the update count and the two hyperparameters that change every
step, ``learning_rate`` and ``rescale_grad``, as arrays: :func:`set_hyperparams` swaps them without
recompiling. Updates are *added* to the parameters (optax's convention).

The learning rate in the state is the global one; ``lr_mult``/``wd_mult`` and the static
hyperparameters (momentum, betas, wd, clip_gradient ...) are fixed when ``to_optax`` is called.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Mapping
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp
import optax

from ..base import StrictKwargs
from .indexed import IndexedUpdates
from .state import OptimizerState, get_hyperparams, set_hyperparams

__all__ = ["Optimizer", "OptimizerState", "register", "create", "set_hyperparams", "get_hyperparams"]

_HALF = (jnp.dtype(jnp.float16), jnp.dtype(jnp.bfloat16))


_registry: dict[str, type[Optimizer]] = {}


def register(klass: type[Optimizer]) -> type[Optimizer]:
    """Register an optimizer class under its lower-case name (MXNet's ``mx.optimizer.register``)."""
    if not (isinstance(klass, type) and issubclass(klass, Optimizer)):
        raise TypeError(f"register expects an Optimizer subclass, got {klass!r}")
    name = klass.__name__.lower()
    old = _registry.get(name)
    if old is not None and old is not klass:
        warnings.warn(f"WARNING: New optimizer {klass.__module__}.{klass.__name__} is overriding existing "
                      f"optimizer {old.__module__}.{old.__name__}", UserWarning, stacklevel=2)
    _registry[name] = klass
    return klass


def _check_lr(what: str, lr: Any) -> Any:
    """``lr`` if it is a finite number >= 0 (a negative rate climbs the loss, NaN poisons every weight)."""
    import math

    try:
        value = None if isinstance(lr, (bool, str)) else float(lr)  # a 0-d array converts too
    except (TypeError, ValueError):
        value = None
    if value is not None and math.isfinite(value) and value >= 0:
        return lr
    if value is not None:
        raise ValueError(f"{what} must be a finite number >= 0; got {lr!r}. A negative learning rate "
                         "ascends the loss and NaN/Inf corrupts every parameter: pass e.g. 0.01.")
    raise TypeError(f"{what} must be a number; got {lr!r} ({type(lr).__name__}).")


def create(name: Any, **kwargs: Any) -> Optimizer:
    """An optimizer by (case-insensitive) name, e.g. ``create('sgd', learning_rate=0.1, momentum=0.9)``.

    An ``optax.GradientTransformation`` is wrapped (rescale_grad, clip_gradient and wd still apply
    before it; its learning rate is its own business); an :class:`Optimizer` is returned as is.

    >>> create('adam', learning_rate=0.1).learning_rate
    0.1
    """
    if isinstance(name, Optimizer):
        if kwargs:
            raise ValueError("optimizer_params must be empty when passing an Optimizer instance; "
                             f"got {sorted(kwargs)}. Set them on the instance instead.")
        return name
    if isinstance(name, optax.GradientTransformation):  # wrap.OptaxOptimizer, found by its registered name
        return _registry["optaxoptimizer"](name, **kwargs)
    if isinstance(name, type) and issubclass(name, Optimizer):
        return name(**kwargs)
    if not isinstance(name, str):
        raise TypeError(f"optimizer must be a name, an Optimizer or an optax.GradientTransformation, "
                        f"got {name!r} of type {type(name).__name__}")
    klass = _registry.get(name.lower())
    if klass is None:
        raise ValueError(f"Cannot find optimizer {name}. Registered optimizers: "
                         f"{', '.join(sorted(_registry))}")
    return klass(**kwargs)


def _named_leaves(tree: Any, what: str) -> tuple[list[str], list[Any], Any]:
    leaves, treedef = jax.tree_util.tree_flatten_with_path(tree)
    names = []
    for path, _ in leaves:
        parts = []
        for k in path:
            part = getattr(k, "key", getattr(k, "idx", getattr(k, "name", k)))
            parts.append(str(part))
        names.append(".".join(parts))
    if len(set(names)) != len(names):
        raise ValueError(f"{what} has clashing names after flattening: {names}; use a flat dict keyed by "
                         "parameter name")
    return names, [v for _, v in leaves], treedef


class Optimizer(StrictKwargs, IndexedUpdates):
    """Base class of MXNet optimizers (MXNet 1.9.1's constructor and host-side semantics).

    Subclasses define ``_init_slots(name, weight) -> tuple`` and
    ``_step(name, w, g, slots, lr, wd, rescale, t) -> (update, new_slots)``: MXNet's fused update for
    one parameter, given the *raw* gradient (each rule applies rescale, clip and wd where MXNet does).

    >>> opt = create('sgd', learning_rate=0.1, momentum=0.9, wd=1e-4)
    >>> opt.learning_rate, opt.momentum
    (0.1, 0.9)
    """

    opt_registry = _registry

    def __init__(self, rescale_grad: float = 1.0, param_idx2name: Mapping[int, str] | None = None,
                 wd: float = 0.0, clip_gradient: float | None = None, learning_rate: float | None = None,
                 lr_scheduler: Any = None, sym: Any = None, begin_num_update: int = 0,
                 multi_precision: bool = False, param_dict: Mapping[Any, Any] | None = None) -> None:
        if param_idx2name is not None and not isinstance(param_idx2name, Mapping):
            raise TypeError("param_idx2name should be a dict of param indexes to names.")
        self.rescale_grad = rescale_grad
        self.lr_scheduler = lr_scheduler
        # MXNet 1.9.1: no learning_rate -> the scheduler's base_lr drives it, else 0.01 (SGD's default;
        # MXNet 2.0 moved it to 0.1). An explicit learning_rate overrides the scheduler's base_lr.
        if learning_rate is None:
            # a plain callable scheduler (MXNet only calls it) has no base_lr: its first rate stands in
            base = getattr(lr_scheduler, "base_lr", None) if lr_scheduler is not None else 0.01
            learning_rate = base if base is not None else float(lr_scheduler(int(begin_num_update)))
        elif lr_scheduler is not None and lr_scheduler.base_lr != learning_rate:
            warnings.warn(UserWarning("learning rate from ``lr_scheduler`` has been overwritten by "
                                      "``learning_rate`` in optimizer."), stacklevel=2)
            lr_scheduler.base_lr = learning_rate
        self.lr = _check_lr(f"{type(self).__name__}: learning_rate", learning_rate)
        self.wd = wd
        self.begin_num_update = int(begin_num_update)
        self.num_update = int(begin_num_update)
        self.clip_gradient = clip_gradient
        self.multi_precision = multi_precision
        self.idx2name = dict(param_idx2name or {})
        self.sym = sym
        self.param_dict = dict(param_dict or {})
        self.lr_mult: dict[Any, float] = {}
        self.wd_mult: dict[Any, float] = {}

    register = staticmethod(register)
    create_optimizer = staticmethod(create)

    # --- MXNet's host-side surface ----------------------------------------------------------
    @property
    def learning_rate(self) -> float:
        """The current learning rate: ``lr_scheduler(num_update)`` if a scheduler is set, else ``lr``."""
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    def set_learning_rate(self, lr: float) -> None:
        """Set the learning rate (an error when an lr_scheduler drives it, as in MXNet)."""
        if self.lr_scheduler is not None:
            raise UserWarning("LRScheduler of the optimizer has already been defined. Note that "
                              "set_learning_rate can mutate the value of the learning rate of the optimizer "
                              "only when the LRScheduler of the optimizer is undefined.")
        self.lr = _check_lr(f"{type(self).__name__}.set_learning_rate: lr", lr)

    def set_lr_mult(self, args_lr_mult: Mapping[Any, float]) -> None:
        """Per-parameter learning-rate multipliers (used by :meth:`to_optax` unless it is given some)."""
        self.lr_mult = dict(args_lr_mult)

    def set_wd_mult(self, args_wd_mult: Mapping[Any, float]) -> None:
        """Per-parameter weight-decay multipliers (used by :meth:`to_optax` unless it is given some)."""
        self.wd_mult = dict(args_wd_mult)

    def _update_count(self, index: Any = None) -> int:
        """Advance MXNet's ``num_update`` by one (the Trainer does this once per step)."""
        self.num_update += 1
        return self.num_update

    def __repr__(self) -> str:
        keys = ("learning_rate", "wd", "clip_gradient", "rescale_grad")
        return f"{type(self).__name__}(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in keys) + ")"

    # --- helpers for the update rules ---------------------------------------------------------
    @property
    def _clip_on(self) -> bool:
        return self.clip_gradient is not None and float(self.clip_gradient) > 0

    def _clip(self, x: jax.Array) -> jax.Array:
        if not self._clip_on:
            return x
        c = float(self.clip_gradient)
        return jnp.clip(x, -c, c)

    def _init_slots(self, name: str, weight: jax.Array) -> tuple[jax.Array, ...]:
        return ()

    def _step(self, name: str, w: jax.Array, g: jax.Array, slots: tuple[jax.Array, ...], lr: jax.Array,
              wd: float, rescale: jax.Array, t: jax.Array) -> tuple[jax.Array, tuple[jax.Array, ...]]:
        raise NotImplementedError(f"{type(self).__name__} does not define an update rule")

    def _uses_master(self, w: jax.Array) -> bool:
        if jnp.dtype(w.dtype) not in _HALF:
            return False
        if not self.multi_precision:
            warnings.warn("Accumulating with float16 in optimizer can lead to poor accuracy or slow "
                          "convergence. Consider using multi_precision=True option of the "
                          f"{type(self).__name__} optimizer", UserWarning, stacklevel=4)
            return False
        return True

    # --- the optax transformation ---------------------------------------------------------------
    def to_optax(self, lr_mult: Mapping[str, float] | None = None,
                 wd_mult: Mapping[str, float] | None = None) -> optax.GradientTransformation:
        """This optimizer as an optax transformation over a (flat) dict of parameters keyed by name.

        ``lr_mult`` / ``wd_mult`` map parameter names to multipliers (default: those set with
        :meth:`set_lr_mult` / :meth:`set_wd_mult`, else 1). ``tx.update(grads, state, params)``
        needs ``params``.

        >>> import jax.numpy as jnp
        >>> tx = create('sgd', learning_rate=0.5).to_optax()
        >>> params = {'w': jnp.ones(2)}
        >>> updates, state = tx.update({'w': jnp.ones(2)}, tx.init(params), params)
        >>> updates['w'].tolist()
        [-0.5, -0.5]
        """
        frozen = copy.copy(self)
        lr_m = {**self.lr_mult, **dict(lr_mult or {})}
        wd_m = {**self.wd_mult, **dict(wd_mult or {})}
        for what, mults in (("lr_mult", lr_m), ("wd_mult", wd_m)):
            for k, v in mults.items():
                if not isinstance(v, (int, float, onp.number)) or isinstance(v, bool):
                    raise TypeError(f"{what}[{k!r}] must be a number, got {v!r}")

        def init_fn(params: Any) -> OptimizerState:
            names, leaves, _ = _named_leaves(params, "params")
            slots = {}
            for name, w in zip(names, leaves, strict=True):
                w = jnp.asarray(w)
                if frozen._uses_master(w):
                    w32 = w.astype(jnp.float32)
                    slots[name] = (w32, *frozen._init_slots(name, w32))
                else:
                    slots[name] = tuple(frozen._init_slots(name, w))
            # scalars converted by NumPy: made eagerly, they are copies to the device, not programs
            return OptimizerState(
                count=_scalar(frozen.begin_num_update, onp.int32),
                hyperparams={"learning_rate": _scalar(frozen.learning_rate, onp.float32),
                             "rescale_grad": _scalar(frozen.rescale_grad, onp.float32)},
                slots=slots)

        def update_fn(updates: Any, state: OptimizerState, params: Any = None) -> tuple[Any, OptimizerState]:
            if params is None:
                raise ValueError(f"{type(frozen).__name__}.to_optax() needs the parameters: call "
                                 "tx.update(grads, state, params)")
            names, grads, treedef = _named_leaves(updates, "grads")
            pnames, weights, _ = _named_leaves(params, "params")
            if names != pnames or set(names) != set(state.slots):
                raise ValueError(f"grads, params and optimizer state must hold the same parameters: grads "
                                 f"{names}, params {pnames}, state {sorted(state.slots)}")
            t = (state.count + 1).astype(jnp.float32)
            lr = state.hyperparams["learning_rate"]
            rescale = state.hyperparams["rescale_grad"]
            out, new_slots = [], {}
            for name, g, w in zip(names, grads, weights, strict=True):
                slots = state.slots[name]
                lr_n = lr * lr_m[name] if lr_m.get(name, 1.0) != 1.0 else lr
                wd_n = frozen.wd * float(wd_m.get(name, 1.0))
                master = len(slots) > 0 and jnp.dtype(w.dtype) in _HALF and \
                    jnp.dtype(slots[0].dtype) == jnp.float32 and frozen.multi_precision
                if master:
                    w32, inner = slots[0], slots[1:]
                    u32, new_inner = frozen._step(name, w32, g.astype(jnp.float32), inner, lr_n, wd_n,
                                                  rescale, t)
                    new32 = w32 + u32.astype(jnp.float32)
                    upd = new32.astype(w.dtype) - w
                    new = (new32, *_cast_like(new_inner, inner))
                else:
                    cd = w.dtype
                    upd, new_inner = frozen._step(name, w, g.astype(cd), slots, lr_n.astype(cd), wd_n,
                                                  rescale.astype(cd), t)
                    new = _cast_like(new_inner, slots)
                out.append(upd.astype(w.dtype))
                new_slots[name] = new
            new_state = OptimizerState(count=state.count + 1, hyperparams=state.hyperparams, slots=new_slots)
            return jax.tree_util.tree_unflatten(treedef, out), new_state

        return optax.GradientTransformation(init_fn, update_fn)


def _scalar(x: Any, dtype: Any) -> jax.Array:
    """A scalar of the optimizer state, converted by NumPy (eagerly a copy, not a program)."""
    return jnp.asarray(onp.asarray(x, dtype), dtype)


def _cast_like(new: tuple[jax.Array, ...], old: tuple[jax.Array, ...]) -> tuple[jax.Array, ...]:
    if len(new) != len(old):
        raise RuntimeError(f"update rule returned {len(new)} state arrays for {len(old)}")
    return tuple(n.astype(o.dtype) for n, o in zip(new, old, strict=True))
