"""``StochasticBlock``: a HybridBlock whose forward also returns losses it collected (MXNet 2.0's
``probability.block``), e.g. the KL term of a variational layer.

Decorate ``forward`` with :meth:`StochasticBlock.collectLoss`; inside it call ``self.add_loss(l)``.
Calling the block returns the forward's output and keeps the collected losses in ``block.losses``;
hybridized, the losses are outputs of the compiled program (a child's ``losses`` are readable inside
its parent's forward, where the parent collects them; after a compiled call of the parent only the
parent keeps them).

>>> from framework import np
>>> from framework.gluon import nn
>>> class Noisy(StochasticBlock):
...     def __init__(self):
...         super().__init__()
...         self.dense = nn.Dense(2, in_units=3)
...     @StochasticBlock.collectLoss
...     def forward(self, x):
...         y = self.dense(x)
...         self.add_loss((y ** 2).sum())
...         return y
>>> block = Noisy(); block.initialize()
>>> block(np.ones((4, 3))).shape, len(block.losses)
((4, 2), 1)
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

import jax

from ...block import Block, HybridBlock

__all__ = ["StochasticBlock", "StochasticSequential"]


def _traced(tree: Any) -> bool:
    return any(isinstance(v, jax.core.Tracer) for v in jax.tree_util.tree_leaves(tree))


def _forget_traced_losses(block: Block) -> None:
    """Drop losses that a block collected inside a trace (a tracer must not outlive its trace)."""
    stack = [block]
    while stack:
        b = stack.pop()
        if isinstance(b, StochasticBlock) and _traced(b._losses):
            object.__setattr__(b, "_losses", [])
        stack.extend(b._children.values())


class StochasticBlock(HybridBlock):
    """A HybridBlock that collects losses during its forward (see the module docstring)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        object.__setattr__(self, "_losses", [])
        object.__setattr__(self, "_losscache", [])

    def add_loss(self, loss: Any) -> None:
        """Collect ``loss`` in this call (returned beside the output)."""
        self._losscache.append(loss)

    @staticmethod
    def collectLoss(func: Callable[..., Any]) -> Callable[..., Any]:  # noqa: N802 (MXNet's name)
        """Decorate ``forward``: it returns ``(output, collected losses)`` to the call machinery."""
        @wraps(func)
        def inner(self: StochasticBlock, *args: Any, **kwargs: Any) -> tuple[Any, list[Any]]:
            object.__setattr__(self, "_losscache", [])
            out = func(self, *args, **kwargs)
            collected = self._losscache
            object.__setattr__(self, "_losscache", [])
            return out, collected

        inner._collects_loss = True  # type: ignore[attr-defined]
        return inner

    def __call__(self, *args: Any) -> Any:
        if not getattr(type(self).forward, "_collects_loss", False):
            raise ValueError("The forward function should be decorated by StochasticBlock.collectLoss")
        out, losses = super().__call__(*args)
        object.__setattr__(self, "_losses", list(losses))
        if not _traced(losses):  # a compiled call: the children's traced losses died with the trace
            for child in self._children.values():
                _forget_traced_losses(child)
        return out

    @property
    def losses(self) -> list[Any]:
        """The losses collected by the last call."""
        return self._losses


class StochasticSequential(StochasticBlock):
    """Stacks blocks; its losses are the list of each StochasticBlock child's losses.

    >>> from framework import np
    >>> from framework.gluon import nn
    >>> net = StochasticSequential()
    >>> net.add(nn.Dense(3, in_units=2), nn.Dense(1, in_units=3))
    >>> net.initialize()
    >>> net(np.ones((5, 2))).shape, net.losses
    ((5, 1), [])
    """

    def add(self, *blocks: Block) -> None:
        for block in blocks:
            self.register_child(block)

    @StochasticBlock.collectLoss
    def forward(self, x: Any, *args: Any) -> Any:
        for block in self._children.values():
            x = block(x, *args)
            args = ()
            if isinstance(x, (tuple, list)):
                args, x = tuple(x[1:]), x[0]
        if args:
            x = (x, *args)
        for block in self._children.values():
            if isinstance(block, StochasticBlock):
                self.add_loss(block.losses)
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
