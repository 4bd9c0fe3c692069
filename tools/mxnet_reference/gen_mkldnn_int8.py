"""Reference files for MXNet 1.9.1's oneDNN fused convolution (``_sg_mkldnn_conv``), float and int8,
made by real MXNet 1.9.1 on this machine's CPU (its int8 results depend on the CPU: see
``framework/npx/quantized_fused.py``; the manifest records the CPU's VNNI flag).

Run from the repository root: ``/tmp/mx/bin/python tools/mxnet_reference/gen_mkldnn_int8.py``, then
``python tools/mxnet_reference/manifest.py tests/reference/mkldnn_int8 --generator
tools/mxnet_reference/gen_mkldnn_int8.py --mxnet-version 1.9.1``.

A small float network (every fusion MXNet's quantization makes: Convolution+BatchNorm+ReLU on int8
data, Convolution+BatchNorm, a residual sum with ReLU after it, a depthwise convolution on uint8 data,
max and average pooling, a concatenation, a Convolution with bias and no BatchNorm, a dense head
on a flattened int8 tensor) is
written as ``float-symbol.json``; ``quantize_model_mkldnn`` (calibration ``naive`` on 4 batches, so
that the ranges fit the activations; the dense head left in float, after a ``dequantize``, as in
GluonCV's int8 models) makes ``int8-symbol.json``, and ``get_backend_symbol('MKLDNN')``
the fused float graph ``fused-symbol.json``. ``params.npz``: every argument and auxiliary state of the
int8 graph (``arg:``/``aux:`` names); ``outputs.npz``: ``x`` (the input) and, for each graph, each
internal output of its fused and quantized nodes (``<graph>/<output name>``), computed by MXNet.
"""

from __future__ import annotations

import json
import os

import mxnet as mx
import numpy as np
from mxnet.contrib import quantization

OUT = os.path.join("tests", "reference", "mkldnn_int8")


def conv(x, name, filters, kernel=3, group=1, bias=False, bn=True, relu=True):
    pad = (kernel // 2, kernel // 2)
    y = mx.sym.Convolution(x, num_filter=filters, kernel=(kernel, kernel), pad=pad, num_group=group,
                           no_bias=not bias, name=name)
    if bn:
        y = mx.sym.BatchNorm(y, fix_gamma=False, eps=1e-5, name=name + "_bn")
    return mx.sym.Activation(y, act_type="relu", name=name + "_relu") if relu else y


def network():
    x = mx.sym.var("data")
    a = conv(x, "c0", 8)                                   # int8 data (the input's range is signed)
    skip = conv(a, "c1", 8, kernel=1, relu=False)          # int8 output
    b = conv(a, "c2", 8, relu=False)
    b = mx.sym.Activation(b + skip, act_type="relu", name="sum_relu")  # residual sum, ReLU after it
    d = conv(b, "c3", 8, group=8, bn=False)                # depthwise on uint8 data
    p = mx.sym.Pooling(d, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool_max")
    e = conv(p, "c4", 4, kernel=1, bias=True, bn=False, relu=False)
    f = conv(p, "c5", 4, kernel=3, bn=True)
    g = mx.sym.Concat(e, f, dim=1, name="cat")
    g = mx.sym.Pooling(g, kernel=(2, 2), stride=(2, 2), pool_type="avg", name="pool_avg")
    g = conv(g, "c6", 6, kernel=1)
    return mx.sym.FullyConnected(mx.sym.flatten(g), num_hidden=5, name="fc")


def internals(sym, keep):
    outs = sym.get_internals()
    names = [n for n in outs.list_outputs() if keep(n)]
    return names, mx.sym.Group([outs[n] for n in names])


def run(sym, args, auxs, x):
    exe = sym.bind(mx.cpu(), {**args, "data": mx.nd.array(x)}, aux_states=auxs, grad_req="null")
    return [o.asnumpy() for o in exe.forward(is_train=False)]


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.RandomState(0)
    sym = network()
    shapes, _, aux_shapes = sym.infer_shape(data=(2, 3, 12, 12))
    args = {n: mx.nd.array(rng.uniform(-0.5, 0.5, s))
            for n, s in zip(sym.list_arguments(), shapes, strict=True) if n != "data"}
    for n in args:
        if n.endswith("_gamma"):
            args[n] = mx.nd.array(rng.uniform(0.5, 1.5, args[n].shape))
    auxs = {}
    for n, s in zip(sym.list_auxiliary_states(), aux_shapes, strict=True):
        auxs[n] = mx.nd.array(rng.uniform(-0.2, 0.2, s) if "mean" in n else rng.uniform(0.5, 1.5, s))
    calib = mx.io.NDArrayIter(rng.uniform(-1, 1, (8, 3, 12, 12)).astype("float32"), batch_size=2)
    qsym, qargs, qauxs = quantization.quantize_model_mkldnn(
        sym, args, auxs, ctx=mx.cpu(), calib_mode="naive", calib_data=calib, num_calib_examples=8,
        quantized_dtype="auto", excluded_sym_names=["fc"], logger=None)
    fused = sym.get_backend_symbol("MKLDNN")
    x = rng.uniform(-1, 1, (2, 3, 12, 12)).astype("float32")
    arrays = {"x": x}
    for tag, s, a, au in (("int8", qsym, qargs, qauxs), ("fused", fused, args, auxs),
                          ("float", sym, args, auxs)):
        s.save(os.path.join(OUT, f"{tag}-symbol.json"))
        names, group = internals(s, lambda n: n.startswith(("quantized_", "sg_mkldnn", "data_quantize",
                                                            "fc_output")) or n == "fc_output")
        for n, v in zip(names, run(group, a, au, x), strict=True):
            arrays[f"{tag}/{n}"] = v
    np.savez(os.path.join(OUT, "params.npz"), **{f"arg:{k}": v.asnumpy() for k, v in qargs.items()},
             **{f"aux:{k}": v.asnumpy() for k, v in qauxs.items()})
    np.savez(os.path.join(OUT, "outputs.npz"), **arrays)
    flags = open("/proc/cpuinfo").read()
    with open(os.path.join(OUT, "cpu.json"), "w") as f:
        json.dump({"vnni": "avx512_vnni" in flags or "avx_vnni" in flags}, f)
    print(sorted(arrays))


if __name__ == "__main__":
    main()
