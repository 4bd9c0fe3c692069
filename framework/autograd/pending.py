"""A backward described but not run yet: :class:`Pending`, the source of the deferred results that
``backward()`` leaves in the slots it writes.

``loss.backward()`` describes the graph (a :class:`.graph.Plan`), makes a ``Pending`` and puts a
:class:`.lazy.Deferred` into every slot the backward writes: each leaf's gradient (through the leaf's
``accept_grad``), each updated layer state (``accept_state``), each recorded value still held. The first
read of any of them runs the backward once and settles every slot that still holds its Deferred; or a
Trainer's step finds the Pending in its Parameters' gradient slots and runs it together with the update
as one program (:mod:`framework.gluon._fused_step`), leaving the gradients deferred: they are computed
from the step's own inputs if somebody reads them. Nothing is held anywhere but in those slots.

How it runs is tiered: the first time a graph of its description is seen it runs node by node from
per-node programs (:mod:`.walk`); a description that repeats runs as one compiled whole-graph program
(:func:`backward_function`), as every step of a steady training loop after its first.

>>> from framework import autograd, np
>>> x = autograd.attach_grad(np.array([1.0, 2.0]))
>>> with autograd.record():
...     y = (x * x).sum()
>>> y.backward()
>>> type(x._grad).__name__, x.grad.tolist(), type(x._grad).__name__
('Deferred', [2.0, 4.0], 'ArrayImpl')
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Protocol

import jax
import jax.numpy as jnp

from .. import _compile
from . import walk
from .graph import NodeOut, Plan, PlanKey, backward_function
from .lazy import GRAD, STATE, TOTAL, VALUE, Deferred

__all__ = ["Pending", "Result", "GradientLeaf", "StateHolder", "backward_function", "backward_program",
           "repeats", "wanted"]


class GradientLeaf(Protocol):
    """What a backward writes to (a Parameter's replica, a Variable): the recorder's whole interface
    to them."""

    grad_req: str

    def accept_grad(self, device: Any, grad: Deferred) -> None:
        """Take ``grad`` into the gradient slot on ``device`` (replace it for 'write', add for 'add')."""

    def settle_grad(self, device: Any, grad: Deferred, value: jax.Array) -> None:
        """``grad`` is computed: ``value`` replaces it where the slot still holds it."""


class StateHolder(Protocol):
    """What a Block node's state update (BatchNorm's running statistics) is written to: a Parameter."""

    def accept_state(self, device: Any, value: Deferred) -> None: ...

    def settle_state(self, device: Any, value: Deferred, computed: jax.Array) -> None: ...


class Result(NamedTuple):
    """What a backward computes: the recorded values it returns, the layer states, the leaves'
    gradients (``Plan.params`` order) and the differentiated total."""

    values: list
    states: list
    grads: list
    total: Any


# ------------------------------------------------------------------------------ tiers
_FLOAT32 = jnp.dtype(jnp.float32)  # dtypes are interned: compared by identity
_SEEN = _compile.FirstSeen(256)  # the graph descriptions seen lately


def repeats(key: PlanKey) -> tuple[bool, PlanKey]:
    """Whether a graph of description ``key`` gets a whole-graph program: it was seen before, or most
    of its nodes are new (:func:`.walk.mostly_new`: a first training step); and the first equal key
    seen (later cache lookups with it compare by identity). Counts this sighting. A small bounded
    memory: a graph of known nodes that changes every step never compiles."""
    first, seen = _SEEN.first(key)
    return seen or walk.mostly_new(key.steps), first


# ----------------------------------------------------------------------- whole-graph programs
def wanted(plan: Plan) -> tuple[NodeOut, ...]:
    """Each output of ``plan`` still referenced and not computed: what its program returns (an
    intermediate nobody holds is neither copied out nor kept)."""
    out = []
    for ni, node in enumerate(plan.nodes):
        if node.kind != "leaf":
            for oi, ref in enumerate(node.outputs):
                r = ref()
                if r is not None and r._value is None:
                    out.append(NodeOut(ni, oi))
    return tuple(out)


def backward_program(key: PlanKey, use_hg: tuple[bool, ...], want: tuple[NodeOut, ...]) -> Callable:
    """The compiled :func:`backward_function` of a plan's description."""
    return _compile.jit(("backward", use_hg, key, want), lambda: backward_function(key, use_hg, want))


