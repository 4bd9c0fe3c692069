"""The recorded computation behind ``autograd.record()``: nodes, lazy values, compiled replay.

Inside ``record()``, a Block call, a loss, an ``np``/``npx`` function or an operator on a recorded value
adds one :class:`Node` to a graph and returns :class:`~framework.autograd.recorded.Recorded` values. Nothing
is computed then: shapes come from abstract evaluation (cached), so errors still surface at the call.
``backward`` turns the graph reaching its heads into ONE pure function of the parameter values, differentiates
it with ``jax.value_and_grad`` and runs it as one compiled program (cached by the graph's structure, so a
training loop compiles once). The program also returns every node's value, so losses and outputs are
available afterwards without another forward pass. Values asked for before a backward are computed by a
compiled forward replay of the same graph.

Parameters are captured by value when recorded (JAX arrays are immutable), so an optimizer step between
recording and reading does not change what a recorded value means.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

__all__ = [
    "is_recording", "is_training", "set_recording", "set_training", "any_recorded", "record_call",
    "record_block", "parameter_leaf", "backward", "materialize", "values_of",
]

_local = threading.local()


def is_recording() -> bool:
    return getattr(_local, "recording", False)


def is_training() -> bool:
    from ..gluon import binding

    b = binding.current()
    if b is not None and b.values is not None:
        return b.training
    return getattr(_local, "training", False)


def set_recording(flag: bool) -> bool:
    prev = is_recording()
    _local.recording = bool(flag)
    return prev


def set_training(flag: bool) -> bool:
    prev = getattr(_local, "training", False)
    _local.training = bool(flag)
    return prev


class GraphError(RuntimeError):
    """Backward on something that is not (or no longer) a recorded computation."""


# --------------------------------------------------------------------------------------------- graph
class Node:
    """One recorded call. ``kind`` is 'op' (a function of arrays), 'block' or 'param' (a leaf)."""

    __slots__ = ("kind", "key", "fn", "inputs", "treedef", "out_avals", "out_tree", "outputs",
                 "param", "device", "value", "block_params", "statics", "freed", "__weakref__")

    def __init__(self, kind: str, key: Any, fn: Callable | None, inputs: tuple, treedef: Any) -> None:
        self.kind = kind
        self.key = key
        self.fn = fn
        self.inputs = inputs  # leaves: Recorded, or concrete arrays (constants); statics live in key
        self.treedef = treedef
        self.out_avals: list[jax.ShapeDtypeStruct] = []
        self.out_tree: Any = None
        self.outputs: list[weakref.ref] = []
        self.param = None
        self.device = None
        self.value = None
        self.block_params: tuple = ()  # ((name, Parameter, value), ...) for block nodes
        self.statics: tuple = ()  # non-array arguments of op nodes (their hashable form is in key)
        self.freed = False


_RECORDED: list[type] = []


def _recorded_cls() -> type:
    if not _RECORDED:  # recorded.py imports this module: resolve the class on first use
        from .recorded import Recorded

        _RECORDED.append(Recorded)
    return _RECORDED[0]


def _is_recorded(x: Any) -> bool:
    return isinstance(x, _recorded_cls())


def any_recorded(args: Sequence[Any], kwargs: dict[str, Any]) -> bool:
    R = _recorded_cls()
    for a in args:
        if isinstance(a, R) or (isinstance(a, (list, tuple)) and any(isinstance(b, R) for b in a)):
            return True
    return any(isinstance(v, R) for v in kwargs.values())


def _aval(x: Any) -> jax.ShapeDtypeStruct:
    if _is_recorded(x):
        return x.aval
    if isinstance(x, jax.Array):  # already canonical (PRNG keys included)
        return jax.ShapeDtypeStruct(x.shape, x.dtype)
    return jax.ShapeDtypeStruct(jnp.shape(x), jnp.result_type(x))


_ABSTRACT_CACHE: OrderedDict = OrderedDict()


def _abstract_eval(node: Node, dyn_avals: list, param_avals: list) -> tuple[list, Any]:
    key = (node.key, tuple((a.shape, a.dtype) for a in dyn_avals),
           tuple((a.shape, a.dtype) for a in param_avals))
    hit = _ABSTRACT_CACHE.get(key)
    if hit is None:
        out = jax.eval_shape(lambda p, d: _apply_node(node, p, d), param_avals, dyn_avals)
        leaves, tree = jax.tree_util.tree_flatten(out)
        hit = (leaves, tree)
        _ABSTRACT_CACHE[key] = hit
        if len(_ABSTRACT_CACHE) > 4096:
            _ABSTRACT_CACHE.popitem(last=False)
    return hit


def _apply_node(node: Node, params: Sequence[Any], dyn: Sequence[Any]) -> Any:
    """Run one node on concrete or traced values. Block nodes return (output, state)."""
    if node.kind == "op":
        it_dyn, it_static = iter(dyn), iter(node.statics)
        leaves = [next(it_dyn) if is_dyn else next(it_static) for is_dyn in node.key[4]]
        args, kwargs = jax.tree_util.tree_unflatten(node.treedef, leaves)
        return node.fn(*args, **kwargs)
    # block: dyn = (base key, count, *inputs)
    names = [name for name, _, _ in node.block_params]
    return node.fn(dict(zip(names, params, strict=True)), (dyn[0], dyn[1]), *dyn[2:])


def _make_outputs(node: Node, leaves: list, tree: Any) -> Any:
    R = _recorded_cls()
    if node.kind == "block":  # (output, state): only the output is visible
        out_tree = tree.children()[0]
        leaves, tree = leaves[: out_tree.num_leaves], out_tree
    node.out_avals = list(leaves)
    node.out_tree = tree
    outs = [R(node, i, aval) for i, aval in enumerate(leaves)]
    node.outputs = [weakref.ref(o) for o in outs]
    return jax.tree_util.tree_unflatten(tree, outs)


def record_call(fn: Callable, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
    """Record ``fn(*args, **kwargs)`` where some arguments are recorded values (outside ``record()``,
    just compute it on their values)."""
    if not is_recording():
        args, kwargs = values_of((tuple(args), kwargs))
        return fn(*args, **kwargs)
    R = _recorded_cls()
    leaves, treedef = jax.tree_util.tree_flatten((tuple(args), kwargs), is_leaf=lambda x: isinstance(x, R))
    is_dyn = tuple(isinstance(x, (R, jax.Array, onp.ndarray)) for x in leaves)
    dyn = tuple(x for x, d in zip(leaves, is_dyn, strict=True) if d)
    statics = tuple(x for x, d in zip(leaves, is_dyn, strict=True) if not d)
    node = Node("op", ("op", fn, treedef, tuple(_freeze(x) for x in statics), is_dyn), fn, dyn, treedef)
    node.statics = statics
    out_leaves, tree = _abstract_eval(node, [_aval(x) for x in dyn], [])
    return _make_outputs(node, out_leaves, tree)


def _freeze(x: Any) -> Any:
    """A hashable stand-in for a static argument (slices are unhashable before Python 3.12)."""
    if isinstance(x, slice):
        return ("slice", x.start, x.stop, x.step)
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, *(_freeze(v) for v in x))
    try:
        hash(x)
    except TypeError:
        return ("repr", type(x).__name__, repr(x))
    return x


def record_block(block: Any, fn: Callable, training: bool, params: dict[str, Any],
                 parameters: dict[str, Any], key: jax.Array, args: Sequence[Any],
                 device: jax.Device) -> Any:
    """Record one call of a compiled block on ``device``: ``fn(params, key, *args) -> (output, state)``,
    where ``key`` is the pair ``(base key, count)`` of :func:`framework.np.random.next_key_parts`."""
    leaves, treedef = jax.tree_util.tree_flatten(tuple(args), is_leaf=_is_recorded)
    node = Node("block", ("block", block, training, treedef), fn, (*key, *args), treedef)
    node.device = device
    node.block_params = tuple((n, parameters[n], v) for n, v in params.items())
    out_leaves, tree = _abstract_eval(node, [_aval(k) for k in key] + [_aval(a) for a in args],
                                      [_aval(v) for v in params.values()])
    return _make_outputs(node, out_leaves, tree)


def parameter_leaf(param: Any, device: jax.Device, value: jax.Array) -> Any:
    """A recorded leaf standing for ``param``'s replica on ``device``."""
    node = Node("param", ("param",), None, (), None)
    node.param, node.device, node.value = param, device, value
    node.out_avals = [jax.ShapeDtypeStruct(value.shape, value.dtype)]
    R = _recorded_cls()
    out = R(node, 0, node.out_avals[0])
    out._value = value
    node.outputs = [weakref.ref(out)]
    return out


