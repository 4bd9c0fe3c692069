"""MXNet's comparison helpers of ``mx.test_utils``: per-dtype default tolerances, ``almost_equal`` and
``assert_almost_equal`` with MXNet's error text, ``assert_allclose``, ``same``. Its own module so that
``framework.test_utils`` and its helpers both build on it.

>>> assert_almost_equal([1.0, 2.0], [1.0, 2.00001])
>>> same([1, 2], [1, 2]), almost_equal([1.0], [1.1])
(True, False)
"""

from __future__ import annotations

import numbers
from typing import Any

import jax.numpy as jnp
import numpy as onp

__all__ = ["default_rtols", "default_atols", "get_tolerance", "get_tols", "get_rtol", "get_atol",
           "almost_equal", "assert_almost_equal", "assert_allclose", "same"]

_RTOL = {"float16": 1e-2, "bfloat16": 1e-2, "float32": 1e-4, "float64": 1e-5}
_ATOL = {"float16": 1e-1, "bfloat16": 1e-1, "float32": 1e-3, "float64": 1e-20}
_EXACT = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")


def _table(floats: dict[str, float]) -> dict[onp.dtype, float]:
    out = {jnp.dtype(k): v for k, v in floats.items()}
    out.update({onp.dtype(k): 0 for k in _EXACT})
    return out


def default_rtols() -> dict[onp.dtype, float]:
    """MXNet's default relative tolerance per dtype."""
    return _table(_RTOL)


def default_atols() -> dict[onp.dtype, float]:
    """MXNet's default absolute tolerance per dtype."""
    return _table(_ATOL)


def _np(x: Any) -> onp.ndarray:
    if hasattr(x, "asnumpy"):
        x = x.asnumpy()
    if isinstance(x, numbers.Number) and not isinstance(x, (onp.generic,)):
        return onp.asarray(x)
    return onp.asarray(x)


def get_tolerance(dat: Any, tol: float | dict | None, default_tol: dict) -> float:
    """``tol`` if it is a number; else its (or the default table's) entry for ``dat``'s dtype."""
    if isinstance(tol, numbers.Number):
        return tol
    dtype = onp.dtype(_np(dat).dtype)
    table = {} if tol is None else tol
    if dtype in table:
        return table[dtype]
    if dtype not in default_tol:
        raise TypeError(f"test_utils: no default tolerance for dtype {dtype}; pass rtol= and atol=")
    return default_tol[dtype]


def get_tols(x: Any, y: Any, rtol: Any, atol: Any) -> tuple[float, float]:
    """The (rtol, atol) used to compare ``x`` and ``y``: the larger default of their two dtypes."""
    rt = max(get_tolerance(x, rtol, default_rtols()), get_tolerance(y, rtol, default_rtols()))
    at = max(get_tolerance(x, atol, default_atols()), get_tolerance(y, atol, default_atols()))
    return rt, at


def get_rtol(rtol: float | None = None, dtype: Any = onp.float64) -> float:
    """``rtol``, or the default for ``dtype`` (float64) when None."""
    return default_rtols()[onp.dtype(dtype)] if rtol is None else rtol


def get_atol(atol: float | None = None, dtype: Any = onp.float64) -> float:
    """``atol``, or the default for ``dtype`` (float64) when None."""
    return default_atols()[onp.dtype(dtype)] if atol is None else atol


def almost_equal(a: Any, b: Any, rtol: float | None = None, atol: float | None = None,
                 equal_nan: bool = False, use_broadcast: bool = True) -> bool:
    """``numpy.allclose`` with MXNet's float64 defaults (1e-5, 1e-20) for a None tolerance."""
    a, b = _np(a), _np(b)
    if not use_broadcast and a.shape != b.shape:
        raise AssertionError(f"shapes differ: {a.shape} vs {b.shape}")
    return bool(onp.allclose(a, b, rtol=get_rtol(rtol), atol=get_atol(atol), equal_nan=equal_nan))


def _violations(a: onp.ndarray, b: onp.ndarray, rtol: float, atol: float, equal_nan: bool) -> onp.ndarray:
    with onp.errstate(invalid="ignore", over="ignore"):
        a64, b64 = a.astype(onp.float64), b.astype(onp.float64)
        diff = onp.where(a64 == b64, 0.0, onp.abs(a64 - b64))
        if equal_nan:
            diff = onp.where(onp.isnan(a64) & onp.isnan(b64), 0.0, diff)
        ratio = diff / (atol + rtol * onp.abs(b64) + 1e-20)
    return onp.where(onp.isnan(ratio), onp.inf, ratio)


def assert_almost_equal(a: Any, b: Any, rtol: Any = None, atol: Any = None,
                        names: tuple[str, str] = ("a", "b"), equal_nan: bool = False,
                        use_broadcast: bool = True, mismatches: tuple[int, int] = (10, 10)) -> None:
    """Raise ``AssertionError`` when ``a`` and ``b`` differ beyond the tolerances, with MXNet's text:
    ``Error <max ratio> exceeds tolerance rtol=..., atol=... (mismatch <percent>%).`` and the location
    of the maximum error.

    >>> import numpy as onp
    >>> try:
    ...     assert_almost_equal(onp.float32([1, 2]), onp.float32([1, 2.5]), names=('x', 'y'))
    ... except AssertionError as e:
    ...     print(str(e).splitlines()[3])
    Location of maximum error: (1,), x=2.00000000, y=2.50000000
    """
    a_np, b_np = _np(a), _np(b)
    if not use_broadcast and a_np.shape != b_np.shape:
        raise AssertionError(f"shapes differ: {names[0]} {a_np.shape} vs {names[1]} {b_np.shape}")
    rtol, atol = get_tols(a_np, b_np, rtol, atol)
    if a_np.dtype == onp.bool_ and b_np.dtype == onp.bool_:
        onp.testing.assert_equal(a_np, b_np)
        return
    if onp.allclose(a_np, b_np, rtol=rtol, atol=atol, equal_nan=equal_nan):
        return
    a_b, b_b = onp.broadcast_arrays(a_np, b_np)
    ratio = _violations(a_b, b_b, rtol, atol, equal_nan)
    index = tuple(int(i) for i in onp.unravel_index(int(onp.argmax(ratio)), ratio.shape))
    worst = float(ratio[index])
    bad = int(onp.count_nonzero(ratio > 1.0))
    limit = mismatches[1]
    degree = "at least " if limit > 0 and bad > limit else ""
    shown = limit + 1 if degree else bad
    where = (f"Location of maximum error: {index}, {names[0]}={float(a_b[index]):.8f}, "
             f"{names[1]}={float(b_b[index]):.8f}")
    text = (f"Error {worst:f} exceeds tolerance rtol={rtol:e}, atol={atol:e} "
            f"(mismatch {degree}{100 * shown / max(a_b.size, 1):f}%).\n{where}")
    with onp.printoptions(threshold=4, suppress=True):
        raise AssertionError(onp.testing.build_err_msg([a_np, b_np], err_msg=text))


def assert_allclose(a: Any, b: Any, rtol: float = 1e-7, atol: float = 0.0, equal_nan: bool = True) -> None:
    """``numpy.testing.assert_allclose`` on arrays of any kind."""
    onp.testing.assert_allclose(_np(a), _np(b), rtol=rtol, atol=atol, equal_nan=equal_nan)


def same(a: Any, b: Any) -> bool:
    """Exactly equal shapes and values."""
    return bool(onp.array_equal(_np(a), _np(b)))
