"""gluon.contrib.cnn against MXNet 1.9.1 (tests/reference/contrib/cnn.npz, made by
tools/mxnet_reference/gen_contrib.py): deformable convolutions v1 (outputs and gradients) and v2
(outputs; MXNet has no CPU backward: gradients against jax.grad), and the
operators' boundary rules on hand-made offsets."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import autograd
from framework.gluon.contrib import cnn
from framework.gluon.contrib.cnn.deformable import deformable_convolution, modulated_deformable_convolution
from tests.conftest import REFERENCE

with onp.load(REFERENCE / "contrib" / "cnn.npz") as _f:
    REF = {k: _f[k] for k in _f.files}
TOL = dict(rtol=1e-4, atol=1e-5)
CASES = {  # the generator's CNN_CASES
    "dcn": "cnn.DeformableConvolution(4, kernel_size=3, padding=1)",
    "dcn_groups": "cnn.DeformableConvolution(4, kernel_size=(3, 2), strides=2, padding=(1, 0), "
                  "dilation=(2, 1), groups=2, num_deformable_group=3, activation='relu')",
    "mdcn": "cnn.ModulatedDeformableConvolution(4, kernel_size=3, padding=1)",
    "mdcn_groups": "cnn.ModulatedDeformableConvolution(2, kernel_size=3, strides=2, num_deformable_group=2, "
                   "use_bias=False)",
}


def _layer(case, hybridize=False):
    layer = eval(CASES[case], {"cnn": cnn})  # noqa: S307 (the table above)
    layer.initialize()
    x = jnp.asarray(REF[f"{case}:x"])
    layer(x)  # deferred shapes
    for name, p in layer.collect_params().items():
        p.set_data(REF[f"{case}:param:{name}"])
    if hybridize:
        layer.hybridize()
    return layer, x


@pytest.mark.parametrize("case", sorted(CASES))
def test_layers_match_mxnet(case):
    layer, x = _layer(case, hybridize=case.endswith("groups"))
    prefix = REF[f"{case}:names"][0].split("_deformable_conv_")[0].split("_offset_")[0] + "_"
    assert sorted(prefix + n for n in layer.collect_params()) == REF[f"{case}:names"].tolist()
    if case.startswith("dcn"):
        assert repr(layer) == str(REF[f"{case}:repr"])
    if f"{case}:w" not in REF:  # v2: forward only in MXNet on the CPU
        onp.testing.assert_allclose(layer(x), REF[f"{case}:y"], **TOL)
        return
    xv = autograd.attach_grad(x)
    with autograd.record():
        y = layer(xv)
        loss = (y * jnp.asarray(REF[f"{case}:w"])).sum()
    loss.backward()
    onp.testing.assert_allclose(y, REF[f"{case}:y"], **TOL)
    onp.testing.assert_allclose(xv.grad, REF[f"{case}:gx"], rtol=1e-3, atol=1e-4)
    for name, p in layer.collect_params().items():
        onp.testing.assert_allclose(p.grad(), REF[f"{case}:grad:{name}"], rtol=1e-3, atol=1e-3, err_msg=name)


def test_modulated_gradients_are_jax_grad():
    layer, x = _layer("mdcn")
    w = jax.random.normal(jax.random.key(3), (2, 4, 6, 6))
    params = layer.collect_params().values_on()
    with autograd.record():
        loss = (layer(x) * w).sum()
    loss.backward()
    want = jax.jit(jax.grad(lambda ps: (layer.functional_call(ps, x) * w).sum()))(params)
    for name, p in layer.collect_params().items():
        onp.testing.assert_allclose(p.grad(), want[name], **TOL, err_msg=name)


def test_operators_follow_mxnet_boundary_rules():
    args = dict(kernel=(3, 3), pad=(1, 1), num_filter=3, no_bias=True)
    x, offset, weight = (jnp.asarray(REF[f"op:{k}"]) for k in ("x", "offset", "weight"))
    v1 = jax.jit(lambda *a: deformable_convolution(*a, **args))(x, offset, weight)
    mask = jnp.asarray(REF["op:mask"])
    v2 = jax.jit(lambda *a: modulated_deformable_convolution(*a, **args))(x, offset, mask, weight)
    onp.testing.assert_allclose(v1, REF["op:v1"], **TOL)
    onp.testing.assert_allclose(v2, REF["op:v2"], **TOL)


def test_errors():
    with pytest.raises(ValueError, match="layout='NHWC': MXNet 1.9.1's deformable convolution computes NCHW"):
        cnn.DeformableConvolution(2, kernel_size=3, layout="NHWC")
    with pytest.raises(ValueError, match="offset has shape \\(1, 4, 3, 3\\), expected \\(1, 18, 3, 3\\)"):
        deformable_convolution(jnp.ones((1, 2, 5, 5)), jnp.zeros((1, 4, 3, 3)), jnp.ones((1, 2, 3, 3)),
                               kernel=(3, 3))
