"""``mxnet.contrib.amp``, automatic mixed precision, as it works on JAX.

MXNet's AMP patched every operator to cast its inputs to float16 (or back to float32 for a list of
numerically sensitive operators) and scaled the loss dynamically so that float16 gradients do not
underflow. JAX has no global operator table to patch, so here:

- :func:`init` checks and records the target dtype and changes no operator: arrays keep the dtype they
  have. Reduced precision comes from the parameters' dtype (:func:`convert_hybrid_block`, ``net.cast``).
- :func:`init_trainer` and :func:`scale_loss` keep MXNet's protocol without scaling: the scale is 1, so
  ``scale_loss`` yields the loss itself and the update is exactly the one without AMP. Gradients of a
  float32 loss are float32 here and do not underflow in the way AMP's scale guards against; for
  float16 Parameters use ``Trainer(..., skip_nonfinite=True)``, which skips a step whose gradients
  overflowed.
- :func:`convert_hybrid_block` casts the Block's Parameters to the target dtype in place (normalisation
  layers keep float32, as ``cast`` does) and returns it; MXNet returned a converted SymbolBlock.

>>> import jax.numpy as jnp
>>> from framework import gluon
>>> net = gluon.nn.Dense(2, in_units=3); net.initialize()
>>> trainer = gluon.Trainer(net.collect_params(), 'sgd')
>>> init(); init_trainer(trainer)
>>> with scale_loss(jnp.ones(()), trainer) as scaled:
...     float(scaled)
1.0
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator
from typing import Any

import numpy as onp

__all__ = ["init", "init_trainer", "scale_loss", "unscale", "convert_hybrid_block", "LossScaler",
           "target_dtype"]

_TARGETS = ("float16", "bfloat16")
_state: dict[str, Any] = {"target_dtype": None}
_scalers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _check_target(target_dtype: Any) -> str:
    name = onp.dtype(target_dtype).name if target_dtype != "bfloat16" else "bfloat16"
    if name not in _TARGETS:
        raise ValueError(f"amp: target_dtype must be one of {_TARGETS}, got {target_dtype!r}")
    return name


def init(target_dtype: Any = "float16", target_precision_ops: Any = None, conditional_fp32_ops: Any = None,
         fp32_ops: Any = None, layout_optimization: bool = False) -> None:
    """Record ``target_dtype`` for :func:`convert_hybrid_block`; operators are not patched (see above)."""
    _state["target_dtype"] = _check_target(target_dtype)


def target_dtype() -> str | None:
    """The dtype :func:`init` recorded, or None before it."""
    return _state["target_dtype"]


class LossScaler:
    """The loss scale of a Trainer: 1 (see the module's notes); ``loss_scale`` as MXNet names it."""

    def __init__(self) -> None:
        self.loss_scale = 1.0


def init_trainer(trainer: Any) -> None:
    """Give ``trainer`` its :class:`LossScaler` (required before :func:`scale_loss`, as in MXNet)."""
    if not hasattr(trainer, "step"):
        raise TypeError(f"amp.init_trainer: expected a gluon.Trainer, got {type(trainer).__name__}")
    _scalers[trainer] = LossScaler()


def _scaler(trainer: Any) -> LossScaler:
    scaler = _scalers.get(trainer)
    if scaler is None:
        raise RuntimeError("amp.scale_loss: call amp.init_trainer(trainer) first")
    return scaler


@contextlib.contextmanager
def scale_loss(loss: Any, optimizer_or_trainer: Any) -> Iterator[Any]:
    """Yield ``loss`` times the trainer's loss scale (1: the loss itself, or the list of losses)."""
    _scaler(optimizer_or_trainer)
    yield loss


def unscale(optimizer_or_trainer: Any) -> None:
    """Divide the gradients by the loss scale: nothing to do at scale 1."""
    _scaler(optimizer_or_trainer)


def convert_hybrid_block(block: Any, target_dtype: Any = "float16", target_dtype_ops: Any = None,
                         fp32_ops: Any = None, conditional_fp32_ops: Any = None,
                         excluded_sym_names: Any = None, ctx: Any = None,
                         cast_optional_params: bool = False) -> Any:
    """Cast ``block``'s Parameters to ``target_dtype`` (normalisation layers keep float32) and return it."""
    block.cast(_check_target(target_dtype))
    return block
