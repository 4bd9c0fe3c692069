"""The recorder behind ``autograd.record()``: recorded values, and backward as one compiled program.

Inside ``record()``, a Block call, a loss, an ``np``/``npx`` function or an operator on a recorded value
adds one node to a graph (:mod:`.graph`) and returns :class:`Recorded` values. Nothing is computed
then: shapes come from abstract evaluation (cached by description), so errors still surface at the
call. ``backward`` describes the graph reaching its heads (:class:`.graph.Plan`), asks the compile
layer for the program of that description -- ``jax.value_and_grad`` of the replay, which also returns
every node's value -- and runs it on the parameter values and constants the plan collected. A training
loop therefore compiles once, and nothing of a step outlives it: the cached program holds only the
description. Values read before a backward come from a compiled forward replay of the same graph.

Parameters are captured by value when recorded (JAX arrays are immutable), so an optimizer step between
recording and reading does not change what a recorded value means.

>>> from framework import autograd, gluon, np
>>> net = gluon.nn.Dense(1, in_units=2)
>>> net.initialize()
>>> with autograd.record():
...     loss = (net(np.ones((4, 2))) ** 2).mean()
>>> loss.backward()
>>> net.weight.grad().shape
(1, 2)
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp

from .. import _compile
from ..base import FrameworkError
from . import owed
from .graph import Node, Plan, Value, abstract_eval, device_of, op_desc, replay
from .mode import is_recording, is_training, set_recording, set_training
from .recorded import ArrayOps

__all__ = [
    "Recorded", "GraphError", "is_recording", "is_training", "set_recording", "set_training",
    "any_recorded", "record_call", "record_block", "visible", "parameter_leaf", "backward", "materialize",
    "values_of", "wanted", "backward_function", "backward_program", "Pending", "pending", "waiting",
    "take_pending", "flush", "finish",
]


class GraphError(FrameworkError, RuntimeError):
    """Backward on something that is not (or no longer) a recorded computation."""


class Recorded(Value, ArrayOps):
    """A value of a recorded computation (one output of one recorded call): array-like and lazy."""

    __slots__ = ()

    @property
    def value(self) -> jax.Array:
        """The concrete ``jax.Array`` (computed on first access)."""
        if self._value is None:
            materialize([self])
        return self._value

    def _record_op(self, fn: Callable, args: tuple, kwargs: dict[str, Any]) -> Any:
        return record_call(fn, args, kwargs)

    def sum(self, *args: Any, **kwargs: Any) -> Any:
        """``jnp.sum``; after a backward of this value alone, the sum that backward computed (no program
        of its own: ``float(loss.sum())`` in a training loop waits for the step and nothing else)."""
        if not args and not kwargs and self._sum is not None and not is_recording():
            return self._sum
        return self._record_op(jnp.sum, (self, *args), kwargs)

    @property
    def device(self) -> jax.Device:
        return self._devices()[0]

    def devices(self) -> set[jax.Device]:
        return set(self._devices())

    def _devices(self) -> list[jax.Device]:
        node = self._node
        while True:
            if node.device is not None:
                return [node.device]
            for x in node.inputs:
                if isinstance(x, Value):
                    node = x._node
                    break
                if isinstance(x, jax.Array) and len(x.devices()) == 1:
                    return list(x.devices())
            else:
                return list(self.value.devices())

    context = ctx = device

    def backward(self, out_grad: Any = None, retain_graph: bool = False, train_mode: bool = True) -> None:
        """Differentiate this value (its sum if not scalar) and write the Parameters' gradients."""
        backward([self], None if out_grad is None else [out_grad], retain_graph=retain_graph)

    def detach(self) -> jax.Array:
        return jax.lax.stop_gradient(self.value)


# ------------------------------------------------------------------------------------- recording
def any_recorded(args: Sequence[Any], kwargs: dict[str, Any]) -> bool:
    for a in args:
        if isinstance(a, Value) or (isinstance(a, (list, tuple)) and any(isinstance(b, Value) for b in a)):
            return True
    return any(isinstance(v, Value) for v in kwargs.values())


def visible(abstract: tuple[list, Any]) -> tuple[list, Any]:
    """The (leaves, tree) of a Block call's output, from the abstract result of its (output, state)."""
    leaves, tree = abstract
    out_tree = tree.children()[0]
    return leaves[: out_tree.num_leaves], out_tree


def _outputs(node: Node, leaves: list, tree: Any) -> Any:
    node.out_avals = list(leaves)
    node.out_tree = tree
    outs = [Recorded(node, i, aval) for i, aval in enumerate(leaves)]
    node.outputs = [weakref.ref(o) for o in outs]
    if len(outs) == 1 and tree.num_nodes == 1:  # one array (the usual Block output): no unflatten
        return outs[0]
    return jax.tree_util.tree_unflatten(tree, outs)


