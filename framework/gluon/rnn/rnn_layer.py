"""Fused recurrent layers RNN, LSTM and GRU: every (layer, direction) runs as one ``lax.scan`` over time.

Parameters keep MXNet's attribute names (``l0_i2h_weight``, ``l0_h2h_weight``, ``l0_i2h_bias``,
``l0_h2h_bias``, ``r0_...`` for the reverse direction, ``l0_h2r_weight`` for LSTM projections) and
shapes ((gates * hidden, input), ...). Their structural names, which ``save_parameters`` writes and
``load_parameters`` reads, are the ones MXNet 1.9.1 writes for these layers
(``_unfused.0.i2h_weight``; bidirectional: ``_unfused.0.l_cell.i2h_weight``), so files move both ways.

>>> from framework import np
>>> layer = LSTM(8, num_layers=2, bidirectional=True)
>>> layer.initialize()
>>> out, (h, c) = layer(np.ones((5, 3, 4)), layer.begin_state(3))
>>> out.shape, h.shape, c.shape
((5, 3, 16), (4, 3, 8), (4, 3, 8))
>>> layer.l0_i2h_weight.shape
(32, 4)
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from ... import _jax_compat
from ...autograd import tape as _tape
from ...npx import drop as _drop
from ..block import HybridBlock
from ..parameter import Parameter
from . import _kernels

__all__ = ["RNN", "LSTM", "GRU"]


def _zero_state(shape: tuple[int, ...], dtype: Any, ctx: Any) -> jax.Array:
    """An initial state of zeros on ``ctx`` (committed there), else on the default device uncommitted, as
    ``jnp.zeros``: made in host memory when it is made now for a CPU (no program per state shape), by
    ``jnp.zeros`` inside a trace or for an accelerator."""
    target = ctx if ctx is not None else jax.devices()[0]
    if _jax_compat.evaluates_eagerly() and getattr(target, "platform", None) == "cpu":
        host = onp.zeros(shape, jax.dtypes.canonicalize_dtype(jnp.dtype(dtype)))
        return jax.device_put(host, ctx) if ctx is not None else jax.device_put(host)
    state = jnp.zeros(shape, dtype)
    return jax.device_put(state, ctx) if ctx is not None else state


class _RNNLayer(HybridBlock):
    """Shared implementation of the fused layers (private)."""

    _compiled_leaf = True

    def __init__(
        self,
        hidden_size: int,
        num_layers: int,
        layout: str,
        dropout: float,
        bidirectional: bool,
        input_size: int,
        i2h_weight_initializer: Any,
        h2h_weight_initializer: Any,
        i2h_bias_initializer: Any,
        h2h_bias_initializer: Any,
        mode: str,
        projection_size: int | None,
        h2r_weight_initializer: Any,
        lstm_state_clip_min: float | None,
        lstm_state_clip_max: float | None,
        lstm_state_clip_nan: bool,
        dtype: Any,
        use_sequence_length: bool,
        prefix: str | None,
        params: Any,
    ) -> None:
        super().__init__()
        name = type(self).__name__
        if layout not in ("TNC", "NTC"):
            raise ValueError(f"{name}: invalid layout {layout!r}; must be one of ['TNC' or 'NTC']")
        if not isinstance(hidden_size, int) or hidden_size < 1:
            raise ValueError(f"{name}: hidden_size={hidden_size!r} must be a positive int")
        if not isinstance(num_layers, int) or num_layers < 1:
            raise ValueError(f"{name}: num_layers={num_layers!r} must be a positive int")
        if not 0 <= float(dropout) < 1:
            raise ValueError(f"{name}: dropout={dropout} is a drop probability and must be in [0, 1)")
        self._hidden_size, self._num_layers, self._layout = hidden_size, num_layers, layout
        self._mode, self._dropout, self._dir = mode, float(dropout), 2 if bidirectional else 1
        self._input_size, self._projection_size = input_size, projection_size or None
        self._clip = None
        if lstm_state_clip_min is not None or lstm_state_clip_max is not None:
            self._clip = (lstm_state_clip_min, lstm_state_clip_max, bool(lstm_state_clip_nan))
        self._use_sequence_length = use_sequence_length
        self._gates = _kernels.GATES[mode]
        ng, nh, ni = self._gates, hidden_size, input_size
        nout = self._projection_size or nh
        self._names: list[dict[str, str]] = []  # per (layer, direction): local name -> attribute
        for i in range(num_layers):
            for d in "lr"[: self._dir]:
                names = {}
                specs = [
                    ("i2h_weight", (ng * nh, ni), i2h_weight_initializer),
                    ("h2h_weight", (ng * nh, nout), h2h_weight_initializer),
                    ("i2h_bias", (ng * nh,), i2h_bias_initializer),
                    ("h2h_bias", (ng * nh,), h2h_bias_initializer),
                ]
                if self._projection_size:
                    specs.append(("h2r_weight", (nout, nh), h2r_weight_initializer))
                for local, shape, init in specs:
                    attr = f"{d}{i}_{local}"
                    p = Parameter(attr, shape=shape, init=init, dtype=dtype, allow_deferred_init=True)
                    # registered under MXNet 1.9.1's saved name, reachable under MXNet's attribute name
                    saved = f"_unfused.{i}.{d}_cell.{local}" if self._dir == 2 else f"_unfused.{i}.{local}"
                    setattr(self, saved, p)
                    object.__setattr__(self, attr, p)
                    names[local] = attr
                self._names.append(names)
            ni = nout * self._dir

    def infer_shape(self, x: Any, *args: Any) -> None:
        size = x.shape[-1]
        for d in "lr"[: self._dir]:
            w = getattr(self, f"{d}0_i2h_weight")
            w.shape = (w.shape[0], size)

    def state_info(self, batch_size: int = 0) -> list[dict[str, Any]]:
        """Shapes (and layout) of the states: [h] or, for LSTM, [h, c]."""
        n = self._num_layers * self._dir
        h = {"shape": (n, batch_size, self._projection_size or self._hidden_size), "__layout__": "LNC"}
        if self._mode != "lstm":
            return [h]
        return [h, {"shape": (n, batch_size, self._hidden_size), "__layout__": "LNC"}]

    def begin_state(self, batch_size: int = 0, func: Any = None, **kwargs: Any) -> list[jax.Array]:
        """Initial states (zeros by default; ``func(shape=..., **kwargs)`` otherwise)."""
        dtype = kwargs.pop("dtype", self.l0_i2h_weight.dtype)
        ctx = kwargs.pop("ctx", kwargs.pop("device", None))
        out = []
        for info in self.state_info(batch_size):
            if func is None:
                out.append(_zero_state(info["shape"], dtype, ctx))
                continue
            state = func(shape=info["shape"], dtype=dtype, **kwargs)
            out.append(jax.device_put(state, ctx) if ctx is not None else state)
        return out

    def __call__(self, inputs: Any, states: Any = None, sequence_length: Any = None) -> Any:
        if sequence_length is not None and not self._use_sequence_length:
            raise ValueError(
                f"{type(self).__name__}: sequence_length given, but the layer was built with "
                "use_sequence_length=False; build it with use_sequence_length=True."
            )
        if self._use_sequence_length and sequence_length is None:
            raise ValueError(f"{type(self).__name__}: use_sequence_length=True needs sequence_length (N,)")
        skip_states = states is None
        if skip_states:
            states = self.begin_state(inputs.shape[self._layout.find("N")], dtype=inputs.dtype)
        elif not isinstance(states, (list, tuple)):
            states = [states]
        extra = () if sequence_length is None else (sequence_length,)
        out, new = super().__call__(inputs, *states, *extra)  # states as positional arrays
        return out if skip_states else (out, new)

    def forward(self, inputs: jax.Array, *args: jax.Array) -> tuple[jax.Array, list[jax.Array]]:
        """``forward(inputs, *states[, sequence_length]) -> (outputs, new_states)``: the pure function
        (``__call__`` adds MXNet's conveniences: default zero states, states as a list)."""
        n = len(self.state_info())
        if len(args) not in (n, n + 1):
            raise ValueError(
                f"{type(self).__name__}: expected {n} state array(s) (and an optional "
                f"sequence_length), got {len(args)} arguments after the inputs"
            )
        states, sequence_length = list(args[:n]), (args[n] if len(args) > n else None)
        x = jnp.swapaxes(inputs, 0, 1) if self._layout == "NTC" else inputs
        batch = x.shape[1]
        for s, info in zip(states, self.state_info(batch), strict=True):
            if tuple(s.shape) != info["shape"]:
                raise ValueError(
                    f"Invalid recurrent state shape. Expecting {info['shape']}, got {tuple(s.shape)}."
                )
        lengths = None if sequence_length is None else jnp.asarray(sequence_length).astype(jnp.int32)
        training = _tape.is_training() and self._dropout > 0
        key = self.prng_key() if training else None
        finals: list[list[jax.Array]] = [[] for _ in states]
        for i in range(self._num_layers):
            outs = []
            for k, d in enumerate("lr"[: self._dir]):
                j = i * self._dir + k
                w = {local: getattr(self, attr).data() for local, attr in self._names[j].items()}
                init = tuple(s[j] for s in states)
                out, fin = _kernels.run_direction(
                    self._mode, x, init, w, reverse=d == "r", lengths=lengths, clip=self._clip
                )
                outs.append(out)
                for slot, v in zip(finals, fin, strict=True):
                    slot.append(v)
            x = outs[0] if len(outs) == 1 else jnp.concatenate(outs, axis=-1)
            if training and i != self._num_layers - 1:
                x = _drop.dropout(x, p=self._dropout, key=jax.random.fold_in(key, i), training=True)
        out = jnp.swapaxes(x, 0, 1) if self._layout == "NTC" else x
        return out, [jnp.stack(f, axis=0) for f in finals]

    def __repr__(self) -> str:
        shape = self.l0_i2h_weight.shape
        s = f"{type(self).__name__}({shape[1] or None} -> {shape[0] // self._gates}, {self._layout}"
        if self._num_layers != 1:
            s += f", num_layers={self._num_layers}"
        if self._dropout != 0:
            s += f", dropout={self._dropout}"
        if self._dir == 2:
            s += ", bidirectional"
        return s + ")"


class RNN(_RNNLayer):
    """Elman RNN, ``h_t = act(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)`` with ``activation`` 'relu'
    (MXNet's default) or 'tanh'. States: [h] of shape (num_layers * directions, N, hidden_size).

    >>> from framework import np
    >>> layer = RNN(4, activation='tanh', layout='NTC', input_size=3)
    >>> layer.initialize()
    >>> layer(np.ones((2, 5, 3))).shape
    (2, 5, 4)
    """

    def __init__(
        self,
        hidden_size: int,
        num_layers: int = 1,
        activation: str = "relu",
        layout: str = "TNC",
        dropout: float = 0,
        bidirectional: bool = False,
        i2h_weight_initializer: Any = None,
        h2h_weight_initializer: Any = None,
        i2h_bias_initializer: Any = "zeros",
        h2h_bias_initializer: Any = "zeros",
        input_size: int = 0,
        dtype: Any = "float32",
        *,
        use_sequence_length: bool = False,
        prefix: str | None = None,
        params: Any = None,
    ) -> None:
        if activation not in ("relu", "tanh"):
            raise ValueError(f"RNN: activation={activation!r}; 'relu' or 'tanh' expected")
        super().__init__(
            hidden_size,
            num_layers,
            layout,
            dropout,
            bidirectional,
            input_size,
            i2h_weight_initializer,
            h2h_weight_initializer,
            i2h_bias_initializer,
            h2h_bias_initializer,
            "rnn_" + activation,
            None,
            None,
            None,
            None,
            False,
            dtype,
            use_sequence_length,
            prefix,
            params,
        )


class LSTM(_RNNLayer):
    """Long short-term memory (gates i, f, c, o as MXNet). ``projection_size`` adds LSTMP's projection
    ``h = W_hr (o * tanh(c))``; ``state_clip_min``/``state_clip_max`` clip the cell state each step
    (``state_clip_nan`` turns a NaN cell state into the bound). States: [h, c].

    >>> from framework import np
    >>> layer = LSTM(6, projection_size=2, input_size=3)
    >>> layer.initialize()
    >>> out, (h, c) = layer(np.ones((4, 1, 3)), layer.begin_state(1))
    >>> out.shape, h.shape, c.shape
    ((4, 1, 2), (1, 1, 2), (1, 1, 6))
    """

    def __init__(
        self,
        hidden_size: int,
        num_layers: int = 1,
        layout: str = "TNC",
        dropout: float = 0,
        bidirectional: bool = False,
        input_size: int = 0,
        i2h_weight_initializer: Any = None,
        h2h_weight_initializer: Any = None,
        i2h_bias_initializer: Any = "zeros",
        h2h_bias_initializer: Any = "zeros",
        projection_size: int | None = None,
        h2r_weight_initializer: Any = None,
        state_clip_min: float | None = None,
        state_clip_max: float | None = None,
        state_clip_nan: bool = False,
        dtype: Any = "float32",
        *,
        use_sequence_length: bool = False,
        prefix: str | None = None,
        params: Any = None,
    ) -> None:
        super().__init__(
            hidden_size,
            num_layers,
            layout,
            dropout,
            bidirectional,
            input_size,
            i2h_weight_initializer,
            h2h_weight_initializer,
            i2h_bias_initializer,
            h2h_bias_initializer,
            "lstm",
            projection_size,
            h2r_weight_initializer,
            state_clip_min,
            state_clip_max,
            state_clip_nan,
            dtype,
            use_sequence_length,
            prefix,
            params,
        )


class GRU(_RNNLayer):
    """Gated recurrent unit (gates r, z, n as MXNet/cuDNN: ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``,
    ``h' = (1 - z) * n + z * h``). States: [h].

    >>> from framework import np
    >>> layer = GRU(5, num_layers=2, input_size=3)
    >>> layer.initialize()
    >>> layer(np.ones((4, 2, 3))).shape
    (4, 2, 5)
    """

    def __init__(
        self,
        hidden_size: int,
        num_layers: int = 1,
        layout: str = "TNC",
        dropout: float = 0,
        bidirectional: bool = False,
        input_size: int = 0,
        i2h_weight_initializer: Any = None,
        h2h_weight_initializer: Any = None,
        i2h_bias_initializer: Any = "zeros",
        h2h_bias_initializer: Any = "zeros",
        dtype: Any = "float32",
        *,
        use_sequence_length: bool = False,
        prefix: str | None = None,
        params: Any = None,
    ) -> None:
        super().__init__(
            hidden_size,
            num_layers,
            layout,
            dropout,
            bidirectional,
            input_size,
            i2h_weight_initializer,
            h2h_weight_initializer,
            i2h_bias_initializer,
            h2h_bias_initializer,
            "gru",
            None,
            None,
            None,
            None,
            False,
            dtype,
            use_sequence_length,
            prefix,
            params,
        )
