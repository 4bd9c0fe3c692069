"""MXNet's ``mx.test_utils``: comparisons with MXNet's per-dtype tolerances and error text, random
shapes and arrays, the default device, a numeric gradient check and ``assert_exception``.

``assert_almost_equal`` takes, when ``rtol``/``atol`` are None, the larger of the two operands'
per-dtype defaults (float16 1e-2/1e-1, float32 1e-4/1e-3, float64 1e-5/1e-20, integers and bool 0);
explicit values, zeros included, are used as given. ``almost_equal`` (MXNet's too) defaults to the
float64 values whatever the dtype.

>>> import numpy as onp
>>> from framework.test_utils import assert_almost_equal, almost_equal
>>> assert_almost_equal(onp.float32([1.0, 2.0]), onp.float32([1.0, 2.0001]))
>>> almost_equal(onp.float32([1.0]), onp.float32([1.0001]))
False
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from . import device as _device
from ._test_data import *  # noqa: F403
from ._test_data import __all__ as _data_all
from ._test_helpers import *  # noqa: F403
from ._test_helpers import __all__ as _helpers_all
from ._test_symbolic import (
    check_speed,
    check_symbolic_backward,
    check_symbolic_forward,
    same_symbol_structure,
    simple_forward,
)
from ._tolerance import (
    almost_equal,
    assert_allclose,
    assert_almost_equal,
    default_atols,
    default_rtols,
    get_atol,
    get_rtol,
    get_tolerance,
    get_tols,
    same,
)
from .device import Context, current_context
from .util import get_cuda_compute_capability, getenv, setenv, use_np

__all__ = [
    "assert_almost_equal", "almost_equal", "same", "default_rtols", "default_atols", "get_tolerance",
    "get_tols", "get_rtol", "get_atol", "rand_shape_nd", "rand_shape_2d", "rand_shape_3d", "rand_ndarray",
    "default_context", "default_device", "set_default_context", "set_default_device",
    "check_numeric_gradient", "assert_exception", "assert_allclose", "Context", "current_context", "array",
    "getenv", "setenv", "use_np", "get_cuda_compute_capability", "check_symbolic_forward",
    "check_symbolic_backward", "simple_forward", "same_symbol_structure", "check_speed", *_helpers_all,
    *_data_all,
]


def array(source_array: Any, ctx: Any = None, dtype: Any = None) -> jax.Array:
    """``mx.nd.array``: an array (float32 unless ``source_array`` is an array with its own dtype)."""
    from . import nd

    return nd.array(source_array, ctx=ctx, dtype=dtype)


def rand_shape_nd(num_dim: int, dim: int = 10, allow_zero_size: bool = False) -> tuple[int, ...]:
    """A random shape of ``num_dim`` sizes in [1, dim] ([0, dim] with ``allow_zero_size``), drawn from
    NumPy's global generator as MXNet does."""
    low = 0 if allow_zero_size else 1
    return tuple(int(v) for v in onp.random.randint(low, dim + 1, size=num_dim))


def rand_shape_2d(dim0: int = 10, dim1: int = 10, allow_zero_size: bool = False) -> tuple[int, int]:
    low = 0 if allow_zero_size else 1
    return int(onp.random.randint(low, dim0 + 1)), int(onp.random.randint(low, dim1 + 1))


def rand_shape_3d(dim0: int = 10, dim1: int = 10, dim2: int = 10,
                  allow_zero_size: bool = False) -> tuple[int, int, int]:
    low = 0 if allow_zero_size else 1
    return tuple(int(onp.random.randint(low, d + 1)) for d in (dim0, dim1, dim2))  # type: ignore[return-value]


def rand_ndarray(shape: Sequence[int], stype: str = "default", density: float | None = None,
                 dtype: Any = None, modifier_func: Callable | None = None, shuffle_csr_indices: bool = False,
                 distribution: str | None = None, ctx: Any = None) -> jax.Array:
    """A dense array of uniform [0, 1) values (NumPy's global generator) on ``ctx``. Sparse storage
    types are not supported (JAX arrays are dense)."""
    if stype != "default":
        raise ValueError(f"rand_ndarray: stype={stype!r}: only 'default' (dense) arrays exist here")
    values = onp.random.uniform(0.0, 1.0, tuple(shape)).astype(dtype or onp.float32)
    if modifier_func is not None:
        values = modifier_func(values)
    return jax.device_put(jnp.asarray(values), _device.resolve(ctx) or _device.current_device())


def default_context() -> jax.Device:
    """The device arrays are created on (``mx.current_context()``)."""
    return _device.current_device()


default_device = default_context
set_default_context = _device.set_default_context
set_default_device = _device.set_default_device


def check_numeric_gradient(fn: Callable[..., Any], location: Any, aux_states: Any = None,
                           numeric_eps: float = 1e-3, rtol: float = 1e-2, atol: float | None = None,
                           grad_nodes: Sequence[Any] | None = None, use_forward_train: bool = True,
                           ctx: Any = None, grad_stype_dict: Any = None, dtype: Any = onp.float32) -> None:
    """Compare ``jax.grad`` of ``sum(fn(*location) * head)`` (a random head) with central finite
    differences. MXNet passes a Symbol; here ``fn`` is a function of arrays and ``location`` a list (or
    dict, then keyword arguments) of them. ``grad_nodes`` picks which (default all)."""
    if aux_states is not None or grad_stype_dict is not None:
        raise ValueError("check_numeric_gradient: aux_states and grad_stype_dict belong to MXNet symbols; "
                         "close over auxiliary arrays in fn")
    named = isinstance(location, dict)
    keys = list(location) if named else list(range(len(location)))
    values = {k: jnp.asarray(location[k], dtype) for k in keys}
    wrt = list(grad_nodes) if grad_nodes is not None else keys
    state = onp.random.RandomState(0)
    head = None

    def objective(sub: dict) -> jax.Array:
        args = {**values, **sub}
        out = fn(**args) if named else fn(*(args[k] for k in keys))
        return jnp.sum(out.astype(jnp.float64 if jax.config.jax_enable_x64 else jnp.float32) * head)

    out0 = fn(**values) if named else fn(*(values[k] for k in keys))
    head = jnp.asarray(state.uniform(-1, 1, jnp.shape(out0)), jnp.float32)
    analytic = jax.grad(objective)({k: values[k] for k in wrt})
    for k in wrt:
        base = onp.asarray(values[k], onp.float64)
        numeric = onp.zeros_like(base)
        for i in onp.ndindex(base.shape or ()):
            for sign in (1.0, -1.0):
                moved = base.copy()
                moved[i] += sign * numeric_eps / 2
                numeric[i] += sign * float(objective({k: jnp.asarray(moved, dtype)})) / numeric_eps
        assert_almost_equal(onp.asarray(analytic[k]), numeric.astype(onp.float32), rtol=rtol,
                            atol=1e-4 if atol is None else atol,
                            names=(f"analytic gradient of {k}", f"numeric gradient of {k}"))


def assert_exception(f: Callable[..., Any], exception_type: type[BaseException] | tuple, *args: Any,
                     **kwargs: Any) -> None:
    """Call ``f(*args, **kwargs)``; an ``AssertionError`` unless it raises ``exception_type``.

    >>> assert_exception(int, ValueError, "x")
    """
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    raise AssertionError(f"{getattr(f, '__name__', f)} did not raise {exception_type}")


def __getattr__(name: str) -> Any:
    if name == "Symbol":  # MXNet's test_utils re-exports mx.sym.Symbol; imported when first asked for
        from .symbol import Symbol

        return Symbol
    raise AttributeError(f"framework.test_utils has no attribute {name!r}")
