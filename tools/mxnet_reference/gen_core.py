"""Regenerate tests/reference/core/mx_reference_np.npz: layer outputs, losses, gradients, a LeNet SGD step.

Run with real MXNet 1.9.1 (see README, "Reference files"):

    /tmp/mx/bin/python tools/mxnet_reference/gen_core.py

Everything runs in numpy-interface mode (``npx.set_np()``). Inputs and weights come from one
NumPy stream, ``RandomState(42)``, drawn in the order of the cases below, and are stored next to
the outputs (``<case>_weight``, ``<case>_bias``); ``x8`` is ``RandomState(7).randn(1, 2, 8, 8)``.
What depends on MXNet's own generator (initializer statistics, dropout statistics) is seeded with
``mx.random.seed(0)`` and is only compared statistically by the tests.
"""

from __future__ import annotations

import io
import json
import sys
import zipfile
from pathlib import Path

import mxnet as mx
import numpy as onp
from mxnet import autograd, gluon, np, npx

OUT = Path(__file__).resolve().parents[2] / "tests" / "reference" / "core" / "mx_reference_np.npz"
F32 = "float32"

CONVS = {  # case -> Conv2D arguments (4 filters over the 3 channels of x)
    "conv_k3": dict(kernel_size=3),
    "conv_k3_s2_p1": dict(kernel_size=3, strides=2, padding=1),
    "conv_k3_d2": dict(kernel_size=3, dilation=2),
    "conv_k5_relu": dict(kernel_size=5, activation="relu"),
    "conv_k3_nobias": dict(kernel_size=3, use_bias=False),
}
POOLS_X = {  # case -> layer, on x (2, 3, 7, 7)
    "maxpool_2_2_out": lambda: gluon.nn.MaxPool2D(2, 2),
    "maxpool_2_2_ceil_out": lambda: gluon.nn.MaxPool2D(2, 2, ceil_mode=True),
    "maxpool_3_2_p1_out": lambda: gluon.nn.MaxPool2D(3, 2, 1),
    "maxpool_3_2_p1_ceil_out": lambda: gluon.nn.MaxPool2D(3, 2, 1, ceil_mode=True),
    "maxpool_default_out": lambda: gluon.nn.MaxPool2D(),
    "avgpool_3_2_p1_incl_out": lambda: gluon.nn.AvgPool2D(3, 2, 1, count_include_pad=True),
    "avgpool_3_2_p1_excl_out": lambda: gluon.nn.AvgPool2D(3, 2, 1, count_include_pad=False),
    "avgpool_2_2_ceil_incl_out": lambda: gluon.nn.AvgPool2D(2, 2, ceil_mode=True, count_include_pad=True),
    "avgpool_2_2_ceil_excl_out": lambda: gluon.nn.AvgPool2D(2, 2, ceil_mode=True, count_include_pad=False),
    "globalavgpool_out": lambda: gluon.nn.GlobalAvgPool2D(),
    "globalmaxpool_out": lambda: gluon.nn.GlobalMaxPool2D(),
}
POOLS_X8 = {  # case -> layer, on x8 (1, 2, 8, 8): the last ceil-mode window runs past the padded edge
    "x8_avgpool_3_2_p1_ceil_incl_out": lambda: gluon.nn.AvgPool2D(3, 2, 1, ceil_mode=True,
                                                                  count_include_pad=True),
    "x8_avgpool_3_2_p1_ceil_excl_out": lambda: gluon.nn.AvgPool2D(3, 2, 1, ceil_mode=True,
                                                                  count_include_pad=False),
    "x8_avgpool_3_2_p1_incl_out": lambda: gluon.nn.AvgPool2D(3, 2, 1, count_include_pad=True),
    "x8_maxpool_3_2_p1_ceil_out": lambda: gluon.nn.MaxPool2D(3, 2, 1, ceil_mode=True),
    "x8_maxpool_3_2_p1_out": lambda: gluon.nn.MaxPool2D(3, 2, 1),
}


