"""The fused operators of MXNet 1.9.1's oneDNN (MKL-DNN) subgraph backend, as graphs quantized for the
CPU hold them (``mx.contrib.quantization.quantize_net``; GluonCV's ``*_int8`` models):
``_sg_mkldnn_conv``, a Convolution with an optional BatchNorm, ReLU, residual sum and ReLU after the
sum, described by the node's subgraph; with ``quantized=true`` its numerics are
:func:`framework.npx.quantized_fused.fused_quantized_conv`'s, and without, the float layers in turn.
``_sg_mkldnn_fully_connected`` in float (a FullyConnected and the element-wise operators after it).

The node's inputs follow MXNet's order: data, weight, bias (unless ``no_bias``), BatchNorm's gamma,
beta, moving mean and variance (``with_bn``; the last two auxiliary states), the residual
(``with_sum``), then, quantized, the data's min and max and the residual's min and max.

>>> from framework.symbol._ops import OPS
>>> OPS["_sg_mkldnn_conv"].outputs(Attrs({"quantized": "true"}, "conv0"))
3
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax

from ..npx import quantized_fused as _qf
from ._attrs import Attrs
from ._registry import OPS, OpSpec

__all__ = ["input_count", "fc_input_count"]


class _Fused(NamedTuple):
    """What a ``_sg_mkldnn_conv`` node fuses, read from its attributes and subgraph."""

    conv: Attrs
    bn: Attrs | None
    with_act: bool
    with_sum: bool
    with_postsum_act: bool
    quantized: bool


def _layers(a: Attrs) -> _Fused:
    subs = a.subgraphs()
    if len(subs) != 1:
        raise ValueError(f"symbol node {a.node!r} ({a.op}) needs one subgraph (the fused layers), "
                         f"got {len(subs)}")
    found: dict[str, Attrs] = {}
    for n in subs[0]["nodes"]:
        raw = {**n.get("param", {}), **n.get("attr", {}), **n.get("attrs", {})}
        if n["op"] == "Activation":
            if raw.get("act_type", "relu") != "relu":
                raise NotImplementedError(f"symbol node {a.node!r} ({a.op}): a fused "
                                          f"{raw.get('act_type')!r} activation; only relu is supported")
        elif n["op"] in ("Convolution", "BatchNorm"):
            found[n["op"]] = Attrs(raw, n["name"], n["op"])
    if "Convolution" not in found:
        raise ValueError(f"symbol node {a.node!r} ({a.op}): its subgraph holds no Convolution")
    with_sum = a.bool("with_sum", False)
    return _Fused(
        conv=found["Convolution"],
        bn=found.get("BatchNorm") if a.bool("with_bn", False) else None,
        with_act=a.bool("with_act", False) or a.bool("with_relu", False),
        with_sum=with_sum,
        with_postsum_act=a.bool("with_postsum_act", False) or a.bool("with_postsum_relu", False),
        quantized=a.bool("quantized", False),
    )


def input_count(attrs: dict[str, str]) -> int:
    """How many inputs a ``_sg_mkldnn_conv`` node with these attributes takes."""
    f = _layers(Attrs(attrs, "?", "_sg_mkldnn_conv"))
    n = 2 + (0 if f.conv.bool("no_bias", False) else 1) + (4 if f.bn is not None else 0) + f.with_sum
    return n + (2 + 2 * f.with_sum if f.quantized else 0)


def _outputs(a: Attrs) -> int:
    return 3 if a.bool("quantized", False) else 1


def _aux(a: Attrs) -> tuple[int, ...]:
    if not a.bool("with_bn", False):
        return ()
    first = 2 if _layers(a).conv.bool("no_bias", False) else 3
    return (first + 2, first + 3)


def _sg_conv(c, xs, a: Attrs) -> Any:
    f = _layers(a)
    conv = f.conv
    xs = list(xs)
    data, weight = xs.pop(0), xs.pop(0)
    bias = None if conv.bool("no_bias", False) else xs.pop(0)
    bn = None
    if f.bn is not None:
        gamma, beta, mean, var = (xs.pop(0) for _ in range(4))
        bn = _qf.FoldedBatchNorm(gamma, beta, mean, var, f.bn.float("eps", 1e-3),
                                 f.bn.bool("fix_gamma", True))
    residual = xs.pop(0) if f.with_sum else None
    geometry = dict(kernel=conv.shape("kernel"), stride=conv.shape("stride", ()),
                    dilate=conv.shape("dilate", ()), pad=conv.shape("pad", ()),
                    num_filter=conv.int("num_filter"), num_group=conv.int("num_group", 1))
    if f.quantized:
        if not (a.has("min_calib_range") and a.has("max_calib_range")):
            raise NotImplementedError(f"symbol node {a.node!r} ({a.op}): a quantized convolution without "
                                      "a calibrated output range (int32 output) is not supported")
        ranges = dict(min_data=xs[0], max_data=xs[1])
        if residual is not None:
            ranges.update(min_residual=xs[2], max_residual=xs[3])
        return _qf.fused_quantized_conv(
            data, weight, bias, bn, residual, **ranges, **geometry,
            min_calib_range=a.float("min_calib_range"), max_calib_range=a.float("max_calib_range"),
            with_act=f.with_act, with_postsum_act=f.with_postsum_act)
    out = OPS["Convolution"].fn(c, [data, weight] + ([] if bias is None else [bias]), conv)
    if bn is not None:
        out = OPS["BatchNorm"].fn(c, [out, bn.gamma, bn.beta, bn.mean, bn.var],
                                  Attrs({**f.bn.raw, "use_global_stats": "True"}, f.bn.node, "BatchNorm"))[0]
    if f.with_act:
        out = jax.nn.relu(out)
    if residual is not None:
        out = out + residual
        if f.with_postsum_act:
            out = jax.nn.relu(out)
    return out


OPS["_sg_mkldnn_conv"] = OpSpec(_sg_conv, _outputs, _aux)


def fc_input_count(attrs: dict[str, str]) -> int:
    """How many inputs a float ``_sg_mkldnn_fully_connected`` node takes: data, weight[, bias]."""
    return 2 if _fc_layers(Attrs(attrs, "?", "_sg_mkldnn_fully_connected"))[0].bool("no_bias", False) else 3


def _fc_layers(a: Attrs) -> tuple[Attrs, list[Attrs]]:
    if a.bool("quantized", False):
        raise NotImplementedError(f"symbol node {a.node!r} ({a.op}): a quantized fused FullyConnected is not "
                                  "supported (quantize the graph with the dense layers excluded)")
    subs = a.subgraphs()
    fc, acts = None, []
    for n in subs[0]["nodes"] if len(subs) == 1 else ():
        raw = {**n.get("param", {}), **n.get("attr", {}), **n.get("attrs", {})}
        if n["op"] == "FullyConnected":
            fc = Attrs(raw, n["name"], n["op"])
        elif n["op"] != "null":
            if n["op"] not in OPS:
                raise NotImplementedError(f"symbol node {a.node!r} ({a.op}): its subgraph fuses operator "
                                          f"{n['op']!r}, which is not supported")
            acts.append(Attrs(raw, n["name"], n["op"]))
    if fc is None:
        raise ValueError(f"symbol node {a.node!r} ({a.op}) needs one subgraph holding a FullyConnected")
    return fc, acts


def _sg_fc(c, xs, a: Attrs) -> Any:
    """The float fused FullyConnected: the subgraph's FullyConnected, then its element-wise operators."""
    fc, after = _fc_layers(a)
    out = OPS["FullyConnected"].fn(c, list(xs), fc)
    for layer in after:
        out = OPS[layer.op].fn(c, [out], layer)
    return out


OPS["_sg_mkldnn_fully_connected"] = OpSpec(_sg_fc)
