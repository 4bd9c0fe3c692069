"""MXNet 1.9.1's ``gluon.contrib.rnn``: convolutional RNN/LSTM/GRU cells in 1-3 D, the variational
dropout modifier and the projected LSTM cell.

>>> from framework.gluon.contrib import rnn
>>> cell = rnn.LSTMPCell(6, 2, input_size=3)
>>> cell.state_info(4)[0]['shape']
(4, 2)
"""

from . import conv_rnn_cell, rnn_cell
from .conv_rnn_cell import (
    Conv1DGRUCell,
    Conv1DLSTMCell,
    Conv1DRNNCell,
    Conv2DGRUCell,
    Conv2DLSTMCell,
    Conv2DRNNCell,
    Conv3DGRUCell,
    Conv3DLSTMCell,
    Conv3DRNNCell,
)
from .rnn_cell import LSTMPCell, VariationalDropoutCell

__all__ = ["Conv1DRNNCell", "Conv2DRNNCell", "Conv3DRNNCell", "Conv1DLSTMCell", "Conv2DLSTMCell",
           "Conv3DLSTMCell", "Conv1DGRUCell", "Conv2DGRUCell", "Conv3DGRUCell", "VariationalDropoutCell",
           "LSTMPCell", "conv_rnn_cell", "rnn_cell"]
