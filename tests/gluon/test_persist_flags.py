"""load_parameters' allow_missing / ignore_extra for a single layer, a nested block and a Sequential,
against what MXNet 1.9.1 does with the same files (tests/reference/persist, gen_persist.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as onp
import pytest

from framework import gluon, init
from framework.gluon import nn

REF = Path(__file__).resolve().parents[1] / "reference" / "persist"
OUTCOMES = json.loads((REF / "outcomes.json").read_text())["outcomes"]


class Nested(gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.body = nn.HybridSequential()
        self.body.add(nn.Dense(2, in_units=3), nn.Dense(1, in_units=2))
        self.head = nn.Dense(1, in_units=1)

    def forward(self, x):
        return self.head(self.body(x))


def _sequential():
    net = nn.HybridSequential()
    net.add(nn.Dense(2, in_units=3), nn.Dense(1, in_units=2))
    return net


MAKERS = {"single": lambda: nn.Dense(2, in_units=3), "nested": Nested, "sequential": _sequential}


@pytest.mark.parametrize("key", sorted(OUTCOMES))
def test_flags_behave_as_in_mxnet(key):
    fname, flags = key.split(":")
    allow_missing, ignore_extra = bool(int(flags[0])), bool(int(flags[1]))
    net = MAKERS[fname.split("_")[0]]()
    net.initialize(init.Constant(-7.0))
    want = OUTCOMES[key]
    if "error" in want:
        kind = "missing in file" if "missing" in want["message"] else "not present in this network"
        with pytest.raises(ValueError, match=kind):
            net.load_parameters(str(REF / fname), allow_missing=allow_missing, ignore_extra=ignore_extra)
        return
    net.load_parameters(str(REF / fname), allow_missing=allow_missing, ignore_extra=ignore_extra)
    params = net.collect_params()
    for name, values in want["values"].items():
        assert onp.asarray(params[name].data()).ravel().tolist() == values, name


def test_the_missing_message_names_the_flag(tmp_path):
    net = nn.Dense(2, in_units=3)
    with pytest.raises(ValueError, match=r"Parameter\(s\) \['bias'\] \(1 in all\) missing in file "
                                         r"'.*single_missing.params', .*Set allow_missing=True"):
        net.load_parameters(str(REF / "single_missing.params"))
