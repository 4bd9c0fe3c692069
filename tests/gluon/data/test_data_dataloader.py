"""DataLoader in the calling thread and with threads: MXNet's behaviour, jax.Array batches."""

from __future__ import annotations

import jax
import numpy as onp
import pytest

from framework import np
from framework.gluon import data

T = data.vision.transforms


def _images(n=23, seed=0):
    rng = onp.random.default_rng(seed)
    return rng.integers(0, 256, (n, 5, 4, 3), dtype=onp.uint8), rng.integers(0, 10, n).astype(onp.int32)


def _as_numpy(batches):
    return [[onp.asarray(part) for part in b] for b in batches]


def test_batches_are_cpu_jax_arrays_with_int32_labels():
    x, y = _images()
    loader = data.DataLoader(data.ArrayDataset(x, y.astype(onp.int64)), batch_size=8)
    assert len(loader) == 3
    batches = list(loader)
    xb, yb = batches[0]
    assert isinstance(xb, jax.Array) and xb.devices() == {jax.devices("cpu")[0]}
    assert xb.shape == (8, 5, 4, 3) and xb.dtype == onp.uint8 and yb.dtype == onp.int32
    assert [b[0].shape[0] for b in batches] == [8, 8, 7]
    assert float(yb.sum()) == float(y[:8].sum())


@pytest.mark.parametrize("last_batch,sizes", [("keep", [10, 10, 3]), ("discard", [10, 10])])
def test_last_batch(last_batch, sizes):
    loader = data.DataLoader(data.ArrayDataset(onp.arange(23)), 10, last_batch=last_batch)
    assert [b.shape[0] for b in loader] == sizes and len(loader) == len(sizes)


def test_rollover_keeps_the_rest_for_the_next_epoch():
    loader = data.DataLoader(data.ArrayDataset(onp.arange(5)), 2, last_batch="rollover")
    assert [b.tolist() for b in loader] == [[0, 1], [2, 3]]
    assert [b.tolist() for b in loader] == [[4, 0], [1, 2], [3, 4]]


def test_shuffle_is_reproducible_from_np_random_seed():
    ds = data.ArrayDataset(onp.arange(40))
    loader = data.DataLoader(ds, 8, shuffle=True)
    np.random.seed(7)
    first = [b.tolist() for b in loader]
    second = [b.tolist() for b in loader]
    np.random.seed(7)
    assert [b.tolist() for b in loader] == first
    assert first != second and sorted(sum(first, [])) == list(range(40))


def test_vectorised_path_equals_per_sample_path():
    x, y = _images()
    ds = data.ArrayDataset(x, y).transform_first(T.Compose([T.ToTensor(), T.Normalize((0.1, 0.2, 0.3), 0.5)]))
    fast = data.DataLoader(ds, 6, shuffle=True)
    slow = data.DataLoader(ds, 6, shuffle=True, batchify_fn=lambda s: data.batchify.default_batchify_fn(s))
    np.random.seed(2)
    a = _as_numpy(fast)
    np.random.seed(2)
    b = _as_numpy(slow)
    assert a[0][0].shape == (6, 3, 5, 4) and a[0][0].dtype == onp.float32
    for (xa, ya), (xb, yb) in zip(a, b, strict=True):
        onp.testing.assert_array_equal(xa, xb)
        onp.testing.assert_array_equal(ya, yb)


def test_custom_batchify_and_batch_sampler():
    ds = data.SimpleDataset([[1], [2, 3], [4, 5, 6]])
    loader = data.DataLoader(ds, batch_sampler=[[2, 0], [1]], batchify_fn=data.batchify.Pad(val=-1))
    assert [b.tolist() for b in loader] == [[[4, 5, 6], [1, -1, -1]], [[2, 3]]]
    assert len(loader) == 2


def test_argument_errors_match_mxnet():
    ds = data.ArrayDataset(onp.arange(4))
    with pytest.raises(ValueError, match="batch_size must be specified unless batch_sampler is specified"):
        data.DataLoader(ds)
    with pytest.raises(ValueError, match="shuffle must not be specified if sampler is specified"):
        data.DataLoader(ds, 2, shuffle=True, sampler=data.SequentialSampler(4))
    with pytest.raises(ValueError, match="must not be specified if batch_sampler is specified"):
        data.DataLoader(ds, 2, batch_sampler=[[0, 1]])
    with pytest.raises(ValueError, match="timeout must be positive, given 0"):
        data.DataLoader(ds, 2, timeout=0)
    with pytest.raises(TypeError, match="must have __getitem__ and __len__"):
        data.DataLoader(3, 2)


def test_random_transforms_are_seeded_per_batch():
    x, y = _images(12)
    ds = data.ArrayDataset(x, y).transform_first(T.Compose([T.RandomFlipLeftRight(), T.ToTensor()]))
    loader = data.DataLoader(ds, 4, shuffle=True)
    np.random.seed(5)
    a = _as_numpy(loader)
    np.random.seed(5)
    b = _as_numpy(loader)
    for (xa, _), (xb, _) in zip(a, b, strict=True):
        onp.testing.assert_array_equal(xa, xb)


def test_thread_pool_gives_the_same_batches():
    x, y = _images(30)
    ds = data.ArrayDataset(x, y).transform_first(T.Compose([T.RandomBrightness(0.5), T.ToTensor()]))
    np.random.seed(9)
    ref = _as_numpy(data.DataLoader(ds, 7, shuffle=True))
    threaded = data.DataLoader(ds, 7, shuffle=True, num_workers=2, thread_pool=True)
    np.random.seed(9)
    got = _as_numpy(threaded)
    for (xa, ya), (xb, yb) in zip(ref, got, strict=True):
        onp.testing.assert_array_equal(xa, xb)
        onp.testing.assert_array_equal(ya, yb)
    pool = threaded._worker_pool
    assert pool is not None and len(list(threaded)) == 5 and threaded._worker_pool is pool  # reused


def test_thread_pool_propagates_errors():
    def bad(x):
        raise KeyError("broken sample")

    loader = data.DataLoader(data.SimpleDataset([1, 2, 3]).transform(bad), 2, num_workers=2, thread_pool=True)
    with pytest.raises(KeyError, match="broken sample"):
        list(loader)


def test_dataloader_v1_gives_dataloaders_batches_and_takes_v1s_arguments_only():
    import inspect

    from framework.gluon.data import ArrayDataset
    from framework.gluon.data.dataloader import DataLoader, DataLoaderV1

    data = ArrayDataset(onp.arange(10.0, dtype=onp.float32), onp.arange(10))
    for kw in ({"batch_size": 3}, {"batch_size": 4, "last_batch": "rollover"},
               {"batch_size": 3, "num_workers": 2}):
        v1, now = list(DataLoaderV1(data, **kw)), list(DataLoader(data, **kw))
        assert [[b.tolist() for b in pair] for pair in v1] == [[b.tolist() for b in pair] for pair in now]
    assert list(inspect.signature(DataLoaderV1).parameters)[-1] == "pin_device_id"  # MXNet 1.9.1's V1
    with pytest.raises(TypeError, match="prefetch"):
        DataLoaderV1(data, batch_size=2, prefetch=2)
