"""The rest of mx.test_utils against MXNet 1.9.1 (tests/reference/api/test_utils.npz,
tools/mxnet_reference/gen_api.py): the same NumPy draws give MXNet's arrays and matrices; the checks
pass on good code and fail on bad."""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

import framework as mx
from conftest import REFERENCE

tu = mx.test_utils


@pytest.fixture(scope="module")
def ref():
    with onp.load(REFERENCE / "api" / "test_utils.npz") as f:
        return {k: f[k] for k in f.files}


SEEDED = {
    "random_arrays": lambda: onp.concatenate([a.ravel() for a in tu.random_arrays((2, 3), (4,), ())]),
    "random_uniform_arrays": lambda: tu.random_uniform_arrays((2, 2), low=-1, high=2)[0],
    "random_sample": lambda: tu.random_sample(list(range(10)), 4),
    "rand_coord_2d": lambda: tu.rand_coord_2d(0, 10, 5, 50),
    "eig_2d": lambda: tu.new_matrix_with_real_eigvals_2d(3),
    "eig_nd": lambda: tu.new_matrix_with_real_eigvals_nd((2, 3, 3)),
    "orthonormal": lambda: tu.new_orthonormal_matrix_2d(3),
    "sym_nd": lambda: tu.new_sym_matrix_with_real_eigvals_nd((2, 3, 3)),
}


@pytest.mark.parametrize("name", sorted(SEEDED))
def test_random_helpers_draw_as_mxnet(ref, name):
    onp.random.seed(3)
    onp.testing.assert_allclose(onp.asarray(SEEDED[name]()), ref[f"tu/{name}"], rtol=1e-6, atol=1e-9)


def test_deterministic_helpers(ref):
    x = onp.arange(24, dtype=onp.float64).reshape(2, 3, 4)
    onp.testing.assert_array_equal(tu.assign_each(x, lambda v: v * 2 + 1), ref["tu/assign_each"])
    onp.testing.assert_array_equal(tu.assign_each2(x, x + 1, lambda a, b: a * b), ref["tu/assign_each2"])
    onp.testing.assert_array_equal(tu.np_reduce(x, (0, 2), True, onp.max), ref["tu/np_reduce"])
    onp.testing.assert_array_equal(tu.collapse_sum_like(x, (3, 1)), ref["tu/collapse_sum_like"])
    onp.testing.assert_array_equal(onp.asarray(tu.create_2d_tensor(3, 4)), ref["tu/create_2d_tensor"])
    onp.testing.assert_array_equal(onp.asarray(tu.create_vector(5)), ref["tu/create_vector"])
    onp.testing.assert_array_equal(onp.asarray(tu.get_identity_mat_batch(3)), ref["tu/identity_batch"])
    buckets, probs = tu.gen_buckets_probs_with_ppf(lambda q: q * q, 4)
    onp.testing.assert_allclose(buckets, ref["tu/buckets"])
    onp.testing.assert_allclose(probs, ref["tu/probs"])
    eps = [v for _, v in sorted((str(k), v) for k, v in tu.default_numeric_eps().items())]
    onp.testing.assert_array_equal(eps, ref["tu/numeric_eps"])


def test_statistical_checks_accept_good_and_reject_bad_generators():
    rs = onp.random.RandomState(0)
    assert tu.mean_check(lambda n: rs.normal(1.0, 2.0, n), 1.0, 2.0, nsamples=20000)
    assert not tu.mean_check(lambda n: rs.normal(1.5, 2.0, n), 1.0, 2.0, nsamples=20000)
    assert tu.var_check(lambda n: rs.normal(0, 2.0, n), 2.0, nsamples=20000)
    buckets, probs = tu.gen_buckets_probs_with_ppf(lambda q: q, 5)
    ps = tu.verify_generator(lambda n: rs.uniform(0, 1, n), buckets, probs, nsamples=5000, nrepeat=3)
    assert len(ps) == 3
    with pytest.raises(AssertionError, match="Generator test fails"):
        tu.verify_generator(lambda n: rs.uniform(0, 0.8, n), buckets, probs, nsamples=5000, nrepeat=3)
    p, obs, exp = tu.chi_square_check(lambda n: rs.randint(0, 3, n), [0, 1, 2], [1 / 3] * 3, nsamples=3000)
    assert obs.sum() == 3000 and 0 < p <= 1


def test_consistency_checks_and_tolerance_variants():
    outs = tu.check_consistency(
        lambda data: jnp.tanh(data) * 2,
        [
            {"ctx": mx.cpu(0), "data": (3, 4), "type_dict": {"data": onp.float64}},
            {"ctx": mx.cpu(1), "data": (3, 4), "type_dict": {"data": onp.float32}},
        ],
    )
    assert len(outs) == 2 and outs[1][1]["data"].shape == (3, 4)
    with pytest.raises(AssertionError, match="output of entry 1"):
        tu.check_consistency(
            lambda data: data * (2 if data.dtype == jnp.float16 else 1),
            [
                {"ctx": mx.cpu(0), "data": (2,), "type_dict": {"data": onp.float32}},
                {"ctx": mx.cpu(0), "data": (2,), "type_dict": {"data": onp.float16}},
            ],
        )
    tu.assert_almost_equal_with_err(onp.zeros(10), onp.r_[onp.zeros(9), 1.0], etol=0.1)
    with pytest.raises(AssertionError, match="etol"):
        tu.assert_almost_equal_with_err(onp.zeros(10), onp.r_[onp.zeros(8), 1.0, 1.0], etol=0.1)
    tu.assert_almost_equal_ignore_nan(onp.array([1.0, onp.nan]), onp.array([1.0, 5.0]))
    grads = tu.numeric_grad(lambda a, b: a * b, [onp.array([1.0, 2.0]), onp.array([3.0, 4.0])], eps=1e-3)
    onp.testing.assert_allclose(grads[0], [3.0, 4.0], rtol=1e-3)


