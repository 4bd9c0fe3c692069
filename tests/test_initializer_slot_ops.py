"""An MXNet-style initializer that computes with its ``arr`` (``np`` functions, comparisons) and changes
it with in-place operators (``arr *= mask``) gives MXNet 1.9.1's weights
(``tests/reference/d2l/behaviour.json``, ``tools/mxnet_reference/gen_d2l.py``)."""

import json
from pathlib import Path

import numpy as onp

from framework import gluon, init, np

REF = json.loads((Path(__file__).parent / "reference" / "d2l" / "behaviour.json").read_text())["initializer"]


class Masked(init.Initializer):
    def _init_weight(self, name, data):
        data[:] = np.random.uniform(-10, 10, data.shape)
        data *= np.abs(data) >= 5


class Exact(init.Initializer):
    def _init_weight(self, name, data):
        data[:] = np.arange(data.size).reshape(data.shape)
        data *= data >= 3
        data += 1
        data[0, 0] = -np.abs(data).max()
        data /= 2


def weights(initializer):
    net = gluon.nn.Dense(4, in_units=3)
    net.initialize(initializer)
    return onp.asarray(net.weight.data())


def test_in_place_operators_and_np_functions_on_arr():
    ref = REF["exact"]["value"]
    w = weights(Exact())
    assert list(w.shape) == ref["shape"] and str(w.dtype) == ref["dtype"]
    onp.testing.assert_array_equal(w, onp.asarray(ref["array"], dtype=w.dtype))


def test_masked_uniform_initializer_has_mxnets_property():
    w = weights(Masked())
    got = [bool(((w == 0) | (abs(w) >= 5)).all()), bool((abs(w) <= 10).all()), bool((w != 0).any())]
    assert got == REF["masked_property"]["value"] == [True, True, True]
