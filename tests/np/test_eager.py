"""framework.np.eager: operators, indexing, methods and np functions on an eager CPU array's first-seen
shapes computed in host memory give JAX's results (values, dtypes, weak types, shapes, placement) and
JAX's errors, compile nothing, and hand repeated signatures to JAX after FRAMEWORK_EAGER_HOST_RUNS."""

from __future__ import annotations

import operator

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import autograd
from framework import np as fnp
from framework.np import eager
from tests.conftest import count_compiles

RS = onp.random.RandomState(0)
ARRAYS = {
    "f32": RS.normal(size=(3, 4)).astype(onp.float32),
    "f32 row": RS.normal(size=(4,)).astype(onp.float32),
    "i32": RS.randint(-5, 6, size=(3, 4)).astype(onp.int32),
    "u8": RS.randint(0, 255, size=(3, 4)).astype(onp.uint8),
    "bool": RS.rand(3, 4) > 0.5,
    "f32 0-d": onp.array(1.5, onp.float32),
}
OTHERS = {"same": None, "int": 3, "float": 0.5, "bool": True, "neg int": -2, "numpy f64": onp.float64(2.5),
          "row": "f32 row", "ints": "i32"}


@pytest.fixture(autouse=True)
def _host_always(monkeypatch):
    monkeypatch.setenv("FRAMEWORK_EAGER_HOST_RUNS", "1000000")


def _put(value, device=None):
    return jax.device_put(value, device)


def _jax_result(fn, *args):
    try:
        return fn(*args), None
    except Exception as err:  # noqa: BLE001 - compared with the host path's
        return None, type(err)


def _same(got, want, rounding=False):
    """The same array; ``rounding``: the values within XLA's rounding (XLA:CPU divides by an estimate of
    the reciprocal, one Newton step refined: within an ulp of the IEEE quotient NumPy gives)."""
    assert isinstance(got, jax.Array)
    assert (got.shape, got.dtype, got.weak_type) == (want.shape, want.dtype, want.weak_type)
    if rounding:
        onp.testing.assert_allclose(onp.asarray(got), onp.asarray(want), rtol=3e-7)
    else:
        onp.testing.assert_array_equal(onp.asarray(got), onp.asarray(want))


def _other(name, left):
    other = OTHERS[name]
    if other is None:
        return left
    if isinstance(other, str):
        return _put(ARRAYS[other])
    return other


@pytest.mark.parametrize("op", sorted(eager.BINARY))
@pytest.mark.parametrize("left", sorted(ARRAYS))
@pytest.mark.parametrize("other", sorted(OTHERS))
def test_binary_operators_are_jaxs(op, left, other):
    a = _put(ARRAYS[left])
    b = _other(other, a)
    py = getattr(operator, op)
    for x, y in ((a, b), (b, a)):
        want, err = _jax_result(py, x, y)
        if err is not None:
            with pytest.raises(err):
                eager.BINARY[op](x, y)
        else:
            _same(eager.BINARY[op](x, y), want, rounding=op == "truediv")


@pytest.mark.parametrize("op", sorted(eager.UNARY))
@pytest.mark.parametrize("value", sorted(ARRAYS))
def test_unary_operators_are_jaxs(op, value):
    a = _put(ARRAYS[value])
    want, err = _jax_result(getattr(operator, op), a)
    if err is not None:
        with pytest.raises(err):
            eager.UNARY[op](a)
    else:
        _same(eager.UNARY[op](a), want)


@pytest.mark.parametrize("n", range(1, 10))
def test_integer_powers_multiply_as_jax_does(n):
    a = _put(RS.normal(size=(257,)).astype(onp.float32) * 3)
    _same(eager.BINARY["pow"](a, n), a ** n)


def test_what_numpy_and_jax_disagree_on_is_jaxs():
    ints = _put(onp.array([7, -7, 3], onp.int32))
    zeros = _put(onp.array([2, 0, 1], onp.int32))
    for op in ("floordiv", "mod"):  # an integer division by zero
        _same(eager.BINARY[op](ints, zeros), getattr(operator, op)(ints, zeros))
    with pytest.raises(OverflowError):  # JAX refuses a Python int out of int32's range; NumPy would wrap
        eager.BINARY["add"](ints, 2 ** 40)
    weak = eager.BINARY["add"](ints, 1.5)  # a weakly typed result
    _same(weak, ints + 1.5)
    assert weak.weak_type


def test_results_stay_on_the_inputs_device():
    device = jax.devices()[-1]
    a = _put(ARRAYS["f32"], device)
    for out in (eager.BINARY["mul"](a, 2), eager.BINARY["add"](_put(ARRAYS["f32 row"]), a),
                eager.getitem(a, (slice(1, None), 0)), eager.method(a, "reshape", -1)):
        assert out.devices() == {device} and out.committed
    free = eager.BINARY["mul"](_put(ARRAYS["f32"]), 2)
    assert not free.committed
    other = _put(ARRAYS["f32"], jax.devices()[0])
    with pytest.raises(ValueError):  # committed to two devices: JAX's error
        eager.BINARY["add"](a, other)


