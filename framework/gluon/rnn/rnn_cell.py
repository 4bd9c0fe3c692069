"""Recurrent cells (one time step each) and their containers and modifiers, as MXNet 1.9.1's.

``cell(x_t, states) -> (output, new_states)``; ``cell.unroll(length, inputs, begin_state, layout,
merge_outputs, valid_length)`` runs a sequence step by step (as MXNet does; for one compiled ``lax.scan``
over time use the fused layers :class:`~.rnn_layer.LSTM` & co.).

>>> from framework import np
>>> cell = LSTMCell(4, input_size=3)
>>> cell.initialize()
>>> outputs, states = cell.unroll(5, np.ones((2, 5, 3)), layout='NTC', merge_outputs=True)
>>> outputs.shape, [s.shape for s in states]
((2, 5, 4), [(2, 4), (2, 4)])
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from ...autograd import tape as _tape
from ...npx import drop as _drop
from ..block import Block, HybridBlock
from ..parameter import Parameter
from . import _kernels
from ._sequence import finish_outputs, last_valid, mask_steps, reverse_steps, to_steps

__all__ = [
    "RecurrentCell",
    "HybridRecurrentCell",
    "RNNCell",
    "LSTMCell",
    "GRUCell",
    "SequentialRNNCell",
    "HybridSequentialRNNCell",
    "DropoutCell",
    "ModifierCell",
    "ZoneoutCell",
    "ResidualCell",
    "BidirectionalCell",
]

_ACTIVATIONS = {
    "tanh": jnp.tanh,
    "relu": jax.nn.relu,
    "sigmoid": jax.nn.sigmoid,
    "softsign": jax.nn.soft_sign,
}


def _activation(act: Any, who: str) -> Any:
    if callable(act):
        return act
    if act not in _ACTIVATIONS:
        raise ValueError(f"{who}: activation={act!r}; one of {sorted(_ACTIVATIONS)} or a callable expected")
    return _ACTIVATIONS[act]


def _batch_of(inputs: Any, layout: str) -> int:
    if isinstance(inputs, (list, tuple)):
        return inputs[0].shape[0]
    return inputs.shape[layout.find("N")]


class RecurrentCell(Block):
    """Base class of the cells: ``state_info``, ``begin_state``, ``unroll``; subclasses define
    ``forward(inputs, states) -> (output, new_states)``."""

    def __init__(self, prefix: str | None = None, params: Any = None) -> None:
        super().__init__()
        object.__setattr__(self, "_modified", False)
        self.reset()

    def reset(self) -> None:
        """Forget per-sequence Python state before a new sequence (unroll calls it)."""
        for cell in self._children.values():
            if isinstance(cell, RecurrentCell):
                cell.reset()

    def state_info(self, batch_size: int = 0) -> list[dict[str, Any]]:
        raise NotImplementedError(f"{type(self).__name__} must define state_info()")

    def begin_state(self, batch_size: int = 0, func: Any = None, **kwargs: Any) -> list[jax.Array]:
        """Initial states: zeros (or ``func(shape=..., **kwargs)``) of the shapes in ``state_info``."""
        if self._modified:
            raise RuntimeError(
                "After applying modifier cells (e.g. ZoneoutCell) the base cell cannot be "
                "called directly. Call the modifier cell instead."
            )
        dtype = kwargs.pop("dtype", "float32")
        out = []
        for info in self.state_info(batch_size):
            out.append(
                jnp.zeros(info["shape"], dtype)
                if func is None
                else func(shape=info["shape"], dtype=dtype, **kwargs)
            )
        return out

    def unroll(
        self,
        length: int | None,
        inputs: Any,
        begin_state: Any = None,
        layout: str = "NTC",
        merge_outputs: bool | None = None,
        valid_length: Any = None,
    ) -> tuple[Any, list[jax.Array]]:
        """Run ``length`` steps. ``inputs``: a tensor in ``layout`` or a list of (N, C) steps;
        ``merge_outputs`` True stacks the outputs into one tensor, False gives a list, None keeps the
        input's form; with ``valid_length`` (N,) outputs past each length are zero and the states are those
        of each sample's last valid step."""
        self.reset()
        steps, axis = to_steps(inputs, layout, length)
        states = begin_state if begin_state is not None else self.begin_state(_batch_of(inputs, layout))
        outputs, all_states = [], []
        for x in steps:
            out, states = self(x, states)
            outputs.append(out)
            if valid_length is not None:
                all_states.append(states)
        if valid_length is not None:
            valid_length = jnp.asarray(valid_length)
            states = [last_valid(list(s), valid_length) for s in zip(*all_states, strict=True)]
            outputs = mask_steps(outputs, valid_length, axis)
        if merge_outputs is None:
            merge_outputs = not isinstance(inputs, (list, tuple))
        return finish_outputs(outputs, axis, merge_outputs), list(states)

    def __call__(self, inputs: Any, states: Any) -> Any:
        if not isinstance(states, (list, tuple)):
            states = [states]
        return super().__call__(inputs, *states)  # states as positional arrays (the recorder's unit)


