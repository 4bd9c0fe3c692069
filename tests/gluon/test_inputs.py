"""A Block called with a Python list or with uint8 images says what is wrong and how to fix it."""

from __future__ import annotations

import pytest

from framework import gluon, np


def test_python_list_into_a_layer_names_the_fix():
    layer = gluon.nn.Dense(2)
    layer.initialize()
    with pytest.raises(ValueError, match=r"Dense: input 0 is a Python list; a Block takes arrays .* "
                                         r"np\.array\(\[\[1\.0, 2\.0\]\]\)"):
        layer([[1.0, 2.0]])


def test_list_of_arrays_is_still_accepted_by_a_block_that_takes_one():
    class Pair(gluon.Block):
        def forward(self, xs):
            return xs[0] + xs[1]

    out = Pair()([np.ones(2), np.ones(2)])
    assert out.tolist() == [2.0, 2.0]


def test_uint8_images_into_a_float_network_point_to_to_tensor():
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Conv2D(2, 3), gluon.nn.Dense(2))
    net.initialize()
    with pytest.raises(TypeError, match=r"Conv2D: input 0 is uint8 with shape \(1, 1, 5, 5\).*ToTensor\(\)"):
        net(np.ones((1, 1, 5, 5), dtype="uint8"))


def test_uint8_indices_into_embedding_are_fine():
    layer = gluon.nn.Embedding(10, 3)
    layer.initialize()
    assert layer(np.ones((2, 4), dtype="uint8")).shape == (2, 4, 3)


def test_a_block_that_casts_first_accepts_uint8():
    class Scaled(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.dense = gluon.nn.Dense(2, in_units=3)

        def forward(self, x):
            return self.dense(x.astype("float32") / 255)

    net = Scaled()
    net.initialize()
    assert net(np.ones((4, 3), dtype="uint8")).shape == (4, 2)
