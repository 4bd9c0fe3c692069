"""The rest of MXNet's ``mx.test_utils`` (re-exported there): random arrays and matrices drawn from
NumPy's global generator in MXNet's order, element-wise helpers, tolerance variants, statistical checks
of random generators, consistency checks across devices/dtypes and hybridization, optimizer comparison,
and MNIST helpers that read local files (framework never downloads).

>>> import numpy as onp
>>> from framework import test_utils
>>> onp.random.seed(0)
>>> test_utils.random_arrays((2, 3)).shape
(2, 3)
>>> test_utils.np_reduce(onp.ones((2, 3)), 1, True, onp.sum).tolist()
[[3.0], [3.0]]
"""

from __future__ import annotations

import contextlib
import math
import os
import struct
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from .io.io import DataIter

__all__ = [
    "default_dtype",
    "default_numeric_eps",
    "effective_dtype",
    "get_etol",
    "random_arrays",
    "random_uniform_arrays",
    "random_sample",
    "assign_each",
    "assign_each2",
    "create_2d_tensor",
    "create_vector",
    "get_identity_mat",
    "get_identity_mat_batch",
    "rand_coord_2d",
    "np_reduce",
    "checkShapes",
    "locationError",
    "assert_almost_equal_with_err",
    "assert_almost_equal_ignore_nan",
    "retry",
    "list_gpus",
    "same_array",
    "DummyIter",
    "gen_buckets_probs_with_ppf",
    "mean_check",
    "var_check",
    "chi_square_check",
    "verify_generator",
    "compare_ndarray_tuple",
    "environment",
    "collapse_sum_like",
    "new_matrix_with_real_eigvals_2d",
    "new_matrix_with_real_eigvals_nd",
    "new_orthonormal_matrix_2d",
    "new_sym_matrix_with_real_eigvals_2d",
    "new_sym_matrix_with_real_eigvals_nd",
    "numeric_grad",
    "check_consistency",
    "check_gluon_hybridize_consistency",
    "compare_optimizer",
    "get_mnist",
    "get_mnist_ubyte",
    "get_mnist_iterator",
]


def _np(x: Any) -> onp.ndarray:
    from .npx import asnumpy

    return onp.asarray(asnumpy(x)) if not isinstance(x, onp.ndarray) else x


def default_dtype() -> type:
    return onp.float32


def default_numeric_eps() -> dict:
    """The finite-difference step per dtype."""
    return {
        onp.dtype(onp.float16): 1.0 / 2**6,
        onp.dtype(onp.float32): 1.0 / 2**9,
        onp.dtype(onp.float64): 1.0 / 2**14,
    }


def effective_dtype(dat: Any) -> onp.dtype:
    """The dtype whose precision ``dat``'s matrix products have: float16 for float32 on a GPU whose
    matmuls use TF32 (JAX's default there), else ``dat``'s dtype."""
    dtype = onp.dtype(dat.dtype)
    on_gpu = isinstance(dat, jax.Array) and any(d.platform == "gpu" for d in dat.devices())
    precise = jax.config.jax_default_matmul_precision in ("highest", "float32")
    if dtype == onp.float32 and on_gpu and not precise and os.environ.get("NVIDIA_TF32_OVERRIDE") != "0":
        return onp.dtype(onp.float16)
    return dtype


def get_etol(etol: float | None = None) -> float:
    return 0 if etol is None else etol


def random_arrays(*shapes: Sequence[int]) -> Any:
    """Standard-normal float32 arrays (NumPy's global generator); one array for one shape."""
    arrays = [
        onp.array(onp.random.randn(), dtype=default_dtype())
        if len(s) == 0
        else onp.random.randn(*s).astype(default_dtype())
        for s in shapes
    ]
    return arrays[0] if len(arrays) == 1 else arrays


def random_uniform_arrays(
    *shapes: Sequence[int], low: float = 0.0, high: float = 1.0, dtype: Any = None
) -> list[onp.ndarray]:
    return [onp.random.uniform(low, high, size=s).astype(dtype or default_dtype()) for s in shapes]