def test_values_that_are_not_arrays_take_pythons_operators():
    items = [1, 2]
    assert eager.INPLACE["add"](items, [3]) is items and items == [1, 2, 3]
    assert eager.BINARY["mod"]("%d-%s", (1, "a")) == "1-a"
    assert eager.BINARY["or_"]({1}, {2}) == {1, 2}
    assert eager.getitem({"k": 5}, "k") == 5
    assert eager.method([3, 1, 2], "sort") is None
    assert eager.method("a b", "split") == ["a", "b"]
    assert eager.BINARY["eq"](_put(ARRAYS["f32"]), None) is False


INDEXES = {
    "int": 1, "negative int": -1, "slice": slice(1, None), "step": slice(None, None, -2),
    "pair": (1, 2), "none": (None, slice(None), 0), "ellipsis": (Ellipsis, 1),
    "int array": "ints", "numpy ints": onp.array([2, 0, -1]), "mask": "mask", "0-d array": "zero",
    "array and slice": ("ints", slice(None, 2)), "out of range int": 7, "out of range array": "far",
    "float array": "floats", "list": [0, 1],
}
INDEX_ARRAYS = {"ints": onp.array([0, 2, 1, -1], onp.int32), "mask": onp.array([True, False, True]),
                "zero": onp.array(2, onp.int32), "far": onp.array([0, 9], onp.int32),
                "floats": onp.array([0.0, 1.0], onp.float32)}


def _index(spec):
    if isinstance(spec, tuple):
        return tuple(_index(s) for s in spec)
    return _put(INDEX_ARRAYS[spec]) if isinstance(spec, str) else spec


@pytest.mark.parametrize("spec", INDEXES.values(), ids=INDEXES.keys())
def test_indexing_is_jaxs(spec):
    x = _put(ARRAYS["f32"])
    index = _index(spec)
    want, err = _jax_result(operator.getitem, x, index)
    if err is not None:
        with pytest.raises(err):
            eager.getitem(x, index)
    else:
        _same(eager.getitem(x, index), want)


METHODS = {
    "reshape": ("reshape", (-1, 2), {}), "reshape tuple": ("reshape", ((2, 6),), {}),
    "astype float": ("astype", ("float32",), {}), "astype int": ("astype", (jnp.int8,), {}),
    "astype bool": ("astype", (bool,), {}), "astype f64": ("astype", ("float64",), {}),
    "flatten": ("flatten", (), {}), "ravel": ("ravel", (), {}), "transpose": ("transpose", (), {}),
    "transpose axes": ("transpose", (1, 0), {}), "squeeze": ("squeeze", (), {}),
    "argsort": ("argsort", (), {}), "argsort axis": ("argsort", (0,), {}), "sort": ("sort", (), {}),
    "max": ("max", (), {}), "max axis": ("max", (1,), {"keepdims": True}), "min": ("min", (0,), {}),
    "argmax": ("argmax", (), {}), "argmin axis": ("argmin", (1,), {}), "any": ("any", (), {}),
    "all axis": ("all", (0,), {}), "sum": ("sum", (), {}), "sum axis": ("sum", (0,), {"keepdims": True}),
    "mean": ("mean", (1,), {}), "clip": ("clip", (), {"min": 0}), "clip both": ("clip", (-1, 1), {}),
    "copy": ("copy", (), {}), "swapaxes": ("swapaxes", (0, 1), {}),
    "bad axis": ("max", (5,), {}), "bad shape": ("reshape", (5, 5), {}),
}


@pytest.mark.parametrize("value", sorted(ARRAYS))
@pytest.mark.parametrize("call", METHODS.values(), ids=METHODS.keys())
def test_methods_are_jaxs(value, call):
    name, args, kwargs = call
    x = _put(ARRAYS[value])
    want, err = _jax_result(lambda: getattr(x, name)(*args, **kwargs))
    if err is not None:
        with pytest.raises(err):
            eager.method(x, name, *args, **kwargs)
        return
    got = eager.method(x, name, *args, **kwargs)
    if name in ("mean", "sum") and x.dtype.kind == "f":  # another summation order: XLA's rounding
        assert (got.shape, got.dtype) == (want.shape, want.dtype)
        onp.testing.assert_allclose(onp.asarray(got), onp.asarray(want), rtol=2e-6)
    else:
        _same(got, want)


def test_sorting_keeps_ties_in_order_as_jax_does():
    x = _put(RS.randint(0, 4, size=(300,)).astype(onp.float32))
    _same(eager.method(x, "argsort"), x.argsort())
    _same(fnp.argsort(x), jnp.argsort(x))


