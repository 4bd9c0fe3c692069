"""MXNet's ``test_utils`` essentials.

>>> from framework.test_utils import assert_almost_equal
>>> assert_almost_equal([1.0, 2.0], [1.0, 2.0 + 1e-9])
"""

from __future__ import annotations

from typing import Any

import numpy as onp

__all__ = ["assert_almost_equal", "almost_equal"]


def _np(x: Any) -> onp.ndarray:
    if hasattr(x, "asnumpy"):
        x = x.asnumpy()
    return onp.asarray(x)


def almost_equal(a: Any, b: Any, rtol: float | None = None, atol: float | None = None,
                 equal_nan: bool = False) -> bool:
    return bool(onp.allclose(_np(a), _np(b), rtol=rtol or 1e-5, atol=atol or 1e-20,
                             equal_nan=equal_nan))


def assert_almost_equal(a: Any, b: Any, rtol: float | None = None, atol: float | None = None,
                        names: tuple[str, str] = ("a", "b"), equal_nan: bool = False) -> None:
    """Raise ``AssertionError`` when ``a`` and ``b`` differ beyond ``rtol``/``atol`` (MXNet's defaults)."""
    onp.testing.assert_allclose(_np(a), _np(b), rtol=rtol or 1e-5, atol=atol or 1e-20,
                                equal_nan=equal_nan, err_msg=f"{names[0]} vs {names[1]}")
