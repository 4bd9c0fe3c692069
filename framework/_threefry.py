"""JAX's default random keys computed in host memory: creating a key, folding data into it, and the
uniform values of a flat draw, bit for bit those of ``jax.random``.

Every ``jax.random`` function called outside a trace is a compiled program: ``jax.random.key(0)``, a
``fold_in`` and a flat ``uniform`` draw cost their tracing and lowering in every new process (10-50 ms
each) and their XLA compile in the first (30-150 ms each), which is most of what initialising a small
network costs before its first step. The arithmetic is small: a key is two 32-bit words, and the
generator (``threefry2x32``, the Threefry-2x32 block cipher with 20 rounds of Salmon et al., 2011,
"Parallel random numbers: as easy as 1, 2, 3") is additions, rotations and exclusive ors of 32-bit
words, which NumPy computes exactly as XLA does. Here are those computations for JAX's default key
type (``threefry2x32``) with its default bit layout (``jax_threefry_partitionable``); anything else,
and any traced key, is ``jax.random``'s own.

>>> import jax
>>> k = key(7)
>>> bool((jax.random.key_data(k) == jax.random.key_data(jax.random.key(7))).all())
True
>>> a = fold_in(k, 3)
>>> bool((jax.random.key_data(a) == jax.random.key_data(jax.random.fold_in(jax.random.key(7), 3))).all())
True
>>> u = uniform_flat(draw_words(a), 5)
>>> bool((u == jax.device_get(jax.random.uniform(a, (5,)))).all())
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import numpy as onp

from . import _jax_compat

__all__ = ["key", "fold_in", "fold_in_words", "draw_words", "uniform_flat", "host_key_data", "cpu_device",
           "threefry2x32"]

_U32 = onp.uint32
_PARITY = _U32(0x1BD11BDA)  # the key schedule's constant (Threefry's C240 for 32-bit words)
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))  # Threefry-2x32's rotation distances, by round group
_KEY_DTYPE = "key<fry>"  # the dtype name of a typed threefry2x32 key
_ONE_BITS = _U32(0x3F800000)  # the bits of float32 1.0


def threefry2x32(k0: Any, k1: Any, x0: onp.ndarray, x1: onp.ndarray) -> tuple[onp.ndarray, onp.ndarray]:
    """The Threefry-2x32 block cipher (20 rounds) of the counter pairs ``(x0[i], x1[i])`` under the key
    ``(k0, k1)``: two uint32 arrays of ``x0``'s shape (JAX's ``threefry2x32`` primitive).

    >>> [int(v[0]) for v in threefry2x32(0, 0, onp.zeros(1, onp.uint32), onp.zeros(1, onp.uint32))]
    [1797259609, 2579123966]
    """
    schedule = (_U32(k0), _U32(k1), _U32(k0) ^ _U32(k1) ^ _PARITY)
    a = onp.asarray(x0, _U32) + schedule[0]
    b = onp.asarray(x1, _U32) + schedule[1]
    for group in range(5):
        for r in _ROTATIONS[group % 2]:
            a += b
            high = b >> _U32(32 - r)
            b <<= _U32(r)
            b |= high
            b ^= a
        a += schedule[(group + 1) % 3]
        b += schedule[(group + 2) % 3] + _U32(group + 1)
    return a, b


def cpu_device(x: jax.Array) -> jax.Device | None:
    """The CPU device ``x`` lives on, or None (several devices, or an accelerator)."""
    devices = x.devices()
    if len(devices) != 1:
        return None
    (device,) = devices
    return device if device.platform == "cpu" else None


def host_key_data(k: Any) -> onp.ndarray | None:
    """The two words of ``k`` when it is a concrete threefry key on one CPU device and an operation on it
    now gives a concrete value (None otherwise: traced keys or a trace under way, raw ``uint32`` keys,
    other generators, arrays of keys, accelerators)."""
    if isinstance(k, jax.core.Tracer) or not isinstance(k, jax.Array) or k.shape != () \
            or str(k.dtype) != _KEY_DTYPE or not _jax_compat.evaluates_eagerly():
        return None
    return None if cpu_device(k) is None else onp.asarray(jax.random.key_data(k))


def _wrap(data: onp.ndarray, like: jax.Array | None) -> jax.Array:
    """A typed key of ``data``, placed (and committed) as ``like`` is; on the default device without."""
    if like is not None and like.committed:
        return jax.random.wrap_key_data(jax.device_put(data, next(iter(like.devices()))))
    return jax.random.wrap_key_data(data)


def key(seed: int) -> jax.Array:
    """``jax.random.key(seed)`` without a program, for seeds of ``0 <= seed < 2**31`` under the default
    generator (others are ``jax.random.key``'s): the key's words are ``(0, seed)``."""
    if jax.config.jax_default_prng_impl != "threefry2x32" or isinstance(seed, bool) \
            or not isinstance(seed, (int, onp.integer)) or not 0 <= int(seed) < 2 ** 31:
        return jax.random.key(seed)
    return _wrap(onp.array([0, int(seed)], _U32), None)


def fold_in_words(words: onp.ndarray, data: int) -> onp.ndarray:
    """The words of ``fold_in(key, data)`` from the words of ``key``: the key enciphers the counter pair
    ``(0, data)``, for ``0 <= data < 2**32``."""
    a, b = threefry2x32(words[0], words[1], onp.zeros(1, _U32), onp.full(1, data, _U32))
    return onp.concatenate([a, b])


def fold_in(k: jax.Array, data: Any,
            fallback: Callable[[Any, Any], jax.Array] = jax.random.fold_in) -> jax.Array:
    """``jax.random.fold_in(k, data)``, in host memory for a concrete threefry key on a CPU device and an
    integer ``0 <= data < 2**32``; anything else is ``fallback(k, data)``."""
    words = host_key_data(k)
    if words is None or isinstance(data, (bool, jax.core.Tracer)) \
            or not isinstance(data, (int, onp.integer)) or not 0 <= int(data) < 2 ** 32:
        return fallback(k, data)
    return _wrap(fold_in_words(words, int(data)), k)


def draw_words(k: Any) -> onp.ndarray | None:
    """The words of ``k`` where :func:`uniform_flat` computes its draws (:func:`host_key_data`, under
    JAX's default bit layout ``jax_threefry_partitionable``), else None."""
    return host_key_data(k) if jax.config.jax_threefry_partitionable else None


def uniform_flat(words: onp.ndarray, length: int) -> onp.ndarray:
    """``jax.random.uniform(key, (length,))`` (float32 in ``[0, 1)``) in host memory, from the words of
    :func:`draw_words`: the flat index ``i`` (``< 2**32``) is the counter pair ``(0, i)``, and the two
    enciphered words' exclusive or gives the 23 bits of the mantissa."""
    a, b = threefry2x32(words[0], words[1], onp.zeros(length, _U32), onp.arange(length, dtype=_U32))
    a ^= b
    a >>= _U32(9)
    a |= _ONE_BITS
    out = a.view(onp.float32)
    out -= onp.float32(1.0)
    return out
