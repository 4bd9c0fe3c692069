"""Trainer argument checks with MXNet-quality messages, skip_nonfinite, and gluon.utils.check_finite."""

from __future__ import annotations

import numpy as onp
import pytest

from framework import autograd, gluon, np


def _net():
    net = gluon.nn.Dense(1, in_units=2)
    net.initialize()
    return net


def _backward(net, scale=1.0):
    with autograd.record():
        loss = (net(np.ones((4, 2))) * scale).sum()
    loss.backward()


def test_step_with_batch_size_zero_says_what_to_pass():
    net = _net()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    _backward(net)
    with pytest.raises(ValueError, match=r"Trainer.step: batch_size must be a positive number .* got 0\. "
                                         r"Pass the number of samples in the batch, e.g. "
                                         r"trainer.step\(data.shape\[0\]\)"):
        trainer.step(0)
    with pytest.raises(ValueError, match=r"Trainer.update: batch_size .* got '4'"):
        trainer.update("4")
    trainer.step(4)  # nothing was consumed by the refused calls


def test_learning_rate_as_a_string_is_refused_at_construction():
    net = _net()
    with pytest.raises(TypeError, match=r"optimizer_params\['learning_rate'\] is the string '0.1'; "
                                        r"expected a number: pass 0.1, a number"):
        gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": "0.1"})
    with pytest.raises(TypeError, match=r"optimizer_params\['momentum'\] is the string 'high'; expected a "
                                        r"number: pass a number"):
        gluon.Trainer(net.collect_params(), "sgd", {"momentum": "high"})
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    with pytest.raises(TypeError, match=r"set_learning_rate: lr is the string '1e-3'"):
        trainer.set_learning_rate("1e-3")


def test_a_list_of_arrays_is_not_a_list_of_parameters():
    net = _net()
    with pytest.raises(ValueError, match=r"got item 0 of a list of type jax.Array\. Arrays hold no "
                                         r"gradient .* Pass net.collect_params\(\)"):
        gluon.Trainer([p.data() for p in net.collect_params().values()], "sgd")
    with pytest.raises(ValueError, match=r"got 'w' of type ndarray"):
        gluon.Trainer({"w": onp.ones(2)}, "sgd")


def test_a_nan_loss_without_the_option_poisons_every_weight():
    net = _net()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    _backward(net, scale=np.nan)
    trainer.step(4)
    assert bool(np.isnan(net.weight.data()).all())


def test_skip_nonfinite_keeps_weights_and_state_and_counts():
    net = _net()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9},
                            skip_nonfinite=True)
    _backward(net)
    trainer.step(4)
    after_one = onp.asarray(net.weight.data()).copy()
    for bad in (np.nan, np.inf):
        _backward(net, scale=bad)
        trainer.step(4)
    assert trainer.skipped_steps == 2
    assert onp.asarray(net.weight.data()).tolist() == after_one.tolist()
    _backward(net)
    trainer.step(4)
    assert bool(np.isfinite(net.weight.data()).all())
    assert trainer.skipped_steps == 2
    with pytest.raises(TypeError, match="skip_nonfinite must be True or False"):
        gluon.Trainer(net.collect_params(), "sgd", skip_nonfinite="yes")


def test_skip_nonfinite_matches_a_run_without_the_bad_step():
    def run(with_bad):
        net = gluon.nn.Dense(1, in_units=2, weight_initializer="ones")
        net.initialize()
        trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9},
                                skip_nonfinite=True)
        for step in range(3):
            if with_bad and step == 1:
                _backward(net, scale=np.nan)
                trainer.step(4)
            _backward(net, scale=float(step + 1))
            trainer.step(4)
        return onp.asarray(net.weight.data()).tolist(), trainer.skipped_steps

    assert run(True) == (run(False)[0], 1)


def test_check_finite():
    assert gluon.utils.check_finite([np.ones(3), {"b": onp.zeros(2)}, np.arange(3)])
    assert not gluon.utils.check_finite([np.ones(3), np.array([1.0, -np.inf])])
    with pytest.raises(FloatingPointError, match=r"loss holds non-finite values \(NaN or infinity\) in \[1\] "
                                                 r"\(shape \(2,\)\)\. .*skip_nonfinite=True"):
        gluon.utils.check_finite([np.ones(3), np.array([np.nan, 1.0])], name="loss", raise_on_error=True)
