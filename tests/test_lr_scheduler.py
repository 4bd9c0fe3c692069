"""lr schedulers: closed forms equal MXNet 1.9.1's stateful ones for increasing num_update."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

import framework as mx
from framework import lr_scheduler as lrs


# --- MXNet 1.9.1's schedulers, stateful, as written in python/mxnet/lr_scheduler.py -------------
class MxBase:
    def __init__(self, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0, warmup_mode="linear"):
        self.base_lr = base_lr
        self.warmup_steps = warmup_steps
        self.warmup_final_lr = base_lr
        self.warmup_begin_lr = warmup_begin_lr
        self.warmup_mode = warmup_mode

    def get_warmup_lr(self, num_update):
        if self.warmup_mode == "linear":
            increase = (self.warmup_final_lr - self.warmup_begin_lr) * float(num_update) / float(
                self.warmup_steps)
            return self.warmup_begin_lr + increase
        return self.warmup_begin_lr


class MxFactor(MxBase):
    def __init__(self, step, factor=1, stop_factor_lr=1e-8, base_lr=0.01, **kw):
        super().__init__(base_lr, **kw)
        self.step, self.factor, self.stop_factor_lr, self.count = step, factor, stop_factor_lr, 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while num_update > self.count + self.step:
            self.count += self.step
            self.base_lr *= self.factor
            if self.base_lr < self.stop_factor_lr:
                self.base_lr = self.stop_factor_lr
        return self.base_lr


class MxMultiFactor(MxBase):
    def __init__(self, step, factor=1, base_lr=0.01, **kw):
        super().__init__(base_lr, **kw)
        self.step, self.cur_step_ind, self.factor, self.count = step, 0, factor, 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while self.cur_step_ind <= len(self.step) - 1:
            if num_update > self.step[self.cur_step_ind]:
                self.count = self.step[self.cur_step_ind]
                self.cur_step_ind += 1
                self.base_lr *= self.factor
            else:
                return self.base_lr
        return self.base_lr


class MxPoly(MxBase):
    def __init__(self, max_update, base_lr=0.01, pwr=2, final_lr=0, **kw):
        super().__init__(base_lr, **kw)
        self.power, self.base_lr_orig, self.max_update, self.final_lr = pwr, base_lr, max_update, final_lr
        self.max_steps = max_update - self.warmup_steps

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        if num_update <= self.max_update:
            self.base_lr = self.final_lr + (self.base_lr_orig - self.final_lr) * pow(
                1 - float(num_update - self.warmup_steps) / float(self.max_steps), self.power)
        return self.base_lr


class MxCosine(MxBase):
    def __init__(self, max_update, base_lr=0.01, final_lr=0, **kw):
        super().__init__(base_lr, **kw)
        self.base_lr_orig, self.max_update, self.final_lr = base_lr, max_update, final_lr
        self.max_steps = max_update - self.warmup_steps

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        if num_update <= self.max_update:
            self.base_lr = self.final_lr + (self.base_lr_orig - self.final_lr) * (
                1 + math.cos(math.pi * (num_update - self.warmup_steps) / self.max_steps)) / 2
        return self.base_lr


CASES = [
    (lrs.FactorScheduler, MxFactor, dict(step=3, factor=0.5, base_lr=1.0)),
    (lrs.FactorScheduler, MxFactor, dict(step=2, factor=0.1, stop_factor_lr=1e-4, base_lr=0.3)),
    (lrs.FactorScheduler, MxFactor, dict(step=4, factor=0.7, base_lr=0.5, warmup_steps=5,
                                         warmup_begin_lr=0.1)),
    (lrs.FactorScheduler, MxFactor, dict(step=4, factor=0.7, base_lr=0.5, warmup_steps=5,
                                         warmup_begin_lr=0.1, warmup_mode="constant")),
    (lrs.MultiFactorScheduler, MxMultiFactor, dict(step=[3, 7, 8], factor=0.5, base_lr=1.0)),
    (lrs.MultiFactorScheduler, MxMultiFactor, dict(step=[6, 9], factor=0.3, base_lr=0.2, warmup_steps=4)),
    (lrs.PolyScheduler, MxPoly, dict(max_update=12, base_lr=0.4, pwr=2)),
    (lrs.PolyScheduler, MxPoly, dict(max_update=12, base_lr=0.4, pwr=1.5, final_lr=0.01, warmup_steps=3,
                                     warmup_begin_lr=0.05)),
    (lrs.CosineScheduler, MxCosine, dict(max_update=10, base_lr=0.3)),
    (lrs.CosineScheduler, MxCosine, dict(max_update=10, base_lr=0.3, final_lr=0.02, warmup_steps=4)),
]


@pytest.mark.parametrize("ours,theirs,kw", CASES)
def test_equals_mxnet_for_increasing_num_update(ours, theirs, kw):
    sched, mx_sched = ours(**kw), theirs(**kw)
    for n in range(0, 20):
        assert sched(n) == pytest.approx(mx_sched(n), rel=1e-12, abs=1e-15), n
        assert isinstance(sched(n), float)


@pytest.mark.parametrize("ours,theirs,kw", CASES)
def test_as_optax_is_num_update_plus_one(ours, theirs, kw):
    sched = ours(**kw)
    schedule = jax.jit(sched.as_optax())
    got = onp.array([float(schedule(jnp.int32(c))) for c in range(19)])
    want = onp.array([sched(c + 1) for c in range(19)])
    onp.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-9)
    assert schedule._cache_size() == 1        # one compile for every count


def test_factor_with_jumps_equals_mxnet_catch_up():
    """MXNet's while loop catches up after a resume (load_epoch): closed form gives the same."""
    sched, mx_sched = lrs.FactorScheduler(step=5, factor=0.5, base_lr=1.0), MxFactor(step=5, factor=0.5,
                                                                                       base_lr=1.0)
    for n in [1, 12, 13, 40]:
        assert sched(n) == pytest.approx(mx_sched(n), rel=1e-12)


