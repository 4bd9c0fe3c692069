"""MXNet 1.x's optimizer update operators in ``mx.nd`` (``sgd_update``, ``sgd_mom_update``,
``adam_update``, ``nag_mom_update``, ``rmsprop_update``, ``ftrl_update``, ``signsgd_update``,
``multi_sgd_update``, ...) and ``nd.contrib``'s (``adamw_update``, ``group_adagrad_update``, ...).

MXNet writes the new weight into ``out=`` and updates the state arrays in place. ``jax.Array`` cannot
change, so here each operator RETURNS what changed: the new weight alone for a stateless update
(``sgd_update``, ``signsgd_update``, ``lamb_update_phase2``), otherwise a tuple ``(new_weight,
*new_states)`` in MXNet's argument order (``w, mom = nd.sgd_mom_update(w, g, mom, lr=0.1,
momentum=0.9)``); the ``multi_*`` operators return the list of new weights, then the new states in the
order of ``data``. Arguments that are Variables (``autograd.attach_grad``, a writable holder) are still
updated in place, ``out=`` included, so MXNet's ``nd.sgd_update(w, g, out=w, lr=0.1)`` works on a
Variable ``w``; ``out=`` a plain ``jax.Array`` is refused with this fix.

>>> import framework as mx
>>> w = mx.nd.sgd_update(mx.nd.ones(2), mx.nd.ones(2), lr=0.5)
>>> w.tolist()
[0.5, 0.5]
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp

from ..autograd.variable import Variable
from ..np.dispatch import recordable
from ..npx import updates as _u

__all__ = ["sgd_update", "sgd_mom_update", "mp_sgd_update", "mp_sgd_mom_update", "nag_mom_update",
           "mp_nag_mom_update", "adam_update", "rmsprop_update", "rmspropalex_update", "ftrl_update",
           "ftml_update", "signsgd_update", "signum_update", "lamb_update_phase1", "lamb_update_phase2",
           "mp_lamb_update_phase1", "mp_lamb_update_phase2", "multi_sgd_update", "multi_sgd_mom_update",
           "multi_mp_sgd_update", "multi_mp_sgd_mom_update", "preloaded_multi_sgd_update",
           "preloaded_multi_sgd_mom_update", "preloaded_multi_mp_sgd_update",
           "preloaded_multi_mp_sgd_mom_update", "multi_sum_sq", "multi_lars", "all_finite",
           "multi_all_finite", "reset_arrays"]
CONTRIB = ["adamw_update", "mp_adamw_update", "multi_adamw_update", "multi_mp_adamw_update",
           "multi_lamb_update", "multi_mp_lamb_update", "group_adagrad_update"]


def _write_back(targets: Sequence[Any] | None, values: Sequence[jax.Array]) -> None:
    if targets is None:
        return
    for t, v in zip(targets, values, strict=True):
        if isinstance(t, Variable):
            t[...] = v


def _check_out(op: str, out: Any) -> None:
    outs = out if isinstance(out, (list, tuple)) else [out]
    if out is not None and not all(isinstance(o, Variable) for o in outs):
        raise TypeError(f"nd.{op}(..., out=...): jax arrays are immutable, so the update cannot be written "
                        f"into an existing array. Use the returned value(s): w = nd.{op}(...) (or w, *states "
                        "= ... for a stateful update), or pass Variables (autograd.attach_grad), which are "
                        "updated in place.")


def _single(kernel: Callable[..., tuple], state_args: Sequence[str]) -> Callable[..., Any]:
    """MXNet's calling convention around an update kernel (see the module docstring)."""
    sig = inspect.signature(kernel)
    rec = recordable(kernel)

    @functools.wraps(kernel)
    def op(*args: Any, out: Any = None, name: str | None = None, **kwargs: Any) -> Any:
        _check_out(kernel.__name__, out)
        bound = sig.bind(*args, **kwargs)
        res = rec(*bound.args, **bound.kwargs)
        _write_back([out], res[:1])
        _write_back([bound.arguments[s] for s in state_args], res[1:])
        return res[0] if len(res) == 1 else tuple(res)

    op.__wrapped__ = kernel
    return op


sgd_update = _single(_u.sgd_update, ())
sgd_mom_update = _single(_u.sgd_mom_update, ("mom",))
mp_sgd_update = _single(_u.mp_sgd_update, ("weight32",))
mp_sgd_mom_update = _single(_u.mp_sgd_mom_update, ("mom", "weight32"))
nag_mom_update = _single(_u.nag_mom_update, ("mom",))
mp_nag_mom_update = _single(_u.mp_nag_mom_update, ("mom", "weight32"))
adam_update = _single(_u.adam_update, ("mean", "var"))
rmsprop_update = _single(_u.rmsprop_update, ("n",))
rmspropalex_update = _single(_u.rmspropalex_update, ("n", "g", "delta"))
ftrl_update = _single(_u.ftrl_update, ("z", "n"))
ftml_update = _single(_u.ftml_update, ("d", "v", "z"))
signsgd_update = _single(_u.signsgd_update, ())
signum_update = _single(_u.signum_update, ("mom",))
lamb_update_phase1 = _single(_u.lamb_update_phase1, ("mean", "var"))
lamb_update_phase2 = _single(_u.lamb_update_phase2, ())
mp_lamb_update_phase1 = _single(_u.mp_lamb_update_phase1, ("mean", "var"))
mp_lamb_update_phase2 = _single(_u.mp_lamb_update_phase2, ())
adamw_update = _single(_u.adamw_update, ("mean", "var"))
mp_adamw_update = _single(_u.mp_adamw_update, ("mean", "var", "weight32"))
group_adagrad_update = _single(_u.group_adagrad_update, ("history",))


