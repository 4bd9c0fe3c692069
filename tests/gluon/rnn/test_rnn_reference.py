"""gluon.rnn against real MXNet 1.9.1: .params files MXNet saved load by name, and outputs, final
states and (training) gradients match MXNet's (tests/reference/rnn, tools/mxnet_reference/gen_rnn.py)."""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import autograd, np
from framework.gluon import rnn

REF = Path(__file__).resolve().parents[2] / "reference" / "rnn"

LAYERS = {
    "lstm_bi2": lambda: rnn.LSTM(5, num_layers=2, bidirectional=True, input_size=3),
    "gru_bi2_ntc": lambda: rnn.GRU(5, num_layers=2, bidirectional=True, layout="NTC", input_size=3),
    "rnn_relu2": lambda: rnn.RNN(5, num_layers=2, activation="relu", input_size=3),
    "rnn_tanh_bi": lambda: rnn.RNN(4, activation="tanh", bidirectional=True, input_size=3),
    "lstmp_bi2": lambda: rnn.LSTM(6, num_layers=2, bidirectional=True, projection_size=3, input_size=3),
}


def _load(name: str) -> dict[str, onp.ndarray]:
    with onp.load(REF / f"{name}.npz") as data:
        return {k: data[k] for k in data.files}


def _close(a, b, **kw):
    onp.testing.assert_allclose(onp.asarray(a), b, rtol=kw.get("rtol", 1e-5), atol=kw.get("atol", 1e-6))


@pytest.mark.parametrize("name", list(LAYERS))
def test_layer_matches_mxnet(name):
    ref = _load(name)
    layer = LAYERS[name]()
    layer.load_parameters(str(REF / f"{name}.params"))  # MXNet's names: _unfused.0.l_cell.i2h_weight ...
    states = [np.array(ref[f"s{i}"]) for i in range(len(layer.state_info()))]
    out, new = layer(np.array(ref["x"]), states)
    _close(out, ref["out"])
    for i, s in enumerate(new):
        _close(s, ref[f"h{i}"])
    if "train_out" not in ref:  # MXNet 1.9.1 cannot train a projected LSTM on CPU
        return
    x = np.array(ref["x"])
    params = layer.collect_params()
    with autograd.record():
        o, hs = layer(x, states)
        loss = (o * np.array(ref["r"])).sum()
        for i, h in enumerate(hs):
            loss = loss + (h * np.array(ref[f"rs{i}"])).sum()
    loss.backward()
    _close(o, ref["train_out"])
    grads = {k[5:]: v for k, v in ref.items() if k.startswith("grad:")}
    assert set(grads) == set(params)
    for k, want in grads.items():
        _close(params[k].grad(), want, rtol=1e-4, atol=1e-5)
    # the input gradient through the pure function
    values = params.values_on()

    def pure_loss(x):
        out, hs = layer.functional_call(values, x, *states)
        return jnp.sum(out * ref["r"]) + sum(jnp.sum(h * ref[f"rs{i}"]) for i, h in enumerate(hs))

    gx = jax.grad(pure_loss)(x)
    _close(gx, ref["grad_x"], rtol=1e-4, atol=1e-5)


CELLS = {
    "cell_lstm": lambda: rnn.LSTMCell(4, input_size=3),
    "cell_gru": lambda: rnn.GRUCell(4, input_size=3),
    "cell_rnn": lambda: rnn.RNNCell(4, activation="relu", input_size=3),
    "cell_bi": lambda: rnn.BidirectionalCell(rnn.LSTMCell(4, input_size=3), rnn.GRUCell(4, input_size=3)),
}


def _stack():
    s = rnn.SequentialRNNCell()
    s.add(rnn.LSTMCell(4, input_size=3))
    s.add(rnn.ResidualCell(rnn.GRUCell(4, input_size=4)))
    return s


CELLS["cell_stack_residual"] = _stack


@pytest.mark.parametrize("name", list(CELLS))
def test_cell_unroll_matches_mxnet(name):
    ref = _load(name)
    cell = CELLS[name]()
    cell.load_parameters(str(REF / f"{name}.params"))
    x = np.array(ref["x"])
    out, states = cell.unroll(4, x, layout="NTC", merge_outputs=True, valid_length=np.array(ref["valid"]))
    _close(out, ref["out"])
    assert len(states) == len([k for k in ref if k.startswith("h") and k[1:].isdigit()])
    for i, s in enumerate(states):
        _close(s, ref[f"h{i}"])
    out, states = cell.unroll(4, x, layout="NTC", merge_outputs=True)
    _close(out, ref["out_full"])
    for i, s in enumerate(states):
        _close(s, ref[f"hfull{i}"])