def test_optimizer_sets_base_lr_like_mxnet():
    sched = lrs.FactorScheduler(step=2, factor=0.5, base_lr=123.0)
    opt = mx.optimizer.create("sgd", learning_rate=0.4, lr_scheduler=sched)
    assert sched.base_lr == 0.4
    opt.num_update = 3
    assert opt.learning_rate == pytest.approx(0.2)


def test_works_with_optax():
    import optax

    sched = lrs.CosineScheduler(max_update=4, base_lr=1.0)
    tx = optax.sgd(sched.as_optax())
    params = {"w": jnp.ones(())}
    state = tx.init(params)
    seen = []
    for _ in range(3):
        upd, state = tx.update({"w": jnp.ones(())}, state, params)
        seen.append(-float(upd["w"]))
    onp.testing.assert_allclose(seen, [sched(1), sched(2), sched(3)], rtol=1e-6)


def test_errors():
    with pytest.raises(ValueError, match="Schedule step must be greater or equal than 1 round"):
        lrs.FactorScheduler(step=0)
    with pytest.raises(ValueError, match="Factor must be no more than 1"):
        lrs.FactorScheduler(step=2, factor=1.5)
    with pytest.raises(ValueError, match="increasing integer list"):
        lrs.MultiFactorScheduler(step=[3, 2])
    with pytest.raises(TypeError, match="non-empty list"):
        lrs.MultiFactorScheduler(step=3)
    with pytest.raises(ValueError, match="strictly positive"):
        lrs.PolyScheduler(max_update=0)
    with pytest.raises(TypeError, match="max_update must be an int"):
        lrs.CosineScheduler(max_update=2.5)
    with pytest.raises(ValueError, match="Base lr has to be higher than warmup_begin_lr"):
        lrs.CosineScheduler(max_update=5, base_lr=0.1, warmup_begin_lr=0.2)
    with pytest.raises(ValueError, match="only linear and constant"):
        lrs.PolyScheduler(max_update=5, warmup_mode="cubic")
    with pytest.raises(ValueError, match="Warmup steps has to be positive"):
        lrs.PolyScheduler(max_update=5, warmup_steps=-1)
    with pytest.raises(NotImplementedError):
        lrs.LRScheduler()(1)
