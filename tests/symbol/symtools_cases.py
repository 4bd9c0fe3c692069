"""Cases of the symbol tools (``mx.viz``, ``mx.mon``), shared by tools/mxnet_reference/gen_symtools.py
(run with MXNet 1.9.1 as ``mx``) and the tests (``import framework as mx``): a stand-in for the
``graphviz`` package's ``Digraph`` that records what ``plot_network`` asks of it (the same recorder on
both sides, so the calls compare one to one) and a small seeded MLP for the monitor."""

from __future__ import annotations

import sys
import types
from typing import Any


class Digraph:
    """Records the constructor's arguments, every ``node`` and every ``edge`` call, in order."""

    def __init__(self, name: Any = None, format: Any = None, **kwargs: Any) -> None:  # noqa: A002
        self.calls: list[dict[str, Any]] = [{"call": "Digraph", "name": name, "format": format,
                                             **{k: str(v) for k, v in kwargs.items()}}]

    def node(self, name: str, label: Any = None, **attrs: Any) -> None:
        self.calls.append({"call": "node", "name": name, "label": label, **attrs})

    def edge(self, tail_name: str, head_name: str, label: Any = None, **attrs: Any) -> None:
        self.calls.append({"call": "edge", "tail_name": tail_name, "head_name": head_name, "label": label,
                           **attrs})


def module() -> types.ModuleType:
    """A module object named ``graphviz`` holding :class:`Digraph`."""
    mod = types.ModuleType("graphviz")
    mod.Digraph = Digraph  # type: ignore[attr-defined]
    return mod


def install() -> None:
    """Put the stand-in into ``sys.modules`` (for the generator, which runs in its own process)."""
    sys.modules["graphviz"] = module()


# ------------------------------------------------------------------------------ the monitored MLP
def small_mlp(mx):
    """A two-layer MLP with a softmax head, explicit names (fc1, relu1, fc2, softmax)."""
    data = mx.sym.var("data")
    net = mx.sym.FullyConnected(data, num_hidden=4, name="fc1")
    net = mx.sym.Activation(net, act_type="relu", name="relu1")
    net = mx.sym.FullyConnected(net, num_hidden=3, name="fc2")
    return mx.sym.SoftmaxOutput(net, name="softmax")


def small_mlp_args() -> dict[str, Any]:
    """Seeded float32 values of every argument of :func:`small_mlp` (batch 2, 5 features)."""
    import numpy as onp

    rng = onp.random.RandomState(0)
    shapes = {"data": (2, 5), "fc1_weight": (4, 5), "fc1_bias": (4,), "fc2_weight": (3, 4), "fc2_bias": (3,)}
    args = {k: rng.randn(*s).astype(onp.float32) for k, s in shapes.items()}
    args["softmax_label"] = onp.array([0, 2], onp.float32)
    return args
