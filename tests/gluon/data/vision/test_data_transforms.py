"""Vision transforms: MXNet's conventions, batch-safe ones equal per sample, seeded randomness."""

from __future__ import annotations

import numpy as onp
import pytest

from framework import np
from framework.gluon.data.vision import transforms as T
from framework.gluon.data.vision.transforms import _color as C


def _img(h=6, w=8, c=3, seed=0):
    return onp.random.default_rng(seed).integers(0, 256, (h, w, c), dtype=onp.uint8)


def test_to_tensor_layout_dtype_and_range():
    img = _img()
    out = T.ToTensor()(img)
    assert out.shape == (3, 6, 8) and out.dtype == onp.float32
    onp.testing.assert_array_equal(out, img.transpose(2, 0, 1).astype(onp.float32) / onp.float32(255))
    assert T.ToTensor()(onp.stack([img, img])).shape == (2, 3, 6, 8)
    assert T.ToTensor()(img[..., :1]).shape == (1, 6, 8)
    with pytest.raises(ValueError, match=r"ToTensor: expected an image of shape \(H, W, C\).*shape \(6, 8\)"):
        T.ToTensor()(img[..., 0])


def test_normalize_per_channel_and_scalar():
    x = onp.ones((3, 2, 2), onp.float32)
    out = T.Normalize((0.0, 0.5, 1.0), (1.0, 0.5, 2.0))(x)
    onp.testing.assert_allclose(out[:, 0, 0], [1.0, 1.0, 0.0])
    onp.testing.assert_allclose(T.Normalize(0.5, 0.25)(x), onp.full_like(x, 2.0))
    assert (x == 1).all()  # the input is not modified
    with pytest.raises(ValueError, match="mean has 2 values but the input has 3 channels"):
        T.Normalize((0.1, 0.2))(x)
    with pytest.raises(ValueError, match="every std must be non-zero"):
        T.Normalize(0.0, (1.0, 0.0))


def test_cast():
    assert T.Cast()(onp.ones(3, onp.uint8)).dtype == onp.float32
    assert T.Cast("int32")(onp.ones(3)).dtype == onp.int32


@pytest.mark.parametrize("t", [
    T.Compose([T.ToTensor(), T.Normalize(0.13, 0.31)]),
    T.Compose([T.Resize((5, 4)), T.ToTensor(), T.Normalize((0.1, 0.2, 0.3), (0.3, 0.2, 0.1))]),
    T.Compose([T.CenterCrop(4), T.Cast("float32")]),
    T.Compose([T.CropResize(1, 1, 5, 4, size=7, interpolation=3), T.ToTensor()]),
    T.Resize(3, keep_ratio=True, interpolation=2),
])
def test_batch_call_equals_per_sample(t):
    batch = onp.stack([_img(seed=s) for s in range(5)])
    per_sample = onp.stack([t(img) for img in batch])
    got = t._batch_call(batch.copy())
    onp.testing.assert_array_equal(got, per_sample)


def test_batch_call_declines_what_it_cannot_batch():
    batch = onp.zeros((2, 3, 3, 1), onp.uint8)
    assert T.Compose([T.ToTensor(), lambda x: x])._batch_call(batch) is NotImplemented
    assert T.ToTensor()._batch_call(onp.zeros((2, 3, 3), onp.uint8)) is NotImplemented  # 2-D samples
    assert T.Compose([T.RandomFlipLeftRight()])._batch_call(onp.zeros((2, 3, 3, 1))) is NotImplemented


def test_resize_sizes_and_kernels():
    img = onp.arange(16, dtype=onp.uint8).reshape(4, 4, 1) * 10
    assert T.Resize((6, 2))(img).shape == (2, 6, 1)  # (width, height)
    assert T.Resize(2, keep_ratio=True)(onp.zeros((10, 20, 3), onp.uint8)).shape == (2, 4, 3)
    assert T.Resize(2, keep_ratio=True)(onp.zeros((20, 10, 3), onp.uint8)).shape == (4, 2, 3)
    onp.testing.assert_array_equal(T.Resize(2, interpolation=0)(img)[..., 0], [[0, 20], [80, 100]])
    # MXNet 1.9.1's pixels (OpenCV's codes: 2 bicubic, 3 area, 4 Lanczos)
    mxnet_pixels = {2: [[20, 42], [108, 130]], 3: [[25, 45], [105, 125]], 4: [[21, 43], [107, 128]]}
    for interp, want in mxnet_pixels.items():
        onp.testing.assert_array_equal(T.Resize(2, interpolation=interp)(img)[..., 0], want)
    flat = onp.full((5, 7, 3), 77, onp.uint8)
    for interp in (1, 2, 3, 4):
        onp.testing.assert_array_equal(T.Resize((11, 3), interpolation=interp)(flat), 77)
    up = T.Resize(8, interpolation=1)(onp.array([[[0], [255]]], onp.uint8).repeat(2, axis=0))
    assert up[0, 0, 0] == 0 and up[0, -1, 0] == 255 and (onp.diff(up[0, :, 0].astype(int)) >= 0).all()
    assert T.Resize(3)(onp.ones((4, 4, 1), onp.float32)).dtype == onp.float32
    with pytest.raises(ValueError, match="interpolation=7 is not supported"):
        T.Resize(3, interpolation=7)(img)
    with pytest.raises(ValueError, match="size must be positive"):
        T.Resize(0)


