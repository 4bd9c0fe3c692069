"""The recorded graph and its pure description.

A :class:`Node` is one recorded call: an operation (its description an :class:`OpDesc`), a Block call
(a :class:`BlockDesc`) or a leaf (a Parameter's or Variable's value, :data:`LEAF`). A description is a
hashable value: the function's identity, its static arguments tagged by type
(:func:`framework._compile.static`), the tree structure of its arguments and, for Blocks, a weak
reference to the Block, the training flag and the parameter names. A :class:`Plan` flattens the graph
reaching some heads into a :class:`PlanKey` (each node's description plus named references between
nodes) and the arrays it reads; the program that replays it is built from the key alone
(:func:`replay`), so a compiled program never holds a node, a recorded value or an array of the step
that first built it.

>>> import jax.numpy as jnp
>>> desc, dynamic = op_desc(jnp.add, (1, 2.0), {})
>>> desc.statics, dynamic  # statics, tagged with their types; no dynamic (array) arguments
(((<class 'int'>, 1), (<class 'float'>, 2.0)), ())
"""

from __future__ import annotations

import functools
import itertools
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as onp

from .. import _compile
from .lazy import force

__all__ = ["Node", "Value", "OpDesc", "BlockDesc", "GradDesc", "LEAF", "NodeOut", "ParamIn", "ConstIn",
           "CountIn", "Step", "LeafStep", "PlanKey", "Abstract", "Plan", "op_desc", "node_function",
           "abstract_eval", "replay", "backward_function", "device_of", "interned"]


# ------------------------------------------------------------------------------------ descriptions
class _Description:
    """A named, immutable record hashed once (a description is hashed at every program lookup; some
    functions, such as ``jnp``'s ufuncs, hash slowly). The function is compared by identity."""

    __slots__ = ("_hash",)
    _fields: tuple[str, ...] = ()

    def _values(self) -> tuple:
        return tuple(getattr(self, f) for f in self._fields)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other or (type(other) is type(self) and self._hash == other._hash
                                 and self._same(other))

    def _same(self, other: Any) -> bool:
        return self._values() == other._values()

    def __repr__(self) -> str:
        body = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._fields)
        return f"{type(self).__name__}({body})"


class OpDesc(_Description):
    """An operation ``fn(*args, **kwargs)``: the dynamic leaves are marked by ``is_dyn``, the statics
    are tagged by type."""

    __slots__ = ("fn", "treedef", "statics", "is_dyn")
    _fields = __slots__

    def __init__(self, fn: Callable, treedef: Any, statics: tuple, is_dyn: tuple) -> None:
        for name, value in zip(self._fields, (fn, treedef, statics, is_dyn), strict=True):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_hash", hash((id(fn), treedef, statics, is_dyn)))

    def _same(self, other: Any) -> bool:
        return self.fn is other.fn and self.treedef == other.treedef and self.statics == other.statics \
            and self.is_dyn == other.is_dyn


class BlockDesc(_Description):
    """A compiled Block call: ``block`` (a weak reference) in ``training`` mode on ``device``; the
    parameters named ``names`` (structural names, in the node's ``params`` order); ``structure`` the
    tree's key (a changed tree is another program)."""

    __slots__ = ("block", "training", "treedef", "names", "device", "structure")
    _fields = __slots__

    def __init__(self, block: weakref.ref, training: bool, treedef: Any, names: tuple, device: Any,
                 structure: tuple) -> None:
        values = (block, training, treedef, names, device, structure)
        for name, value in zip(self._fields, values, strict=True):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_hash", hash(values))


class GradDesc(_Description):
    """The gradients of a described computation (its :class:`PlanKey`, head gradients used) with
    respect to the leaves ``wrt`` (indices into its parameter values), as a function of the values it
    reads: ``autograd.grad(..., create_graph=True)`` records one, so a second backward differentiates
    the gradients. Its dynamic inputs are the ``n_params`` leaf values, the ``n_consts`` constants and
    the head gradients used."""

    __slots__ = ("key", "use_hg", "wrt", "n_params", "n_consts")
    _fields = __slots__

    def __init__(self, key: Any, use_hg: tuple, wrt: tuple, n_params: int, n_consts: int) -> None:
        values = (key, use_hg, wrt, n_params, n_consts)
        for name, value in zip(self._fields, values, strict=True):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_hash", hash(values))


