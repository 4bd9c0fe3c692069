"""gluon.utils.split_and_load onto one device named several times (the seed's ``[gpu, gpu_1]`` on a
machine with one device): MXNet 1.9.1's slices (tests/reference/split, tools/mxnet_reference/gen_split.py),
each on that device, one compiled program per split whatever the number of calls."""

from __future__ import annotations

import re

import jax
import numpy as onp
import pytest

from framework import gluon, npx
from tests.conftest import REFERENCE, count_compiles

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
    parts = gluon.utils.split_and_load(x, [npx.cpu(1)] * n, batch_axis=axis, even_split=bool(even))
    assert len(parts) == n
    for i, part in enumerate(parts):
        assert isinstance(part, jax.Array) and part.devices() == {dev}
        onp.testing.assert_array_equal(onp.asarray(part), REF[f"{case}:{i}"])


def test_splitting_a_device_array_there_is_one_program_compiled_once():
    dev = jax.devices()[0]
    x = jax.device_put(onp.arange(26.0).reshape(13, 2), dev)
    batches = [x + i for i in range(3)]
    first = count_compiles(lambda: gluon.utils.split_and_load(x, [dev, dev], even_split=False))
    again = count_compiles(lambda: [gluon.utils.split_and_load(b, [dev, dev], even_split=False)
                                    for b in batches])
    assert (first, again) == (1, 0)


def test_a_host_array_or_another_device_is_still_copied_slice_by_slice():
    devs = jax.devices()[:2]
    x = jax.device_put(onp.arange(8.0), devs[0])
    parts = gluon.utils.split_and_load(x, devs)
    assert [p.devices() for p in parts] == [{devs[0]}, {devs[1]}]
    parts = gluon.utils.split_and_load(onp.arange(8.0), [devs[1], devs[1]])
    assert all(p.devices() == {devs[1]} for p in parts) and parts[1].tolist() == [4.0, 5.0, 6.0, 7.0]
