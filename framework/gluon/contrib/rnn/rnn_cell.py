"""MXNet 1.9.1's ``contrib.rnn.rnn_cell``: ``VariationalDropoutCell`` (one dropout mask for every time
step), ``LSTMPCell`` (an LSTM with a projected recurrent state) and ``dynamic_unroll``.

>>> from framework import np
>>> cell = LSTMPCell(8, 3, input_size=4)
>>> cell.initialize()
>>> out, (r, c) = cell(np.ones((2, 4)), cell.begin_state(2))
>>> out.shape, r.shape, c.shape
((2, 3), (2, 3), (2, 8))
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from .... import np as _np
from ....autograd import tape as _tape
from ....npx import drop as _drop
from ...parameter import Parameter
from ...rnn import BidirectionalCell, HybridRecurrentCell, ModifierCell, RecurrentCell, SequentialRNNCell

__all__ = ["VariationalDropoutCell", "LSTMPCell", "dynamic_unroll"]


def _steps(inputs: Any, layout: str) -> tuple[list[Any], int]:
    if layout not in ("NTC", "TNC"):
        raise ValueError(f"unroll: layout={layout!r}; 'NTC' or 'TNC' expected")
    axis = layout.find("T")
    if isinstance(inputs, (list, tuple)):
        return list(inputs), axis
    return [_np.take(inputs, t, axis=axis) for t in range(inputs.shape[axis])], axis


def _dropout_mask(like: Any, rate: float, key: jax.Array) -> jax.Array:
    """The mask MXNet's ``Dropout(ones_like(x))`` draws: 0 or 1/(1-rate)."""
    return _drop.dropout(jnp.ones(like.shape, like.dtype), p=rate, key=key, training=True)


