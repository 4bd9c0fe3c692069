"""The recurrent math as pure functions: one step of each cell, and a whole (layer, direction) as one
``lax.scan`` over time. Gate order is MXNet's: LSTM (i, f, c, o), GRU (r, z, n).

>>> import jax.numpy as jnp
>>> w = {'i2h_weight': jnp.ones((4, 2)), 'h2h_weight': jnp.zeros((4, 4)), 'i2h_bias': jnp.zeros(4),
...      'h2h_bias': jnp.zeros(4)}
>>> out, (h,) = run_direction('rnn_tanh', jnp.zeros((3, 1, 2)), (jnp.zeros((1, 4)),), w)
>>> out.shape, h.shape
((3, 1, 4), (1, 4))
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

__all__ = ["GATES", "cell_step", "run_direction", "reverse_valid"]

GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


def _linear(x: jax.Array, w: jax.Array, b: jax.Array | None) -> jax.Array:
    y = jnp.matmul(x, w.T)
    return y if b is None else y + b


def _clip(c: jax.Array, clip: tuple | None) -> jax.Array:
    if clip is None:
        return c
    lo, hi, nan = clip
    out = jnp.clip(c, lo, hi)
    if nan:  # MXNet's lstm_state_clip_nan: a NaN cell state becomes the bound instead of propagating
        out = jnp.where(jnp.isnan(c), hi if hi is not None else lo, out)
    return out


def cell_step(
    mode: str,
    xw: jax.Array,
    states: tuple,
    w: dict[str, Any],
    clip: tuple | None = None,
    activation: Any = None,
    recurrent_activation: Any = None,
) -> tuple[jax.Array, tuple]:
    """One time step. ``xw`` is the input already multiplied by ``i2h_weight`` plus ``i2h_bias``;
    ``states`` is (h,) or, for LSTM, (h, c); ``w`` holds ``h2h_weight``, ``h2h_bias`` and, for a
    projected LSTM, ``h2r_weight``. Returns (output, new states)."""
    h = states[0]
    hw = _linear(h, w["h2h_weight"], w.get("h2h_bias"))
    if mode == "lstm":
        act = activation or jnp.tanh
        ract = recurrent_activation or jax.nn.sigmoid
        gi, gf, gc, go = jnp.split(xw + hw, 4, axis=-1)
        c = ract(gf) * states[1] + ract(gi) * act(gc)
        c = _clip(c, clip)
        h = ract(go) * act(c)
        if w.get("h2r_weight") is not None:
            h = jnp.matmul(h, w["h2r_weight"].T)
        return h, (h, c)
    if mode == "gru":
        xr, xz, xn = jnp.split(xw, 3, axis=-1)
        hr, hz, hn = jnp.split(hw, 3, axis=-1)
        r = jax.nn.sigmoid(xr + hr)
        z = jax.nn.sigmoid(xz + hz)
        n = jnp.tanh(xn + r * hn)
        h = (1 - z) * n + z * h
        return h, (h,)
    act = activation or (jax.nn.relu if mode == "rnn_relu" else jnp.tanh)
    h = act(xw + hw)
    return h, (h,)


def reverse_valid(x: jax.Array, lengths: jax.Array | None) -> jax.Array:
    """Reverse a (T, N, ...) sequence along time, each sample only within its first ``lengths[n]`` steps
    (the padding stays where it is), as MXNet's SequenceReverse."""
    if lengths is None:
        return x[::-1]
    t = jnp.arange(x.shape[0])[:, None]
    lengths = lengths.astype(jnp.int32)[None, :]
    idx = jnp.where(t < lengths, lengths - 1 - t, t)  # (T, N)
    idx = idx.reshape(idx.shape + (1,) * (x.ndim - 2))
    return jnp.take_along_axis(x, jnp.broadcast_to(idx, x.shape[:2] + (1,) * (x.ndim - 2)), axis=0)


def run_direction(
    mode: str,
    x: jax.Array,
    states: tuple,
    w: dict[str, Any],
    *,
    reverse: bool = False,
    lengths: jax.Array | None = None,
    clip: tuple | None = None,
) -> tuple[jax.Array, tuple]:
    """One layer in one direction over a (T, N, C) sequence as a single ``lax.scan``.

    The input projection of all steps is one matmul before the scan. With ``lengths``, steps past a
    sample's length leave its state unchanged and output zeros; ``reverse`` reads each sample's valid
    part backwards. Returns (outputs (T, N, H), final states)."""
    xw = _linear(x, w["i2h_weight"], w.get("i2h_bias"))
    if reverse:
        xw = reverse_valid(xw, lengths)
    steps = jnp.arange(x.shape[0])

    def body(carry, inp):
        xw_t, t = inp
        out, new = cell_step(mode, xw_t, carry, w, clip)
        if lengths is not None:
            live = (t < lengths)[:, None]
            new = tuple(jnp.where(live, n, o) for n, o in zip(new, carry, strict=True))
            out = jnp.where(live, out, jnp.zeros_like(out))
        return new, out

    final, outs = lax.scan(body, tuple(states), (xw, steps))
    if reverse:
        outs = reverse_valid(outs, lengths)
    return outs, final
