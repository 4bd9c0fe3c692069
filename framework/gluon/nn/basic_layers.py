"""Basic layers: Dense, Dropout, Embedding, Flatten, Identity, Lambda, HybridLambda, Concatenate.

>>> from framework import np
>>> from framework.gluon import nn
>>> net = nn.Dense(5, in_units=147)
>>> net
Dense(147 -> 5, linear)
>>> net.initialize()
>>> net(np.ones((2, 3, 7, 7))).shape
(2, 5)
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

import jax

from ... import np as _np
from ... import npx as _npx
from ...autograd import tape as _tape
from ...npx import dense as _dense
from ...npx import drop as _drop
from ...npx import indexing as _indexing
from ...npx import shape as _shape
from ..block import Block, HybridBlock
from ..name_scope import internal_scope
from ..parameter import Parameter
from .activations import Activation
from .containers import HybridSequential, Sequential

__all__ = [
    "Dense", "Dropout", "Embedding", "Flatten", "Identity", "Lambda", "HybridLambda", "Concatenate",
    "HybridConcatenate",
]


class Dense(HybridBlock):
    """A fully connected layer: ``activation(x @ weight.T + bias)``, weight (units, in_units).

    ``flatten=True`` collapses all axes but the first; ``flatten=False`` acts on the last axis.
    ``in_units=0`` defers the weight's shape to the first input.

    >>> from framework import np
    >>> layer = Dense(2, activation='relu', in_units=3)
    >>> layer.initialize()
    >>> layer(np.ones((4, 3))).shape, layer
    ((4, 2), Dense(3 -> 2, Activation(relu)))
    """

    _compiled_leaf = True

    def __init__(self, units: int, activation: str | None = None, use_bias: bool = True, flatten: bool = True,
                 dtype: Any = "float32", weight_initializer: Any = None, bias_initializer: Any = "zeros",
                 in_units: int = 0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(units, int) or units < 1:
            raise ValueError(f"Dense: units={units!r} must be a positive int (the output size)")
        self._units, self._flatten, self._in_units = units, flatten, in_units
        self.weight = Parameter("weight", shape=(units, in_units), init=weight_initializer, dtype=dtype,
                                allow_deferred_init=True)
        self.bias = (Parameter("bias", shape=(units,), init=bias_initializer, dtype=dtype,
                               allow_deferred_init=True) if use_bias else None)
        self.act = None
        if activation is not None:
            with internal_scope(self):  # named <prefix><act_type>_, as MXNet 1.x names it
                self.act = Activation(activation, prefix=f"{activation}_")

    def infer_shape(self, x: Any, *args: Any) -> None:
        in_units = math.prod(x.shape[1:]) if self._flatten else x.shape[-1]
        self.weight.shape = (self._units, in_units)

    def forward(self, x: jax.Array) -> jax.Array:
        out = _dense.fully_connected(x, self.weight.data(), None if self.bias is None else self.bias.data(),
                                     num_hidden=self._units, no_bias=self.bias is None, flatten=self._flatten)
        return self.act(out) if self.act is not None else out

    def _symbol_forward(self, F: Any, x: Any, weight: Any, bias: Any = None) -> Any:
        args = (x, weight) if bias is None else (x, weight, bias)
        out = F.FullyConnected(*args, no_bias=bias is None, num_hidden=self._units, flatten=self._flatten,
                               name="fwd")
        return self.act(out) if self.act is not None else out

    def __repr__(self) -> str:
        shape = self.weight.shape
        return f"{type(self).__name__}({shape[1] or None} -> {shape[0]}, {self.act or 'linear'})"


class Dropout(HybridBlock):
    """Zero a fraction ``rate`` of the input in training (kept values scaled by 1/(1-rate));
    identity in inference. ``axes`` share one mask along those axes.

    >>> from framework import np
    >>> Dropout(0.5)(np.ones(3)).tolist()   # not training
    [1.0, 1.0, 1.0]
    """

    _compiled_leaf = True

    def __init__(self, rate: float, axes: tuple[int, ...] = (), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not 0.0 <= float(rate) <= 1.0:
            raise ValueError(f"Dropout: rate={rate} is a drop probability and must be in [0, 1]")
        self._rate, self._axes = float(rate), tuple(axes)

    def forward(self, x: jax.Array) -> jax.Array:
        if self._rate == 0.0 or not _tape.is_training():
            return x
        return _drop.dropout(x, p=self._rate, axes=self._axes, key=self.prng_key(), training=True)

    def _symbol_forward(self, F: Any, x: Any) -> Any:
        if self._rate > 0:
            return F.Dropout(x, p=self._rate, axes=self._axes, name="fwd", cudnn_off=False)
        return F.identity(x)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(p = {self._rate}, axes={self._axes})"


class Embedding(HybridBlock):
    """Integer indices -> rows of a (input_dim, output_dim) weight; out-of-range indices are clipped.

    >>> from framework import np
    >>> layer = Embedding(10, 4)
    >>> layer.initialize()
    >>> layer(np.array([[1, 2, 3]])).shape, layer
    ((1, 3, 4), Embedding(10 -> 4, float32))
    """

    _integer_inputs = True  # its inputs are indices (gluon/_inputs.py checks the others)

    _compiled_leaf = True

    def __init__(self, input_dim: int, output_dim: int, dtype: Any = "float32",
                 weight_initializer: Any = None, sparse_grad: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._input_dim, self._output_dim, self._dtype = input_dim, output_dim, dtype
        self.weight = Parameter("weight", shape=(input_dim, output_dim), init=weight_initializer, dtype=dtype,
                                allow_deferred_init=True)

    def forward(self, x: jax.Array) -> jax.Array:
        return _indexing.embedding(x, self.weight.data(), self._input_dim, self._output_dim)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._input_dim} -> {self._output_dim}, {self._dtype})"


class Flatten(HybridBlock):
    """(N, a, b, ...) -> (N, a*b*...).

    >>> from framework import np
    >>> Flatten()(np.ones((2, 3, 4))).shape
    (2, 12)
    """

    _compiled_leaf = True

    def forward(self, x: jax.Array) -> jax.Array:
        return _shape.batch_flatten(x)

    def _symbol_forward(self, F: Any, x: Any) -> Any:
        return F.Flatten(x)

    def __repr__(self) -> str:
        return type(self).__name__


class Identity(HybridBlock):
    """Returns its input unchanged (a placeholder, e.g. in a Concatenate).

    >>> from framework import np
    >>> Identity()(np.ones(2)).tolist()
    [1.0, 1.0]
    """

    def forward(self, x: Any) -> Any:
        return x

    def _symbol_forward(self, F: Any, x: Any) -> Any:
        return x


def _lookup(function: str, who: str) -> Callable[..., Any]:
    for namespace in (_np, _npx):
        fn = getattr(namespace, function, None)
        if callable(fn):
            return fn
    raise ValueError(f"{who}: function name {function!r} is not found in np or npx")


class _F:
    """MXNet's ``F`` namespace for ``HybridLambda(lambda F, x: ...)``: npx first, then np."""

    np = _np
    npx = _npx

    def __getattr__(self, name: str) -> Any:
        return _lookup(name, "HybridLambda F")