LEAF = ("leaf",)  # the description of a leaf node (a Parameter's or Variable's value)

_DESCRIPTIONS = _compile.FirstSeen(4096)


def interned(desc: _Description) -> _Description:
    """The first description equal to ``desc`` still remembered (:class:`framework._compile.FirstSeen`):
    a Block's first call and its later ones then record one description object."""
    return _DESCRIPTIONS.first(desc)[0]


# references inside a plan: what a node reads
class NodeOut(NamedTuple):
    """Output ``out`` of the plan's node ``node``."""

    node: int
    out: int


class ParamIn(NamedTuple):
    """The plan's differentiable leaf value ``index`` (``Plan.pvals``)."""

    index: int


class ConstIn(NamedTuple):
    """The plan's constant ``index`` (``Plan.consts``): data, or a value known where the graph is cut."""

    index: int


class CountIn(NamedTuple):
    """Entry ``index`` of the plan's vector of PRNG key counts (sent as one array)."""

    index: int


class Step(NamedTuple):
    """A computing node of a plan: its description, the references of its dynamic inputs and of its
    parameters, and its number of outputs."""

    desc: Any
    inputs: tuple
    params: tuple
    n_out: int


class LeafStep(NamedTuple):
    """A leaf node of a plan: where its value is read (a :class:`ParamIn` or a :class:`ConstIn`)."""

    ref: Any


class PlanKey:
    """The description of a whole recorded computation: its steps and its heads. Hashed once (a key is
    looked up several times per training step, in program caches too); :func:`.pending.repeats` hands
    back the first equal key it saw, so the later lookups of a steady loop compare by identity."""

    __slots__ = ("steps", "heads", "_hash")

    def __init__(self, steps: tuple, heads: tuple) -> None:
        self.steps, self.heads, self._hash = steps, heads, hash((steps, heads))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other or (type(other) is PlanKey and self._hash == other._hash
                                 and self.steps == other.steps and self.heads == other.heads)

    def __repr__(self) -> str:
        return f"PlanKey(steps={self.steps!r}, heads={self.heads!r})"


class Node:
    """One recorded call (see the module docstring)."""

    __slots__ = ("kind", "desc", "inputs", "out_avals", "out_tree", "outputs", "leaf", "device", "value",
                 "block", "params", "pvalues", "state_names", "freed", "__weakref__")

    def __init__(self, kind: str, desc: Any, inputs: tuple) -> None:
        self.kind = kind  # 'op', 'block' or 'leaf'
        self.desc = desc
        self.inputs = inputs  # Values, or concrete arrays (constants); statics live in desc
        self.out_avals: list[jax.ShapeDtypeStruct] = []
        self.out_tree: Any = None
        self.outputs: list[weakref.ref] = []
        self.leaf: Any = None  # leaf nodes: the Parameter or Variable ...
        self.device: jax.Device | None = None  # ... (and block nodes) the device of the values ...
        self.value: Any = None  # ... and the leaf's value when recorded
        self.block: Any = None  # block nodes: the Block (kept alive while the node is)
        self.params: Sequence[Any] = ()  # block nodes: the Parameters in desc's name order ...
        self.pvalues: Sequence[Any] = ()  # ... their values when recorded ...
        self.state_names: tuple[str, ...] = ()  # ... and the names of those it updates (state)
        self.freed = False


class Value:
    """The data of one output of one node; ``framework.autograd.Recorded`` adds the array surface.
    ``_value`` holds the array, a deferred result that a read forces (:mod:`.lazy`), or None (not
    computed: a read computes it)."""

    __slots__ = ("_node", "_index", "aval", "_value", "_sum", "__weakref__")

    def __init__(self, node: Node, index: int, aval: jax.ShapeDtypeStruct) -> None:
        self._node = node
        self._index = index
        self.aval = aval
        self._value: Any = None
        self._sum: Any = None  # the sum a backward of this value computed, if any