# ----------------------------------------------------------------------------------- the source
class Pending:
    """A described backward and the slots it owes results to (see the module docstring).

    ``whole``: its description repeats, so it runs as one compiled program (else node by node).
    ``want``: the recorded values it returns; ``arguments``: its whole-graph program's arguments;
    ``computed``: its :class:`Result` once run (None before: a fused step may take it over).
    """

    __slots__ = ("plan", "use_hg", "hg_args", "want", "arguments", "whole", "computed", "grads", "_slots",
                 "_lock", "on_late_grads", "__weakref__")

    def __init__(self, plan: Plan, use_hg: tuple[bool, ...], hg_args: list, *, whole: bool) -> None:
        self.plan, self.use_hg, self.hg_args, self.whole = plan, use_hg, hg_args, whole
        self.want = wanted(plan)
        self.arguments = (*plan.arrays, hg_args)  # of its whole-graph program
        self.computed: Result | None = None
        self.grads: list | None = None  # the gradients (None for one a fused step did not return)
        self._slots: list[tuple[str, Any, Any, Deferred]] = []  # (kind, target, device, deferred)
        self._lock = threading.Lock()
        self.on_late_grads: Callable[[], None] | None = None  # gradients read after a fused step

    # ------------------------------------------------------------------ owing
    def owe(self, *, write_grads: bool = True) -> None:
        """Put a Deferred into every slot this backward writes (no gradient slot with ``write_grads``
        False: ``autograd.grad`` returns the gradients instead)."""
        plan, slots = self.plan, self._slots
        for j, w in enumerate(self.want):
            r = plan.nodes[w.node].outputs[w.out]()
            d = Deferred(self, VALUE, j)
            r._value = d
            slots.append((VALUE, weakref.ref(r), None, d))
        k = 0
        for node in plan.nodes:
            for name in node.state_names:
                d = Deferred(self, STATE, k)
                param = node.params[node.desc.names.index(name)]
                param.accept_state(node.device, d)
                slots.append((STATE, param, node.device, d))
                k += 1
        if write_grads:
            for i, (leaf, dev) in enumerate(plan.params):
                d = Deferred(self, GRAD, i)
                leaf.accept_grad(dev, d)
                slots.append((GRAD, leaf, dev, d))
        if self.whole and len(plan.heads) == 1 and not self.use_hg[0]:
            head = plan.nodes[plan.heads[0].node]
            r = head.outputs[plan.heads[0].out]() if head.kind != "leaf" else None
            if r is not None and r.aval.dtype is _FLOAT32:  # head.sum() is the backward's total
                r._sum = Deferred(self, TOTAL, 0)

    # ------------------------------------------------------------------ running
    def result(self, kind: str, index: int) -> jax.Array:
        """One result, running the backward (once) if needed."""
        with self._lock:
            if self.computed is None:
                self._settle(self._run())
            if kind == GRAD:
                if self.grads[index] is None:  # after a fused step that did not return it
                    key, use_hg = self.plan.key, self.use_hg
                    late = _compile.jit(("gradients", use_hg, key),  # the backward alone, values aside
                                        lambda: backward_function(key, use_hg, ()))(*self.arguments)[2]
                    self.grads = [g if g is not None else h for g, h in zip(self.grads, late, strict=True)]
                    if self.on_late_grads is not None:
                        self.on_late_grads()
                return self.grads[index]
            if kind == VALUE:
                return self.computed.values[index]
            if kind == STATE:
                return self.computed.states[index]
            return self.computed.total

    def run(self) -> Result:
        """Run now (unless done) and settle every slot; the result."""
        with self._lock:
            if self.computed is None:
                self._settle(self._run())
            return self.computed

    def _run(self) -> Result:
        plan = self.plan
        if self.whole:
            values, states, grads, total = backward_program(plan.key, self.use_hg, self.want)(
                *self.arguments)
            return Result(values, self._flat_states(states), grads, total)
        outs, states = walk.forward(plan)
        grads = walk.backward(plan, outs, [g if u else None for g, u in zip(self.hg_args, self.use_hg,
                                                                             strict=True)])
        grads = [jnp.zeros_like(v) if g is None else g for g, v in zip(grads, plan.pvals, strict=True)]
        values = [outs[w.node][w.out] for w in self.want]
        return Result(values, self._flat_states(states), grads, None)

    def _flat_states(self, states: Sequence[Any]) -> list:
        out = []
        for node, state in zip(self.plan.nodes, states, strict=True):
            out += [state[name] for name in node.state_names]
        return out

    def finish(self, values: list, states: Sequence[Any], grads: list, total: Any) -> None:
        """Take what somebody else computed with this backward's whole-graph function (a fused step):
        values, the states of each node, gradients (None for those it did not return: they stay
        deferred until read, then the backward runs alone on the same inputs) and the total."""
        with self._lock:
            self._settle(Result(values, self._flat_states(states), grads, total))

    def _settle(self, result: Result) -> None:
        self.computed = result
        self.grads = result.grads
        for kind, target, dev, d in self._slots:
            if kind == VALUE:
                r = target()
                if r is not None and r._value is d:
                    r._value = result.values[d.index]
            elif kind == STATE:
                target.settle_state(dev, d, result.states[d.index])
            elif result.grads[d.index] is not None:
                target.settle_grad(dev, d, result.grads[d.index])
        if result.total is not None:
            head = self.plan.heads[0]
            r = self.plan.nodes[head.node].outputs[head.out]() if len(self.plan.heads) == 1 else None
            if r is not None and type(r._sum) is Deferred and r._sum.source is self:
                r._sum = result.total
        self._slots = []  # a gradient still deferred is forced by its own slot (Deferred.force)
