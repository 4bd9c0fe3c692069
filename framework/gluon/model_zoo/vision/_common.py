"""Shared helpers of the vision models: the pretrained-weights hook and MXNet's small building blocks."""

from __future__ import annotations

import os
from typing import Any

import jax

from ...block import HybridBlock
from ..model_store import get_model_file

__all__ = ["finish", "ReLU6"]


def finish(net: HybridBlock, name: str, pretrained: bool, ctx: Any, root: str | os.PathLike | None) -> Any:
    """Load MXNet's pretrained file for ``name`` into ``net`` when ``pretrained`` (see ``get_model_file``)."""
    if pretrained:
        net.load_parameters(get_model_file(name, root=root), ctx=ctx)
    return net


class ReLU6(HybridBlock):
    """``clip(x, 0, 6)`` (MobileNet's activation; no parameters).

    >>> from framework import np
    >>> ReLU6()(np.array([-1.0, 3.0, 9.0])).tolist()
    [0.0, 3.0, 6.0]
    """

    def __init__(self, prefix: str | None = None, params: Any = None) -> None:
        super().__init__()

    def forward(self, x: jax.Array) -> jax.Array:
        return jax.numpy.clip(x, 0, 6)

    def _symbol_forward(self, F: Any, x: Any) -> Any:
        return F.clip(x, 0, 6, name="fwd")

    def __repr__(self) -> str:
        return "RELU6()"
