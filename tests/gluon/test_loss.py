"""gluon.loss against MXNet 1.9.1's outputs and NumPy transcriptions of its formulas."""

from __future__ import annotations

import itertools
import math

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import autograd, gluon
from framework.gluon import loss as gloss

RS = onp.random.RandomState(0)
PRED = RS.randn(4, 3).astype("float32")
LABEL = RS.randn(4, 3).astype("float32")
SW = RS.rand(4, 1).astype("float32")


def log_softmax(x, axis=-1):
    x = x - x.max(axis, keepdims=True)
    return x - onp.log(onp.exp(x).sum(axis, keepdims=True))


def softplus(x):
    return onp.logaddexp(x, 0)


def test_softmax_ce_matches_mxnet(ref):
    logits, labels = ref["loss_logits"], ref["loss_labels"]
    sce = gloss.SoftmaxCrossEntropyLoss()
    out = sce(jnp.asarray(logits), jnp.asarray(labels))
    assert out.shape == (6,)
    onp.testing.assert_allclose(out, ref["sce_sparse_out"], rtol=1e-5)
    onp.testing.assert_allclose(sce(logits, labels.astype("float32")), ref["sce_sparse_float_labels_out"],
                                rtol=1e-5)
    onehot = onp.eye(10, dtype="float32")[labels]
    onp.testing.assert_allclose(gloss.SoftmaxCELoss(sparse_label=False)(logits, onehot), ref["sce_dense_out"],
                                rtol=1e-5)
    onp.testing.assert_allclose(gloss.SoftmaxCrossEntropyLoss(from_logits=True)(log_softmax(logits), labels),
                                ref["sce_fromlogits_out"], rtol=1e-5)
    weighted = sce(logits, labels, sample_weight=ref["sce_sample_weight"])       # keyword, as in MXNet
    onp.testing.assert_allclose(weighted, ref["sce_weighted_out"], rtol=1e-5)
    onp.testing.assert_allclose(sce(logits, labels, ref["sce_sample_weight"]), ref["sce_weighted_out"],
                                rtol=1e-5)


def test_softmax_ce_gradient_matches_mxnet(ref):
    sce = gloss.SoftmaxCrossEntropyLoss()
    grad = jax.grad(lambda x: sce.functional_call({}, x, jnp.asarray(ref["loss_labels"])).sum())(
        jnp.asarray(ref["loss_logits"]))
    onp.testing.assert_allclose(grad, ref["sce_grad_logits"], rtol=1e-5, atol=1e-7)


def test_softmax_ce_records_under_autograd(ref):
    net = gluon.nn.Dense(10, in_units=10, use_bias=False)
    net.initialize()
    net.weight.set_data(jnp.eye(10))
    x, y = jnp.asarray(ref["loss_logits"]), jnp.asarray(ref["loss_labels"])
    with autograd.record():
        loss = gloss.SoftmaxCrossEntropyLoss()(net(x), y)
    loss.backward()
    # d/dW sum(loss(x @ W.T)) = (softmax - onehot).T @ x
    onp.testing.assert_allclose(net.weight.grad(), ref["sce_grad_logits"].T @ ref["loss_logits"], rtol=1e-4,
                                atol=1e-5)


def test_l2_l1_match_mxnet(ref):
    p, lab = ref["l2_pred"], ref["l2_label"]
    onp.testing.assert_allclose(gloss.L2Loss()(p, lab), ref["l2_out"], rtol=1e-6)
    onp.testing.assert_allclose(gloss.L1Loss()(p, lab), ref["l1_out"], rtol=1e-6)


def test_l2_weighting_and_batch_axis():
    out = gloss.L2Loss(weight=3.0)(PRED, LABEL, SW)
    onp.testing.assert_allclose(out, (1.5 * SW * (PRED - LABEL) ** 2).mean(1), rtol=1e-6)
    out = gloss.L1Loss(batch_axis=1)(PRED, LABEL.ravel())            # label reshaped like pred
    onp.testing.assert_allclose(out, onp.abs(PRED - LABEL).mean(0), rtol=1e-6)
    x = RS.randn(2, 3, 4).astype("float32")
    onp.testing.assert_allclose(gloss.L2Loss()(x, onp.zeros_like(x)), 0.5 * (x ** 2).mean((1, 2)), rtol=1e-6)


@pytest.mark.parametrize("from_sigmoid", [False, True])
@pytest.mark.parametrize("pos_weight", [None, 2.0])
def test_sigmoid_bce(from_sigmoid, pos_weight):
    label = (RS.rand(4, 3) > 0.5).astype("float32")
    x = 1 / (1 + onp.exp(-PRED)) if from_sigmoid else PRED
    pw = 1.0 if pos_weight is None else pos_weight
    prob = 1 / (1 + onp.exp(-PRED.astype("float64")))
    want = -(pw * label * onp.log(prob + (1e-12 if from_sigmoid else 0)) +
             (1 - label) * onp.log(1 - prob + (1e-12 if from_sigmoid else 0)))
    kwargs = {} if pos_weight is None else {"pos_weight": jnp.full((4, 3), pos_weight)}
    out = gloss.SigmoidBCELoss(from_sigmoid=from_sigmoid)(x, label, **kwargs)
    onp.testing.assert_allclose(out, want.mean(1), rtol=1e-5)


def test_kl_div():
    label = onp.exp(log_softmax(LABEL))
    want = (label * (onp.log(label + 1e-12) - log_softmax(PRED))).mean(1)
    onp.testing.assert_allclose(gloss.KLDivLoss()(log_softmax(PRED), label), want, rtol=1e-5)
    onp.testing.assert_allclose(gloss.KLDivLoss(from_logits=False)(PRED, label), want, rtol=1e-5)


