"""Sequential containers.

>>> from framework import gluon, np
>>> net = gluon.nn.HybridSequential()
>>> net.add(gluon.nn.Dense(4, activation='relu'), gluon.nn.Dense(2))
>>> net.initialize()
>>> net(np.ones((3, 5))).shape, len(net)
((3, 2), 2)
"""

from __future__ import annotations

import warnings
from typing import Any

from ... import _compile, config
from .. import binding as _binding
from ..block import Block, HybridBlock

__all__ = ["Sequential", "HybridSequential"]


def _platform(x: Any) -> str:
    """The platform the call computes on: the bound device's, else the input's
    (:func:`framework.config.platform`)."""
    bound = _binding.current()
    if bound is not None and bound.device is not None:
        return bound.device.platform
    return config.platform(x)


class _SequentialMixin:
    def add(self, *blocks: Block) -> None:
        """Append blocks; they run in order."""
        for block in blocks:
            self.register_child(block)

    def _steps(self, x: Any = None) -> list[Block]:
        """How the children run on ``x``'s platform: in order, as the compile layer's registered
        rewrites plan them (the children themselves are never replaced)."""
        forced = getattr(self, "_rewrite_backends", ())
        return _compile.sequence_plan(self, list(self._children.values()), _platform(x), forced)

    def _runs_compiled(self) -> bool:
        """A stack of layers that each run compiled and have no hooks runs as ONE compiled call (one
        recorded node, one dispatch): the math the layers would do one by one, without a host round per
        layer. A child with hooks, or one that runs as Python (a plain Block, a custom HybridBlock not
        hybridized), keeps the layer-by-layer call, where each child is seen."""
        if super()._runs_compiled():
            return True
        children = self._children.values()
        for c in children:  # a loop, not all(...): this runs on every call
            if c._forward_hooks or c._forward_pre_hooks or not c._runs_compiled():
                return False
        return bool(children)

    def forward(self, x: Any, *args: Any) -> Any:
        for block in self._steps(x):
            x = block(x, *args)
            args = ()
            if isinstance(x, (tuple, list)):
                args = tuple(x[1:])
                x = x[0]
        if args:
            x = (x, *args)
        return x

    def __getitem__(self, key: int | slice) -> Any:
        layers = list(self._children.values())[key]
        if isinstance(layers, list):
            net = type(self)()
            net.add(*layers)
            return net
        return layers

    def __len__(self) -> int:
        return len(self._children)


class Sequential(_SequentialMixin, Block):
    """Stacks Blocks sequentially. A stack of built-in layers runs compiled as one call; otherwise
    the built-in layers inside still run compiled, one by one."""

    def __init__(self, prefix: str | None = None, params: Any = None) -> None:
        super().__init__(prefix, params)

    def hybridize(self, active: bool = True, **kwargs: Any) -> None:
        if self._children and all(isinstance(c, HybridBlock) for c in self._children.values()):
            warnings.warn(
                "All children of this Sequential layer are HybridBlocks. Consider using "
                "HybridSequential for the best performance.",
                stacklevel=2,
            )
        super().hybridize(active, **kwargs)


class HybridSequential(_SequentialMixin, HybridBlock):
    """Stacks HybridBlocks sequentially; ``hybridize()`` compiles the whole stack as one jit."""

    def __init__(self, prefix: str | None = None, params: Any = None) -> None:
        super().__init__(prefix, params)