class HybridRecurrentCell(RecurrentCell, HybridBlock):
    """A RecurrentCell whose step is a pure function (compiled)."""


class _GatedCell(HybridRecurrentCell):
    _compiled_leaf = True
    _mode = "rnn_tanh"

    def __init__(
        self,
        hidden_size: int,
        gates: int,
        i2h_weight_initializer: Any,
        h2h_weight_initializer: Any,
        i2h_bias_initializer: Any,
        h2h_bias_initializer: Any,
        input_size: int,
    ) -> None:
        super().__init__()
        if not isinstance(hidden_size, int) or hidden_size < 1:
            raise ValueError(f"{type(self).__name__}: hidden_size={hidden_size!r} must be a positive int")
        self._hidden_size, self._input_size, self._gates = hidden_size, input_size, gates
        n = gates * hidden_size
        self.i2h_weight = Parameter(
            "i2h_weight", shape=(n, input_size), init=i2h_weight_initializer, allow_deferred_init=True
        )
        self.h2h_weight = Parameter(
            "h2h_weight", shape=(n, hidden_size), init=h2h_weight_initializer, allow_deferred_init=True
        )
        self.i2h_bias = Parameter("i2h_bias", shape=(n,), init=i2h_bias_initializer, allow_deferred_init=True)
        self.h2h_bias = Parameter("h2h_bias", shape=(n,), init=h2h_bias_initializer, allow_deferred_init=True)

    def infer_shape(self, x: Any, *args: Any) -> None:
        self.i2h_weight.shape = (self._gates * self._hidden_size, x.shape[-1])

    def state_info(self, batch_size: int = 0) -> list[dict[str, Any]]:
        info = {"shape": (batch_size, self._hidden_size), "__layout__": "NC"}
        return [info, dict(info)] if self._mode == "lstm" else [info]

    def _step_kwargs(self) -> dict[str, Any]:
        return {}

    def forward(self, inputs: jax.Array, *states: jax.Array) -> tuple[jax.Array, list[jax.Array]]:
        xw = jnp.matmul(inputs, self.i2h_weight.data().T) + self.i2h_bias.data()
        w = {"h2h_weight": self.h2h_weight.data(), "h2h_bias": self.h2h_bias.data()}
        out, new = _kernels.cell_step(self._mode, xw, tuple(states), w, **self._step_kwargs())
        return out, list(new)

    def __repr__(self) -> str:
        shape = self.i2h_weight.shape
        return f"{type(self).__name__}({shape[1] or None} -> {shape[0]})"


class RNNCell(_GatedCell):
    """Elman cell ``h' = act(W_ih x + b_ih + W_hh h + b_hh)`` (``activation`` default 'tanh').

    >>> from framework import np
    >>> cell = RNNCell(3, input_size=2)
    >>> cell.initialize()
    >>> out, [h] = cell(np.ones((4, 2)), cell.begin_state(4))
    >>> out.shape
    (4, 3)
    """

    def __init__(
        self,
        hidden_size: int,
        activation: Any = "tanh",
        i2h_weight_initializer: Any = None,
        h2h_weight_initializer: Any = None,
        i2h_bias_initializer: Any = "zeros",
        h2h_bias_initializer: Any = "zeros",
        input_size: int = 0,
        prefix: str | None = None,
        params: Any = None,
    ) -> None:
        super().__init__(
            hidden_size,
            1,
            i2h_weight_initializer,
            h2h_weight_initializer,
            i2h_bias_initializer,
            h2h_bias_initializer,
            input_size,
        )
        self._activation = activation
        self._act = _activation(activation, "RNNCell")

    def _step_kwargs(self) -> dict[str, Any]:
        return {"activation": self._act}

    def __repr__(self) -> str:
        return super().__repr__()[:-1] + f", {self._activation})"


