"""gluon.model_zoo.vision against real MXNet 1.9.1 (tests/reference/zoo, made by
tools/mxnet_reference/gen_zoo.py).

- Every model's parameter names and declared shapes equal MXNet's (names.json.gz).
- One member per family, with the seeded weights MXNet used (written to a .params file and loaded by
  name), gives MXNet's inference output in float32 and, in float64 like the reference, in one
  training-mode forward+backward of ``sum(out * R)`` with Dropout off, MXNet's output, input gradient,
  parameter gradients and BatchNorm statistics.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import serialization
from framework.gluon import nn
from framework.gluon.model_zoo import vision

ROOT = Path(__file__).resolve().parents[3]
REF = ROOT / "tests" / "reference" / "zoo"
_spec = importlib.util.spec_from_file_location(
    "zoo_weights", ROOT / "tools" / "mxnet_reference" / "zoo_weights.py"
)
zoo_weights = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(zoo_weights)

with gzip.open(REF / "names.json.gz", "rt") as _f:
    DECLARED = json.load(_f)["models"]

CASES = {
    "resnet18_v1": (4, 3, 64, 64),
    "resnet18_v2": (4, 3, 64, 64),
    "resnet50_v1": (4, 3, 64, 64),
    "vgg11_bn": (4, 3, 64, 64),
    "alexnet": (2, 3, 64, 64),
    "squeezenet1.1": (2, 3, 224, 224),
    "densenet_small": (2, 3, 224, 224),
    "inceptionv3": (1, 3, 299, 299),
    "mobilenet0.25": (4, 3, 64, 64),
    "mobilenetv2_0.25": (4, 3, 64, 64),
}
EVAL_ONLY = {"resnet50_v1"}  # the bottleneck blocks' inference; training is resnet18's (keeps CI short)


def _build(name):
    """A zoo model with 10 classes; ``densenet_small`` is DenseNet's class in a small configuration
    (DenseNet's code paths at a fraction of densenet121's compile time; densenet121's names and shapes
    are checked from names.json.gz)."""
    if name == "densenet_small":
        return vision.DenseNet(16, 8, [2, 2, 2, 2], bn_size=2, classes=10)
    return vision.get_model(name, classes=10)


def _sample(a: onp.ndarray, size: int = 2048) -> onp.ndarray:
    """As the generator: the first ``size`` values, the sum and the sum of squares."""
    flat = onp.asarray(a, onp.float64).reshape(-1)
    return onp.concatenate([flat[:size], [flat.sum(), (flat * flat).sum()]])


def test_every_model_is_mxnets_names_and_declared_shapes():
    assert len(DECLARED) == 34
    for name, expected in DECLARED.items():
        net = vision.get_model(name)
        ours = [[k, list(p.shape)] for k, p in net.collect_params().items()]
        assert ours == expected, name


@pytest.mark.parametrize("name", list(CASES))
def test_outputs_and_gradients_match_mxnet(name, tmp_path):
    with onp.load(REF / f"{name}.npz") as data:
        ref = {k: data[k] for k in data.files}
    names = [str(n) for n in ref["shape_names"]]
    shapes = dict(zip(names, (tuple(s) for s in json.loads(str(ref["shape_dims"]))), strict=True))
    values = zoo_weights.seeded_params(shapes, int(ref["seed"]))
    assert zoo_weights.checksum(values) == pytest.approx(float(ref["checksum"]), rel=1e-9)
    path = tmp_path / f"{name}.params"
    serialization.save(str(path), values)

    net = _build(name)
    net.load_parameters(str(path))  # by MXNet's structural names; every shape as MXNet inferred it
    assert list(net.collect_params()) == names
    rs = onp.random.RandomState(0)
    x = rs.uniform(-1, 1, CASES[name]).astype(onp.float32)
    r = rs.uniform(-1, 1, ref["eval_out"].shape).astype(onp.float32)
    net.apply(lambda b: setattr(b, "_rate", 0.0) if isinstance(b, nn.Dropout) else None)
    params = net.collect_params().values_on()

    # float32, as users run it: inference within MXNet's own float32 error
    out = jax.jit(lambda p, x: net.functional_call(p, x))(params, jnp.asarray(x))
    _close32(name, onp.asarray(out, onp.float64), ref["eval_out"], ref["err:eval_out"])

    # float64, as the reference was computed: every array to 1e-6 of its largest value (float32 noise
    # of these random-weight networks reaches 5% of a gradient's largest value, so only float64 can tell
    # a wrong operator from rounding)
    with jax.enable_x64(True):
        p64 = {k: jnp.asarray(onp.asarray(v), jnp.float64) for k, v in params.items()}
        x64, r64 = jnp.asarray(x, jnp.float64), jnp.asarray(r, jnp.float64)
        if name in EVAL_ONLY:
            out = jax.jit(lambda p, x: net.functional_call(p, x))(p64, x64)
            _close64(name, "eval_out", out, ref["eval_out"])
            return

        @jax.jit
        def run(params, x):
            eval_out = net.functional_call(params, x, training=False)

            def loss(params, x):
                out, state = net.functional_call(
                    params, x, training=True, key=jax.random.key(0), return_state=True
                )
                return jnp.sum(out * r64), (out, state)

            (_, (out, state)), grads = jax.value_and_grad(loss, argnums=(0, 1), has_aux=True)(params, x)
            return eval_out, out, state, grads

        eval_out, train_out, state, (grads, grad_x) = run(p64, x64)
        assert grad_x.dtype == jnp.float64
        ours = {"eval_out": eval_out, "train_out": train_out, "grad_x": _sample(grad_x)}
        ours.update({k: _sample(grads[k[5:]]) for k in ref if k.startswith("grad:")})
        ours.update({k: state[k[6:]] for k in ref if k.startswith("state:")})
        assert {k for k in ref if k.startswith("err:")} == {"err:" + k for k in ours}
        assert any(k.startswith("grad:") for k in ours)
        for k, got in ours.items():
            _close64(name, k, got, ref[k])


def _close64(name: str, key: str, got, want: onp.ndarray) -> None:
    """Ours in float64 against MXNet's float64: each value within 1e-6 of the array's largest (the
    parameters and inputs are the same float32 numbers; what remains is MXNet's float32 constants,
    such as BatchNorm's momentum, about 1e-7)."""
    got = onp.asarray(got, onp.float64)
    assert got.shape == want.shape, (name, key, got.shape, want.shape)
    tol = 1e-6 * float(onp.abs(want).max()) + 1e-12
    bad = onp.abs(got - want) > tol
    assert not bad.any(), (
        f"{name}: {key} differs from MXNet's float64 at {int(bad.sum())} of {bad.size}: max |ours - "
        f"mxnet64| {float(onp.abs(got - want).max()):.3g}, allowed {tol:.3g}"
    )


def _close32(name: str, got: onp.ndarray, want: onp.ndarray, err: onp.ndarray) -> None:
    """|ours in float32 - MXNet's float64| within 4x MXNet's own float32 error plus float32 rounding."""
    tol = 4 * float(err.max()) + 1e-4 * onp.abs(want) + 1e-6 * float(onp.abs(want).max()) + 1e-7
    bad = onp.abs(got - want) > tol
    assert not bad.any(), (
        f"{name}: float32 eval_out differs from MXNet at {int(bad.sum())} of {bad.size}: max |ours - "
        f"mxnet64| {float(onp.abs(got - want).max()):.3g}, MXNet's own float32 error {float(err.max()):.3g}"
    )
