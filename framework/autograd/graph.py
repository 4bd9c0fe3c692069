"""The recorded graph and its pure description.

A :class:`Node` is one recorded call: an operation (``'op'``), a Block call (``'block'``) or a
Parameter leaf (``'param'``). Each node carries a *description* (``node.desc``): a hashable value with
the function's identity, its static arguments tagged by type (:func:`framework._compile.static`), the
tree structure of its arguments and, for Blocks, a weak reference to the Block, the training flag and
the parameter names. A :class:`Plan` flattens the graph reaching some heads into a description of the
whole computation (node descriptions plus references between them) and the arrays it reads; the
program that replays it is built from the description alone (:func:`replay`), so a compiled program
never holds a node, a recorded value or an array of the step that first built it.

>>> import jax.numpy as jnp
>>> desc, dynamic = op_desc(jnp.add, (1, 2.0), {})
>>> desc[3], dynamic  # statics, tagged with their types; no dynamic (array) arguments
(((<class 'int'>, 1), (<class 'float'>, 2.0)), ())
"""

from __future__ import annotations

import functools
import itertools
import operator
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from .. import _compile

__all__ = ["Node", "Value", "Plan", "op_desc", "node_function", "abstract_eval", "replay", "device_of"]


class Node:
    """One recorded call (see the module docstring)."""

    __slots__ = ("kind", "desc", "inputs", "out_avals", "out_tree", "outputs", "param", "device",
                 "value", "block", "params", "pvalues", "freed", "__weakref__")

    def __init__(self, kind: str, desc: Any, inputs: tuple) -> None:
        self.kind = kind
        self.desc = desc
        self.inputs = inputs  # Values, or concrete arrays (constants); statics live in desc
        self.out_avals: list[jax.ShapeDtypeStruct] = []
        self.out_tree: Any = None
        self.outputs: list[weakref.ref] = []
        self.param: Any = None  # param nodes: the Parameter ...
        self.device: jax.Device | None = None  # ... and the device of its replica
        self.value: Any = None  # ... and its value when recorded
        self.block: Any = None  # block nodes: the Block (kept alive while the node is)
        self.params: Sequence[Any] = ()  # block nodes: the Parameters in desc's name order ...
        self.pvalues: Sequence[Any] = ()  # ... and their values when recorded
        self.freed = False


class Value:
    """The data of one output of one node; ``framework.autograd.Recorded`` adds the array surface."""

    __slots__ = ("_node", "_index", "aval", "_value", "_sum", "__weakref__")

    def __init__(self, node: Node, index: int, aval: jax.ShapeDtypeStruct) -> None:
        self._node = node
        self._index = index
        self.aval = aval
        self._value: jax.Array | None = None
        self._sum: jax.Array | None = None  # the sum a backward of this value computed, if any


# --------------------------------------------------------------------------------- descriptions
def op_desc(fn: Callable, args: Sequence[Any], kwargs: dict[str, Any]) -> tuple[Any, tuple]:
    """(description, dynamic leaves) of ``fn(*args, **kwargs)``: arrays and Values are dynamic."""
    leaves, treedef = jax.tree_util.tree_flatten((tuple(args), kwargs),
                                                 is_leaf=lambda x: isinstance(x, Value))
    is_dyn = tuple(isinstance(x, (Value, jax.Array, onp.ndarray)) for x in leaves)
    dyn = tuple(x for x, d in zip(leaves, is_dyn, strict=True) if d)
    statics = tuple(_compile.static(x) for x, d in zip(leaves, is_dyn, strict=True) if not d)
    return ("op", fn, treedef, statics, is_dyn), dyn


def node_function(desc: Any) -> Callable[[Sequence[Any], Sequence[Any]], Any]:
    """``f(param values, dynamic inputs)`` of a node description; Block nodes return (output, state)."""
    if desc[0] == "op":
        _, fn, treedef, statics, is_dyn = desc
        values = [_compile.thaw(s) for s in statics]

        def op(params: Sequence[Any], dyn: Sequence[Any]) -> Any:
            it_dyn, it_static = iter(dyn), iter(values)
            leaves = [next(it_dyn) if d else next(it_static) for d in is_dyn]
            args, kwargs = jax.tree_util.tree_unflatten(treedef, leaves)
            return fn(*args, **kwargs)

        return op
    _, ref, training, _treedef, names, device, _structure = desc
    forward = _compile.block_function(ref(), training, True, device)

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


_ABSTRACT: OrderedDict = OrderedDict()
_compile.on_clear(_ABSTRACT.clear)


def abstract_eval(desc: Any, dyn: Sequence[Any], params: Sequence[Any]) -> tuple[list, Any]:
    """(output avals, output tree) of a node on inputs ``dyn`` and parameter values ``params``, by
    abstract evaluation (cached by description and input shapes)."""
    keyed = dyn[2:] if desc[0] == "block" else dyn  # a block's first two are the key parts: always alike
    key = (desc, tuple(map(_signature, keyed)), tuple(map(_signature, params)))
    hit = _ABSTRACT.get(key)
    if hit is None:
        out = jax.eval_shape(node_function(desc), [aval_of(p) for p in params], [aval_of(x) for x in dyn])
        hit = _ABSTRACT[key] = jax.tree_util.tree_flatten(out)
        if len(_ABSTRACT) > 4096:
            _ABSTRACT.popitem(last=False)
    return hit


