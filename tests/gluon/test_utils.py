"""gluon.utils.split_and_load onto one device named several times (the seed's ``[gpu, gpu_1]`` on a
machine with one device): MXNet 1.9.1's slices, its uneven rule and its refusals (tests/reference/split,
made by tools/mxnet_reference/gen_split.py), each slice on that device."""

from __future__ import annotations

import re

import jax
import numpy as onp
import pytest

from framework import gluon, npx
from tests.conftest import REFERENCE, aligned_host, count_compiles

REF = onp.load(REFERENCE / "split" / "split.npz", allow_pickle=False)


def cases():
    names = {k.rsplit(":", 1)[0] for k in REF.files if k.count(":") == 3}
    return sorted(names) + [line.split(" ", 1)[0] for line in REF["refused"]]


@pytest.mark.parametrize("case", cases())
def test_a_device_named_several_times_gets_mxnets_slices(case):
    n, axis, even = (int(v) for v in case.split(":"))
    dev = jax.devices()[1]
    x = jax.device_put(REF["x"], dev)
    refused = {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in REF["refused"]}
    if case in refused:
        with pytest.raises(ValueError, match=re.escape(refused[case].split(". ")[0])):
            gluon.utils.split_and_load(x, [dev] * n, batch_axis=axis, even_split=bool(even))
        return
    for data in (x, x, REF["x"]):  # a device array (sliced on the host, then by its program), host data
        parts = gluon.utils.split_and_load(data, [npx.cpu(1)] * n, batch_axis=axis, even_split=bool(even))
        assert len(parts) == n
        for i, part in enumerate(parts):
            assert isinstance(part, jax.Array) and part.devices() == {dev}
            onp.testing.assert_array_equal(onp.asarray(part), REF[f"{case}:{i}"])


def test_device_arrays_and_host_arrays_go_where_ctx_list_says():
    devs = jax.devices()[:2]
    x = jax.device_put(onp.arange(8.0), devs[0])
    parts = gluon.utils.split_and_load(x, devs)
    assert [p.devices() for p in parts] == [{devs[0]}, {devs[1]}]
    parts = gluon.utils.split_and_load(onp.arange(8.0), [devs[1], devs[1]])
    assert all(p.devices() == {devs[1]} for p in parts) and parts[1].tolist() == [4.0, 5.0, 6.0, 7.0]


@pytest.mark.parametrize("devices", [1, 2])
def test_a_host_buffer_filled_again_does_not_change_the_loaded_batch(devices):
    """MXNet copies: a NumPy buffer the caller refills for the next batch leaves the slices it loaded
    as they were (JAX may share a NumPy array's memory on a CPU)."""
    dev = jax.devices()[0]
    for rows in (8, 256):
        buffer = aligned_host((rows, 784), 0.0)
        parts = gluon.utils.split_and_load(buffer, [dev] * devices)
        buffer[:] = 7.0
        assert all(float(onp.abs(onp.asarray(p)).max()) == 0.0 for p in parts)


def test_an_array_already_there_is_cut_by_a_program_from_its_second_split_on():
    """A batch on the device named twice: the first split of its shape compiles nothing (a shape seen
    once), the second compiles one program and later ones none; every split gives the same slices."""
    dev = jax.devices()[0]
    x = jax.device_put(onp.arange(7 * 3, dtype=onp.float32).reshape(7, 3), dev)
    splits = []

    def split() -> None:
        splits.append(gluon.utils.split_and_load(x, [dev, dev], even_split=False))

    compiles = [count_compiles(split) for _ in range(3)]
    assert compiles == [0, 1, 0]
    for parts in splits:
        assert [p.devices() for p in parts] == [{dev}, {dev}]
        onp.testing.assert_array_equal(onp.asarray(parts[0]), onp.asarray(x)[:4])
        onp.testing.assert_array_equal(onp.asarray(parts[1]), onp.asarray(x)[4:])


def test_one_device_keeps_an_array_already_there_and_places_the_rest():
    """MXNet's ``as_in_context``: the array itself when it is on that device, else a copy there."""
    devs = jax.devices()[:2]
    x = jax.device_put(onp.arange(4.0), devs[0])
    assert gluon.utils.split_and_load(x, [devs[0]])[0] is x
    [moved] = gluon.utils.split_and_load(x, [devs[1]])
    assert moved.devices() == {devs[1]} and moved.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_a_large_cpu_batch_is_read_in_place_and_compiles_nothing():
    """A CPU batch as large as the seed's (256 images) is sliced on the host, its slices read in place
    (cheaper than a program's copy at that size), however often it is split."""
    dev = jax.devices()[0]
    x = jax.device_put(onp.random.default_rng(0).random((256, 1, 28, 28), onp.float32), dev)
    splits = []
    compiles = [count_compiles(lambda: splits.append(gluon.utils.split_and_load(x, [dev, dev])))
                for _ in range(3)]
    assert compiles == [0, 0, 0]
    for parts in splits:
        onp.testing.assert_array_equal(onp.asarray(parts[1]), onp.asarray(x)[128:])
