"""``nd.contrib``'s int8/uint8 quantization operators under their MXNet 1.x names (``quantize``,
``quantize_v2``, ``quantize_asym``, ``dequantize``, ``requantize``, ``calibrate_entropy`` and the
``quantized_*`` operators): simulations of MXNet 1.9.1's CPU integer inference with its numerics (see
:mod:`framework.npx.quantize` and :mod:`framework.npx.quantized_ops`).

>>> import framework as mx
>>> q, lo, hi = mx.nd.contrib.quantize_v2(mx.nd.array([-1.0, 0.5, 2.0]))
>>> q.tolist(), [round(v, 2) for v in mx.nd.contrib.dequantize(q, lo, hi).tolist()]
([-64, 32, 127], [-1.0, 0.5, 1.99])
"""

from __future__ import annotations

from ...npx import quantize as _q
from ...npx import quantized_ops as _qo
from .._op import nd_op

__all__ = ["quantize", "quantize_v2", "quantize_asym", "dequantize", "requantize", "calibrate_entropy",
           "quantized_act", "quantized_flatten", "quantized_concat", "quantized_elemwise_add",
           "quantized_elemwise_mul", "quantized_embedding", "quantized_fully_connected", "quantized_conv",
           "quantized_pooling", "quantized_batch_norm"]

quantize = nd_op(_q.quantize)
quantize_v2 = nd_op(_q.quantize_v2)
quantize_asym = nd_op(_q.quantize_asym)
dequantize = nd_op(_q.dequantize)
requantize = nd_op(_q.requantize)
calibrate_entropy = nd_op(_q.calibrate_entropy)
quantized_act = nd_op(_qo.quantized_act)
quantized_flatten = nd_op(_qo.quantized_flatten)
quantized_concat = nd_op(_qo.quantized_concat)
quantized_elemwise_add = nd_op(_qo.quantized_elemwise_add)
quantized_elemwise_mul = nd_op(_qo.quantized_elemwise_mul)
quantized_embedding = nd_op(_qo.quantized_embedding)
quantized_fully_connected = nd_op(_qo.quantized_fully_connected)
quantized_conv = nd_op(_qo.quantized_conv)
quantized_pooling = nd_op(_qo.quantized_pooling)
quantized_batch_norm = nd_op(_qo.quantized_batch_norm)
