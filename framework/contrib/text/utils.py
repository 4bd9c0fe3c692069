"""Counting the tokens of a string (MXNet's ``contrib.text.utils``).

>>> count_tokens_from_str(" Life is great ! \\n life is good . \\n", to_lower=True)["life"]
2
"""

from __future__ import annotations

import collections
import re

__all__ = ["count_tokens_from_str"]


def count_tokens_from_str(source_str: str, token_delim: str = " ", seq_delim: str = "\n",
                          to_lower: bool = False,
                          counter_to_update: collections.Counter | None = None) -> collections.Counter:
    """The tokens of ``source_str`` counted: split at ``token_delim`` or ``seq_delim`` (regular
    expressions), empty pieces dropped, lower-cased with ``to_lower``; added to ``counter_to_update``
    when given (and that counter returned)."""
    tokens = [t for t in re.split(token_delim + "|" + seq_delim, source_str) if t]
    if to_lower:
        tokens = [t.lower() for t in tokens]
    if counter_to_update is None:
        return collections.Counter(tokens)
    counter_to_update.update(tokens)
    return counter_to_update
