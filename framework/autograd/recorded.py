"""The value a recorded computation returns: array-like, lazy, differentiable with ``backward()``.

Outside ``autograd.record()`` everything is a plain ``jax.Array``; inside it, Blocks, losses and
``np``/``npx`` functions return ``Recorded`` values. They behave like arrays in a training loop
(arithmetic, reductions, indexing, ``float()``, ``asnumpy()``...), and ``backward()`` differentiates
the computation that produced them.

>>> from framework import autograd, gluon, np
>>> net = gluon.nn.Dense(1, in_units=2)
>>> net.initialize()
>>> with autograd.record():
...     loss = (net(np.ones((4, 2))) ** 2).mean()
>>> loss.backward()
>>> net.weight.grad().shape
(1, 2)
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from . import tape

__all__ = ["Recorded"]


def _op(fn):
    def method(self, *args, **kwargs):
        return tape.record_call(fn, (self, *args), kwargs)

    method.__name__ = getattr(fn, "__name__", "op")
    return method


def _rop(fn):
    def method(self, other):
        return tape.record_call(fn, (other, self), {})

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


class Recorded:
    """A value of a recorded computation (one output of one recorded call).

    It deliberately has no ``__jax_array__``: ``jax_array * recorded`` then defers to
    ``Recorded.__rmul__`` and stays recorded, instead of silently dropping out of the graph.
    """

    __slots__ = ("_node", "_index", "aval", "_value", "__weakref__")
    __array_priority__ = 1000

    def __init__(self, node: tape.Node, index: int, aval: jax.ShapeDtypeStruct) -> None:
        self._node = node
        self._index = index
        self.aval = aval
        self._value: jax.Array | None = None

    # -------------------------------------------------------------- value access
    @property
    def value(self) -> jax.Array:
        """The concrete ``jax.Array`` (computed on first access)."""
        if self._value is None:
            tape.materialize([self])
        return self._value

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

    def block_until_ready(self) -> Recorded:
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

    @property
    def device(self) -> jax.Device:
        return self._devices()[0]

    def devices(self) -> set[jax.Device]:
        return set(self._devices())

    def _devices(self) -> list[jax.Device]:
        node = self._node
        while True:
            if node.device is not None:
                return [node.device]
            for x in node.inputs:
                if isinstance(x, Recorded):
                    node = x._node
                    break
                if isinstance(x, jax.Array) and len(x.devices()) == 1:
                    return list(x.devices())
            else:
                return list(self.value.devices())

    context = ctx = device

    # -------------------------------------------------------------- autograd
    def backward(self, out_grad: Any = None, retain_graph: bool = False, train_mode: bool = True) -> None:
        """Differentiate this value (its sum if not scalar) and write the Parameters' gradients."""
        tape.backward([self], None if out_grad is None else [out_grad], retain_graph=retain_graph)

    def detach(self) -> jax.Array:
        return jax.lax.stop_gradient(self.value)

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
    def T(self) -> Recorded:
        return self.transpose()