def _multi(kernel: Callable[..., tuple], group: int, state_pos: Sequence[int], preloaded: bool) -> Callable:
    """A ``multi_*`` update: ``data`` holds ``group`` arrays per weight (weight, grad, states...);
    ``lrs``/``wds`` are tuples (or, ``preloaded``, the last two arrays of ``data``)."""

    def op(*data: Any, lrs: Sequence[float] = (), wds: Sequence[float] = (), num_weights: int = 1,
           out: Any = None, name: str | None = None, **kwargs: Any) -> Any:
        opname = kernel.__name__
        _check_out("multi_" + opname, out)
        arrays = list(data)
        if preloaded:
            arrays, lr_arr, wd_arr = arrays[:-2], arrays[-2], arrays[-1]
        if len(arrays) != group * num_weights:
            raise ValueError(f"nd.multi {opname}: data holds {len(arrays)} arrays; num_weights={num_weights} "
                             f"needs {group * num_weights} ({group} per weight)")
        weights, states = [], [[] for _ in state_pos]
        for i in range(num_weights):
            chunk = arrays[group * i: group * (i + 1)]
            if preloaded:
                lr, wd = lr_arr[i], wd_arr[i]
            else:
                lr, wd = lrs[i], wds[i]
            res = recordable(kernel)(*chunk, lr=lr, wd=wd, **kwargs)
            weights.append(res[0])
            for k, s in enumerate(res[1:]):
                states[k].append(s)
        _write_back(out if isinstance(out, (list, tuple)) else None, weights)
        for k, pos in enumerate(state_pos):
            _write_back([arrays[group * i + pos] for i in range(num_weights)], states[k])
        return weights if not state_pos else (weights, *states)

    op.__name__ = op.__qualname__ = ("preloaded_" if preloaded else "") + "multi_" + kernel.__name__
    op.__doc__ = (f"``{kernel.__name__}`` over ``num_weights`` groups of ``data``: returns the new weights"
                  + ("" if not state_pos else " and, after them, the new states") + ".")
    return op


multi_sgd_update = _multi(_u.sgd_update, 2, (), False)
multi_sgd_mom_update = _multi(_u.sgd_mom_update, 3, (2,), False)
multi_mp_sgd_update = _multi(_u.mp_sgd_update, 3, (2,), False)
multi_mp_sgd_mom_update = _multi(_u.mp_sgd_mom_update, 4, (2, 3), False)
preloaded_multi_sgd_update = _multi(_u.sgd_update, 2, (), True)
preloaded_multi_sgd_mom_update = _multi(_u.sgd_mom_update, 3, (2,), True)
preloaded_multi_mp_sgd_update = _multi(_u.mp_sgd_update, 3, (2,), True)
preloaded_multi_mp_sgd_mom_update = _multi(_u.mp_sgd_mom_update, 4, (2, 3), True)


def _lists(mp: bool, args: tuple, names: Sequence[str], kwargs: dict) -> list:
    """Positional-or-keyword arguments after (weights, grads, mean, var[, weights32])."""
    names = (("weights32",) if mp else ()) + tuple(names)
    values = list(args) + [kwargs.pop(n) for n in names[len(args):]]
    if len(values) != len(names):
        raise TypeError(f"expected arguments {names}, got {len(args)} positional")
    return values


def _multi_adam(kernel: Callable[..., tuple], mp: bool) -> Callable:
    def op(weights: Sequence[Any], grads: Sequence[Any], mean: Sequence[Any], var: Sequence[Any], *args: Any,
           out: Any = None, name: str | None = None, size: int = 0, **kwargs: Any) -> Any:
        vals = _lists(mp, args, ("rescale_grad", "lrs", "wds", "etas"), kwargs)
        weights32 = vals.pop(0) if mp else None
        rescale_grad, lrs, wds, etas = vals
        _check_out(kernel.__name__, out)
        new_w, new_m, new_v, new_32 = [], [], [], []
        for i in range(len(weights)):
            head = (weights[i], grads[i], mean[i], var[i]) + ((weights32[i],) if mp else ())
            res = recordable(kernel)(*head, rescale_grad, lr=lrs[i], eta=etas[i], wd=wds[i], **kwargs)
            new_w.append(res[0])
            new_m.append(res[1])
            new_v.append(res[2])
            if mp:
                new_32.append(res[3])
        _write_back(out if isinstance(out, (list, tuple)) else None, new_w)
        _write_back(mean, new_m)
        _write_back(var, new_v)
        if mp:
            _write_back(weights32, new_32)
            return new_w, new_m, new_v, new_32
        return new_w, new_m, new_v

    op.__name__ = op.__qualname__ = "multi_" + kernel.__name__
    op.__doc__ = f"``{kernel.__name__}`` over lists of weights: returns the new weights, means, variances."
    return op


