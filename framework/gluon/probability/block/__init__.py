"""Stochastic blocks (MXNet 2.0's ``probability.block``).

>>> from framework.gluon.probability.block import StochasticSequential
>>> len(StochasticSequential())
0
"""

from .stochastic_block import StochasticBlock, StochasticSequential

__all__ = ["StochasticBlock", "StochasticSequential"]