def f32(a) -> onp.ndarray:
    return onp.asarray(a.asnumpy() if hasattr(a, "asnumpy") else a, dtype=F32)


def normal(rs: onp.random.RandomState, shape, scale: float) -> onp.ndarray:
    """Standard normal draws rounded to float32, then scaled in float32."""
    return rs.randn(*shape).astype(F32) * onp.float32(scale)


def normal64(rs: onp.random.RandomState, shape, scale: float) -> onp.ndarray:
    """Standard normal draws scaled in float64, then rounded to float32."""
    return (rs.randn(*shape) * scale).astype(F32)


def layers(rs: onp.random.RandomState, ref: dict) -> None:
    x = np.array(ref["x"])
    for case, kw in CONVS.items():
        layer = gluon.nn.Conv2D(4, in_channels=3, **kw)
        layer.initialize()
        w = normal(rs, layer.weight.shape, 0.2)
        layer.weight.set_data(np.array(w))
        ref[f"{case}_weight"] = w
        if kw.get("use_bias", True):
            b = normal(rs, (4,), 0.1)
            layer.bias.set_data(np.array(b))
            ref[f"{case}_bias"] = b
        ref[f"{case}_out"] = f32(layer(x))
    for case, make in POOLS_X.items():
        ref[case] = f32(make()(x))
    for case, flatten, in_units in [("dense_flat", True, 147), ("dense_noflat", False, 7)]:
        layer = gluon.nn.Dense(5, flatten=flatten, in_units=in_units)
        layer.initialize()
        w = normal64(rs, (5, in_units), 0.1)
        b = normal64(rs, (5,), 0.1)
        layer.weight.set_data(np.array(w))
        layer.bias.set_data(np.array(b))
        ref[f"{case}_weight"], ref[f"{case}_bias"] = w, b
        ref[f"{case}_out"] = f32(layer(x))
    ref["dense_noflat_out_shape"] = onp.array(ref["dense_noflat_out"].shape, dtype=onp.int64)


def batchnorm(rs: onp.random.RandomState, ref: dict) -> None:
    """BatchNorm: eval, train forward (no running-stat update), backward (update), the mode switches."""
    x = np.array(ref["x"])
    bn = gluon.nn.BatchNorm()
    bn.initialize()
    bn(x)
    gamma = 1 + normal(rs, (3,), 0.1)
    beta = normal64(rs, (3,), 0.1)
    bn.gamma.set_data(np.array(gamma))
    bn.beta.set_data(np.array(beta))
    ref["bn_gamma"], ref["bn_beta"] = gamma, beta
    ref["bn_eval_before_out"] = f32(bn(x))
    with autograd.record():
        y = bn(x)
    ref["bn_train_out"] = f32(y)
    ref["bn_running_mean_after_fwd_only"] = f32(bn.running_mean.data())
    ref["bn_running_var_after_fwd_only"] = f32(bn.running_var.data())
    y.backward()
    ref["bn_grad_gamma"] = f32(bn.gamma.grad())
    ref["bn_grad_beta"] = f32(bn.beta.grad())
    ref["bn_running_mean_after1"] = f32(bn.running_mean.data())
    ref["bn_running_var_after1"] = f32(bn.running_var.data())
    ref["bn_eval_after_out"] = f32(bn(x))
    with autograd.record(train_mode=False):
        ref["bn_record_trainmodeFalse_out"] = f32(bn(x))
    with autograd.train_mode():
        ref["bn_train_mode_no_record_out"] = f32(bn(x))
    ref["bn_running_mean_after2"] = f32(bn.running_mean.data())


def dropout(ref: dict) -> None:
    x = np.array(ref["x"])
    layer = gluon.nn.Dropout(0.5)
    ref["dropout_eval_out"] = f32(layer(x))
    with autograd.record():
        y = layer(np.ones((200, 500))).asnumpy()
    kept = y[y != 0]
    ref["dropout_train_stats"] = onp.array([(y == 0).mean(), kept.min(), kept.max()], dtype=onp.float64)


