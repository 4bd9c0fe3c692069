"""Trainer.step fused with the backward before it: one compiled program per training step.

``loss.backward()`` does not run at once: the recorder keeps the described backward waiting
(:func:`framework.autograd.tape.pending`). When ``trainer.step`` comes next, as in every Gluon
training loop, and the step is the simple case -- one device, every trained Parameter in that
backward with ``grad_req='write'`` -- the backward program and the optimizer's update are traced into
ONE program: one dispatch and one host round of Python per step instead of two. Anything else (reading a
gradient or a parameter first, several devices, ``grad_req='add'``) runs the waiting backward on its own
first and the step as usual; the numbers are the same either way. The gradients stay readable after the
step, as in MXNet.

>>> from framework import autograd, gluon, np
>>> net = gluon.nn.Dense(1, in_units=2)
>>> net.initialize()
>>> trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
>>> for _ in range(2):
...     with autograd.record():
...         loss = (net(np.ones((4, 2))) ** 2).mean()
...     loss.backward()
...     trainer.step(4)
>>> net.weight.grad().shape, float(loss) >= 0
((1, 2), True)
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import jax

from .. import _compile
from ..autograd import owed as _owed_mod
from ..autograd import tape as _tape

__all__ = ["fused_step"]


def _eligible(trainer: Any, plan: Any) -> tuple[Any, tuple[int, ...], dict[str, Any] | None] | None:
    """(device, plan index of each trained Parameter, current values) when the step can be fused; the
    values are None when they are the ones the plan recorded (the usual case: sent once, not twice)."""
    index, pvals = plan.param_index, plan.pvals
    device, picks, values, same = None, [], {}, True
    for name, p in trainer._trainable:  # one pass, reading the stores directly: it runs every step
        stored = p.__dict__
        data = stored["_data_now"]
        if data is None or len(data) != 1 or stored["_grad_now"] is None or p._grad_req != "write" \
                or p._repeated:
            return None
        [(dev, value)] = data.items()  # its one device
        if device is None:
            device = dev
        i = index.get((id(p), dev))
        if dev != device or i is None:
            return None
        picks.append(i)
        values[name] = value
        same = same and value is pvals[i]
    return (device, tuple(picks), None if same else values) if device is not None else None


def _program(trainer: Any, pending: Any, picks: tuple[int, ...], recorded: bool, owe: bool) -> Callable:
    names = [n for n, _ in trainer._trainable]
    backward = _tape.backward_function(pending.plan.key, pending.use_hg, pending.want)
    update = trainer._update_py
    fresh = (True,) * len(names)
    picked = set(picks)

    def step(pvals, consts, hg, values, state, lr, rescale, skipped):
        outs, states, grads, total = backward(pvals, consts, hg)
        if recorded:  # the Parameters hold the values the backward read
            values = {n: pvals[i] for n, i in zip(names, picks, strict=True)}
        mine = {n: grads[i] for n, i in zip(names, picks, strict=True)}
        new, state, _, skipped = update(values, [mine], state, fresh, lr, rescale, skipped)
        if owe:  # the trained Parameters' gradients are not copied out (framework.autograd.owed)
            grads = [None if i in picked else g for i, g in enumerate(grads)]
        return outs, states, grads, total, new, state, skipped

    return step


def _owed(trainer: Any, pending: Any, args: tuple, picks: tuple[int, ...], device: Any,
          trained: tuple) -> _owed_mod.Owed:
    """The record of the gradients a step did not return: its backward alone, on the same inputs."""
    key, use_hg = pending.plan.key, pending.use_hg
    ref = weakref.ref(trainer)

    def compute() -> list:
        grads = _tape.backward_program(key, use_hg, ())(*args)[2]
        return [grads[i] for i in picks]

    def on_settle() -> None:  # somebody needed them: this trainer's steps return gradients from now on
        t = ref()
        if t is not None:
            t.__dict__["_fused_returns_grads"] = True

    blocks = [node.block for node in pending.plan.nodes if node.kind == "block"]
    return _owed_mod.Owed(compute, trained[0], device, on_settle, keep=blocks, ids=trained[1])


def _trained(trainer: Any) -> tuple[tuple, frozenset[int]]:
    """The trainer's Parameters and their ids (kept while its list of trained Parameters is the same)."""
    cached = trainer.__dict__.get("_fused_trained")
    if cached is None or cached[0] is not trainer._trainable:
        params = tuple(p for _, p in trainer._trainable)
        cached = trainer.__dict__["_fused_trained"] = (trainer._trainable, params,
                                                       frozenset(map(id, params)))
    return cached[1], cached[2]


def _scalars(trainer: Any, dev: Any, lr: Any, rescale: Any) -> tuple[Any, Any]:
    """``lr`` and ``rescale`` on ``dev``, sent once while they stay the same (a step sends no scalar)."""
    key = (float(lr), float(rescale), dev)
    cached = trainer.__dict__.get("_fused_scalars")
    if cached is None or cached[0] != key:
        sent = tuple(jax.device_put(v, dev) for v in (lr, rescale))
        cached = trainer.__dict__["_fused_scalars"] = (key, sent)
    return cached[1]


def fused_step(trainer: Any, lr: Any, rescale: Any) -> bool:
    """Run the waiting backward and ``trainer``'s update as one program; False (nothing done) when
    there is no waiting backward or the step is not the simple case."""
    pending = _tape.pending()
    if pending is None or trainer._update_fn is None:
        return False
    found = _eligible(trainer, pending.plan)
    if found is None:
        return False
    dev, picks, values = found
    if dev not in trainer._states:
        return False
    _tape.take_pending()
    lr, rescale = _scalars(trainer, dev, lr, rescale)
    recorded = values is None
    owe = not trainer.__dict__.get("_fused_returns_grads", False)
    skipped = trainer._skipped[dev] if trainer._skip_nonfinite else None  # no dead input and output
    desc = ("fused_step", id(trainer._tx), pending.use_hg, pending.plan.key, pending.want, picks, recorded,
            owe)
    program = _compile.jit(desc, lambda: _program(trainer, pending, picks, recorded, owe), owner=trainer)
    args = (*pending.plan.arrays(), pending.hg_args)
    outs, states, grads, total, new, trainer._states[dev], skipped = program(
        *args, values, trainer._states[dev], lr, rescale, skipped)
    if skipped is not None:
        trainer._skipped[dev] = skipped
    mine = dict.fromkeys(picks)  # finish drops an older record of these gradients: they are replaced
    _tape.finish(pending, outs, states, [None if i in mine else g for i, g in enumerate(grads)], total)
    for (name, p), i in zip(trainer._trainable, picks, strict=True):
        p._stepped(dev, new[name], None if owe else grads[i])
    if owe:
        _owed_mod.owe(_owed(trainer, pending, args, picks, dev, _trained(trainer)))
    return True
