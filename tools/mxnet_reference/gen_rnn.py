"""Reference data for gluon.rnn, made by real MXNet 1.9.1.

Run: /tmp/mx/bin/python tools/mxnet_reference/gen_rnn.py   (writes tests/reference/rnn/)

For each case: ``<case>.params`` (MXNet's save_parameters of the layer or cell, random Uniform(0.5)
weights) and ``<case>.npz`` with the input ``x``, begin states ``s0..``, MXNet's inference outputs
(``out``, final states ``h0..``) and one training-mode forward+backward of
``sum(out * r) + sum(state_i * rs_i)``: ``train_out`` and the gradients ``grad:<saved name>`` and ``grad_x``.
"""

import os

import mxnet as mx
import numpy as onp
from mxnet.gluon import rnn

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "reference", "rnn")

LAYERS = {
    "lstm_bi2": lambda: rnn.LSTM(5, num_layers=2, bidirectional=True, input_size=3),
    "gru_bi2_ntc": lambda: rnn.GRU(5, num_layers=2, bidirectional=True, layout="NTC", input_size=3),
    "rnn_relu2": lambda: rnn.RNN(5, num_layers=2, activation="relu", input_size=3),
    "rnn_tanh_bi": lambda: rnn.RNN(4, activation="tanh", bidirectional=True, input_size=3),
    "lstmp_bi2": lambda: rnn.LSTM(6, num_layers=2, bidirectional=True, projection_size=3, input_size=3),
}
# (state_clip_* is GPU-only in MXNet 1.9.1: "LSTM state clipping is only supported for GPU with CuDNN")
# ("No training support for LSTM with projection on CPU currently": projection is checked in inference)
INFERENCE_ONLY = {"lstmp_bi2"}
T, N, C = 4, 2, 3


def _save(name, arrays):
    onp.savez(os.path.join(OUT, f"{name}.npz"), **{k: onp.asarray(v) for k, v in arrays.items()})


def layer_case(name, make):
    mx.random.seed(11)
    rs = onp.random.RandomState(sum(map(ord, name)))
    layer = make()
    layer.initialize(mx.init.Uniform(0.5))
    ntc = layer._layout == "NTC"
    x = rs.uniform(-1, 1, (N, T, C) if ntc else (T, N, C)).astype(onp.float32)
    states = [
        mx.nd.array(rs.uniform(-0.5, 0.5, info["shape"]).astype(onp.float32)) for info in layer.state_info(N)
    ]
    out, new = layer(mx.nd.array(x), states)
    layer.save_parameters(os.path.join(OUT, f"{name}.params"))
    arrays = {"x": x, "out": out.asnumpy()}
    arrays.update({f"s{i}": s.asnumpy() for i, s in enumerate(states)})
    arrays.update({f"h{i}": s.asnumpy() for i, s in enumerate(new)})
    if name in INFERENCE_ONLY:
        _save(name, arrays)
        print(name, out.shape, [s.shape for s in new])
        return
    # training-mode forward+backward
    r = rs.uniform(-1, 1, out.shape).astype(onp.float32)
    rstates = [rs.uniform(-1, 1, s.shape).astype(onp.float32) for s in new]
    xin = mx.nd.array(x)
    xin.attach_grad()
    with mx.autograd.record(train_mode=True):
        o, hs = layer(xin, states)
        loss = (o * mx.nd.array(r)).sum()
        for h, rr in zip(hs, rstates):  # noqa: B905 (MXNet's venv may lack strict=)
            loss = loss + (h * mx.nd.array(rr)).sum()
    loss.backward()
    arrays.update({"r": r, "train_out": o.asnumpy(), "grad_x": xin.grad.asnumpy()})
    arrays.update({f"rs{i}": v for i, v in enumerate(rstates)})
    for k, p in layer._collect_params_with_prefix().items():
        arrays["grad:" + k] = p.grad().asnumpy()
    _save(name, arrays)
    print(name, out.shape, [s.shape for s in new])


def cell_cases():
    """Cells unrolled with valid_length (NTC), merge_outputs=True; states from MXNet."""
    cases = {
        "cell_lstm": lambda: rnn.LSTMCell(4, input_size=3),
        "cell_gru": lambda: rnn.GRUCell(4, input_size=3),
        "cell_rnn": lambda: rnn.RNNCell(4, activation="relu", input_size=3),
        "cell_bi": lambda: rnn.BidirectionalCell(rnn.LSTMCell(4, input_size=3), rnn.GRUCell(4, input_size=3)),
    }

    def stack():
        s = rnn.SequentialRNNCell()
        with s.name_scope():
            s.add(rnn.LSTMCell(4, input_size=3))
            s.add(rnn.ResidualCell(rnn.GRUCell(4, input_size=4)))
        return s

    cases["cell_stack_residual"] = stack
    for name, make in cases.items():
        mx.random.seed(5)
        rs = onp.random.RandomState(sum(map(ord, name)))
        cell = make()
        cell.initialize(mx.init.Uniform(0.5))
        x = rs.uniform(-1, 1, (N, T, C)).astype(onp.float32)
        valid = onp.array([2, 4], dtype=onp.float32)
        out, states = cell.unroll(
            T, mx.nd.array(x), layout="NTC", merge_outputs=True, valid_length=mx.nd.array(valid)
        )
        out_full, states_full = cell.unroll(T, mx.nd.array(x), layout="NTC", merge_outputs=True)
        cell.save_parameters(os.path.join(OUT, f"{name}.params"))
        arrays = {"x": x, "valid": valid, "out": out.asnumpy(), "out_full": out_full.asnumpy()}
        arrays.update({f"h{i}": s.asnumpy() for i, s in enumerate(states)})
        arrays.update({f"hfull{i}": s.asnumpy() for i, s in enumerate(states_full)})
        _save(name, arrays)
        print(name, out.shape, len(states))


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    for case, maker in LAYERS.items():
        layer_case(case, maker)
    cell_cases()