def losses(rs: onp.random.RandomState, ref: dict) -> None:
    logits = rs.randn(6, 10).astype(F32)
    labels = rs.randint(0, 10, 6).astype(onp.int32)
    weight = rs.rand(6, 1).astype(F32)
    ref["loss_logits"], ref["loss_labels"], ref["sce_sample_weight"] = logits, labels, weight
    sce = gluon.loss.SoftmaxCrossEntropyLoss()
    lg, lb = np.array(logits), np.array(labels, dtype="int32")
    ref["sce_sparse_out"] = f32(sce(lg, lb))
    ref["sce_sparse_float_labels_out"] = f32(sce(lg, np.array(labels.astype(F32))))
    onehot = onp.eye(10, dtype=F32)[labels]
    ref["sce_dense_out"] = f32(gluon.loss.SoftmaxCrossEntropyLoss(sparse_label=False)(lg, np.array(onehot)))
    shifted = logits.astype(onp.float64) - logits.max(-1, keepdims=True)
    logp = (shifted - onp.log(onp.exp(shifted).sum(-1, keepdims=True))).astype(F32)  # log-probabilities
    ref["sce_fromlogits_out"] = f32(gluon.loss.SoftmaxCrossEntropyLoss(from_logits=True)(np.array(logp), lb))
    ref["sce_weighted_out"] = f32(sce(lg, lb, np.array(weight)))
    pred, label = rs.randn(4, 3).astype(F32), rs.randn(4, 3).astype(F32)
    ref["l2_pred"], ref["l2_label"] = pred, label
    ref["l2_out"] = f32(gluon.loss.L2Loss()(np.array(pred), np.array(label)))
    ref["l1_out"] = f32(gluon.loss.L1Loss()(np.array(pred), np.array(label)))
    lg.attach_grad()
    with autograd.record():
        out = sce(lg, lb)
    out.backward()
    ref["sce_grad_logits"] = f32(lg.grad)


def stats(a: onp.ndarray) -> onp.ndarray:
    return onp.array([a.min(), a.max(), a.mean(), a.std()], dtype=F32)


def initializers(ref: dict) -> None:
    dense = gluon.nn.Dense(1000, in_units=1000)
    dense.initialize()
    ref["init_dense_w_stats"] = stats(dense.weight.data().asnumpy())
    ref["init_dense_bias_absmax"] = onp.array(onp.abs(dense.bias.data().asnumpy()).max(), dtype=F32)
    conv = gluon.nn.Conv2D(64, 5, in_channels=32)
    conv.initialize()
    ref["init_conv_w_stats"] = stats(conv.weight.data().asnumpy())
    bn = gluon.nn.BatchNorm(in_channels=4)
    bn.initialize()
    ref["init_bn"] = onp.stack([f32(p.data()) for p in (bn.gamma, bn.beta, bn.running_mean, bn.running_var)])
    deferred = gluon.nn.Dense(3)
    deferred.initialize()
    try:
        deferred.weight.data()
    except gluon.parameter.DeferredInitializationError as e:
        ref["deferred_init_error"] = onp.array(f"{type(e).__name__}: {str(e)[:200]}")
    else:
        raise AssertionError("weight.data() before the first forward did not raise")
    deferred(np.ones((2, 4)))
    ref["deferred_dense_weight_shape"] = onp.array(deferred.weight.shape, dtype=onp.int64)


