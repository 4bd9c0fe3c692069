"""gluon.metric against NumPy / sklearn-style formulas written here."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

import framework as mx
from framework.gluon import metric

RS = onp.random.RandomState(0)


def batches(n_batches=3, n=8, c=4, seed=0):
    rs = onp.random.RandomState(seed)
    preds = [rs.rand(n, c).astype("float32") for _ in range(n_batches)]
    preds = [p / p.sum(1, keepdims=True) for p in preds]
    labels = [rs.randint(0, c, size=n) for _ in range(n_batches)]
    return labels, preds


def test_reachable():
    assert mx.metric is metric is mx.gluon.metric


def test_accuracy_accepts_jax_numpy_and_device_lists():
    labels, preds = batches()
    acc = metric.Accuracy()
    devs = jax.devices()[:2]
    for lab, pred in zip(labels, preds, strict=True):
        halves = [jax.device_put(jnp.asarray(pred[:4]), devs[0]),
                  jax.device_put(jnp.asarray(pred[4:]), devs[1])]
        acc.update([lab[:4], jnp.asarray(lab[4:])], halves)       # per-device lists, mixed types
    want = onp.mean(onp.concatenate([p.argmax(1) == lab for lab, p in zip(labels, preds, strict=True)]))
    name, value = acc.get()
    assert name == "accuracy" and value == pytest.approx(want)
    acc2 = metric.Accuracy()
    acc2.update(jnp.asarray(labels[0]), jnp.asarray(preds[0]))     # a single array, not a list
    assert acc2.get()[1] == pytest.approx(onp.mean(preds[0].argmax(1) == labels[0]))
    acc2.update([labels[0]], [preds[0].argmax(1)])                  # class predictions, same shape
    assert acc2.num_inst == 16


def test_accuracy_axis_and_global_stats():
    labels, preds = batches()
    acc = metric.Accuracy(axis=0)
    acc.update([labels[0]], [preds[0].T])
    assert acc.get()[1] == pytest.approx(onp.mean(preds[0].argmax(1) == labels[0]))
    acc.reset_local()
    assert math.isnan(acc.get()[1])
    assert acc.get_global()[1] == pytest.approx(onp.mean(preds[0].argmax(1) == labels[0]))
    acc.reset()
    assert math.isnan(acc.get_global()[1])


def test_top_k_accuracy():
    labels, preds = batches(c=6)
    m = metric.TopKAccuracy(top_k=3)
    assert m.name == "top_k_accuracy_3"
    hits = 0
    for lab, p in zip(labels, preds, strict=True):
        m.update([lab], [p])
        top = onp.argsort(-p, axis=1)[:, :3]
        hits += sum(lab[i] in top[i] for i in range(len(lab)))
    assert m.get()[1] == pytest.approx(hits / 24)


def f1_reference(y, p, num):
    tp = onp.array([((p == k) & (y == k)).sum() for k in range(num)], float)
    fp = onp.array([((p == k) & (y != k)).sum() for k in range(num)], float)
    fn = onp.array([((p != k) & (y == k)).sum() for k in range(num)], float)
    prec = onp.where(tp + fp > 0, tp / onp.maximum(tp + fp, 1), 0)
    rec = onp.where(tp + fn > 0, tp / onp.maximum(tp + fn, 1), 0)
    f = onp.where(prec + rec > 0, 2 * prec * rec / onp.maximum(prec + rec, 1e-12), 0)
    micro_p, micro_r = tp.sum() / (tp.sum() + fp.sum()), tp.sum() / (tp.sum() + fn.sum())
    return f, f.mean(), 2 * micro_p * micro_r / (micro_p + micro_r)


def test_f1_binary_over_all_batches():
    rs = onp.random.RandomState(1)
    probs = [rs.rand(10) for _ in range(3)]
    labels = [rs.randint(0, 2, 10) for _ in range(3)]
    m = metric.F1()
    m2 = metric.F1(average="binary")
    for lab, pr in zip(labels, probs, strict=True):
        m.update([lab], [onp.stack([1 - pr, pr], 1)])   # (N, 2) probabilities
        m2.update([lab], [pr])                            # (N,) probability of class 1
    y, p = onp.concatenate(labels), (onp.concatenate(probs) > 0.5).astype(int)
    tp, fp, fn = ((p == 1) & (y == 1)).sum(), ((p == 1) & (y == 0)).sum(), ((p == 0) & (y == 1)).sum()
    want = 2 * tp / (2 * tp + fp + fn)
    assert m.get()[1] == pytest.approx(want) and m2.get()[1] == pytest.approx(want)


def test_f1_multiclass_micro_macro_none():
    labels, preds = batches(c=5, seed=3)
    y = onp.concatenate(labels)
    p = onp.concatenate([q.argmax(1) for q in preds])
    per_class, macro, micro = f1_reference(y, p, 5)
    got = {}
    for avg in ("micro", "macro", None):
        m = metric.F1(class_type="multiclass", average=avg)
        for lab, q in zip(labels, preds, strict=True):
            m.update([lab], [q])
        got[avg] = m.get()[1]
    assert got["micro"] == pytest.approx(micro)
    assert got["macro"] == pytest.approx(macro)
    onp.testing.assert_allclose(got[None], per_class, rtol=1e-9)


def test_mcc():
    rs = onp.random.RandomState(2)
    lab, pr = rs.randint(0, 2, 50), rs.rand(50)
    m = metric.MCC()
    m.update([lab[:25], lab[25:]], [pr[:25], pr[25:]])
    p = (pr > 0.5).astype(int)
    tp, tn = ((p == 1) & (lab == 1)).sum(), ((p == 0) & (lab == 0)).sum()
    fp, fn = ((p == 1) & (lab == 0)).sum(), ((p == 0) & (lab == 1)).sum()
    want = (tp * tn - fp * fn) / math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    assert m.get()[1] == pytest.approx(want)


@pytest.mark.parametrize("label_shape", [(6,), (6, 1)])
def test_regression_metrics(label_shape):
    rs = onp.random.RandomState(4)
    labels = [rs.randn(*label_shape) for _ in range(2)]
    preds = [jnp.asarray(rs.randn(6, 1), jnp.float32) for _ in range(2)]
    diffs = onp.concatenate([lab.reshape(6) - onp.asarray(p).reshape(6) for lab, p in zip(labels, preds,
                                                                                         strict=True)])
    for klass, want in [(metric.MAE, onp.abs(diffs).mean()), (metric.MSE, (diffs ** 2).mean()),
                        (metric.RMSE, onp.sqrt((diffs ** 2).mean()))]:
        m = klass()
        for lab, p in zip(labels, preds, strict=True):
            m.update([lab], [p])
        assert m.get()[1] == pytest.approx(want, rel=1e-6)


def test_mse_multi_output_per_sample_mean():
    lab, pred = onp.arange(12.0).reshape(3, 4), onp.zeros((3, 4))
    m = metric.MSE()
    m.update([lab], [pred])
    assert m.get()[1] == pytest.approx((lab ** 2).mean(1).mean())
    assert m.num_inst == 3


def test_cross_entropy_and_perplexity():
    labels, preds = batches(c=5, seed=5)
    labels[1][:3] = -1
    ce, ppl = metric.CrossEntropy(ignore_label=-1), metric.Perplexity(-1)
    total, count = 0.0, 0
    for lab, p in zip(labels, preds, strict=True):
        ce.update([lab], [p])
        ppl.update([lab], [p])
        keep = lab != -1
        total += -onp.log(p[onp.arange(len(lab))[keep], lab[keep]]).sum()
        count += keep.sum()
    assert ce.get()[1] == pytest.approx(total / count, rel=1e-6)
    assert ppl.get()[1] == pytest.approx(math.exp(total / count), rel=1e-6)
    logits = onp.log(preds[0]) + 3.0
    ce2 = metric.CrossEntropy(from_logits=True)
    ce2.update([labels[0]], [logits])
    ce3 = metric.create("ce")
    ce3.update([labels[0]], [preds[0]])
    assert ce2.get()[1] == pytest.approx(ce3.get()[1], rel=1e-5)


def test_perplexity_mxnet_example():
    p = metric.Perplexity(ignore_label=None)
    p.update([onp.array([0, 1, 1])], [onp.array([[0.3, 0.7], [0, 1.0], [0.4, 0.6]])])
    assert p.get()[1] == pytest.approx(1.7710976285155853)


def test_pearson_streaming_equals_corrcoef():
    rs = onp.random.RandomState(6)
    x = rs.randn(3, 20)
    y = 0.5 * x + rs.randn(3, 20)
    m = metric.create("pearsonr")
    for a, b in zip(x, y, strict=True):
        m.update([a], [jnp.asarray(b)])
    assert m.get()[1] == pytest.approx(onp.corrcoef(x.ravel(), y.ravel())[0, 1], rel=1e-6)


def test_loss_metric():
    m = metric.Loss()
    m.update(None, [jnp.array([1.0, 2.0]), jnp.array([3.0])])
    assert m.get() == ("loss", pytest.approx(2.0))


def test_composite_create_custom():
    labels, preds = batches()
    comp = metric.create(["acc", "ce"])
    assert isinstance(comp, metric.CompositeEvalMetric)
    comp.add(metric.np(lambda lab, p: float((p.argmax(1) == lab).mean()), name="npacc"))
    comp.update([labels[0]], [preds[0]])
    names, values = comp.get()
    assert names == ["accuracy", "cross-entropy", "npacc"]
    assert values[0] == pytest.approx(values[2])
    assert dict(comp.get_name_value())["accuracy"] == values[0]
    assert comp.get_metric(0).name == "accuracy"
    with pytest.raises(ValueError, match="out of range"):
        comp.get_metric(5)
    cm = metric.CustomMetric(lambda lab, p: (float(abs(lab - p).sum()), lab.size))
    cm.update([onp.ones(4)], [onp.zeros(4)])
    assert cm.get() == ("custom(<lambda>)", 1.0)
    assert metric.create(lambda lab, p: 0.5).get_name_value()[0][0] == "custom(<lambda>)"
    assert metric.create("top_k_accuracy", top_k=2).name == "top_k_accuracy_2"


def test_update_dict_and_config():
    m = metric.Accuracy(output_names=["out"], label_names=["lab"])
    m.update_dict({"lab": onp.array([1, 0])}, {"out": onp.array([[0.1, 0.9], [0.2, 0.8]]), "x": None})
    assert m.get()[1] == 0.5
    assert m.get_config()["metric"] == "Accuracy" and m.get_config()["axis"] == 1
    assert "accuracy" in str(m)


def test_errors():
    with pytest.raises(ValueError, match="Shape of labels 2 does not match shape of predictions 1"):
        metric.Accuracy().update([onp.zeros(2), onp.zeros(2)], [onp.zeros(2)])
    with pytest.raises(ValueError, match="Cannot find metric 'nope'"):
        metric.create("nope")
    with pytest.raises(ValueError, match="Wrong label for binary classification"):
        metric.F1().update([onp.array([0, 2])], [onp.array([0.1, 0.9])])
    with pytest.raises(ValueError, match="class_type"):
        metric.F1(class_type="ternary")
    with pytest.raises(ValueError, match="same number of elements"):
        metric.MAE().update([onp.zeros(3)], [onp.zeros(4)])
    with pytest.raises(ValueError, match="does not match prediction shape"):
        metric.CrossEntropy().update([onp.zeros(3)], [onp.ones((4, 2))])