def test_hybridize_consistency_and_optimizer_comparison():
    def build(prefix=None):
        net = mx.gluon.nn.HybridSequential()
        net.add(mx.gluon.nn.Dense(3, in_units=4, activation="tanh"))
        return net

    tu.check_gluon_hybridize_consistency(build, [onp.ones((2, 4), onp.float32)])
    tu.compare_optimizer(
        mx.optimizer.SGD(learning_rate=0.1, momentum=0.9),
        mx.optimizer.SGD(learning_rate=0.1, momentum=0.9),
        (3, 2),
        onp.float32,
    )
    with pytest.raises(AssertionError):
        tu.compare_optimizer(
            mx.optimizer.SGD(learning_rate=0.1), mx.optimizer.SGD(learning_rate=0.2), (3, 2), onp.float32
        )


def test_small_helpers(tmp_path):
    with tu.environment("FRAMEWORK_TEST_VAR", "1"):
        assert os.environ["FRAMEWORK_TEST_VAR"] == "1"
    assert "FRAMEWORK_TEST_VAR" not in os.environ
    calls = []

    @tu.retry(3)
    def flaky():
        calls.append(1)
        assert len(calls) == 2

    flaky()
    assert len(calls) == 2
    x = jnp.ones(3)
    assert tu.same_array(x, x) and not tu.same_array(x, jnp.ones(3))
    assert tu.effective_dtype(x) == onp.float32 and tu.default_dtype() is onp.float32
    with pytest.raises(AssertionError, match="are not equal"):
        tu.checkShapes(onp.zeros(2), onp.zeros(3))
    it = mx.io.NDArrayIter(onp.zeros((4, 2)), batch_size=2)
    dummy = tu.DummyIter(it)
    assert next(dummy) is next(dummy)
    assert isinstance(tu.array([1, 2]), jax.Array) and list(tu.list_gpus()) == []
    with pytest.raises(ValueError, match="Expecting a gpu context"):
        tu.get_cuda_compute_capability(mx.cpu())


def test_mnist_helpers_read_local_files(tmp_path, monkeypatch):
    from framework import _test_helpers

    rs = onp.random.RandomState(0)
    fake = {
        True: (rs.randint(0, 256, (6, 28, 28)).astype(onp.uint8), onp.arange(6) % 10),
        False: (rs.randint(0, 256, (4, 28, 28)).astype(onp.uint8), onp.arange(4) % 10),
    }
    monkeypatch.setattr(_test_helpers, "_mnist_arrays", lambda train: fake[train])
    monkeypatch.chdir(tmp_path)
    data = tu.get_mnist()
    assert data["train_data"].shape == (6, 1, 28, 28) and data["test_label"].dtype == onp.int8
    onp.testing.assert_allclose(data["train_data"][0, 0], fake[True][0][0] / 255, rtol=1e-6)
    train, val = tu.get_mnist_iterator(2, (1, 28, 28))
    assert (tmp_path / "data" / "t10k-labels-idx1-ubyte").is_file()
    labels = [onp.asarray(b.label[0]).tolist() for b in val]  # shuffled, as MXNet's (MNISTIter's default)
    assert sorted(sum(labels, [])) == [0.0, 1.0, 2.0, 3.0]
    assert sum(1 for _ in train) == 3


def test_download_model_fetches_a_checkpoint_that_load_checkpoint_reads(tmp_path, monkeypatch):
    """MXNet's download_model: the symbol and params URLs saved as <name>-symbol.json / -0000.params
    (served from 127.0.0.1), loadable by mx.model.load_checkpoint; an unknown name is (None, 0)."""
    from local_http import LocalServer

    from framework.gluon import _download

    monkeypatch.setattr(_download, "PAUSE", 0.0)
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    weights = {"fc_weight": mx.nd.ones((3, 2)), "fc_bias": mx.nd.zeros((3,))}
    mx.model.save_checkpoint(str(tmp_path / "src"), 7, net, weights, {})
    server = LocalServer()
    try:
        files = {part: (tmp_path / f"src-{suffix}").read_bytes()
                 for part, suffix in (("symbol", "symbol.json"), ("params", "0007.params"))}
        info = {"tiny": {"symbol": server.add("m/tiny-symbol.json", files["symbol"]),
                         "params": server.add("m/tiny-0007.params", files["params"])}}
        prefix, epoch = mx.test_utils.download_model("tiny", str(tmp_path / "models"), meta_info=info)
    finally:
        server.close()
    assert (prefix, epoch) == (str(tmp_path / "models" / "tiny"), 0)
    sym, args, aux = mx.model.load_checkpoint(prefix, epoch)
    assert sym.list_arguments() == ["data", "fc_weight", "fc_bias"] and aux == {}
    assert args["fc_weight"].tolist() == [[1.0, 1.0]] * 3
    assert mx.test_utils.download_model("not-in-the-table", str(tmp_path)) == (None, 0)
    with pytest.raises(ValueError, match="has no 'params' URL"):
        mx.test_utils.download_model("x", str(tmp_path), meta_info={"x": {"symbol": "http://127.0.0.1:9/s"}})
