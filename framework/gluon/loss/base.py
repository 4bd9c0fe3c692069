"""The Loss base class and the pointwise losses: L2, L1, softmax / sigmoid cross-entropy, KL divergence,
Huber, hinge, squared hinge, logistic (MXNet 1.9.1's formulas, in jax.numpy).

Every loss returns one value per sample: the element-wise loss is weighted (``sample_weight``
broadcast against it, then the scalar ``weight``) and averaged over every axis but ``batch_axis``.
"""

from __future__ import annotations

import inspect
import numbers
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from ..block import HybridBlock
from ..hybrid_forward import call_hybrid_forward, defines_hybrid_forward

__all__ = [
    "Loss", "L2Loss", "L1Loss", "SoftmaxCrossEntropyLoss", "SoftmaxCELoss", "SigmoidBinaryCrossEntropyLoss",
    "SigmoidBCELoss", "KLDivLoss", "HuberLoss", "HingeLoss", "SquaredHingeLoss", "LogisticLoss",
]

# Stands for an optional argument left out before one that is given (a compiled call needs arrays).
_ABSENT = onp.zeros((0,), onp.float32)


def _given(x: Any) -> bool:
    return x is not None and not (getattr(x, "shape", None) == (0,) and getattr(x, "ndim", 1) == 1)


def _reshape_like(x: jax.Array, y: jax.Array) -> jax.Array:
    x = jnp.asarray(x)
    if x.size != y.size:
        raise ValueError(f"label of shape {tuple(x.shape)} cannot be reshaped like the prediction of shape "
                         f"{tuple(y.shape)}: they must have the same number of elements")
    return x.reshape(y.shape)


def _apply_weighting(loss: jax.Array, weight: float | None = None, sample_weight: Any = None) -> jax.Array:
    if _given(sample_weight):
        loss = loss * sample_weight
    if weight is not None:
        loss = loss * weight
    return loss


def _batch_mean(loss: jax.Array, batch_axis: int) -> jax.Array:
    axis = batch_axis % loss.ndim if loss.ndim else 0
    return jnp.mean(loss, axis=tuple(i for i in range(loss.ndim) if i != axis))


def _softrelu(x: jax.Array) -> jax.Array:
    return jnp.logaddexp(x, 0.0)


# per loss class: forward's signature, and the positional counts a call may bind without it
_SIGNATURES: dict[type, tuple[inspect.Signature, int, int]] = {}


def _signature(cls: type, forward: Any) -> tuple[inspect.Signature, int, int]:
    """(signature, required, plain): a call of ``required`` to ``plain`` positional non-None arguments
    and no keywords binds as given (every omitted parameter defaults to None)."""
    sig = forward if isinstance(forward, inspect.Signature) else inspect.signature(forward)
    params = list(sig.parameters.values())
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    plain = 0
    while plain < len(params) and params[plain].kind in positional:
        plain += 1
    required = sum(p.default is inspect.Parameter.empty for p in params[:plain])
    if any(p.kind not in positional or (p.default is not None and p.default is not inspect.Parameter.empty)
           for p in params):
        plain = -1  # defaults other than None, keyword-only or variadic parameters: always bind
    _SIGNATURES[cls] = sig, required, plain
    return _SIGNATURES[cls]