def random_sample(population: list, k: int) -> list:
    """``k`` elements of a shuffled copy of ``population``."""
    if not 0 <= k <= len(population):
        raise ValueError(f"random_sample: k={k} must be in [0, {len(population)}]")
    copy = population[:]
    onp.random.shuffle(copy)
    return copy[0:k]


def assign_each(the_input: onp.ndarray, function: Callable | None) -> onp.ndarray:
    """``function`` applied to each element (float64 result), or a copy when None."""
    if function is None:
        return onp.array(the_input)
    return (
        onp.vectorize(function, otypes=[onp.float64])(the_input)
        if onp.size(the_input)
        else onp.zeros(onp.shape(the_input))
    )


def assign_each2(input1: onp.ndarray, input2: onp.ndarray, function: Callable | None) -> onp.ndarray:
    if function is None:
        return onp.array(input1)
    if onp.shape(input1) != onp.shape(input2):
        raise ValueError(f"assign_each2: shapes {onp.shape(input1)} and {onp.shape(input2)} differ")
    return (
        onp.vectorize(function, otypes=[onp.float64])(input1, input2)
        if onp.size(input1)
        else onp.zeros(onp.shape(input1))
    )


def create_2d_tensor(rows: int, columns: int, dtype: Any = onp.int64) -> jax.Array:
    """Row ``i`` filled with ``i``."""
    dtype = jax.dtypes.canonicalize_dtype(dtype)  # int64 is int32 unless jax_enable_x64
    return jnp.broadcast_to(jnp.arange(rows, dtype=dtype).reshape(rows, 1), (rows, columns))


def create_vector(size: int, dtype: Any = onp.int64) -> jax.Array:
    return jnp.arange(size, dtype=jax.dtypes.canonicalize_dtype(dtype))


def get_identity_mat(size: int) -> jax.Array:
    return jnp.eye(size, dtype=jnp.float32)


def get_identity_mat_batch(size: int) -> jax.Array:
    return jnp.stack([get_identity_mat(size)] * 2)


def rand_coord_2d(x_low: int, x_high: int, y_low: int, y_high: int) -> tuple[int, int]:
    x = onp.random.randint(x_low, x_high, dtype=onp.int64)
    y = onp.random.randint(y_low, y_high, dtype=onp.int64)
    return x, y


def np_reduce(dat: onp.ndarray, axis: Any, keepdims: bool, numpy_reduce_func: Callable) -> onp.ndarray:
    """Reduce over ``axis`` (one, several, or None for all) one axis at a time."""
    axes = [axis] if isinstance(axis, int) else (list(axis) if axis is not None else list(range(dat.ndim)))
    ret = dat
    for i in reversed(sorted(axes)):
        ret = numpy_reduce_func(ret, axis=i)
    if keepdims:
        shape = list(dat.shape)
        for i in axes:
            shape[i] = 1
        ret = ret.reshape(tuple(shape))
    return ret


def checkShapes(a: Any, b: Any) -> None:
    if a.shape != b.shape:
        raise AssertionError(
            onp.testing.build_err_msg(
                [a, b], err_msg=f"a.shape = {a.shape} and b.shape = {b.shape} are not equal"
            )
        )


def locationError(a: Any, b: Any, index: tuple, names: Sequence[str], maxError: bool = False) -> str:
    maximum = "maximum " if maxError else ""
    return (
        f"Location of {maximum}error: {index}, {names[0]}={float(a[index]):.8f}, "
        f"{names[1]}={float(b[index]):.8f}"
    )


def assert_almost_equal_with_err(
    a: Any,
    b: Any,
    rtol: Any = None,
    atol: Any = None,
    etol: float | None = None,
    names: tuple[str, str] = ("a", "b"),
    equal_nan: bool = False,
    mismatches: tuple[int, int] = (10, 10),
) -> None:
    """Like ``assert_almost_equal``, but a fraction ``etol`` of the elements may differ."""
    from ._tolerance import assert_almost_equal, get_tols

    etol = get_etol(etol)
    if etol <= 0:
        assert_almost_equal(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan, names=names)
        return
    a, b = _np(a), _np(b)
    rtol, atol = get_tols(a, b, rtol, atol)
    equals = onp.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    err = 1 - onp.count_nonzero(equals) / equals.size
    if err > etol:
        ratio = onp.abs(a - b) / (atol + rtol * onp.abs(b))
        index = onp.unravel_index(int(onp.nanargmax(ratio)), ratio.shape)
        msg = (
            f"Error {float(ratio[index]):f} exceeds tolerance rtol={rtol:e}, atol={atol:e} "
            f"(mismatch {100 * err:f}% > etol {100 * etol:f}%).\n{locationError(a, b, index, names, True)}"
        )
        raise AssertionError(onp.testing.build_err_msg([a, b], err_msg=msg))