class LSTMCell(_GatedCell):
    """LSTM cell, gates (i, f, c, o) in MXNet's order; states [h, c].

    >>> from framework import np
    >>> cell = LSTMCell(3, input_size=2)
    >>> cell.initialize()
    >>> out, [h, c] = cell(np.ones((4, 2)), cell.begin_state(4))
    >>> out.shape, c.shape
    ((4, 3), (4, 3))
    """

    _mode = "lstm"

    def __init__(
        self,
        hidden_size: int,
        i2h_weight_initializer: Any = None,
        h2h_weight_initializer: Any = None,
        i2h_bias_initializer: Any = "zeros",
        h2h_bias_initializer: Any = "zeros",
        input_size: int = 0,
        prefix: str | None = None,
        params: Any = None,
        activation: Any = "tanh",
        recurrent_activation: Any = "sigmoid",
    ) -> None:
        super().__init__(
            hidden_size,
            4,
            i2h_weight_initializer,
            h2h_weight_initializer,
            i2h_bias_initializer,
            h2h_bias_initializer,
            input_size,
        )
        self._act = _activation(activation, "LSTMCell")
        self._ract = _activation(recurrent_activation, "LSTMCell")

    def _step_kwargs(self) -> dict[str, Any]:
        return {"activation": self._act, "recurrent_activation": self._ract}


class GRUCell(_GatedCell):
    """GRU cell, gates (r, z, n) in MXNet's order; states [h].

    >>> from framework import np
    >>> cell = GRUCell(3, input_size=2)
    >>> cell.initialize()
    >>> cell(np.ones((4, 2)), cell.begin_state(4))[0].shape
    (4, 3)
    """

    _mode = "gru"

    def __init__(
        self,
        hidden_size: int,
        i2h_weight_initializer: Any = None,
        h2h_weight_initializer: Any = None,
        i2h_bias_initializer: Any = "zeros",
        h2h_bias_initializer: Any = "zeros",
        input_size: int = 0,
        prefix: str | None = None,
        params: Any = None,
    ) -> None:
        super().__init__(
            hidden_size,
            3,
            i2h_weight_initializer,
            h2h_weight_initializer,
            i2h_bias_initializer,
            h2h_bias_initializer,
            input_size,
        )


class _SequentialMixin:
    def add(self, cell: RecurrentCell) -> None:
        """Append a cell; it reads the previous cell's output."""
        self.register_child(cell)

    def state_info(self, batch_size: int = 0) -> list[dict[str, Any]]:
        return [i for c in self._children.values() for i in c.state_info(batch_size)]

    def begin_state(self, batch_size: int = 0, func: Any = None, **kwargs: Any) -> list[jax.Array]:
        return [s for c in self._children.values() for s in c.begin_state(batch_size, func, **kwargs)]

    def forward(self, inputs: jax.Array, *states: jax.Array) -> tuple[jax.Array, list[jax.Array]]:
        new, p = [], 0
        for cell in self._children.values():
            if isinstance(cell, BidirectionalCell):
                raise NotImplementedError("Bidirectional cannot be stepped. Please use unroll")
            n = len(cell.state_info())
            inputs, s = cell(inputs, list(states[p : p + n]))
            p += n
            new.extend(s)
        return inputs, new

    def unroll(
        self,
        length: int | None,
        inputs: Any,
        begin_state: Any = None,
        layout: str = "NTC",
        merge_outputs: bool | None = None,
        valid_length: Any = None,
    ) -> tuple[Any, list[jax.Array]]:
        self.reset()
        states = begin_state if begin_state is not None else self.begin_state(_batch_of(inputs, layout))
        cells = list(self._children.values())
        p, new = 0, []
        for i, cell in enumerate(cells):
            n = len(cell.state_info())
            inputs, s = cell.unroll(
                length,
                inputs,
                begin_state=states[p : p + n],
                layout=layout,
                merge_outputs=None if i < len(cells) - 1 else merge_outputs,
                valid_length=valid_length,
            )
            p += n
            new.extend(s)
        return inputs, new

    def __getitem__(self, i: int) -> RecurrentCell:
        return self._children[str(i)]

    def __len__(self) -> int:
        return len(self._children)


class SequentialRNNCell(_SequentialMixin, RecurrentCell):
    """Stack cells: each step runs them in order; ``unroll`` unrolls them one after the other.

    >>> from framework import np
    >>> stack = SequentialRNNCell()
    >>> stack.add(LSTMCell(4, input_size=3)); stack.add(GRUCell(2, input_size=4))
    >>> stack.initialize()
    >>> out, states = stack.unroll(3, np.ones((3, 5, 3)), layout='TNC', merge_outputs=True)
    >>> out.shape, len(states)
    ((3, 5, 2), 3)
    """


class HybridSequentialRNNCell(_SequentialMixin, HybridRecurrentCell):
    """:class:`SequentialRNNCell` of hybrid cells."""