class Loss(HybridBlock):
    """Base class of losses: ``Loss(weight=None, batch_axis=0)``; subclasses define
    ``forward(pred, label, sample_weight=None, ...)`` in jax.numpy. Calls run compiled and record
    under ``autograd.record()`` like built-in layers; keyword arguments are accepted.
    """

    _compiled_leaf = True

    def __init__(self, weight: float | None = None, batch_axis: int = 0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if weight is not None and (not isinstance(weight, numbers.Number) or isinstance(weight, bool)):
            raise TypeError(f"{type(self).__name__}: weight must be a number (a global scale of the loss), "
                            f"got {weight!r}; per-sample weights go to the call's sample_weight")
        if not isinstance(batch_axis, int):
            raise TypeError(f"{type(self).__name__}: batch_axis must be an int, got {batch_axis!r}")
        self._weight = weight
        self._batch_axis = batch_axis

    def __repr__(self) -> str:
        return f"{type(self).__name__}(batch_axis={self._batch_axis}, w={self._weight})"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        sig, required, plain = _SIGNATURES.get(type(self)) or _signature(type(self), self._call_target())
        if not kwargs and required <= len(args) <= plain and all(a is not None for a in args):
            return super().__call__(*args)  # what binding would give: no keyword, no None to drop
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as err:
            raise TypeError(f"{type(self).__name__}{sig}: {err}") from None
        bound.apply_defaults()
        values = list(bound.arguments.values())
        while values and values[-1] is None:
            values.pop()
        return super().__call__(*[_ABSENT if v is None else v for v in values])

    def _call_target(self) -> Any:
        """What a call binds its arguments to: ``forward``, or a 1.x subclass's ``hybrid_forward``
        without ``F`` and the Parameters it receives by name."""
        if not defines_hybrid_forward(self):
            return self.forward
        sig = inspect.signature(self.hybrid_forward)
        params = list(sig.parameters.values())[1:]
        return sig.replace(parameters=[p for p in params if p.name not in self._reg_params])

    def forward(self, *args: Any) -> Any:
        """A 1.x subclass's ``hybrid_forward(F, pred, label, ...)``, an argument left out as None."""
        if defines_hybrid_forward(self):
            return call_hybrid_forward(self, *[a if _given(a) else None for a in args])
        raise NotImplementedError(f"{type(self).__name__} must define forward() (or 1.x's hybrid_forward)")


class L2Loss(Loss):
    """``0.5 * (pred - label)^2`` averaged per sample (MXNet's ``weight/2`` scaling).

    >>> import jax.numpy as jnp
    >>> L2Loss()(jnp.array([[1.0, 2.0]]), jnp.array([[0.0, 0.0]])).tolist()
    [1.25]
    """

    def __init__(self, weight: float | None = 1.0, batch_axis: int = 0, **kwargs: Any) -> None:
        super().__init__(weight, batch_axis, **kwargs)

    def forward(self, pred, label, sample_weight=None):
        loss = jnp.square(_reshape_like(label, pred) - pred)
        return _batch_mean(_apply_weighting(loss, self._weight / 2, sample_weight), self._batch_axis)


class L1Loss(Loss):
    """``|pred - label|`` averaged per sample."""

    def forward(self, pred, label, sample_weight=None):
        loss = jnp.abs(_reshape_like(label, pred) - pred)
        return _batch_mean(_apply_weighting(loss, self._weight, sample_weight), self._batch_axis)


class SoftmaxCrossEntropyLoss(Loss):
    """``-log_softmax(pred)[label]`` (``sparse_label``) or ``-sum(label * log_softmax(pred))`` along
    ``axis``; ``from_logits=True`` takes log-probabilities. Float or int labels; out-of-range indices are
    clipped (MXNet's ``pick``).

    >>> import jax.numpy as jnp
    >>> round(SoftmaxCrossEntropyLoss()(jnp.zeros((1, 4)), jnp.array([2])).item(), 6)
    1.386294
    """

    def __init__(self, axis: int = -1, sparse_label: bool = True, from_logits: bool = False,
                 weight: float | None = None, batch_axis: int = 0, **kwargs: Any) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._axis = axis
        self._sparse_label = sparse_label
        self._from_logits = from_logits

    def forward(self, pred, label, sample_weight=None):
        axis = self._axis % pred.ndim
        if not self._from_logits:
            pred = jax.nn.log_softmax(pred, axis=axis)
        if self._sparse_label:
            label = jnp.asarray(label)
            want = pred.shape[:axis] + pred.shape[axis + 1:]
            if label.size != int(onp.prod(want)):
                raise ValueError(f"SoftmaxCrossEntropyLoss: sparse labels of shape {tuple(label.shape)} do "
                                 f"not match predictions of shape {tuple(pred.shape)} (one class index per "
                                 f"distribution along axis {self._axis}); for one-hot labels use "
                                 "sparse_label=False")
            index = jnp.clip(label.reshape(want).astype(jnp.int32), 0, pred.shape[axis] - 1)
            loss = -jnp.take_along_axis(pred, jnp.expand_dims(index, axis), axis=axis)
        else:
            loss = -jnp.sum(pred * _reshape_like(label, pred), axis=axis, keepdims=True)
        return _batch_mean(_apply_weighting(loss, self._weight, sample_weight), self._batch_axis)


SoftmaxCELoss = SoftmaxCrossEntropyLoss


class SigmoidBinaryCrossEntropyLoss(Loss):
    """Binary cross-entropy of ``sigmoid(pred)`` (or ``pred`` itself with ``from_sigmoid=True``),
    computed stably; ``pos_weight`` (a call argument) weighs the positive term.

    >>> import jax.numpy as jnp
    >>> round(SigmoidBinaryCrossEntropyLoss()(jnp.zeros((1, 1)), jnp.ones((1, 1))).item(), 6)
    0.693147
    """

    def __init__(self, from_sigmoid: bool = False, weight: float | None = None, batch_axis: int = 0,
                 **kwargs: Any) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._from_sigmoid = from_sigmoid

    def forward(self, pred, label, sample_weight=None, pos_weight=None):
        label = _reshape_like(label, pred)
        if not self._from_sigmoid:
            if not _given(pos_weight):
                loss = jax.nn.relu(pred) - pred * label + _softrelu(-jnp.abs(pred))
            else:
                log_weight = 1 + (pos_weight - 1) * label
                loss = pred - pred * label + log_weight * (_softrelu(-jnp.abs(pred)) + jax.nn.relu(-pred))
        else:
            eps = 1e-12
            pos = jnp.log(pred + eps) * label
            if _given(pos_weight):
                pos = pos * pos_weight
            loss = -(pos + jnp.log(1.0 - pred + eps) * (1.0 - label))
        return _batch_mean(_apply_weighting(loss, self._weight, sample_weight), self._batch_axis)


SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss


class KLDivLoss(Loss):
    """``label * (log(label + 1e-12) - pred)`` averaged per sample; ``pred`` are log-probabilities
    (``from_logits=True``, the default) or logits (``from_logits=False``: log_softmax first)."""

    def __init__(self, from_logits: bool = True, axis: int = -1, weight: float | None = None,
                 batch_axis: int = 0, **kwargs: Any) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._axis = axis

    def forward(self, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = jax.nn.log_softmax(pred, axis=self._axis)
        loss = label * (jnp.log(label + 1e-12) - pred)
        return _batch_mean(_apply_weighting(loss, self._weight, sample_weight), self._batch_axis)


class HuberLoss(Loss):
    """``|d| - rho/2`` where ``|d| > rho``, else ``d^2 / (2 rho)``, ``d = label - pred``."""

    def __init__(self, rho: float = 1, weight: float | None = None, batch_axis: int = 0,
                 **kwargs: Any) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._rho = rho

    def forward(self, pred, label, sample_weight=None):
        loss = jnp.abs(_reshape_like(label, pred) - pred)
        loss = jnp.where(loss > self._rho, loss - 0.5 * self._rho, (0.5 / self._rho) * jnp.square(loss))
        return _batch_mean(_apply_weighting(loss, self._weight, sample_weight), self._batch_axis)


class HingeLoss(Loss):
    """``max(0, margin - pred * label)`` with labels in {-1, 1}."""

    def __init__(self, margin: float = 1, weight: float | None = None, batch_axis: int = 0,
                 **kwargs: Any) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def forward(self, pred, label, sample_weight=None):
        loss = jax.nn.relu(self._margin - pred * _reshape_like(label, pred))
        return _batch_mean(_apply_weighting(loss, self._weight, sample_weight), self._batch_axis)


class SquaredHingeLoss(HingeLoss):
    """``max(0, margin - pred * label)^2`` with labels in {-1, 1}."""

    def forward(self, pred, label, sample_weight=None):
        loss = jnp.square(jax.nn.relu(self._margin - pred * _reshape_like(label, pred)))
        return _batch_mean(_apply_weighting(loss, self._weight, sample_weight), self._batch_axis)


class LogisticLoss(Loss):
    """``log(1 + exp(-pred * label))`` for labels in {-1, 1} (``label_format='signed'``) or {0, 1}
    (``'binary'``), computed stably."""

    def __init__(self, weight: float | None = None, batch_axis: int = 0, label_format: str = "signed",
                 **kwargs: Any) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        if label_format not in ("signed", "binary"):
            raise ValueError(f"label_format can only be signed or binary, recieved {label_format}.")
        self._label_format = label_format

    def forward(self, pred, label, sample_weight=None):
        label = _reshape_like(label, pred)
        if self._label_format == "signed":
            label = (label + 1.0) / 2.0
        loss = jax.nn.relu(pred) - pred * label + _softrelu(-jnp.abs(pred))
        return _batch_mean(_apply_weighting(loss, self._weight, sample_weight), self._batch_axis)
