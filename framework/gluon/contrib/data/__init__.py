"""MXNet 1.9.1's ``gluon.contrib.data``: :class:`IntervalSampler` and the WikiText corpora
(:mod:`.text`: ``WikiText2``, ``WikiText103``).

>>> from framework.gluon.contrib.data import IntervalSampler
>>> len(IntervalSampler(5, 5))
5
"""

from . import sampler, text
from .sampler import IntervalSampler

__all__ = ["IntervalSampler", "sampler", "text"]