def test_huber_hinge_logistic():
    d = onp.abs(LABEL - PRED)
    huber = onp.where(d > 0.5, d - 0.25, d ** 2)
    onp.testing.assert_allclose(gloss.HuberLoss(rho=0.5)(PRED, LABEL), huber.mean(1), rtol=1e-6)
    sign = onp.sign(LABEL)
    hinge = onp.maximum(0, 1.5 - PRED * sign)
    onp.testing.assert_allclose(gloss.HingeLoss(margin=1.5)(PRED, sign), hinge.mean(1), rtol=1e-6)
    onp.testing.assert_allclose(gloss.SquaredHingeLoss(margin=1.5)(PRED, sign), (hinge ** 2).mean(1),
                                rtol=1e-6)
    logistic = onp.log1p(onp.exp(-PRED * sign))
    onp.testing.assert_allclose(gloss.LogisticLoss()(PRED, sign), logistic.mean(1), rtol=1e-5)
    onp.testing.assert_allclose(gloss.LogisticLoss(label_format="binary")(PRED, (sign + 1) / 2),
                                logistic.mean(1), rtol=1e-5)


def test_triplet_cosine_poisson():
    pos, neg = RS.randn(4, 3).astype("float32"), RS.randn(4, 3).astype("float32")
    want = onp.maximum(0, ((pos - PRED) ** 2 - (neg - PRED) ** 2).sum(1) + 1.0)
    onp.testing.assert_allclose(gloss.TripletLoss()(PRED, pos, neg), want, rtol=1e-5)

    lab = onp.array([1, -1, 1, -1], "float32")
    cos = (PRED * LABEL).sum(1) / (onp.linalg.norm(PRED, axis=1) * onp.linalg.norm(LABEL, axis=1))
    want = onp.where(lab == 1, 1 - cos, onp.maximum(0, cos - 0.1))  # (N,): MXNet 2.0, not 1.9.1 (N, 1)
    onp.testing.assert_allclose(gloss.CosineEmbeddingLoss(margin=0.1)(PRED, LABEL, lab), want, rtol=1e-5)

    target = RS.poisson(2.0, size=(4, 3)).astype("float32")
    want = (onp.exp(PRED) - target * PRED).mean()
    onp.testing.assert_allclose(gloss.PoissonNLLLoss()(PRED, target), want, rtol=1e-5)
    rate = onp.exp(PRED)
    stirling = onp.where(target > 1, target * onp.log(onp.maximum(target, 1)) - target +
                         0.5 * onp.log(2 * onp.maximum(target, 1) * math.pi), 0)
    want = (rate - target * onp.log(rate + 1e-8) + stirling).mean()
    full = gloss.PoissonNLLLoss(from_logits=False, compute_full=True)
    onp.testing.assert_allclose(full(rate, target), want, rtol=1e-5)


def ctc_brute_force(logits, label, blank):
    """-log sum over every alignment of length T that collapses to ``label``."""
    logp = log_softmax(logits.astype("float64"))
    t, c = logp.shape
    total = -onp.inf
    for path in itertools.product(range(c), repeat=t):
        collapsed = [k for i, k in enumerate(path) if (i == 0 or k != path[i - 1]) and k != blank]
        if collapsed == list(label):
            total = onp.logaddexp(total, sum(logp[i, k] for i, k in enumerate(path)))
    return -total


def test_ctc_against_brute_force():
    logits = RS.randn(2, 4, 3).astype("float32")          # N=2, T=4, C=3 (blank = 2)
    labels = onp.array([[0, 1], [1, -1]], "int32")        # second label padded with -1
    want = [ctc_brute_force(logits[0], [0, 1], 2), ctc_brute_force(logits[1], [1], 2)]
    ctc = gloss.CTCLoss()
    onp.testing.assert_allclose(ctc(logits, labels), want, rtol=1e-4)
    # TNC/TN layouts, explicit lengths (shorter inputs) and sample weights, in one compiled call
    short = [ctc_brute_force(logits[0, :3], [0, 1], 2), ctc_brute_force(logits[1, :2], [1], 2)]
    tnc = gloss.CTCLoss(layout="TNC", label_layout="TN")
    padded = onp.array([[0, 1], [1, 0]], "int32").T
    out = tnc(logits.transpose(1, 0, 2), padded, pred_lengths=onp.array([3, 2]),
              label_lengths=onp.array([2, 1]), sample_weight=onp.array([2.0, 0.5], "float32"))
    onp.testing.assert_allclose(out, [2 * short[0], 0.5 * short[1]], rtol=1e-4)


def test_repr_and_errors():
    assert repr(gloss.L2Loss()) == "L2Loss(batch_axis=0, w=1.0)"
    with pytest.raises(TypeError, match="weight must be a number"):
        gloss.L1Loss(weight="heavy")
    with pytest.raises(ValueError, match="label_format can only be signed or binary"):
        gloss.LogisticLoss(label_format="01")
    with pytest.raises(ValueError, match="Only 'NTC' and 'TNC' layouts"):
        gloss.CTCLoss(layout="NCT")
    with pytest.raises(ValueError, match="sparse labels of shape"):
        gloss.SoftmaxCrossEntropyLoss()(PRED, onp.zeros(5))
    with pytest.raises(ValueError, match="same number of elements"):
        gloss.L2Loss()(PRED, onp.zeros(5))
    with pytest.raises(TypeError, match="L2Loss"):
        gloss.L2Loss()(PRED, LABEL, bogus=1)
