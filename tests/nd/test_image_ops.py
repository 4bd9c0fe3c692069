"""``nd.image``/``npx.image`` beyond the MXNet reference cases: the random operators (reproducible from
the framework's seed, inside their ranges), flips of odd sizes (MXNet 1.9.1 leaves the middle row
unwritten), saturation of uint8 results."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as onp

import framework as mx
from framework import nd, npx


def _img():
    return nd.array(onp.random.RandomState(0).randint(0, 256, (5, 7, 3)), dtype="uint8")


def test_random_ops_follow_the_seed_and_their_ranges():
    img = _img()
    for op, kw in [(nd.image.random_brightness, dict(min_factor=0.5, max_factor=1.5)),
                   (nd.image.random_contrast, dict(min_factor=0.5, max_factor=1.5)),
                   (nd.image.random_saturation, dict(min_factor=0.5, max_factor=1.5)),
                   (nd.image.random_hue, dict(min_factor=-0.2, max_factor=0.2)),
                   (nd.image.random_color_jitter,
                    dict(brightness=0.3, contrast=0.3, saturation=0.3, hue=0.1)),
                   (nd.image.random_lighting, dict(alpha_std=0.1)),
                   (nd.image.random_flip_left_right, {}), (nd.image.random_flip_top_bottom, {})]:
        mx.random.seed(5)
        a = op(img, **kw)
        mx.random.seed(5)
        b = op(img, **kw)
        assert a.dtype == jnp.uint8 and a.shape == img.shape
        onp.testing.assert_array_equal(a, b)
    bright = nd.image.random_brightness(img, min_factor=2.0, max_factor=2.0)
    want = onp.clip(onp.asarray(img, onp.float32) * 2, 0, 255).astype(onp.uint8)
    onp.testing.assert_array_equal(bright, want)


def test_hue_of_a_full_turn_is_the_identity_and_flips_are_exact():
    img = _img()
    back = nd.image.random_hue(img, min_factor=1.0, max_factor=1.0)
    assert int(onp.abs(onp.asarray(back, onp.int32) - onp.asarray(img, onp.int32)).max()) <= 1
    onp.testing.assert_array_equal(nd.image.flip_left_right(img), onp.asarray(img)[:, ::-1])
    onp.testing.assert_array_equal(npx.image.flip_top_bottom(img), onp.asarray(img)[::-1])


def test_npx_image_has_mx_image_names_too():
    assert callable(npx.image.to_tensor) and callable(npx.image.imresize)
    assert npx.Context is mx.Context
