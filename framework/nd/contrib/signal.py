"""``nd.contrib``'s signal, sketching and counting operators under their MXNet 1.x names: ``fft``,
``ifft``, ``count_sketch``, ``hawkesll``, ``getnnz`` (see :mod:`framework.npx.signal_ops`), and
``backward_gradientmultiplier`` (the gradient ``gradientmultiplier`` passes back: ``data * scalar``).

>>> import framework as mx
>>> mx.nd.contrib.ifft(mx.nd.contrib.fft(mx.nd.array([[1.0, 2.0, 3.0, 4.0]]))).tolist()
[[4.0, 8.0, 12.0, 16.0]]
"""

from __future__ import annotations

import jax

from ...npx import signal_ops as _signal
from .._op import nd_op

__all__ = ["fft", "ifft", "count_sketch", "hawkesll", "getnnz", "backward_gradientmultiplier"]

fft = nd_op(_signal.fft)
ifft = nd_op(_signal.ifft)
count_sketch = nd_op(_signal.count_sketch)
hawkesll = nd_op(_signal.hawkesll)
getnnz = nd_op(_signal.getnnz)


@nd_op
def backward_gradientmultiplier(data: jax.Array, scalar: float = 1.0, is_int: bool = True) -> jax.Array:
    """The gradient of ``gradientmultiplier`` for the head gradient ``data``: ``data * scalar``."""
    return data * scalar