FUNCTIONS = ["exp", "log", "sqrt", "tanh", "sin", "floor", "abs", "square", "sign", "sum", "mean", "max",
             "argmax", "amin", "any", "isnan", "logical_not", "ravel", "transpose", "squeeze", "flip"]
REARRANGED = {"expand_dims": (1,), "transpose": ((1, 0),), "swapaxes": (0, 1), "reshape": ((4, 3),),
              "flip": (1,), "squeeze": (0,)}


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("value", ["f32", "i32", "bool"])
def test_np_functions_are_jaxs(name, value):
    x = _put(onp.abs(ARRAYS[value]) if name in ("log", "sqrt") else ARRAYS[value])
    want, err = _jax_result(getattr(jnp, name), x)
    if err is not None:
        with pytest.raises(err):
            getattr(fnp, name)(x)
        return
    got = getattr(fnp, name)(x)
    assert (got.shape, got.dtype, got.weak_type) == (want.shape, want.dtype, want.weak_type)
    onp.testing.assert_allclose(onp.asarray(got), onp.asarray(want), rtol=2e-6)


@pytest.mark.parametrize("name", sorted(REARRANGED))
def test_np_functions_that_move_values_are_jaxs(name):
    x = _put(ARRAYS["i32"])
    args = REARRANGED[name]
    want, err = _jax_result(lambda: getattr(jnp, name)(x, *args))
    if err is not None:
        with pytest.raises(err):
            getattr(fnp, name)(x, *args)
    else:
        _same(getattr(fnp, name)(x, *args), want)


def test_new_shapes_compile_nothing():
    def loop():
        for n in range(5, 12):
            x = _put(onp.linspace(-1, 1, n, dtype=onp.float32))
            y = eager.BINARY["mul"](eager.getitem(x, slice(1, None)), 2.0)
            m = eager.BINARY["le"](fnp.maximum(y, 0.5), 0.7)
            s = eager.method(eager.method(x, "reshape", 1, -1), "argsort")
            fnp.sum(fnp.exp(eager.getitem(x, eager.getitem(s, 0))))
            eager.getitem(y, m)

    assert count_compiles(loop) == 0


def test_repeated_signatures_go_to_jax(monkeypatch):
    monkeypatch.setenv("FRAMEWORK_EAGER_HOST_RUNS", "2")
    x = _put(onp.arange(13, dtype=onp.float32))
    add = lambda: eager.BINARY["add"](x, 1.0)  # noqa: E731
    assert count_compiles(add) == 0 and count_compiles(add) == 0
    assert count_compiles(add) == 1  # the third run: JAX's program
    monkeypatch.setenv("FRAMEWORK_EAGER_HOST_RUNS", "0")
    assert count_compiles(lambda: eager.BINARY["mul"](_put(onp.arange(17, dtype=onp.float32)), 2.0)) == 1


def test_traced_and_recorded_values_are_jaxs():
    x = _put(ARRAYS["f32"])
    traced = jax.jit(lambda v: eager.method(eager.BINARY["mul"](eager.getitem(v, 0), 2), "reshape", 2, 2))
    _same(traced(x), (x[0] * 2).reshape(2, 2))
    grad = jax.grad(lambda v: fnp.sum(eager.BINARY["mul"](v, v)))(x)
    onp.testing.assert_allclose(onp.asarray(grad), 2 * ARRAYS["f32"], rtol=1e-6)
    w = autograd.Variable(x)
    with autograd.record():
        loss = fnp.sum(eager.BINARY["mul"](w, 3.0))
    loss.backward()
    onp.testing.assert_allclose(onp.asarray(w.grad), onp.full((3, 4), 3.0, onp.float32))


def test_weakly_typed_arrays_promote_as_jax_promotes_them():
    x = _put(ARRAYS["f32 row"])
    weak = jnp.sqrt(2.0)  # a 0-d array of a Python number's weak type
    assert weak.weak_type
    assert count_compiles(lambda: eager.BINARY["truediv"](x, weak)) == 0
    _same(eager.BINARY["truediv"](x, weak), x / weak, rounding=True)
    _same(eager.BINARY["add"](weak, 1.0), weak + 1.0)  # weak and weak: a weak result, JAX's
    _same(eager.method(weak, "reshape", 1), weak.reshape(1))  # a weak array's method keeps its type
    _same(eager.BINARY["pow"](weak, 2), weak ** 2)


def test_jaxs_promotion_settings_hold():
    x, row = _put(ARRAYS["f32"]), _put(ARRAYS["f32 row"])
    with jax.numpy_rank_promotion("raise"), pytest.raises(ValueError):
        eager.BINARY["add"](x, row)
    with jax.numpy_dtype_promotion("strict"), pytest.raises(jax.dtypes.TypePromotionError):
        eager.BINARY["add"](x, _put(ARRAYS["i32"]))