def assert_almost_equal_ignore_nan(
    a: Any, b: Any, rtol: Any = None, atol: Any = None, names: tuple[str, str] = ("a", "b")
) -> None:
    """``assert_almost_equal`` where a NaN on either side counts as equal."""
    from ._tolerance import assert_almost_equal

    a, b = onp.copy(_np(a)), onp.copy(_np(b))
    mask = onp.logical_or(onp.isnan(a), onp.isnan(b))
    a[mask] = 0
    b[mask] = 0
    assert_almost_equal(a, b, rtol, atol, names)


def retry(n: int) -> Callable:
    """Re-run a test up to ``n`` times while it raises ``AssertionError``."""
    if n <= 0:
        raise ValueError(f"retry: n={n} must be positive")

    def decorate(f: Callable) -> Callable:
        def wrapper(*args: Any, **kwargs: Any) -> None:
            for i in range(n):
                try:
                    f(*args, **kwargs)
                    return
                except AssertionError:
                    if i == n - 1:
                        raise

        return wrapper

    return decorate


def list_gpus() -> range:
    from .device import num_gpus

    return range(num_gpus())


def same_array(array1: Any, array2: Any) -> bool:
    """Whether two arrays are the same memory. JAX arrays are immutable values: the same array object,
    or equal content in the same buffer."""
    if array1 is array2:
        return True
    try:
        return array1.unsafe_buffer_pointer() == array2.unsafe_buffer_pointer()
    except Exception:
        return False


class DummyIter(DataIter):
    """Returns the first batch of ``real_iter`` forever (for speed tests)."""

    def __init__(self, real_iter: Any) -> None:
        super().__init__()
        self.real_iter = real_iter
        self.provide_data = real_iter.provide_data
        self.provide_label = real_iter.provide_label
        self.batch_size = real_iter.batch_size
        self.the_batch = next(real_iter)

    def __iter__(self) -> DummyIter:
        return self

    def next(self) -> Any:
        return self.the_batch


def gen_buckets_probs_with_ppf(ppf: Callable[[float], float], nbuckets: int) -> tuple[list, list]:
    """``nbuckets`` equal-probability buckets of a distribution given its percent-point function."""
    if nbuckets <= 0:
        raise ValueError(f"gen_buckets_probs_with_ppf: nbuckets={nbuckets} must be positive")
    probs = [1.0 / nbuckets for _ in range(nbuckets)]
    buckets = [(ppf(i / float(nbuckets)), ppf((i + 1) / float(nbuckets))) for i in range(nbuckets)]
    return buckets, probs


def mean_check(generator: Callable[[int], Any], mu: float, sigma: float, nsamples: int = 1000000) -> bool:
    """Whether the sample mean is within 3 standard errors of ``mu``."""
    mean = _np(generator(nsamples)).mean()
    return bool(mu - 3 * sigma / math.sqrt(nsamples) < mean < mu + 3 * sigma / math.sqrt(nsamples))


def var_check(generator: Callable[[int], Any], sigma: float, nsamples: int = 1000000) -> bool:
    """Whether the sample variance is within 3 standard errors of ``sigma ** 2``."""
    var = _np(generator(nsamples)).var(ddof=1)
    spread = 3 * math.sqrt(2 * sigma**4 / (nsamples - 1))
    return bool(sigma**2 - spread < var < sigma**2 + spread)


def _chi2_sf(stat: float, dof: int) -> float:
    """P(chi2(dof) > stat): the regularised upper incomplete gamma function."""
    return float(jax.scipy.special.gammaincc(dof / 2.0, stat / 2.0))