def sgd_step(rs: onp.random.RandomState, ref: dict) -> None:
    """Dense(2, in_units=3, no bias), L2Loss, Trainer('sgd', lr 0.1).step(4)."""
    w0 = normal(rs, (2, 3), 0.5)
    x, y = rs.randn(4, 3).astype(F32), rs.randn(4, 2).astype(F32)
    layer = gluon.nn.Dense(2, in_units=3, use_bias=False)
    layer.initialize()
    layer.weight.set_data(np.array(w0))
    trainer = gluon.Trainer(layer.collect_params(), "sgd", {"learning_rate": 0.1})
    with autograd.record():
        loss = gluon.loss.L2Loss()(layer(np.array(x)), np.array(y))
    loss.backward()
    grad = f32(layer.weight.grad())
    trainer.step(4)
    ref.update(step_w0=w0, step_x=x, step_y=y, step_grad_w=grad, step_w1=f32(layer.weight.data()),
               step_rescale_grad=onp.array(trainer._optimizer.rescale_grad, dtype=onp.float64),
               step_expected_w1=(w0 - onp.float32(0.1) * grad / onp.float32(4)).astype(F32))
    sgd = mx.optimizer.SGD()
    ref["optimizer_defaults"] = onp.array(json.dumps({
        "wd": str(sgd.wd), "momentum": str(sgd.momentum), "clip_gradient": str(sgd.clip_gradient),
        "lazy_update": str(sgd.lazy_update), "multi_precision": str(sgd.multi_precision)}))


def lenet(rs: onp.random.RandomState, ref: dict) -> None:
    """The seed's LeNet: logits, per-sample loss, gradients, and parameters after one SGD step."""
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Conv2D(6, 5, activation="relu"), gluon.nn.MaxPool2D(2, 2),
            gluon.nn.Conv2D(16, 3, activation="relu"), gluon.nn.MaxPool2D(2, 2),
            gluon.nn.Dense(120, activation="relu"), gluon.nn.Dense(84, activation="relu"), gluon.nn.Dense(10))
    net.initialize()
    x = rs.rand(8, 1, 28, 28).astype(F32)
    y = rs.randint(0, 10, 8).astype(onp.int32)
    net(np.array(x))
    params = net._collect_params_with_prefix()
    ref["lenet_param_shapes"] = onp.array(json.dumps({k: list(p.shape) for k, p in sorted(params.items())}))
    for k in sorted(params):
        lim = 0.01 if k.endswith("bias") else 0.07
        v = rs.uniform(-lim, lim, params[k].shape).astype(F32)
        params[k].set_data(np.array(v))
        ref[f"lenet_param0__{k}"] = v
    ref["lenet_x"], ref["lenet_y"] = x, y
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    with autograd.record():
        logits = net(np.array(x))
        loss = gluon.loss.SoftmaxCrossEntropyLoss()(logits, np.array(y, dtype="int32"))
    loss.backward()
    ref["lenet_logits"], ref["lenet_loss"] = f32(logits), f32(loss)
    for k in sorted(params):
        ref[f"lenet_grad__{k}"] = f32(params[k].grad())
    trainer.step(8)
    for k in sorted(params):
        ref[f"lenet_param1__{k}"] = f32(params[k].data())


def save_npz(path: Path, arrays: dict) -> None:
    """An ``.npz`` whose bytes depend on the arrays only (fixed member timestamps, sorted, deflated)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for key in sorted(arrays):
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            buf = io.BytesIO()
            onp.lib.format.write_array(buf, onp.asanyarray(arrays[key]), allow_pickle=False)
            zf.writestr(info, buf.getvalue())


def main() -> int:
    assert mx.__version__ == "1.9.1", f"MXNet 1.9.1 expected, found {mx.__version__}"
    npx.set_np()
    mx.random.seed(0)
    ref: dict[str, onp.ndarray] = {}
    rs = onp.random.RandomState(42)
    ref["x"] = rs.randn(2, 3, 7, 7).astype(F32)
    layers(rs, ref)
    batchnorm(rs, ref)
    dropout(ref)
    losses(rs, ref)
    initializers(ref)
    sgd_step(rs, ref)
    lenet(rs, ref)
    ref["x8"] = onp.random.RandomState(7).randn(1, 2, 8, 8).astype(F32)
    for case, make in POOLS_X8.items():
        ref[case] = f32(make()(np.array(ref["x8"])))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    save_npz(OUT, ref)
    print(f"wrote {len(ref)} arrays to {OUT} ({OUT.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
