"""Blocks as pure functions over parameter pytrees; the stateful shell around them."""

import jax
import jax.numpy as jnp
import numpy as onp
import pytest
from nets import lenet

import framework
from framework import autograd, gluon, np, npx
from framework.gluon import nn
from tests.conftest import aligned_host


def load_reference_lenet(net, ref, device=None):
    for name, p in net.collect_params().items():
        p.set_data(ref[f"lenet_param0__{name}"])


def test_structural_names_and_shapes(ref):
    import json

    net = lenet()
    net.initialize()
    net(np.ones((1, 1, 28, 28)))
    shapes = {k: tuple(v.shape) for k, v in net.collect_params().items()}
    expected = {k: tuple(v) for k, v in json.loads(str(ref["lenet_param_shapes"])).items()}
    assert shapes == expected
    assert list(net.collect_params(".*bias")) == [k for k in expected if k.endswith("bias")]


def test_lenet_logits_match_mxnet(ref):
    net = lenet()
    net.initialize()
    net(np.ones((1, 1, 28, 28)))
    load_reference_lenet(net, ref)
    out = net(np.array(ref["lenet_x"]))
    onp.testing.assert_allclose(out, ref["lenet_logits"], rtol=1e-4, atol=1e-5)
    net.hybridize()
    onp.testing.assert_allclose(net(np.array(ref["lenet_x"])), ref["lenet_logits"], rtol=1e-4, atol=1e-5)


def test_deferred_init_error_message():
    net = nn.Dense(3)
    net.initialize()
    with pytest.raises(gluon.DeferredInitializationError, match="has not been initialized yet because "
                       "initialization was deferred"):
        net.weight.data()


class _Compiles:
    """Counts XLA backend compiles while active (the jax.monitoring listener is removed on exit)."""

    EVENT = "/jax/core/compile/backend_compile_duration"

    def __enter__(self):
        self.names = []
        jax.monitoring.register_event_duration_secs_listener(self._seen)
        return self

    def _seen(self, name, *args, **kwargs):
        if name == self.EVENT:
            self.names.append(name)

    def __exit__(self, *exc):
        jax.monitoring.unregister_event_duration_listener(self._seen)

    def __len__(self):
        return len(self.names)


def test_deferred_inference_is_abstract():
    """The first call infers shapes with jax.eval_shape: no compile of the real forward is needed."""
    warm = nn.Dense(4, in_units=7)  # the initializer's programs for these shapes, compiled beforehand
    warm.initialize()
    net = nn.Dense(4)
    net.initialize()
    with _Compiles() as compiles:
        net._deferred_infer((jax.ShapeDtypeStruct((2, 7), jnp.float32),), net.collect_params())
    assert net.weight.shape == (4, 7)
    assert len(compiles) == 0


def test_keys_follow_structural_names_not_call_order():
    np.random.seed(3)
    a = lenet()
    a.initialize()
    a(np.ones((1, 1, 28, 28)))
    np.random.seed(3)
    b = lenet()
    b.initialize()
    # initialise by a different path: set shapes by a forward on a differently sized batch
    b(np.ones((5, 1, 28, 28)))
    for (ka, pa), (kb, pb) in zip(a.collect_params().items(), b.collect_params().items(), strict=True):
        assert ka == kb
        onp.testing.assert_array_equal(pa.data(), pb.data())


def test_functional_call_under_jit_grad_vmap(ref):
    net = lenet()
    net.initialize()
    net(np.ones((1, 1, 28, 28)))
    load_reference_lenet(net, ref)
    params = net.collect_params().values_on()
    x, y = np.array(ref["lenet_x"]), np.array(ref["lenet_y"])
    loss = gluon.loss.SoftmaxCrossEntropyLoss()

    def objective(p):
        return loss(net.functional_call(p, x), y).sum()

    grads = jax.jit(jax.grad(objective))(params)
    for name in params:
        onp.testing.assert_allclose(grads[name], ref[f"lenet_grad__{name}"], rtol=1e-4, atol=1e-5)
    per_sample = jax.vmap(lambda xi: net.functional_call(params, xi[None])[0])(x)
    onp.testing.assert_allclose(per_sample, ref["lenet_logits"], rtol=1e-4, atol=1e-5)


def test_parameters_on_other_device_error_names_both():
    net = nn.Dense(2, in_units=3)
    net.initialize(ctx=npx.cpu(1))
    with pytest.raises(RuntimeError, match=r"Parameter 'weight' is on \[cpu:1\] but the input is on cpu:2"):
        net(np.ones((4, 3), ctx=npx.cpu(2)))


def test_reinitialize_warns_and_keeps_values():
    net = nn.Dense(2, in_units=3)
    net.initialize()
    before = net.weight.data()
    with pytest.warns(UserWarning, match="already initialized"):
        net.initialize()
    onp.testing.assert_array_equal(before, net.weight.data())
    net.initialize(force_reinit=True)
    assert not onp.array_equal(before, net.weight.data())


