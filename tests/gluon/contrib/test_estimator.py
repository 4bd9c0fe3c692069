"""gluon.contrib.estimator against MXNet 1.9.1 (tests/reference/contrib/estimator.npz, made by
tools/mxnet_reference/gen_contrib.py): the same script -- checkpoints, early stopping, batch-count
training, resuming -- stops at the same epoch, writes the same files and logs the same lines."""

from __future__ import annotations

import logging
import os
import re
import warnings

import jax.numpy as jnp
import numpy as onp
import pytest

from framework import gluon
from framework.gluon import nn
from framework.gluon.contrib import estimator as E
from tests.conftest import REFERENCE

with onp.load(REFERENCE / "contrib" / "estimator.npz") as _f:
    REF = {k: _f[k] for k in _f.files}
X, Y = REF["x"], REF["y"]
FLOAT = re.compile(r"-?\d+\.\d{4}\b")


def _fill(net, seed):  # the generator's fill(): sorted structural names, one RandomState
    rs = onp.random.RandomState(seed)
    params = net.collect_params()
    for name in sorted(params):
        p = params[name]
        p.set_data(rs.uniform(-0.5, 0.5, p.shape).astype(onp.float32))


def _estimator(seed=11, hybridize=False):
    net = nn.HybridSequential()
    net.add(nn.Dense(16, activation="tanh"), nn.Dense(3))
    net.initialize()
    net(jnp.asarray(X[:2]))
    if seed is not None:
        _fill(net, seed)
    if hybridize:
        net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5})
    est = E.Estimator(net, gluon.loss.SoftmaxCrossEntropyLoss(), trainer=trainer)
    lines = []

    class Collect(logging.Handler):
        def emit(self, record):
            lines.append(record.getMessage())

    est.logger.handlers[:] = [Collect()]
    return net, est, lines


def _loaders():
    train = gluon.data.DataLoader(gluon.data.ArrayDataset(X[:64], Y[:64]), batch_size=16)
    val = gluon.data.DataLoader(gluon.data.ArrayDataset(X[64:], Y[64:]), batch_size=16)
    return train, val


class Record(E.EpochEnd):
    def __init__(self):
        self.history = []

    def epoch_end(self, estimator, *args, **kwargs):
        self.history.append([m.get()[1] for m in estimator.train_metrics + estimator.val_metrics])
        return False


def _normal(lines, model_dir):
    out = []
    for line in lines:
        line = line.replace(str(model_dir), "DIR")
        line = re.sub(r"\d+\.\d{3}s", "Ts", re.sub(r"total \d+s", "total Ts", line))
        out.append(line)
    return out


def _check_log(got, want, model_dir):
    got, want = _normal(got, model_dir), _normal([str(s) for s in want], "DIR_MX")
    want = [re.sub(r"/tmp/tmp\w+", "DIR", s) for s in want]
    assert [FLOAT.sub("F", s) for s in got] == [FLOAT.sub("F", s) for s in want]
    values = [float(v) for s in got for v in FLOAT.findall(s)]
    onp.testing.assert_allclose(values, [float(v) for s in want for v in FLOAT.findall(s)], atol=1.5e-4)


def _check_params(net, case):
    for name, p in net.collect_params().items():
        onp.testing.assert_allclose(p.data(), REF[f"{case}:param:{name}"], rtol=1e-3, atol=1e-4, err_msg=name)


def test_early_stopping_and_checkpoints_match_mxnet(tmp_path):
    net, est, lines = _estimator(hybridize=True)
    record = Record()
    val_loss = est.val_metrics[1]
    early = E.EarlyStoppingHandler(monitor=val_loss, mode="min", patience=2)
    ckpt = E.CheckpointHandler(str(tmp_path), monitor=val_loss, save_best=True, mode="min", max_checkpoints=3)
    train, val = _loaders()
    est.fit(train, val, epochs=40, event_handlers=[record, early, ckpt])
    assert early.stopped_epoch == int(REF["early:stopped"]) == 8
    assert sorted(os.listdir(tmp_path)) == REF["early:files"].tolist()
    onp.testing.assert_allclose(record.history, REF["early:history"], rtol=1e-4, atol=1e-5)
    _check_log(lines, REF["early:log"], tmp_path)
    _check_params(net, "early")
    # the best checkpoint holds the epoch-6 parameters: it loads, and its validation loss is the best
    best = nn.HybridSequential()
    best.add(nn.Dense(16, activation="tanh"), nn.Dense(3))
    best.load_parameters(str(tmp_path / "model-best.params"))
    est2 = E.Estimator(best, gluon.loss.SoftmaxCrossEntropyLoss(),
                       trainer=gluon.Trainer(best.collect_params(), "sgd"))
    est2.logger.handlers[:] = []
    est2.evaluate(val)
    assert est2.val_metrics[1].get()[1] == pytest.approx(REF["early:history"][6][3], rel=1e-4)
    assert '"nodes"' in (tmp_path / "model-symbol.json").read_text()  # MXNet's symbol JSON


