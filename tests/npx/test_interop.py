"""npx.from_numpy / to_dlpack_for_read / from_dlpack: values survive, memory is shared where DLPack
allows it, and a copy is made when asked."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import npx


def _aligned(n: int) -> onp.ndarray:
    """A float32 array whose buffer starts on a 64-byte boundary (what XLA can share without a copy)."""
    raw = onp.zeros(n + 16, onp.float32)
    skip = (-raw.ctypes.data % 64) // 4
    out = raw[skip:skip + n]
    out[:] = onp.arange(n)
    return out


def test_from_numpy_shares_or_copies():
    a = _aligned(12).reshape(3, 4)
    shared = npx.from_numpy(a)
    copied = npx.from_numpy(a, zero_copy=False)
    assert isinstance(shared, jax.Array) and shared.tolist() == a.tolist() == copied.tolist()
    assert copied.unsafe_buffer_pointer() != a.ctypes.data
    assert shared.unsafe_buffer_pointer() == a.ctypes.data  # one buffer: numpy's
    strided = npx.from_numpy(a[:, ::2])  # not contiguous: copied
    assert strided.tolist() == a[:, ::2].tolist()
    with pytest.raises(TypeError, match="expected a numpy.ndarray"):
        npx.from_numpy([1, 2])


def test_dlpack_round_trips_through_numpy_and_capsules():
    x = jnp.arange(6, dtype=jnp.int32).reshape(2, 3)
    capsule = npx.to_dlpack_for_read(x)
    y = npx.from_dlpack(capsule)
    assert y.tolist() == x.tolist() and y.dtype == jnp.int32
    back = onp.from_dlpack(x)  # NumPy reads JAX's buffer
    assert back.tolist() == x.tolist()
    z = npx.from_dlpack(onp.ones((2, 2), onp.float32))  # an object with __dlpack__
    assert z.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    with pytest.raises(TypeError, match="expected an array"):
        npx.to_dlpack_for_read("x")
