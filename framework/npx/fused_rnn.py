"""MXNet's fused recurrent operator (``npx.rnn``, ``nd.RNN``): stacked, optionally bidirectional LSTM,
GRU or plain RNN over a (T, N, C) sequence with all weights in one packed vector.

The packed layout is MXNet's (cuDNN's): for each layer, for each direction, the input-to-hidden weight
(gates*H, C_in) then the hidden-to-hidden weight (gates*H, H); after every weight, the biases in the same
order (input-to-hidden, then hidden-to-hidden, gates*H each). Gates: LSTM ``i, f, g, o``; GRU ``r, z, n``
with ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``. Each (layer, direction) runs as one ``lax.scan``.

>>> import jax.numpy as jnp
>>> out, h = rnn(jnp.ones((3, 2, 4)), jnp.zeros(rnn_param_size('rnn_tanh', 4, 5)), jnp.zeros((1, 2, 5)),
...              state_size=5, num_layers=1, mode='rnn_tanh', state_outputs=True)
>>> out.shape, h.shape
((3, 2, 5), (1, 2, 5))
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from ._kernel import compiled

__all__ = ["rnn", "rnn_param_size"]

_GATES = {"lstm": 4, "gru": 3, "rnn_relu": 1, "rnn_tanh": 1}


def rnn_param_size(mode: str, input_size: int, state_size: int, num_layers: int = 1,
                   bidirectional: bool = False) -> int:
    """The length of the packed parameter vector.

    >>> rnn_param_size('lstm', 3, 2)
    56
    """
    g, dirs = _GATES[mode], 2 if bidirectional else 1
    total = 0
    for layer in range(num_layers):
        c_in = input_size if layer == 0 else state_size * dirs
        total += dirs * g * state_size * (c_in + state_size + 2)
    return total


def _unpack(params, mode, input_size, h, layers, dirs):
    g = _GATES[mode]
    pos = 0
    cells = []
    for layer in range(layers):
        c_in = input_size if layer == 0 else h * dirs
        for _ in range(dirs):
            wi = params[pos:pos + g * h * c_in].reshape(g * h, c_in)
            pos += g * h * c_in
            wh = params[pos:pos + g * h * h].reshape(g * h, h)
            pos += g * h * h
            cells.append([wi, wh])
    for cell in cells:
        cell.append(params[pos:pos + g * h])
        cell.append(params[pos + g * h:pos + 2 * g * h])
        pos += 2 * g * h
    return cells


def _step(mode, wh, bh, clip):
    def step(carry, xw):
        h, c = carry
        hw = h @ wh.T + bh
        if mode == "lstm":
            i, f, gg, o = jnp.split(xw + hw, 4, axis=-1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(gg)
            if clip is not None:
                lo, hi, nan = clip
                c = jnp.clip(c, lo, hi)
                if nan:
                    c = jnp.where(jnp.isnan(c), 0.0, c)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
        elif mode == "gru":
            xr, xz, xn = jnp.split(xw, 3, axis=-1)
            hr, hz, hn = jnp.split(hw, 3, axis=-1)
            r, z = jax.nn.sigmoid(xr + hr), jax.nn.sigmoid(xz + hz)
            h = (1.0 - z) * jnp.tanh(xn + r * hn) + z * h
        else:
            pre = xw + hw
            h = jax.nn.relu(pre) if mode == "rnn_relu" else jnp.tanh(pre)
        return (h, c), h
    return step


def rnn(data: jax.Array, parameters: jax.Array, state: jax.Array, state_cell: jax.Array | None = None,
        sequence_length: jax.Array | None = None, state_size: int | None = None,
        num_layers: int | None = None,
        bidirectional: bool = False, mode: str | None = None, p: float = 0.0, state_outputs: bool = False,
        projection_size: int | None = None, lstm_state_clip_min: float | None = None,
        lstm_state_clip_max: float | None = None, lstm_state_clip_nan: bool = False,
        use_sequence_length: bool = False, *, training: bool | None = None,
        key: jax.Array | None = None) -> Any:
    """The output (T, N, dirs*state_size); with ``state_outputs`` also the final hidden state
    (layers*dirs, N, state_size) and, for LSTM, the final cell state. ``p`` drops between layers in
    training mode (``training=None`` follows ``autograd.is_training()``). Runs as one compiled program."""
    if p > 0 and training is None:
        from ..autograd import mode as _mode

        training = _mode.is_training()
    if p > 0 and training and key is None:
        from ..np import random as _random

        key = _random.next_key()
    return _rnn(data, parameters, state, state_cell, sequence_length, state_size, num_layers, bidirectional,
                mode, p, state_outputs, projection_size, lstm_state_clip_min, lstm_state_clip_max,
                lstm_state_clip_nan, use_sequence_length, training=bool(training), key=key)


@compiled("data", "parameters", "state", "state_cell", "sequence_length", "key")
def _rnn(data: jax.Array, parameters: jax.Array, state: jax.Array, state_cell: jax.Array | None = None,
         sequence_length: jax.Array | None = None, state_size: int | None = None,
        num_layers: int | None = None,
        bidirectional: bool = False, mode: str | None = None, p: float = 0.0, state_outputs: bool = False,
        projection_size: int | None = None, lstm_state_clip_min: float | None = None,
        lstm_state_clip_max: float | None = None, lstm_state_clip_nan: bool = False,
        use_sequence_length: bool = False, *, training: bool = False,
        key: jax.Array | None = None) -> Any:
    op = "rnn"
    if mode not in _GATES:
        raise ValueError(f"{op}: mode={mode!r} must be one of {sorted(_GATES)}")
    if state_size is None or num_layers is None:
        raise TypeError(f"{op}: state_size and num_layers are required")
    if projection_size is not None:
        raise NotImplementedError(f"{op}: projection_size (LSTMP) is not supported; use gluon.rnn.LSTM "
                                  "with a Dense projection")
    if use_sequence_length or sequence_length is not None:
        raise NotImplementedError(f"{op}: use_sequence_length needs cuDNN in MXNet and is not supported "
                                  "here; mask the outputs with SequenceMask instead")
    if data.ndim != 3:
        raise ValueError(f"{op}: data must be (T, N, C), got shape {tuple(data.shape)}")
    t, n, c = data.shape
    h, layers = int(state_size), int(num_layers)
    dirs = 2 if bidirectional else 1
    need = rnn_param_size(mode, c, h, layers, bidirectional)
    if parameters.shape != (need,):
        raise ValueError(f"{op}: parameters have shape {tuple(parameters.shape)}; mode={mode!r} with "
                         f"input size {c}, state_size={h}, num_layers={layers}, {dirs} direction(s) needs "
                         f"({need},)")
    want = (layers * dirs, n, h)
    cell_bad = mode == "lstm" and (state_cell is None or tuple(state_cell.shape) != want)
    if tuple(state.shape) != want or cell_bad:
        got = f"{tuple(state.shape)}" + ("" if state_cell is None else f" and {tuple(state_cell.shape)}")
        raise ValueError(f"{op}: the initial state{' and state_cell' if mode == 'lstm' else ''} must be "
                         f"{want}, got {got}")
    clip = None
    if mode == "lstm" and (lstm_state_clip_min is not None or lstm_state_clip_max is not None):
        clip = (lstm_state_clip_min, lstm_state_clip_max, bool(lstm_state_clip_nan))
    cells = _unpack(parameters, mode, c, h, layers, dirs)
    x = data
    hs, cs = [], []
    for layer in range(layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            wi, wh, bi, bh = cells[k]
            c0 = state_cell[k] if state_cell is not None else jnp.zeros_like(state[k])
            (hn, cn), ys = lax.scan(_step(mode, wh, bh, clip), (state[k], c0), x @ wi.T + bi, reverse=d == 1)
            outs.append(ys)
            hs.append(hn)
            cs.append(cn)
        x = outs[0] if dirs == 1 else jnp.concatenate(outs, axis=-1)
        if p > 0 and training and layer < layers - 1:
            keep = jax.random.bernoulli(jax.random.fold_in(key, layer), 1.0 - p, x.shape)
            x = jnp.where(keep, x / (1.0 - p), 0.0).astype(x.dtype)
    if not state_outputs:
        return x
    if mode == "lstm":
        return x, jnp.stack(hs), jnp.stack(cs)
    return x, jnp.stack(hs)
