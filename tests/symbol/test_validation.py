"""Imported graphs are validated before anything runs: arity and attribute domains per operator (the
table beside the registry), an abstract run with a size budget; errors name the file, node, attribute."""

from __future__ import annotations

import json

import jax.numpy as jnp
import numpy as onp
import pytest

from framework import gluon, symbol
from framework.symbol import AttrError, SymbolFileError
from framework.symbol._ops import OPS
from framework.symbol._schema import ARITY


def _write(tmp_path, nodes, heads, name="g"):
    path = tmp_path / f"{name}-symbol.json"
    args = [i for i, n in enumerate(nodes) if n["op"] == "null"]
    path.write_text(json.dumps({"nodes": nodes, "arg_nodes": args, "heads": heads}))
    return str(path)


X = {"op": "null", "name": "data", "inputs": []}


def test_every_operator_has_an_arity():
    assert set(ARITY) == set(OPS)


def test_missing_input_is_refused_at_import_naming_file_and_node(tmp_path):
    path = _write(tmp_path, [X, {"op": "elemwise_add", "name": "add0", "inputs": [[0, 0, 0]]}], [[1, 0, 0]])
    with pytest.raises(SymbolFileError, match=r"g-symbol\.json: node 1 \('add0', op 'elemwise_add'\) has 1 "
                                              r"input\(s\); elemwise_add takes 2"):
        gluon.SymbolBlock.imports(path, ["data"])


def test_attribute_out_of_its_domain_names_file_node_and_attribute(tmp_path):
    nodes = [X, {"op": "null", "name": "w", "inputs": []}, {"op": "null", "name": "h", "inputs": []},
             {"op": "RNN", "name": "rnn0",
              "attrs": {"mode": "(3, 3, 3)", "state_size": "4", "num_layers": "1"},
              "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]}]
    path = _write(tmp_path, nodes, [[3, 0, 0]])
    with pytest.raises(AttrError, match=r"g-symbol\.json: node 3 \('rnn0', op 'RNN'\): attribute "
                                        r"mode='\(3, 3, 3\)' is not one of \['rnn_relu'"):
        gluon.SymbolBlock.imports(path, ["data"])


@pytest.mark.parametrize("attrs", [{"num_hidden": "0"}, {"num_hidden": "4", "flatten": "maybe"},
                                   {"num_hidden": "nan"}])
def test_bad_fully_connected_attributes(tmp_path, attrs):
    nodes = [X, {"op": "null", "name": "w", "inputs": []},
             {"op": "FullyConnected", "name": "fc", "attrs": {"no_bias": "True", **attrs},
              "inputs": [[0, 0, 0], [1, 0, 0]]}]
    with pytest.raises(AttrError, match=r"node 2 \('fc', op 'FullyConnected'\): attribute"):
        gluon.SymbolBlock.imports(_write(tmp_path, nodes, [[2, 0, 0]]), ["data"])


def test_a_graph_asking_for_gigabytes_is_refused_before_it_runs(tmp_path):
    nodes = [X, {"op": "repeat", "name": "big", "attrs": {"repeats": str(10**9), "axis": "0"},
                 "inputs": [[0, 0, 0]]}]
    path = _write(tmp_path, nodes, [[1, 0, 0]])
    net = gluon.SymbolBlock.imports(path, ["data"])  # 649 bytes of JSON; shapes are known at the first call
    with pytest.raises(SymbolFileError, match=r"node 1 \('big', op 'repeat'\) makes 64000000000 bytes .*"
                                              r"max_bytes=67108864"):
        net(jnp.ones((1, 16)))
    small = [X, {"op": "repeat", "name": "r", "attrs": {"repeats": "3", "axis": "0"}, "inputs": [[0, 0, 0]]}]
    net = gluon.SymbolBlock.imports(_write(tmp_path, small, [[1, 0, 0]], "s"), ["data"])
    assert net(jnp.ones((1, 16))).shape == (3, 16)


def test_the_budget_is_overridable(tmp_path):
    nodes = [X, {"op": "repeat", "name": "r", "attrs": {"repeats": "1000", "axis": "0"},
                 "inputs": [[0, 0, 0]]}]
    path = _write(tmp_path, nodes, [[1, 0, 0]])
    old = symbol.set_max_bytes(1000)
    try:
        with pytest.raises(SymbolFileError, match="max_bytes=1000"):
            gluon.SymbolBlock.imports(path, ["data"])(jnp.ones((1, 4)))
    finally:
        symbol.set_max_bytes(old)
    prog = symbol.Program(symbol.load(path).graph, ["data"], max_bytes=16_000)
    outs, _ = prog({}, [jnp.ones((1, 4))])
    assert outs[0].shape == (1000, 4)


def test_an_operator_error_for_these_shapes_names_the_file_and_node(tmp_path):
    nodes = [X, {"op": "null", "name": "w", "inputs": []},
             {"op": "dot", "name": "mm", "inputs": [[0, 0, 0], [1, 0, 0]]}]
    path = _write(tmp_path, nodes, [[2, 0, 0]])
    prog = symbol.Program(symbol.load(path).graph, ["data"], source=path)
    with pytest.raises(SymbolFileError, match=r"g-symbol\.json: node 2 \('mm', op 'dot'\) cannot run on"):
        prog({"w": jnp.ones((5, 2))}, [jnp.ones((3, 4))])


def test_a_parameter_of_another_shape_names_the_file_and_the_node(tmp_path):
    from framework import serialization

    nodes = [X, {"op": "null", "name": "w", "attrs": {"__shape__": "(4, 3)"}, "inputs": []},
             {"op": "FullyConnected", "name": "fc", "attrs": {"num_hidden": "4", "no_bias": "True"},
              "inputs": [[0, 0, 0], [1, 0, 0]]}]
    path = _write(tmp_path, nodes, [[2, 0, 0]])
    params = str(tmp_path / "g-0000.params")
    serialization.save(params, {"arg:w": onp.ones((16,), onp.float32)})
    with pytest.raises(ValueError, match=r"g-0000\.params': parameter 'w' \(a variable node of the graph\)"):
        gluon.SymbolBlock.imports(path, ["data"], params)