multi_adamw_update = _multi_adam(_u.adamw_update, False)
multi_mp_adamw_update = _multi_adam(_u.mp_adamw_update, True)


def _multi_lamb(mp: bool) -> Callable:
    def op(weights: Sequence[Any], grads: Sequence[Any], mean: Sequence[Any], var: Sequence[Any], *args: Any,
           beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-6, rescale_grad: float = 1.0,
           lower_bound: float = -1.0, upper_bound: float = -1.0, clip_gradient: float = -1.0,
           bias_correction: bool = True, out: Any = None, name: str | None = None, num_tensors: int = 0,
           **kwargs: Any) -> Any:
        vals = _lists(mp, args, ("step_count", "lrs", "wds"), kwargs)
        weights32 = vals.pop(0) if mp else None
        step_count, lrs, wds = vals
        _check_out("multi_lamb_update", out)
        new_w, new_m, new_v, new_32 = [], [], [], []
        for i in range(len(weights)):
            base = weights32[i] if mp else weights[i]
            g, m, v = _u.lamb_update_phase1(base, grads[i].astype(base.dtype), mean[i], var[i], beta1, beta2,
                                            epsilon, int(step_count[i]), bias_correction, wds[i],
                                            rescale_grad, clip_gradient)
            r1 = jnp.linalg.norm(base.reshape(-1)).reshape(1)
            r2 = jnp.linalg.norm(g.reshape(-1)).reshape(1)
            (w,) = _u.lamb_update_phase2(base, g, r1, r2, lrs[i], lower_bound, upper_bound)
            new_w.append(w.astype(weights[i].dtype))
            new_m.append(m)
            new_v.append(v)
            new_32.append(w)
        _write_back(out if isinstance(out, (list, tuple)) else None, new_w)
        _write_back(mean, new_m)
        _write_back(var, new_v)
        if mp:
            _write_back(weights32, new_32)
            return new_w, new_m, new_v, new_32
        return new_w, new_m, new_v

    op.__name__ = op.__qualname__ = "multi_mp_lamb_update" if mp else "multi_lamb_update"
    op.__doc__ = "LAMB (phases 1 and 2) over lists of weights: returns the new weights, means, variances."
    return op


multi_lamb_update = _multi_lamb(False)
multi_mp_lamb_update = _multi_lamb(True)


@recordable
def _sum_sq(*data: jax.Array) -> jax.Array:
    return jnp.stack([jnp.sum(jnp.square(d.astype(jnp.float32))) for d in data])


def multi_sum_sq(*data: Any, num_arrays: int | None = None, out: Any = None, name: str | None = None) -> Any:
    """The sum of squares of each array: shape (num_arrays,), float32."""
    if num_arrays is not None and num_arrays != len(data):
        raise ValueError(f"nd.multi_sum_sq: num_arrays={num_arrays} but {len(data)} arrays were given")
    return _sum_sq(*data)


@recordable
def _lars(lrs, weights_sum_sq, grads_sum_sq, wds, eta, eps, rescale_grad):
    w = jnp.sqrt(weights_sum_sq)
    g = jnp.sqrt(grads_sum_sq) * rescale_grad
    ok = (w > 0) & (g > 0)
    return jnp.where(ok, lrs * eta * w / jnp.where(ok, g + wds * w + eps, 1.0), lrs)


def multi_lars(lrs: Any, weights_sum_sq: Any, grads_sum_sq: Any, wds: Any, eta: float, eps: float,
               rescale_grad: float = 1.0, out: Any = None, name: str | None = None) -> Any:
    """LARS learning rates: ``lr * eta * |w| / (|g| + wd |w| + eps)`` where both norms are positive."""
    return _lars(lrs, weights_sum_sq, grads_sum_sq, wds, eta, eps, rescale_grad)


@recordable
def _finite(*data: jax.Array) -> jax.Array:
    return jnp.stack([jnp.all(jnp.isfinite(d)) for d in data]).all().astype(jnp.float32).reshape(1)


def all_finite(data: Any, init_output: bool = True, out: Any = None, name: str | None = None) -> Any:
    """(1,) float32: 1 if every entry of ``data`` is finite, else 0."""
    return _finite(data)


def multi_all_finite(*data: Any, num_arrays: int = 1, init_output: bool = True, out: Any = None,
                     name: str | None = None) -> Any:
    """(1,) float32: 1 if every entry of every array is finite, else 0."""
    return _finite(*data)


def reset_arrays(*data: Any, num_arrays: int | None = None, out: Any = None, name: str | None = None) -> Any:
    """Zeros like each array (Variables are zeroed in place); returns the list of zero arrays."""
    zeros = [jnp.zeros_like(jnp.asarray(d)) for d in data]
    _write_back(data, zeros)
    return zeros
