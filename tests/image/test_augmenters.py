"""mx.image's augmenters, functions, ImageIter and ImageDetIter against MXNet 1.9.1
(tests/reference/api/image.npz, tools/mxnet_reference/gen_api.py): with the same ``random.seed`` and
``numpy.random.seed`` the random crops, flips and jitters are MXNet's own."""

from __future__ import annotations

import json
import random

import numpy as onp
import pytest

import framework as mx
from conftest import REFERENCE

API = REFERENCE / "api"


@pytest.fixture(scope="module")
def ref():
    with onp.load(API / "image.npz") as f:
        return {k: f[k] for k in f.files}


def images():
    rs = onp.random.RandomState(7)
    return [rs.randint(0, 256, (9 + i, 10 + (3 * i) % 7, 3)).astype(onp.uint8) for i in range(7)]


EIGVAL = onp.array([55.46, 4.794, 1.148])
EIGVEC = onp.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]])


def augmenters():
    img = mx.image
    return {
        "resize": (img.ResizeAug(7, 1), False),
        "force0": (img.ForceResizeAug((7, 5), 0), False),
        "force1": (img.ForceResizeAug((16, 12), 1), False),
        "randcrop": (img.RandomCropAug((6, 5), 1), False),
        "sizedcrop": (img.RandomSizedCropAug((6, 6), 0.3, (0.75, 1.33), 1), False),
        "center": (img.CenterCropAug((6, 5), 1), False),
        "bright": (img.BrightnessJitterAug(0.4), True),
        "contrast": (img.ContrastJitterAug(0.4), True),
        "saturation": (img.SaturationJitterAug(0.4), True),
        "hue": (img.HueJitterAug(0.3), True),
        "colorjitter": (img.ColorJitterAug(0.3, 0.3, 0.3), True),
        "lighting": (img.LightingAug(0.5, EIGVAL, EIGVEC), True),
        "normalize": (img.ColorNormalizeAug(onp.float32([100, 110, 120]), onp.float32([50, 60, 70])), True),
        "gray": (img.RandomGrayAug(1.0), True),
        "flip": (img.HorizontalFlipAug(1.0), False),
        "cast": (img.CastAug("float16"), False),
    }


@pytest.mark.parametrize("name", sorted(augmenters()))
def test_each_augmenter_draws_and_computes_as_mxnet(ref, name):
    aug, as_float = augmenters()[name]
    src = images()[1].astype(onp.float32) if as_float else images()[1]
    random.seed(5)
    onp.random.seed(5)
    out = aug(src)
    want = ref[f"aug/{name}"]
    assert out.shape == want.shape and out.dtype == want.dtype, (out.shape, out.dtype, want.shape, want.dtype)
    atol = 1.0 if name == "force1" else 1e-3  # bilinear enlarging: a few pixels round the other way
    onp.testing.assert_allclose(out.astype(onp.float64), want.astype(onp.float64), rtol=1e-5, atol=atol)
    if out.dtype == onp.uint8:
        assert (out != want).mean() < 0.05
    ours, theirs = aug.dumps(), json.loads(str(ref[f"dumps/{name}"]))
    assert ours == theirs  # a JSON string, or for a sequence of augmenters a list of them
    onp.testing.assert_array_equal(src, images()[1].astype(src.dtype))  # the input is not changed


def test_augmenters_take_jax_arrays_and_return_them():
    import jax
    import jax.numpy as jnp

    x = jnp.asarray(images()[1], jnp.float32)
    for aug in (
        mx.image.ContrastJitterAug(0.3),
        mx.image.HorizontalFlipAug(1.0),
        mx.image.CenterCropAug((4, 4)),
    ):
        assert isinstance(aug(x), jax.Array)


@pytest.mark.parametrize("name", ["full", "sized"])
def test_create_augmenter_over_several_images(ref, name):
    kw = {
        "full": dict(
            resize=9,
            rand_crop=True,
            rand_mirror=True,
            brightness=0.3,
            contrast=0.3,
            saturation=0.3,
            hue=0.1,
            pca_noise=0.1,
            rand_gray=0.3,
            mean=True,
            std=True,
            inter_method=1,
        ),
        "sized": dict(rand_crop=True, rand_resize=True, inter_method=1),
    }[name]
    random.seed(3)
    onp.random.seed(3)
    augs = mx.image.CreateAugmenter((3, 6, 6), **kw)
    assert [type(a).__name__ for a in augs] == json.loads(str(ref[f"create/{name}/names"]))
    for i, x in enumerate(images()[:5]):
        for a in augs:
            x = a(x)
        # "sized" enlarges its crops bilinearly: a few pixels round the other way
        atol = 1.0 if name == "sized" else 1e-4
        onp.testing.assert_allclose(x, ref[f"create/{name}/{i}"], rtol=1e-5, atol=atol, err_msg=str(i))


