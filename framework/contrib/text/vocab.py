"""A token vocabulary (MXNet's ``contrib.text.vocab.Vocabulary``): index 0 is the unknown token, then
the reserved tokens in order, then the counter's tokens by falling frequency (ties in sorted order),
cut by ``most_freq_count`` and ``min_freq``.

>>> import collections
>>> v = Vocabulary(collections.Counter({"x": 2, "b": 3, "a": 3}), min_freq=3)
>>> v.idx_to_token, v.to_tokens(1), len(v)
(['<unk>', 'a', 'b'], 'a', 3)
"""

from __future__ import annotations

import collections
from collections.abc import Hashable, Sequence
from typing import Any

__all__ = ["Vocabulary"]

UNKNOWN_IDX = 0


class Vocabulary:
    """Indices of tokens (see the module docstring)."""

    def __init__(self, counter: collections.Counter | None = None, most_freq_count: int | None = None,
                 min_freq: int = 1, unknown_token: Hashable = "<unk>",
                 reserved_tokens: Sequence[Hashable] | None = None) -> None:
        if min_freq < 1:
            raise ValueError(f"Vocabulary: min_freq={min_freq} must be at least 1")
        if reserved_tokens is not None:
            if unknown_token in reserved_tokens:
                raise ValueError(f"Vocabulary: reserved_tokens contain the unknown token {unknown_token!r}")
            if len(set(reserved_tokens)) != len(reserved_tokens):
                raise ValueError(f"Vocabulary: reserved_tokens {list(reserved_tokens)} repeat a token")
        self._unknown_token = unknown_token
        self._reserved_tokens = None if reserved_tokens is None else list(reserved_tokens)
        self._idx_to_token: list[Hashable] = [unknown_token, *(self._reserved_tokens or [])]
        self._token_to_idx = {t: i for i, t in enumerate(self._idx_to_token)}
        if counter is not None:
            self._index_counter(counter, most_freq_count, min_freq)

    def _index_counter(self, counter: collections.Counter, most_freq_count: int | None,
                       min_freq: int) -> None:
        if not isinstance(counter, collections.Counter):
            raise TypeError("Vocabulary: counter must be a collections.Counter, "
                            f"got {type(counter).__name__}")
        special = set(self._idx_to_token)
        ordered = sorted(counter.items(), key=lambda kv: kv[0])
        ordered.sort(key=lambda kv: kv[1], reverse=True)
        cap = len(special) + (len(counter) if most_freq_count is None else most_freq_count)
        for token, freq in ordered:
            if freq < min_freq or len(self._idx_to_token) == cap:
                break
            if token not in special:
                self._token_to_idx[token] = len(self._idx_to_token)
                self._idx_to_token.append(token)

    def __len__(self) -> int:
        return len(self._idx_to_token)

    @property
    def token_to_idx(self) -> dict[Hashable, int]:
        return self._token_to_idx

    @property
    def idx_to_token(self) -> list[Hashable]:
        return self._idx_to_token

    @property
    def unknown_token(self) -> Hashable:
        return self._unknown_token

    @property
    def reserved_tokens(self) -> list[Hashable] | None:
        return self._reserved_tokens

    def to_indices(self, tokens: Any) -> Any:
        """A token's index (unknown tokens give 0), or a list of them for a list of tokens."""
        if isinstance(tokens, list):
            return [self._token_to_idx.get(t, UNKNOWN_IDX) for t in tokens]
        return self._token_to_idx.get(tokens, UNKNOWN_IDX)

    def to_tokens(self, indices: Any) -> Any:
        """The token of an index, or a list of them for a list of indices."""
        many = isinstance(indices, list)
        out = []
        for i in indices if many else [indices]:
            if not isinstance(i, int) or not 0 <= i < len(self._idx_to_token):
                raise ValueError(f"Vocabulary.to_tokens: index {i!r} is not in 0..{len(self) - 1}")
            out.append(self._idx_to_token[i])
        return out if many else out[0]
