"""Graphs built with ``mx.sym`` (an MLP, a LeNet with BatchNorm, a fused-RNN LSTM, an unrolled LSTM, and a
group of arithmetic, comparisons and every loss head) against MXNet 1.9.1: the same code
(tests/symbol/symbolic_nets.py) gives MXNet's ``tojson()`` text byte for byte, and executors bound to the
same arrays give MXNet's inference and training outputs, gradients (``backward`` with head gradients)
and updated BatchNorm statistics (tests/reference/symbolic, tools/mxnet_reference/gen_symbolic.py)."""

from __future__ import annotations

from pathlib import Path

import jax.numpy as jnp
import numpy as onp
import pytest
from symbol_helpers import seeded_params
from symbolic_nets import NETS

import framework as mx

REF = Path(__file__).resolve().parents[1] / "reference" / "symbolic"


def _build(name):
    with mx.name.NameManager():
        return NETS[name](mx)


@pytest.mark.parametrize("name", list(NETS))
def test_graph_json_is_mxnets(name):
    sym, _, _ = _build(name)
    assert sym.tojson() == (REF / f"{name}-symbol.json").read_text()
    loaded = mx.sym.load(REF / f"{name}-symbol.json")
    assert loaded.tojson() == sym.tojson()  # and what MXNet wrote loads back to the same text
    assert loaded.list_arguments() == sym.list_arguments()
    assert loaded.list_outputs() == sym.list_outputs()


@pytest.mark.parametrize("name", list(NETS))
def test_executor_outputs_and_gradients_are_mxnets(name):
    seed = list(NETS).index(name)
    sym, shapes, labels = _build(name)
    ref = onp.load(REF / f"{name}.npz")
    arg_names = sym.list_arguments()
    arg_shapes, out_shapes, aux_shapes = sym.infer_shape(**shapes)
    all_shapes = dict(zip(arg_names, arg_shapes, strict=True))
    given = {k[3:]: ref[k] for k in ref.files if k.startswith("in:")}
    params = seeded_params([(n, all_shapes[n]) for n in sorted(set(arg_names) - set(given))], seed)
    exe = sym.simple_bind(mx.cpu(), grad_req="write", **all_shapes)
    for k, v in {**given, **params}.items():
        exe.arg_dict[k] = jnp.asarray(v)
    for k in sym.list_auxiliary_states():
        exe.aux_dict[k] = jnp.asarray(ref[f"aux:{k}"])
    tol = {"rtol": 2e-4, "atol": 2e-5}
    for i, o in enumerate(exe.forward(is_train=False)):
        onp.testing.assert_allclose(onp.asarray(o), ref[f"out_infer{i}"], **tol)
    exe.forward(is_train=True)
    exe.backward([jnp.asarray(ref[f"out_grad{i}"]) for i in range(len(out_shapes))])
    for i, o in enumerate(exe.outputs):
        onp.testing.assert_allclose(onp.asarray(o), ref[f"out_train{i}"], **tol)
    for k in arg_names:
        onp.testing.assert_allclose(onp.asarray(exe.grad_dict[k]), ref[f"grad:{k}"], err_msg=k, **tol)
    for k in sym.list_auxiliary_states():
        onp.testing.assert_allclose(onp.asarray(exe.aux_dict[k]), ref[f"aux_after:{k}"], err_msg=k, **tol)
