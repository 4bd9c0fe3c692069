"""``HybridBlock.export``: the Block's traced program (``jax.make_jaxpr`` of ``functional_call`` in
inference mode) translated primitive by primitive into MXNet operators, written as
``path-symbol.json`` + ``path-%04d.params`` that MXNet 1.9.1's ``SymbolBlock.imports`` loads.

Nothing here knows a layer: convolutions, matrix products, poolings, element-wise arithmetic, reductions
and reshapes of the jaxpr become ``Convolution``, ``FullyConnected``/``dot``, ``Pooling``,
``broadcast_*``/scalar operators, ``sum``/``max``, ``Reshape``... (a BatchNorm in inference is the
arithmetic it traces to). Parameters keep the export names (structural names with '.' -> '_',
``arg:``/``aux:``); array constants of the program become variables ``_const<i>`` in the params file.

>>> import os, tempfile
>>> from framework import gluon, np
>>> net = gluon.nn.Dense(3, in_units=4); net.initialize(); net.hybridize()
>>> y = net(np.ones((2, 4)))
>>> sym, params = net.export(os.path.join(tempfile.mkdtemp(), 'dense'))
>>> back = gluon.SymbolBlock.imports(sym, ['data'], params)
>>> bool(np.allclose(back(np.ones((2, 4))), y))
True
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from typing import Any

import jax
import numpy as onp
from jax.extend import core as jcore

from .. import config
from ._graph import Graph, Node
from ._lower import LOWER, Emitter, ExportError, Value

__all__ = ["export_block", "trace_to_graph", "ExportError"]


@contextlib.contextmanager
def _portable_kernels():
    """Trace XLA's own convolution/pooling, not the CPU-specific fast kernels (their primitives are
    GEMM bands with no MXNet counterpart)."""
    with config.override(fast_cpu=False):
        yield


def _inline(em: Emitter, jaxpr: jcore.Jaxpr, consts: list[Any], args: list[Any], where: str) -> list[Any]:
    env: dict[Any, Any] = {}

    def read(atom):
        if isinstance(atom, jcore.Literal):
            return onp.asarray(atom.val)
        return env[atom]

    for v, c in zip(jaxpr.constvars, consts, strict=True):
        env[v] = c
    for v, a in zip(jaxpr.invars, args, strict=True):
        env[v] = a
    live = _live(jaxpr)
    for k, eqn in enumerate(jaxpr.eqns):
        if k not in live:
            continue
        name = eqn.primitive.name
        ins = [read(a) for a in eqn.invars]
        sub = _subjaxpr(eqn)
        if not any(isinstance(x, Value) for x in ins):  # constant folding: computed here, once
            outs = eqn.primitive.bind(*ins, **eqn.params) if sub is None else None
            if outs is not None:
                outs = [onp.asarray(o) for o in (outs if eqn.primitive.multiple_results else [outs])]
        else:
            outs = None
        if outs is None and sub is not None:
            inner = getattr(sub, "jaxpr", sub)
            inner_consts = [onp.asarray(c) for c in getattr(sub, "consts", [])]
            outs = _inline(em, inner, inner_consts, ins, where)
        elif outs is None:
            fn = LOWER.get(name)
            if fn is None:
                raise ExportError(
                    f"export of {where}: the traced program uses the JAX primitive '{name}', which has no "
                    f"MXNet operator here (translated primitives: {', '.join(sorted(LOWER))}).")
            outs = fn(em, eqn, ins)
            if not eqn.primitive.multiple_results:
                outs = [outs]
        for v, o in zip(eqn.outvars, outs, strict=True):
            env[v] = o
    return [read(a) for a in jaxpr.outvars]


def _subjaxpr(eqn):
    for key in ("jaxpr", "call_jaxpr", "fun_jaxpr"):
        sub = eqn.params.get(key)
        if sub is not None and eqn.primitive.name in ("pjit", "jit", "closed_call", "core_call",
                                                       "custom_jvp_call", "custom_vjp_call",
                                                       "custom_vjp_call_jaxpr", "remat", "checkpoint"):
            return sub
    return None


def _live(jaxpr: jcore.Jaxpr) -> set[int]:
    needed = {v for v in jaxpr.outvars if not isinstance(v, jcore.Literal)}
    live = set()
    for k in range(len(jaxpr.eqns) - 1, -1, -1):
        eqn = jaxpr.eqns[k]
        if any(v in needed for v in eqn.outvars):
            live.add(k)
            needed.update(v for v in eqn.invars if not isinstance(v, jcore.Literal))
    return live


def trace_to_graph(fn, params: dict[str, Any], inputs: Sequence[Any], input_names: Sequence[str],
                   where: str = "the block") -> tuple[Graph, dict[str, onp.ndarray]]:
    """Trace ``fn(params, *inputs)`` and translate it; returns the graph and the constants' values."""
    closed = jax.make_jaxpr(fn)(params, *inputs)
    em = Emitter()
    flat_names = [k for k, _ in sorted(params.items())]
    leaves, _ = jax.tree_util.tree_flatten(params)
    if len(leaves) != len(flat_names):
        raise ExportError(f"export of {where}: parameters must be a flat dict of arrays")
    args: list[Any] = []
    for name, leaf in zip(flat_names, leaves, strict=True):
        args.append(Value(em.variable(name), tuple(leaf.shape)))
    for name, x in zip(input_names, inputs, strict=True):
        args.append(Value(em.variable(name), tuple(x.shape)))
    consts = [onp.asarray(c) for c in closed.consts]
    outs = _inline(em, closed.jaxpr, consts, args, where)
    heads = [em.full(o, tuple(a.aval.shape)) for o, a in zip(outs, closed.jaxpr.outvars, strict=True)]
    return em.graph(heads), dict(em.constants)