def test_replicas_list_ctx_and_reset():
    net = nn.Dense(2, in_units=3)
    devs = [npx.cpu(0), npx.cpu(1)]
    net.initialize(ctx=devs)
    assert net.weight.list_ctx() == devs
    assert [next(iter(d.devices())) for d in net.weight.list_data()] == devs
    net.collect_params().reset_ctx(npx.cpu(3))
    assert net.weight.list_ctx() == [npx.cpu(3)]
    assert net(np.ones((1, 3), ctx=npx.cpu(3))).devices() == {npx.cpu(3)}


def test_sequential_indexing_repr_and_list_warning():
    net = lenet()
    assert len(net) == 7 and isinstance(net[0], nn.Conv2D)
    assert len(net[1:3]) == 2
    assert "(6): Dense(None -> 10, linear)" in repr(net)
    assert "(4): Dense(None -> 120, Activation(relu))" in repr(net)

    class Bad(gluon.Block):
        def __init__(self):
            super().__init__()
            with pytest.warns(UserWarning, match="unregistered container"):
                self.layers = [nn.Dense(2)]

    Bad()


def test_hybridize_compiles_once():
    net = lenet()
    net.initialize()
    net.hybridize()
    x = np.ones((8, 1, 28, 28))
    with _Compiles() as compiles:
        net(x).block_until_ready()
        assert len(compiles) > 0  # the listener sees compiles: the count below can fail
        before = len(compiles)
        for _ in range(3):
            net(x).block_until_ready()
    assert len(compiles) == before


def _recorded_nodes(net, x):
    with autograd.record():
        out = net(x)
    return out._node.kind, out


def test_stack_of_builtin_layers_records_one_node_unless_a_child_is_hooked():
    """An un-hybridized Sequential of built-in layers records ONE compiled node (no host round per layer);
    a hook on a child, or a child that runs as Python, brings the per-layer calls back, and the hook sees
    its layer. The numbers are the same either way."""
    net = lenet(hybrid=False)
    net.initialize()
    x = np.ones((2, 1, 28, 28))
    _, first = _recorded_nodes(net, x)  # the first call fixes the shapes abstractly: the same one node
    assert first._node.block is net and net[4].weight.shape == (120, 400)
    kind, out = _recorded_nodes(net, x)
    assert kind == "block" and out._node.block is net
    seen = []
    handle = net[4].register_forward_hook(lambda block, args, out: seen.append(out.shape))
    _, per_layer = _recorded_nodes(net, x)
    assert per_layer._node.block is net[6] and seen == [(2, 120)]
    handle.detach()
    onp.testing.assert_allclose(onp.asarray(out), onp.asarray(per_layer), rtol=1e-6, atol=1e-6)

    class Python(gluon.HybridBlock):  # not built in, not hybridized: runs as Python
        def forward(self, x):
            return x * 2

    net.add(Python())
    _, last = _recorded_nodes(net, x)
    assert last._node.kind == "op"  # the multiplication, recorded op by op
    onp.testing.assert_allclose(onp.asarray(last), 2 * onp.asarray(out), rtol=1e-6, atol=1e-6)


def test_plain_block_with_python_control_flow():
    class Gate(gluon.Block):
        def __init__(self):
            super().__init__()
            self.a = nn.Dense(2, in_units=2)
            self.b = nn.Dense(2, in_units=2)

        def forward(self, x):
            return self.a(x) if float(x.sum()) > 0 else self.b(x)

    g = Gate()
    g.initialize()
    onp.testing.assert_allclose(g(np.ones((1, 2))), g.a(np.ones((1, 2))))
    onp.testing.assert_allclose(g(-np.ones((1, 2))), g.b(-np.ones((1, 2))))


def test_save_load_roundtrip_and_errors(tmp_path):
    net = lenet()
    net.initialize()
    net(np.ones((1, 1, 28, 28)))
    path = tmp_path / "net.params"
    net.save_parameters(str(path))
    other = lenet()
    other.load_parameters(str(path), ctx=npx.cpu(1))
    for (_, a), (_, b) in zip(net.collect_params().items(), other.collect_params().items(), strict=True):
        onp.testing.assert_array_equal(a.data(), b.data())
        assert b.list_ctx() == [npx.cpu(1)]
    small = nn.HybridSequential()
    small.add(nn.Dense(3))
    with pytest.raises(ValueError, match=r"not present in this network.*ignore_extra=True"):
        small.load_parameters(str(path))
    bigger = lenet()
    bigger.add(nn.Dense(5))
    with pytest.raises(ValueError, match=r"'7.weight'.*missing.*allow_missing=True"):
        bigger.load_parameters(str(path))


