"""MXNet ``-symbol.json`` graphs (what ``export`` writes), read as ``SymbolBlock.imports`` reads them.

Valid files are the graphs MXNet 1.9.1 exported under ``tests/reference/symbol`` (LeNet with
BatchNorm, an RNN/operator mix, an ``_npi`` mix), re-serialised with random spacing and key order. A
structured mutation changes one thing in the JSON: a node's op, name, inputs (out of range, negative,
wrong shape) or one attribute's value, the heads or the arg_nodes. The loader is ``symbol.load``
followed by building the interpreter's program (operator and attribute checks, no compilation); the
documented errors are ``SymbolFileError`` (and its ``UnknownOperatorError``) and ``AttrError``.

>>> import random
>>> TARGET.generate(random.Random(0)).data[:1]
b'{'
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

from framework import symbol
from framework.symbol import AttrError, Program, SymbolFileError

from .engine import INTERESTING, Target, Valid

__all__ = ["TARGET"]

_REF = Path(__file__).resolve().parents[2] / "reference" / "symbol"
TEMPLATES = [json.loads((_REF / f"{name}-symbol.json").read_text()) for name in ("lenet_bn", "mix", "npmix")]
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


def _load(path: str) -> Any:
    sym = symbol.load(path)
    names = sym.list_arguments()
    program = Program(sym.graph, [n for n in names if n == "data"], source=path)
    return sym, names, program


def _check(result: Any, expected: Any) -> None:
    sym, names, program = result
    assert isinstance(names, list) and all(isinstance(n, str) for n in names)
    if expected is not None:  # an unchanged graph: every variable is an argument or an auxiliary state
        template = TEMPLATES[expected]
        variables = {n["name"] for n in template["nodes"] if n["op"] == "null"}
        assert set(names) <= variables and names


def _located(err: BaseException, path: str) -> bool:
    return path in str(err) or isinstance(err, AttrError)  # AttrError names the node and the attribute


TARGET = Target("symbol", "-symbol.json", _generate, _load, (SymbolFileError, AttrError), _check,
                structured=_structured, located=_located)