_DYNAMIC = (Value, jax.Array, onp.ndarray)
_FLAT = (Value, jax.Array, onp.ndarray, int, float)  # leaves of a call's arguments as they stand
_INTERN: dict[OpDesc, OpDesc] = {}  # one object per description: later comparisons are identities
_compile.on_clear(_INTERN.clear)


@functools.lru_cache(maxsize=16)
def _flat_treedef(n: int) -> Any:
    return jax.tree_util.tree_structure(((0,) * n, {}))


def op_desc(fn: Callable, args: Sequence[Any], kwargs: dict[str, Any]) -> tuple[OpDesc, tuple]:
    """(description, dynamic leaves) of ``fn(*args, **kwargs)``: arrays and Values are dynamic."""
    if not kwargs and all(isinstance(x, _FLAT) for x in args):  # the usual call: no walk
        leaves, treedef = args, _flat_treedef(len(args))
    else:
        leaves, treedef = jax.tree_util.tree_flatten((tuple(args), kwargs),
                                                     is_leaf=lambda x: isinstance(x, Value))
    is_dyn = tuple(isinstance(x, _DYNAMIC) for x in leaves)
    dyn = tuple(x for x, d in zip(leaves, is_dyn, strict=True) if d)
    statics = tuple(_compile.static(x) for x, d in zip(leaves, is_dyn, strict=True) if not d)
    desc = OpDesc(fn, treedef, statics, is_dyn)
    known = _INTERN.get(desc)
    if known is None:
        if len(_INTERN) > 8192:
            _INTERN.clear()
        known = _INTERN.setdefault(desc, desc)
    return known, dyn


def node_function(desc: Any) -> Callable[[Sequence[Any], Sequence[Any]], Any]:
    """``f(param values, dynamic inputs)`` of a node description; Block nodes return (output, state)."""
    if type(desc) is OpDesc:
        values = [_compile.thaw(s) for s in desc.statics]

        def op(params: Sequence[Any], dyn: Sequence[Any]) -> Any:
            it_dyn, it_static = iter(dyn), iter(values)
            leaves = [next(it_dyn) if d else next(it_static) for d in desc.is_dyn]
            args, kwargs = jax.tree_util.tree_unflatten(desc.treedef, leaves)
            return desc.fn(*args, **kwargs)

        return op
    if type(desc) is GradDesc:
        backward = backward_function(desc.key, desc.use_hg, ())
        n_p, n_c = desc.n_params, desc.n_consts

        def grads(params: Sequence[Any], dyn: Sequence[Any]) -> Any:
            hg = iter(dyn[n_p + n_c:])
            heads = [next(hg) if used else None for used in desc.use_hg]
            computed = backward(list(dyn[:n_p]), list(dyn[n_p:n_p + n_c]), heads)[2]
            return [computed[i] for i in desc.wrt]

        return grads
    forward = _compile.block_function(desc.block(), desc.training, True, desc.device)
    names = desc.names

    def block(params: Sequence[Any], dyn: Sequence[Any]) -> Any:  # dyn = (base key, count, *inputs)
        return forward(dict(zip(names, params, strict=True)), (dyn[0], dyn[1]), *dyn[2:])

    return block


def aval_of(x: Any) -> jax.ShapeDtypeStruct:
    if isinstance(x, Value):
        return x.aval
    if isinstance(x, (jax.Array, onp.ndarray, onp.generic)):
        return jax.ShapeDtypeStruct(x.shape, x.dtype)
    return jax.ShapeDtypeStruct(jnp.shape(x), jnp.result_type(x))


def _signature(x: Any) -> tuple:
    """(shape, dtype) of an input, without making an aval (the abstract cache's key)."""
    aval = getattr(x, "aval", None)  # recorded values and jax.Arrays carry one: read it, no property
    if aval is not None:
        return (aval.shape, aval.dtype)
    if isinstance(x, (onp.ndarray, onp.generic)):
        return (x.shape, x.dtype)
    return (jnp.shape(x), jnp.result_type(x))


class Abstract(NamedTuple):
    """A node's abstract result: its output avals and tree (a Block's visible output, without its state)
    and, for a Block, the names of the Parameters whose state it updates."""

    leaves: list
    tree: Any
    state_names: tuple


