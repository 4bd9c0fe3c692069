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
>>> owe(Owed(lambda: [42], [p], 'cpu', lambda: log.append('settled')))
>>> covered(frozenset({id(p)}), 'cpu'), owes([p]), owes([P()]), log
(True, True, False, [])
>>> settle(); log
[('cpu', 42), 'settled']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["Owed", "owe", "owes", "settle", "forget", "covered", "before_backward", "slot"]


class Owed:
    """Gradients of ``params`` on ``device`` that ``compute()`` returns, in order; ``on_settle()`` runs
    once they had to be computed; ``keep`` is what ``compute`` needs alive (the Blocks its description
    refers to weakly)."""

    __slots__ = ("compute", "params", "device", "on_settle", "keep", "ids")

    def __init__(self, compute: Callable[[], Sequence[Any]], params: Sequence[Any], device: Any,
                 on_settle: Callable[[], None], *, keep: Sequence[Any] = (),
                 ids: frozenset[int] | None = None) -> None:
        self.compute, self.params, self.device, self.on_settle = compute, params, device, on_settle
        self.keep = keep
        self.ids = frozenset(id(p) for p in params) if ids is None else ids


# The one outstanding record. Readers on a hot path test ``slot[0] is not None`` before settling.
slot: list[Owed | None] = [None]


def owe(record: Owed) -> None:
    """Leave ``record`` outstanding; an earlier one still outstanding (gradients of other Parameters)
    is computed first."""
    settle()
    slot[0] = record


def covered(ids: frozenset[int], device: Any) -> bool:
    """Whether every gradient still owed is of a Parameter in ``ids`` (by ``id``) on ``device``."""
    record = slot[0]
    return record is None or (record.device == device and record.ids <= ids)


def owes(params: Sequence[Any]) -> bool:
    """Whether a gradient of one of ``params`` is owed."""
    record = slot[0]
    return record is not None and any(id(p) in record.ids for p in params)


def forget(ids: frozenset[int], device: Any) -> None:
    """Drop the outstanding record when it is covered (:func:`covered`): those gradients are being
    replaced."""
    if slot[0] is not None and covered(ids, device):
        slot[0] = None


def before_backward(written: Sequence[tuple[Any, Any]]) -> None:
    """A backward is about to install the gradients of ``written`` ((Parameter, device) pairs): a record
    it overwrites entirely (``grad_req='write'``) is dropped; one it adds to or leaves partly is computed
    first."""
    record = slot[0]
    if record is None or not owes([p for p, _ in written]):
        return
    forget(frozenset(id(p) for p, dev in written
                     if dev == record.device and getattr(p, "_grad_req", None) == "write"), record.device)
    settle()


def settle() -> None:
    """Compute the owed gradients, if any, and install them (one backward program)."""
    record = slot[0]
    if record is None:
        return
    slot[0] = None
    for param, g in zip(record.params, record.compute(), strict=True):
        param._owed_grad(record.device, g)
    record.on_settle()
