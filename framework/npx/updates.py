"""MXNet's optimizer update operators (``sgd_update``, ``adam_update``, ...) as pure functions.

MXNet writes the new weight into ``out`` and updates its state arrays (momentum, moments, ...) in place.
Here every kernel returns ``(new_weight, *new_states)`` with the states in MXNet's argument order (the
phase-1 LAMB kernels return the update direction in place of the weight); ``framework.nd``'s wrappers
turn that into MXNet's calling convention. Arithmetic follows MXNet's kernels term by term: gradient
``rescale_grad * grad`` (plus ``wd * weight`` where MXNet adds it before clipping), clipped to
``[-clip_gradient, clip_gradient]`` when ``clip_gradient >= 0``.

>>> import jax.numpy as jnp
>>> w, mom = sgd_mom_update(jnp.ones(2), jnp.ones(2), jnp.zeros(2), lr=0.1, momentum=0.9)
>>> w.tolist(), mom.tolist()
([0.8999999761581421, 0.8999999761581421], [-0.10000000149011612, -0.10000000149011612])
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["sgd_update", "sgd_mom_update", "mp_sgd_update", "mp_sgd_mom_update", "nag_mom_update",
           "mp_nag_mom_update", "adam_update", "rmsprop_update", "rmspropalex_update", "ftrl_update",
           "ftml_update", "signsgd_update", "signum_update", "lamb_update_phase1", "lamb_update_phase2",
           "mp_lamb_update_phase1", "mp_lamb_update_phase2", "adamw_update", "mp_adamw_update",
           "group_adagrad_update"]

A = jax.Array


def _clip(g: A, c: float) -> A:
    return jnp.clip(g, -c, c) if c >= 0 else g


def _f32(x: A) -> A:
    return jnp.asarray(x).astype(jnp.float32)


def sgd_update(weight: A, grad: A, lr: float, wd: float = 0.0, rescale_grad: float = 1.0,
               clip_gradient: float = -1.0, lazy_update: bool = True) -> tuple[A]:
    """``w = (1 - lr*wd) w - lr * clip(rescale_grad * grad)``."""
    return ((1 - lr * wd) * weight - lr * _clip(rescale_grad * grad, clip_gradient),)


def sgd_mom_update(weight: A, grad: A, mom: A, lr: float, momentum: float = 0.0, wd: float = 0.0,
                   rescale_grad: float = 1.0, clip_gradient: float = -1.0,
                   lazy_update: bool = True) -> tuple[A, A]:
    """``mom = momentum*mom - lr*wd*w - lr*clip(rescale_grad*grad)``; ``w = w + mom``."""
    mom = momentum * mom - lr * wd * weight - lr * _clip(rescale_grad * grad, clip_gradient)
    return weight + mom, mom


def mp_sgd_update(weight: A, grad: A, weight32: A, lr: float, wd: float = 0.0, rescale_grad: float = 1.0,
                  clip_gradient: float = -1.0, lazy_update: bool = True) -> tuple[A, A]:
    """``sgd_update`` on the float32 master copy ``weight32``; the weight is its cast."""
    (w32,) = sgd_update(weight32, _f32(grad), lr, wd, rescale_grad, clip_gradient)
    return w32.astype(weight.dtype), w32


def mp_sgd_mom_update(weight: A, grad: A, mom: A, weight32: A, lr: float, momentum: float = 0.0,
                      wd: float = 0.0, rescale_grad: float = 1.0, clip_gradient: float = -1.0,
                      lazy_update: bool = True) -> tuple[A, A, A]:
    """``sgd_mom_update`` on the float32 master copy."""
    w32, mom = sgd_mom_update(weight32, _f32(grad), mom, lr, momentum, wd, rescale_grad, clip_gradient)
    return w32.astype(weight.dtype), mom, w32


def nag_mom_update(weight: A, grad: A, mom: A, lr: float, momentum: float = 0.0, wd: float = 0.0,
                   rescale_grad: float = 1.0, clip_gradient: float = -1.0) -> tuple[A, A]:
    """Nesterov momentum, MXNet's form."""
    step = lr * (_clip(rescale_grad * grad, clip_gradient) + wd * weight)
    mom = momentum * mom
    new_w = weight - mom + (momentum + 1) * (mom - step)
    return new_w, mom - step


def mp_nag_mom_update(weight: A, grad: A, mom: A, weight32: A, lr: float, momentum: float = 0.0,
                      wd: float = 0.0, rescale_grad: float = 1.0, clip_gradient: float = -1.0
                      ) -> tuple[A, A, A]:
    """``nag_mom_update`` on the float32 master copy; as in MXNet's kernel, the momentum's weight-decay
    term uses the already updated weight."""
    g = _clip(rescale_grad * _f32(grad), clip_gradient)
    mom = momentum * mom
    w32 = weight32 - mom + (momentum + 1) * (mom - lr * (g + wd * weight32))
    return w32.astype(weight.dtype), mom - lr * (g + wd * w32), w32