_ABSTRACT: OrderedDict = OrderedDict()
_abstract_lock = threading.Lock()
_compile.on_clear(_ABSTRACT.clear)


def _abstract(desc: Any, out: Any) -> Abstract:
    if type(desc) is not BlockDesc:
        return Abstract(*jax.tree_util.tree_flatten(out), ())
    output, state = out
    leaves, tree = jax.tree_util.tree_flatten(output)
    return Abstract(leaves, tree, tuple(state))


def abstract_eval(desc: Any, dyn: Sequence[Any], params: Sequence[Any]) -> Abstract:
    """The :class:`Abstract` result of a node on inputs ``dyn`` and parameter values ``params``, by
    abstract evaluation (cached by description and input shapes)."""
    keyed = dyn[2:] if type(desc) is BlockDesc else dyn  # a block's key parts are always alike
    key = (desc, tuple(map(_signature, keyed)), tuple(map(_signature, params)))
    hit = _ABSTRACT.get(key)
    if hit is None:
        out = jax.eval_shape(node_function(desc), [aval_of(p) for p in params], [aval_of(x) for x in dyn])
        hit = _abstract(desc, out)
        with _abstract_lock:
            _ABSTRACT[key] = hit
            if len(_ABSTRACT) > 4096:
                _ABSTRACT.popitem(last=False)
    return hit


def device_of(x: Any) -> jax.Device | None:
    devs = x.devices()
    return next(iter(devs)) if len(devs) == 1 else None


# ----------------------------------------------------------------------------------------- plans
class Plan:
    """The graph reaching ``heads``: ``key`` describes it (a :class:`PlanKey`); ``pvals``/``consts``
    are the arrays it reads (``params`` names the differentiable (leaf, device) pairs, in ``pvals``
    order; ``arrays`` is ``(pvals, consts)`` as its program takes them). ``cut_known``: a value already
    known is a constant (the graph is cut there). ``wrt``: ids of
    leaves differentiated whatever their ``grad_req``."""

    def __init__(self, heads: Sequence[Value], *, cut_known: bool = False,
                 wrt: frozenset = frozenset()) -> None:
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
                if isinstance(x, Value) and id(x._node) not in index \
                        and not (cut_known and x._value is not None):
                    stack.append((x._node, False))
        self.nodes = order
        self.params: list[tuple[Any, jax.Device | None]] = []
        self.pvals: list[jax.Array] = []
        self.consts: list[Any] = []
        self.counts: list[Any] = []  # uint32 host scalars (key counts): sent as ONE array
        self._cindex: dict[int, int] = {}
        self.param_index: dict[tuple[int, Any], int] = {}  # (id(leaf), device) -> pvals index
        self._wrt = wrt
        steps = []
        for node in order:
            if node.kind == "leaf":
                steps.append(LeafStep(self._param_ref(node.leaf, node.device, node.value)))
                continue
            refs = []
            for x in node.inputs:
                if isinstance(x, Value) and id(x._node) in index:
                    refs.append(NodeOut(index[id(x._node)], x._index))
                else:  # a constant, or a known value where the graph is cut
                    refs.append(self._const(_known(x) if isinstance(x, Value) else x))
            prefs = self._block_refs(node.params, node.device, node.pvalues) if node.params else ()
            steps.append(Step(node.desc, tuple(refs), prefs, len(node.out_avals)))
        self.heads = tuple(NodeOut(index[id(h._node)], h._index) for h in heads)
        self.key = PlanKey(tuple(steps), self.heads)
        self.known_values: list[list[Any]] | None = None
        # (pvals, consts) to call the plan's program with (consts end with the packed key counts)
        self.arrays = (self.pvals, [*self.consts, onp.asarray(self.counts, onp.uint32)])

    def capture_known(self) -> None:
        """Keep each node's output values already computed (``known_values``): a node-by-node run
        (:mod:`.walk`) does not compute them again."""
        self.known_values = [_outputs_known(n) for n in self.nodes]

    def _const(self, x: Any) -> ConstIn | CountIn:
        if type(x) is onp.uint32:
            self.counts.append(x)
            return CountIn(len(self.counts) - 1)
        i = self._cindex.get(id(x))  # the same array read by several nodes is sent once
        if i is None:
            i = self._cindex[id(x)] = len(self.consts)
            self.consts.append(x)
        return ConstIn(i)

    def _param_ref(self, leaf: Any, device: Any, value: Any) -> ParamIn | ConstIn:
        if leaf is None or (leaf.grad_req == "null" and id(leaf) not in self._wrt):
            return self._const(value)
        k = (id(leaf), device)
        i = self.param_index.get(k)
        if i is None:
            i = self.param_index[k] = len(self.params)
            self.params.append((leaf, device))
            self.pvals.append(value)
        return ParamIn(i)

    def _block_refs(self, params: Sequence[Any], device: Any, values: Sequence[Any]) -> tuple:
        """:meth:`_param_ref` of a Block node's Parameters: in bulk for the plan's first Block (every
        step), one by one otherwise."""
        index = self.param_index
        if not index and not self._wrt and "null" not in [p.grad_req for p in params]:
            n = len(params)  # the plan's first Block: all new
            self.params.extend(zip(params, itertools.repeat(device, n), strict=True))
            self.pvals.extend(values)
            keys = zip(map(id, params), itertools.repeat(device, n), strict=True)
            index.update(zip(keys, range(n), strict=True))
            return _first_refs(n)
        return tuple(self._param_ref(p, device, v) for p, v in zip(params, values, strict=True))


