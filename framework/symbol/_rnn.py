"""MXNet's fused ``RNN`` operator (modes lstm, gru, rnn_relu, rnn_tanh) over its packed parameters.

The packed vector holds, for every layer and direction in turn, the input-to-hidden then the
hidden-to-hidden weights, and after all weights the two biases in the same order (cuDNN's layout,
which ``_rnn_param_concat`` builds from Gluon's ``l0_i2h_weight``...). Data is TNC. Gates: LSTM
``i, f, g, o``; GRU ``r, z, n`` with ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``.

>>> import jax.numpy as jnp
>>> out, h = rnn(jnp.ones((2, 1, 3)), jnp.zeros(1 * 3 + 1 * 1 + 2), jnp.zeros((1, 1, 1)),
...              mode="rnn_tanh", state_size=1, num_layers=1)
>>> out.shape, h.shape
((2, 1, 1), (1, 1, 1))
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

__all__ = ["rnn", "GATES"]

GATES = {"lstm": 4, "gru": 3, "rnn_relu": 1, "rnn_tanh": 1}


def _unpack(params, mode, input_size, hidden, layers, dirs):
    g = GATES[mode]
    pos = 0
    weights = []
    for layer in range(layers):
        in_size = input_size if layer == 0 else hidden * dirs
        for _ in range(dirs):
            wi = params[pos:pos + g * hidden * in_size].reshape(g * hidden, in_size)
            pos += g * hidden * in_size
            wh = params[pos:pos + g * hidden * hidden].reshape(g * hidden, hidden)
            pos += g * hidden * hidden
            weights.append([wi, wh])
    for k in range(layers * dirs):
        bi = params[pos:pos + g * hidden]
        bh = params[pos + g * hidden:pos + 2 * g * hidden]
        pos += 2 * g * hidden
        weights[k] += [bi, bh]
    return weights, pos


def param_size(mode: str, input_size: int, hidden: int, layers: int, dirs: int) -> int:
    g = GATES[mode]
    size = 0
    for layer in range(layers):
        in_size = input_size if layer == 0 else hidden * dirs
        size += dirs * g * hidden * (in_size + hidden + 2)
    return size


def _cell(mode, wi, wh, bi, bh):
    def step(carry, xw):
        h, c = carry
        hw = h @ wh.T + bh
        if mode == "lstm":
            i, f, gg, o = jnp.split(xw + hw, 4, axis=-1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(gg)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
        elif mode == "gru":
            xr, xz, xn = jnp.split(xw, 3, axis=-1)
            hr, hz, hn = jnp.split(hw, 3, axis=-1)
            r = jax.nn.sigmoid(xr + hr)
            z = jax.nn.sigmoid(xz + hz)
            n = jnp.tanh(xn + r * hn)
            h = (1.0 - z) * n + z * h
        else:
            pre = xw + hw
            h = jax.nn.relu(pre) if mode == "rnn_relu" else jnp.tanh(pre)
        return (h, c), h
    return step


def rnn(data, params, state, state_cell=None, *, mode: str, state_size: int, num_layers: int,
        bidirectional: bool = False, p: float = 0.0, training: bool = False, key=None):
    """Run the stacked (bi)directional RNN; returns ``(out, h_n)`` or ``(out, h_n, c_n)`` for LSTM."""
    if mode not in GATES:
        raise ValueError(f"RNN: mode={mode!r} is not one of {sorted(GATES)}")
    t, n, input_size = data.shape
    dirs = 2 if bidirectional else 1
    need = param_size(mode, input_size, state_size, num_layers, dirs)
    if params.shape != (need,):
        raise ValueError(f"RNN: parameters have shape {tuple(params.shape)}, but mode={mode!r} with "
                         f"input size {input_size}, state_size={state_size}, num_layers={num_layers}, "
                         f"{dirs} direction(s) needs ({need},)")
    want = (num_layers * dirs, n, state_size)
    if tuple(state.shape) != want:
        raise ValueError(f"RNN: initial state has shape {tuple(state.shape)}, expected {want}")
    weights, _ = _unpack(params, mode, input_size, state_size, num_layers, dirs)
    x = data
    hs, cs = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            wi, wh, bi, bh = weights[k]
            xw = x @ wi.T + bi
            h0 = state[k]
            c0 = state_cell[k] if state_cell is not None else jnp.zeros_like(h0)
            (h, c), ys = lax.scan(_cell(mode, wi, wh, bi, bh), (h0, c0), xw, reverse=(d == 1))
            outs.append(ys)
            hs.append(h)
            cs.append(c)
        x = outs[0] if dirs == 1 else jnp.concatenate(outs, axis=-1)
        if p > 0 and training and layer < num_layers - 1:
            keep = jax.random.bernoulli(jax.random.fold_in(key, layer), 1.0 - p, x.shape)
            x = jnp.where(keep, x / (1.0 - p), 0.0)
    h_n = jnp.stack(hs)
    if mode == "lstm":
        return x, h_n, jnp.stack(cs)
    return x, h_n