def adam_update(weight: A, grad: A, mean: A, var: A, lr: float, beta1: float = 0.9, beta2: float = 0.999,
                epsilon: float = 1e-8, wd: float = 0.0, rescale_grad: float = 1.0,
                clip_gradient: float = -1.0, lazy_update: bool = True) -> tuple[A, A, A]:
    """Adam without bias correction (MXNet folds it into ``lr``)."""
    g = _clip(grad * rescale_grad + weight * wd, clip_gradient)
    mean = beta1 * mean + (1 - beta1) * g
    var = beta2 * var + (1 - beta2) * g * g
    return weight - lr * mean / (jnp.sqrt(var) + epsilon), mean, var


def rmsprop_update(weight: A, grad: A, n: A, lr: float, gamma1: float = 0.95, epsilon: float = 1e-8,
                   wd: float = 0.0, rescale_grad: float = 1.0, clip_gradient: float = -1.0,
                   clip_weights: float = -1.0) -> tuple[A, A]:
    """RMSProp (Tieleman and Hinton)."""
    g = _clip(rescale_grad * grad + wd * weight, clip_gradient)
    n = (1 - gamma1) * g * g + gamma1 * n
    return _clip(weight - lr * (g / jnp.sqrt(n + epsilon)), clip_weights), n


def rmspropalex_update(weight: A, grad: A, n: A, g: A, delta: A, lr: float, gamma1: float = 0.95,
                       gamma2: float = 0.9, epsilon: float = 1e-8, wd: float = 0.0, rescale_grad: float = 1.0,
                       clip_gradient: float = -1.0, clip_weights: float = -1.0) -> tuple[A, A, A, A]:
    """RMSProp (Graves) with momentum ``gamma2``."""
    gr = _clip(rescale_grad * grad + wd * weight, clip_gradient)
    n = (1 - gamma1) * gr * gr + gamma1 * n
    g = (1 - gamma1) * gr + gamma1 * g
    delta = gamma2 * delta - lr * gr / jnp.sqrt(n - g * g + epsilon)
    return _clip(weight + delta, clip_weights), n, g, delta


def ftrl_update(weight: A, grad: A, z: A, n: A, lr: float, lamda1: float = 0.01, beta: float = 1.0,
                wd: float = 0.0, rescale_grad: float = 1.0, clip_gradient: float = -1.0) -> tuple[A, A, A]:
    """Follow the regularised leader."""
    g = _clip(grad * rescale_grad, clip_gradient)
    z = z + g - (jnp.sqrt(n + g * g) - jnp.sqrt(n)) * weight / lr
    n = n + g * g
    w = (jnp.sign(z) * lamda1 - z) / ((beta + jnp.sqrt(n)) / lr + wd) * (jnp.abs(z) > lamda1)
    return w.astype(weight.dtype), z, n


def ftml_update(weight: A, grad: A, d: A, v: A, z: A, lr: float, beta1: float = 0.6, beta2: float = 0.999,
                epsilon: float = 1e-8, t: int = 1, wd: float = 0.0, rescale_grad: float = 1.0,
                clip_grad: float = -1.0) -> tuple[A, A, A, A]:
    """Follow the moving leader at step ``t``."""
    g = _clip(rescale_grad * grad + wd * weight, clip_grad)
    v = beta2 * v + (1 - beta2) * g * g
    d_t = (1 - beta1 ** t) / lr * (jnp.sqrt(v / (1 - beta2 ** t)) + epsilon)
    z = beta1 * z + (1 - beta1) * g - (d_t - beta1 * d) * weight
    return -z / d_t, d_t, v, z


def signsgd_update(weight: A, grad: A, lr: float, wd: float = 0.0, rescale_grad: float = 1.0,
                   clip_gradient: float = -1.0) -> tuple[A]:
    """``w = (1 - lr*wd) w - lr * sign(grad)``."""
    return ((1 - lr * wd) * weight - lr * jnp.sign(grad),)


def signum_update(weight: A, grad: A, mom: A, lr: float, momentum: float = 0.0, wd: float = 0.0,
                  rescale_grad: float = 1.0, clip_gradient: float = -1.0, wd_lh: float = 0.0) -> tuple[A, A]:
    """Signum: ``w`` moves by ``lr`` in the direction of the momentum's sign."""
    mom = momentum * mom - (1 - momentum) * wd * weight - (1 - momentum) * _clip(rescale_grad * grad,
                                                                                  clip_gradient)
    return (1 - lr * wd_lh) * weight + lr * jnp.sign(mom), mom


