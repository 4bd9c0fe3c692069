"""``mx.nd`` operators beyond the core set (``ROIPooling``, ``RNN``, the optimizer updates, ...) against
MXNet 1.9.1: compiled with gradients, and eagerly inside ``autograd.record()``."""

from __future__ import annotations

import pytest
from ops_reference import check_compiled, check_recorded, names, recorded_names

ND = names("nd.")


@pytest.mark.parametrize("name", ND)
def test_matches_mxnet_compiled(name):
    check_compiled(name)


@pytest.mark.parametrize("name", recorded_names("nd."))
def test_matches_mxnet_recorded(name):
    check_recorded(name)
