"""Samplers: order, batching with keep/discard/rollover, reproducible shuffling."""

from __future__ import annotations

import numpy as onp
import pytest

from framework import np
from framework.gluon import data


def test_sequential_and_interval():
    assert list(data.SequentialSampler(4, start=3)) == [3, 4, 5, 6]
    assert list(data.IntervalSampler(7, 3)) == [0, 3, 6, 1, 4, 2, 5]
    assert list(data.IntervalSampler(7, 3, rollover=False)) == [0, 3, 6]
    assert len(data.IntervalSampler(7, 3, rollover=False)) == 7  # MXNet reports the length, not the pass
    with pytest.raises(ValueError, match="interval 7 must be positive and smaller than length 7"):
        data.IntervalSampler(7, 7)


def test_random_sampler_is_a_seeded_permutation_per_epoch():
    s = data.RandomSampler(50)
    np.random.seed(1)
    a, b = list(s), list(s)
    np.random.seed(1)
    assert list(s) == a and list(s) == b
    assert a != b and sorted(a) == list(range(50))


@pytest.mark.parametrize("last_batch,expected,length", [
    ("keep", [[0, 1, 2], [3, 4, 5], [6]], 3),
    ("discard", [[0, 1, 2], [3, 4, 5]], 2),
])
def test_batch_sampler_keep_discard(last_batch, expected, length):
    s = data.BatchSampler(data.SequentialSampler(7), 3, last_batch)
    assert list(s) == expected and len(s) == length


def test_batch_sampler_rollover_carries_the_rest_into_the_next_epoch():
    s = data.BatchSampler(data.SequentialSampler(7), 3, "rollover")
    assert len(s) == 2 and list(s) == [[0, 1, 2], [3, 4, 5]]
    assert len(s) == 2  # (1 carried + 7) // 3
    assert list(s) == [[6, 0, 1], [2, 3, 4]]
    assert list(s) == [[5, 6, 0], [1, 2, 3], [4, 5, 6]]


def test_batch_sampler_over_any_iterable_and_bad_arguments():
    assert list(data.BatchSampler(["a", "b", "c"], 2)) == [["a", "b"], ["c"]]
    with pytest.raises(ValueError, match="last_batch must be one of 'keep', 'discard', or 'rollover'"):
        data.BatchSampler(data.SequentialSampler(3), 2, "drop")
    with pytest.raises(ValueError, match="batch_size must be a positive integer, got 0"):
        data.BatchSampler(data.SequentialSampler(3), 0)


def test_index_batches_match_iteration():
    np.random.seed(3)
    arrays = [b.tolist() for b in data.BatchSampler(data.RandomSampler(10), 4)._index_batches()]
    np.random.seed(3)
    assert arrays == list(data.BatchSampler(data.RandomSampler(10), 4))
    batches = data.BatchSampler(data.SequentialSampler(5), 2)._index_batches()
    assert all(isinstance(b, onp.ndarray) for b in batches)


def test_filter_sampler():
    assert list(data.FilterSampler(lambda v: v > 1, [3, 0, 2, 1])) == [0, 2]