def _input_specs(block: Any, inputs: Any) -> list[Any]:
    if inputs is None:
        spec = block.__dict__.get("_traced_inputs")
        if spec is None:
            raise RuntimeError(
                f"{type(block).__name__}.export: the input shapes are unknown. Call hybridize() and run a "
                "forward pass first (as MXNet requires), or pass inputs=(an example batch, ...).")
        return list(spec)
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    return [jax.ShapeDtypeStruct(tuple(x.shape), x.dtype) for x in inputs]


def export_block(block: Any, path: str | os.PathLike, epoch: int = 0, remove_amp_cast: bool = True, *,
                 inputs: Any = None) -> tuple[str, str]:
    """Write ``path-symbol.json`` and ``path-%04d.params``; returns both file names."""
    from .. import serialization

    path = os.fspath(path)
    specs = _input_specs(block, inputs)
    params = block.collect_params()
    values = {name.replace(".", "_"): p.data() for name, p in params.items()}
    kinds = {name.replace(".", "_"): "aux" if p.grad_req == "null" else "arg" for name, p in params.items()}
    if len(values) != len(params):
        raise ExportError(f"export of {type(block).__name__}: two parameter names collide once '.' "
                          "becomes '_'")
    by_export = {name.replace(".", "_"): name for name in params}
    input_names = ["data"] if len(specs) == 1 else [f"data{i}" for i in range(len(specs))]

    def fn(vals, *xs):
        return block.functional_call({by_export[k]: v for k, v in vals.items()}, *xs, training=False)

    with _portable_kernels():
        graph, consts = trace_to_graph(fn, values, specs, input_names, where=type(block).__name__)
    used = {n.name for n in graph.nodes if n.op == "null"}
    arrays = {f"{kinds[k]}:{k}": onp.asarray(v) for k, v in values.items() if k in used}
    arrays.update({f"arg:{k}": v for k, v in consts.items() if k in used})
    sym_file = f"{path}-symbol.json"
    params_file = f"{path}-{epoch:04d}.params"
    with open(sym_file, "w") as f:
        f.write(graph.to_json())
    serialization.save(params_file, arrays, format="nd")  # V2: what 1.x export writes, loads in both modes
    return sym_file, params_file


_ = Node  # re-exported type for callers building graphs by hand