class VariationalDropoutCell(ModifierCell):
    """Variational dropout (Gal & Ghahramani, 2016) on ``base_cell``'s inputs, first state and outputs:
    the masks are drawn at the first step of a sequence and kept until :meth:`reset` (``unroll`` resets;
    when stepping by hand, call ``reset()`` between sequences). Training mode only.

    >>> from framework.gluon import rnn
    >>> VariationalDropoutCell(rnn.RNNCell(4, input_size=3), drop_outputs=0.5)
    VariationalDropoutCell(p_out = 0.5, p_state = 0.0)
    """

    def __init__(self, base_cell: RecurrentCell, drop_inputs: float = 0.0, drop_states: float = 0.0,
                 drop_outputs: float = 0.0) -> None:
        if drop_states and isinstance(base_cell, BidirectionalCell):
            raise ValueError("BidirectionalCell doesn't support variational state dropout. Please add "
                             "VariationalDropoutCell to the cells underneath instead.")
        if drop_states and isinstance(base_cell, SequentialRNNCell) and \
                any(isinstance(c, BidirectionalCell) for c in base_cell._children.values()):
            raise ValueError("Bidirectional SequentialRNNCell doesn't support variational state dropout. "
                             "Please add VariationalDropoutCell to the cells underneath instead.")
        for name, rate in (("drop_inputs", drop_inputs), ("drop_states", drop_states),
                           ("drop_outputs", drop_outputs)):
            if not 0.0 <= float(rate) <= 1.0:
                raise ValueError(f"VariationalDropoutCell: {name}={rate} must be a drop probability in "
                                 "[0, 1]")
        super().__init__(base_cell)
        self.drop_inputs, self.drop_states, self.drop_outputs = float(drop_inputs), float(drop_states), \
            float(drop_outputs)
        self.reset()

    def reset(self) -> None:
        super().reset()
        for name in ("drop_inputs_mask", "drop_states_mask", "drop_outputs_mask"):
            object.__setattr__(self, name, None)

    def _mask(self, name: str, rate: float, like: Any) -> Any:
        mask = getattr(self, name)
        if mask is None:
            mask = _dropout_mask(like, rate, self.prng_key())
            object.__setattr__(self, name, mask)
        return mask

    def forward(self, inputs: Any, *states: Any) -> tuple[Any, list[Any]]:
        training = _tape.is_training()
        states = list(states)
        if training and self.drop_states:
            states[0] = states[0] * self._mask("drop_states_mask", self.drop_states, states[0])
        if training and self.drop_inputs:
            inputs = inputs * self._mask("drop_inputs_mask", self.drop_inputs, inputs)
        out, new = self.base_cell(inputs, states)
        if training and self.drop_outputs:
            out = out * self._mask("drop_outputs_mask", self.drop_outputs, out)
        return out, list(new)

    def unroll(self, length: int | None, inputs: Any, begin_state: Any = None, layout: str = "NTC",
               merge_outputs: bool | None = None, valid_length: Any = None) -> tuple[Any, list[Any]]:
        try:
            if self.drop_states:  # the state mask must apply at every step: step by step
                return super().unroll(length, inputs, begin_state, layout, merge_outputs, valid_length)
            return self._unroll_whole(length, inputs, begin_state, layout, merge_outputs, valid_length)
        finally:
            if any(isinstance(getattr(self, n), jax.core.Tracer)
                   for n in ("drop_inputs_mask", "drop_states_mask", "drop_outputs_mask")):
                self.reset()  # never keep a traced mask past the trace

    def _unroll_whole(self, length, inputs, begin_state, layout, merge_outputs, valid_length):
        """Without state dropout: the base cell unrolls the whole sequence; the input and output masks
        are drawn for one step and applied to every step."""
        self.reset()
        steps, _ = _steps(inputs, layout)
        if length is not None and len(steps) != length:
            raise ValueError(f"unroll: length={length} but the inputs hold {len(steps)} time steps")
        training = _tape.is_training()
        if training and self.drop_inputs:
            mask = self._mask("drop_inputs_mask", self.drop_inputs, steps[0])
            steps = [x * mask for x in steps]
        if begin_state is None:
            begin_state = self.begin_state(steps[0].shape[0])
        object.__setattr__(self.base_cell, "_modified", False)
        try:
            outputs, states = self.base_cell.unroll(len(steps), steps, begin_state, layout, False,
                                                    valid_length)
        finally:
            object.__setattr__(self.base_cell, "_modified", True)
        if training and self.drop_outputs:
            mask = self._mask("drop_outputs_mask", self.drop_outputs, outputs[0])
            outputs = [o * mask for o in outputs]  # masked (zero) steps past valid_length stay zero
        if merge_outputs is None:
            merge_outputs = not isinstance(inputs, (list, tuple))
        if merge_outputs:
            outputs = _np.stack(outputs, axis=layout.find("T"))
        return outputs, list(states)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(p_out = {self.drop_outputs}, p_state = {self.drop_states})"


