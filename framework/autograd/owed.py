"""Gradients a fused Trainer step did not copy out, computed from the step's inputs when first read.

A training loop rarely reads a gradient between ``trainer.step`` and the next backward, and on a small
net every output buffer of the step's program costs (on CPU, returning LeNet's ten gradients costs
about 5% of the step). So a fused step (:mod:`framework.gluon._fused_step`) may return only the new
parameter values and leave an :class:`Owed` record: the gradients' Parameters and a ``compute``
closure over the inputs the step's backward read (the recorded parameter values and the batch). The
first read of such a gradient -- or anything that writes one, or another backward -- runs that
backward alone, once, and installs what MXNet would have kept. The next fused step over the same
Parameters simply replaces the record: nothing is computed for gradients nobody read. The record holds
the step's inputs, never its graph or activations.

>>> log = []
>>> class P:  # a stand-in for a Parameter
...     def _owed_grad(self, dev, g): log.append((dev, g))
>>> p = P()
>>> owe(Owed(lambda: [42], [(p, 'cpu')], lambda: log.append('settled')))
>>> covered([(p, 'cpu')]), owes([p]), owes([P()]), log
(True, True, False, [])
>>> settle(); log
[('cpu', 42), 'settled']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["Owed", "owe", "owes", "settle", "forget", "covered", "slot"]


class Owed:
    """Gradients of ``targets`` (``(Parameter, device)`` pairs) that ``compute()`` returns, in order;
    ``on_settle()`` runs once they had to be computed."""

    __slots__ = ("compute", "targets", "on_settle", "keep", "ids")

    def __init__(self, compute: Callable[[], Sequence[Any]], targets: Sequence[tuple[Any, Any]],
                 on_settle: Callable[[], None], keep: Sequence[Any] = ()) -> None:
        self.compute, self.targets, self.on_settle = compute, targets, on_settle
        self.keep = keep  # what compute needs alive (the Blocks its description refers to weakly)
        self.ids = {id(p) for p, _ in targets}


# The one outstanding record. Readers on a hot path test ``slot[0] is not None`` before settling.
slot: list[Owed | None] = [None]


def owe(record: Owed) -> None:
    """Leave ``record`` outstanding (any earlier one must have been settled or forgotten)."""
    slot[0] = record


def covered(targets: Sequence[tuple[Any, Any]]) -> bool:
    """Whether every gradient still owed is one of ``targets``."""
    record = slot[0]
    if record is None:
        return True
    mine = {(id(p), dev) for p, dev in targets}
    return all((id(p), dev) in mine for p, dev in record.targets)


def owes(params: Sequence[Any]) -> bool:
    """Whether a gradient of one of ``params`` is owed."""
    record = slot[0]
    return record is not None and any(id(p) in record.ids for p in params)


def forget(targets: Sequence[tuple[Any, Any]]) -> None:
    """Drop the outstanding record when ``targets`` cover it: their gradients are being replaced."""
    if slot[0] is not None and covered(targets):
        slot[0] = None


def settle() -> None:
    """Compute the owed gradients, if any, and install them (one backward program)."""
    record = slot[0]
    if record is None:
        return
    slot[0] = None
    for (param, dev), g in zip(record.targets, record.compute(), strict=True):
        param._owed_grad(dev, g)
    record.on_settle()
