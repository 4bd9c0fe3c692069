"""JAX's and NumPy's errors inside an ``mx.nd`` operator come out naming the operator and its arguments."""

import pytest

import framework as mx


@pytest.mark.parametrize("call, text", [
    (lambda x: mx.nd.concat(x, mx.nd.ones((3, 3)), dim=1),
     r"nd\.concat\(float32 \(2, 3\), float32 \(3, 3\), dim=1\)"),
    (lambda x: mx.nd.transpose(x, axes=(0, 0)), r"nd\.transpose\(float32 \(2, 3\), axes=\(0, 0\)\)"),
    (lambda x: mx.nd.broadcast_add(x, mx.nd.ones((4,))),
     r"nd\.broadcast_add\(float32 \(2, 3\), float32 \(4,\)\)"),
])
def test_errors_name_the_operator_and_arguments(call, text):
    with pytest.raises((ValueError, TypeError), match=text):
        call(mx.nd.ones((2, 3)))


def test_own_messages_are_not_prefixed_twice():
    with pytest.raises(ValueError, match=r"^nd\.sum: axis=5 is out of range"):
        mx.nd.sum(mx.nd.ones((2, 3)), axis=5)
