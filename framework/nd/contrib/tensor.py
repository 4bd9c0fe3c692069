"""``nd.contrib``'s smaller operators under their MXNet 1.x names: ``arange_like``, ``boolean_mask``,
``index_copy``, ``index_array``, ``quadratic``, ``div_sqrt_dim``, ``isfinite``/``isinf``/``isnan``,
``allclose``, ``round_ste``, ``sign_ste``, ``gradientmultiplier``, ``interleaved_matmul_*``,
``rand_zipfian``, ``uniform``, ``CTCLoss``/``ctc_loss``, ``SparseEmbedding``, ``SyncBatchNorm``,
``BatchNormWithReLU``.

>>> import framework as mx
>>> mx.nd.contrib.quadratic(mx.nd.array([1.0, 2.0]), a=1, b=1, c=1).tolist()
[3.0, 7.0]
"""

from __future__ import annotations

from typing import Any

import jax

from ...device import current_context
from ...npx import contrib_ops as _ops
from ...npx import ctc as _ctc
from ...npx import shape as _shape
from .. import arithmetic as _arith
from .. import nn as _nn
from .. import random as _random
from .._op import nd_op

__all__ = ["arange_like", "boolean_mask", "index_copy", "index_array", "quadratic", "div_sqrt_dim",
           "isfinite", "isinf", "isnan", "allclose", "round_ste", "sign_ste", "gradientmultiplier",
           "interleaved_matmul_selfatt_qk", "interleaved_matmul_selfatt_valatt",
           "interleaved_matmul_encdec_qk", "interleaved_matmul_encdec_valatt", "rand_zipfian", "uniform",
           "CTCLoss", "ctc_loss", "SparseEmbedding", "SyncBatchNorm", "BatchNormWithReLU", "current_context"]

arange_like = nd_op(_shape.arange_like)
boolean_mask = nd_op(_ops.boolean_mask)
index_copy = nd_op(_ops.index_copy)
index_array = nd_op(_ops.index_array)
quadratic = nd_op(_ops.quadratic)
div_sqrt_dim = nd_op(_ops.div_sqrt_dim)
isfinite = nd_op(_ops.isfinite)
isinf = nd_op(_ops.isinf)
isnan = nd_op(_ops.isnan)
allclose = nd_op(_ops.allclose)
round_ste = nd_op(_ops.round_ste)
sign_ste = nd_op(_ops.sign_ste)
gradientmultiplier = nd_op(_ops.gradientmultiplier)
interleaved_matmul_selfatt_qk = nd_op(_ops.interleaved_matmul_selfatt_qk)
interleaved_matmul_selfatt_valatt = nd_op(_ops.interleaved_matmul_selfatt_valatt)
interleaved_matmul_encdec_qk = nd_op(_ops.interleaved_matmul_encdec_qk)
interleaved_matmul_encdec_valatt = nd_op(_ops.interleaved_matmul_encdec_valatt)
rand_zipfian = _ops.rand_zipfian
uniform = _random.uniform
CTCLoss = nd_op(_ctc.ctc_loss)
ctc_loss = CTCLoss


@nd_op
def SparseEmbedding(data: jax.Array, weight: jax.Array, input_dim: int | None = None,
                    output_dim: int | None = None, dtype: Any = "float32",
                    sparse_grad: bool = True) -> jax.Array:
    """``Embedding`` (MXNet's row-sparse gradient is dense here: JAX has no sparse storage)."""
    return _nn.Embedding.__wrapped__(data, weight, input_dim, output_dim, dtype)


def SyncBatchNorm(data: jax.Array, gamma: jax.Array, beta: jax.Array, moving_mean: jax.Array,
                  moving_var: jax.Array, eps: float = 1e-3, momentum: float = 0.9, fix_gamma: bool = True,
                  use_global_stats: bool = False, output_mean_var: bool = False, ndev: int = 1,
                  key: str | None = None, name: str | None = None, out: Any = None) -> Any:
    """BatchNorm over the batch this call sees. MXNet's cross-device reduction (``ndev``, ``key``) is
    the data-parallel step's job here: inside ``parallel.DataParallel`` use ``gluon.contrib.nn``'s layer."""
    return _nn.BatchNorm(data, gamma, beta, moving_mean, moving_var, eps, momentum, fix_gamma,
                         use_global_stats, output_mean_var, name=name, out=out)


def BatchNormWithReLU(data: jax.Array, gamma: jax.Array, beta: jax.Array, moving_mean: jax.Array,
                      moving_var: jax.Array, eps: float = 1e-3, momentum: float = 0.9, fix_gamma: bool = True,
                      use_global_stats: bool = False, output_mean_var: bool = False, axis: int = 1,
                      cudnn_off: bool = False, min_calib_range: float | None = None,
                      max_calib_range: float | None = None, name: str | None = None, out: Any = None) -> Any:
    """``BatchNorm`` followed by ``relu`` (MXNet's fused oneDNN operator)."""
    res = _nn.BatchNorm(data, gamma, beta, moving_mean, moving_var, eps, momentum, fix_gamma,
                        use_global_stats, output_mean_var, axis, name=name, out=out)
    if output_mean_var:
        return (_arith.relu(res[0]), *res[1:])
    return _arith.relu(res)
