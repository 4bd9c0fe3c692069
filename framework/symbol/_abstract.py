"""The abstract run of an imported graph: every node evaluated with ``jax.eval_shape`` (shapes and dtypes
only, nothing allocated) before the graph first runs with given shapes, so that an operator that would
fail (a wrong rank, sizes that disagree, an attribute out of range for these shapes) fails here, naming
the file and the node, and no node makes arrays above the size budget ``max_bytes``.

The budget: ``Program(..., max_bytes=N)``; else :func:`set_max_bytes` (or ``FRAMEWORK_SYMBOL_MAX_BYTES``
in the environment at import); else 64 times the bytes of the parameters and inputs, at least 64 MiB.
It bounds each node's outputs (a 649-byte graph asking ``repeat`` for 10**9 copies is refused).

>>> from framework.symbol._graph import parse_graph
>>> from framework.symbol._interp import Program
>>> import jax.numpy as jnp
>>> g = parse_graph('{"nodes": [{"op": "null", "name": "x", "inputs": []},'
...                 ' {"op": "repeat", "name": "big", "attrs": {"repeats": "1000000000"},'
...                 ' "inputs": [[0, 0]]}], "heads": [[1, 0]]}')
>>> try:
...     Program(g, ["x"], source="a-symbol.json")({}, [jnp.ones(16)])
... except Exception as e:
...     print(str(e).split(" of output")[0])
a-symbol.json: node 1 ('big', op 'repeat') makes 64000000000 bytes
"""

from __future__ import annotations

import math
from typing import Any

import jax
import numpy as onp

from .. import config
from ._attrs import AttrError
from ._graph import SymbolFileError
from ._ops import OPS, Call, LazyZeros, num_outputs

__all__ = ["check_abstract", "set_max_bytes", "get_max_bytes", "MAX_BYTES_FACTOR", "MAX_BYTES_FLOOR"]

MAX_BYTES_FACTOR = 64
MAX_BYTES_FLOOR = 64 << 20


_state: dict[str, int | None] = {"max": config.get("symbol_max_bytes")}


def set_max_bytes(n: int | None) -> int | None:
    """Set the size budget of every imported graph's node outputs (None: the default); returns the old."""
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n <= 0):
        raise ValueError(f"set_max_bytes: n must be a positive int number of bytes, or None; got {n!r}")
    old, _state["max"] = _state["max"], n
    return old


def get_max_bytes() -> int | None:
    """The process-wide budget (None: 64 x the parameters and inputs, at least 64 MiB)."""
    return _state["max"]


def _nbytes(x: Any) -> int:
    shape, dtype = getattr(x, "shape", None), getattr(x, "dtype", None)
    if shape is None or dtype is None:
        return 0
    return math.prod(shape) * onp.dtype(dtype).itemsize


def _spec(x: Any) -> Any:
    if isinstance(x, LazyZeros):
        return x
    dtype = getattr(x, "dtype", None) or onp.result_type(x)
    return jax.ShapeDtypeStruct(tuple(onp.shape(x)), jax.dtypes.canonicalize_dtype(dtype))


def _describe(outs: tuple) -> str:
    return ", ".join(f"{o.dtype} {tuple(o.shape)}" for o in outs[:4]) + (" ..." if len(outs) > 4 else "")


def check_abstract(program: Any, values: dict[int, tuple], training: bool, key: Any) -> None:
    """Evaluate ``program`` abstractly on ``values`` (node id -> outputs); raise naming the node."""
    source, nodes = program.source, program.graph.nodes
    abstract = {nid: tuple(_spec(x) for x in v) for nid, v in values.items()}
    budget = program.max_bytes or _state["max"] or max(
        MAX_BYTES_FLOOR, MAX_BYTES_FACTOR * sum(_nbytes(x) for v in abstract.values() for x in v))
    fixed_key = None if key is None else jax.random.PRNGKey(0)
    for nid in program.order:
        n = nodes[nid]
        if n.op == "null":
            continue
        where = f"{source}: node {nid} ({n.name!r}, op {n.op!r})"
        xs = [abstract[src][idx] for src, idx in n.inputs]
        for k, x in enumerate(xs):
            if isinstance(x, LazyZeros) and n.op not in ("RNN", "_npx_rnn"):
                raise SymbolFileError(f"{where} reads a zeros array of unknown shape {x.shape} at input {k}")
        slots = [k for k, x in enumerate(xs) if not isinstance(x, LazyZeros)]
        lazy: list[LazyZeros] = []

        def run(*arrays: Any, n=n, nid=nid, xs=xs, slots=slots, lazy=lazy) -> tuple:
            full = list(xs)
            for k, a in zip(slots, arrays, strict=True):
                full[k] = a
            call = Call(training, None if fixed_key is None else jax.random.fold_in(fixed_key, nid))
            out = OPS[n.op].fn(call, full, program.attrs[nid])
            if isinstance(out, LazyZeros):
                lazy.append(out)
                return ()
            return tuple(out) if isinstance(out, (tuple, list)) else (out,)

        try:
            outs = jax.eval_shape(run, *[xs[k] for k in slots])
        except AttrError as err:
            raise AttrError(f"{source}: {err}") from None
        except SymbolFileError:
            raise
        except Exception as err:  # noqa: BLE001  (the operator's own error, for these shapes)
            text = " ".join(str(err).split())[:400]
            raise SymbolFileError(f"{where} cannot run on inputs "
                                  f"{[getattr(x, 'shape', x) for x in xs]}: {type(err).__name__}: {text}. "
                                  "The graph or its parameters do not fit together.") from None
        if lazy:
            abstract[nid] = (lazy[0],)
            continue
        want = num_outputs(n.op, n.attrs)
        if len(outs) != want or not all(isinstance(o, jax.ShapeDtypeStruct) for o in outs):
            raise SymbolFileError(f"{where} makes {len(outs)} output(s), its attributes say {want}")
        size = sum(_nbytes(o) for o in outs)
        if size > budget:
            raise SymbolFileError(
                f"{where} makes {size} bytes of output ({_describe(outs)}), above the graph's size budget "
                f"max_bytes={budget}. A graph from an untrusted file may ask for any size; if you trust it, "
                "raise the budget: Program(..., max_bytes=N) or framework.symbol.set_max_bytes(N).")
        abstract[nid] = tuple(outs)
