"""Smaller additions checked against MXNet 1.9.1 (tests/reference/api/misc.npz,
tools/mxnet_reference/gen_api.py): SDMLLoss, the Rotate/RandomRotation/RandomApply transforms (same seeds,
same draws), gluon.utils.shape_is_known; and mx.log, the modules' re-exports."""

from __future__ import annotations

import logging
import random

import jax.numpy as jnp
import numpy as onp
import pytest

import framework as mx
from conftest import REFERENCE
from framework import autograd, npx

T = mx.gluon.data.vision.transforms


@pytest.fixture(scope="module")
def ref():
    with onp.load(REFERENCE / "api" / "misc.npz") as f:
        return {k: f[k] for k in f.files}


@pytest.mark.parametrize("s", [0.3, 0.1])
def test_sdml_loss_and_gradient(ref, s):
    a = autograd.attach_grad(jnp.asarray(ref["sdml/x1"]))
    with autograd.record():
        loss = mx.gluon.loss.SDMLLoss(smoothing_parameter=s)(a, jnp.asarray(ref["sdml/x2"]))
    loss.backward()
    onp.testing.assert_allclose(npx.asnumpy(loss), ref[f"sdml/{s}"], rtol=1e-5, atol=1e-6)
    onp.testing.assert_allclose(npx.asnumpy(a.grad), ref[f"sdml/{s}/grad"], rtol=1e-3, atol=2e-5)


def _image():
    rs = onp.random.RandomState(7)
    imgs = [rs.randint(0, 256, (9 + i, 10 + (3 * i) % 7, 3)).astype(onp.uint8) for i in range(7)]
    return (imgs[2].transpose(2, 0, 1).astype(onp.float32) / 255).astype(onp.float32)


def test_rotation_transforms_draw_as_mxnet(ref):
    chw = _image()
    onp.testing.assert_allclose(T.Rotate(35)(chw), ref["tf/rotate"], atol=1e-5)
    onp.testing.assert_allclose(T.Rotate(-20, zoom_in=True)(chw), ref["tf/rotate_zoom"], atol=1e-5)
    onp.random.seed(2)
    got = onp.stack([onp.asarray(T.RandomRotation((-40, 40), rotate_with_proba=0.7)(chw)) for _ in range(4)])
    onp.testing.assert_allclose(got, ref["tf/random_rotation"], atol=1e-5)
    random.seed(2)
    apply = T.RandomApply(T.Rotate(90), p=0.5)
    onp.testing.assert_allclose(
        onp.stack([onp.asarray(apply(chw)) for _ in range(4)]), ref["tf/random_apply"], atol=1e-5
    )
    with pytest.raises(TypeError, match="only float32 images"):
        T.Rotate(10)(onp.zeros((1, 2, 2), onp.uint8))


def test_small_helpers_and_reexports(ref, tmp_path, caplog):
    assert [mx.gluon.utils.shape_is_known(s) for s in [(2, 3), (2, -1), ()]] == ref[
        "utils/shape_is_known"
    ].tolist()
    (tmp_path / "a").write_text("x")
    mx.gluon.utils.replace_file(str(tmp_path / "a"), str(tmp_path / "b"))
    assert (tmp_path / "b").read_text() == "x" and not (tmp_path / "a").exists()
    assert mx.gluon.model_zoo.model_store.check_sha1 is mx.gluon.utils.check_sha1
    assert T.HybridBlock is mx.gluon.HybridBlock and T.Sequential is mx.gluon.nn.Sequential
    assert mx.gluon.loss.HybridBlock is mx.gluon.HybridBlock and mx.init.is_np_array()
    assert mx.gluon.data.dataloader.default_mp_batchify_fn is mx.gluon.data.batchify.default_batchify_fn
    logger = mx.log.get_logger("framework.test_api_additions", level=mx.log.INFO)
    with caplog.at_level(logging.INFO, logger="framework.test_api_additions"):
        logger.info("hello %d", 3)
    assert caplog.records[-1].getMessage() == "hello 3"
    assert mx.log._Formatter().format(caplog.records[-1]).startswith("I")


def test_model_zoo_modules_and_npx_device_helpers():
    import jax.numpy as jnp

    vision = mx.gluon.model_zoo.vision
    assert vision.densenet.HybridConcurrent is mx.gluon.contrib.nn.HybridConcurrent
    assert vision.squeezenet.Identity is mx.gluon.contrib.nn.Identity and vision.inception.cpu is mx.cpu
    assert vision.mobilenet.RELU6()(jnp.array([-1.0, 3.0, 9.0])).tolist() == [0.0, 3.0, 6.0]
    aux = vision.inception.make_aux(10)
    aux.initialize()
    assert aux(jnp.ones((1, 768, 17, 17))).shape == (1, 10)
    assert mx.npx.utils.load is mx.npx.load and mx.npx.Context is mx.Context
    with pytest.raises(ValueError, match="Expecting a gpu context to get cuda compute capability"):
        mx.npx.get_cuda_compute_capability(mx.cpu())
    if mx.npx.num_gpus() == 0:
        with pytest.raises(Exception, match="gpu_memory_info=gpu"):
            mx.npx.gpu_memory_info(0)
    else:
        free, total = mx.npx.gpu_memory_info(0)
        assert 0 <= free <= total


@pytest.mark.parametrize("name,pad", [("2", 2), ("asym", (0, 0, 0, 0, 1, 0, 2, 1))])
def test_reflection_pad_2d_and_its_gradient(ref, name, pad):
    x = autograd.attach_grad(jnp.arange(24, dtype=jnp.float32).reshape(1, 2, 3, 4))
    with autograd.record():
        y = mx.gluon.nn.ReflectionPad2D(pad)(x)
        loss = (y * jnp.arange(y.size, dtype=jnp.float32).reshape(y.shape)).sum()
    loss.backward()
    onp.testing.assert_array_equal(npx.asnumpy(y), ref[f"pad/{name}"])
    onp.testing.assert_array_equal(npx.asnumpy(x.grad), ref[f"pad/{name}/grad"])
