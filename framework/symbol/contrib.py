"""``mxnet.symbol.contrib``: the contrib operators a symbolic graph can name. ``SyncBatchNorm`` builds
MXNet's ``_contrib_SyncBatchNorm`` node (its Parameters as variables ``<name>_gamma``, ``_beta``,
``_moving_mean``, ``_moving_var``, the last two auxiliary); the interpreter runs it as ``BatchNorm``,
which is what synchronised batch normalisation computes within one process's batch.

>>> from framework import symbol
>>> bn = SyncBatchNorm(symbol.var('data'), name='bn', key='k')
>>> bn.list_arguments(), bn.list_auxiliary_states()
(['data', 'bn_gamma', 'bn_beta'], ['bn_moving_mean', 'bn_moving_var'])
"""

from __future__ import annotations

import itertools
from typing import Any

from ._graph import Graph, Node
from ._ops import OPS
from ._registry import OpSpec
from ._schema import ARITY
from ._symbol import Symbol

__all__ = ["SyncBatchNorm"]

OPS.setdefault("_contrib_SyncBatchNorm", OpSpec(OPS["BatchNorm"].fn, OPS["BatchNorm"].outputs,
                                                OPS["BatchNorm"].aux))
ARITY.setdefault("_contrib_SyncBatchNorm", ARITY["BatchNorm"])
_names = itertools.count()


def SyncBatchNorm(data: Symbol | None = None, gamma: Symbol | None = None, beta: Symbol | None = None,  # noqa: N802
                  moving_mean: Symbol | None = None, moving_var: Symbol | None = None, eps: float = 1e-3,
                  momentum: float = 0.9, fix_gamma: bool = True, use_global_stats: bool = False,
                  output_mean_var: bool = False, ndev: int = 1, key: str | None = None,
                  name: str | None = None, attr: dict[str, str] | None = None, **kwargs: Any) -> Symbol:
    """A ``_contrib_SyncBatchNorm`` node over ``data`` (MXNet's arguments; omitted Parameters become
    variables named after the node)."""
    if not isinstance(data, Symbol):
        raise TypeError(f"SyncBatchNorm: data must be a Symbol, got {type(data).__name__}")
    given = {"gamma": gamma, "beta": beta, "moving_mean": moving_mean, "moving_var": moving_var}
    if any(v is not None for v in given.values()):
        raise ValueError("SyncBatchNorm: pass only data; gamma, beta, moving_mean and moving_var are made as "
                         "variables named '<name>_gamma' ... (MXNet's default)")
    name = name or f"syncbatchnorm{next(_names)}"
    common = {"key": key} if key is not None else {}
    common.update(attr or {})
    graph = data.graph
    nodes = list(graph.nodes)
    arg_nodes = list(graph.arg_nodes)
    inputs = [graph.heads[0]]
    inits = {"moving_mean": '["zero", {}]', "moving_var": '["one", {}]'}
    for part in given:
        attrs = dict(common)
        if part in inits:
            attrs["__init__"] = inits[part]
        arg_nodes.append(len(nodes))
        inputs.append((len(nodes), 0))
        nodes.append(Node("null", f"{name}_{part}", attrs))
    op_attrs = {"eps": eps, "momentum": momentum, "fix_gamma": fix_gamma, "ndev": ndev,
                "use_global_stats": use_global_stats, "output_mean_var": output_mean_var, **kwargs}
    attrs = {**common, **{k: str(v) for k, v in op_attrs.items()}}
    nodes.append(Node("_contrib_SyncBatchNorm", name, attrs, inputs))
    return Symbol(Graph(nodes, [(len(nodes) - 1, 0)], arg_nodes, dict(graph.attrs)))