def test_crop_boxes_borders_rotation_and_resize(ref):
    src = images()[1]
    random.seed(9)
    boxes = [mx.image.random_crop(src, (5, 4), 1)[1] for _ in range(4)]
    assert onp.array_equal(boxes, ref["fn/random_crop_box"])
    boxes = [mx.image.random_size_crop(src, (5, 5), 0.2, (0.5, 2.0), 1)[1] for _ in range(4)]
    assert onp.array_equal(boxes, ref["fn/random_size_crop_box"])
    for t in range(5):
        onp.testing.assert_array_equal(
            mx.image.copyMakeBorder(src, 1, 2, 3, 1, type=t, value=9), ref[f"fn/border{t}"]
        )
    onp.testing.assert_array_equal(
        mx.image.copyMakeBorder(src, 1, 1, 2, 2, type=16, values=(1, 2, 3)), ref["fn/border_values"]
    )
    chw = onp.ascontiguousarray(src.transpose(2, 0, 1)).astype(onp.float32)
    for key, out in [
        ("rotate", mx.image.imrotate(chw, 30)),
        ("rotate_in", mx.image.imrotate(chw, 30, zoom_in=True)),
        ("rotate_out", mx.image.imrotate(chw, -45, zoom_out=True)),
        ("rotate_batch", mx.image.imrotate(onp.stack([chw, chw]), onp.array([10.0, 200.0]))),
    ]:
        onp.testing.assert_allclose(onp.asarray(out), ref[f"fn/{key}"], atol=1e-3, err_msg=key)
    for t in (0, 1):
        onp.testing.assert_array_equal(mx.image.imresize(src, 17, 7, interp=t), ref[f"fn/imresize{t}"])


def _record(it, epochs):
    out = {}
    for ep in range(epochs):
        for b, batch in enumerate(it):
            out[f"{ep}/{b}/data"] = onp.asarray(batch.data[0])
            out[f"{ep}/{b}/label"] = onp.asarray(batch.label[0])
            out[f"{ep}/{b}/pad"] = onp.asarray(batch.pad)
        it.reset()
    return out


def _compare(ours, ref, prefix, atol=1e-4):
    want = {
        k[len(prefix) + 1 :]: v
        for k, v in ref.items()
        if k.startswith(prefix + "/") and k[len(prefix) + 1].isdigit()
    }
    assert sorted(ours) == sorted(want)
    for k, v in want.items():
        onp.testing.assert_allclose(ours[k], v, atol=atol, err_msg=f"{prefix}/{k}")


@pytest.mark.parametrize("handle", ["pad", "discard", "roll_over"])
def test_image_iter(ref, handle):
    random.seed(4)
    it = mx.image.ImageIter(
        3,
        (3, 6, 6),
        path_imgrec=str(API / "images.rec"),
        rand_crop=True,
        rand_mirror=True,
        inter_method=1,
        last_batch_handle=handle,
    )
    _compare(_record(it, 2), ref, f"imageiter/{handle}")


def test_image_iter_shuffled_with_index(ref):
    random.seed(4)
    it = mx.image.ImageIter(
        4,
        (3, 5, 5),
        path_imgrec=str(API / "images.rec"),
        path_imgidx=str(API / "images.idx"),
        shuffle=True,
        inter_method=1,
    )
    _compare(_record(it, 2), ref, "imageiter/shuffle")


def test_image_det_iter(ref):
    random.seed(6)
    it = mx.image.ImageDetIter(
        3,
        (3, 8, 8),
        path_imgrec=str(API / "det.rec"),
        rand_crop=0.5,
        rand_pad=0.5,
        rand_mirror=True,
        inter_method=1,
        area_range=(0.3, 2.0),
    )
    name, shape = json.loads(str(ref["imagedet/provide_label"]))
    assert it.provide_label == [(name, tuple(shape))]
    _compare(_record(it, 2), ref, "imagedet", atol=1.0)  # bilinear resizing: +-1 on a few pixels
