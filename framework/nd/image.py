"""MXNet 1.x's ``mx.nd.image`` operators (see :mod:`framework.npx.image_ops`): ``to_tensor``,
``normalize``, ``crop``, ``resize``, ``flip_left_right``/``flip_top_bottom``, ``adjust_lighting`` and the
random ones (``random_flip_*``, ``random_brightness``/``contrast``/``saturation``/``hue``,
``random_color_jitter``, ``random_lighting``), whose key is drawn when called.

>>> import framework as mx
>>> mx.nd.image.to_tensor(mx.nd.zeros((4, 5, 3), dtype='uint8')).shape
(3, 4, 5)
"""

from __future__ import annotations

import functools
from typing import Any

from ..np import random as _random
from ..npx import image_ops as _ops
from ._op import nd_op

__all__ = ["to_tensor", "normalize", "crop", "resize", "flip_left_right", "flip_top_bottom",
           "adjust_lighting", "random_flip_left_right", "random_flip_top_bottom", "random_brightness",
           "random_contrast", "random_saturation", "random_hue", "random_color_jitter", "random_lighting"]

to_tensor = nd_op(_ops.to_tensor)
normalize = nd_op(_ops.normalize)
crop = nd_op(_ops.crop)
resize = nd_op(_ops.resize)
flip_left_right = nd_op(_ops.flip_left_right)
flip_top_bottom = nd_op(_ops.flip_top_bottom)
adjust_lighting = nd_op(_ops.adjust_lighting)


def _random_op(kernel: Any) -> Any:
    op = nd_op(kernel)

    @functools.wraps(kernel)
    def wrapper(*args: Any, key: Any = None, **kwargs: Any) -> Any:
        return op(*args, key=_random.next_key() if key is None else key, **kwargs)

    return wrapper


random_flip_left_right = _random_op(_ops.random_flip_left_right)
random_flip_top_bottom = _random_op(_ops.random_flip_top_bottom)
random_brightness = _random_op(_ops.random_brightness)
random_contrast = _random_op(_ops.random_contrast)
random_saturation = _random_op(_ops.random_saturation)
random_hue = _random_op(_ops.random_hue)
random_color_jitter = _random_op(_ops.random_color_jitter)
random_lighting = _random_op(_ops.random_lighting)
