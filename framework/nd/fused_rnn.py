"""MXNet 1.x's fused ``mx.nd.RNN`` over its packed parameter vector: see :mod:`framework.npx.fused_rnn`.
The mode (for dropout between layers, ``p``) and the random key are taken when called, so a recorded
call replays with the same mask.

>>> import framework as mx
>>> x, params = mx.nd.ones((3, 2, 4)), mx.nd.zeros(mx.npx.fused_rnn.rnn_param_size('gru', 4, 5))
>>> mx.nd.RNN(x, params, mx.nd.zeros((1, 2, 5)), state_size=5, num_layers=1, mode='gru').shape
(3, 2, 5)
"""

from __future__ import annotations

from typing import Any

import jax

from ..autograd import mode as _mode
from ..np import random as _random
from ..npx import fused_rnn as _rnn
from ._op import nd_op

__all__ = ["RNN"]


@nd_op
def _rnn_op(data, parameters, state, state_cell, kwargs, training, key):
    return _rnn.rnn(data, parameters, state, state_cell, training=training, key=key, **dict(kwargs))


def RNN(data: jax.Array, parameters: jax.Array, state: jax.Array, state_cell: jax.Array | None = None,
        sequence_length: jax.Array | None = None, state_size: int | None = None,
        num_layers: int | None = None,
        bidirectional: bool = False, mode: str | None = None, p: float = 0.0, state_outputs: bool = False,
        projection_size: int | None = None, lstm_state_clip_min: float | None = None,
        lstm_state_clip_max: float | None = None, lstm_state_clip_nan: bool = False,
        use_sequence_length: bool = False, name: str | None = None, out: Any = None) -> Any:
    """The output (T, N, dirs*state_size), and with ``state_outputs`` the final states."""
    if sequence_length is not None or use_sequence_length:
        raise NotImplementedError("nd.RNN: use_sequence_length needs cuDNN in MXNet and is not supported "
                                  "here; mask the outputs with nd.SequenceMask instead")
    training = _mode.is_training()
    key = _random.next_key() if training and 0.0 < float(p) < 1.0 else None
    kwargs = (("state_size", state_size), ("num_layers", num_layers), ("bidirectional", bidirectional),
              ("mode", mode), ("p", p), ("state_outputs", state_outputs),
              ("projection_size", projection_size),
              ("lstm_state_clip_min", lstm_state_clip_min), ("lstm_state_clip_max", lstm_state_clip_max),
              ("lstm_state_clip_nan", lstm_state_clip_nan))
    return _rnn_op(data, parameters, state, state_cell, kwargs, training, key, name=name, out=out)
