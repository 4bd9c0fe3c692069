"""Batchify functions."""

from __future__ import annotations

import numpy as onp
import pytest

from framework.gluon.data import batchify


def test_default_batchify_stacks_and_splits_tuples():
    out = batchify.default_batchify_fn([(onp.ones(2), 1), (onp.zeros(2), 0)])
    assert isinstance(out, list) and out[0].shape == (2, 2) and out[1].tolist() == [1, 0]
    assert batchify.default_batchify_fn([onp.int32(3), onp.int32(4)]).dtype == onp.int32


def test_default_batchify_explains_shape_mismatch():
    with pytest.raises(ValueError, match=r"cannot stack 2 samples of different shapes.*batchify.Pad"):
        batchify.default_batchify_fn([onp.ones(2), onp.ones(3)])


def test_stack_pad_append_group_aslist():
    assert batchify.Stack()([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    padded = batchify.Pad(val=-1)([onp.ones((2, 3)), onp.ones((1, 4))])
    assert padded.shape == (2, 2, 4) and padded[1, 1, 0] == -1 and padded[0, 0, 3] == -1
    assert batchify.Pad(round_to=4, dtype="float32")([[1], [2, 3]]).dtype == onp.float32
    out, lengths = batchify.Pad(ret_length=True)([[1, 2, 3], [4]])
    assert lengths.tolist() == [3, 1]
    assert [a.shape for a in batchify.Append()([[1, 2], [3]])] == [(1, 2), (1, 1)]
    x, names = batchify.Tuple(batchify.Stack(), batchify.AsList())([([1], "a"), ([2], "b")])
    assert x.tolist() == [[1], [2]] and names == ["a", "b"]
    assert batchify.Group is batchify.Tuple


def test_group_and_pad_errors():
    with pytest.raises(ValueError, match="should contain 2 elements"):
        batchify.Group(batchify.Stack(), batchify.Stack())([(1, 2, 3)])
    with pytest.raises(TypeError, match=r"must be callable! type\(fn\[1\]\) = int"):
        batchify.Group([batchify.Stack(), 3])
    with pytest.raises(TypeError, match="use Group"):
        batchify.Pad()([(onp.ones(2), 1)])
