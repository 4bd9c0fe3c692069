"""MXNet's index casts (``npx.getitem`` / ``npx.setitem``): float index arrays are truncated to
integers, ranges and lists are index arrays -- on arrays, Variables and recorded values. The reference
is MXNet 1.9.1's output (``tests/reference/d2l/behaviour.json``, ``tools/mxnet_reference/gen_d2l.py``)."""

import json
from pathlib import Path

import numpy as onp
import pytest

from framework import autograd, np, npx

REF = json.loads((Path(__file__).parents[1] / "reference" / "d2l" / "behaviour.json").read_text())["indexing"]

X = np.arange(10)
Y_HAT = np.array([[0.3, 0.6, 0.1], [0.2, 0.3, 0.5]])
READS = {
    "range_and_float": lambda: npx.getitem(Y_HAT, (range(2), np.array([0.0, 2.0]))),
    "range": lambda: npx.getitem(X, range(3)),
    "float_array": lambda: npx.getitem(X, np.array([1.0, 2.7, -1.5])),
    "float_list": lambda: npx.getitem(X, [1.0, 2.7]),
    "int_list": lambda: npx.getitem(X, [4, 1]),
    "float_rows": lambda: npx.getitem(Y_HAT, np.array([1.0, 0.0])),
    "float_pair": lambda: npx.getitem(Y_HAT, (np.array([1.0]), np.array([2.0]))),
    "float_0d": lambda: npx.getitem(X, np.array(2.7)),
}


def check(got, ref):
    ref = ref["value"]
    got = onp.asarray(got)
    assert list(got.shape) == ref["shape"] and str(got.dtype) == ref["dtype"]
    onp.testing.assert_allclose(got, onp.asarray(ref["array"], dtype=got.dtype), rtol=1e-6)


@pytest.mark.parametrize("case", sorted(READS))
def test_reads_index_as_mxnet(case):
    check(READS[case](), REF[case])


def test_writes_index_as_mxnet():
    z = npx.setitem(np.zeros(5), np.array([1.0, 3.9]), 7)
    check(z, REF["set_float"])
    v = autograd.attach_grad(np.zeros((2, 3)))
    assert npx.setitem(v, (range(2), np.array([0.0, 2.0])), 7) is v  # a Variable changes in place
    check(v, REF["set_range"])


def test_values_with_leading_length_1_axes_fill_smaller_slots():
    z = npx.setitem(np.zeros(5), 2, np.ones((1, 1)) * 3)
    w = npx.setitem(np.zeros((2, 3)), (1, slice(1, 3)), np.ones((1, 1, 2)) * 4)
    ref_z, ref_w = REF["set_leading_ones"]["value"]
    check(z, {"value": ref_z})
    check(w, {"value": ref_w})


def test_recorded_read_with_float_index_differentiates():
    w = autograd.attach_grad(np.arange(6).reshape(2, 3))
    with autograd.record():
        loss = npx.getitem(w, (range(2), np.array([2.0, 0.0]))).sum() * 2
    loss.backward()
    check(w.grad, REF["recorded_grad"])


def test_other_objects_are_indexed_as_they_are():
    assert npx.getitem({"a": 1}, "a") == 1 and npx.getitem([5, 6, 7], slice(1, None)) == [6, 7]
    with pytest.raises(IndexError):  # NumPy's own rules for NumPy arrays: no cast
        npx.getitem(onp.arange(3), onp.array([0.0]))