def device_of(x: Any) -> jax.Device | None:
    devs = x.devices()
    return next(iter(devs)) if len(devs) == 1 else None


# ----------------------------------------------------------------------------------------- plans
class Plan:
    """The graph reaching ``heads``: ``key`` describes it; ``pvals``/``consts`` are the arrays it reads
    (``params`` names the differentiable (Parameter, device) leaves, in ``pvals`` order)."""

    def __init__(self, heads: Sequence[Value], *, cut_known: bool = False) -> None:
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
                known = cut_known and isinstance(x, Value) and x._value is not None
                if isinstance(x, Value) and id(x._node) not in index and not known:
                    stack.append((x._node, False))
        self.nodes = order
        self.params: list[tuple[Any, jax.Device | None]] = []
        self.pvals: list[jax.Array] = []
        self.consts: list[Any] = []
        self.counts: list[Any] = []  # uint32 host scalars (key counts): sent as ONE array
        self._cindex: dict[int, int] = {}
        self.param_index: dict[tuple[int, Any], int] = {}  # (id(Parameter), device) -> pvals index
        self.defers = True  # every leaf lets its backward wait (Parameters do; Variables do not)
        structure = []
        for node in order:
            if node.kind == "param":
                structure.append(self._param_ref(node.param, node.device, node.value))
                continue
            refs = []
            for x in node.inputs:
                if isinstance(x, Value) and id(x._node) in index:
                    refs.append(("n", index[id(x._node)], x._index))
                else:  # a constant, or a known value where the graph is cut
                    refs.append(self._const(x._value if isinstance(x, Value) else x))
            prefs = self._block_refs(node.params, node.device, node.pvalues)
            structure.append((node.desc, tuple(refs), prefs, len(node.out_avals)))
        self.heads = tuple((index[id(h._node)], h._index) for h in heads)
        self.key = (tuple(structure), self.heads)

    def _const(self, x: Any) -> tuple[str, int]:
        if type(x) is onp.uint32:
            self.counts.append(x)
            return ("k", len(self.counts) - 1)
        i = self._cindex.get(id(x))  # the same array read by several nodes is sent once
        if i is None:
            i = self._cindex[id(x)] = len(self.consts)
            self.consts.append(x)
        return ("c", i)

    def arrays(self) -> tuple[list, list]:
        """(pvals, consts) to call the plan's program with (consts end with the packed counts)."""
        return self.pvals, [*self.consts, onp.asarray(self.counts, onp.uint32)]

    def _param_ref(self, param: Any, device: Any, value: Any) -> tuple[str, int]:
        if param.grad_req == "null":
            return self._const(value)
        k = (id(param), device)
        i = self.param_index.get(k)
        if i is None:
            i = self.param_index[k] = len(self.params)
            self.params.append((param, device))
            self.pvals.append(value)
            self.defers = self.defers and getattr(param, "_defers_backward", False)
        return ("p", i)

    def _block_refs(self, params: Sequence[Any], device: Any, values: Sequence[Any]) -> tuple:
        """:meth:`_param_ref` of a Block node's Parameters: in bulk for the plan's first Block (every
        step; Parameters defer their backward), one by one otherwise."""
        index = self.param_index
        if not index and "null" not in map(_GRAD_REQ, params):  # the plan's first Block: all new
            n = len(params)
            self.params.extend(zip(params, itertools.repeat(device, n), strict=True))
            self.pvals.extend(values)
            keys = zip(map(id, params), itertools.repeat(device, n), strict=True)
            index.update(zip(keys, range(n), strict=True))
            return _first_refs(n)
        return tuple(self._param_ref(p, device, v) for p, v in zip(params, values, strict=True))


_GRAD_REQ = operator.attrgetter("_grad_req")


@functools.lru_cache(maxsize=64)
def _first_refs(n: int) -> tuple:
    return tuple(("p", i) for i in range(n))


def replay(structure: tuple) -> Callable[[Sequence[Any], Sequence[Any]], tuple[list, list]]:
    """The pure replay of a plan's structure: (pvals, consts) -> (each node's outputs, states); the
    last const is the vector of key counts (:meth:`Plan.arrays`)."""
    fns = [None if entry[0] in ("p", "c", "k") else node_function(entry[0]) for entry in structure]

    def run(pvals: Sequence[Any], consts: Sequence[Any]) -> tuple[list, list]:
        outs: list[list[Any]] = []
        states: list[Any] = []
        counts = consts[-1]
        read = {"p": pvals, "c": consts, "k": counts}
        for fn, entry in zip(fns, structure, strict=True):
            if fn is None:
                outs.append([read[entry[0]][entry[1]]])
                states.append(None)
                continue
            _, refs, prefs, _ = entry
            dyn = [outs[r[1]][r[2]] if r[0] == "n" else read[r[0]][r[1]] for r in refs]
            params = [read[r[0]][r[1]] for r in prefs]
            result = fn(params, dyn)
            state = None
            if entry[0][0] == "block":
                result, state = result
            outs.append(jax.tree_util.tree_leaves(result))
            states.append(state)
        return outs, states

    return run
