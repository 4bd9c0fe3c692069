"""Optimizers: k=3 steps of each optax transformation equal a plain-NumPy (float64) transcription of
MXNet 1.9.1's update rule, with wd, clip_gradient, rescale_grad, lr_mult/wd_mult and a learning rate
that changes every step without recompiling."""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import numpy as onp
import optax
import pytest

import framework as mx
from framework import optimizer as opt_mod
from framework.optimizer import set_hyperparams

NAMES = ("a.weight", "b.bias")
SHAPES = {"a.weight": (3, 4), "b.bias": (5,)}
LR_MULT = {"a.weight": 0.5}
WD_MULT = {"b.bias": 2.0}
RESCALES = (0.25, 0.125, 0.5)


def clipf(x, c):
    return x if c is None else onp.clip(x, -c, c)


def sgd_rule(mom_coef):
    def init(w, name):
        return [onp.zeros_like(w)] if mom_coef > 0 else []

    def step(w, g, s, lr, wd, r, c, t, name, hp):
        if not s:
            return (1 - lr * wd) * w - lr * clipf(r * g, c), s
        mom = mom_coef * s[0] - lr * wd * w - lr * clipf(r * g, c)
        return w + mom, [mom]
    return init, step


def nag_step(w, g, s, lr, wd, r, c, t, name, hp):
    m = hp["momentum"]
    big_m = m * s[0]
    d = lr * (clipf(r * g, c) + wd * w)
    return w - big_m + (m + 1) * (big_m - d), [big_m - d]


def signum_step(w, g, s, lr, wd, r, c, t, name, hp):
    m = hp.get("momentum", 0.9)
    if m == 0:
        return (1 - lr * wd) * w - lr * onp.sign(g), s
    mom = m * s[0] - (1 - m) * wd * w - (1 - m) * clipf(r * g, c)
    return (1 - lr * hp.get("wd_lh", 0.0)) * w + lr * onp.sign(mom), [mom]


def lars_step(w, g, s, lr, wd, r, c, t, name, hp):
    if not name.endswith(("gamma", "beta", "bias")):
        wn, gn = onp.linalg.norm(w), onp.linalg.norm(g * r)
        if wn > 0 and gn > 0:
            lr = lr * hp["eta"] * wn / (gn + wd * wn + hp.get("eps", 0.0))
    if not s:
        return (1 - lr * wd) * w - lr * clipf(r * g, c), s
    mom = hp["momentum"] * s[0] - lr * wd * w - lr * clipf(r * g, c)
    return w + mom, [mom]


def dcasgd_step(w, g, s, lr, wd, r, c, t, name, hp):
    g = clipf(r * g, c)
    mom, prev = s
    mom = hp["momentum"] * mom - lr * (g + wd * w + hp.get("lamda", 0.04) * g * g * (w - prev))
    return w + mom, [mom, w.copy()]


def adam_step(w, g, s, lr, wd, r, c, t, name, hp):
    b1, b2, eps = hp.get("beta1", 0.9), hp.get("beta2", 0.999), hp.get("epsilon", 1e-8)
    lr = lr * onp.sqrt(1 - b2 ** t) / (1 - b1 ** t)
    g = clipf(g * r + w * wd, c)
    m = b1 * s[0] + (1 - b1) * g
    v = b2 * s[1] + (1 - b2) * g * g
    return w - lr * m / (onp.sqrt(v) + eps), [m, v]


def adamw_step(w, g, s, lr, wd, r, c, t, name, hp):
    b1, b2, eps = 0.9, 0.999, hp.get("epsilon", 1e-6)
    eta = lr * onp.sqrt(1 - b2 ** t) / (1 - b1 ** t)
    g = clipf(g * r, c)
    m = b1 * s[0] + (1 - b1) * g
    v = b2 * s[1] + (1 - b2) * g * g
    return w - eta * (m / (onp.sqrt(v) + eps) + wd * w), [m, v]


def adamax_step(w, g, s, lr, wd, r, c, t, name, hp):
    b1, b2 = 0.9, 0.999
    lr = lr / (1 - b1 ** t)
    g = clipf(g * r + wd * w, c)
    m = b1 * s[0] + (1 - b1) * g
    u = onp.maximum(b2 * s[1], onp.abs(g))
    return w - lr * m / u, [m, u]


