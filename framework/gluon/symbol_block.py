"""SymbolBlock: an MXNet ``-symbol.json`` graph as a HybridBlock (one pure JAX function of its
parameters, compiled like any other block, trainable).

``SymbolBlock.imports('net-symbol.json', ['data'], 'net-0000.params')`` loads what MXNet's
``HybridBlock.export`` wrote (1.x and 2.0 files). Parameters are named as the graph's variables
(``conv0_weight``); auxiliary states (BatchNorm running statistics) have ``grad_req='null'`` and are
updated in training mode as MXNet's BatchNorm does.

>>> import json, os, tempfile
>>> import numpy as onp
>>> from framework import gluon, np, npx
>>> d = tempfile.mkdtemp()
>>> graph = {"nodes": [{"op": "null", "name": "data", "inputs": []},
...                    {"op": "null", "name": "fc_weight", "inputs": []},
...                    {"op": "null", "name": "fc_bias", "inputs": []},
...                    {"op": "FullyConnected", "name": "fc", "attrs": {"num_hidden": "2"},
...                     "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]}],
...          "arg_nodes": [0, 1, 2], "heads": [[3, 0, 0]]}
>>> with open(os.path.join(d, 'net-symbol.json'), 'w') as f:
...     json.dump(graph, f)
>>> npx.savez(os.path.join(d, 'net-0000.params'), **{'arg:fc_weight': onp.ones((2, 3), 'float32'),
...                                                   'arg:fc_bias': onp.zeros(2, 'float32')})
>>> net = gluon.SymbolBlock.imports(os.path.join(d, 'net-symbol.json'), ['data'],
...                                 os.path.join(d, 'net-0000.params'))
>>> net(np.ones((1, 3))).tolist()
[[3.0, 3.0]]
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as onp

from .. import serialization
from ..autograd import tape as _tape
from ..symbol import Group, Symbol, load
from ..symbol._attrs import parse_tuple
from ..symbol._graph import Graph
from ..symbol._interp import Program
from .block import HybridBlock, _bump
from .parameter import Parameter
from .symbolic_call import variable_shapes

__all__ = ["SymbolBlock"]

_STOCHASTIC = {"Dropout", "_npx_dropout", "LeakyReLU", "_npx_leaky_relu", "RNN", "_npx_rnn"}


def _names(inputs: Any) -> list[str]:
    if isinstance(inputs, (str, Symbol)):
        inputs = [inputs]
    out = []
    for s in inputs:
        if isinstance(s, Symbol):
            out.extend(s.list_inputs())
        elif isinstance(s, str):
            out.append(s)
        else:
            raise TypeError(f"SymbolBlock: inputs must be Symbols (symbol.var('data')) or names, got {s!r}")
    return out


def _graph_of(outputs: Any) -> Graph:
    if isinstance(outputs, Symbol):
        return outputs.graph
    if isinstance(outputs, (list, tuple)) and outputs and all(isinstance(o, Symbol) for o in outputs):
        return Group(list(outputs)).graph  # outputs of one graph, or of graphs built on one another
    raise TypeError(f"SymbolBlock: outputs must be a Symbol (symbol.load(...)), got {type(outputs).__name__}")


def _declared_shape(attrs: dict[str, str]) -> tuple[int, ...] | None:
    text = attrs.get("__shape__")
    if not text:
        return None
    try:
        shape = parse_tuple(text, lambda: ValueError(text))
    except ValueError:
        return None
    if any(s is None or s < 0 for s in shape):
        return tuple(0 if s is None or s < 0 else s for s in shape)
    return shape


class SymbolBlock(HybridBlock):
    """A HybridBlock whose forward interprets an MXNet graph (see the module docstring)."""

    _compiled_leaf = True

    def __init__(self, outputs: Any, inputs: Any, params: Any = None) -> None:
        super().__init__()
        graph = _graph_of(outputs)
        source = outputs.source if isinstance(outputs, Symbol) else "SymbolBlock"
        program = Program(graph, _names(inputs), source=source)
        object.__setattr__(self, "_program", program)
        object.__setattr__(self, "_stochastic", any(
            graph.nodes[n].op in _STOCHASTIC for n in program.order))
        given = dict(params.items()) if params is not None else {}
        for p in list(given.values()):  # a Block's collect_params(): also by the 1.x names its vars carry
            if isinstance(p, Parameter):
                given.setdefault(p._var_name, p)
        aux = set(program.aux_names)
        # MXNet keeps each Parameter under its variable's name less the prefix all of them share (what
        # save_parameters writes: a FeatureExtractor made in 'ssd0_''s scope holds 'mobilenet0_conv0_weight')
        cut = len(os.path.commonprefix(list(program.param_names)))
        if any(len(n) == cut for n in program.param_names):
            cut = 0  # keep a whole name rather than an empty key (MXNet would keep '')
        object.__setattr__(self, "_by_var", {})  # the graph's variable name -> its Parameter
        for name in program.param_names:
            p = given.get(name)
            if p is None:
                p = given.get(("aux:" if name in aux else "arg:") + name)
            if p is None:
                node = graph.nodes[program.var_node[name]]
                dtype = {"0": "float32", "1": "float64", "2": "float16"}.get(node.attrs.get("__dtype__", "0"),
                                                                           "float32")
                p = Parameter(name, grad_req="null" if name in aux else "write",
                              shape=_declared_shape(node.attrs), dtype=dtype, allow_deferred_init=True)
            elif not isinstance(p, Parameter):
                raise TypeError(f"SymbolBlock: params[{name!r}] must be a Parameter, got {type(p).__name__}")
            self._reg_params[name[cut:]] = p
            self._by_var[name] = p
            p._structural_name = p._structural_name or name[cut:]
        _bump()

    @staticmethod
    def imports(symbol_file: str | os.PathLike, input_names: str | Sequence[str],
                param_file: str | os.PathLike | None = None, ctx: Any = None, allow_missing: bool = False,
                ignore_extra: bool = False, *, device: Any = None) -> SymbolBlock:
        """Load ``symbol_file`` (and the parameters of ``param_file``, ``arg:``/``aux:`` names)."""
        block = SymbolBlock(load(symbol_file), _names(input_names))
        if param_file is not None:
            block._load(os.fspath(param_file), device if device is not None else ctx, allow_missing,
                        ignore_extra)
        return block

    def _load(self, filename: str, ctx: Any, allow_missing: bool, ignore_extra: bool) -> None:
        loaded = serialization.load_numpy(filename)
        if isinstance(loaded, list) and not loaded:
            loaded = {}  # a network without parameters: export writes an empty file
        if isinstance(loaded, list):
            raise ValueError(f"{filename}: holds an unnamed list of arrays, not named parameters")
        values = {}
        for key, v in loaded.items():
            name = key.split(":", 1)[1] if key.startswith(("arg:", "aux:")) else key
            values[name] = v
        params = self._by_var
        missing = [n for n in params if n not in values]
        if missing and not allow_missing:
            raise ValueError(f"SymbolBlock.imports: parameter(s) {missing} of the graph are missing in "
                             f"'{filename}' (it holds {sorted(values)[:20]}). Set allow_missing=True to "
                             "initialize them instead.")
        extra = [n for n in values if n not in params]
        if extra and not ignore_extra:
            raise ValueError(f"SymbolBlock.imports: '{filename}' holds {extra} which the graph does not use "
                             f"(its parameters: {sorted(params)[:20]}). Set ignore_extra=True to skip them.")
        for name, p in params.items():
            if name in values:
                v = onp.asarray(values[name])
                p.dtype = v.dtype
                try:
                    p._load_init(v, ctx)
                except ValueError as err:  # name the file and the graph's node, not only the Parameter
                    raise ValueError(f"SymbolBlock.imports: '{filename}': parameter {name!r} (a variable "
                                     f"node of the graph) does not fit the graph: {err}") from None

    def forward(self, *args: Any) -> Any:
        program = self._program
        training = _tape.is_training()
        values = {name: p.data() for name, p in self._by_var.items()}
        key = self.prng_key() if training and self._stochastic else None
        outs, updates = program(values, args, training=training, key=key)
        for name, v in updates.items():
            self._by_var[name].set_data(v)
        return outs[0] if len(outs) == 1 else list(outs)

    def infer_shape(self, *args: Any) -> None:
        """The shapes of Parameters not known yet, inferred through the graph from the inputs' (as
        MXNet's deferred initialisation of a SymbolBlock does)."""
        program = self._program
        given = {n: tuple(a.shape) for n, a in zip(program.input_names, args, strict=False)}
        try:
            found = variable_shapes(Symbol(program.graph), given)
        except ValueError:
            found = {}
        for name, p in self._by_var.items():
            if not p._known and name in found:
                p.shape = found[name]
        unknown = [n for n, p in self._reg_params.items() if not p._known]
        if not unknown:
            return
        raise RuntimeError(
            f"SymbolBlock: parameters {unknown} have no known shape; load them from a .params file "
            "(SymbolBlock.imports(..., param_file)) or pass initialised Parameters in params=")

    def __repr__(self) -> str:
        heads = ", ".join(self._program.graph.nodes[n].name for n, _ in self._program.graph.heads)
        return f"SymbolBlock(inputs={self._program.input_names}, outputs=[{heads}])"
