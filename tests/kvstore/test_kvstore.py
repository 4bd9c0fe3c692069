"""mx.kv against MXNet 1.9.1 (tests/reference/api/kv.npz, tools/mxnet_reference/gen_api.py): sums of
pushed values, optimizer updates on push and pushpull, key checks, optimizer states, devices."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

import framework as mx
from conftest import REFERENCE
from framework import autograd

W = onp.arange(6, dtype=onp.float32).reshape(2, 3)


@pytest.fixture(scope="module")
def ref():
    with onp.load(REFERENCE / "api" / "kv.npz") as f:
        return {k: f[k] for k in f.files}


def _sgd():
    return mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=0.01, rescale_grad=0.5)


def test_push_with_an_optimizer_updates_the_stored_value(ref):
    kv = mx.kv.create("local")
    kv.set_optimizer(_sgd())
    kv.init(0, jnp.asarray(W))
    for step in range(3):
        kv.push(0, [jnp.asarray(W * 0 + step + 1), jnp.asarray(W * 0 + 1)])
        onp.testing.assert_allclose(onp.asarray(kv.pull(0)), ref[f"sgd/{step}"], rtol=1e-6, atol=1e-6)


def test_push_without_optimizer_replaces_by_the_sum_and_pull_fills_variables(ref):
    kv = mx.kv.create("device")
    kv.init(["a", "b"], [jnp.asarray(W), jnp.asarray(-W)])
    kv.push("a", [jnp.asarray(W * i) for i in range(4)])
    outs = [autograd.Variable(jnp.zeros((2, 3))), autograd.Variable(jnp.zeros((2, 3)))]
    got = kv.pull(["a", "b"], out=outs)
    onp.testing.assert_array_equal(onp.asarray(outs[0].value), ref["plain/a"])  # filled in place
    onp.testing.assert_array_equal(onp.asarray(got[1]), ref["plain/b"])
    out = kv.pushpull("b", [jnp.ones((2, 3)), jnp.ones((2, 3)) * 5])
    onp.testing.assert_array_equal(onp.asarray(out), ref["plain/pushpull"])


def test_pushpull_with_adam(ref):
    kv = mx.kv.create("local")
    kv.set_optimizer(mx.optimizer.Adam(learning_rate=0.01))
    kv.init(7, jnp.asarray(W))
    for step in range(2):
        onp.testing.assert_allclose(
            onp.asarray(kv.pushpull(7, jnp.asarray(W - 2.5))), ref[f"adam/{step}"], rtol=1e-5, atol=1e-6
        )


def test_values_from_several_devices_are_summed_and_pulled_onto_each_device():
    devs = jax.devices("cpu")[:4]
    kv = mx.kv.create("device")
    kv.init(1, jax.device_put(jnp.zeros(3), devs[0]))
    kv.push(1, [jax.device_put(jnp.full(3, float(i)), d) for i, d in enumerate(devs)])
    outs = kv.pull(1, out=[jax.device_put(jnp.zeros(3), d) for d in devs])
    assert [next(iter(o.devices())) for o in outs] == devs
    assert all(o.tolist() == [6.0, 6.0, 6.0] for o in outs)


def test_optimizer_states_round_trip_without_pickle(tmp_path):
    a, b = mx.kv.create("local"), mx.kv.create("local")
    for kv in (a, b):
        kv.set_optimizer(_sgd())
        kv.init(0, jnp.asarray(W))
    a.push(0, jnp.ones((2, 3)))
    a.save_optimizer_states(str(tmp_path / "states"))
    assert (tmp_path / "states").read_bytes()[:8] != b"\x80\x04\x95"[:8]  # not a pickle
    b.push(0, jnp.ones((2, 3)))  # same weight, fresh state, then load a's state
    b.load_optimizer_states(str(tmp_path / "states"))
    a.push(0, jnp.ones((2, 3)))
    b.push(0, jnp.ones((2, 3)))
    onp.testing.assert_allclose(onp.asarray(a.pull(0)), onp.asarray(b.pull(0)))


def test_errors_and_refusals_name_the_problem():
    kv = mx.kv.create("local")
    kv.init(3, jnp.ones(2))
    with pytest.raises(ValueError, match="already initialised"):
        kv.init(3, jnp.ones(2))
    with pytest.raises(KeyError, match="never initialised"):
        kv.push(9, jnp.ones(2))
    with pytest.raises(TypeError, match="mixed key types"):
        kv.init("x", jnp.ones(2))
    with pytest.raises(TypeError, match="row_sparse storage does not exist"):
        kv.row_sparse_pull(3, row_ids=jnp.array([0]))
    with pytest.raises(ValueError, match="parameter server"):
        mx.kv.create("dist_async")
    with pytest.raises(ValueError, match="unknown kvstore type"):
        mx.kv.create("bogus")


def test_dist_sync_in_one_process_and_trainer_accepts_a_store():
    kv = mx.kvstore.create("dist_sync")
    assert (kv.type, kv.rank, kv.num_workers) == ("dist_sync", 0, 1)
    kv.init(0, jnp.ones(2))
    kv.push(0, [jnp.ones(2), jnp.ones(2)])
    assert kv.pull(0).tolist() == [2.0, 2.0]
    net = mx.gluon.nn.Dense(2, in_units=3)
    net.initialize()
    mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1}, kvstore=kv)  # accepted


def test_registered_store_is_created_by_name():
    @mx.kv.KVStoreBase.register
    class MyStore(mx.kv.KVStoreBase):
        @property
        def type(self):
            return "mystore"

    try:
        assert mx.kv.create("MyStore").type == "mystore"
    finally:
        mx.kv.KVStoreBase.kv_registry.pop("mystore")
