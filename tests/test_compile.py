"""The compile layer: one module compiles, descriptions hold no arrays, nothing outlives its use."""

import ast
import gc
import pathlib
import weakref

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

import framework
from framework import _compile, autograd, gluon, np
from framework.autograd import tape
from framework.gluon import nn
from tests.conftest import count_compiles

ROOT = pathlib.Path(framework.__file__).parent


def _compile_calls(path: pathlib.Path) -> list[str]:
    """Calls/references of jax.jit, jax.pmap and shard_map in the code of ``path`` (not its docs)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and node.attr in ("jit", "pmap", "shard_map"):
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name) and base.id == "jax":
                found.append(node.attr)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("jax"):
            found += [a.name for a in node.names if a.name in ("jit", "pmap", "shard_map")]
    return found


def test_jit_and_pmap_live_in_one_module():
    users = {str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py") if _compile_calls(p)}
    assert users == {"_compile.py"}


def small_net():
    net = nn.HybridSequential()
    net.add(nn.Dense(4, activation="relu"), nn.Dense(3))
    net.initialize()
    return net


def test_recorded_intermediate_dies_after_del():
    net = small_net()
    x = np.ones((8, 5))
    with autograd.record():
        h = net[0](x)
        loss = (net[1](h) ** 2).sum()
    loss.backward()
    value = h.value  # computed by the backward program
    ref, vref = weakref.ref(h), weakref.ref(h._node)
    live = {id(a) for a in jax.live_arrays()}
    assert id(value) in live
    del h, loss, value
    gc.collect()
    assert ref() is None and vref() is None  # no cached program holds the step's graph
    assert len(_compile._shared) > 0  # ... although the program itself stays cached


def test_backward_returns_only_the_values_still_held():
    """A backward frees the graph (as MXNet's does), so its program copies out only the recorded values
    somebody still holds (here ``h`` and ``loss``) and no intermediate outlives the step; a held one
    needs no second program to be read."""
    net = small_net()
    x = np.ones((8, 5))

    def step():
        with autograd.record():
            h = net[0](x)
            loss = ((net[1](h) * 2) ** 2).sum()  # net[1]'s output and the product: nobody holds them
        pending = tape.backward([loss])
        return h, loss, pending

    for _ in range(2):  # the description repeats: the second backward is one whole-graph program
        float(step()[1])
    h, loss, pending = step()
    kinds = [pending.plan.nodes[w.node].kind for w in pending.want]
    assert kinds == ["block", "op"]  # h and loss
    assert count_compiles(lambda: (onp.asarray(h), float(loss))) == 0
    onp.testing.assert_allclose(onp.asarray(h), onp.asarray(net[0](x)), rtol=1e-6)


def test_static_arguments_tagged_by_type():
    """0, False and 0.0 are different statics: inside record(), h[False] is not h[0] (main: it was)."""
    layer = nn.Dense(2, in_units=3)
    layer.initialize()
    x = np.arange(6.0).reshape(2, 3)
    with autograd.record():
        h = layer(x)
        first, empty = h[0], h[False]
        p_int, p_float = h ** 2, h ** 2.0
    assert first.shape == (2,) and empty.shape == (0, 2, 2)
    value = onp.asarray(h.value)
    onp.testing.assert_array_equal(first.asnumpy(), value[0])
    onp.testing.assert_allclose(p_int.asnumpy(), value ** 2, rtol=1e-6)
    onp.testing.assert_allclose(p_float.asnumpy(), value ** 2.0, rtol=1e-6)
    assert p_int._node.desc != p_float._node.desc  # two descriptions, two programs


def test_live_arrays_constant_over_training_steps():
    net = nn.Sequential()
    net.add(nn.Dense(8, activation="relu"), nn.Dropout(0.2), nn.Dense(3))
    net.initialize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    x, y = np.ones((8, 5)), np.zeros((8,), dtype="int32")
    counts = []
    for _ in range(500):
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(8)
        float(loss.sum())
        counts.append(len(jax.live_arrays()))
    assert len(set(counts[10:])) == 1, (counts[:12], counts[-3:])


def test_block_caches_are_weak_and_cleared():
    net = small_net()
    net.hybridize()
    net(np.ones((2, 5)))
    assert net.__dict__.get("_compiled")
    assert net in _compile._owners
    framework.clear_caches()
    assert not net.__dict__.get("_compiled") and not _compile._shared
    net(np.ones((2, 5)))  # rebuilt on demand
    ref = weakref.ref(net)
    del net
    gc.collect()
    assert ref() is None


def test_description_holds_no_arrays():
    net = small_net()
    with autograd.record():
        loss = net(np.ones((2, 5))).sum()
    loss.backward()
    for key in _compile._shared:
        leaves = jax.tree_util.tree_leaves(key, is_leaf=lambda v: isinstance(v, weakref.ref))
        assert not any(isinstance(v, (jax.Array, onp.ndarray, autograd.Recorded)) for v in leaves)


@pytest.mark.parametrize("value", [0, False, 0.0, (1, 2.0), slice(0, False), [None, ...]])
def test_static_round_trips_with_its_type(value):
    back = _compile.thaw(_compile.static(value))
    assert back == value and type(back) is type(value)


def test_zero_false_and_zero_float_are_three_descriptions():
    assert len({_compile.static(0), _compile.static(False), _compile.static(0.0)}) == 3


def test_a_program_with_compiler_options_also_runs_inside_another_trace():
    from framework import config

    with config.override(cpu_conv="eigen"):
        f = _compile.jit(("test", "nested options"), lambda: lambda x: jnp.sin(x) * 2.0)
    assert _compile.compiler_options() is not None  # the options this test is about
    x = jnp.arange(3.0)
    want = onp.sin(onp.arange(3.0)) * 2.0
    onp.testing.assert_allclose(f(x), want, rtol=1e-6)  # top level: the options
    onp.testing.assert_allclose(jax.jit(lambda v: f(v) + 1.0)(x), want + 1.0, rtol=1e-6)  # nested: none
    onp.testing.assert_allclose(jax.grad(lambda v: f(v).sum())(x), 2.0 * onp.cos(onp.arange(3.0)), rtol=1e-6)
    onp.testing.assert_allclose(jax.vmap(f)(x[:, None])[:, 0], want, rtol=1e-6)


def test_an_xla_that_refuses_the_options_runs_the_programs_without_them_and_says_so(monkeypatch):
    from framework import config

    monkeypatch.setattr(config, "xla_options",
                        lambda: {"xla_cpu_experimental_ynn_fusion_type": "LIBRARY_FUSION_TYPE_NO_SUCH_TYPE"})
    monkeypatch.setattr(_compile, "_refused", [False])
    f = _compile.jit(("test", "refused options"), lambda: lambda x: x * 3.0)
    with pytest.warns(RuntimeWarning, match=r"does not take the compiler options .*NO_SUCH_TYPE"):
        onp.testing.assert_allclose(f(jnp.arange(3.0)), [0.0, 3.0, 6.0])
    assert _compile.compiler_options() is None
    g = _compile.jit(("test", "after the refusal"), lambda: lambda x: x + 1.0)
    onp.testing.assert_allclose(g(jnp.arange(3.0)), [1.0, 2.0, 3.0])


def test_a_program_with_compiler_options_called_with_constants_inside_a_trace():
    from framework import config

    with config.override(cpu_conv="eigen"):
        f = _compile.jit(("test", "constants inside"), lambda: lambda x: x * 2.0)
    const = jnp.arange(3.0)  # concrete: JAX stages the call into the outer program all the same
    onp.testing.assert_allclose(jax.jit(lambda v: f(const) + v)(1.0), [1.0, 3.0, 5.0])
    with jax.ensure_compile_time_eval():
        onp.testing.assert_allclose(jax.jit(lambda v: v + f(const).sum())(1.0), 7.0)