def chi_square_check(
    generator: Callable[[int], Any], buckets: list, probs: list, nsamples: int = 1000000
) -> tuple[float, onp.ndarray, onp.ndarray]:
    """Pearson's chi-square test of ``generator``'s samples against ``probs`` over ``buckets``
    (``(low, high)`` intervals, or discrete values): ``(p value, observed, expected)``."""
    if len(probs) != len(buckets):
        raise ValueError(f"chi_square_check: {len(buckets)} buckets but {len(probs)} probabilities")
    samples = _np(generator(nsamples))
    expected = (nsamples * onp.array(probs, dtype=onp.float32)).astype(onp.int32)
    if isinstance(buckets[0], (list, tuple)):
        edges = onp.asarray([v for b in buckets for v in b], dtype=onp.float32)
        ids = onp.searchsorted(edges, samples, side="right") // 2
        observed = onp.array([(ids == i).sum() for i in range(len(buckets))], dtype=onp.int64)
    else:
        observed = onp.array([(samples == b).sum() for b in buckets], dtype=onp.int64)
    stat = float(((observed - expected) ** 2 / onp.maximum(expected, 1e-12)).sum())
    return _chi2_sf(stat, len(buckets) - 1), observed, expected


def verify_generator(
    generator: Callable[[int], Any],
    buckets: list,
    probs: list,
    nsamples: int = 1000000,
    nrepeat: int = 5,
    success_rate: float = 0.2,
    alpha: float = 0.05,
) -> list[float]:
    """Repeat :func:`chi_square_check`; fail when fewer than ``success_rate`` of the runs pass at level
    ``alpha``."""
    runs = [chi_square_check(generator, buckets, probs, nsamples) for _ in range(nrepeat)]
    ps = [r[0] for r in runs]
    if (onp.array(ps) > alpha).sum() < nrepeat * success_rate:
        raise AssertionError(
            f"Generator test fails, Chi-square p={ps}, obs_freq={[r[1] for r in runs]}, "
            f"expected_freq={[r[2] for r in runs]}.\nbuckets={buckets}, probs={probs}"
        )
    return ps


def compare_ndarray_tuple(t1: Any, t2: Any, rtol: Any = None, atol: Any = None) -> None:
    """``assert_almost_equal`` over nested tuples (None on either side: nothing to compare)."""
    from ._tolerance import assert_almost_equal

    if t1 is None or t2 is None:
        return
    if isinstance(t1, tuple):
        for s1, s2 in zip(t1, t2, strict=True):
            compare_ndarray_tuple(s1, s2, rtol, atol)
    else:
        assert_almost_equal(t1, t2, rtol=rtol, atol=atol)


@contextlib.contextmanager
def environment(*args: Any) -> Iterator[None]:
    """Set environment variables (one dict, or a name and a value; None unsets) for the block."""
    if len(args) == 1 and isinstance(args[0], dict):
        env = args[0]
    elif len(args) == 2:
        env = {args[0]: args[1]}
    else:
        raise TypeError("environment: pass one dict, or a name and a value")
    saved = {k: os.environ.get(k) for k in env}

    def apply(values: dict) -> None:
        for k, v in values.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    apply(env)
    try:
        yield
    finally:
        apply(saved)


def collapse_sum_like(a: onp.ndarray, shape: Sequence[int]) -> onp.ndarray:
    """Sum ``a`` down to ``shape`` (the reverse of broadcasting)."""
    if len(a.shape) < len(shape):
        raise ValueError(f"collapse_sum_like: {a.shape} has fewer axes than {tuple(shape)}")
    if onp.prod(shape) == 0 or a.size == 0:
        return onp.zeros(shape, dtype=a.dtype)
    lead = len(a.shape) - len(shape)
    axes = list(range(lead)) + [i + lead for i, s in enumerate(shape) if s != a.shape[i + lead]]
    return onp.sum(a, axis=tuple(axes)).reshape(shape)


def new_matrix_with_real_eigvals_2d(n: int) -> onp.ndarray:
    """A random n x n matrix with real eigenvalues (MXNet's construction and draws)."""
    while True:
        d = onp.diag(onp.random.uniform(-1.0, 1.0, n))
        v = onp.random.uniform(-1.0, 1.0, n).reshape(n, 1)
        v = v / onp.linalg.norm(v, axis=-2, keepdims=True)
        q = (onp.eye(n) - 2 * v @ v.T) @ d
        if onp.linalg.cond(q, 2) < 3:
            break
    d = onp.diag(onp.random.uniform(-10.0, 10.0, n))
    return onp.linalg.inv(q) @ d @ q


