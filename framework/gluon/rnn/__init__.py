"""Recurrent layers and cells (MXNet's ``gluon.rnn``): fused RNN/LSTM/GRU layers that run each layer and
direction as one ``lax.scan``, and step-wise cells with ``unroll``.

>>> from framework import np
>>> from framework.gluon import rnn
>>> layer = rnn.GRU(4, layout='NTC', input_size=3)
>>> layer.initialize()
>>> layer(np.ones((2, 6, 3))).shape
(2, 6, 4)
"""

from .rnn_cell import (
    BidirectionalCell,
    DropoutCell,
    GRUCell,
    HybridRecurrentCell,
    HybridSequentialRNNCell,
    LSTMCell,
    ModifierCell,
    RecurrentCell,
    ResidualCell,
    RNNCell,
    SequentialRNNCell,
    ZoneoutCell,
)
from .rnn_layer import GRU, LSTM, RNN

__all__ = [
    "RNN",
    "LSTM",
    "GRU",
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
