"""MXNet 1.9.1's ``gluon.contrib.data``: :class:`IntervalSampler`.

Not provided: ``contrib.data.text`` (``WikiText2``, ``WikiText103``): MXNet downloads the corpora and
builds their vocabulary with ``mxnet.contrib.text``; this framework downloads nothing and has no
``contrib.text`` (use GluonNLP-style tokenisation of local files and ``gluon.data.SimpleDataset``).

>>> from framework.gluon.contrib.data import IntervalSampler
>>> len(IntervalSampler(5, 5))
5
"""

from . import sampler
from .sampler import IntervalSampler

__all__ = ["IntervalSampler", "sampler"]