def new_matrix_with_real_eigvals_nd(shape: Sequence[int]) -> onp.ndarray:
    n = int(onp.prod(shape[:-2])) if len(shape) > 2 else 1
    return onp.array([new_matrix_with_real_eigvals_2d(shape[-1]) for _ in range(n)]).reshape(shape)


def new_orthonormal_matrix_2d(n: int) -> onp.ndarray:
    x = onp.random.randn(n, n)
    return onp.linalg.qr(x.T @ x)[0]


def new_sym_matrix_with_real_eigvals_2d(n: int) -> onp.ndarray:
    q = new_orthonormal_matrix_2d(n)
    return q.T @ onp.diag(onp.random.uniform(-10.0, 10.0, n)) @ q


def new_sym_matrix_with_real_eigvals_nd(shape: Sequence[int]) -> onp.ndarray:
    n = int(onp.prod(shape[:-2])) if len(shape) > 2 else 1
    return onp.array([new_sym_matrix_with_real_eigvals_2d(shape[-1]) for _ in range(n)]).reshape(shape)


def numeric_grad(
    fn: Callable[..., Any],
    location: Sequence[Any] | dict,
    aux_states: Any = None,
    eps: float = 1e-4,
    use_forward_train: bool = True,
    dtype: Any = onp.float32,
) -> list | dict:
    """Central finite differences of ``sum(fn(*location))`` for each input (MXNet passes an executor;
    here ``fn`` is a function of arrays; a dict ``location`` gives keyword arguments)."""
    if aux_states is not None:
        raise ValueError("numeric_grad: aux_states belong to MXNet executors; close over them in fn")
    named = isinstance(location, dict)
    keys = list(location) if named else list(range(len(location)))
    base = {k: onp.asarray(_np(location[k]), onp.float64) for k in keys}

    def total(vals: dict) -> float:
        args = {k: jnp.asarray(v, dtype) for k, v in vals.items()}
        out = fn(**args) if named else fn(*(args[k] for k in keys))
        outs = out if isinstance(out, (list, tuple)) else [out]
        return float(sum(onp.asarray(_np(o), onp.float64).sum() for o in outs))

    grads = {}
    for k in keys:
        g = onp.zeros_like(base[k])
        for i in onp.ndindex(base[k].shape):
            up, down = dict(base), dict(base)
            up[k], down[k] = base[k].copy(), base[k].copy()
            up[k][i] += eps / 2
            down[k][i] -= eps / 2
            g[i] = (total(up) - total(down)) / eps
        grads[k] = g.astype(dtype)
    return grads if named else [grads[k] for k in keys]


