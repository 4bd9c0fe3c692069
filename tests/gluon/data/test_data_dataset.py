"""Dataset containers and combinators, against MXNet 1.9's semantics."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as onp
import pytest

from framework.gluon import data


def test_array_dataset_items_and_length():
    x, y = onp.arange(12).reshape(6, 2), onp.arange(6) * 10
    ds = data.ArrayDataset(x, y)
    assert len(ds) == 6
    a, b = ds[2]
    onp.testing.assert_array_equal(a, [4, 5])
    assert b == 20
    single = data.ArrayDataset(x)
    onp.testing.assert_array_equal(single[1], [2, 3])  # one array: the item itself, not a 1-tuple


def test_array_dataset_moves_jax_arrays_to_host_once():
    ds = data.ArrayDataset(jnp.arange(4.0), [1, 2, 3, 4])
    assert isinstance(ds._data[0], onp.ndarray)
    assert ds[3] == (3.0, 4)


def test_array_dataset_length_mismatch_names_the_arrays():
    with pytest.raises(ValueError, match=r"array\[0\] has length 3 while array\[1\] has 2"):
        data.ArrayDataset(onp.zeros(3), onp.zeros(2))
    with pytest.raises(ValueError, match="at least 1 array"):
        data.ArrayDataset()


def test_simple_dataset_and_lazy_vs_eager_transform():
    calls = []

    def double(x):
        calls.append(x)
        return x * 2

    ds = data.SimpleDataset([1, 2, 3])
    lazy = ds.transform(double)
    assert calls == [] and lazy[1] == 4 and calls == [2]
    eager = ds.transform(double, lazy=False)
    assert isinstance(eager, data.SimpleDataset) and list(eager) == [2, 4, 6]


def test_transform_unpacks_tuples_and_transform_first_keeps_label():
    ds = data.SimpleDataset([(1, "a"), (2, "b")])
    assert ds.transform(lambda x, y: (y, x))[0] == ("a", 1)
    assert ds.transform_first(lambda x: -x)[1] == (-2, "b")
    assert data.SimpleDataset([5]).transform_first(lambda x: x + 1)[0] == 6  # non-tuple items: fn(item)


def test_filter_shard_take_sample():
    ds = data.SimpleDataset(list(range(10)))
    assert list(ds.filter(lambda x: x % 3 == 0)) == [0, 3, 6, 9]
    shards = [list(ds.shard(3, i)) for i in range(3)]
    assert shards == [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]
    assert list(ds.take(3)) == [0, 1, 2] and len(ds.take(None)) == 10 and len(ds.take(99)) == 10
    assert list(ds.sample([9, 0, 9])) == [9, 0, 9]
    assert list(ds.sample(data.IntervalSampler(10, 5))) == [0, 5, 1, 6, 2, 7, 3, 8, 4, 9]


def test_shard_arguments_are_checked():
    ds = data.SimpleDataset(list(range(4)))
    with pytest.raises(ValueError, match="index 4 is out of bounds"):
        ds.shard(4, 4)
    with pytest.raises(ValueError, match="num_shards must be a positive integer"):
        ds.shard(0, 0)


def test_getbatch_equals_stacked_items():
    x = onp.random.default_rng(0).integers(0, 255, (20, 4, 4, 1), dtype=onp.uint8)
    ds = data.ArrayDataset(x, onp.arange(20, dtype=onp.int32)).take(15).shard(2, 1)
    idx = onp.array([3, 0, 6])
    got = ds._getbatch(idx)
    want = [onp.stack([ds[int(i)][k] for i in idx]) for k in range(2)]
    for g, w in zip(got, want, strict=True):
        onp.testing.assert_array_equal(g, w)
    assert data.SimpleDataset([1, 2])._getbatch(idx[:1]) is NotImplemented  # a list: per-sample path


def test_lazy_transform_getbatch_only_for_batch_safe_transforms():
    T = data.vision.transforms
    x = onp.arange(2 * 3 * 3 * 1, dtype=onp.uint8).reshape(2, 3, 3, 1)
    ds = data.ArrayDataset(x, onp.array([1, 0]))
    assert ds.transform_first(lambda v: v)._getbatch(onp.array([0])) is NotImplemented
    assert ds.transform(T.ToTensor())._getbatch(onp.array([0])) is NotImplemented  # fn(*item): no batch form
    out, label = ds.transform_first(T.ToTensor())._getbatch(onp.array([1, 0]))
    onp.testing.assert_array_equal(out, onp.stack([T.ToTensor()(x[1]), T.ToTensor()(x[0])]))
    onp.testing.assert_array_equal(label, [0, 1])
