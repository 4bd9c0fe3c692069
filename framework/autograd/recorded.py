"""The array surface of recorded values: operators, reductions, indexing and host conversions.

:class:`ArrayOps` is a mixin with no state of its own: each operation hands ``(function, arguments)``
to ``self._record_op`` (the recorder adds one node) and each conversion reads ``self.value`` (the
concrete array) or ``self.aval`` (shape and dtype, known without computing anything). The recorder's
value class, :class:`framework.autograd.Recorded`, mixes it in.

>>> import jax.numpy as jnp
>>> class Eager(ArrayOps):
...     def __init__(self, v): self.value = v; self.aval = v
...     def _record_op(self, fn, args, kwargs):
...         return fn(*[a.value if isinstance(a, Eager) else a for a in args], **kwargs)
>>> (Eager(jnp.arange(3.0)) * 2).tolist(), Eager(jnp.ones((2, 3))).shape
([0.0, 2.0, 4.0], (2, 3))
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

__all__ = ["ArrayOps"]


def _op(fn):
    def method(self, *args, **kwargs):
        return self._record_op(fn, (self, *args), kwargs)

    method.__name__ = getattr(fn, "__name__", "op")
    return method


def _rop(fn):
    def method(self, other):
        return self._record_op(fn, (other, self), {})

    return method


def _reshape(x, *shape, **kwargs):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return jnp.reshape(x, shape, **kwargs)


def _transpose(x, *axes):
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])
    return jnp.transpose(x, axes or None)


def _astype(x, dtype, copy=True):
    return x.astype(dtype)


def _getitem(x, key):
    return x[key]


def _to_device(x, device):
    return jax.device_put(x, device)


class ArrayOps:
    """Array-like behaviour over ``self.value`` / ``self.aval`` / ``self._record_op`` (see module doc).

    It deliberately has no ``__jax_array__``: ``jax_array * recorded`` then defers to ``__rmul__`` and
    stays recorded, instead of silently dropping out of the graph.
    """

    __slots__ = ()
    __array_priority__ = 1000

    # -------------------------------------------------------------- value access
    def __array__(self, dtype: Any = None, copy: Any = None) -> onp.ndarray:
        out = onp.asarray(self.value)
        return out.astype(dtype) if dtype is not None else out

    def asnumpy(self) -> onp.ndarray:
        return onp.asarray(self.value)

    def item(self, *args: Any) -> Any:
        return self.value.item(*args)

    def tolist(self) -> Any:
        return self.value.tolist()

    def __float__(self) -> float:
        return float(self.value)

    def __int__(self) -> int:
        return int(self.value)

    def __index__(self) -> int:
        return int(self.value)

    def __bool__(self) -> bool:
        return bool(self.value)

    def __len__(self) -> int:
        if not self.aval.shape:
            raise TypeError("len() of a 0-d recorded value")
        return self.aval.shape[0]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __repr__(self) -> str:
        return f"{self.value!r} (recorded)"

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    def wait_to_read(self) -> None:
        self.value.block_until_ready()

    def block_until_ready(self) -> ArrayOps:
        self.value.block_until_ready()
        return self

    # -------------------------------------------------------------- metadata (no compute)
    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.aval.shape)

    @property
    def dtype(self) -> Any:
        return self.aval.dtype

    @property
    def ndim(self) -> int:
        return len(self.aval.shape)

    @property
    def size(self) -> int:
        return int(onp.prod(self.aval.shape, dtype=onp.int64))


    # -------------------------------------------------------------- array operations (recorded)
    __add__ = _op(jnp.add)
    __radd__ = _rop(jnp.add)
    __sub__ = _op(jnp.subtract)
    __rsub__ = _rop(jnp.subtract)
    __mul__ = _op(jnp.multiply)
    __rmul__ = _rop(jnp.multiply)
    __truediv__ = _op(jnp.true_divide)
    __rtruediv__ = _rop(jnp.true_divide)
    __floordiv__ = _op(jnp.floor_divide)
    __rfloordiv__ = _rop(jnp.floor_divide)
    __mod__ = _op(jnp.mod)
    __pow__ = _op(jnp.power)
    __rpow__ = _rop(jnp.power)
    __matmul__ = _op(jnp.matmul)
    __rmatmul__ = _rop(jnp.matmul)
    __neg__ = _op(jnp.negative)
    __pos__ = _op(jnp.positive)
    __abs__ = _op(jnp.abs)
    __lt__ = _op(jnp.less)
    __le__ = _op(jnp.less_equal)
    __gt__ = _op(jnp.greater)
    __ge__ = _op(jnp.greater_equal)
    __eq__ = _op(jnp.equal)  # type: ignore[assignment]
    __ne__ = _op(jnp.not_equal)  # type: ignore[assignment]
    __hash__ = object.__hash__
    __getitem__ = _op(_getitem)

    sum = _op(jnp.sum)
    mean = _op(jnp.mean)
    max = _op(jnp.max)
    min = _op(jnp.min)
    prod = _op(jnp.prod)
    std = _op(jnp.std)
    var = _op(jnp.var)
    argmax = _op(jnp.argmax)
    argmin = _op(jnp.argmin)
    exp = _op(jnp.exp)
    log = _op(jnp.log)
    sqrt = _op(jnp.sqrt)
    square = _op(jnp.square)
    abs = _op(jnp.abs)
    clip = _op(jnp.clip)
    flatten = _op(jnp.ravel)
    squeeze = _op(jnp.squeeze)
    expand_dims = _op(jnp.expand_dims)
    dot = _op(jnp.dot)
    reshape = _op(_reshape)
    transpose = _op(_transpose)
    astype = _op(_astype)
    to_device = _op(_to_device)
    copyto = as_in_context = as_in_ctx = to_device

    @property
    def T(self) -> ArrayOps:
        return self.transpose()
