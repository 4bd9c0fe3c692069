"""framework.base: one exception base, and unknown keyword arguments as TypeErrors with a suggestion."""

import pytest

import framework
from framework import autograd, gluon, optimizer
from framework.base import FrameworkError, MXNetError, UnknownArgumentError
from framework.gluon import nn


@pytest.mark.parametrize("make, wrong, right", [
    (lambda: nn.Dense(10, actvation="relu"), "actvation", "activation"),
    (lambda: nn.Conv2D(3, 3, stride=2), "stride", "strides"),
    (lambda: nn.HybridSequential(prefx="a_"), "prefx", "prefix"),
    (lambda: nn.Dropout(0.5, axis=1), "axis", "axes"),
    (lambda: gluon.loss.L2Loss(wieght=1.0), "wieght", "weight"),
    (lambda: optimizer.SGD(learning_rat=0.1), "learning_rat", "learning_rate"),
    (lambda: optimizer.create("adam", bta1=0.9), "bta1", "beta1"),
    (lambda: gluon.Trainer({}, "sgd", kvstor="device"), "kvstor", "kvstore"),
])
def test_unknown_keyword_is_type_error_with_suggestion(make, wrong, right):
    with pytest.raises(TypeError, match=rf"unexpected keyword argument '{wrong}'\. "
                                        rf"Did you mean '{right}'\?.*Accepted: .*{right}"):
        make()


def test_unknown_keyword_without_close_match_lists_accepted():
    with pytest.raises(UnknownArgumentError, match=r"'zzz'\. Accepted: .*in_units.*units"):
        nn.Dense(3, zzz=1)


def test_known_keywords_still_work():
    assert nn.Dense(3, in_units=2, prefix="d_").weight.shape == (3, 2)
    assert optimizer.SGD(learning_rate=0.1, momentum=0.9).momentum == 0.9


def test_one_exception_base_keeping_builtin_bases():
    assert framework.FrameworkError is FrameworkError is MXNetError
    assert issubclass(UnknownArgumentError, TypeError)
    assert issubclass(autograd.GraphError, FrameworkError) and issubclass(autograd.GraphError, RuntimeError)
    with pytest.raises(FrameworkError, match="not a recorded value"):
        autograd.backward(framework.np.ones(2))
