"""Running a plan node by node: the first tier of compilation.

A recorded graph seen for the first time (an RL episode of a new length, a sentence, the first step of
a loop) is not compiled as a whole: each node runs through its own compiled program, cached by the
node's description (a Block's forward is the Block's own compiled program; ``jax.jit`` keys each by
its input shapes), and the backward is a reverse walk calling one compiled VJP program per node (the
node's forward recomputed inside it). A description that repeats gets a whole-graph program instead
(:mod:`.pending`), so a steady training loop runs one program per step from its second step on.

>>> import jax.numpy as jnp
>>> from framework import autograd, np
>>> x = autograd.attach_grad(np.array([1.0, 2.0]))
>>> with autograd.record():
...     y = (x * x).sum()
>>> plan = Plan([y])
>>> values, states = forward(plan)
>>> float(values[-1][0])
5.0
>>> [g.tolist() for g in backward(plan, values, [None])]
[[2.0, 4.0]]
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from .. import _compile
from .graph import BlockDesc, ConstIn, CountIn, LeafStep, NodeOut, ParamIn, Plan, node_function

__all__ = ["forward", "backward", "node_program", "vjp_program", "Pull", "mostly_new"]

# descriptions of the nodes whose VJP ran node by node (their programs exist): a small bounded memory
_WALKED: OrderedDict = OrderedDict()
_WALKED_MAX = 4096
_walked_lock = threading.Lock()
_compile.on_clear(_WALKED.clear)


def mostly_new(steps: Sequence[Any]) -> bool:
    """Whether most computing nodes of a plan's ``steps`` are distinct descriptions that never ran node
    by node (a first training step, the last short batch of an epoch): compiling a forward and a VJP
    program for each would cost more than one whole-graph program, so the graph gets that at once. A
    graph made of known nodes (an episode of a new length, a sentence) runs node by node."""
    computing = [s.desc for s in steps if type(s) is not LeafStep]
    new = {d for d in computing if d not in _WALKED}
    return 2 * len(new) > len(computing)


def _walked(desc: Any) -> None:
    with _walked_lock:
        _WALKED[desc] = True
        _WALKED.move_to_end(desc)
        if len(_WALKED) > _WALKED_MAX:
            _WALKED.popitem(last=False)


def node_program(desc: Any) -> Callable:
    """The compiled forward of one node: ``f(param values, dynamic inputs)``."""
    if type(desc) is BlockDesc:
        block = desc.block()
        program = _compile.block_program(block, desc.training, True, desc.device, desc.structure)
        names = desc.names

        def call(params: Sequence[Any], dyn: Sequence[Any]) -> Any:
            return program(dict(zip(names, params, strict=True)), (dyn[0], dyn[1]), *dyn[2:])

        return call
    return _compile.jit(("node", desc), lambda: node_function(desc))


# what an output's cotangent is, in a VJP program's description
ZERO, GIVEN, ONES = 0, 1, 2


class Pull(NamedTuple):
    """How a node's VJP program is called: for each parameter and dynamic input, the group whose
    gradient it adds to (None: no gradient; a value read twice by the node is one group), for each
    output whether its cotangent is ``GIVEN``, ``ONES`` (a head differentiated as its sum) or ``ZERO``,
    and for each group whether a gradient accumulated so far is passed in to be added."""

    param_groups: tuple
    dyn_groups: tuple
    out_kinds: tuple
    param_acc: tuple
    dyn_acc: tuple


def _grouped(grads: Sequence[Any], groups: tuple, acc: tuple, accs: Sequence[Any]) -> list:
    out: list[Any] = [None] * len(acc)
    it = iter(grads)
    for gi in groups:
        if gi is not None:
            g = next(it)
            out[gi] = g if out[gi] is None else out[gi] + g
    it = iter(accs)
    return [o + next(it) if a else o for o, a in zip(out, acc, strict=True)]


def vjp_function(desc: Any, pull: Pull) -> Callable:
    """``(params, dyn, given cotangents, param accumulators, dyn accumulators) -> (param group grads,
    dyn group grads)`` of one node (see :class:`Pull`); the forward is recomputed inside, and the
    accumulated gradients are added inside (no dispatch of their own)."""
    fn = node_function(desc)
    is_block = type(desc) is BlockDesc
    param_mask = tuple(g is not None for g in pull.param_groups)
    dyn_mask = tuple(g is not None for g in pull.dyn_groups)

    def vjp(params: list, dyn: list, cts: list, pacc: list, dacc: list) -> tuple[list, list]:
        def f(diff_params: list, diff_dyn: list) -> list:
            it_p, it_d = iter(diff_params), iter(diff_dyn)
            full_p = [next(it_p) if m else p for p, m in zip(params, param_mask, strict=True)]
            full_d = [next(it_d) if m else d for d, m in zip(dyn, dyn_mask, strict=True)]
            out = fn(full_p, full_d)
            if is_block:
                out = out[0]
            return jax.tree_util.tree_leaves(out)

        primals = ([p for p, m in zip(params, param_mask, strict=True) if m],
                   [d for d, m in zip(dyn, dyn_mask, strict=True) if m])
        outs, back = jax.vjp(f, *primals)
        it = iter(cts)
        full = [next(it) if k == GIVEN else jnp.ones_like(o) if k == ONES else jnp.zeros_like(o)
                for o, k in zip(outs, pull.out_kinds, strict=True)]
        pgrads, dgrads = back(full)
        return (_grouped(pgrads, pull.param_groups, pull.param_acc, pacc),
                _grouped(dgrads, pull.dyn_groups, pull.dyn_acc, dacc))

    return vjp


def vjp_program(desc: Any, pull: Pull) -> Callable:
    """:func:`vjp_function` compiled, cached by the description and the :class:`Pull` (on the Block for
    a Block's node: it dies with the Block)."""
    owner = desc.block() if type(desc) is BlockDesc else None
    return _compile.jit(("vjp", desc, pull), lambda: vjp_function(desc, pull), owner=owner)


class _Reader:
    """Reads a plan's references against the values computed so far."""

    __slots__ = ("outs", "pvals", "consts", "counts")

    def __init__(self, plan: Plan, outs: list) -> None:
        self.outs, self.pvals, self.consts = outs, plan.pvals, plan.consts
        self.counts = plan.counts

    def __call__(self, ref: Any) -> Any:
        kind = type(ref)
        if kind is NodeOut:
            return self.outs[ref.node][ref.out]
        if kind is ParamIn:
            return self.pvals[ref.index]
        if kind is ConstIn:
            return self.consts[ref.index]
        assert kind is CountIn
        return self.counts[ref.index]


def forward(plan: Plan, needed: Sequence[bool] | None = None) -> tuple[list, list]:
    """Each node's outputs and (Block nodes) state, computed node by node; a node whose outputs are all
    known (``plan.known_values``) is not run, nor one that ``needed`` marks False."""
    outs: list[list[Any]] = []
    states: list[Any] = []
    read = _Reader(plan, outs)
    known = plan.known_values
    for ni, step in enumerate(plan.key.steps):
        if type(step) is LeafStep:
            outs.append([read(step.ref)])
            states.append(None)
            continue
        have = known[ni] if known is not None else None
        if (have is not None and None not in have and not (type(step.desc) is BlockDesc
                                                            and plan.nodes[ni].state_names)) \
                or (needed is not None and not needed[ni]):
            outs.append(have if have is not None else [None] * step.n_out)
            states.append(None)
            continue
        result = node_program(step.desc)([read(r) for r in step.params], [read(r) for r in step.inputs])
        state = None
        if type(step.desc) is BlockDesc:
            result, state = result
        outs.append(jax.tree_util.tree_leaves(result))
        states.append(state)
    return outs, states


_ONES = object()  # the cotangent of a head differentiated as its sum (made inside the VJP program)


def _inexact(x: Any) -> bool:
    return jnp.issubdtype(x.dtype, jnp.inexact)


def backward(plan: Plan, outs: list, head_grads: Sequence[Any]) -> list[Any]:
    """The gradient of each of ``plan.pvals`` (None where none flows) of the sum of the heads (each
    weighted by its head gradient, or by ones), by a reverse walk of per-node VJP programs over the
    node outputs ``outs`` of :func:`forward`."""
    steps = plan.key.steps
    # which nodes depend on a differentiable leaf (only those pass gradients on)
    live = [False] * len(steps)
    for ni, step in enumerate(steps):
        if type(step) is LeafStep:
            live[ni] = type(step.ref) is ParamIn
        else:
            live[ni] = any(type(r) is ParamIn for r in step.params) or any(
                type(r) is NodeOut and live[r.node] for r in step.inputs)
    cts: dict[tuple[int, int], Any] = {}
    for head, g in zip(plan.heads, head_grads, strict=True):
        where = (head.node, head.out)
        g = _ONES if g is None else g.astype(outs[head.node][head.out].dtype)
        old = cts.get(where)  # a head given twice: its cotangents add
        cts[where] = g if old is None else _explicit(old, outs, where) + _explicit(g, outs, where)
    grads: list[Any] = [None] * len(plan.pvals)
    read = _Reader(plan, outs)
    for ni in range(len(steps) - 1, -1, -1):
        step = steps[ni]
        if not live[ni]:
            continue
        if type(step) is LeafStep:
            g = cts.pop((ni, 0), None)
            if g is not None:
                g = _explicit(g, outs, (ni, 0))
                i = step.ref.index
                grads[i] = g if grads[i] is None else grads[i] + g
            continue
        out_cts = [cts.pop((ni, oi), None) for oi in range(step.n_out)]
        out_kinds = tuple(ZERO if c is None else ONES if c is _ONES else GIVEN for c in out_cts)
        if not any(out_kinds):
            continue
        dyn = [read(r) for r in step.inputs]
        params = [read(r) for r in step.params]
        pkeys: dict[int, int] = {}
        pgroups = tuple(pkeys.setdefault(r.index, len(pkeys)) if type(r) is ParamIn else None
                        for r in step.params)
        dkeys: dict[tuple[int, int], int] = {}
        dgroups = tuple(dkeys.setdefault((r.node, r.out), len(dkeys))
                        if type(r) is NodeOut and live[r.node] and _inexact(v) else None
                        for r, v in zip(step.inputs, dyn, strict=True))
        pacc = [grads[i] for i in pkeys]
        dacc = [cts.get(k) for k in dkeys]
        dacc = [None if a is None else _explicit(a, outs, k) for a, k in zip(dacc, dkeys, strict=True)]
        pull = Pull(pgroups, dgroups, out_kinds, tuple(a is not None for a in pacc),
                    tuple(a is not None for a in dacc))
        new_p, new_d = vjp_program(step.desc, pull)(
            params, dyn, [c for c in out_cts if c is not None and c is not _ONES],
            [a for a in pacc if a is not None], [a for a in dacc if a is not None])
        _walked(step.desc)
        for i, g in zip(pkeys, new_p, strict=True):
            grads[i] = g
        for k, g in zip(dkeys, new_d, strict=True):
            cts[k] = g
    return grads


def _explicit(g: Any, outs: list, where: tuple[int, int]) -> Any:
    """A cotangent as an array (the head's ones made explicit where it must be added to)."""
    return jnp.ones_like(outs[where[0]][where[1]]) if g is _ONES else g