# ------------------------------------------------------------------------------------- replay programs
class _Plan:
    """A graph reaching some heads, flattened into a structure key plus the arrays it needs."""

    def __init__(self, heads: Sequence[Any], *, cut_known: bool = False) -> None:
        order: list[Node] = []
        index: dict[int, int] = {}
        stack: list[tuple[Node, bool]] = [(h._node, False) for h in reversed(heads)]
        while stack:
            node, expanded = stack.pop()
            if id(node) in index:
                continue
            if expanded:
                index[id(node)] = len(order)
                order.append(node)
                continue
            stack.append((node, True))
            for x in node.inputs:
                if _is_recorded(x) and id(x._node) not in index and not (cut_known and x._value is not None):
                    stack.append((x._node, False))
        self.nodes = order
        self.params: list[tuple[Any, jax.Device]] = []  # differentiable (Parameter, device) leaves
        self.pvals: list[jax.Array] = []
        self.consts: list[Any] = []
        pindex: dict[tuple[int, Any], int] = {}
        structure = []
        for node in order:
            if node.kind == "param":
                if node.param.grad_req == "null":
                    structure.append(("c", self._const(node.value)))
                    continue
                k = (id(node.param), node.device)
                if k not in pindex:
                    pindex[k] = len(self.params)
                    self.params.append((node.param, node.device))
                    self.pvals.append(node.value)
                structure.append(("p", pindex[k]))
                continue
            refs = []
            for x in node.inputs:
                if _is_recorded(x) and id(x._node) not in index:  # a known value: the graph is cut here
                    refs.append(("c", self._const(x._value)))
                elif _is_recorded(x):
                    refs.append(("n", index[id(x._node)], x._index))
                else:
                    refs.append(("c", self._const(x)))
            prefs = []
            for _, param, value in node.block_params:
                if param.grad_req == "null":
                    prefs.append(("c", self._const(value)))
                else:
                    k = (id(param), _device_of(value))
                    if k not in pindex:
                        pindex[k] = len(self.params)
                        self.params.append((param, _device_of(value)))
                        self.pvals.append(value)
                    prefs.append(("p", pindex[k]))
            structure.append((node.key, tuple(refs), tuple(prefs), len(node.out_avals)))
        self.heads = tuple((index[id(h._node)], h._index) for h in heads)
        self.key = (tuple(structure), self.heads)

    def _const(self, x: Any) -> int:
        self.consts.append(x)
        return len(self.consts) - 1

    def program(self) -> Callable:
        """The pure replay: (pvals, consts) -> (node outputs, states) for this structure."""
        nodes, structure = self.nodes, self.key[0]

        def replay(pvals: Sequence[Any], consts: Sequence[Any]) -> tuple[list, list]:
            outs: list[list[Any]] = []
            states: list[Any] = []
            for node, desc in zip(nodes, structure, strict=True):
                if desc[0] == "c":
                    outs.append([consts[desc[1]]])
                    states.append(None)
                    continue
                if desc[0] == "p":
                    outs.append([pvals[desc[1]]])
                    states.append(None)
                    continue
                _, refs, prefs, _ = desc
                dyn = [outs[r[1]][r[2]] if r[0] == "n" else consts[r[1]] for r in refs]
                params = [pvals[r[1]] if r[0] == "p" else consts[r[1]] for r in prefs]
                result = _apply_node(node, params, dyn)
                state = None
                if node.kind == "block":
                    result, state = result
                outs.append(jax.tree_util.tree_leaves(result))
                states.append(state)
            return outs, states

        return replay


