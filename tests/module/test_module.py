"""``mx.mod.Module`` against MXNet 1.9.1 (tests/reference/symbolic/module_lenet*, made by
tools/mxnet_reference/gen_symbolic.py): ``fit`` of a symbolic LeNet with BatchNorm on 512 Fashion-MNIST
images from the same initial parameters gives MXNet's accuracies and parameters; MXNet's checkpoint
loads here, writes back byte for byte, and training continues to MXNet's numbers; our checkpoint loads
in MXNet (live, with /tmp/mx) to the same validation accuracy."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as onp
import pytest

import framework as mx

ROOT = Path(__file__).resolve().parents[2]
REF = ROOT / "tests" / "reference" / "symbolic"
sys.path.insert(0, str(ROOT / "tests" / "symbol"))
from symbol_helpers import seeded_params  # noqa: E402
from symbolic_nets import lenet_module  # noqa: E402

MX = os.environ.get("MXNET_PYTHON", "/tmp/mx/bin/python")
TRAIN_N, VAL_N, BATCH, SEED = 512, 256, 64, 7
OPT = {"learning_rate": 0.05, "momentum": 0.9, "wd": 1e-4}


@pytest.fixture(scope="module")
def data(fashion_root):
    from framework.gluon.data.vision import datasets

    def first(train, n):
        ds = datasets.FashionMNIST(root=str(fashion_root), train=train)
        x = onp.stack([ds[i][0] for i in range(n)]).transpose(0, 3, 1, 2).astype(onp.float32) / 255
        y = onp.array([ds[i][1] for i in range(n)], onp.float32)
        return x, y
    return first(True, TRAIN_N), first(False, VAL_N)


@pytest.fixture(scope="module")
def lenet():
    """One symbol for the tests of this file: its compiled programs are made once."""
    with mx.name.NameManager():
        sym, _, _ = lenet_module(mx)
    return sym


def _initial(sym):
    arg_shapes, _, aux_shapes = sym.infer_shape(data=(BATCH, 1, 28, 28))
    shape_of = dict(zip(sym.list_arguments(), arg_shapes, strict=True))
    names = [n for n in sym.list_arguments() if n not in ("data", "softmax_label")]
    params = seeded_params(sorted((n, shape_of[n]) for n in names), SEED)
    aux = {n: (onp.zeros if n.endswith("mean") else onp.ones)(s, onp.float32)
           for n, s in zip(sym.list_auxiliary_states(), aux_shapes, strict=True)}
    return params, aux


def _assert_params(got, ref, prefix, tol=1e-5):
    """Close to MXNet's, within ``tol`` of each array's scale (16 SGD steps with momentum amplify the
    float rounding differences of two implementations to about 1e-3; two steps stay near 1e-6)."""
    for k, v in got.items():
        want = ref[f"{prefix}:{k}"]
        onp.testing.assert_allclose(onp.asarray(v), want, rtol=0, atol=tol * max(1.0, float(abs(want).max())),
                                    err_msg=k)


def test_two_steps_match_mxnet_exactly(data, lenet):
    (x, y), _ = data
    ref = onp.load(REF / "module_lenet.npz")
    sym = lenet
    params, aux = _initial(sym)
    mod = mx.mod.Module(sym, context=mx.cpu())
    mod.fit(mx.io.NDArrayIter(x[:2 * BATCH], y[:2 * BATCH], BATCH), optimizer="sgd", optimizer_params=OPT,
            arg_params=params, aux_params=aux, num_epoch=1)
    arg, auxs = mod.get_params()
    _assert_params({**arg, **auxs}, ref, "short", tol=2e-5)


def test_fit_matches_mxnet(data, lenet):
    (x, y), (xv, yv) = data
    ref = onp.load(REF / "module_lenet.npz")
    sym = lenet
    params, aux = _initial(sym)
    history = {"train": [], "val": []}
    mod = mx.mod.Module(sym, context=mx.cpu())
    mod.fit(mx.io.NDArrayIter(x, y, BATCH), eval_data=mx.io.NDArrayIter(xv, yv, BATCH), eval_metric="acc",
            optimizer="sgd", optimizer_params=OPT, arg_params=params, aux_params=aux, num_epoch=2,
            eval_end_callback=lambda p: history["val"].append(p.eval_metric.get()[1]),
            batch_end_callback=lambda p: p.nbatch == TRAIN_N // BATCH - 1 and history["train"].append(
                p.eval_metric.get()[1]))
    onp.testing.assert_allclose(history["train"], ref["train_acc"], atol=2 / TRAIN_N)
    onp.testing.assert_allclose(history["val"], ref["val_acc"], atol=2 / VAL_N)
    arg, auxs = mod.get_params()
    _assert_params({**arg, **auxs}, ref, "fit", tol=1e-2)


def test_mxnet_checkpoint_loads_writes_back_and_trains_on(data, tmp_path):
    (x, y), (xv, yv) = data
    ref = onp.load(REF / "module_lenet.npz")
    prefix = str(REF / "module_lenet")
    sym, arg, aux = mx.model.load_checkpoint(prefix, 1)
    out = str(tmp_path / "copy")
    mx.model.save_checkpoint(out, 1, sym, arg, aux)  # byte-compatible both ways: the same files
    assert Path(out + "-symbol.json").read_bytes() == (REF / "module_lenet-symbol.json").read_bytes()
    assert Path(out + "-0001.params").read_bytes() == (REF / "module_lenet-0001.params").read_bytes()
    mod = mx.mod.Module.load(prefix, 1, context=mx.cpu())
    val = mx.io.NDArrayIter(xv, yv, BATCH)
    mod.fit(mx.io.NDArrayIter(x, y, BATCH), eval_data=val, optimizer="sgd", optimizer_params=OPT,
            begin_epoch=1, num_epoch=2)
    arg, auxs = mod.get_params()
    _assert_params({**arg, **auxs}, ref, "resumed", tol=1e-2)
    assert abs(mod.score(val, "acc")[0][1] - float(ref["resumed_val_acc"])) <= 2 / VAL_N


def test_our_checkpoint_loads_in_mxnet(data, lenet, tmp_path):
    (x, y), (xv, yv) = data
    sym = lenet
    params, aux = _initial(sym)
    mod = mx.mod.Module(sym, context=mx.cpu(), logger=logging.getLogger("quiet"))
    mod.fit(mx.io.NDArrayIter(x, y, BATCH), optimizer="sgd", optimizer_params=OPT, arg_params=params,
            aux_params=aux, num_epoch=1)
    prefix = str(tmp_path / "ours")
    mod.save_checkpoint(prefix, 1)
    ours = mod.score(mx.io.NDArrayIter(xv, yv, BATCH), "acc")[0][1]
    back = mx.mod.Module.load(prefix, 1)  # ours loads here
    back.bind([("data", (BATCH, 1, 28, 28))], [("softmax_label", (BATCH,))], for_training=False)
    assert back.score(mx.io.NDArrayIter(xv, yv, BATCH), "acc")[0][1] == ours
    if not os.path.exists(MX):
        return  # MXNet's side of this check ran when the reference files were made
    env = {**os.environ, "FASHION_ROOT": str(data_root_of(data))}
    subprocess.run([MX, "tools/mxnet_reference/gen_symbolic.py", "--check-ours", prefix, "1",
                    str(tmp_path / "mx.json")], cwd=ROOT, check=True, timeout=300, capture_output=True,
                   env=env)
    result = json.loads((tmp_path / "mx.json").read_text())
    assert result["arguments"] == sym.list_arguments()
    assert abs(result["val_acc"] - ours) <= 1 / VAL_N
    mod2 = mx.mod.Module.load(prefix, 1)
    mod2.fit(mx.io.NDArrayIter(x, y, BATCH), optimizer="sgd", optimizer_params=OPT, begin_epoch=1,
             num_epoch=2)
    arg, auxs = mod2.get_params()
    for k, v in {**arg, **auxs}.items():
        want = onp.asarray(result["after"][k])  # 8 steps after ours: rounding amplified as in _assert_params
        onp.testing.assert_allclose(onp.asarray(v).ravel()[:8], want, rtol=0,
                                    atol=1e-2 * max(1.0, float(abs(want).max())), err_msg=k)


def data_root_of(data):
    from framework.gluon.data.vision import _files

    for _, d in _files.search_dirs("fashion-mnist"):
        if _files.find_file(d, "t10k-labels-idx1-ubyte.gz"):
            return d
    raise AssertionError("no Fashion-MNIST directory")


def test_save_params_and_load_params_round_trip_and_refuse_foreign_keys(tmp_path):
    sym, arg, aux = mx.model.load_checkpoint(str(REF / "module_lenet"), 1)
    mod = mx.mod.Module(sym, context=mx.cpu())
    mod.bind([("data", (BATCH, 1, 28, 28))], [("softmax_label", (BATCH,))], for_training=False)
    mod.load_params(str(REF / "module_lenet-0001.params"))  # MXNet's own file
    out = tmp_path / "mod.params"
    mod.save_params(str(out))
    assert out.read_bytes() == (REF / "module_lenet-0001.params").read_bytes()
    got_arg, got_aux = mod.get_params()
    assert sorted(got_arg) == sorted(arg) and sorted(got_aux) == sorted(aux)
    foreign = tmp_path / "foreign.params"
    mx.nd.save(str(foreign), {"weight": mx.nd.zeros((2,))})
    with pytest.raises(ValueError, match=r"foreign\.params: key 'weight' is neither arg:<name> nor aux:"):
        mod.load_params(str(foreign))
