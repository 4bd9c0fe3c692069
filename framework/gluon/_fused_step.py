"""Trainer.step fused with the backward before it: one compiled program per training step.

``loss.backward()`` runs nothing: it leaves a deferred result in each gradient slot
(:mod:`framework.autograd.pending`). When ``trainer.step`` comes next, as in every Gluon training
loop, it finds those backwards in its Parameters' slots; when the step is the simple case -- every
trained Parameter on one device with ``grad_req='write'``, its gradient the deferred result of the same
backward(s) (one, or one per batch slice when ``initialize(ctx=[d, d])`` named the device twice), each
seen before (so it has a whole-graph program) -- the backwards and the optimizer's update are traced
into ONE program: one dispatch and one host round of Python per step. The gradients stay deferred
results (a loop rarely reads them): the first read computes them from the step's own inputs, and a
Trainer whose gradients are read returns them from its program from then on. Anything else (a read
first, several devices, ``grad_req='add'``) computes the gradients and steps as usual; the numbers are
the same either way.

>>> from framework import autograd, gluon, np
>>> net = gluon.nn.Dense(1, in_units=2)
>>> net.initialize()
>>> trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
>>> for _ in range(3):
...     with autograd.record():
...         loss = (net(np.ones((4, 2))) ** 2).mean()
...     loss.backward()
...     trainer.step(4)
>>> net.weight.grad().shape, float(loss) >= 0
((1, 2), True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax

from .. import _compile
from ..autograd.lazy import Deferred
from ..autograd.pending import Pending, backward_function

__all__ = ["FusedStep", "fused_step"]


class FusedStep:
    """A Trainer's state for fused steps: whether its programs return the gradients (somebody read
    gradients a step had left deferred) and the learning rate and rescale last sent to the device."""

    __slots__ = ("returns_grads", "scalars")

    def __init__(self) -> None:
        self.returns_grads = False
        self.scalars: tuple[Any, tuple] | None = None

    def gradients_read(self) -> None:
        self.returns_grads = True


class _Found(NamedTuple):
    """A fusable step: the device, the backwards (oldest first), the plan index of each trained
    Parameter in each backward, and the Parameters' values when they are not the recorded ones."""

    device: Any
    sources: tuple
    picks: tuple
    values: dict | None


def _eligible(trainer: Any) -> _Found | None:
    sources: list | None = None
    device = None
    picks: list[list[int]] = []
    values, same = {}, True
    for name, p in trainer._trainable:  # one pass, reading the slots directly: it runs every step
        replicas, grads = p._replicas, p._grad_slots
        if replicas is None or len(replicas) != 1 or grads is None or p._grad_req != "write":
            return None
        [(dev, value)] = replicas.items()  # its one device
        chain, d = [], grads.get(dev)  # its backwards' deferred gradients, newest first
        while type(d) is Deferred:
            chain.append(d)
            d = d.base
        if d is not None or not chain:  # accumulated onto a computed gradient, or none deferred
            return None
        chain.reverse()
        if sources is None:
            device, sources = dev, [g.source for g in chain]
            if not all(type(s) is Pending and s.computed is None and s.whole for s in sources):
                return None
            picks = [[] for _ in sources]
        elif dev != device or len(chain) != len(sources):
            return None
        for k, g in enumerate(chain):  # the same backwards; an index is its (Parameter, device)'s in the plan
            if g.source is not sources[k]:
                return None
            picks[k].append(g.index)
        values[name] = value
        same = same and value is sources[0].plan.pvals[picks[0][-1]]
    if sources is None:
        return None
    return _Found(device, tuple(sources), tuple(map(tuple, picks)), None if same else values)


def _program(trainer: Any, sources: tuple, picks: tuple, recorded: bool, returns_grads: bool) -> Callable:
    names = [n for n, _ in trainer._trainable]
    backwards = [backward_function(s.plan.key, s.use_hg, s.want) for s in sources]
    update = trainer._update_py
    fresh = (True,) * len(names)

    def step(args_list, values, state, lr, rescale, skipped):
        results, mine = [], None
        for fn, args, picked in zip(backwards, args_list, picks, strict=True):
            outs, states, grads, total = fn(*args)
            part = {n: grads[i] for n, i in zip(names, picked, strict=True)}
            mine = part if mine is None else jax.tree_util.tree_map(jax.numpy.add, mine, part)
            chosen = set(picked)  # the trained Parameters' own are summed into `mine`
            results.append((outs, states, [None if i in chosen else g for i, g in enumerate(grads)], total))
        if recorded:  # the Parameters hold the values the (first) backward read
            values = {n: args_list[0][0][i] for n, i in zip(names, picks[0], strict=True)}
        new, state, _, skipped = update(values, [mine], state, fresh, lr, rescale, skipped)
        return results, new, state, skipped, (mine if returns_grads else None)

    return step


def _scalars(fused: FusedStep, dev: Any, lr: Any, rescale: Any) -> tuple[Any, Any]:
    """``lr`` and ``rescale`` on ``dev``, sent once while they stay the same (a step sends no scalar)."""
    key = (float(lr), float(rescale), dev)
    if fused.scalars is None or fused.scalars[0] != key:
        fused.scalars = (key, tuple(jax.device_put(v, dev) for v in (lr, rescale)))
    return fused.scalars[1]


def fused_step(trainer: Any, lr: Any, rescale: Any) -> bool:
    """Run the deferred backward(s) in the trained Parameters' gradient slots and ``trainer``'s update
    as one program; False (nothing done) when the step is not the simple case."""
    found = _eligible(trainer)
    if found is None or found.device not in trainer._states:
        return False
    dev, sources, picks = found.device, found.sources, found.picks
    fused = trainer._fused
    lr, rescale = _scalars(fused, dev, lr, rescale)
    recorded, returns_grads = found.values is None, fused.returns_grads
    skipped = trainer._skipped[dev] if trainer._skip_nonfinite else None  # no dead input and output
    desc = ("fused_step", id(trainer._tx), tuple((s.use_hg, s.plan.key, s.want) for s in sources), picks,
            recorded, returns_grads)
    program = _compile.jit(desc, lambda: _program(trainer, sources, picks, recorded, returns_grads),
                           owner=trainer)
    results, new, trainer._states[dev], skipped, grads = program(
        [s.arguments for s in sources], found.values, trainer._states[dev], lr, rescale, skipped)
    if skipped is not None:
        trainer._skipped[dev] = skipped
    for source, (outs, states, other_grads, total) in zip(sources, results, strict=True):
        source.on_late_grads = fused.gradients_read
        source.finish(outs, states, other_grads, total)
    for name, p in trainer._trainable:
        p._stepped(dev, new[name], None if grads is None else grads[name])
    return True