def _device_of(x: jax.Array) -> jax.Device | None:
    devs = x.devices()
    return next(iter(devs)) if len(devs) == 1 else None


_PROGRAMS: OrderedDict = OrderedDict()


def _cached(kind: str, plan: _Plan, build: Callable[[Callable], Callable]) -> Callable:
    key = (kind, plan.key)
    fn = _PROGRAMS.get(key)
    if fn is None:
        fn = _PROGRAMS[key] = jax.jit(build(plan.program()))
        if len(_PROGRAMS) > 256:
            _PROGRAMS.popitem(last=False)
    else:
        _PROGRAMS.move_to_end(key)
    return fn


def _fill(plan: _Plan, outs: list[list[Any]]) -> None:
    for node, values in zip(plan.nodes, outs, strict=True):
        if node.kind == "param":
            continue
        for ref, v in zip(node.outputs, values, strict=True):
            r = ref()
            if r is not None and r._value is None:
                r._value = v


def materialize(values: Sequence[Any]) -> None:
    """Compute recorded values that have none yet (one compiled forward replay)."""
    todo = [v for v in values if v._value is None]
    if not todo:
        return
    plan = _Plan(todo, cut_known=True)

    def build(replay: Callable) -> Callable:
        return lambda pvals, consts: replay(pvals, consts)[0]

    outs = _cached("forward", plan, build)(plan.pvals, plan.consts)
    _fill(plan, outs)


