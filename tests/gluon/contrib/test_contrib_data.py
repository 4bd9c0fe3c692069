"""gluon.contrib.data.IntervalSampler against MXNet 1.9.1's orders (tests/reference/contrib/data.npz)."""

from __future__ import annotations

import numpy as onp
import pytest

from framework import gluon
from framework.gluon.contrib.data import IntervalSampler
from tests.conftest import REFERENCE

with onp.load(REFERENCE / "contrib" / "data.npz") as _f:
    REF = {k: _f[k] for k in _f.files}


@pytest.mark.parametrize("key", sorted(REF))
def test_interval_sampler_matches_mxnet(key):
    n, k, r = (int(v) for v in key.split(":")[1].split("_"))
    sampler = IntervalSampler(n, k, rollover=bool(r))
    assert list(sampler) == REF[key].tolist()
    assert len(sampler) == n


def test_interval_sampler_in_a_loader_and_errors():
    data = gluon.data.ArrayDataset(onp.arange(6.0))
    loader = gluon.data.DataLoader(data, batch_size=3, sampler=IntervalSampler(6, 2))
    assert [b.tolist() for b in loader] == [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]
    with pytest.raises(ValueError, match="Interval 4 must be smaller than or equal to length 3"):
        IntervalSampler(3, 4)
