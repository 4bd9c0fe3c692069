"""Convolutional recurrent cells (MXNet 1.9.1's ``contrib.rnn.conv_rnn_cell``): RNN, LSTM and GRU cells
whose input-to-hidden and hidden-to-hidden transforms are 1-, 2- or 3-D convolutions (Shi et al., 2015).

``input_shape`` is one sample's shape at one step without the batch axis, in ``conv_layout`` (e.g.
``(C, H, W)`` for 'NCHW'); the state has ``hidden_channels`` channels and the spatial size of the input
convolution's output; the recurrent convolution keeps that size (odd ``h2h_kernel``, padded). Gates are
stacked on the channel axis in MXNet's order: LSTM (i, f, c, o), GRU (r, z, o).

>>> cell = Conv2DLSTMCell((2, 5, 5), 3, i2h_kernel=3, h2h_kernel=3, i2h_pad=1)
>>> [s["shape"] for s in cell.state_info(1)], cell.i2h_weight.shape
([(1, 3, 5, 5), (1, 3, 5, 5)], (12, 2, 3, 3))
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from .... import npx
from ...block import Block
from ...parameter import Parameter
from ...rnn import HybridRecurrentCell

__all__ = ["Conv1DRNNCell", "Conv2DRNNCell", "Conv3DRNNCell", "Conv1DLSTMCell", "Conv2DLSTMCell",
           "Conv3DLSTMCell", "Conv1DGRUCell", "Conv2DGRUCell", "Conv3DGRUCell"]

_NAMED = {"tanh": jnp.tanh, "relu": jax.nn.relu, "sigmoid": jax.nn.sigmoid, "softsign": jax.nn.soft_sign}
_LAYOUTS = {1: ("NCW", "NWC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _tuple(name: str, value: Any, dims: int, who: str) -> tuple[int, ...]:
    if isinstance(value, int):
        return (value,) * dims
    value = tuple(int(v) for v in value)
    if len(value) != dims:
        raise ValueError(f"{who}: {name}={value!r}; for {dims}D convolution the convolution settings can "
                         f"only be either int or list/tuple of length {dims}")
    return value


class _BaseConvRNNCell(HybridRecurrentCell):
    """Shared shapes, Parameters and the two convolutions of the convolutional cells (private)."""

    _compiled_leaf = True
    _gates = 1
    _dims = 2
    _states = 1

    def __init__(self, input_shape: Any, hidden_channels: int, i2h_kernel: Any, h2h_kernel: Any,
                 i2h_pad: Any = 0, i2h_dilate: Any = 1, h2h_dilate: Any = 1,
                 i2h_weight_initializer: Any = None, h2h_weight_initializer: Any = None,
                 i2h_bias_initializer: Any = "zeros", h2h_bias_initializer: Any = "zeros",
                 conv_layout: str | None = None, activation: Any = "tanh",
                 prefix: str | None = None, params: Any = None) -> None:
        super().__init__(prefix, params)
        who, dims = type(self).__name__, self._dims
        conv_layout = conv_layout or _LAYOUTS[dims][0]
        if conv_layout not in _LAYOUTS[dims]:
            raise ValueError(f"{who}: conv_layout={conv_layout!r}; one of {_LAYOUTS[dims]} expected")
        input_shape = tuple(int(s) for s in input_shape)
        if len(input_shape) != dims + 1:
            raise ValueError(f"{who}: input_shape={input_shape} must hold the channels and {dims} spatial "
                             f"sizes in {conv_layout} order (without the batch axis)")
        if not isinstance(hidden_channels, int) or hidden_channels < 1:
            raise ValueError(f"{who}: hidden_channels={hidden_channels!r} must be a positive int")
        self._hidden_channels, self._input_shape = hidden_channels, input_shape
        self._conv_layout, self._activation = conv_layout, activation
        self._i2h_kernel = _tuple("i2h_kernel", i2h_kernel, dims, who)
        self._i2h_pad = _tuple("i2h_pad", i2h_pad, dims, who)
        self._i2h_dilate = _tuple("i2h_dilate", i2h_dilate, dims, who)
        self._h2h_kernel = _tuple("h2h_kernel", h2h_kernel, dims, who)
        self._h2h_dilate = _tuple("h2h_dilate", h2h_dilate, dims, who)
        if any(k % 2 == 0 for k in self._h2h_kernel):
            raise ValueError(f"{who}: Only support odd number, get h2h_kernel= {h2h_kernel}")
        self._h2h_pad = tuple(d * (k - 1) // 2
                              for d, k in zip(self._h2h_dilate, self._h2h_kernel, strict=True))
        channels_first = conv_layout[1] == "C"
        in_channels = input_shape[0] if channels_first else input_shape[-1]
        spatial = input_shape[1:] if channels_first else input_shape[:-1]
        out_size = tuple(x + 2 * p - d * (k - 1) for x, k, p, d in
                         zip(spatial, self._i2h_kernel, self._i2h_pad, self._i2h_dilate, strict=True))
        if any(s < 1 for s in out_size):
            raise ValueError(f"{who}: the input convolution (kernel {self._i2h_kernel}, pad {self._i2h_pad}, "
                             f"dilate {self._i2h_dilate}) leaves no output of input_shape {input_shape}")
        total = hidden_channels * self._gates
        if channels_first:
            i2h_shape = (total, in_channels, *self._i2h_kernel)
            h2h_shape = (total, hidden_channels, *self._h2h_kernel)
            self._state_shape = (hidden_channels, *out_size)
        else:
            i2h_shape = (total, *self._i2h_kernel, in_channels)
            h2h_shape = (total, *self._h2h_kernel, hidden_channels)
            self._state_shape = (*out_size, hidden_channels)
        self._channel_axis = 1 if channels_first else dims + 1
        self.i2h_weight = Parameter("i2h_weight", shape=i2h_shape, init=i2h_weight_initializer,
                                    allow_deferred_init=True)
        self.h2h_weight = Parameter("h2h_weight", shape=h2h_shape, init=h2h_weight_initializer,
                                    allow_deferred_init=True)
        self.i2h_bias = Parameter("i2h_bias", shape=(total,), init=i2h_bias_initializer,
                                  allow_deferred_init=True)
        self.h2h_bias = Parameter("h2h_bias", shape=(total,), init=h2h_bias_initializer,
                                  allow_deferred_init=True)

    def state_info(self, batch_size: int = 0) -> list[dict[str, Any]]:
        return [{"shape": (batch_size, *self._state_shape), "__layout__": self._conv_layout}
                for _ in range(self._states)]

    def _act(self, x: jax.Array) -> jax.Array:
        act = self._activation
        if isinstance(act, str):
            return _NAMED[act](x) if act in _NAMED else npx.activation(x, act_type=act)
        if isinstance(act, Block) or callable(act):
            return act(x)
        raise ValueError(f"{type(self).__name__}: activation={act!r}; a name or a Block expected")

    def _convolutions(self, x: jax.Array, h: jax.Array) -> tuple[jax.Array, jax.Array]:
        n = self._hidden_channels * self._gates
        stride = (1,) * self._dims
        i2h = npx.convolution(x, self.i2h_weight.data(), self.i2h_bias.data(), kernel=self._i2h_kernel,
                              stride=stride, pad=self._i2h_pad, dilate=self._i2h_dilate, num_filter=n,
                              layout=self._conv_layout)
        h2h = npx.convolution(h, self.h2h_weight.data(), self.h2h_bias.data(), kernel=self._h2h_kernel,
                              stride=stride, pad=self._h2h_pad, dilate=self._h2h_dilate, num_filter=n,
                              layout=self._conv_layout)
        return i2h, h2h

    def _split(self, x: jax.Array) -> list[jax.Array]:
        return jnp.split(x, self._gates, axis=self._channel_axis)

    def __repr__(self) -> str:
        shape = self.i2h_weight.shape
        in_channels = shape[1] if self._channel_axis == 1 else shape[-1]
        act = f", {self._activation}" if isinstance(self._activation, str) else ""
        return f"{type(self).__name__}({in_channels or None} -> {shape[0]}{act}, {self._conv_layout})"


class _ConvRNNCell(_BaseConvRNNCell):
    def forward(self, inputs: jax.Array, *states: jax.Array) -> tuple[jax.Array, list[jax.Array]]:
        i2h, h2h = self._convolutions(inputs, states[0])
        out = self._act(i2h + h2h)
        return out, [out]


class _ConvLSTMCell(_BaseConvRNNCell):
    _gates, _states = 4, 2

    def forward(self, inputs: jax.Array, *states: jax.Array) -> tuple[jax.Array, list[jax.Array]]:
        i2h, h2h = self._convolutions(inputs, states[0])
        gi, gf, gc, go = self._split(i2h + h2h)
        c = jax.nn.sigmoid(gf) * states[1] + jax.nn.sigmoid(gi) * self._act(gc)
        h = jax.nn.sigmoid(go) * self._act(c)
        return h, [h, c]


class _ConvGRUCell(_BaseConvRNNCell):
    _gates = 3

    def forward(self, inputs: jax.Array, *states: jax.Array) -> tuple[jax.Array, list[jax.Array]]:
        i2h, h2h = self._convolutions(inputs, states[0])
        xr, xz, xo = self._split(i2h)
        hr, hz, ho = self._split(h2h)
        reset = jax.nn.sigmoid(xr + hr)
        update = jax.nn.sigmoid(xz + hz)
        candidate = self._act(xo + reset * ho)
        h = (1.0 - update) * candidate + update * states[0]
        return h, [h]


def _cell(base: type, dims: int, name: str, doc: str) -> type:
    return type(name, (base,), {"_dims": dims, "__doc__": doc, "__module__": __name__})


Conv1DRNNCell = _cell(_ConvRNNCell, 1, "Conv1DRNNCell",
                      "1-D convolutional RNN cell: ``h' = act(W*x + R*h + b)`` (layouts 'NCW', 'NWC').")
Conv2DRNNCell = _cell(_ConvRNNCell, 2, "Conv2DRNNCell",
                      "2-D convolutional RNN cell (layouts 'NCHW', 'NHWC').")
Conv3DRNNCell = _cell(_ConvRNNCell, 3, "Conv3DRNNCell", "3-D convolutional RNN cell (layouts 'NCDHW', "
                      "'NDHWC').")
Conv1DLSTMCell = _cell(_ConvLSTMCell, 1, "Conv1DLSTMCell", "1-D convolutional LSTM cell; states [h, c].")
Conv2DLSTMCell = _cell(_ConvLSTMCell, 2, "Conv2DLSTMCell", "2-D convolutional LSTM cell (ConvLSTM); states "
                       "[h, c].")
Conv3DLSTMCell = _cell(_ConvLSTMCell, 3, "Conv3DLSTMCell", "3-D convolutional LSTM cell; states [h, c].")
Conv1DGRUCell = _cell(_ConvGRUCell, 1, "Conv1DGRUCell", "1-D convolutional GRU cell; states [h].")
Conv2DGRUCell = _cell(_ConvGRUCell, 2, "Conv2DGRUCell", "2-D convolutional GRU cell; states [h].")
Conv3DGRUCell = _cell(_ConvGRUCell, 3, "Conv3DGRUCell", "3-D convolutional GRU cell; states [h].")