class DropoutCell(HybridRecurrentCell):
    """Dropout on the input (in training); no states.

    >>> from framework import np
    >>> DropoutCell(0.5)(np.ones(3), [])[0].tolist()  # not training
    [1.0, 1.0, 1.0]
    """

    def __init__(self, rate: float, axes: tuple = (), prefix: str | None = None, params: Any = None) -> None:
        super().__init__()
        if not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
            raise ValueError(f"DropoutCell: rate={rate!r} must be a number in [0, 1]")
        self._rate, self._axes = float(rate), tuple(axes)

    def state_info(self, batch_size: int = 0) -> list[dict[str, Any]]:
        return []

    def forward(self, inputs: jax.Array, *states: jax.Array) -> tuple[jax.Array, list[jax.Array]]:
        if self._rate > 0 and _tape.is_training():
            inputs = _drop.dropout(inputs, p=self._rate, axes=self._axes, key=self.prng_key(), training=True)
        return inputs, list(states)

    def unroll(
        self,
        length: int | None,
        inputs: Any,
        begin_state: Any = None,
        layout: str = "NTC",
        merge_outputs: bool | None = None,
        valid_length: Any = None,
    ) -> tuple[Any, list[jax.Array]]:
        self.reset()
        if not isinstance(inputs, (list, tuple)) and merge_outputs is not False:
            return self(inputs, list(begin_state or []))
        return super().unroll(length, inputs, begin_state, layout, merge_outputs, None)

    def __repr__(self) -> str:
        return f"DropoutCell(rate={self._rate}, axes={self._axes})"


class ModifierCell(HybridRecurrentCell):
    """Base class of cells that wrap another (``base_cell``; its Parameters are ``base_cell.*``)."""

    def __init__(self, base_cell: RecurrentCell) -> None:
        if base_cell._modified:
            raise ValueError(
                f"Cell {type(base_cell).__name__} is already modified. One cell cannot be modified twice"
            )
        super().__init__()
        object.__setattr__(base_cell, "_modified", True)
        self.base_cell = base_cell

    def state_info(self, batch_size: int = 0) -> list[dict[str, Any]]:
        return self.base_cell.state_info(batch_size)

    def begin_state(self, batch_size: int = 0, func: Any = None, **kwargs: Any) -> list[jax.Array]:
        object.__setattr__(self.base_cell, "_modified", False)
        try:
            return self.base_cell.begin_state(batch_size, func, **kwargs)
        finally:
            object.__setattr__(self.base_cell, "_modified", True)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_cell!r})"


class ZoneoutCell(ModifierCell):
    """Zoneout (Krueger et al., 2016): in training each unit keeps its previous output/state with
    probability ``zoneout_outputs``/``zoneout_states``.

    >>> from framework import np
    >>> cell = ZoneoutCell(RNNCell(3, input_size=2), zoneout_states=0.5)
    >>> cell.initialize()
    >>> cell(np.ones((1, 2)), cell.begin_state(1))[0].shape
    (1, 3)
    """

    def __init__(
        self, base_cell: RecurrentCell, zoneout_outputs: float = 0.0, zoneout_states: float = 0.0
    ) -> None:
        if isinstance(base_cell, BidirectionalCell):
            raise ValueError(
                "BidirectionalCell doesn't support zoneout since it doesn't support step. Please "
                "add ZoneoutCell to the cells underneath instead."
            )
        super().__init__(base_cell)
        self.zoneout_outputs, self.zoneout_states = float(zoneout_outputs), float(zoneout_states)
        object.__setattr__(self, "_prev_output", None)

    def reset(self) -> None:
        super().reset()
        object.__setattr__(self, "_prev_output", None)

    def forward(self, inputs: jax.Array, *states: jax.Array) -> tuple[jax.Array, list[jax.Array]]:
        out, new = self.base_cell(inputs, list(states))
        if not _tape.is_training():
            return out, new
        key = self.prng_key()
        k_out, k_state = jax.random.split(key)

        def keep_new(p: float, like: jax.Array, k: jax.Array) -> jax.Array:
            return jax.random.bernoulli(k, 1.0 - p, like.shape)

        prev = self._prev_output if self._prev_output is not None else jnp.zeros_like(out)
        if self.zoneout_outputs:
            out = jnp.where(keep_new(self.zoneout_outputs, out, k_out), out, prev)
        if self.zoneout_states:
            keys = jax.random.split(k_state, len(new))
            new = [
                jnp.where(keep_new(self.zoneout_states, n, k), n, o)
                for n, o, k in zip(new, states, keys, strict=True)
            ]
        object.__setattr__(self, "_prev_output", out)
        return out, list(new)

    def __repr__(self) -> str:
        return f"ZoneoutCell(p_out={self.zoneout_outputs}, p_state={self.zoneout_states}, {self.base_cell!r})"


