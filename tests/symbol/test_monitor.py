"""``mx.mon.Monitor`` over executors and ``Module.install_monitor``: the rows ``toc()`` returns (batch,
name in MXNet's order, the statistic's text) against MXNet 1.9.1's for a small MLP
(tests/reference/symtools/monitor.json, tools/mxnet_reference/gen_symtools.py). MXNet also reports the
backward's nodes (``*_backward_output*``) in training; those are left out here and in the comparison."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as onp
import pytest
from symtools_cases import small_mlp, small_mlp_args

import framework as mx

REF_FILE = Path(__file__).resolve().parents[1] / "reference" / "symtools" / "monitor.json"
REF = json.loads(REF_FILE.read_text())


def _exe():
    args = small_mlp_args()
    return small_mlp(mx).bind(None, args, args_grad={k: onp.zeros_like(v) for k, v in args.items()})


def _same(got, want):
    """Rows equal in batch and name, the statistics equal to float32 rounding."""
    assert [(s, n) for s, n, _ in got] == [(s, n) for s, n, _ in want]
    for (_, name, a), (_, _, b) in zip(got, want, strict=True):
        assert a.endswith("\t"), name
        ga = onp.array(a.replace("[", " ").replace("]", " ").split(), onp.float64)
        gb = onp.array(b.replace("[", " ").replace("]", " ").split(), onp.float64)
        onp.testing.assert_allclose(ga, gb, rtol=2e-6, err_msg=name)


@pytest.mark.parametrize(("case", "kwargs", "train"), [
    ("infer", {}, False), ("train", {}, True),
    ("pattern_sort", {"pattern": ".*weight|.*output", "sort": True}, False)])
def test_toc_matches_mxnet(case, kwargs, train):
    exe = _exe()
    mon = mx.mon.Monitor(1, **kwargs)
    mon.install(exe)
    mon.tic()
    exe.forward(is_train=train)
    if train:
        exe.backward()
    want = [tuple(r) for r in REF[case] if "_backward_" not in r[1]]
    _same(mon.toc(), want)


def test_interval_collects_every_other_batch():
    exe = _exe()
    mon = mx.mon.Monitor(2, pattern="fc1_output|data")
    mon.install(exe)
    for want in REF["interval"]:
        mon.tic()
        exe.forward(is_train=False)
        _same(mon.toc(), [tuple(r) for r in want])


def test_stat_func_returning_arrays():
    exe = _exe()
    mon = mx.mon.Monitor(1, stat_func=lambda x: x, pattern="fc2_bias|softmax_output")
    mon.install(exe)
    mon.tic()
    exe.forward(is_train=False)
    _same(mon.toc(), [tuple(r) for r in REF["stat_array"]])


def test_module_install_monitor(caplog):
    args = small_mlp_args()
    mod = mx.mod.Module(small_mlp(mx), data_names=["data"], label_names=["softmax_label"], context=mx.cpu())
    mod.bind(data_shapes=[("data", args["data"].shape)], label_shapes=[("softmax_label", (2,))])
    mod.set_params({k: v for k, v in args.items() if k not in ("data", "softmax_label")}, {})
    mon = mx.mon.Monitor(1)
    mod.install_monitor(mon)
    batch = mx.io.DataBatch([mx.nd.array(args["data"])], [mx.nd.array(args["softmax_label"])])
    mon.tic()
    mod.forward(batch, is_train=False)
    _same(mon.toc(), [tuple(r) for r in REF["module"]])
    mon.tic()
    mod.forward(batch, is_train=False)
    with caplog.at_level(logging.INFO):
        mon.toc_print()
    assert "Batch:       2 fc1_output" in caplog.text


def test_monitor_all_is_refused_clearly():
    with pytest.raises(ValueError, match="monitor_all"):
        mx.mon.Monitor(1, monitor_all=True)