def values_of(tree: Any) -> Any:
    """Replace recorded values in ``tree`` by their arrays."""
    R = _recorded_cls()
    leaves = [x for x in jax.tree_util.tree_leaves(tree, is_leaf=lambda x: isinstance(x, R))
              if isinstance(x, R)]
    materialize(leaves)
    return jax.tree_util.tree_map(lambda x: x._value if isinstance(x, R) else x, tree,
                                  is_leaf=lambda x: isinstance(x, R))


def backward(heads: Sequence[Any], head_grads: Sequence[Any] | None = None,
             retain_graph: bool = False) -> None:
    """Differentiate the sum of ``heads`` (weighted by ``head_grads``) and write parameter gradients."""
    R = _recorded_cls()
    for h in heads:
        if not isinstance(h, R) or h._node.kind == "param" and h._node.param is None:
            raise GraphError(
                f"backward() on {type(h).__name__}: not a recorded value. Compute it inside "
                "`with autograd.record():` from Blocks, Parameters or np/npx operations."
            )
    plan = _Plan(heads)
    if any(n.freed for n in plan.nodes):
        raise GraphError(
            "Check failed: !AGInfo::IsNone(*i): Cannot differentiate node because it is not in a "
            "computational graph. You need to set is_recording to true or use autograd.record() to save "
            "computational graphs for backward. If you want to differentiate the same graph twice, you "
            "need to pass retain_graph=True to backward."
        )
    if head_grads is None:
        hgs = [None] * len(heads)
    else:
        hgs = [None if g is None else jnp.asarray(values_of(g)) for g in head_grads]
    use_hg = tuple(g is not None for g in hgs)

    def build(replay: Callable) -> Callable:
        def objective(pvals, consts, hg):
            outs, states = replay(pvals, consts)
            total = 0.0
            for (ni, oi), g, use in zip(plan.heads, hg, use_hg, strict=True):
                h = outs[ni][oi]
                total = total + (jnp.sum(h * g) if use else jnp.sum(h)).astype(jnp.float32)
            return total, (outs, states)

        def run(pvals, consts, hg):
            (_, (outs, states)), grads = jax.value_and_grad(objective, has_aux=True)(pvals, consts, hg)
            return outs, states, grads

        return run

    hg_args = [g if u else onp.zeros((), onp.float32) for g, u in zip(hgs, use_hg, strict=True)]
    outs, states, grads = _cached(("backward", use_hg), plan, build)(plan.pvals, plan.consts, hg_args)
    _fill(plan, outs)
    for (param, dev), g in zip(plan.params, grads, strict=True):
        param._write_grad(dev, g)
    for node, state in zip(plan.nodes, states, strict=True):
        if state:
            for name, value in state.items():
                param = next(p for n, p, _ in node.block_params if n == name)
                param._commit_state(_device_of(value), value)
    if not retain_graph:
        for node in plan.nodes:
            node.freed = True
