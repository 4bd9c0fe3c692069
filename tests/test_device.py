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
    assert isinstance(npx.cpu(1), mx.Context) and isinstance(npx.cpu(1), mx.Device)
    assert not isinstance("cpu", mx.Context)


def test_context_constructor_returns_the_jax_device():
    assert mx.Context("cpu", 2) == npx.cpu(2) and isinstance(mx.Context("cpu", 2), jax.Device)
    assert mx.Device("cpu") == npx.cpu(0) and mx.Context(npx.cpu(3)) == npx.cpu(3)
    assert mx.context.current_context() == npx.cpu(0) and mx.context.Context is mx.Context
    assert mx.device.device_type(mx.Context("cpu", 1)) == "cpu" and mx.device.device_id(npx.cpu(3)) == 3
    with pytest.raises(ValueError, match="unknown device type; use 'cpu' or 'gpu'"):
        mx.Context("tpu", 0)
    with pytest.raises(TypeError, match=r"Context\(device_type=3\)"):
        mx.Context(3)


def test_gpu_context_follows_the_gpu_rule():
    """mx.Context('gpu', i) is npx.gpu(i), whether the GPU is there or not."""
    assert mx.Context("gpu", 1) == npx.gpu(1) and repr(mx.Context("gpu", 1)) == "gpu(1)"


def test_device_scope_sets_creation_and_initialize():
    from framework import gluon

    net = gluon.nn.Dense(2, in_units=3)
    with mx.device_scope(mx.Context("cpu", 3)):
        assert mx.nd.zeros((2,)).devices() == {npx.cpu(3)}
        net.initialize()
    assert net.weight.list_ctx() == [npx.cpu(3)]


def test_cpu_out_of_range():
    with pytest.raises(ValueError, match=r"cpu\(9\): this process has 4 CPU device"):
        npx.cpu(9)


def test_gpu_out_of_range_is_made_and_fails_on_use():
    """On any machine: gpu(n) with n GPUs present is a context (as in MXNet) that nothing can be put on;
    the error says how many GPUs there are."""
    n = npx.num_gpus()
    assert n == sum(d.platform == "gpu" for d in jax.devices())
    g = npx.gpu(n)
    assert repr(g) == f"gpu({n})" and isinstance(g, mx.Context)
    with pytest.raises(mx.device.DeviceUnavailableError, match=rf"ctx=gpu\({n}\): this process has {n} GPU"):
        np.ones(2, ctx=g)
    with pytest.raises(ValueError, match=r"gpu\(-1\): a device id is 0 or more"):
        npx.gpu(-1)


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
