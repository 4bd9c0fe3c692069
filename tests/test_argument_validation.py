"""Arguments that would corrupt training are refused with a message naming them (MXNet 1.9.1 accepts
them: a negative or NaN learning rate, ``clip_global_norm(max_norm<=0)`` flipping the gradients' sign)."""

import math

import numpy as onp
import pytest

from framework import gluon, np, optimizer, recordio


@pytest.mark.parametrize("lr", [-1, -1e-9, math.nan, math.inf])
@pytest.mark.parametrize("name", ["sgd", "adam", "rmsprop", "nag"])
def test_optimizers_refuse_a_corrupting_learning_rate(name, lr):
    with pytest.raises(ValueError, match=r"learning_rate must be a finite number >= 0; got"):
        optimizer.create(name, learning_rate=lr)
    opt = optimizer.create(name, learning_rate=0.1)
    with pytest.raises(ValueError, match=r"set_learning_rate: lr must be a finite number >= 0"):
        opt.set_learning_rate(lr)
    assert opt.learning_rate == 0.1


@pytest.mark.parametrize("lr", [-1, math.nan])
def test_trainer_refuses_a_corrupting_learning_rate(lr):
    net = gluon.nn.Dense(1, in_units=2)
    net.initialize()
    with pytest.raises(ValueError, match="learning_rate must be a finite number >= 0"):
        gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": lr})
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5})
    with pytest.raises(ValueError, match="must be a finite number >= 0"):
        trainer.set_learning_rate(lr)
    assert trainer.learning_rate == 0.5


def test_zero_learning_rate_is_allowed():
    assert optimizer.create("sgd", learning_rate=0).learning_rate == 0


@pytest.mark.parametrize("max_norm", [-1, 0, math.nan])
def test_clip_global_norm_refuses_max_norm_that_flips_or_zeroes(max_norm):
    with pytest.raises(ValueError, match=r"max_norm must be a finite number > 0"):
        gluon.utils.clip_global_norm([np.ones(3)], max_norm)
    clipped, norm = gluon.utils.clip_global_norm([np.ones(3)], 1.0)
    assert onp.allclose(clipped[0], onp.ones(3) / math.sqrt(3), atol=1e-6)


def test_recordio_pack_refuses_text_with_the_fix():
    with pytest.raises(TypeError, match=r"payload s must be bytes; got str \(encode text first"):
        recordio.pack(recordio.IRHeader(0, 1.0, 0, 0), "text")
    header, payload = recordio.unpack(recordio.pack(recordio.IRHeader(0, 1.0, 0, 0), b"text"))
    assert payload == b"text" and header.label == 1.0
