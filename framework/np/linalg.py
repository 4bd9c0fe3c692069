"""MXNet's ``np.linalg``: every ``jax.numpy.linalg`` function, recorded under ``autograd.record()``
(``np.linalg.norm(b)`` of a recorded ``b`` is a node of the recorded computation, as in MXNet).

>>> from framework import autograd, np
>>> x = autograd.attach_grad(np.array([3.0, 4.0]))
>>> with autograd.record():
...     n = np.linalg.norm(x)
>>> n.backward()
>>> float(n), x.grad.tolist()
(5.0, [0.6000000238418579, 0.800000011920929])
"""

from __future__ import annotations

import jax.numpy.linalg as _jla

from .dispatch import recordable as _recordable


def __getattr__(name: str):
    try:
        value = getattr(_jla, name)
    except AttributeError:
        raise AttributeError(
            f"framework.np.linalg has no attribute {name!r} (neither has jax.numpy.linalg)") from None
    if callable(value) and not isinstance(value, type):
        value = _recordable(value)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(dir(_jla)))
