"""MXNet ``-symbol.json`` graphs (what ``export`` writes), read as ``SymbolBlock.imports`` reads them.

Valid files are the graphs MXNet 1.9.1 exported under ``tests/reference/symbol`` (LeNet with
BatchNorm, an RNN/operator mix, an ``_npi`` mix), re-serialised with random spacing and key order. A
structured mutation changes one thing in the JSON: a node's op, name, inputs (out of range, negative,
wrong shape) or one attribute's value, the heads or the arg_nodes. The loader is what a user runs:
``SymbolBlock.imports`` with the template's parameter file, then one forward pass on the template's
inputs (the graph is validated at import and evaluated abstractly before it runs). The long run
(``FUZZ_SYMBOL_RUN=1``, set by ``python -m benchmarks fuzz``) runs the forward for real, op by op; the
suite's slice traces it (``jax.eval_shape``: every operator's code on abstract values). Every error must be a
``ValueError`` (``SymbolFileError``, ``AttrError``, a parameter that does not fit) naming the symbol file
or the parameter file: an operator's own error escaping the run is a failure.

>>> import random
>>> TARGET.generate(random.Random(0)).data[:1]
b'{'
"""

from __future__ import annotations

import copy
import json
import os
import random
from pathlib import Path
from typing import Any

import jax
import numpy as onp

from framework import gluon

from .engine import INTERESTING, Target, Valid

__all__ = ["TARGET"]

_REF = Path(__file__).resolve().parents[2] / "reference" / "symbol"
_NAMES = ("lenet_bn", "mix", "npmix")
TEMPLATES = [json.loads((_REF / f"{name}-symbol.json").read_text()) for name in _NAMES]
_INPUTS = {"lenet_bn": (("data", "x"),), "mix": (("data0", "x"), ("data1", "idx")),
           "npmix": (("data0", "x"), ("data1", "idx"))}
_DATA = {name: dict(onp.load(_REF / f"{name}.npz")) for name in _NAMES}
ODD_ATTRS = ["", "(", "((((((((", "(1,", "(0, 0)", "(-1, 3)", "-1", "0", "1e308", "nan", "inf", "True",
             "None", "(2147483648, 2)", "x" * 300, "[1, 2]", "(1, 1, 1, 1, 1, 1, 1, 1, 1)", "relu", "NCHW",
             "(4294967296,)", "1" * 40]


def _dump(rng: random.Random, doc: Any) -> bytes:
    indent = rng.choice([None, None, 2])
    return json.dumps(doc, indent=indent, sort_keys=rng.random() < 0.3).encode()


def _generate(rng: random.Random) -> Valid:
    k = rng.randrange(len(TEMPLATES))
    return Valid(_dump(rng, TEMPLATES[k]), k, [], f"symbol template {k}")


def _odd(rng: random.Random) -> Any:
    return rng.choice([None, -1, 2**63, 1.5, "", "x", [], [[0]], {}, [0, 0, 0, 0], rng.choice(INTERESTING)])


def _structured(rng: random.Random, valid: Valid) -> bytes:
    doc = copy.deepcopy(TEMPLATES[valid.expected])
    nodes = doc["nodes"]
    i = rng.randrange(len(nodes))
    node = nodes[i]
    what = rng.choice(["op", "name", "inputs", "entry", "attr", "attr", "attr", "heads", "arg_nodes", "drop"])
    if what == "op":
        node["op"] = rng.choice(["null", "Convolution", "FullyConnected", "Pooling", "BatchNorm", "RNN",
                                 "Reshape", "SliceChannel", "_npi_add", "NoSuchOp", "", 7])
    elif what == "name":
        node["name"] = rng.choice([nodes[rng.randrange(len(nodes))]["name"], "", None, "data", 5])
    elif what == "inputs":
        node["inputs"] = _odd(rng)
    elif what == "entry" and node.get("inputs"):
        entry = node["inputs"][rng.randrange(len(node["inputs"]))]
        entry[rng.randrange(len(entry))] = rng.choice([-1, i, i + 1, len(nodes), 2**31, 2**64, 1.5, "0", 3])
    elif what == "attr" and node.get("attrs"):
        key = rng.choice(sorted(node["attrs"]))
        node["attrs"][key] = rng.choice(ODD_ATTRS) if rng.random() < 0.9 else _odd(rng)
    elif what == "heads":
        doc["heads"] = rng.choice([[[len(nodes), 0, 0]], [[0, 5, 0]], [], [[-1, 0, 0]], _odd(rng)])
    elif what == "arg_nodes":
        doc["arg_nodes"] = rng.choice([[], [0], list(range(len(nodes))), _odd(rng)])
    else:
        del nodes[i]
    return _dump(rng, doc)


_VARS = [{n["name"] for n in t["nodes"]} for t in TEMPLATES]


def _template_of(path: str) -> int:
    """Which template a (mutated) file came from: the one sharing most node names (the loader needs its
    parameters and inputs; the import itself reads only the file)."""
    try:
        doc = json.loads(Path(path).read_bytes())
        names = {n.get("name") for n in doc["nodes"]
                 if isinstance(n, dict) and isinstance(n.get("name"), str)}
    except Exception:  # noqa: BLE001  (not JSON or not a graph: the import will say so)
        return 0
    return max(range(len(TEMPLATES)), key=lambda i: len(_VARS[i] & names))


def _load(path: str) -> Any:
    k = _template_of(path)
    name = _NAMES[k]
    inputs = list(_INPUTS[name])
    net = gluon.SymbolBlock.imports(path, [v for v, _ in inputs], str(_REF / f"{name}-0000.params"),
                                    ignore_extra=True)
    xs = [_DATA[name][key] for _, key in inputs]
    if not os.environ.get("FUZZ_SYMBOL_RUN"):  # the suite's slice: the forward traced, shapes only
        out = jax.eval_shape(lambda *a: net(*a), *xs)
        return net, out
    with jax.disable_jit():  # the long run: the operators' own code, op by op (a compile per mutated
        out = net(*xs)       # graph would cost seconds)
    return net, out


def _check(result: Any, expected: Any) -> None:
    net, out = result
    outs = out if isinstance(out, list) else [out]
    assert all(hasattr(o, "shape") for o in outs)
    if expected is not None:  # an unchanged graph gives MXNet's outputs' shapes
        data = _DATA[_NAMES[expected]]
        ys = [data[k] for k in sorted((k for k in data if k.startswith("y")), key=lambda k: int(k[1:] or 0))]
        assert [tuple(o.shape) for o in outs] == [tuple(y.shape) for y in ys]


def _located(err: BaseException, path: str) -> bool:
    return path in str(err) or "-0000.params" in str(err)  # the symbol file, or the parameters given


def _warm() -> None:
    import tempfile

    # each template once: the operators' first dispatches are slow. In a directory of this process's
    # own: workers start at the same time (a shared name was unlinked under another worker's feet)
    with tempfile.TemporaryDirectory(prefix="fuzz-warm-") as tmp:
        for k, name in enumerate(_NAMES):
            path = Path(tmp) / f"{name}-symbol.json"
            path.write_text(json.dumps(TEMPLATES[k]))
            _load(str(path))


TARGET = Target("symbol", "-symbol.json", _generate, _load, (ValueError,), _check, structured=_structured,
                located=_located, warm=_warm)
