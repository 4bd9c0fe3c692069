"""Batchify functions: how a list of samples becomes a batch (MXNet's ``gluon.data.batchify``).

They build host (numpy) arrays; the :class:`~framework.gluon.data.DataLoader` turns every array of
the batch into a ``jax.Array`` on the CPU device, as MXNet's loader yields CPU NDArrays.

>>> import numpy as onp
>>> Stack()([onp.array([1, 2]), onp.array([3, 4])])
array([[1, 2],
       [3, 4]])
>>> Pad(val=-1)([[1, 2, 3], [4]])
array([[ 1,  2,  3],
       [ 4, -1, -1]])
>>> data, label = Group(Pad(), Stack())([([1, 2], 0), ([3], 1)])
>>> data.tolist(), label.tolist()
([[1, 2], [3, 0]], [0, 1])
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as onp

__all__ = ["Stack", "Pad", "Append", "Group", "Tuple", "AsList", "default_batchify_fn",
           "default_mp_batchify_fn"]


def host(x: Any) -> Any:
    """A ``jax.Array`` becomes a numpy array; anything else is left as it is."""
    if type(x).__module__.startswith("jax") and hasattr(x, "__array__"):
        return onp.asarray(x)
    return x


def _stack(data: Sequence[Any], who: str) -> onp.ndarray:
    samples = [host(x) for x in data]
    try:
        return onp.stack(samples) if isinstance(samples[0], onp.ndarray) else onp.asarray(samples)
    except ValueError as err:
        shapes = sorted({tuple(onp.shape(x)) for x in samples})
        raise ValueError(
            f"{who}: cannot stack {len(samples)} samples of different shapes {shapes[:4]}"
            f"{' ...' if len(shapes) > 4 else ''} into one batch ({err}). Make the samples one shape "
            "(e.g. transforms.Resize), or pass batchify_fn=batchify.Pad() to pad them."
        ) from None


def default_batchify_fn(data: Sequence[Any]) -> Any:
    """MXNet's default: stack arrays and numbers; tuple samples give a list with one batch per field.

    >>> [b.tolist() for b in default_batchify_fn([(1, 0.5), (2, 1.5)])]
    [[1, 2], [0.5, 1.5]]
    """
    if not len(data):
        raise ValueError("default_batchify_fn: got an empty list of samples.")
    if isinstance(data[0], tuple):
        return [default_batchify_fn(field) for field in zip(*data, strict=True)]
    return _stack(data, "default_batchify_fn")


default_mp_batchify_fn = default_batchify_fn
"""Worker processes send numpy batches to the main process, so the same function serves them."""


class Stack:
    """Stack samples of one shape into a batch (arrays, numbers or lists of numbers).

    >>> Stack()([[1, 2], [3, 4]]).shape
    (2, 2)
    """

    def __init__(self, use_shared_mem: bool = False) -> None:
        self._use_shared_mem = use_shared_mem

    def __call__(self, data: Sequence[Any]) -> Any:
        return _stack(data, "batchify.Stack")


class Pad:
    """Pad samples with ``val`` to the largest size on every axis, then stack them.

    ``round_to`` rounds each padded size up to a multiple of it; ``dtype`` sets the output type
    (default: the samples' type). New, keyword-only: ``ret_length=True`` also returns the original
    length of each sample along its first axis (GluonNLP's option).

    >>> Pad(round_to=4)([[1, 2, 3], [4]]).shape
    (2, 4)
    """

    def __init__(self, val: float | None = None, dtype: Any = None, round_to: int | None = None,
                 use_shared_mem: bool = False, *, ret_length: bool = False) -> None:
        if round_to is not None and (not isinstance(round_to, int) or round_to <= 0):
            raise ValueError(f"batchify.Pad: round_to must be a positive integer or None, got {round_to!r}.")
        self._pad_val = 0 if val is None else val
        self._dtype = dtype
        self._round_to = round_to
        self._use_shared_mem = use_shared_mem
        self._ret_length = ret_length

    def __call__(self, data: Sequence[Any]) -> Any:
        if not isinstance(host(data[0]), onp.ndarray | list):
            raise TypeError(
                f"batchify.Pad: each sample must be an array or a list, got {type(data[0]).__name__}. "
                "Pad() does not support multiple items, use Group(Pad(), Pad(), ...) instead."
            )
        arrs = [onp.asarray(host(x)) for x in data]
        dtype = arrs[0].dtype if self._dtype is None else onp.dtype(self._dtype)
        ndims = {a.ndim for a in arrs}
        if len(ndims) != 1:
            raise ValueError(f"batchify.Pad: samples have different numbers of dimensions {sorted(ndims)}; "
                             "Pad needs the same number of axes in every sample.")
        shape = [max(a.shape[ax] for a in arrs) for ax in range(arrs[0].ndim)]
        if self._round_to is not None:
            shape = [self._round_to * math.ceil(n / self._round_to) for n in shape]
        out = onp.full((len(arrs), *shape), self._pad_val, dtype=dtype)
        for i, a in enumerate(arrs):
            out[(i, *(slice(0, n) for n in a.shape))] = a
        if self._ret_length:
            lengths = onp.asarray([a.shape[0] if a.ndim else 1 for a in arrs], dtype=onp.int32)
            return out, lengths
        return out


class Append:
    """Keep samples separate: a list of arrays, each with a batch axis of size 1 added (``expand``).

    >>> [a.shape for a in Append()([[1, 2, 3], [4]])]
    [(1, 3), (1, 1)]
    """

    def __init__(self, expand: bool = True, batch_axis: int = 0, use_shared_mem: bool = False) -> None:
        self._expand = expand
        self._batch_axis = batch_axis
        self._use_shared_mem = use_shared_mem

    def __call__(self, data: Sequence[Any]) -> list[onp.ndarray]:
        out = [onp.asarray(host(x)) for x in data]
        if self._expand:
            out = [onp.expand_dims(x, axis=self._batch_axis) for x in out]
        return out


class Group:
    """Apply the ``i``-th batchify function to the ``i``-th field of every sample; returns a tuple.

    ``Group(A, B)`` and ``Group([A, B])`` are the same. :class:`Tuple` is another name for it.

    >>> a, b = Group(Stack(), AsList())([([1], 'x'), ([2], 'y')])
    >>> a.tolist(), b
    ([[1], [2]], ['x', 'y'])
    """

    def __init__(self, fn: Callable[..., Any] | Sequence[Callable[..., Any]],
                 *args: Callable[..., Any]) -> None:
        if isinstance(fn, list | tuple):
            if args:
                raise ValueError(
                    "Input pattern not understood. The input of Group can be Group(A, B, C) or "
                    f"Group([A, B, C]) or Group((A, B, C)). Received fn={fn!r}, args={args!r}")
            self._fn = tuple(fn)
        else:
            self._fn = (fn, *args)
        for i, f in enumerate(self._fn):
            if not callable(f):
                raise TypeError(f"Batchify functions must be callable! type(fn[{i}]) = {type(f).__name__}")

    def __call__(self, data: Sequence[Any]) -> tuple[Any, ...]:
        if len(data[0]) != len(self._fn):
            raise ValueError(f"The number of attributes in each data sample should contain "
                             f"{len(self._fn)} elements (one per batchify function), got {len(data[0])}.")
        return tuple(f([sample[i] for sample in data]) for i, f in enumerate(self._fn))


Tuple = Group


class AsList:
    """Return the samples as a list, unchanged (for text and other non-array fields).

    >>> AsList()(('a', 'b'))
    ['a', 'b']
    """

    def __call__(self, data: Sequence[Any]) -> list[Any]:
        return list(data)
