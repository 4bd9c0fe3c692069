"""The recorder behind ``autograd.record()``: recorded values, reading them, and ``backward()``.

Inside ``record()``, a Block call, a loss, an ``np``/``npx`` function or an operator on a recorded value
adds one node to a graph (:mod:`.graph`) and returns :class:`Recorded` values. Nothing is computed
then: shapes come from abstract evaluation (cached by description), so errors still surface at the
call. Reading a value computes what it needs node by node, from per-node compiled programs
(:mod:`.walk`). ``backward`` describes the graph reaching its heads and leaves a :class:`.pending.Pending`
behind, whose deferred results the slots it writes now hold (:mod:`.lazy`): the first read runs it
-- node by node the first time a graph of that description is seen, as one compiled program when the
description repeats -- or ``trainer.step`` runs it together with its update.

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

import weakref
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp

from ..base import FrameworkError
from . import walk
from .graph import LEAF, Abstract, GradDesc, Node, Plan, Value, abstract_eval, op_desc
from .lazy import Deferred, force
from .mode import flags, is_recording, is_training, set_recording, set_training
from .pending import Pending, repeats
from .recorded import ArrayOps

__all__ = [
    "Recorded", "GraphError", "is_recording", "is_training", "set_recording", "set_training",
    "any_recorded", "record_call", "record_block", "parameter_leaf", "backward", "gradients",
    "materialize", "values_of",
]


class GraphError(FrameworkError, RuntimeError):
    """Backward on something that is not (or no longer) a recorded computation."""


class Recorded(Value, ArrayOps):
    """A value of a recorded computation (one output of one recorded call): array-like and lazy."""

    __slots__ = ()

    @property
    def value(self) -> jax.Array:
        """The concrete ``jax.Array`` (computed on first access)."""
        v = self._value
        if v is None:
            materialize([self])
            v = self._value
        if type(v) is Deferred:
            v = self._value = v.force()
        return v

    def _record_op(self, fn: Callable, args: tuple, kwargs: dict[str, Any]) -> Any:
        return record_call(fn, args, kwargs)

    def sum(self, *args: Any, **kwargs: Any) -> Any:
        """``jnp.sum``; after a backward of this value alone, the sum that backward computed (no program
        of its own: ``float(loss.sum())`` in a training loop waits for the step and nothing else)."""
        if not args and not kwargs and self._sum is not None and not flags.recording:
            total = self._sum = force(self._sum)
            return total
        return self._record_op(jnp.sum, (self, *args), kwargs)

    @property
    def device(self) -> jax.Device:
        """The device it is computed on: its node's, else the first input's found going back."""
        node = self._node
        while True:
            if node.device is not None:
                return node.device
            for x in node.inputs:
                if isinstance(x, Value):
                    node = x._node
                    break
                if isinstance(x, jax.Array) and len(x.devices()) == 1:
                    return next(iter(x.devices()))
            else:
                return next(iter(self.value.devices()))

    def devices(self) -> set[jax.Device]:
        return {self.device}

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


def _outputs(node: Node, abstract: Abstract) -> Any:
    node.out_avals = leaves = list(abstract.leaves)
    node.out_tree = tree = abstract.tree
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
        return fn(*[a.value if isinstance(a, Value) else a for a in args])
    desc, dyn = op_desc(fn, args, kwargs)
    return _outputs(Node("op", desc, dyn), abstract_eval(desc, dyn, ()))


def record_block(block: Any, desc: Any, params: Sequence[Any], values: Sequence[jax.Array], key: tuple,
                 args: Sequence[Any], device: jax.Device, *, abstract: Abstract | None = None) -> Any:
    """Record one call of a compiled Block on ``device``: ``desc`` its :class:`.graph.BlockDesc`,
    ``params`` its Parameters in ``desc.names`` order and ``values`` their arrays on ``device``, ``key``
    the pair ``(base key, count)`` of ``np.random.next_key_parts``, ``abstract`` the call's abstract
    result when the caller has it."""
    node = Node("block", desc, (*key, *args))
    node.device, node.block, node.params, node.pvalues = device, block, params, values
    if abstract is None:
        abstract = abstract_eval(desc, node.inputs, values)
    node.state_names = abstract.state_names
    return _outputs(node, abstract)


def parameter_leaf(leaf: Any, device: jax.Device | None, value: jax.Array) -> Recorded:
    """A recorded leaf standing for ``leaf``'s value on ``device`` (a Parameter's replica, a Variable)."""
    node = Node("leaf", LEAF, ())
    node.leaf, node.device, node.value = leaf, device, value
    node.out_avals = [jax.ShapeDtypeStruct(value.shape, value.dtype)]
    out = Recorded(node, 0, node.out_avals[0])
    out._value = value
    node.outputs = [weakref.ref(out)]
    return out


# --------------------------------------------------------------------------------------- reading
def materialize(values: Sequence[Value]) -> None:
    """Compute recorded values that have none yet, node by node (per-node compiled programs: a graph
    that grows while it is read compiles nothing new)."""
    todo = [v for v in values if v._value is None]
    if not todo:
        return
    if any(v._node.freed for v in todo):
        raise GraphError("reading a recorded value whose graph a backward freed; keep a reference to it "
                         "before the backward (or pass retain_graph=True)")
    plan = Plan(todo, cut_known=True)
    outs, _ = walk.forward(plan)
    for node, computed in zip(plan.nodes, outs, strict=True):
        if node.kind == "leaf":
            continue
        for ref, v in zip(node.outputs, computed, strict=True):
            r = ref()
            if r is not None and r._value is None:
                r._value = v


def values_of(tree: Any) -> Any:
    """Replace recorded values in ``tree`` by their arrays."""
    def is_value(x: Any) -> bool:
        return isinstance(x, Value)

    leaves = [x for x in jax.tree_util.tree_leaves(tree, is_leaf=is_value) if is_value(x)]
    if not leaves:
        return tree
    materialize(leaves)
    return jax.tree_util.tree_map(lambda x: x.value if is_value(x) else x, tree, is_leaf=is_value)


# -------------------------------------------------------------------------------------- backward
_FREED = (
    "Check failed: !AGInfo::IsNone(*i): Cannot differentiate node because it is not in a "
    "computational graph. You need to set is_recording to true or use autograd.record() to save "
    "computational graphs for backward. If you want to differentiate the same graph twice, you "
    "need to pass retain_graph=True to backward."
)


def _describe(heads: Sequence[Any], head_grads: Sequence[Any] | None, retain_graph: bool,
              wrt: frozenset = frozenset()) -> Pending:
    for h in heads:
        if not isinstance(h, Value) or h._node.kind == "leaf" and h._node.leaf is None:
            raise GraphError(
                f"backward() on {type(h).__name__}: not a recorded value. Compute it inside "
                "`with autograd.record():` from Blocks, Parameters or np/npx operations."
            )
    plan = Plan(heads, wrt=wrt)
    if any(n.freed for n in plan.nodes):
        raise GraphError(_FREED)
    whole, plan.key = repeats(plan.key)
    if not whole:  # node by node: the values already computed are not computed again
        plan.capture_known()
    hgs = [None] * len(heads) if head_grads is None else \
        [None if g is None else jnp.asarray(values_of(g)) for g in head_grads]
    use_hg = tuple(g is not None for g in hgs)
    hg_args = [g if u else None for g, u in zip(hgs, use_hg, strict=True)]  # None: no leaf to send
    if not retain_graph:  # MXNet frees the graph here: an intermediate nobody holds dies with it
        for node in plan.nodes:
            node.freed, node.inputs = True, ()
    return Pending(plan, use_hg, hg_args, whole=whole)


def backward(heads: Sequence[Any], head_grads: Sequence[Any] | None = None,
             retain_graph: bool = False) -> Pending:
    """Differentiate the sum of ``heads`` (weighted by ``head_grads``): every slot the backward writes
    (gradients, layer states, recorded values still held) gets its deferred result; returns the
    :class:`.pending.Pending` they come from."""
    pending = _describe(heads, head_grads, retain_graph)
    pending.owe()
    return pending


def gradients(heads: Sequence[Any], leaves: Sequence[Any], head_grads: Sequence[Any] | None = None,
              retain_graph: bool = False, create_graph: bool = False) -> list[Any]:
    """The gradients of the heads' sum with respect to ``leaves`` (Parameters or Variables, whatever
    their ``grad_req``), computed now and returned, not written (MXNet's ``autograd.grad``). With
    ``create_graph`` (inside ``record()``), they are recorded values of their own: a second backward
    differentiates them (higher-order gradients)."""
    if create_graph and is_recording():
        return _recorded_gradients(heads, leaves, head_grads)
    pending = _describe(heads, head_grads, retain_graph, wrt=frozenset(map(id, leaves)))
    pending.owe(write_grads=False)
    result = pending.run()
    index = {id(leaf): i for i, (leaf, _) in enumerate(pending.plan.params)}
    out = []
    for leaf in leaves:
        i = index.get(id(leaf))
        if i is None:  # the heads do not depend on it
            out.append(jnp.zeros_like(leaf.value if isinstance(leaf, Value) else leaf.data()))
        else:
            out.append(result.grads[i])
    return out


def _recorded_gradients(heads: Sequence[Any], leaves: Sequence[Any],
                        head_grads: Sequence[Any] | None) -> list[Any]:
    """``gradients`` as one recorded node (a :class:`.graph.GradDesc`) over the values the heads' graph
    reads; the graph itself is kept (MXNet: ``create_graph`` retains it)."""
    plan = Plan(heads, wrt=frozenset(map(id, leaves)))
    if any(n.freed for n in plan.nodes):
        raise GraphError(_FREED)
    hgs = [None] * len(heads) if head_grads is None else \
        [None if g is None else jnp.asarray(values_of(g)) for g in head_grads]
    use_hg = tuple(g is not None for g in hgs)
    # each differentiable leaf enters as a recorded leaf (a Variable as itself), the rest as constants
    inputs = [leaf if isinstance(leaf, Value) and leaf._value is value else parameter_leaf(leaf, dev, value)
              for (leaf, dev), value in zip(plan.params, plan.pvals, strict=True)]
    consts = plan.arrays[1]
    index = {id(leaf): i for i, (leaf, _) in enumerate(plan.params)}
    wrt = tuple(index[id(leaf)] for leaf in leaves if id(leaf) in index)
    desc = GradDesc(plan.key, use_hg, wrt, len(inputs), len(consts))
    dyn = (*inputs, *consts, *(g for g in hgs if g is not None))
    grads = iter(_outputs(Node("op", desc, dyn), abstract_eval(desc, dyn, ())))
    return [next(grads) if id(leaf) in index else
            jnp.zeros_like(leaf.value if isinstance(leaf, Value) else leaf.data()) for leaf in leaves]
