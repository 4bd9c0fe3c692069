"""Reference files for ``gluon.contrib`` made by real MXNet 1.9.1 (run in the MXNet side venv):

    /tmp/mx/bin/python tools/mxnet_reference/gen_contrib.py [nn] [estimator] [rnn] [cnn]
    python tools/mxnet_reference/manifest.py tests/reference/contrib \
        --generator tools/mxnet_reference/gen_contrib.py --mxnet-version 1.9.1

Writes to ``tests/reference/contrib/``:

- ``nn.npz``: ``contrib.nn`` layers with seeded weights (RandomState per case): a HybridConcurrent
  (Dense + Dense + Identity, axis 1) inside a HybridSequential, a Concurrent, SyncBatchNorm in training
  (output, gradients of ``sum(y * w)``, running statistics committed at backward, then inference),
  PixelShuffle1D/2D/3D (output and input gradient), SparseEmbedding (output, dense gradient);
  parameter names both as 1.x prefixes and as ``save_parameters`` writes them.

- ``estimator.npz``: ``contrib.estimator`` runs on synthetic 3-class data (seeded; a tanh MLP with
  seeded weights, SGD, batches of 16 in order) -- ``early``: hybridized, validation each epoch,
  CheckpointHandler(save_best on the validation loss, mode 'min', max_checkpoints 3) and
  EarlyStoppingHandler(validation loss, mode 'min', patience 2) for up to 40 epochs; ``batches``: 7
  batches, LoggingHandler(log_interval=2), CheckpointHandler(batch_period=3, epoch_period=None,
  max_checkpoints=2), not hybridized; ``resume``: 3 epochs with checkpoints, then a fresh net resumed
  from them for ``epochs=5``. For each: the files written, the metrics after each epoch, the log
  lines, the final parameters, and the early stopping epoch.

- ``rnn.npz``: ``contrib.rnn`` cells with seeded weights unrolled over seeded inputs (``NTC``):
  outputs, final states and the gradients of ``sum(out ** 2) + sum(states[-1] ** 2)`` for each
  parameter (conv RNN/LSTM/GRU cells in 1-3 D, dilations, 'relu', 'sigmoid' and 'softrelu'
  activations; LSTMPCell; MXNet 1.9.1 on the CPU runs no channel-last convolution and no Block
  activation in these cells, so those are checked against their channel-first and named
  equivalents), and ``dynamic_unroll`` of an LSTMCell with ``valid_length``.

- ``data.npz``: ``contrib.data.IntervalSampler`` orders for a few (length, interval, rollover).

- ``cnn.npz``: ``contrib.cnn`` layers with seeded weights (offsets of a few pixels, moving samples
  across and out of the image): DeformableConvolution (outputs and the gradients of ``sum(y * w)``
  for the parameters and the input) and ModulatedDeformableConvolution (outputs only: MXNet 1.9.1
  has no CPU backward for it); the operators on hand-made offsets that land on the boundary rules.

Each section is documented at its function. ``tests/gluon/contrib/`` builds the same networks.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

os.environ.setdefault("MXNET_STORAGE_FALLBACK_LOG_VERBOSE", "0")

import mxnet as mx  # noqa: E402
import numpy as np  # noqa: E402
from mxnet import autograd, gluon  # noqa: E402
from mxnet.gluon import nn  # noqa: E402
from mxnet.gluon.contrib import nn as cnn  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "tests" / "reference" / "contrib"


def fill(net, seed):
    """Every parameter from RandomState(seed), in sorted structural-name order."""
    rs = np.random.RandomState(seed)
    params = net._collect_params_with_prefix()
    for name in sorted(params):
        p = params[name]
        p.set_data(mx.nd.array(rs.uniform(-0.5, 0.5, p.shape).astype(np.float32)))


def structural_names(net, tmp):
    net.save_parameters(str(tmp))
    names = sorted(mx.nd.load(str(tmp)).keys())
    tmp.unlink()
    return np.array(names)


def grads_of(net, x, weight=None):
    """Output and gradients of sum(y ** 2) (or sum(y * weight)) for the parameters and the input."""
    x = mx.nd.array(x)
    x.attach_grad()
    with autograd.record():
        y = net(x)
        loss = (y * mx.nd.array(weight)).sum() if weight is not None else (y ** 2).sum()
    loss.backward()
    grads = {f"grad:{k}": p.grad().tostype("default").asnumpy()
             for k, p in net._collect_params_with_prefix().items() if p.grad_req != "null"}
    return y.asnumpy(), x.grad.asnumpy(), grads


def gen_nn() -> None:
    """``nn.npz``: keys ``<case>:...``; see the module docstring."""
    out = {}
    tmp = OUT / "_tmp.params"
    # HybridConcurrent in a HybridSequential, 1.x name scopes
    net = nn.HybridSequential(prefix="net_")
    with net.name_scope():
        conc = cnn.HybridConcurrent(axis=1)
        with conc.name_scope():
            conc.add(nn.Dense(4, activation="relu"), nn.Dense(3), cnn.Identity())
        net.add(conc, nn.Dense(2))
    net.initialize()
    x = np.random.RandomState(1).uniform(-1, 1, (5, 6)).astype(np.float32)
    net(mx.nd.array(x))
    fill(net, 2)
    y, gx, grads = grads_of(net, x)
    out.update({"hconc:x": x, "hconc:y": y, "hconc:gx": gx,
                "hconc:prefixed": np.array(sorted(net.collect_params().keys())),
                "hconc:structural": structural_names(net, tmp), "hconc:conc_prefix": np.array(conc.prefix)})
    out.update({f"hconc:{k}": v for k, v in grads.items()})
    for k, p in net._collect_params_with_prefix().items():
        out[f"hconc:param:{k}"] = p.data().asnumpy()
    # Concurrent (not hybrid), default axis -1
    conc = cnn.Concurrent(prefix="cc_")
    with conc.name_scope():
        conc.add(nn.Dense(3, flatten=False), nn.Dense(2, flatten=False))
    conc.initialize()
    x = np.random.RandomState(3).uniform(-1, 1, (2, 4, 5)).astype(np.float32)
    conc(mx.nd.array(x))
    fill(conc, 4)
    y, gx, grads = grads_of(conc, x)
    out.update({"conc:x": x, "conc:y": y, "conc:gx": gx,
                "conc:prefixed": np.array(sorted(conc.collect_params().keys())),
                "conc:structural": structural_names(conc, tmp)})
    out.update({f"conc:{k}": v for k, v in grads.items()})
    for k, p in conc._collect_params_with_prefix().items():
        out[f"conc:param:{k}"] = p.data().asnumpy()
    # SyncBatchNorm, training then inference
    bn = cnn.SyncBatchNorm(num_devices=1)
    bn.initialize()
    rs = np.random.RandomState(5)
    x = rs.normal(1.0, 2.0, (4, 3, 2, 2)).astype(np.float32)
    w = rs.uniform(-1, 1, x.shape).astype(np.float32)
    bn(mx.nd.array(x))
    bn.gamma.set_data(mx.nd.array(rs.uniform(0.5, 1.5, 3)))
    bn.beta.set_data(mx.nd.array(rs.uniform(-0.5, 0.5, 3)))
    out.update({"sbn:x": x, "sbn:w": w, "sbn:gamma": bn.gamma.data().asnumpy(),
                "sbn:beta": bn.beta.data().asnumpy(),
                "sbn:prefixed": np.array(sorted(bn.collect_params().keys()))})
    y, gx, grads = grads_of(bn, x, w)
    out.update({"sbn:y": y, "sbn:gx": gx, "sbn:running_mean": bn.running_mean.data().asnumpy(),
                "sbn:running_var": bn.running_var.data().asnumpy(),
                "sbn:y_infer": bn(mx.nd.array(x)).asnumpy()})
    out.update({f"sbn:{k}": v for k, v in grads.items()})
    # pixel shuffles
    for case, layer, shape in (("ps1", cnn.PixelShuffle1D(3), (2, 6, 4)),
                               ("ps2", cnn.PixelShuffle2D((2, 3)), (1, 12, 3, 5)),
                               ("ps3", cnn.PixelShuffle3D((2, 1, 3)), (2, 12, 2, 3, 2))):
        rs = np.random.RandomState(len(shape))
        x = rs.uniform(-1, 1, shape).astype(np.float32)
        y = layer(mx.nd.array(x)).asnumpy()
        w = rs.uniform(-1, 1, y.shape).astype(np.float32)
        _, gx, _ = grads_of(layer, x, w)
        out.update({f"{case}:x": x, f"{case}:y": y, f"{case}:w": w, f"{case}:gx": gx})
    # SparseEmbedding (row_sparse in MXNet: a Trainer is needed to read it)
    emb = cnn.SparseEmbedding(10, 3)
    emb.initialize()
    gluon.Trainer(emb.collect_params(), "sgd")
    weight = np.random.RandomState(6).uniform(-1, 1, (10, 3)).astype(np.float32)
    emb.weight.set_data(mx.nd.array(weight).tostype("row_sparse"))
    idx = np.array([[1, 2, 9], [2, 5, 1]], dtype=np.float32)
    with autograd.record():
        y = emb(mx.nd.array(idx))
        loss = (y ** 2).sum()
    loss.backward()
    out.update({"semb:weight": weight, "semb:idx": idx,
                "semb:y": y.asnumpy(), "semb:grad": emb.weight.grad().tostype("default").asnumpy(),
                "semb:prefixed": np.array(sorted(emb.collect_params().keys()))})
    np.savez(OUT / "nn.npz", **out)


def est_data():
    """Synthetic 3-class data: 64 training and 32 validation samples of 6 features."""
    rs = np.random.RandomState(10)
    x = rs.normal(0, 1, (96, 6)).astype(np.float32)
    w = rs.normal(0, 1, (6, 3))
    y = np.argmax(x @ w + rs.normal(0, 1.0, (96, 3)), axis=1).astype(np.float32)
    return x, y


def est_run(model_dir, mode, hybridize):
    """One Estimator run of the scenario ``mode``; returns what the reference keeps."""
    from mxnet.gluon.contrib import estimator as E

    x, y = est_data()
    train = gluon.data.DataLoader(gluon.data.ArrayDataset(x[:64], y[:64]), batch_size=16)
    val = gluon.data.DataLoader(gluon.data.ArrayDataset(x[64:], y[64:]), batch_size=16)
    net = nn.HybridSequential()
    net.add(nn.Dense(16, activation="tanh"), nn.Dense(3))
    net.initialize()
    net(mx.nd.array(x[:2]))
    fill(net, 11)
    if hybridize:
        net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5})
    est = E.Estimator(net, gluon.loss.SoftmaxCrossEntropyLoss(), trainer=trainer)
    lines = []

    class Collect(logging.Handler):
        def emit(self, record):
            lines.append(record.getMessage())

    est.logger.handlers[:] = [Collect()]
    history = []

    class Record(E.EpochEnd):
        def epoch_end(self, estimator, *args, **kwargs):
            history.append([m.get()[1] for m in estimator.train_metrics + estimator.val_metrics])
            return False

    stopped = -1
    if mode == "early":
        val_loss = est.val_metrics[1]
        early = E.EarlyStoppingHandler(monitor=val_loss, mode="min", patience=2)
        ckpt = E.CheckpointHandler(model_dir, monitor=val_loss, save_best=True, mode="min", max_checkpoints=3)
        est.fit(train, val, epochs=40, event_handlers=[Record(), early, ckpt])
        stopped = early.stopped_epoch
    elif mode == "batches":
        ckpt = E.CheckpointHandler(model_dir, epoch_period=None, batch_period=3, max_checkpoints=2)
        logger = E.LoggingHandler(log_interval=2, metrics=est.train_metrics)
        est.fit(train, batches=7, event_handlers=[Record(), ckpt, logger])
    else:  # resume: 3 epochs, then a fresh net resumes for epochs=5
        est.fit(train, val, epochs=3, event_handlers=[Record(), E.CheckpointHandler(model_dir)])
        return None
    params = {f"param:{k}": p.data().asnumpy() for k, p in net._collect_params_with_prefix().items()}
    return {"files": np.array(sorted(os.listdir(model_dir))), "history": np.array(history),
            "log": np.array(lines), "stopped": np.array(stopped), **params}


def est_resume(model_dir):
    """The second half of ``resume``: a fresh net resumed from ``model_dir`` for ``epochs=5``."""
    from mxnet.gluon.contrib import estimator as E

    x, y = est_data()
    train = gluon.data.DataLoader(gluon.data.ArrayDataset(x[:64], y[:64]), batch_size=16)
    net = nn.HybridSequential()
    net.add(nn.Dense(16, activation="tanh"), nn.Dense(3))
    net.initialize()
    net(mx.nd.array(x[:2]))
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5})
    est = E.Estimator(net, gluon.loss.SoftmaxCrossEntropyLoss(), trainer=trainer)
    lines = []

    class Collect(logging.Handler):
        def emit(self, record):
            lines.append(record.getMessage())

    est.logger.handlers[:] = [Collect()]
    est.fit(train, epochs=5, event_handlers=[E.CheckpointHandler(model_dir, resume_from_checkpoint=True)])
    params = {f"param:{k}": p.data().asnumpy() for k, p in net._collect_params_with_prefix().items()}
    return {"files": np.array(sorted(os.listdir(model_dir))), "log": np.array(lines),
            "max_epoch": np.array(est.max_epoch), **params}


def gen_estimator() -> None:
    """``estimator.npz``: keys ``<scenario>:files|history|log|stopped|param:<name>``."""
    import tempfile

    x, y = est_data()
    out = {"x": x, "y": y}
    for mode, hybridize in (("early", True), ("batches", False)):
        with tempfile.TemporaryDirectory() as d:
            out.update({f"{mode}:{k}": v for k, v in est_run(d, mode, hybridize).items()})
    with tempfile.TemporaryDirectory() as d:
        est_run(d, "resume", False)
        out["resume:files_before"] = np.array(sorted(os.listdir(d)))
        out.update({f"resume:{k}": v for k, v in est_resume(d).items()})
    np.savez(OUT / "estimator.npz", **out)


RNN_CASES = {
    # name: (constructor source evaluated with crnn, nn in scope, input shape NTC...)
    "c2lstm": ("crnn.Conv2DLSTMCell((2, 5, 5), 3, i2h_kernel=3, h2h_kernel=3, i2h_pad=1)", (2, 3, 2, 5, 5)),
    "c1gru": ("crnn.Conv1DGRUCell((2, 6), 3, i2h_kernel=3, h2h_kernel=1)", (2, 3, 2, 6)),
    "c3rnn_relu": ("crnn.Conv3DRNNCell((1, 3, 4, 4), 2, i2h_kernel=(1, 3, 3), h2h_kernel=3, "
                   "i2h_pad=(0, 1, 1), activation='relu')", (1, 2, 1, 3, 4, 4)),
    "c2rnn_dilate": ("crnn.Conv2DRNNCell((2, 7, 7), 2, i2h_kernel=3, h2h_kernel=3, i2h_dilate=2, "
                     "h2h_dilate=2, activation='sigmoid')", (2, 3, 2, 7, 7)),
    "c2lstm_softrelu": ("crnn.Conv2DLSTMCell((2, 3, 5), 2, i2h_kernel=3, h2h_kernel=3, i2h_pad=1, "
                        "activation='softrelu')", (2, 3, 2, 3, 5)),
    "lstmp": ("crnn.LSTMPCell(8, 3, input_size=4)", (2, 4, 4)),
}


def gen_rnn() -> None:
    """``rnn.npz``: keys ``<case>:x|out|state<i>|grad:<param>|param:<param>`` (RNN_CASES), and
    ``dyn:...`` for dynamic_unroll."""
    from mxnet.gluon.contrib import rnn as crnn
    from mxnet.gluon.contrib.rnn.rnn_cell import dynamic_unroll

    out = {}
    for i, (case, (source, shape)) in enumerate(sorted(RNN_CASES.items())):
        cell = eval(source, {"crnn": crnn, "nn": nn})  # noqa: S307 (our own table)
        cell.initialize()
        rs = np.random.RandomState(20 + i)
        x = rs.uniform(-1, 1, shape).astype(np.float32)
        cell.unroll(shape[1], mx.nd.array(x), layout="NTC", merge_outputs=True)  # fixes deferred shapes
        fill(cell, 30 + i)
        with autograd.record():
            y, states = cell.unroll(shape[1], mx.nd.array(x), layout="NTC", merge_outputs=True)
            loss = (y ** 2).sum() + (states[-1] ** 2).sum()
        loss.backward()
        out.update({f"{case}:x": x, f"{case}:out": y.asnumpy()})
        out.update({f"{case}:state{j}": s.asnumpy() for j, s in enumerate(states)})
        for k, p in cell._collect_params_with_prefix().items():
            out[f"{case}:param:{k}"] = p.data().asnumpy()
            out[f"{case}:grad:{k}"] = p.grad().asnumpy()
    cell = gluon.rnn.LSTMCell(3, input_size=2)
    cell.initialize()
    fill(cell, 40)
    rs = np.random.RandomState(41)
    x = rs.uniform(-1, 1, (4, 2, 2)).astype(np.float32)
    states = [mx.nd.array(rs.uniform(-1, 1, (2, 3))) for _ in range(2)]
    y, final = dynamic_unroll(cell, mx.nd.array(x), states, layout="TNC", valid_length=mx.nd.array([2, 4]))
    out.update({"dyn:x": x, "dyn:out": y.asnumpy(), "dyn:begin0": states[0].asnumpy(),
                "dyn:begin1": states[1].asnumpy(), "dyn:state0": final[0].asnumpy(),
                "dyn:state1": final[1].asnumpy()})
    for k, p in cell._collect_params_with_prefix().items():
        out[f"dyn:param:{k}"] = p.data().asnumpy()
    np.savez(OUT / "rnn.npz", **out)


SAMPLERS = [(13, 3, True), (13, 3, False), (5, 5, True), (7, 1, True), (10, 4, False), (1, 1, True)]


def gen_data() -> None:
    """``data.npz``: ``interval:<length>_<interval>_<rollover>`` -> the sampled order."""
    from mxnet.gluon.contrib.data import IntervalSampler

    out = {f"interval:{n}_{k}_{int(r)}": np.array(list(IntervalSampler(n, k, rollover=r)))
           for n, k, r in SAMPLERS}
    np.savez(OUT / "data.npz", **out)


CNN_CASES = {
    "dcn": ("cnn.DeformableConvolution(4, kernel_size=3, padding=1)", (2, 3, 6, 6), True),
    "dcn_groups": ("cnn.DeformableConvolution(4, kernel_size=(3, 2), strides=2, padding=(1, 0), "
                   "dilation=(2, 1), groups=2, num_deformable_group=3, activation='relu')", (2, 6, 7, 6),
                   True),
    "mdcn": ("cnn.ModulatedDeformableConvolution(4, kernel_size=3, padding=1)", (2, 3, 6, 6), False),
    "mdcn_groups": ("cnn.ModulatedDeformableConvolution(2, kernel_size=3, strides=2, num_deformable_group=2, "
                    "use_bias=False)", (1, 4, 7, 7), False),
}


def gen_cnn() -> None:
    """``cnn.npz``: keys ``<case>:x|w|y|gx|grad:<param>|param:<param>`` (CNN_CASES), ``op:...``."""
    from mxnet.gluon.contrib import cnn

    out = {}
    for i, (case, (source, shape, backward)) in enumerate(sorted(CNN_CASES.items())):
        layer = eval(source, {"cnn": cnn})  # noqa: S307 (our own table)
        layer.initialize()
        rs = np.random.RandomState(50 + i)
        x = rs.uniform(-1, 1, shape).astype(np.float32)
        y = layer(mx.nd.array(x))
        fill(layer, 60 + i)
        out.update({f"{case}:x": x, f"{case}:repr": np.array(repr(layer)),
                    f"{case}:names": np.array(sorted(layer.collect_params().keys()))})
        for k, p in layer._collect_params_with_prefix().items():
            out[f"{case}:param:{k}"] = p.data().asnumpy()
        if backward:
            w = rs.uniform(-1, 1, y.shape).astype(np.float32)
            y, gx, grads = grads_of(layer, x, w)
            out.update({f"{case}:w": w, f"{case}:gx": gx, **{f"{case}:{k}": v for k, v in grads.items()}})
        else:
            y = layer(mx.nd.array(x)).asnumpy()
        out[f"{case}:y"] = y
    # the operators on offsets that hit the boundary rules: integers, the last row/column, beyond
    x = np.arange(2 * 4 * 5, dtype=np.float32).reshape(1, 2, 4, 5) / 10
    offset = np.random.RandomState(70).choice([-1.5, -1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 2.7, 3.5],
                                              (1, 18, 4, 5)).astype(np.float32)
    mask = np.random.RandomState(71).uniform(0, 2, (1, 9, 4, 5)).astype(np.float32)
    weight = np.random.RandomState(72).uniform(-1, 1, (3, 2, 3, 3)).astype(np.float32)
    args = dict(kernel=(3, 3), pad=(1, 1), num_filter=3, no_bias=True)
    out.update({"op:x": x, "op:offset": offset, "op:mask": mask, "op:weight": weight,
                "op:v1": mx.nd.contrib.DeformableConvolution(mx.nd.array(x), mx.nd.array(offset),
                                                             mx.nd.array(weight), **args).asnumpy(),
                "op:v2": mx.nd.contrib.ModulatedDeformableConvolution(
                    mx.nd.array(x), mx.nd.array(offset), mx.nd.array(mask), mx.nd.array(weight),
                    **args).asnumpy()})
    np.savez(OUT / "cnn.npz", **out)


SECTIONS = {"nn": gen_nn, "estimator": gen_estimator, "rnn": gen_rnn, "data": gen_data, "cnn": gen_cnn}


def main(argv: list[str]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name in argv or list(SECTIONS):
        SECTIONS[name]()
        print(f"{name} -> {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