def test_center_crop_and_crop_resize():
    img = onp.arange(36, dtype=onp.uint8).reshape(6, 6, 1)
    onp.testing.assert_array_equal(T.CenterCrop((2, 4))(img)[..., 0], img[1:5, 2:4, 0])
    assert T.CenterCrop(8)(img).shape == (8, 8, 1)  # smaller images are cropped to the ratio and resized
    onp.testing.assert_array_equal(T.CropResize(1, 2, 3, 2)(img)[..., 0], img[2:4, 1:4, 0])
    with pytest.raises(ValueError, match="does not lie inside the 6x6"):
        T.CropResize(4, 0, 3, 2)(img)


def test_random_crops_are_seeded_windows():
    img = _img(10, 12)
    np.random.seed(3)
    a = T.RandomResizedCrop(5)(img)
    np.random.seed(3)
    assert (T.RandomResizedCrop(5)(img) == a).all() and a.shape == (5, 5, 3)
    out = T.RandomCrop((4, 3), pad=2)(img)
    padded = onp.pad(img, ((2, 2), (2, 2), (0, 0)))
    windows = [padded[y:y + 3, x:x + 4] for y in range(padded.shape[0] - 2)
               for x in range(padded.shape[1] - 3)]
    assert out.shape == (3, 4, 3) and any((w == out).all() for w in windows)


def test_flips():
    img = _img()
    onp.testing.assert_array_equal(T.RandomFlipLeftRight(p=1.0)(img), img[:, ::-1])
    onp.testing.assert_array_equal(T.RandomFlipTopBottom(p=1.0)(img), img[::-1])
    onp.testing.assert_array_equal(T.RandomFlipLeftRight(p=0.0)(img), img)
    np.random.seed(0)
    flips = [bool((T.RandomFlipLeftRight()(img) != img).any()) for _ in range(40)]
    assert 5 < sum(flips) < 35
    batch = onp.stack([img] * 16)
    out = T.RandomFlipLeftRight()(batch)
    assert len({bool((o == img).all()) for o in out}) == 2  # each image of a batch draws its own flip


def test_colour_adjustments():
    img = _img()
    onp.testing.assert_array_equal(C.adjust_brightness(img, 0.5), (img * onp.float32(0.5)).astype(onp.uint8))
    assert C.adjust_brightness(img, 10.0).max() == 255  # saturated, not wrapped
    onp.testing.assert_array_equal(C.adjust_contrast(img, 1.0), img)
    assert onp.ptp(C.adjust_contrast(img, 0.0).astype(int)) <= 1  # all the mean gray
    gray = C.adjust_saturation(img, 0.0).astype(int)
    assert (onp.ptp(gray, axis=-1) <= 1).all()
    red = onp.zeros((1, 1, 3), onp.uint8)
    red[..., 0] = 255
    onp.testing.assert_array_equal(C.adjust_hue(red, 1 / 3)[0, 0], [0, 255, 0])
    assert onp.abs(C.adjust_hue(img, 1.0).astype(int) - img).max() <= 1
    onp.testing.assert_array_equal(C.adjust_lighting(img, [0, 0, 0]), img)
    onp.testing.assert_array_equal(C.adjust_hue(img[..., :1], 0.3), img[..., :1])


@pytest.mark.parametrize("t", [T.RandomBrightness(0.4), T.RandomContrast(0.4), T.RandomSaturation(0.4),
                               T.RandomHue(0.2), T.RandomLighting(0.1),
                               T.RandomColorJitter(0.4, 0.4, 0.4, 0.1)])
def test_random_colour_transforms_are_seeded(t):
    img = _img()
    np.random.seed(4)
    a = t(img)
    np.random.seed(4)
    assert (t(img) == a).all() and a.dtype == onp.uint8 and a.shape == img.shape
    assert t(onp.stack([img, img])).shape == (2, *img.shape)


def test_bad_arguments():
    with pytest.raises(ValueError, match="must be non-negative"):
        T.RandomBrightness(-1)
    with pytest.raises(ValueError, match=r"size must be an int or a \(width, height\) pair"):
        T.CenterCrop((1, 2, 3))
    with pytest.raises(TypeError, match=r"transforms\[1\] is a int"):
        T.Compose([T.ToTensor(), 3])
