"""``mxnet.contrib.text``'s counting and indexing of tokens (what ``gluon.contrib.data.text``'s WikiText
datasets build their vocabulary with): :func:`utils.count_tokens_from_str` and
:class:`vocab.Vocabulary`.

>>> from framework.contrib import text
>>> v = text.vocab.Vocabulary(text.utils.count_tokens_from_str("a b b\\nc b"), reserved_tokens=["<eos>"])
>>> v.idx_to_token, v.to_indices(["b", "zz"])
(['<unk>', '<eos>', 'b', 'a', 'c'], [2, 0])
"""

from __future__ import annotations

from . import utils, vocab

__all__ = ["utils", "vocab"]
