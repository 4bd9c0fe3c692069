"""The transform protocol, Compose, and the per-pixel transforms ToTensor, Normalize and Cast.

MXNet's transforms are Blocks; these are plain callables with MXNet's constructor signatures, working
on numpy arrays on the host. A *batch-safe* transform treats every sample alike, so it also has a
``_batch_call(batch)`` that runs on a whole batch at once (the DataLoader's fast path): it gives the
same values as calling it on each sample and stacking, and it may overwrite ``batch``, which the
caller owns.

>>> import numpy as onp
>>> img = onp.full((2, 2, 3), 255, dtype=onp.uint8)
>>> t = Compose([ToTensor(), Normalize(0.5, 0.25)])
>>> out = t(img)
>>> out.shape, out.dtype.name, float(out[0, 0, 0])
((3, 2, 2), 'float32', 2.0)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as onp

from ..._batching import aligned_empty

__all__ = ["Transform", "BatchSafeTransform", "Compose", "ToTensor", "Normalize", "Cast", "as_image"]


def as_image(x: Any, who: str, layout: str = "HWC", *, batch: bool = True) -> onp.ndarray:
    """``x`` as a numpy image of ``layout`` (``'HWC'`` or ``'CHW'``), or (``batch``) a batch of them."""
    x = onp.asarray(x)
    if x.ndim not in ((3, 4) if batch else (3,)):
        one, many = ", ".join(layout), ", ".join("N" + layout)
        also = f" or a batch ({many})" if batch else ""
        raise ValueError(f"{who}: expected an image of shape ({one}){also}, got shape "
                         f"{x.shape}. Add a channel axis to a grayscale image with x[..., None]"
                         f"{' (HWC)' if layout == 'HWC' else ' or x[None] (CHW)'}.")
    return x


class Transform:
    """Base class: ``transform(x)`` calls :meth:`forward`."""

    def __call__(self, x: Any) -> Any:
        return self.forward(x)

    def forward(self, x: Any) -> Any:
        raise NotImplementedError

    def hybridize(self, *args: Any, **kwargs: Any) -> None:
        """Accepted for compatibility with MXNet's HybridBlock transforms: these run on the host."""

    def __repr__(self) -> str:
        args = ", ".join(f"{k.lstrip('_')}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({args})"


class BatchSafeTransform(Transform):
    """A transform that treats every sample alike; ``_apply(x, owned)`` works on one sample or a batch.

    ``_sample_ndims`` are the sample ranks whose batches :meth:`_batch_call` accepts.
    """

    _sample_ndims: tuple[int, ...] = (3,)

    def forward(self, x: Any) -> Any:
        return self._apply(onp.asarray(x), owned=False)

    def _batch_call(self, batch: onp.ndarray) -> Any:
        if batch.ndim - 1 not in self._sample_ndims:
            return NotImplemented
        return self._apply(batch, owned=True)

    def _apply(self, x: onp.ndarray, owned: bool) -> onp.ndarray:
        raise NotImplementedError


class Compose(Transform):
    """Apply ``transforms`` in order. Batch-safe when all of them are.

    >>> Compose([Cast('float32'), lambda x: x * 2])(onp.ones(2, 'uint8')).tolist()
    [2.0, 2.0]
    """

    def __init__(self, transforms: Sequence[Callable[[Any], Any]]) -> None:
        self._transforms = list(transforms)
        for i, t in enumerate(self._transforms):
            if not callable(t):
                raise TypeError(f"Compose: transforms[{i}] is a {type(t).__name__}, not a callable "
                                "transform.")

    def forward(self, x: Any) -> Any:
        for t in self._transforms:
            x = t(x)
        return x

    def _batch_call(self, batch: onp.ndarray) -> Any:
        for t in self._transforms:
            call = getattr(t, "_batch_call", None)
            if call is None:
                return NotImplemented
            batch = call(batch)
            if batch is NotImplemented:
                return NotImplemented
        return batch

    def __len__(self) -> int:
        return len(self._transforms)

    def __getitem__(self, i: int) -> Callable[[Any], Any]:
        return self._transforms[i]

    def __repr__(self) -> str:
        inner = "\n".join(f"  ({i}): {t!r}" for i, t in enumerate(self._transforms))
        return f"Compose(\n{inner}\n)"


class Cast(BatchSafeTransform):
    """Cast to ``dtype``.

    >>> Cast('float16')(onp.ones(2)).dtype.name
    'float16'
    """

    _sample_ndims = tuple(range(0, 8))

    def __init__(self, dtype: Any = "float32") -> None:
        self._dtype = onp.dtype(dtype)

    def _apply(self, x: onp.ndarray, owned: bool) -> onp.ndarray:
        return x.astype(self._dtype, copy=not owned)


class ToTensor(BatchSafeTransform):
    """HWC image (uint8 in [0, 255]) -> CHW float32 in [0, 1]; NHWC batches -> NCHW.

    >>> ToTensor()(onp.full((4, 5, 3), 51, 'uint8')).shape
    (3, 4, 5)
    """

    def _apply(self, x: onp.ndarray, owned: bool) -> onp.ndarray:
        x = as_image(x, "ToTensor")
        if x.shape[-1] == 1:  # moving a single channel is a reshape, not a transpose
            src = x.reshape(*x.shape[:-3], 1, *x.shape[-3:-1])
        else:
            src = x.transpose((0, 3, 1, 2) if x.ndim == 4 else (2, 0, 1))
        out = aligned_empty(src.shape, onp.float32)
        onp.copyto(out, src, casting="same_kind")  # exact for uint8; then x / 255.0f as MXNet
        onp.divide(out, onp.float32(255), out=out)
        return out


def _per_channel(v: onp.ndarray, channels: int, who: str, name: str) -> onp.ndarray:
    if v.size == 1:
        return v.reshape(())
    if v.size != channels:
        raise ValueError(f"{who}: {name} has {v.size} values but the input has {channels} channels; give "
                         f"one value, or one per channel.")
    return v.reshape(channels, 1, 1)


class Normalize(BatchSafeTransform):
    """``(x - mean) / std`` per channel of a CHW tensor (or NCHW batch); scalars apply to every channel.

    >>> Normalize((0.5, 0.0), (0.5, 1.0))(onp.ones((2, 1, 1), 'float32')).ravel().tolist()
    [1.0, 1.0]
    """

    def __init__(self, mean: float | Sequence[float] = 0.0, std: float | Sequence[float] = 1.0) -> None:
        self._mean = onp.asarray(mean, dtype=onp.float32).reshape(-1)
        self._std = onp.asarray(std, dtype=onp.float32).reshape(-1)
        if not (self._mean.size and self._std.size):
            raise ValueError(f"Normalize: mean={mean!r} and std={std!r} must each hold one value or one per "
                             "channel.")
        if (self._std == 0).any():
            raise ValueError(f"Normalize: std={std!r} contains 0; every std must be non-zero.")

    def _apply(self, x: onp.ndarray, owned: bool) -> onp.ndarray:
        x = as_image(x, "Normalize", "CHW")
        channels = x.shape[-3]
        mean = _per_channel(self._mean, channels, "Normalize", "mean")
        std = _per_channel(self._std, channels, "Normalize", "std")
        if x.dtype.kind != "f":
            x, owned = x.astype(onp.float32), True
        if not owned:
            return (x - mean) / std
        onp.subtract(x, mean, out=x)
        onp.divide(x, std, out=x)
        return x