def _known(x: Value) -> Any:
    return force(x._value)


def _outputs_known(node: Node) -> list[Any]:
    """The values of ``node``'s outputs already computed (None where not)."""
    if node.kind == "leaf":
        return [node.value]
    out = []
    for ref in node.outputs:
        r = ref()
        v = None if r is None else r._value
        out.append(v if isinstance(v, jax.Array) else None)
    return out


@functools.lru_cache(maxsize=64)
def _first_refs(n: int) -> tuple:
    return tuple(ParamIn(i) for i in range(n))


def replay(steps: tuple) -> Callable[[Sequence[Any], Sequence[Any]], tuple[list, list]]:
    """The pure replay of a plan's steps: (pvals, consts) -> (each node's outputs, states); the last
    const is the vector of key counts (:attr:`Plan.arrays`)."""
    fns = [None if type(step) is LeafStep else node_function(step.desc) for step in steps]

    def run(pvals: Sequence[Any], consts: Sequence[Any]) -> tuple[list, list]:
        outs: list[list[Any]] = []
        states: list[Any] = []
        counts = consts[-1]

        def read(ref: Any) -> Any:
            kind = type(ref)
            if kind is NodeOut:
                return outs[ref.node][ref.out]
            if kind is ParamIn:
                return pvals[ref.index]
            if kind is ConstIn:
                return consts[ref.index]
            return counts[ref.index]

        for fn, step in zip(fns, steps, strict=True):
            if fn is None:
                outs.append([read(step.ref)])
                states.append(None)
                continue
            result = fn([read(r) for r in step.params], [read(r) for r in step.inputs])
            state = None
            if type(step.desc) is BlockDesc:
                result, state = result
            outs.append(jax.tree_util.tree_leaves(result))
            states.append(state)
        return outs, states

    return run


def backward_function(key: PlanKey, use_hg: tuple[bool, ...], want: tuple[NodeOut, ...]) -> Callable:
    """The pure backward of a plan: ``(pvals, consts, head grads) -> Result`` (as a tuple), the values
    those of ``want`` and the total the differentiated sum."""
    run = replay(key.steps)

    def objective(pvals, consts, hg):
        outs, states = run(pvals, consts)
        terms = []
        for head, g, use in zip(key.heads, hg, use_hg, strict=True):
            h = outs[head.node][head.out]
            terms.append((jnp.sum(h * g) if use else jnp.sum(h)).astype(jnp.float32))
        return functools.reduce(jnp.add, terms), (outs, states)

    def program(pvals, consts, hg):
        (total, (outs, states)), grads = jax.value_and_grad(objective, has_aux=True)(pvals, consts, hg)
        return [outs[w.node][w.out] for w in want], states, grads, total

    return program