def test_batches_logging_interval_and_batch_checkpoints_match_mxnet(tmp_path):
    net, est, lines = _estimator()
    record = Record()
    ckpt = E.CheckpointHandler(str(tmp_path), epoch_period=None, batch_period=3, max_checkpoints=2)
    logger = E.LoggingHandler(log_interval=2, metrics=est.train_metrics)
    train, _ = _loaders()
    est.fit(train, batches=7, event_handlers=[record, ckpt, logger])
    assert sorted(os.listdir(tmp_path)) == REF["batches:files"].tolist()  # no symbol: not hybridized
    onp.testing.assert_allclose(onp.array(record.history)[:, :2], REF["batches:history"][:, :2], rtol=1e-4)
    _check_log(lines, REF["batches:log"], tmp_path)
    _check_params(net, "batches")


def test_resume_from_checkpoint_matches_mxnet(tmp_path):
    _, est, _ = _estimator()
    train, val = _loaders()
    est.fit(train, val, epochs=3, event_handlers=[Record(), E.CheckpointHandler(str(tmp_path))])
    assert sorted(os.listdir(tmp_path)) == REF["resume:files_before"].tolist()
    net, est, lines = _estimator(seed=None)  # fresh weights: the checkpoint supplies them
    est.fit(train, epochs=5, event_handlers=[E.CheckpointHandler(str(tmp_path), resume_from_checkpoint=True)])
    assert est.max_epoch == int(REF["resume:max_epoch"])
    assert sorted(os.listdir(tmp_path)) == REF["resume:files"].tolist()
    _check_log(lines, REF["resume:log"], tmp_path)
    _check_params(net, "resume")


def test_handlers_follow_mxnet_rules():
    _, est, _ = _estimator()
    train, val = _loaders()
    with pytest.raises(ValueError, match="exactly one type of iteration"):
        est.fit(train, epochs=1, batches=2)
    with pytest.raises(ValueError, match="only support input as Gluon DataLoader"):
        est.fit([(X, Y)], epochs=1)
    stranger = gluon.metric.Accuracy()
    with pytest.raises(ValueError, match="refers to a metric instance .* outside of the known"):
        est.fit(train, epochs=1, event_handlers=[E.MetricHandler(metrics=[stranger])])
    with pytest.raises(ValueError, match="CompositeEvalMetric is not supported"):
        E.EarlyStoppingHandler(gluon.metric.CompositeEvalMetric())
    with pytest.raises(ValueError, match="log_interval must be either an integer or string 'epoch'"):
        E.LoggingHandler(log_interval="batch")
    # auto mode: accuracy and F1 improve upwards, everything else downwards (MXNet's documented rule)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert E.EarlyStoppingHandler(est.val_metrics[0]).monitor_op is onp.greater
        assert E.EarlyStoppingHandler(est.val_metrics[1]).monitor_op is onp.less
    handler = E.EarlyStoppingHandler(est.val_metrics[1], mode="min", patience=1, baseline=0.1)
    handler.train_begin(est)
    est.val_metrics[1].update(0, [jnp.array([0.5])])
    assert handler.epoch_end(est) and handler.stopped_epoch == 0  # never beat the baseline
    assert E.EarlyStoppingHandler(est.val_metrics[1], mode="min", min_delta=0.5).min_delta == -0.5


def test_default_trainer_and_custom_batch_processor():
    net = nn.Dense(3)

    class Twice(E.BatchProcessor):  # a customised fit_batch: two passes per batch
        calls = 0

        def fit_batch(self, estimator, batch, batch_axis=0):
            Twice.calls += 1
            return super().fit_batch(estimator, batch, batch_axis)

    with pytest.warns(UserWarning, match="No trainer specified, default SGD optimizer"):
        est = E.Estimator(net, gluon.loss.SoftmaxCrossEntropyLoss(), batch_processor=Twice())
    est.logger.handlers[:] = []
    assert est.trainer.learning_rate == 0.001
    train, _ = _loaders()
    est.fit(train, batches=3)
    assert Twice.calls == 3
    with pytest.raises(ValueError, match="must contain fit_batch\\(\\) and evaluate_batch\\(\\)"):
        E.Estimator(net, gluon.loss.L2Loss(), trainer=est.trainer, batch_processor=object())
