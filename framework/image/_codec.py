"""JPEG/PNG encoding and decoding through Pillow (imported on first use: an optional dependency).

>>> import numpy as onp
>>> img = onp.zeros((2, 3, 3), onp.uint8); img[..., 0] = 255
>>> out = decode(encode(img, img_fmt='.png'))
>>> out.shape, out[0, 0].tolist()
((2, 3, 3), [255, 0, 0])
"""

from __future__ import annotations

import io
import warnings

import numpy as onp

from ._budget import check_pixels

__all__ = ["encode", "decode"]


def _pil():
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("framework.image needs Pillow to encode/decode images: pip install pillow") \
            from None
    return Image


def encode(img: onp.ndarray, *, quality: int = 95, img_fmt: str = ".jpg", bgr: bool = False) -> bytes:
    """Encode an HWC (or HW) uint8 image; ``bgr=True`` takes OpenCV's channel order."""
    Image = _pil()
    fmt = img_fmt.lower().lstrip(".")
    fmt = {"jpg": "JPEG", "jpeg": "JPEG", "png": "PNG"}.get(fmt)
    if fmt is None:
        raise ValueError(f"encode: img_fmt={img_fmt!r} is not supported; use '.jpg' or '.png'")
    img = onp.asarray(img)
    if img.dtype != onp.uint8:
        raise ValueError(f"encode: the image must be uint8 (HWC), got {img.dtype}")
    if img.ndim == 3 and img.shape[2] == 1:
        img = img[:, :, 0]
    if img.ndim == 3 and img.shape[2] in (3, 4) and bgr:
        img = img[:, :, [2, 1, 0, 3][: img.shape[2]]]
    if img.ndim not in (2, 3) or (img.ndim == 3 and img.shape[2] not in (3, 4)):
        raise ValueError(f"encode: expected an (H, W), (H, W, 1), (H, W, 3) or (H, W, 4) image, got "
                         f"{img.shape}")
    out = io.BytesIO()
    pil = Image.fromarray(img)
    if fmt == "JPEG":
        if pil.mode == "RGBA":
            pil = pil.convert("RGB")
        pil.save(out, format="JPEG", quality=int(quality))
    else:
        pil.save(out, format="PNG", compress_level=max(0, min(9, int(quality) // 10 if quality > 9 else 3)))
    return out.getvalue()


def decode(data: bytes, *, flag: int = 1, bgr: bool = False, max_pixels: int | None = None) -> onp.ndarray:
    """Decode JPEG/PNG bytes: ``flag`` 1 -> (H, W, 3), 0 -> (H, W) gray, -1 -> as stored. The header's
    size is checked against the pixel budget (:mod:`._budget`) before anything is decoded."""
    Image = _pil()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            pil = Image.open(io.BytesIO(bytes(data)))
            w, h = pil.size
            check_pixels(w, h, "imdecode", max_pixels)
            if flag > 0:
                pil = pil.convert("RGB")
            elif flag == 0:
                pil = pil.convert("L")
            elif pil.mode not in ("L", "RGB", "RGBA"):
                pil = pil.convert("RGBA" if "A" in pil.mode else "RGB")
            arr = onp.asarray(pil, dtype=onp.uint8)
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError,
            Image.DecompressionBombWarning) as e:
        raise ValueError(f"imdecode: cannot decode {len(data)} bytes as an image ({e})") from None
    if bgr and arr.ndim == 3:
        arr = arr[:, :, [2, 1, 0, 3][: arr.shape[2]]]
    return onp.ascontiguousarray(arr)