def record_call(fn: Callable, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
    """Record ``fn(*args, **kwargs)`` where some arguments are recorded values (outside ``record()``,
    just compute it on their values)."""
    if not is_recording():
        if kwargs or any(isinstance(a, (list, tuple, dict)) for a in args):
            args, kwargs = values_of((tuple(args), kwargs))
            return fn(*args, **kwargs)
        materialize([a for a in args if isinstance(a, Value)])  # e.g. float(loss.sum()) after a step
        return fn(*[a._value if isinstance(a, Value) else a for a in args])
    desc, dyn = op_desc(fn, args, kwargs)
    node = Node("op", desc, dyn)
    leaves, tree = abstract_eval(desc, dyn, ())
    return _outputs(node, leaves, tree)


def record_block(block: Any, desc: Any, params: Sequence[Any], values: Sequence[jax.Array], key: tuple,
                 args: Sequence[Any], device: jax.Device, *, output: tuple | None = None) -> Any:
    """Record one call of a compiled Block on ``device``. ``desc`` is the Block's node description
    (``('block', weakref, training, treedef, names, device, structure key)``), ``params`` its
    Parameters in ``names`` order and ``values`` their arrays on ``device``, ``key`` the pair
    ``(base key, count)`` of ``np.random.next_key_parts`` and ``output`` the call's
    :func:`visible` abstract output when the caller has it."""
    node = Node("block", desc, (*key, *args))
    node.device, node.block, node.params, node.pvalues = device, block, params, values
    leaves, tree = visible(abstract_eval(desc, node.inputs, values)) if output is None else output
    return _outputs(node, leaves, tree)


def parameter_leaf(param: Any, device: jax.Device, value: jax.Array) -> Recorded:
    """A recorded leaf standing for ``param``'s replica on ``device``."""
    node = Node("param", ("param",), ())
    node.param, node.device, node.value = param, device, value
    node.out_avals = [jax.ShapeDtypeStruct(value.shape, value.dtype)]
    out = Recorded(node, 0, node.out_avals[0])
    out._value = value
    node.outputs = [weakref.ref(out)]
    return out


# ------------------------------------------------------------------------------------- programs
def wanted(plan: Plan) -> tuple[tuple[int, int], ...]:
    """(node, output) of each value of ``plan`` that is still referenced and not computed yet: what its
    program returns (an intermediate nobody holds is neither copied out nor kept)."""
    out = []
    for ni, node in enumerate(plan.nodes):
        if node.kind != "param":
            for oi, ref in enumerate(node.outputs):
                r = ref()
                if r is not None and r._value is None:
                    out.append((ni, oi))
    return tuple(out)


def _fill(plan: Plan, want: tuple[tuple[int, int], ...], values: list[Any]) -> None:
    for (ni, oi), v in zip(want, values, strict=True):
        r = plan.nodes[ni].outputs[oi]()
        if r is not None and r._value is None:
            r._value = v


def _forward_program(key: Any, want: tuple[tuple[int, int], ...]) -> Callable:
    run = replay(key[0])

    def forward(pvals, consts):
        outs = run(pvals, consts)[0]
        return [outs[ni][oi] for ni, oi in want]

    return forward


def materialize(values: Sequence[Value]) -> None:
    """Compute recorded values that have none yet (one compiled forward replay)."""
    flush()
    todo = [v for v in values if v._value is None]
    if not todo:
        return
    plan = Plan(todo, cut_known=True)
    want = wanted(plan)
    program = _compile.jit(("forward", plan.key, want), lambda: _forward_program(plan.key, want))
    _fill(plan, want, program(*plan.arrays()))


def values_of(tree: Any) -> Any:
    """Replace recorded values in ``tree`` by their arrays."""
    def is_value(x: Any) -> bool:
        return isinstance(x, Value)

    leaves = [x for x in jax.tree_util.tree_leaves(tree, is_leaf=is_value) if is_value(x)]
    if not leaves:
        return tree
    materialize(leaves)
    return jax.tree_util.tree_map(lambda x: x._value if is_value(x) else x, tree, is_leaf=is_value)


def backward_function(key: Any, use_hg: tuple[bool, ...], want: tuple[tuple[int, int], ...]) -> Callable:
    """The pure backward of a plan: ``(pvals, consts, head grads) -> (values, states, grads, total)``,
    the values those of the (node, output) pairs in ``want`` and ``total`` the differentiated sum."""
    run, heads = replay(key[0]), key[1]

    def objective(pvals, consts, hg):
        outs, states = run(pvals, consts)
        terms = []
        for (ni, oi), g, use in zip(heads, hg, use_hg, strict=True):
            h = outs[ni][oi]
            terms.append((jnp.sum(h * g) if use else jnp.sum(h)).astype(jnp.float32))
        return functools.reduce(jnp.add, terms), (outs, states)

    def program(pvals, consts, hg):
        (total, (outs, states)), grads = jax.value_and_grad(objective, has_aux=True)(pvals, consts, hg)
        return [outs[ni][oi] for ni, oi in want], states, grads, total

    return program


def backward_program(key: Any, use_hg: tuple[bool, ...], want: tuple[tuple[int, int], ...]) -> Callable:
    """The compiled :func:`backward_function` of a plan's description."""
    return _compile.jit(("backward", use_hg, key, want), lambda: backward_function(key, use_hg, want))


_FREED = (
    "Check failed: !AGInfo::IsNone(*i): Cannot differentiate node because it is not in a "
    "computational graph. You need to set is_recording to true or use autograd.record() to save "
    "computational graphs for backward. If you want to differentiate the same graph twice, you "
    "need to pass retain_graph=True to backward."
)


class Pending:
    """A backward described but not yet run: its plan, head gradients and the values it returns."""

    __slots__ = ("plan", "use_hg", "hg_args", "want")

    def __init__(self, plan: Plan, use_hg: tuple[bool, ...], hg_args: list) -> None:
        self.plan, self.use_hg, self.hg_args = plan, use_hg, hg_args
        self.want = wanted(plan)


# The one slot of the waiting backward. Readers on a hot path test ``waiting[0] is not None`` before
# calling flush (a Parameter's arrays are read many times per step).
waiting: list[Pending | None] = [None]


def pending() -> Pending | None:
    """The backward waiting to run, if any (a Trainer step may run it with its update, as one program)."""
    return waiting[0]


def take_pending() -> Pending | None:
    """Remove and return the waiting backward: the caller runs it and calls :func:`finish`."""
    p, waiting[0] = waiting[0], None
    return p


def flush() -> None:
    """Run the waiting backward, if any. Reading or writing a Parameter's arrays, a recorded value or
    another backward calls this first, so nobody sees a state without the gradients."""
    if waiting[0] is not None:
        p = take_pending()
        finish(p, *backward_program(p.plan.key, p.use_hg, p.want)(*p.plan.arrays(), p.hg_args))


def finish(p: Pending, values: list, states: list, grads: list, total: Any) -> None:
    """Install what a waiting backward computed: recorded values, parameter gradients, layer states
    (gradients of these Parameters still owed by an earlier fused step are computed first where
    these add to them, and dropped where these replace them). A lone float32 head keeps ``total``, its
    sum, for ``head.sum()``."""
    plan = p.plan
    if owed.slot[0] is not None:
        owed.before_backward(plan.params)
    _fill(plan, p.want, values)
    if len(plan.heads) == 1 and not p.use_hg[0]:
        (ni, oi), = plan.heads
        head = plan.nodes[ni].outputs[oi]() if plan.nodes[ni].kind != "param" else None
        if head is not None and head.aval.dtype == jnp.float32:
            head._sum = total
    for (param, dev), g in zip(plan.params, grads, strict=True):
        if g is not None:  # None: installed by the caller (a fused Trainer step)
            param._write_grad(dev, g)
    for node, state in zip(plan.nodes, states, strict=True):
        if state:
            names = node.desc[4]
            for name, value in state.items():
                param = node.params[names.index(name)]
                param._commit_state(device_of(value), value)


def backward(heads: Sequence[Any], head_grads: Sequence[Any] | None = None,
             retain_graph: bool = False) -> None:
    """Differentiate the sum of ``heads`` (weighted by ``head_grads``) and write parameter gradients."""
    for h in heads:
        if not isinstance(h, Value) or h._node.kind == "param" and h._node.param is None:
            raise GraphError(
                f"backward() on {type(h).__name__}: not a recorded value. Compute it inside "
                "`with autograd.record():` from Blocks, Parameters or np/npx operations."
            )
    flush()
    plan = Plan(heads)
    if any(n.freed for n in plan.nodes):
        raise GraphError(_FREED)
    hgs = [None] * len(heads) if head_grads is None else \
        [None if g is None else jnp.asarray(values_of(g)) for g in head_grads]
    use_hg = tuple(g is not None for g in hgs)
    hg_args = [g if u else None for g, u in zip(hgs, use_hg, strict=True)]  # None: no leaf to send
    if not retain_graph:  # MXNet frees the graph here: an intermediate nobody holds dies with it
        for node in plan.nodes:
            node.freed, node.inputs = True, ()
    waiting[0] = Pending(plan, use_hg, hg_args)
    if not plan.defers:
        flush()  # a leaf that does not flush on read (a Variable): run now
