"""gluon.contrib.rnn against MXNet 1.9.1 (tests/reference/contrib/rnn.npz, made by
tools/mxnet_reference/gen_contrib.py): convolutional cells and LSTMPCell unrolled and differentiated,
gradients also against jax.grad; channel-last layouts and Block activations against their channel-first
and named equivalents (MXNet 1.9.1 runs neither on the CPU); variational dropout's one mask per
sequence; dynamic_unroll."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import autograd, np
from framework.gluon import nn, rnn
from framework.gluon.contrib import rnn as crnn
from framework.gluon.contrib.rnn.rnn_cell import dynamic_unroll
from tests.conftest import REFERENCE

with onp.load(REFERENCE / "contrib" / "rnn.npz") as _f:
    REF = {k: _f[k] for k in _f.files}
TOL = dict(rtol=1e-4, atol=1e-5)
CASES = {  # the generator's RNN_CASES
    "c2lstm": "crnn.Conv2DLSTMCell((2, 5, 5), 3, i2h_kernel=3, h2h_kernel=3, i2h_pad=1)",
    "c1gru": "crnn.Conv1DGRUCell((2, 6), 3, i2h_kernel=3, h2h_kernel=1)",
    "c3rnn_relu": "crnn.Conv3DRNNCell((1, 3, 4, 4), 2, i2h_kernel=(1, 3, 3), h2h_kernel=3, "
                  "i2h_pad=(0, 1, 1), activation='relu')",
    "c2rnn_dilate": "crnn.Conv2DRNNCell((2, 7, 7), 2, i2h_kernel=3, h2h_kernel=3, i2h_dilate=2, "
                    "h2h_dilate=2, activation='sigmoid')",
    "c2lstm_softrelu": "crnn.Conv2DLSTMCell((2, 3, 5), 2, i2h_kernel=3, h2h_kernel=3, i2h_pad=1, "
                       "activation='softrelu')",
    "lstmp": "crnn.LSTMPCell(8, 3, input_size=4)",
}


def _cell(case):
    cell = eval(CASES[case], {"crnn": crnn, "nn": nn})  # noqa: S307 (the table above)
    cell.initialize()
    x = jnp.asarray(REF[f"{case}:x"])
    for name, p in cell.collect_params().items():
        p.set_data(REF[f"{case}:param:{name}"])
    return cell, x


def _pure_loss(cell, params, x):
    states = cell.begin_state(x.shape[0])
    outs = []
    for t in range(x.shape[1]):
        out, states = cell.functional_call(params, x[:, t], *states)
        outs.append(out)
    return (jnp.stack(outs, 1) ** 2).sum() + (states[-1] ** 2).sum()


@pytest.mark.parametrize("case", sorted(CASES))
def test_cells_match_mxnet(case):
    cell, x = _cell(case)
    names = sorted(k.split(":")[2] for k in REF if k.startswith(f"{case}:param:"))
    assert sorted(cell.collect_params()) == names
    with autograd.record():
        outs, states = cell.unroll(x.shape[1], x, layout="NTC", merge_outputs=False)
        y = np.stack(outs, axis=1)
        loss = (y ** 2).sum() + (states[-1] ** 2).sum()
    loss.backward()
    onp.testing.assert_allclose(y, REF[f"{case}:out"], **TOL)
    for i, s in enumerate(states):
        onp.testing.assert_allclose(s, REF[f"{case}:state{i}"], **TOL)
    for name, p in cell.collect_params().items():
        onp.testing.assert_allclose(p.grad(), REF[f"{case}:grad:{name}"], rtol=1e-3, atol=1e-4, err_msg=name)
    if case in ("c1gru", "lstmp"):  # and the recorded gradients are jax.grad's (two cases suffice)
        want = jax.jit(jax.grad(lambda ps: _pure_loss(cell, ps, x)))(cell.collect_params().values_on())
        for name, p in cell.collect_params().items():
            onp.testing.assert_allclose(p.grad(), want[name], rtol=1e-4, atol=1e-5, err_msg=name)


def _to_last(a):
    return jnp.moveaxis(a, 1, -1)


def test_channel_last_layout_equals_channel_first():
    first = crnn.Conv1DGRUCell((2, 5), 3, i2h_kernel=2, h2h_kernel=3)
    last = crnn.Conv1DGRUCell((5, 2), 3, i2h_kernel=2, h2h_kernel=3, conv_layout="NWC")
    first.initialize()
    last.initialize()
    for name, p in first.collect_params().items():
        last.collect_params()[name].set_data(_to_last(p.data()) if p.data().ndim > 1 else p.data())
    x = jax.random.normal(jax.random.key(0), (2, 2, 5))
    h = jax.random.normal(jax.random.key(1), (2, 3, 4))
    out_first, _ = first(x, [h])
    out_last, _ = last(_to_last(x), [_to_last(h)])
    assert last.state_info(2)[0]["shape"] == (2, 4, 3)
    onp.testing.assert_allclose(out_last, _to_last(out_first), **TOL)


def test_block_activation_and_errors():
    named = crnn.Conv1DRNNCell((2, 5), 2, i2h_kernel=3, h2h_kernel=3, activation="relu")
    block = crnn.Conv1DRNNCell((2, 5), 2, i2h_kernel=3, h2h_kernel=3, activation=nn.LeakyReLU(0.0))
    named.initialize()
    block.initialize()
    for name, p in named.collect_params().items():
        block.collect_params()[name].set_data(p.data())
    x = jax.random.normal(jax.random.key(1), (2, 2, 2, 5))
    onp.testing.assert_allclose(block.unroll(2, x, merge_outputs=True)[0],
                                named.unroll(2, x, merge_outputs=True)[0])
    with pytest.raises(ValueError, match="Only support odd number, get h2h_kernel= 2"):
        crnn.Conv2DLSTMCell((1, 4, 4), 2, i2h_kernel=3, h2h_kernel=2)
    with pytest.raises(ValueError, match="conv_layout='NWC'; one of \\('NCHW', 'NHWC'\\)"):
        crnn.Conv2DLSTMCell((1, 4, 4), 2, i2h_kernel=3, h2h_kernel=3, conv_layout="NWC")
    with pytest.raises(ValueError, match="settings can only be either int or list/tuple of length 3"):
        crnn.Conv3DGRUCell((1, 4, 4, 4), 2, i2h_kernel=(3, 3), h2h_kernel=3)


class Echo(rnn.HybridRecurrentCell):
    """out = x + h; the state passes on unchanged: masks become visible."""

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, 6), "__layout__": "NC"}]

    def forward(self, x, h):
        return x + h, [h]


@pytest.mark.parametrize("drop", ["drop_inputs", "drop_outputs", "drop_states"])
def test_variational_dropout_keeps_one_mask_per_sequence(drop):
    cell = crnn.VariationalDropoutCell(Echo(), **{drop: 0.5})
    x = jnp.zeros((4, 5, 6)) if drop == "drop_states" else jnp.ones((4, 5, 6))
    begin = [jnp.ones((4, 6)) if drop == "drop_states" else jnp.zeros((4, 6))]
    with autograd.predict_mode():
        out, _ = cell.unroll(5, x, begin_state=begin, merge_outputs=True)
    onp.testing.assert_array_equal(out, 1.0)  # no dropout outside training
    masks = []
    for _ in range(2):
        with autograd.train_mode():
            out, _ = cell.unroll(5, x, begin_state=begin, merge_outputs=True)
        zero = onp.asarray(out) == 0
        assert zero.any() and not zero.all()
        assert (zero == zero[:, :1]).all()  # the same units dropped at every step
        if drop == "drop_states":  # the mask applies at each step: kept units double each step
            n, c = onp.argwhere(~zero[:, 0])[0]
            onp.testing.assert_allclose(onp.asarray(out)[n, :, c], [2.0, 4.0, 8.0, 16.0, 32.0])
        else:
            assert set(onp.unique(out).tolist()) == {0.0, 2.0}
        masks.append(zero[:, 0])
    assert (masks[0] != masks[1]).any()  # unroll resets: a new sequence draws new masks


def test_variational_dropout_is_the_base_cell_in_inference():
    base = rnn.LSTMCell(4, input_size=3)
    cell = crnn.VariationalDropoutCell(base, drop_inputs=0.3, drop_outputs=0.3)
    cell.initialize()
    x = jax.random.normal(jax.random.key(2), (2, 3, 3))
    out, states = cell.unroll(3, x, merge_outputs=True)
    steps = [x[:, t] for t in range(3)]
    want = []
    s = [jnp.zeros((2, 4)), jnp.zeros((2, 4))]
    for xt in steps:
        o, s = base(xt, s)
        want.append(o)
    onp.testing.assert_allclose(out, jnp.stack(want, 1), **TOL)
    assert repr(cell) == "VariationalDropoutCell(p_out = 0.3, p_state = 0.0)"
    with pytest.raises(ValueError, match="BidirectionalCell doesn't support variational state dropout"):
        crnn.VariationalDropoutCell(rnn.BidirectionalCell(rnn.RNNCell(2), rnn.RNNCell(2)), drop_states=0.1)


@pytest.mark.parametrize("layout", ["TNC", "NTC"])
def test_dynamic_unroll_matches_mxnet(layout):
    cell = rnn.LSTMCell(3, input_size=2)
    cell.initialize()
    for name, p in cell.collect_params().items():
        p.set_data(REF[f"dyn:param:{name}"])
    x = jnp.asarray(REF["dyn:x"])
    x = x if layout == "TNC" else jnp.swapaxes(x, 0, 1)
    begin = [jnp.asarray(REF["dyn:begin0"]), jnp.asarray(REF["dyn:begin1"])]
    out, states = dynamic_unroll(cell, x, begin, layout=layout, valid_length=jnp.array([2, 4]))
    out = out if layout == "TNC" else jnp.swapaxes(out, 0, 1)
    onp.testing.assert_allclose(out, REF["dyn:out"], **TOL)
    onp.testing.assert_allclose(states[0], REF["dyn:state0"], **TOL)
    onp.testing.assert_allclose(states[1], REF["dyn:state1"], **TOL)
