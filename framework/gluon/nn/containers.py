"""Sequential containers.

>>> from framework import gluon, np
>>> net = gluon.nn.HybridSequential()
>>> net.add(gluon.nn.Dense(4, activation='relu'), gluon.nn.Dense(2))
>>> net.initialize()
>>> net(np.ones((3, 5))).shape, len(net)
((3, 2), 2)
"""

from __future__ import annotations

from typing import Any

from ..block import Block, HybridBlock

__all__ = ["Sequential", "HybridSequential"]


class _SequentialMixin:
    def add(self, *blocks: Block) -> None:
        """Append blocks; they run in order."""
        for block in blocks:
            self.register_child(block)

    def _steps(self) -> list[Block]:
        """The children in order, a Conv2D and the MaxPool2D after it as one fused ConvPool."""
        from .fusion import ConvPool, pairable

        children = list(self._children.values())
        cache = self.__dict__.setdefault("_fused", {})
        steps, i = [], 0
        while i < len(children):
            if i + 1 < len(children) and pairable(children[i], children[i + 1]):
                key = (id(children[i]), id(children[i + 1]))
                if key not in cache:
                    cache[key] = ConvPool(children[i], children[i + 1])
                steps.append(cache[key])
                i += 2
            else:
                steps.append(children[i])
                i += 1
        return steps

    def forward(self, x: Any, *args: Any) -> Any:
        for block in self._steps():
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
    """Stacks Blocks sequentially. Built-in layers inside still run compiled, one by one."""

    def __init__(self, prefix: str | None = None, params: Any = None) -> None:
        super().__init__()

    def hybridize(self, active: bool = True, **kwargs: Any) -> None:
        if self._children and all(isinstance(c, HybridBlock) for c in self._children.values()):
            import warnings

            warnings.warn(
                "All children of this Sequential layer are HybridBlocks. Consider using "
                "HybridSequential for the best performance.",
                stacklevel=2,
            )
        super().hybridize(active, **kwargs)


class HybridSequential(_SequentialMixin, HybridBlock):
    """Stacks HybridBlocks sequentially; ``hybridize()`` compiles the whole stack as one jit."""

    def __init__(self, prefix: str | None = None, params: Any = None) -> None:
        super().__init__()
