"""mxnet.contrib.io.DataLoaderIter: a Gluon DataLoader as a DataIter. The batches, pads, descriptions
and dtypes below are what MXNet 1.9.1 gives for the same loader (its pad rows are uninitialised
memory, so only the real rows are compared); Module.fit trains from it."""

from __future__ import annotations

import numpy as onp
import pytest

import framework as mx
from framework.contrib.io import DataLoaderIter
from framework.gluon.data import ArrayDataset, DataLoader


def _loader(n=5, batch=2):
    return DataLoader(ArrayDataset(onp.arange(3 * n, dtype="float32").reshape(n, 3), onp.arange(n)), batch)


def test_batches_pads_and_descriptions_as_mxnet():
    it = DataLoaderIter(_loader())
    assert it.batch_size == 2
    assert [(d.name, d.shape, d.dtype) for d in it.provide_data] == [("data", (2, 3), "float32")]
    assert [(d.name, d.shape, d.dtype) for d in it.provide_label] == [("softmax_label", (2,), "float32")]
    seen = [(b.pad, b.data[0].shape, str(b.label[0].dtype), b.data[0][:2 - b.pad].tolist(),
             b.label[0][:2 - b.pad].tolist()) for b in it]
    assert seen == [(0, (2, 3), "float32", [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], [0.0, 1.0]),
                    (0, (2, 3), "float32", [[6.0, 7.0, 8.0], [9.0, 10.0, 11.0]], [2.0, 3.0]),
                    (1, (2, 3), "float32", [[12.0, 13.0, 14.0]], [4.0])]
    it.reset()
    assert sum(1 for _ in it) == 3
    assert mx.contrib.io.DataLoaderIter is DataLoaderIter


def test_module_fit_trains_from_it():
    x = onp.random.RandomState(0).rand(64, 4).astype("float32")
    y = (x.sum(1) > 2).astype("float32")
    it = DataLoaderIter(DataLoader(ArrayDataset(x, y), 16, shuffle=True))
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc"),
                               name="softmax")
    mod = mx.mod.Module(net, context=mx.cpu())
    mod.fit(it, num_epoch=20, optimizer="sgd", optimizer_params={"learning_rate": 0.5})
    assert mod.score(it, "acc")[0][1] > 0.8


def test_an_empty_loader_is_refused_with_the_fix():
    with pytest.raises(ValueError, match="yields no batch"):
        DataLoaderIter(DataLoader(ArrayDataset(onp.zeros((0, 3)), onp.zeros(0)), 2))
