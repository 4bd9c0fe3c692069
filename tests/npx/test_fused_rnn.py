"""``npx.rnn``/``nd.RNN`` beyond the MXNet reference cases: LSTM state clipping (MXNet 1.9.1's CPU
kernels cannot produce it), dropout between layers keeps its mask for backward, errors."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as onp
import pytest

from framework import autograd, nd, npx
from framework.npx.fused_rnn import rnn_param_size


def _lstm(clip=None, layers=1, p=0.0):
    rs = onp.random.RandomState(0)
    x = nd.array(rs.uniform(-4, 4, (5, 2, 3)))
    n = rnn_param_size("lstm", 3, 4, layers)
    params = nd.array(rs.uniform(-1, 1, (n,)))
    h0 = nd.zeros((layers, 2, 4))
    kw = {} if clip is None else {"lstm_state_clip_min": -clip, "lstm_state_clip_max": clip}
    return x, params, h0, dict(state_size=4, num_layers=layers, mode="lstm", state_outputs=True, p=p, **kw)


def test_lstm_state_clip_bounds_the_cell():
    x, params, h0, kw = _lstm(clip=0.3)
    out, h, c = npx.rnn(x, params, h0, h0, **kw)
    assert float(jnp.abs(c).max()) <= 0.3 + 1e-6
    assert float(jnp.abs(out).max()) <= float(jnp.tanh(0.3)) + 1e-6
    loose = npx.rnn(x, params, h0, h0, **{**kw, "lstm_state_clip_min": -1e9, "lstm_state_clip_max": 1e9})
    plain = npx.rnn(x, params, h0, h0, **_lstm()[3])
    onp.testing.assert_allclose(loose[0], plain[0], rtol=1e-6)
    assert not onp.allclose(out, plain[0])


def test_dropout_between_layers_replays_its_mask_for_backward():
    x, params, h0, kw = _lstm(layers=2, p=0.5)
    xa = autograd.attach_grad(x)
    with autograd.record():
        out = nd.RNN(xa, params, h0, h0, **kw)[0]
    value = onp.asarray(out.value)  # computed by a forward replay: the same key, so the same mask
    out.backward()  # the backward program replays it again
    assert onp.isfinite(onp.asarray(xa.grad)).all()
    with autograd.train_mode():
        assert not onp.allclose(npx.rnn(x, params, h0, h0, **kw)[0], value)  # a new call, a new mask
    with autograd.predict_mode():
        a, b = npx.rnn(x, params, h0, h0, **kw)[0], npx.rnn(x, params, h0, h0, **kw)[0]
    onp.testing.assert_allclose(a, b)


def test_errors_name_the_expected_shapes():
    x, params, h0, kw = _lstm()
    with pytest.raises(ValueError, match=r"needs \(144,\)"):
        npx.rnn(x, params[:10], h0, h0, **kw)
    with pytest.raises(ValueError, match=r"must be \(1, 2, 4\)"):
        npx.rnn(x, params, h0, None, **kw)
    with pytest.raises(NotImplementedError, match="SequenceMask"):
        nd.RNN(x, params, h0, h0, use_sequence_length=True, **kw)
