import jax
import pytest

import framework as mx
from framework import np, npx


def test_four_cpu_devices():
    assert len(jax.devices("cpu")) == 4
    assert npx.cpu(3) == jax.devices("cpu")[3]
    assert npx.cpu() is mx.cpu(0) or npx.cpu() == mx.cpu(0)


def test_context_is_jax_device():
    assert isinstance(npx.cpu(1), jax.Device)
    assert mx.Context is jax.Device


def test_cpu_out_of_range():
    with pytest.raises(ValueError, match=r"cpu\(9\): this process has 4 CPU device"):
        npx.cpu(9)


def test_gpu_out_of_range_names_count():
    """On any machine: gpu(n) with n GPUs present is out of range and says how many there are."""
    n = npx.num_gpus()
    assert n == sum(d.platform == "gpu" for d in jax.devices())
    with pytest.raises(ValueError, match=rf"gpu\({n}\): {n} GPU\(s\) present"):
        npx.gpu(n)


def test_set_np_idempotent_and_flags():
    npx.set_np()
    npx.set_np()
    assert npx.is_np_array() and npx.is_np_shape()


def test_current_device_scope():
    with npx.device_scope(npx.cpu(2)):
        assert npx.current_device() == npx.cpu(2)
        assert np.ones((2,)).devices() == {npx.cpu(2)}
    assert npx.current_context() == npx.cpu(0)


def test_seed_first_part():
    """The seed's 'Allocate data' and 'Run an operation' sections."""
    gpu = npx.gpu() if npx.num_gpus() > 0 else npx.cpu()
    x = np.ones((3, 4), ctx=gpu)
    assert x.devices() == {gpu}
    gpu_1 = npx.gpu(1) if npx.num_gpus() > 1 else npx.cpu(1)
    x1 = x.to_device(gpu_1)
    assert x1.devices() == {gpu_1}
    y = np.random.uniform(size=(3, 4), ctx=gpu)
    z = x + y
    assert z.devices() == {gpu} and bool(((z >= 1) & (z < 2)).all())


def test_two_devices_error_names_both():
    a = np.ones((2,), ctx=npx.cpu(1))
    b = np.ones((2,), ctx=npx.cpu(2))
    with pytest.raises(ValueError, match=r"incompatible devices[\s\S]*\[1\][\s\S]*\[2\]"):
        a + b


def test_waitall():
    np.ones((2, 2)).sum()
    npx.waitall()
