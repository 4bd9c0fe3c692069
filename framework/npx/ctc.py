"""MXNet's connectionist temporal classification loss (``CTCLoss``/``ctc_loss``, also under
``contrib``) over ``optax.ctc_loss``.

``data`` is (T, N, alphabet) unnormalised scores (a softmax is applied inside), ``label`` (N, L). With
``blank_label='first'`` the blank is class 0 and labels pad with 0; with ``'last'`` the blank is the last
class and labels pad with -1. Without ``use_*_lengths`` a sequence runs to the end of ``data`` and a
label to its first padding value.

>>> import jax.numpy as jnp
>>> [round(v, 4) for v in ctc_loss(jnp.zeros((2, 1, 3)), jnp.array([[1, 0]])).tolist()]
[1.0986]
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax

from ._kernel import compiled

__all__ = ["ctc_loss"]


@compiled("data", "label", "data_lengths", "label_lengths")
def ctc_loss(data: jax.Array, label: jax.Array, data_lengths: jax.Array | None = None,
             label_lengths: jax.Array | None = None, use_data_lengths: bool = False,
             use_label_lengths: bool = False, blank_label: str = "first") -> jax.Array:
    """The negative log-likelihood (N,) of each label sequence under ``data``."""
    if blank_label not in ("first", "last"):
        raise ValueError(f"ctc_loss: blank_label={blank_label!r} must be 'first' or 'last'")
    if data.ndim != 3 or label.ndim != 2 or label.shape[0] != data.shape[1]:
        raise ValueError(f"ctc_loss: data must be (T, N, alphabet) and label (N, L), got "
                         f"{tuple(data.shape)} and {tuple(label.shape)}")
    t, n, k = data.shape
    logits = jnp.transpose(data, (1, 0, 2))
    lab = jnp.asarray(label).astype(jnp.int32)
    steps = jnp.arange(t)
    if use_data_lengths:
        if data_lengths is None:
            raise TypeError("ctc_loss: use_data_lengths=True needs data_lengths")
        dl = jnp.asarray(data_lengths).astype(jnp.int32)
    else:
        dl = jnp.full((n,), t, jnp.int32)
    logit_pad = (steps[None, :] >= dl[:, None]).astype(logits.dtype)
    pad_value = 0 if blank_label == "first" else -1
    if use_label_lengths:
        if label_lengths is None:
            raise TypeError("ctc_loss: use_label_lengths=True needs label_lengths")
        ll = jnp.asarray(label_lengths).astype(jnp.int32)
    else:
        ll = jnp.argmax(jnp.concatenate([lab == pad_value, jnp.ones((n, 1), bool)], axis=1), axis=1)
    pos = jnp.arange(lab.shape[1])
    label_pad = (pos[None, :] >= ll[:, None]).astype(logits.dtype)
    blank = 0 if blank_label == "first" else k - 1
    lab = jnp.where(label_pad > 0, blank, lab)
    loss = optax.ctc_loss(logits, logit_pad, lab, label_pad, blank_id=blank)
    return loss.astype(data.dtype)