class Lambda(Block):
    """Wrap a function (or the name of an ``np``/``npx`` function) as a Block.

    >>> from framework import np
    >>> Lambda('tanh')(np.zeros(2)).tolist(), Lambda(lambda x: x + 1)
    ([0.0, 0.0], Lambda(<lambda>))
    """

    def __init__(self, function: str | Callable[..., Any], prefix: str | None = None) -> None:
        super().__init__(prefix)
        if isinstance(function, str):
            self._func_impl = _lookup(function, "Lambda")
            self._func_name = function
        elif callable(function):
            self._func_impl = function
            self._func_name = getattr(function, "__name__", type(function).__name__)
        else:
            raise ValueError(f"Unrecognized function in lambda: {function!r} of type "
                             f"{type(function).__name__}")

    def forward(self, *args: Any) -> Any:
        return self._func_impl(*args)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._func_name})"


class HybridLambda(HybridBlock):
    """Wrap a hybridizable function as a HybridBlock: ``function(x, *args)``, or MXNet 1.x's
    ``function(F, x, *args)`` (a first parameter named ``F`` receives an np/npx namespace).

    >>> from framework import np
    >>> HybridLambda(lambda F, x: F.relu(x))(np.array([-1.0, 1.0])).tolist()
    [0.0, 1.0]
    """

    def __init__(self, function: str | Callable[..., Any], prefix: str | None = None) -> None:
        super().__init__(prefix)
        self._by_name = isinstance(function, str)
        if isinstance(function, str):
            self._func, self._func_name, self._wants_f = _lookup(function, "HybridLambda"), function, False
        elif callable(function):
            self._func = function
            self._func_name = getattr(function, "__name__", type(function).__name__)
            try:
                first = next(iter(inspect.signature(function).parameters), None)
            except (TypeError, ValueError):
                first = None
            self._wants_f = first == "F"
        else:
            raise ValueError(f"Unrecognized function in lambda: {function!r} of type "
                             f"{type(function).__name__}")

    def forward(self, x: Any, *args: Any) -> Any:
        if self._wants_f:
            return self._func(_F(), x, *args)
        return self._func(x, *args)

    def _symbol_forward(self, F: Any, x: Any, *args: Any) -> Any:
        if self._wants_f:
            return self._func(F, x, *args)
        if self._by_name:  # MXNet looks the name up in F
            return getattr(F, self._func_name)(x, *args)
        raise TypeError(f"HybridLambda({self._func_name}) cannot be called on a Symbol: write it as "
                        "lambda F, x: ... with F's operators")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._func_name})"


class _ConcatMixin:
    def forward(self, x: Any) -> Any:
        outs = [block(x) for block in self._children.values()]
        return _np.concatenate(outs, axis=self.axis)

    def _symbol_forward(self, F: Any, x: Any) -> Any:
        return F.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class Concatenate(_ConcatMixin, Sequential):
    """Run every child on the same input and concatenate the outputs along ``axis``.

    >>> from framework import np
    >>> net = Concatenate(axis=1)
    >>> net.add(Identity(), Identity())
    >>> net(np.ones((2, 3))).shape
    (2, 6)
    """

    def __init__(self, axis: int = -1, prefix: str | None = None, params: Any = None) -> None:
        super().__init__(prefix, params)
        self.axis = axis


class HybridConcatenate(_ConcatMixin, HybridSequential):
    """:class:`Concatenate` for HybridBlocks: ``hybridize()`` compiles the whole branch set.

    >>> from framework import np
    >>> net = HybridConcatenate(axis=1)
    >>> net.add(Dense(2, in_units=3), Dense(3, in_units=3))
    >>> net.initialize()
    >>> net(np.ones((4, 3))).shape
    (4, 5)
    """

    def __init__(self, axis: int = -1, prefix: str | None = None, params: Any = None) -> None:
        super().__init__(prefix, params)
        self.axis = axis