def check_consistency(
    fn: Callable[..., Any],
    ctx_list: Sequence[dict],
    scale: float = 1.0,
    grad_req: str = "write",
    arg_params: dict | None = None,
    aux_params: Any = None,
    rtol: Any = None,
    atol: Any = None,
    raise_on_err: bool = True,
    ground_truth: Any = None,
    equal_nan: bool = False,
    use_uniform: bool = False,
    rand_type: Any = onp.float64,
) -> list:
    """Run ``fn`` (a function of named arrays; MXNet passes a Symbol) on every entry of ``ctx_list``
    (``{'ctx': device, '<name>': shape, 'type_dict': {'<name>': dtype}}``) with the same random inputs,
    and compare outputs and gradients (of ``sum(out * head)``) with the most precise entry. Returns the
    ``(outputs, gradients)`` of each entry."""
    from ._tolerance import assert_almost_equal, default_atols, default_rtols

    if aux_params is not None:
        raise ValueError("check_consistency: aux_params belong to MXNet symbols; close over them in fn")
    first = ctx_list[0]
    names = [k for k in first if k not in ("ctx", "type_dict")]
    rs = onp.random
    values = {
        n: (rs.uniform(-scale, scale, first[n]) if use_uniform else rs.normal(0, scale, first[n])).astype(
            rand_type
        )
        for n in names
    }
    values.update({k: onp.asarray(v) for k, v in (arg_params or {}).items()})
    results = []
    for entry in ctx_list:
        dev = entry.get("ctx")
        types = entry.get("type_dict", {})
        kinds = {n: jax.dtypes.canonicalize_dtype(types.get(n, onp.float32)) for n in names}
        args = {n: jax.device_put(jnp.asarray(values[n], kinds[n]), dev) for n in names}

        def objective(a: dict, head: Any) -> Any:
            out = fn(**a)
            return jnp.sum(jnp.asarray(out, jnp.float32) * head), out

        out = fn(**args)
        head = jnp.asarray(onp.random.RandomState(0).normal(0, 1, jnp.shape(out)), jnp.float32)
        grads = jax.grad(lambda a, h=head: objective(a, h)[0])(args) if grad_req != "null" else {}
        results.append((out, grads, onp.dtype(jnp.result_type(*args.values()))))
    best = max(range(len(results)), key=lambda i: results[i][2].itemsize) if ground_truth is None else None
    truth_out = results[best][0] if ground_truth is None else ground_truth[0]
    truth_grads = results[best][1] if ground_truth is None else ground_truth[1]
    for i, (out, grads, dtype) in enumerate(results):
        rt = rtol if rtol is not None else default_rtols().get(dtype, 1e-4)
        at = atol if atol is not None else default_atols().get(dtype, 1e-3)
        try:
            assert_almost_equal(
                _np(out).astype(onp.float64),
                _np(truth_out).astype(onp.float64),
                rt,
                at,
                names=(f"output of entry {i}", "ground truth"),
                equal_nan=equal_nan,
            )
            for n in grads:
                assert_almost_equal(
                    _np(grads[n]).astype(onp.float64),
                    _np(truth_grads[n]).astype(onp.float64),
                    rt,
                    at,
                    names=(f"gradient of {n} of entry {i}", "ground truth"),
                    equal_nan=equal_nan,
                )
        except AssertionError:
            if raise_on_err:
                raise
    return [(r[0], r[1]) for r in results]


def check_gluon_hybridize_consistency(
    net_builder: Callable[..., Any],
    data_l: Sequence[Any],
    numpy_func: Callable | None = None,
    test_grad: bool = True,
    rtol: float = 1e-4,
    atol: float = 1e-4,
) -> None:
    """The same outputs (and input gradients) from a HybridBlock before and after ``hybridize()``, with
    the same parameters; optionally against ``numpy_func``. The block must be deterministic."""
    from . import autograd
    from ._tolerance import assert_almost_equal

    saved, params = None, None
    for hybridize in (False, True):
        for use_grad in (False, True) if test_grad else (False,):
            try:
                net = net_builder(prefix="net_")
            except TypeError:
                net = net_builder()
            net.initialize()
            if params is not None:
                for (_, p), v in zip(net.collect_params().items(), params, strict=True):
                    p.set_data(v)
            else:
                params = [p.data() for p in net.collect_params().values()]
            if hybridize:
                net.hybridize()
            inputs = [jnp.asarray(_np(d)) for d in data_l]
            if use_grad:
                inputs = [autograd.attach_grad(x) for x in inputs]
                with autograd.record():
                    out = net(*inputs)
                out.backward()
                grads = [_np(x.grad) for x in inputs]
            else:
                out, grads = net(*inputs), None
            out = _np(out)
            if saved is None:
                saved = (out, grads)
                if numpy_func is not None:
                    assert_almost_equal(out, numpy_func(*[_np(d) for d in data_l]), rtol=rtol, atol=atol)
            else:
                assert_almost_equal(out, saved[0], rtol=rtol, atol=atol)
                if grads is not None:
                    if saved[1] is None:
                        saved = (saved[0], grads)
                    for g, s in zip(grads, saved[1], strict=True):
                        assert_almost_equal(g, s, rtol=rtol, atol=atol)