class ResidualCell(ModifierCell):
    """Adds the input to the base cell's output (Wu et al., 2016).

    >>> from framework import np
    >>> cell = ResidualCell(GRUCell(2, input_size=2))
    >>> cell.initialize()
    >>> cell(np.ones((1, 2)), cell.begin_state(1))[0].shape
    (1, 2)
    """

    def forward(self, inputs: jax.Array, *states: jax.Array) -> tuple[jax.Array, list[jax.Array]]:
        out, new = self.base_cell(inputs, list(states))
        return out + inputs, new

    def unroll(
        self,
        length: int | None,
        inputs: Any,
        begin_state: Any = None,
        layout: str = "NTC",
        merge_outputs: bool | None = None,
        valid_length: Any = None,
    ) -> tuple[Any, list[jax.Array]]:
        self.reset()
        object.__setattr__(self.base_cell, "_modified", False)
        try:
            outputs, states = self.base_cell.unroll(
                length, inputs, begin_state, layout, merge_outputs, valid_length
            )
        finally:
            object.__setattr__(self.base_cell, "_modified", True)
        merged = not isinstance(outputs, (list, tuple))
        steps, axis = to_steps(inputs, layout, length)
        if valid_length is not None:
            x = mask_steps(steps, jnp.asarray(valid_length), axis)
        else:
            x = jnp.stack(steps, axis=axis)
        if merged:
            return outputs + x, states
        return [o + jnp.take(x, t, axis=axis) for t, o in enumerate(outputs)], states


class BidirectionalCell(HybridRecurrentCell):
    """Runs ``l_cell`` forward and ``r_cell`` backward over the sequence and concatenates their outputs
    on the feature axis; only ``unroll`` (it cannot be stepped). States: l_cell's then r_cell's.

    >>> from framework import np
    >>> bi = BidirectionalCell(LSTMCell(3, input_size=2), LSTMCell(3, input_size=2))
    >>> bi.initialize()
    >>> out, states = bi.unroll(4, np.ones((1, 4, 2)), merge_outputs=True)
    >>> out.shape, len(states)
    ((1, 4, 6), 4)
    """

    def __init__(self, l_cell: RecurrentCell, r_cell: RecurrentCell, output_prefix: str = "bi_") -> None:
        super().__init__()
        self.register_child(l_cell, "l_cell")
        self.register_child(r_cell, "r_cell")

    def __call__(self, inputs: Any, states: Any) -> Any:
        raise NotImplementedError("Bidirectional cannot be stepped. Please use unroll")

    def state_info(self, batch_size: int = 0) -> list[dict[str, Any]]:
        return [i for c in self._children.values() for i in c.state_info(batch_size)]

    def begin_state(self, batch_size: int = 0, func: Any = None, **kwargs: Any) -> list[jax.Array]:
        return [s for c in self._children.values() for s in c.begin_state(batch_size, func, **kwargs)]

    def unroll(
        self,
        length: int | None,
        inputs: Any,
        begin_state: Any = None,
        layout: str = "NTC",
        merge_outputs: bool | None = None,
        valid_length: Any = None,
    ) -> tuple[Any, list[jax.Array]]:
        self.reset()
        steps, axis = to_steps(inputs, layout, length)
        vl = None if valid_length is None else jnp.asarray(valid_length)
        states = begin_state if begin_state is not None else self.begin_state(_batch_of(inputs, layout))
        l_cell, r_cell = self._children["l_cell"], self._children["r_cell"]
        n = len(l_cell.state_info())
        l_out, l_states = l_cell.unroll(len(steps), steps, states[:n], layout, False, vl)
        r_out, r_states = r_cell.unroll(len(steps), reverse_steps(steps, vl), states[n:], layout, False, vl)
        r_out = reverse_steps(list(r_out), vl)
        outputs = [jnp.concatenate([a, b], axis=-1) for a, b in zip(l_out, r_out, strict=True)]
        if vl is not None:
            outputs = mask_steps(outputs, vl, axis)
        if merge_outputs is None:
            merge_outputs = not isinstance(inputs, (list, tuple))
        return finish_outputs(outputs, axis, merge_outputs), list(l_states) + list(r_states)

    def __repr__(self) -> str:
        return (
            f"BidirectionalCell(forward={self._children['l_cell']!r}, backward={self._children['r_cell']!r})"
        )