def nadam_step(w, g, s, lr, wd, r, c, t, name, hp):
    b1, b2, eps, sd = 0.9, 0.999, 1e-8, 0.004
    g = clipf(g * r + wd * w, c)
    mt = b1 * (1 - 0.5 * 0.96 ** (t * sd))
    mt1 = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * sd))
    sched = s[2] * mt
    sched_next = sched * mt1
    m = b1 * s[0] + (1 - b1) * g
    v = b2 * s[1] + (1 - b2) * g * g
    m_bar = (1 - mt) * g / (1 - sched) + mt1 * m / (1 - sched_next)
    return w - lr * m_bar / (onp.sqrt(v / (1 - b2 ** t)) + eps), [m, v, sched]


def lamb_step(w, g, s, lr, wd, r, c, t, name, hp):
    b1, b2, eps = 0.9, 0.999, 1e-6
    g = clipf(g * r, c)
    m = b1 * s[0] + (1 - b1) * g
    v = b2 * s[1] + (1 - b2) * g * g
    upd = (m / (1 - b1 ** t)) / (onp.sqrt(v / (1 - b2 ** t)) + eps) + wd * w
    r1, r2 = onp.linalg.norm(w), onp.linalg.norm(upd)
    if hp.get("lower_bound"):
        r1 = max(r1, hp["lower_bound"])
    if hp.get("upper_bound"):
        r1 = min(r1, hp["upper_bound"])
    ratio = 1.0 if (r1 == 0 or r2 == 0) else r1 / r2
    return w - lr * ratio * upd, [m, v]


def ftml_step(w, g, s, lr, wd, r, c, t, name, hp):
    b1, b2, eps = 0.6, 0.999, 1e-8
    d_prev, v, z = s
    g = clipf(r * g + wd * w, c)
    v = b2 * v + (1 - b2) * g * g
    d = (1 - b1 ** t) / lr * (onp.sqrt(v / (1 - b2 ** t)) + eps)
    z = b1 * z + (1 - b1) * g - (d - b1 * d_prev) * w
    return -z / d, [d, v, z]


def adagrad_step(w, g, s, lr, wd, r, c, t, name, hp):
    g = clipf(g * r, c)
    h = s[0] + g * g
    return w + (g / onp.sqrt(h + 1e-7) + w * wd) * -lr, [h]


def adadelta_step(w, g, s, lr, wd, r, c, t, name, hp):
    rho, eps = 0.9, 1e-5
    acc_g, acc_d = s
    g = clipf(g * r, c)
    acc_g = rho * acc_g + (1 - rho) * g * g
    delta = onp.sqrt(acc_d + eps) / onp.sqrt(acc_g + eps) * g
    acc_d = rho * acc_d + (1 - rho) * delta * delta
    return w - (delta + wd * w), [acc_g, acc_d]


def rmsprop_step(w, g, s, lr, wd, r, c, t, name, hp):
    g1, g2, eps, cw = 0.9, 0.9, 1e-8, hp.get("clip_weights")
    g = clipf(r * g + wd * w, c)
    n = (1 - g1) * g * g + g1 * s[0]
    if hp.get("centered"):
        m = (1 - g1) * g + g1 * s[1]
        delta = g2 * s[2] - lr * g / onp.sqrt(n - m * m + eps)
        new, st = w + delta, [n, m, delta]
    else:
        new, st = w - lr * g / onp.sqrt(n + eps), [n]
    return (onp.clip(new, -cw, cw) if cw else new), st


def ftrl_step(w, g, s, lr, wd, r, c, t, name, hp):
    lamda1, beta = 0.01, 1.0
    z, n = s
    g = clipf(g * r, c)
    z = z + g - (onp.sqrt(n + g * g) - onp.sqrt(n)) * w / lr
    n = n + g * g
    return (onp.sign(z) * lamda1 - z) / ((beta + onp.sqrt(n)) / lr + wd) * (onp.abs(z) > lamda1), [z, n]


def zeros(k):
    return lambda w, name: [onp.zeros_like(w) for _ in range(k)]


