"""``SyncBatchNorm``: batch normalisation whose batch statistics cover the whole data-parallel batch.

On one device (the Gluon loop, ``hybridize``, ``functional_call``) it is :class:`BatchNorm` over
axis 1. Inside a program mapped over devices with the axis name ``axis_name`` (default ``'batch'``,
the axis of :class:`framework.parallel.DataParallel`), the training-mode mean and variance are
averaged over that axis (``lax.pmean``: every device holds an equal share of the batch there), so
each device normalises with the statistics of the global batch, as MXNet's cross-GPU SyncBN does; the
gradient flows through the collective. MXNet's ``num_devices`` is accepted and checked against the
axis size when given.

>>> from framework import autograd, np
>>> bn = SyncBatchNorm(in_channels=2)
>>> bn.initialize()
>>> with autograd.train_mode():
...     y = bn(np.array([[1.0, 2.0], [3.0, 6.0]]))
>>> [[round(v, 3) for v in row] for row in y.tolist()]
[[-1.0, -1.0], [1.0, 1.0]]
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from ....autograd import tape as _tape
from ....npx import normalization as _norm
from ... import binding as _binding
from ...nn import BatchNorm

__all__ = ["SyncBatchNorm"]


def _bound_axis_size(name: str) -> int | None:
    """The size of the mapped axis ``name``, or None when no enclosing pmap/shard_map binds it."""
    try:
        return lax.axis_size(name)
    except NameError:
        return None


class SyncBatchNorm(BatchNorm):
    """Cross-device synchronised BatchNorm over axis 1 (MXNet 1.9.1's ``contrib.nn.SyncBatchNorm``
    signature; ``axis_name`` names the device axis whose statistics are shared).
    """

    def __init__(self, in_channels: int = 0, num_devices: int | None = None, momentum: float = 0.9,
                 epsilon: float = 1e-5, center: bool = True, scale: bool = True,
                 use_global_stats: bool = False, beta_initializer: Any = "zeros",
                 gamma_initializer: Any = "ones", running_mean_initializer: Any = "zeros",
                 running_variance_initializer: Any = "ones", *, axis_name: str = "batch",
                 **kwargs: Any) -> None:
        super().__init__(axis=1, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
                         use_global_stats=use_global_stats, beta_initializer=beta_initializer,
                         gamma_initializer=gamma_initializer,
                         running_mean_initializer=running_mean_initializer,
                         running_variance_initializer=running_variance_initializer,
                         in_channels=in_channels, **kwargs)
        if num_devices is not None and (not isinstance(num_devices, int) or num_devices < 1):
            raise ValueError(f"SyncBatchNorm: num_devices={num_devices!r} must be a positive int or None")
        self._sync = {"eps": epsilon, "momentum": momentum, "fix_gamma": not scale,
                      "use_global_stats": use_global_stats, "ndev": num_devices, "axis_name": axis_name}

    def _symbol_forward(self, F: Any, x: Any, gamma: Any, beta: Any, running_mean: Any,
                        running_var: Any) -> Any:
        s = self._sync
        return F.contrib.SyncBatchNorm(x, gamma, beta, running_mean, running_var, name="fwd", eps=s["eps"],
                                       momentum=s["momentum"], fix_gamma=s["fix_gamma"],
                                       use_global_stats=s["use_global_stats"], ndev=s["ndev"] or 1,
                                       key=self.prefix)

    def forward(self, x: jax.Array) -> jax.Array:
        s = self._sync
        training = _tape.is_training() and not s["use_global_stats"]
        ndev = _bound_axis_size(s["axis_name"]) if training else None
        if ndev is None:
            return super().forward(x)
        if s["ndev"] is not None and s["ndev"] != ndev:
            raise ValueError(f"SyncBatchNorm: num_devices={s['ndev']} but the mapped axis "
                             f"{s['axis_name']!r} has {ndev} devices; pass num_devices={ndev} or None")
        sdt = jnp.promote_types(x.dtype, jnp.float32)
        xs = x.astype(sdt)
        red = tuple(i for i in range(x.ndim) if i != 1)
        bshape = tuple(-1 if i == 1 else 1 for i in range(x.ndim))
        mean = lax.pmean(jnp.mean(xs, axis=red), s["axis_name"])
        var = lax.pmean(jnp.mean(jnp.square(xs - mean.reshape(bshape)), axis=red), s["axis_name"])
        scale = lax.rsqrt(var + s["eps"])
        if not s["fix_gamma"]:
            scale = scale * self.gamma.data().astype(sdt)
        shift = self.beta.data().astype(sdt) - mean * scale
        out = (xs * scale.reshape(bshape) + shift.reshape(bshape)).astype(x.dtype)
        bound = _binding.current()
        if bound is not None and bound.pure:
            m = s["momentum"]
            self.running_mean.set_data(_norm.update_running_stat(self.running_mean.data(),
                                                                 lax.stop_gradient(mean), m))
            self.running_var.set_data(_norm.update_running_stat(self.running_var.data(),
                                                                lax.stop_gradient(var), m))
        return out

    def __repr__(self) -> str:
        s = self._sync
        channels = self.gamma.shape[0]
        return (f"{type(self).__name__}(eps={s['eps']!r}, momentum={s['momentum']!r}, "
                f"fix_gamma={s['fix_gamma']!r}, use_global_stats={s['use_global_stats']!r}, "
                f"ndev={s['ndev']!r}, in_channels={channels or None})")
