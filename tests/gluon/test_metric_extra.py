"""MXNet 1.x's NegativeLogLikelihood, PCC, Torch and Caffe metrics, and mx.callback's logging callbacks
and checkpoints, against MXNet 1.9.1 (tests/reference/api/metric.npz and ckpt-0002.params,
tools/mxnet_reference/gen_api.py)."""

from __future__ import annotations

import json
import logging

import numpy as onp
import pytest

import framework as mx
from conftest import REFERENCE

API = REFERENCE / "api"


@pytest.fixture(scope="module")
def ref():
    with onp.load(API / "metric.npz") as f:
        return {k: f[k] for k in f.files}


@pytest.mark.parametrize("name", ["nll", "pcc", "torch", "caffe", "nll_created"])
def test_metrics_match_mxnet(ref, name):
    metric = (
        mx.metric.create("nll_loss")
        if name == "nll_created"
        else {
            "nll": mx.metric.NegativeLogLikelihood,
            "pcc": mx.metric.PCC,
            "torch": mx.metric.Torch,
            "caffe": mx.metric.Caffe,
        }[name]()
    )
    values = []
    for p, lab in zip(ref["preds"], ref["labels"], strict=True):
        metric.update([lab], [p])
        values.append(metric.get()[1])
    metric.reset_local()
    values.append(metric.get_global()[1])
    onp.testing.assert_allclose(values, ref[f"metric/{name}"], rtol=1e-5)
    assert metric.get()[0] == str(ref[f"metric/{name}/name"])


def test_pcc_grows_with_new_classes(ref):
    pcc = mx.metric.PCC()
    pcc.update([onp.array([0, 1, 1])], [onp.array([0, 1, 0])])
    pcc.update([onp.array([2, 1, 0, 2])], [onp.array([2, 2, 0, 1])])
    onp.testing.assert_allclose(pcc.get()[1], ref["metric/pcc_grow"], rtol=1e-6)


def test_logging_callbacks_write_mxnets_messages(ref, caplog):
    acc = mx.metric.Accuracy()
    acc.update([onp.array([0, 1, 1, 0])], [onp.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.7, 0.3]])])
    param = mx.callback.BatchEndParam(epoch=2, nbatch=4, eval_metric=acc, locals=None)
    with caplog.at_level(logging.INFO):
        mx.callback.log_train_metric(2)(param)
        mx.callback.LogValidationMetricsCallback()(param)
        mx.callback.ProgressBar(total=10, length=20)(param)
    assert [r.getMessage() for r in caplog.records] == json.loads(str(ref["callback/log"]))


def test_speedometer_logs_speed_and_resets_the_metric(caplog):
    acc = mx.metric.Accuracy()
    acc.update([onp.array([0, 1])], [onp.array([[0.9, 0.1], [0.2, 0.8]])])
    speed = mx.callback.Speedometer(batch_size=4, frequent=2)
    with caplog.at_level(logging.INFO):
        for n in range(5):
            speed(mx.callback.BatchEndParam(epoch=1, nbatch=n, eval_metric=acc, locals=None))
    msgs = [r.getMessage() for r in caplog.records]
    assert len(msgs) == 2 and msgs[0].startswith("Epoch[1] Batch [0-2]\tSpeed: ")
    assert msgs[0].endswith("samples/sec\taccuracy=1.000000") and msgs[1].endswith("accuracy=nan")
    assert acc.num_inst == 0  # auto_reset


def test_do_checkpoint_writes_mxnets_bytes(tmp_path):
    import jax.numpy as jnp

    arg = {"w": jnp.arange(6, dtype=jnp.float32).reshape(2, 3), "b": jnp.array([1.5, -2.0])}
    aux = {"mean": jnp.array([0.25])}
    cb = mx.callback.do_checkpoint(str(tmp_path / "ckpt"), period=2)
    cb(0, None, arg, aux)
    assert not list(tmp_path.iterdir())  # epoch 1 is not a multiple of period 2
    cb(1, None, arg, aux)
    assert (tmp_path / "ckpt-0002.params").read_bytes() == (API / "ckpt-0002.params").read_bytes()