CASES = {
    "sgd": (dict(), sgd_rule(0.0)),
    "sgd_mom": (dict(momentum=0.9), sgd_rule(0.9)),
    "nag": (dict(momentum=0.8), (zeros(1), nag_step)),
    "nag_nomom": (dict(), sgd_rule(0.0)),
    "signum": (dict(momentum=0.9, wd_lh=0.01), (zeros(1), signum_step)),
    "signum_nomom": (dict(momentum=0.0), (zeros(0), signum_step)),
    "lars": (dict(momentum=0.9, eta=0.5, eps=1e-3), (zeros(1), lars_step)),
    "dcasgd": (dict(momentum=0.5), (lambda w, n: [onp.zeros_like(w), w.copy()], dcasgd_step)),
    "adam": (dict(), (zeros(2), adam_step)),
    "adamw": (dict(), (zeros(2), adamw_step)),
    "adamax": (dict(), (zeros(2), adamax_step)),
    "nadam": (dict(), (lambda w, n: [onp.zeros_like(w), onp.zeros_like(w), 1.0], nadam_step)),
    "lamb": (dict(), (zeros(2), lamb_step)),
    "lamb_bounds": (dict(lower_bound=0.5, upper_bound=0.9), (zeros(2), lamb_step)),
    "ftml": (dict(), (zeros(3), ftml_step)),
    "adagrad": (dict(), (zeros(1), adagrad_step)),
    "adadelta": (dict(), (zeros(2), adadelta_step)),
    "rmsprop": (dict(), (zeros(1), rmsprop_step)),
    "rmsprop_centered": (dict(centered=True, clip_weights=0.6), (zeros(3), rmsprop_step)),
    "ftrl": (dict(), (zeros(2), ftrl_step)),
}
OPT_NAME = {"sgd_mom": "sgd", "nag_nomom": "nag", "signum_nomom": "signum", "lamb_bounds": "lamb",
            "rmsprop_centered": "rmsprop"}


def data(seed=0):
    rs = onp.random.RandomState(seed)
    params = {n: rs.randn(*SHAPES[n]).astype("float32") for n in NAMES}
    grads = [{n: (4 * rs.randn(*SHAPES[n])).astype("float32") for n in NAMES} for _ in range(3)]
    return params, grads


def run_reference(case, params, grads, lrs, wd, clip):
    kwargs, (init, step) = CASES[case]
    ws = {n: params[n].astype("float64") for n in NAMES}
    states = {n: init(ws[n], n) for n in NAMES}
    for k in range(3):
        for n in NAMES:
            lr = lrs[k] * LR_MULT.get(n, 1.0)
            ws[n], states[n] = step(ws[n], grads[k][n].astype("float64"), states[n], lr,
                                    wd * WD_MULT.get(n, 1.0), RESCALES[k], clip, k + 1, n, kwargs)
    return ws


def run_ours(opt, params, grads, lrs, jit=False):
    """Three steps; eager by default (op-level compile caches are shared by every case: fast)."""
    tx = opt.to_optax(lr_mult=LR_MULT, wd_mult=WD_MULT)
    state = tx.init({n: jnp.asarray(v) for n, v in params.items()})

    def step(p, g, s, lr, rescale):
        s = set_hyperparams(s, learning_rate=lr, rescale_grad=rescale)
        upd, s = tx.update(g, s, p)
        return optax.apply_updates(p, upd), s

    if jit:
        step = jax.jit(step)
    p = {n: jnp.asarray(v) for n, v in params.items()}
    for k in range(3):
        p, state = step(p, grads[k], state, jnp.float32(lrs[k]), jnp.float32(RESCALES[k]))
    if jit:
        assert step._cache_size() == 1, "changing learning_rate / rescale_grad recompiled the step"
    assert int(state.count) == 3
    return {n: onp.asarray(v) for n, v in p.items()}


@pytest.mark.parametrize("clip", [None, 0.6])
@pytest.mark.parametrize("case", sorted(CASES))
def test_three_steps_equal_mxnet_rule(case, clip):
    params, grads = data()
    lrs = (0.05, 0.02, 0.03) if case not in ("ftrl",) else (0.1, 0.2, 0.15)
    wd = 0.01
    kwargs = CASES[case][0]
    opt = opt_mod.create(OPT_NAME.get(case, case), learning_rate=lrs[0], wd=wd, clip_gradient=clip,
                         **kwargs)
    got = run_ours(opt, params, grads, lrs)
    want = run_reference(case, params, grads, lrs, wd, clip)
    for n in NAMES:
        assert not onp.allclose(want[n], params[n]), "the reference did not move"
        onp.testing.assert_allclose(got[n], want[n], rtol=2e-5, atol=2e-6, err_msg=f"{case} {n}")