def lamb_update_phase1(weight: A, grad: A, mean: A, var: A, beta1: float = 0.9, beta2: float = 0.999,
                       epsilon: float = 1e-6, t: int = 1, bias_correction: bool = True, wd: float = 0.0,
                       rescale_grad: float = 1.0, clip_gradient: float = -1.0) -> tuple[A, A, A]:
    """LAMB's direction ``g`` (returned in place of the weight) and the new moments."""
    gr = _clip(grad * rescale_grad, clip_gradient)
    mean = beta1 * mean + (1 - beta1) * gr
    var = beta2 * var + (1 - beta2) * gr * gr
    if bias_correction:
        g = (mean / (1 - beta1 ** t)) / (jnp.sqrt(var / (1 - beta2 ** t)) + epsilon) + wd * weight
    else:
        g = mean / (jnp.sqrt(var) + epsilon) + wd * weight
    return g, mean, var


def lamb_update_phase2(weight: A, g: A, r1: A, r2: A, lr: float, lower_bound: float = -1.0,
                       upper_bound: float = -1.0) -> tuple[A]:
    """``w - lr * r1/r2 * g`` with ``r1`` (the weight's norm) clipped to the bounds (>= 0 to apply);
    ``lr`` alone when either norm is 0."""
    r1 = r1.reshape(())
    if lower_bound >= 0:
        r1 = jnp.maximum(r1, lower_bound)
    if upper_bound >= 0:
        r1 = jnp.minimum(r1, upper_bound)
    r2 = r2.reshape(())
    ratio = jnp.where((r1 == 0) | (r2 == 0), 1.0, r1 / jnp.where(r2 == 0, 1.0, r2))
    return (weight - lr * ratio * g,)


def mp_lamb_update_phase1(weight: A, grad: A, mean: A, var: A, weight32: A, beta1: float = 0.9,
                          beta2: float = 0.999, epsilon: float = 1e-6, t: int = 1,
                          bias_correction: bool = True, wd: float = 0.0, rescale_grad: float = 1.0,
                          clip_gradient: float = -1.0) -> tuple[A, A, A]:
    """``lamb_update_phase1`` on the float32 master copy."""
    return lamb_update_phase1(weight32, _f32(grad), mean, var, beta1, beta2, epsilon, t, bias_correction,
                              wd, rescale_grad, clip_gradient)


def mp_lamb_update_phase2(weight: A, g: A, r1: A, r2: A, weight32: A, lr: float, lower_bound: float = -1.0,
                          upper_bound: float = -1.0) -> tuple[A]:
    """``lamb_update_phase2`` from the float32 master copy, cast to the weight's type (as in MXNet,
    ``weight32`` itself is not updated)."""
    (w32,) = lamb_update_phase2(weight32, g, r1, r2, lr, lower_bound, upper_bound)
    return (w32.astype(weight.dtype),)


def adamw_update(weight: A, grad: A, mean: A, var: A, rescale_grad: A, lr: float, eta: float,
                 beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-8, wd: float = 0.0,
                 clip_gradient: float = -1.0) -> tuple[A, A, A]:
    """AdamW (decoupled weight decay) scaled by ``eta``; ``rescale_grad`` is an array, and a
    non-finite one skips the update (weight and moments unchanged), as in MXNet."""
    scale = jnp.asarray(rescale_grad).reshape(())
    g = _clip(scale * grad, clip_gradient)
    new_mean = beta1 * mean + (1 - beta1) * g
    new_var = beta2 * var + (1 - beta2) * g * g
    new_w = weight - eta * (lr * new_mean / (jnp.sqrt(new_var) + epsilon) + wd * weight)
    ok = jnp.isfinite(scale)
    return (jnp.where(ok, new_w, weight).astype(weight.dtype), jnp.where(ok, new_mean, mean),
            jnp.where(ok, new_var, var))


def mp_adamw_update(weight: A, grad: A, mean: A, var: A, weight32: A, rescale_grad: A, lr: float, eta: float,
                    beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-8, wd: float = 0.0,
                    clip_gradient: float = -1.0) -> tuple[A, A, A, A]:
    """``adamw_update`` on the float32 master copy."""
    w32, mean, var = adamw_update(weight32, _f32(grad), mean, var, rescale_grad, lr, eta, beta1, beta2,
                                  epsilon, wd, clip_gradient)
    return w32.astype(weight.dtype), mean, var, w32


def group_adagrad_update(weight: A, grad: A, history: A, lr: float, rescale_grad: float = 1.0,
                         clip_gradient: float = -1.0, epsilon: float = 1e-5) -> tuple[A, A]:
    """AdaGrad with one accumulator per row: ``history += mean(g^2 over the row)``."""
    g = _clip(rescale_grad * grad, clip_gradient)
    axes = tuple(range(1, g.ndim))
    history = history + jnp.mean(g * g, axis=axes).reshape(history.shape)
    h = history.reshape(history.shape[:1] + (1,) * (g.ndim - 1))
    return weight - lr * g / (jnp.sqrt(h) + epsilon), history