def compare_optimizer(
    opt1: Any,
    opt2: Any,
    shape: Any,
    dtype: Any,
    w_stype: str = "default",
    g_stype: str = "default",
    rtol: float = 1e-4,
    atol: float = 1e-5,
    compare_states: bool = True,
    ntensors: int = 1,
) -> None:
    """One update of the same random weight and gradient by two optimizers gives the same weights (and
    states)."""
    from ._tolerance import assert_almost_equal

    if w_stype != "default" or g_stype != "default":
        raise ValueError("compare_optimizer: only dense ('default') storage exists here")
    shapes = shape if isinstance(shape, list) else [shape]
    for i, s in enumerate(shapes):
        w = jnp.asarray(onp.random.uniform(size=s), dtype)
        g = jnp.asarray(onp.random.uniform(size=s), dtype)
        s1, s2 = opt1.create_state_multi_precision(i, w), opt2.create_state_multi_precision(i, w)
        w1 = opt1.update_multi_precision(i, w, g, s1)
        w2 = opt2.update_multi_precision(i, w, g, s2)
        if compare_states:
            for a, b in zip(
                jax.tree_util.tree_leaves(getattr(s1, "value", s1)),
                jax.tree_util.tree_leaves(getattr(s2, "value", s2)),
                strict=True,
            ):
                assert_almost_equal(_np(a), _np(b), rtol=rtol, atol=atol)
        assert_almost_equal(_np(w1), _np(w2), rtol=rtol, atol=atol)


def _mnist_arrays(train: bool) -> tuple[onp.ndarray, onp.ndarray]:
    """Images (N, 28, 28) uint8 and labels (N,) of local MNIST files (see ``gluon.data.vision.MNIST``)."""
    from .gluon.data.vision import MNIST

    images, labels = MNIST(train=train)[:]
    return onp.asarray(images).reshape(-1, 28, 28), onp.asarray(labels)


def get_mnist() -> dict[str, onp.ndarray]:
    """MNIST as arrays: ``train_data``/``test_data`` (N, 1, 28, 28) float32 in [0, 1] and int8 labels.
    Read from the local dataset places (``python -m datasets fetch mnist`` fetches them)."""
    out = {}
    for split, train in (("train", True), ("test", False)):
        images, labels = _mnist_arrays(train)
        out[f"{split}_data"] = images.reshape(-1, 1, 28, 28).astype(onp.float32) / 255
        out[f"{split}_label"] = labels.astype(onp.int8)
    return out


_UBYTE = {
    "train-images-idx3-ubyte": (True, 0),
    "train-labels-idx1-ubyte": (True, 1),
    "t10k-images-idx3-ubyte": (False, 0),
    "t10k-labels-idx1-ubyte": (False, 1),
}


def get_mnist_ubyte() -> None:
    """Make sure ``data/{train,t10k}-{images-idx3,labels-idx1}-ubyte`` exist (written from the local
    MNIST files, as MXNet unpacks its download there)."""
    os.makedirs("data", exist_ok=True)
    for name, (train, which) in _UBYTE.items():
        path = os.path.join("data", name)
        if os.path.exists(path):
            continue
        arr = _mnist_arrays(train)[which].astype(onp.uint8)
        head = struct.pack(">I", 0x0800 + arr.ndim) + struct.pack(f">{arr.ndim}I", *arr.shape)
        tmp = f"{path}.tmp{os.getpid()}"
        with open(tmp, "wb") as f:
            f.write(head + arr.tobytes())
        os.replace(tmp, path)


def get_mnist_iterator(
    batch_size: int, input_shape: Sequence[int], num_parts: int = 1, part_index: int = 0
) -> tuple[Any, Any]:
    """``(train, val)`` :class:`~framework.io.MNISTIter` s over ``data/`` (see :func:`get_mnist_ubyte`);
    flat images unless ``input_shape`` has 3 axes."""
    from .io import MNISTIter

    get_mnist_ubyte()
    flat = len(input_shape) != 3
    train = MNISTIter(
        image="data/train-images-idx3-ubyte",
        label="data/train-labels-idx1-ubyte",
        batch_size=batch_size,
        shuffle=True,
        flat=flat,
        num_parts=num_parts,
        part_index=part_index,
    )
    val = MNISTIter(
        image="data/t10k-images-idx3-ubyte",
        label="data/t10k-labels-idx1-ubyte",
        batch_size=batch_size,
        flat=flat,
        num_parts=num_parts,
        part_index=part_index,
    )
    return train, val