@pytest.mark.parametrize("case", ["sgd_mom", "adam", "lamb"])
def test_jitted_step_changes_lr_without_recompiling(case):
    params, grads = data(4)
    lrs = (0.05, 0.02, 0.03)
    opt = opt_mod.create(OPT_NAME.get(case, case), learning_rate=lrs[0], wd=0.01, **CASES[case][0])
    got = run_ours(opt, params, grads, lrs, jit=True)
    want = run_reference(case, params, grads, lrs, 0.01, None)
    for n in NAMES:
        onp.testing.assert_allclose(got[n], want[n], rtol=2e-5, atol=2e-6)


def test_lr_mult_and_wd_mult_from_setters():
    params, grads = data(1)
    opt = opt_mod.create("sgd", learning_rate=0.1, wd=0.1, momentum=0.5)
    opt.set_lr_mult({"a.weight": 0.0})
    opt.set_wd_mult({"b.bias": 0.0})
    tx = opt.to_optax()
    p = {n: jnp.asarray(v) for n, v in params.items()}
    upd, _ = tx.update(grads[0], tx.init(p), p)
    onp.testing.assert_array_equal(upd["a.weight"], 0.0)
    onp.testing.assert_allclose(upd["b.bias"], -0.1 * grads[0]["b.bias"], rtol=1e-6)


def test_reference_trainer_step_is_exact(ref):
    """MXNet's Trainer('sgd', lr 0.1).step(4): w1 = w0 - lr * grad / 4, bit for bit."""
    opt = opt_mod.create("sgd", learning_rate=0.1)
    tx = opt.to_optax()
    w0 = {"0.weight": jnp.asarray(ref["step_w0"])}
    state = set_hyperparams(tx.init(w0), rescale_grad=float(ref["step_rescale_grad"]))
    upd, _ = tx.update({"0.weight": jnp.asarray(ref["step_grad_w"])}, state, w0)
    w1 = optax.apply_updates(w0, upd)["0.weight"]
    onp.testing.assert_array_equal(onp.asarray(w1), ref["step_w1"])
    onp.testing.assert_array_equal(ref["step_w1"], ref["step_expected_w1"])


def test_defaults_match_mxnet(ref):
    want = json.loads(str(ref["optimizer_defaults"]))
    sgd = opt_mod.SGD()
    got = {"wd": str(sgd.wd), "momentum": str(sgd.momentum), "clip_gradient": str(sgd.clip_gradient),
           "lazy_update": str(sgd.lazy_update), "multi_precision": str(sgd.multi_precision)}
    assert got == want
    assert sgd.learning_rate == 0.01 and sgd.rescale_grad == 1.0 and sgd.num_update == 0
    assert opt_mod.Adam().learning_rate == 0.001 and opt_mod.RMSProp().learning_rate == 0.001
    assert opt_mod.Adamax().learning_rate == 0.002 and opt_mod.Ftrl().learning_rate == 0.1


def test_registry_names():
    for name in ["sgd", "SGD", "ccsgd", "nag", "adam", "adamw", "rmsprop", "adagrad", "adadelta", "adamax",
                 "nadam", "lamb", "lars", "signum", "ftml", "ftrl", "dcasgd", "sgld"]:
        assert isinstance(opt_mod.create(name), opt_mod.Optimizer)
    assert mx.optimizer is opt_mod
    assert opt_mod.Optimizer.create_optimizer("adam", beta1=0.8).beta1 == 0.8


def test_lr_scheduler_drives_learning_rate():
    sched = mx.lr_scheduler.MultiFactorScheduler(step=[2], factor=0.1)
    opt = opt_mod.create("sgd", learning_rate=1.0, lr_scheduler=sched)
    seen = []
    for _ in range(4):                     # what the Trainer does each step
        opt.num_update += 1
        seen.append(opt.learning_rate)
    assert seen == pytest.approx([1.0, 1.0, 0.1, 0.1])
    with pytest.raises(UserWarning, match="LRScheduler of the optimizer has already been defined"):
        opt.set_learning_rate(0.5)
    plain = opt_mod.create("sgd")
    plain.set_learning_rate(0.3)
    assert plain.learning_rate == 0.3


