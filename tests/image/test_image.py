"""framework.image: decoding, resize_short shapes and center_crop boxes against MXNet 1.9.1."""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import image
from tests.conftest import count_compiles

REF = Path(__file__).resolve().parents[1] / "reference" / "recordio"


def test_resize_short_and_center_crop_follow_mxnet():
    d = onp.load(REF / "image_ops.npz")
    for h, w, size, *shape in d["resize_short"].tolist():
        assert list(image.resize_short(onp.zeros((h, w, 3), onp.uint8), size).shape) == shape
    for h, w, cw, ch, x0, y0, bw, bh, *shape in d["center_crop"].tolist():
        out, box = image.center_crop(onp.zeros((h, w, 3), onp.uint8), (cw, ch))
        assert list(box) == [x0, y0, bw, bh] and list(out.shape) == shape


def test_imread_imresize_keep_content_and_array_kind(tmp_path):
    from PIL import Image

    rs = onp.random.RandomState(0)
    img = rs.randint(0, 256, (6, 8, 3)).astype(onp.uint8)
    Image.fromarray(img).save(tmp_path / "a.png")
    onp.testing.assert_array_equal(image.imread(tmp_path / "a.png"), img)
    assert image.imread(tmp_path / "a.png", flag=0).shape == (6, 8, 1)
    onp.testing.assert_array_equal(image.imread(tmp_path / "a.png", to_rgb=False), img[:, :, ::-1])
    flat = onp.full((4, 4, 3), 77, onp.uint8)
    up = image.imresize(jnp.asarray(flat), 8, 6)
    assert isinstance(up, jax.Array) and up.shape == (6, 8, 3) and bool((up == 77).all())
    nearest = image.imresize(img, 16, 12, interp=0)
    onp.testing.assert_array_equal(nearest[::2, ::2], img)


def test_resizing_jax_images_of_new_sizes_compiles_nothing():
    src = jax.device_put(onp.full((5, 7, 3), 9, onp.uint8))

    def new_sizes():
        for w in (9, 11, 13):
            out = image.imresize(src, w, w + 1)
            assert isinstance(out, jax.Array) and out.shape == (w + 1, w, 3) and out.dtype == onp.uint8

    assert count_compiles(new_sizes) == 0


def test_color_normalize_on_jax_arrays():
    x = jnp.ones((2, 2, 3)) * 10
    out = image.color_normalize(x, jnp.array([1.0, 2.0, 3.0]), jnp.array([3.0, 4.0, 7.0]))
    assert out[0, 0].tolist() == [3.0, 2.0, 1.0]


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="imdecode: cannot decode 9 bytes as an image"):
        image.imdecode(b"not a png")
    with pytest.raises(ValueError, match="interp=7 is not one of"):
        image.imresize(onp.zeros((2, 2, 3), onp.uint8), 4, 4, interp=7)
    with pytest.raises(ValueError, match="target size w=0"):
        image.imresize(onp.zeros((2, 2, 3), onp.uint8), 0, 4)
