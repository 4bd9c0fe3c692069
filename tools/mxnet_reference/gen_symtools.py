"""Reference files for the symbol tools (``mx.viz``, ``mx.mon``, ``mx.test_utils``' symbolic checks),
made by real MXNet 1.9.1.

Run from the repository root: ``/tmp/mx/bin/python tools/mxnet_reference/gen_symtools.py``, then
``python tools/mxnet_reference/manifest.py tests/reference/symtools --generator
tools/mxnet_reference/gen_symtools.py --mxnet-version 1.9.1``. Writes into ``tests/reference/symtools/``:

- ``summary_<case>.txt``: what ``mx.viz.print_summary`` prints for the MLP and the LeNet with BatchNorm of
  ``tests/symbol/symbolic_nets.py`` (with and without input shapes, MXNet's and narrower layouts).
- ``plot.json``: the ``Digraph`` calls ``mx.viz.plot_network`` makes (recorded by the stand-in of
  ``tests/symbol/symtools_cases.py``), per case.
- ``monitor.json``: what ``Monitor.toc()`` returns for the small MLP of ``symtools_cases``: inference,
  training (forward + backward), a pattern with sorting, an interval of 2 over three batches, through
  ``Module.install_monitor``, and a stat function returning arrays.
- ``symbolic_check.json`` / ``.npz``: the outputs and gradients of the small MLP that
  ``check_symbolic_forward``/``check_symbolic_backward`` accept, and the message of a failing check.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os

import mxnet as mx
import numpy as np

OUT = os.path.join("tests", "reference", "symtools")


def _load(name):
    path = os.path.join("tests", "symbol", f"{name}.py")
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


NETS = _load("symbolic_nets")
CASES = _load("symtools_cases")
SUMMARY_CASES = {  # name: (builder, with shapes, keyword arguments)
    "mlp": ("mlp", True, {}),
    "mlp_noshape": ("mlp", False, {}),
    "lenet_bn": ("lenet_bn", True, {}),
    "lenet_bn_narrow": ("lenet_bn", True, {"line_length": 80, "positions": [30, 50, 60, 80]}),
}


def summaries():
    for case, (builder, with_shape, kwargs) in SUMMARY_CASES.items():
        with mx.name.NameManager():
            sym, shapes, _ = getattr(NETS, builder)(mx)
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            mx.viz.print_summary(sym, shape=shapes if with_shape else None, **kwargs)
        with open(os.path.join(OUT, f"summary_{case}.txt"), "w") as f:
            f.write(buf.getvalue())


PLOT_CASES = {  # name: (builder, keyword arguments: shape/dtype True for the builder's input shapes)
    "mlp": ("mlp", {}),
    "mlp_shape_dtype": ("mlp", {"shape": True, "dtype": True, "title": "net", "save_format": "png"}),
    "lenet_bn_shape": ("lenet_bn", {"shape": True, "node_attrs": {"fixedsize": "false"}}),
    "lenet_bn_weights": ("lenet_bn", {"hide_weights": False}),
}


def plots():
    CASES.install()
    rec = {}
    for case, (builder, kwargs) in PLOT_CASES.items():
        with mx.name.NameManager():
            sym, shapes, _ = getattr(NETS, builder)(mx)
        kw = dict(kwargs)
        if kw.get("shape"):
            kw["shape"] = shapes
        if kw.get("dtype"):
            kw["dtype"] = {k: np.float32 for k in shapes}
        rec[case] = mx.viz.plot_network(sym, **kw).calls
    _dump("plot.json", rec)


def _exe(net, args, grad=True):
    return net.bind(mx.cpu(), {k: mx.nd.array(v) for k, v in args.items()},
                    args_grad={k: mx.nd.zeros(v.shape) for k, v in args.items()} if grad else None)


def monitors():
    net, args = CASES.small_mlp(mx), CASES.small_mlp_args()
    rec = {}
    for case, kwargs, train in (("infer", {}, False), ("train", {}, True),
                                ("pattern_sort", {"pattern": ".*weight|.*output", "sort": True}, False)):
        exe = _exe(net, args)
        mon = mx.mon.Monitor(1, **kwargs)
        mon.install(exe)
        mon.tic()
        exe.forward(is_train=train)
        if train:
            exe.backward()
        rec[case] = mon.toc()
    exe = _exe(net, args)
    mon = mx.mon.Monitor(2, pattern="fc1_output|data")
    mon.install(exe)
    batches = []
    for _ in range(3):
        mon.tic()
        exe.forward(is_train=False)
        batches.append(mon.toc())
    rec["interval"] = batches
    exe = _exe(net, args)
    mon = mx.mon.Monitor(1, stat_func=lambda x: x, pattern="fc2_bias|softmax_output")
    mon.install(exe)
    mon.tic()
    exe.forward(is_train=False)
    rec["stat_array"] = mon.toc()
    mod = mx.mod.Module(net, data_names=["data"], label_names=["softmax_label"], context=mx.cpu())
    mod.bind(data_shapes=[("data", args["data"].shape)], label_shapes=[("softmax_label", (2,))])
    mod.set_params({k: mx.nd.array(v) for k, v in args.items() if k not in ("data", "softmax_label")}, {})
    mon = mx.mon.Monitor(1)
    mod.install_monitor(mon)
    mon.tic()
    mod.forward(mx.io.DataBatch([mx.nd.array(args["data"])], [mx.nd.array(args["softmax_label"])]),
                is_train=False)
    rec["module"] = mon.toc()
    _dump("monitor.json", rec)


def symbolic_checks():
    net, args = CASES.small_mlp(mx), CASES.small_mlp_args()
    exe = _exe(net, args)
    outs = exe.forward(is_train=True)
    exe.backward()
    arrays = {"out:softmax_output": outs[0].asnumpy()}
    arrays.update({f"grad:{k}": v.asnumpy() for k, v in exe.grad_dict.items()})
    np.savez(os.path.join(OUT, "symbolic_check.npz"), **arrays)
    messages = {}
    wrong = outs[0].asnumpy().copy()
    wrong[0, 1] += 0.5
    try:
        mx.test_utils.check_symbolic_forward(net, args, [wrong])
    except AssertionError as e:
        messages["forward"] = str(e)
    wrong_grad = exe.grad_dict["fc2_bias"].asnumpy().copy()
    wrong_grad[2] -= 1.0
    expected = {k: v.asnumpy() for k, v in exe.grad_dict.items()}
    expected["fc2_bias"] = wrong_grad
    try:
        mx.test_utils.check_symbolic_backward(net, args, None, expected)
    except AssertionError as e:
        messages["backward"] = str(e)
    try:
        mx.test_utils.check_symbolic_forward(net, {"data": args["data"]}, [wrong])
    except ValueError as e:
        messages["location"] = str(e)
    d1, d2 = mx.sym.var("a"), mx.sym.var("b")
    messages["same_structure"] = [mx.test_utils.same_symbol_structure(d1 + d2, d2 + d1),
                                  mx.test_utils.same_symbol_structure(d1 + d2, d1 * d2)]
    messages["simple_forward"] = mx.test_utils.simple_forward(d1 * d2 + 1, a=np.ones((2,)) * 3,
                                                              b=np.arange(2.0)).tolist()
    _dump("symbolic_check.json", messages)


def _dump(name, obj):
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(obj, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    summaries()
    plots()
    monitors()
    symbolic_checks()
    print("wrote", sorted(os.listdir(OUT)))