def test_multi_precision_keeps_float32_master():
    params, grads = data(2)
    p16 = {n: jnp.asarray(v, jnp.float16) for n, v in params.items()}
    opt = opt_mod.create("sgd", learning_rate=0.01, momentum=0.9, multi_precision=True)
    tx = opt.to_optax()
    state = tx.init(p16)
    assert state.slots["a.weight"][0].dtype == jnp.float32
    master = {n: onp.asarray(p16[n], "float32").astype("float64") for n in NAMES}
    mom = {n: onp.zeros(SHAPES[n]) for n in NAMES}
    p = p16
    for k in range(3):
        upd, state = tx.update(grads[k], state, p)
        p = optax.apply_updates(p, upd)
        for n in NAMES:
            mom[n] = 0.9 * mom[n] - 0.01 * grads[k][n]
            master[n] = master[n] + mom[n]
    for n in NAMES:
        assert p[n].dtype == jnp.float16
        onp.testing.assert_allclose(state.slots[n][0], master[n], rtol=1e-5, atol=1e-6)
        onp.testing.assert_allclose(onp.asarray(p[n], "float32"), master[n].astype("float16"), rtol=2e-3)


def test_float16_without_multi_precision_warns():
    with pytest.warns(UserWarning, match="Accumulating with float16"):
        opt_mod.create("adam").to_optax().init({"w": jnp.ones(2, jnp.float16)})


def test_sgld_noise_statistics():
    opt = opt_mod.create("sgld", learning_rate=0.01, seed=1)
    tx = opt.to_optax()
    p = {"w": jnp.zeros((200, 100))}
    g = {"w": jnp.ones((200, 100))}
    state = tx.init(p)
    upd, state = tx.update(g, state, p)
    u = onp.asarray(upd["w"])
    onp.testing.assert_allclose(u.mean(), -0.005, atol=4 * 0.1 / 141)
    onp.testing.assert_allclose(u.std(), 0.1, rtol=0.03)
    upd2, _ = tx.update(g, state, p)
    assert not onp.allclose(upd2["w"], u), "the key must advance between steps"


def test_user_optax_transformation_is_wrapped():
    inner = optax.inject_hyperparams(optax.adam)(learning_rate=0.01)
    opt = opt_mod.create(inner, rescale_grad=0.5, clip_gradient=1.0, wd=0.1)
    tx = opt.to_optax()
    params, grads = data(3)
    p = {n: jnp.asarray(v) for n, v in params.items()}
    state = tx.init(p)
    state = set_hyperparams(state, learning_rate=0.02, rescale_grad=0.25)
    upd, state = tx.update(grads[0], state, p)
    ref_tx = optax.adam(0.02)
    g = {n: onp.clip(0.25 * grads[0][n], -1, 1) + 0.1 * params[n] for n in NAMES}
    want, _ = ref_tx.update(g, ref_tx.init(p), p)
    for n in NAMES:
        onp.testing.assert_allclose(upd[n], want[n], rtol=1e-5, atol=1e-8)


def test_set_hyperparams_keeps_device_and_shape():
    dev = jax.devices()[1]
    tx = opt_mod.create("sgd").to_optax()
    state = jax.device_put(tx.init({"w": jnp.ones(2)}), dev)
    new = set_hyperparams(state, learning_rate=0.7)
    assert new.hyperparams["learning_rate"].devices() == {dev}
    assert opt_mod.get_hyperparams(new) == {"learning_rate": pytest.approx(0.7), "rescale_grad": 1.0}
    stacked = jax.tree_util.tree_map(lambda x: jnp.stack([x, x]), state)      # a pmapped-style state
    assert set_hyperparams(stacked, rescale_grad=0.5).hyperparams["rescale_grad"].shape == (2,)


def test_errors():
    with pytest.raises(ValueError, match="Cannot find optimizer nope"):
        opt_mod.create("nope")
    with pytest.raises(TypeError, match="optimizer must be a name"):
        opt_mod.create(3)
    tx = opt_mod.create("sgd").to_optax()
    p = {"w": jnp.ones(2)}
    state = tx.init(p)
    with pytest.raises(ValueError, match="needs the parameters"):
        tx.update(p, state)
    with pytest.raises(ValueError, match="same parameters"):
        tx.update({"v": jnp.ones(2)}, state, {"v": jnp.ones(2)})
    with pytest.raises(KeyError, match="momentum"):
        set_hyperparams(state, momentum=0.9)
    with pytest.raises(TypeError, match="lr_mult"):
        opt_mod.create("sgd").to_optax(lr_mult={"w": "big"})
    with pytest.raises(ValueError, match="must be empty"):
        opt_mod.create(opt_mod.SGD(), learning_rate=0.1)