class LSTMPCell(HybridRecurrentCell):
    """LSTM with a projection (Sak et al., 2014): gates (i, f, c, o) from ``W x + R r + b``,
    ``c' = f c + i tanh(g)``, ``h = o tanh(c')``, output and recurrent state ``r' = P h`` with
    ``P = h2r_weight`` (projection_size, hidden_size). States ``[r, c]``."""

    _compiled_leaf = True

    def __init__(self, hidden_size: int, projection_size: int, i2h_weight_initializer: Any = None,
                 h2h_weight_initializer: Any = None, h2r_weight_initializer: Any = None,
                 i2h_bias_initializer: Any = "zeros", h2h_bias_initializer: Any = "zeros",
                 input_size: int = 0, prefix: str | None = None, params: Any = None) -> None:
        super().__init__(prefix, params)
        for name, v in (("hidden_size", hidden_size), ("projection_size", projection_size)):
            if not isinstance(v, int) or v < 1:
                raise ValueError(f"LSTMPCell: {name}={v!r} must be a positive int")
        self._hidden_size, self._projection_size, self._input_size = hidden_size, projection_size, input_size
        n = 4 * hidden_size
        self.i2h_weight = Parameter("i2h_weight", shape=(n, input_size), init=i2h_weight_initializer,
                                    allow_deferred_init=True)
        self.h2h_weight = Parameter("h2h_weight", shape=(n, projection_size), init=h2h_weight_initializer,
                                    allow_deferred_init=True)
        self.h2r_weight = Parameter("h2r_weight", shape=(projection_size, hidden_size),
                                    init=h2r_weight_initializer, allow_deferred_init=True)
        self.i2h_bias = Parameter("i2h_bias", shape=(n,), init=i2h_bias_initializer, allow_deferred_init=True)
        self.h2h_bias = Parameter("h2h_bias", shape=(n,), init=h2h_bias_initializer, allow_deferred_init=True)

    def infer_shape(self, x: Any, *args: Any) -> None:
        self.i2h_weight.shape = (4 * self._hidden_size, x.shape[-1])

    def state_info(self, batch_size: int = 0) -> list[dict[str, Any]]:
        return [{"shape": (batch_size, self._projection_size), "__layout__": "NC"},
                {"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def forward(self, inputs: jax.Array, *states: jax.Array) -> tuple[jax.Array, list[jax.Array]]:
        gates = (jnp.matmul(inputs, self.i2h_weight.data().T) + self.i2h_bias.data()
                 + jnp.matmul(states[0], self.h2h_weight.data().T) + self.h2h_bias.data())
        gi, gf, gc, go = jnp.split(gates, 4, axis=-1)
        c = jax.nn.sigmoid(gf) * states[1] + jax.nn.sigmoid(gi) * jnp.tanh(gc)
        r = jnp.matmul(jax.nn.sigmoid(go) * jnp.tanh(c), self.h2r_weight.data().T)
        return r, [r, c]

    def __repr__(self) -> str:
        shape, proj = self.i2h_weight.shape, self.h2r_weight.shape
        return f"{type(self).__name__}({shape[1] or None} -> {shape[0]} -> {proj[0]})"


def dynamic_unroll(cell: RecurrentCell, inputs: Any, begin_state: Any, drop_inputs: float = 0,
                   drop_outputs: float = 0, layout: str = "TNC",
                   valid_length: Any = None) -> tuple[Any, list]:
    """Run ``cell`` over ``inputs`` (a tensor in ``layout``) from ``begin_state``: MXNet's ``foreach``
    loop as a Python loop of cell calls. ``drop_inputs``/``drop_outputs`` apply one dropout mask for
    every time step (training mode); with ``valid_length`` each sample's states stop changing after its
    length and later outputs are zero. Returns (outputs in ``layout``, final states).

    >>> from framework import np
    >>> from framework.gluon import rnn
    >>> cell = rnn.GRUCell(3, input_size=2)
    >>> cell.initialize()
    >>> out, states = dynamic_unroll(cell, np.ones((2, 1, 2)), cell.begin_state(1))
    >>> out.shape, states[0].shape
    ((2, 1, 3), (1, 3))
    """
    if layout not in ("TNC", "NTC"):
        raise ValueError(f"dynamic_unroll: layout={layout!r}; 'TNC' or 'NTC' expected")
    axis = layout.find("T")
    data = _np.swapaxes(inputs, 0, 1) if axis == 1 else inputs  # (T, N, ...)
    training = _tape.is_training()
    in_mask = _dropout_mask(data[0], float(drop_inputs), _draw_key()) if training and drop_inputs else None
    states = list(begin_state)
    outputs = []
    vl = None if valid_length is None else jnp.asarray(valid_length)
    for t in range(data.shape[0]):
        out, new = cell(data[t] if in_mask is None else data[t] * in_mask, states)
        if vl is not None:
            live = t < vl
            new = [_np.where(live.reshape(live.shape + (1,) * (n.ndim - 1)), n, s)
                   for n, s in zip(new, states, strict=True)]
            out = _np.where(live.reshape(live.shape + (1,) * (out.ndim - 1)), out, 0)
        states = list(new)
        outputs.append(out)
    if training and drop_outputs:
        mask = _dropout_mask(outputs[0], float(drop_outputs), _draw_key())
        outputs = [o * mask for o in outputs]
    return _np.stack(outputs, axis=axis), states


def _draw_key() -> jax.Array:
    from ....np import random

    return random.next_key()
