"""``np.stack`` / ``np.concatenate`` of host data (NumPy arrays and scalars, as data set items are) give
what ``jax.numpy`` gives, without compiling a join over every part (which took minutes for the few
thousand images a data set filter collects)."""

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import autograd, np
from tests.conftest import count_compiles


class Compiles:
    def __enter__(self):
        self.n = 0

        def listener(event, duration, **kwargs):
            if event == "/jax/core/compile/backend_compile_duration":
                self.n += 1

        self._listener = listener
        jax.monitoring.register_event_duration_secs_listener(listener)
        return self

    def __exit__(self, *exc):
        jax.monitoring.unregister_event_duration_listener(self._listener)


@pytest.mark.parametrize("fn", ["stack", "concatenate"])
def test_host_parts_join_on_the_host(fn):
    rng = onp.random.default_rng(0)
    parts = [rng.integers(0, 255, size=(3, 5), dtype=onp.uint8) for _ in range(257)]  # a fresh shape
    with Compiles() as c:
        got = getattr(np, fn)(parts, axis=1)
        got.block_until_ready()
    want = getattr(jnp, fn)(parts, axis=1)
    assert c.n == 0 and isinstance(got, jax.Array)
    assert got.dtype == want.dtype and got.shape == want.shape
    onp.testing.assert_array_equal(onp.asarray(got), onp.asarray(want))


def test_scalars_and_device_arrays_keep_jax_numpys_results():
    labels = [onp.int32(i % 3) for i in range(10)]
    assert np.stack(labels).dtype == jnp.stack(labels).dtype and np.stack(labels).tolist() == list(
        onp.asarray(labels))
    mixed = [onp.ones(2), np.zeros(2)]
    assert np.stack(mixed).tolist() == [[1.0, 1.0], [0.0, 0.0]]
    assert np.stack([onp.ones(2)] * 2, dtype="int32").dtype == jnp.int32


@pytest.mark.parametrize("fn", ["stack", "concatenate"])
def test_device_arrays_join_as_before(fn):
    parts = [np.ones((2, 2)), np.zeros((2, 2))]
    assert getattr(np, fn)(parts, axis=1).tolist() == getattr(jnp, fn)(parts, axis=1).tolist()
    with pytest.raises(TypeError, match="cannot be written into"):
        getattr(np, fn)(parts, out=np.zeros(1))


def test_recorded_parts_still_record():
    w = autograd.attach_grad(np.ones(3))
    with autograd.record():
        y = (np.stack([w, w * 2]) ** 2).sum()
    y.backward()
    assert w.grad.tolist() == [10.0, 10.0, 10.0]


JOINS = {
    "rows": ([(2, 3), (1, 3)], ["float32", "float32"], 0),
    "columns": ([(2, 3), (2, 1)], ["float32", "int32"], 1),
    "negative axis": ([(2, 3), (2, 2)], ["int32", "bool"], -1),
    "flattened": ([(2, 3), (4,)], ["float32", "float32"], None),
    "mismatch": ([(2, 3), (2, 2)], ["float32", "float32"], 0),
    "axis out of range": ([(2,), (2,)], ["float32", "float32"], 3),
}


@pytest.mark.parametrize("fn", ["concatenate", "stack"])
@pytest.mark.parametrize("case", JOINS.values(), ids=JOINS.keys())
def test_eager_cpu_arrays_join_in_host_memory_as_jax_joins_them(monkeypatch, fn, case):
    monkeypatch.setenv("FRAMEWORK_EAGER_HOST_RUNS", "1000")
    shapes, dtypes, axis = case
    if fn == "stack":
        shapes = [shapes[0]] * 2 if case is not JOINS["mismatch"] else shapes
    device = jax.devices()[-1]
    arrays = [jax.device_put(onp.arange(onp.prod(s)).reshape(s).astype(d), device)
              for s, d in zip(shapes, dtypes, strict=True)]
    got = []
    try:  # the host join first: JAX's reference would leave its program compiled
        compiled = count_compiles(lambda: got.append(getattr(np, fn)(arrays, axis=axis)))
    except (ValueError, TypeError) as err:
        with pytest.raises(type(err)):
            getattr(jnp, fn)(arrays, axis=axis)
        return
    want = getattr(jnp, fn)(arrays, axis=axis)
    assert compiled == 0
    assert (got[0].shape, got[0].dtype) == (want.shape, want.dtype)
    assert got[0].devices() == {device} and got[0].committed
    onp.testing.assert_array_equal(onp.asarray(got[0]), onp.asarray(want))
