"""gluon.rnn layers: one lax.scan per (layer, direction), gradients equal jax.grad of a step-by-step
reference written here, sequence lengths, state clipping, dropout, deferred shapes and errors."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import autograd, np
from framework.gluon import rnn


def _unrolled(mode, params, x, states, num_layers, bidirectional, clip=None, proj=False):
    """A plain Python-loop LSTM/GRU/RNN over time (TNC), independent of the framework's kernels."""
    dirs = "lr"[: 2 if bidirectional else 1]
    finals = [[] for _ in states]
    for i in range(num_layers):
        outs = []
        for k, d in enumerate(dirs):
            j = i * len(dirs) + k
            pre = f"_unfused.{i}.{d}_cell." if bidirectional else f"_unfused.{i}."
            wi, wh = params[pre + "i2h_weight"], params[pre + "h2h_weight"]
            bi, bh = params[pre + "i2h_bias"], params[pre + "h2h_bias"]
            h = states[0][j]
            c = states[1][j] if mode == "lstm" else None
            seq = range(x.shape[0]) if d == "l" else reversed(range(x.shape[0]))
            ys = {}
            for t in seq:
                a = x[t] @ wi.T + bi
                b = h @ wh.T + bh
                if mode == "lstm":
                    n = a.shape[-1] // 4
                    g = a + b
                    ig, fg = jax.nn.sigmoid(g[:, :n]), jax.nn.sigmoid(g[:, n : 2 * n])
                    cg, og = jnp.tanh(g[:, 2 * n : 3 * n]), jax.nn.sigmoid(g[:, 3 * n :])
                    c = fg * c + ig * cg
                    if clip is not None:
                        c = jnp.minimum(jnp.maximum(c, clip[0]), clip[1])
                    h = og * jnp.tanh(c)
                    if proj:
                        h = h @ params[pre + "h2r_weight"].T
                elif mode == "gru":
                    n = a.shape[-1] // 3
                    r = jax.nn.sigmoid(a[:, :n] + b[:, :n])
                    z = jax.nn.sigmoid(a[:, n : 2 * n] + b[:, n : 2 * n])
                    cand = jnp.tanh(a[:, 2 * n :] + r * b[:, 2 * n :])
                    h = (1 - z) * cand + z * h
                else:
                    h = jnp.tanh(a + b)
                ys[t] = h
            outs.append(jnp.stack([ys[t] for t in range(x.shape[0])]))
            finals[0].append(h)
            if mode == "lstm":
                finals[1].append(c)
        x = jnp.concatenate(outs, axis=-1)
    return x, [jnp.stack(f) for f in finals]