def test_mxnet_small_net_fixtures_load(params_dir):
    import json

    for fname in ("small_net_np.params", "small_net_nd.params", "small_net_export_np-0000.params",
                  "small_net_export_nd-0000.params"):
        net = nn.HybridSequential()
        net.add(nn.Conv2D(2, 3, in_channels=1, activation="relu"), nn.BatchNorm(in_channels=2),
                nn.MaxPool2D(2, 2), nn.Dense(3, in_units=18))
        net.load_parameters(str(params_dir / fname))
        expected = json.loads((params_dir / "small_net_np.params.json").read_text())["arrays"]
        got = {k: onp.asarray(p.data()) for k, p in net.collect_params().items()}
        assert set(got) == set(expected)
        for name, value in got.items():
            arr = onp.asarray(expected[name]["data"], onp.float32).reshape(expected[name]["shape"])
            onp.testing.assert_array_equal(value, arr)
        net(np.ones((1, 1, 8, 8)))


def test_summary_prints_counts(capsys):
    net = lenet()
    net.initialize()
    net.summary(np.ones((1, 1, 28, 28)))
    out = capsys.readouterr().out
    assert "Total params: 60170" in out and "Conv2D-1" in out


# ------------------------------------------------------------------ mode and randomness are explicit inputs
def _dropout_net():
    net = nn.HybridSequential()
    net.add(nn.Dense(16, in_units=4), nn.Dropout(0.5))
    net.initialize()
    return net


def test_block_on_tracers_needs_a_key_for_randomness():
    net = _dropout_net()
    x = np.ones((2, 4))
    with autograd.train_mode(), pytest.raises(ValueError, match=r"Dropout '1' needs randomness.*key="):
        jax.jit(lambda v: net(v))(x)
    params = net.collect_params().values_on()
    with pytest.raises(framework.FrameworkError, match=r"Dropout '1'.*functional_call.*key=jax\.random\.key"):
        jax.jit(lambda p, v: net.functional_call(p, v, training=True))(params, x)
    run = jax.jit(lambda p, v, k: net.functional_call(p, v, training=True, key=k))
    a, b = run(params, x, jax.random.key(0)), run(params, x, jax.random.key(1))
    assert not bool((a == b).all())  # the mask follows the key (main: one mask drawn at trace time)
    onp.testing.assert_array_equal(a, run(params, x, jax.random.key(0)))


def test_batchnorm_state_returned_or_error_under_jit():
    net = nn.HybridSequential()
    net.add(nn.Dense(3, in_units=2), nn.BatchNorm(in_channels=3))
    net.initialize()
    params, x = net.collect_params().values_on(), np.arange(8.0).reshape(4, 2)
    with pytest.raises(RuntimeError, match=r"state \(1\.running_mean, 1\.running_var\).*return_state"):
        jax.jit(lambda p: net.functional_call(p, x, training=True))(params)
    _, state = jax.jit(lambda p: net.functional_call(p, x, training=True, return_state=True))(params)
    assert sorted(state) == ["1.running_mean", "1.running_var"]
    assert float(np.abs(state["1.running_mean"]).sum()) > 0


def test_set_data_with_tracer_says_where_and_why():
    layer = nn.Dense(2, in_units=2)
    layer.initialize()

    def bad(w):
        layer.weight.set_data(w * 2)
        return w

    with pytest.raises(TypeError, match=r"Parameter 'weight'\.set_data got a traced value \(inside jax\.jit"):
        jax.jit(bad)(np.ones((2, 2)))
    assert not isinstance(layer.weight.data(), jax.core.Tracer)


def test_set_data_copies_a_numpy_array_as_mxnet_does():
    """A buffer refilled after ``set_data`` (loading several Parameters through one buffer) leaves the
    Parameter as set: JAX may share a NumPy array's memory on a CPU."""
    layer = nn.Dense(8, in_units=4)
    layer.initialize()
    buffer = aligned_host((8, 4), 2.0)
    layer.weight.set_data(buffer)
    buffer[:] = 7.0
    assert float(np.abs(layer.weight.data() - 2.0).max()) == 0.0


def test_recording_again_follows_changed_shapes_mode_and_parameter_types():
    net = nn.Sequential()
    net.add(nn.Dense(4, in_units=3), nn.Dropout(0.5))
    net.initialize()
    x = np.array(onp.random.RandomState(0).uniform(1, 2, (2, 3)).astype("float32"))
    with autograd.record():
        first = net(x)
        wider = net(np.ones((5, 3)))  # another input shape: described afresh
        again = net(x)  # the steady state: the last call's description is reused next
    assert first.shape == again.shape == (2, 4) and wider.shape == (5, 4)
    assert float((again.value == 0).sum()) > 0  # dropout is on when training
    with autograd.record(train_mode=False):  # the same input types, another mode
        predicted = net(x)
    onp.testing.assert_allclose(onp.asarray(predicted), onp.asarray(net(x)), rtol=1e-6)
    net.cast("float16")
    with autograd.record():
        half = net(x.astype("float16"))
    assert half.dtype == onp.float16 and half.value.dtype == onp.float16
