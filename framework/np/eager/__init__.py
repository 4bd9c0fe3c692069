"""Eager array operators on first-seen shapes, computed in host memory.

MXNet runs each operator of imperative code at once, whatever the shapes. JAX compiles a program for
each operator and each new shape it is called on outside a trace (30-40 ms each on the CPU this project
is measured on), so a loop whose arrays change shape at every step (non-maximum suppression, statistics
over growing slices) compiles at every step. On a CPU device the values are already in host memory:
these functions compute operators with NumPy for the first ``FRAMEWORK_EAGER_HOST_RUNS`` calls of each
operator and signature (shapes, dtypes, static arguments), with JAX's dtypes, shapes and placement, and
hand the next calls to JAX, which then compiles what repeats. NumPy's results are XLA's bit for bit for
arithmetic, comparisons, indexing, reshapes, ``maximum``/``minimum``/``clip``, sorting and exact
reductions; true division (XLA:CPU refines a reciprocal estimate), float sums and means and
transcendental functions agree to XLA's rounding. Anything else is JAX's (or Python's) own: a value
that is not a CPU array, a traced call, a weakly typed result, arrays on different devices, and every
case where NumPy and JAX disagree (an out-of-range index or number, a division by an integer zero): the
call is then made again by JAX, which gives its result or its error.

``framework.run`` routes the operators of the code it ports through :data:`BINARY`, :func:`getitem` and
:func:`method` (:mod:`framework.port.operators`); anything that is not an array takes Python's own
operator at the cost of one call.

>>> import jax, numpy
>>> x = jax.device_put(numpy.array([3.0, 1.0, 2.0], numpy.float32))
>>> BINARY["mul"](x, 2).tolist(), getitem(x, slice(1, None)).tolist()
([6.0, 2.0, 4.0], [1.0, 2.0])
>>> method(x, "argsort").tolist()
[1, 2, 0]
"""

from ._core import (
    BINARY,
    INPLACE,
    SLICE,
    UNARY,
    clip,
    getitem,
    host_operand,
    host_runs_left,
    is_array,
    maximum,
    minimum,
    result_device,
    signature,
)
from ._methods import METHOD_NAMES, functions, method

__all__ = ["BINARY", "UNARY", "INPLACE", "SLICE", "METHOD_NAMES", "getitem", "method", "maximum", "minimum",
           "clip", "functions", "host_runs_left", "is_array", "host_operand", "signature", "result_device"]