CASES = [
    ("lstm", lambda: rnn.LSTM(4, num_layers=2, bidirectional=True, input_size=3), {}),
    ("gru", lambda: rnn.GRU(4, num_layers=2, input_size=3), {}),
    ("rnn_tanh", lambda: rnn.RNN(4, activation="tanh", bidirectional=True, input_size=3), {}),
    (
        "lstm",
        lambda: rnn.LSTM(
            4, bidirectional=True, projection_size=2, input_size=3, state_clip_min=-0.2, state_clip_max=0.2
        ),
        {"clip": (-0.2, 0.2), "proj": True},
    ),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_outputs_and_gradients_equal_a_step_by_step_reference(case):
    mode, make, extra = CASES[case]
    layer = make()
    layer.initialize()
    params = layer.collect_params().values_on()
    x = jnp.asarray(onp.random.RandomState(case).uniform(-1, 1, (5, 2, 3)), jnp.float32)
    states = [jnp.full(info["shape"], 0.1, jnp.float32) for info in layer.state_info(2)]
    nl, bi = layer._num_layers, layer._dir == 2

    def ours(p, x):
        out, new = layer.functional_call(p, x, *states)
        return jnp.sum(out * out) + sum(jnp.sum(s) for s in new), (out, new)

    def ref(p, x):
        out, new = _unrolled(mode, p, x, states, nl, bi, **extra)
        return jnp.sum(out * out) + sum(jnp.sum(s) for s in new), (out, new)

    (lo, (out, new)), (gp, gx) = jax.jit(jax.value_and_grad(ours, argnums=(0, 1), has_aux=True))(params, x)
    (lr, (rout, rnew)), (rgp, rgx) = jax.jit(jax.value_and_grad(ref, argnums=(0, 1), has_aux=True))(params, x)
    onp.testing.assert_allclose(out, rout, rtol=1e-5, atol=1e-6)
    for a, b in zip(new, rnew, strict=True):
        onp.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    onp.testing.assert_allclose(gx, rgx, rtol=1e-4, atol=1e-6)
    assert set(gp) == set(rgp)
    for k in gp:
        onp.testing.assert_allclose(gp[k], rgp[k], rtol=1e-4, atol=1e-6, err_msg=k)


def _scans(jaxpr) -> int:
    count = 0
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "scan":
            count += 1
        for sub in jax.core.subjaxprs(eqn) if hasattr(jax.core, "subjaxprs") else ():
            count += _scans(sub)
        for v in eqn.params.values():
            inner = getattr(v, "jaxpr", None)
            if eqn.primitive.name != "scan" and inner is not None and hasattr(inner, "eqns"):
                count += _scans(inner)
    return count


def test_one_scan_per_layer_and_direction_and_no_loop_over_steps():
    layer = rnn.LSTM(4, num_layers=3, bidirectional=True, input_size=3)
    layer.initialize()
    params = layer.collect_params().values_on()

    def program(steps):
        x = jnp.zeros((steps, 2, 3))
        return jax.make_jaxpr(lambda p, x: layer.functional_call(p, x, *layer.begin_state(2)))(
            params, x
        ).jaxpr

    short, long = program(3), program(40)
    assert _scans(short) == 3 * 2 == _scans(long)
    assert len(short.eqns) == len(long.eqns)  # the program does not grow with the sequence


def test_sequence_length_equals_running_each_sample_on_its_own_prefix():
    layer = rnn.GRU(3, num_layers=2, bidirectional=True, input_size=2, use_sequence_length=True)
    layer.initialize()
    x = np.array(onp.random.RandomState(0).uniform(-1, 1, (5, 2, 2)).astype(onp.float32))
    lengths = np.array([3, 5])
    h0 = layer.begin_state(2)
    out, (h,) = layer(x, h0, lengths)
    plain = rnn.GRU(3, num_layers=2, bidirectional=True, input_size=2)
    plain.initialize()
    for name, p in plain.collect_params().items():
        p.set_data(layer.collect_params()[name].data())
    for n, t in enumerate([3, 5]):
        o, (hn,) = plain(x[:t, n : n + 1], [s[:, n : n + 1] for s in h0])
        onp.testing.assert_allclose(out[:t, n : n + 1], o, rtol=1e-5, atol=1e-6)
        onp.testing.assert_allclose(h[:, n : n + 1], hn, rtol=1e-5, atol=1e-6)
        assert float(abs(out[t:, n]).sum()) == 0.0
    with pytest.raises(ValueError, match="use_sequence_length=True needs sequence_length"):
        layer(x)


def test_dropout_between_layers_only_in_training_and_deferred_input_size():
    layer = rnn.LSTM(8, num_layers=2, dropout=0.5, layout="NTC")
    layer.initialize()
    x = np.ones((2, 4, 3))
    a, b = layer(x), layer(x)
    onp.testing.assert_array_equal(a, b)
    assert layer.l0_i2h_weight.shape == (32, 3) and layer.l1_i2h_weight.shape == (32, 8)
    with autograd.record():
        t1 = layer(x)
    assert not onp.allclose(onp.asarray(t1), onp.asarray(a))
    single = rnn.LSTM(8, num_layers=1, dropout=0.5, input_size=3)
    single.initialize()
    with autograd.record():
        t = single(np.ones((4, 2, 3)))
    onp.testing.assert_allclose(t, single(np.ones((4, 2, 3))), rtol=1e-6)  # no dropout after the last layer


def test_errors_name_the_layer_and_the_fix():
    with pytest.raises(ValueError, match="invalid layout 'NCT'"):
        rnn.LSTM(4, layout="NCT")
    with pytest.raises(TypeError, match="unexpected keyword argument 'hiden'"):
        rnn.GRU(4, hiden=3)
    with pytest.raises(TypeError, match="unexpected keyword argument 'num_layer'"):
        rnn.LSTMCell(4, num_layer=2)
    layer = rnn.RNN(4, input_size=3)
    layer.initialize()
    with pytest.raises(
        ValueError, match=r"Invalid recurrent state shape. Expecting \(1, 2, 4\), got \(1, 3, 4\)"
    ):
        layer(np.ones((5, 2, 3)), [np.zeros((1, 3, 4))])
    with pytest.raises(ValueError, match="activation='sigmoid'; 'relu' or 'tanh' expected"):
        rnn.RNN(4, activation="sigmoid")


def test_attribute_names_are_mxnets_and_saved_names_are_mxnet_1_9_files(tmp_path):
    layer = rnn.LSTM(3, num_layers=2, input_size=2)
    layer.initialize()
    assert layer.l1_h2h_weight is layer.collect_params()["_unfused.1.h2h_weight"]
    assert repr(layer) == "LSTM(2 -> 3, TNC, num_layers=2)"
    path = tmp_path / "lstm.params"
    layer.save_parameters(str(path))
    again = rnn.LSTM(3, num_layers=2)
    again.load_parameters(str(path))
    x = np.ones((4, 1, 2))
    onp.testing.assert_allclose(again(x), layer(x), rtol=1e-6)


def test_share_parameters_reaches_the_layers_dotted_names_and_aliases():
    a, b = rnn.LSTM(4, input_size=3, num_layers=2), rnn.LSTM(4, input_size=3, num_layers=2)
    b.share_parameters(a.collect_params())
    assert all(b.collect_params()[k] is p for k, p in a.collect_params().items())
    assert b.l1_h2h_weight is a.l1_h2h_weight  # MXNet's attribute names follow the shared Parameters
    a.initialize()
    x = np.ones((5, 2, 3))
    onp.testing.assert_array_equal(onp.asarray(b(x)), onp.asarray(a(x)))


def test_unroll_merging_and_valid_length_inside_record():
    """unroll(merge_outputs=True, valid_length=...) inside record() (the steps are recorded values):
    the same outputs as outside record(), and the same gradients as the unmerged steps summed."""
    from framework import autograd, np
    from framework.gluon import rnn

    cell = rnn.LSTMCell(4, input_size=3)
    cell.initialize()
    x = np.random.uniform(size=(2, 5, 3))
    valid = np.array([3, 5])
    plain, _ = cell.unroll(5, x, layout="NTC", merge_outputs=True, valid_length=valid)
    grads = []
    for merge in (True, False):
        with autograd.record():
            out, _ = cell.unroll(5, x, layout="NTC", merge_outputs=merge, valid_length=valid)
            loss = out.sum() if merge else sum(o.sum() for o in out)
        loss.backward()
        grads.append(cell.i2h_weight.grad())
        if merge:
            onp.testing.assert_allclose(onp.asarray(out), onp.asarray(plain), rtol=1e-6)
    onp.testing.assert_allclose(onp.asarray(grads[0]), onp.asarray(grads[1]), rtol=1e-5, atol=1e-6)


def test_begin_state_makes_zeros_of_new_batch_sizes_without_a_program():
    from tests.conftest import count_compiles

    layer = rnn.LSTM(5, num_layers=2, bidirectional=True, input_size=3)
    layer.initialize()
    layer.begin_state(1)  # first-use work outside the count
    got = []
    assert count_compiles(lambda: got.extend(layer.begin_state(b) for b in (3, 7, 11))) == 0
    for states, b in zip(got, (3, 7, 11), strict=True):
        assert [s.shape for s in states] == [(4, b, 5), (4, b, 5)]
        assert all(s.dtype == jnp.float32 and not onp.asarray(s).any() for s in states)
    device = jax.devices()[-1]
    placed = rnn.GRU(2, input_size=3, dtype="float16")
    placed.initialize()
    (h,) = placed.begin_state(4, ctx=device)
    assert h.shape == (1, 4, 2) and h.dtype == jnp.float16 and h.devices() == {device} and h.committed
    # without ctx: on the default device and uncommitted, as jnp.zeros (inputs elsewhere may use them)
    (h,) = placed.begin_state(4)
    assert not h.committed and h.devices() == {jax.devices()[0]}
    # a state function is still called as given
    (h,) = placed.begin_state(2, func=np.ones)
    assert onp.asarray(h).tolist() == [[[1.0, 1.0], [1.0, 1.0]]]
