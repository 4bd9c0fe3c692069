"""The recording and training flags of the current thread, and the scopes that set them: the one place
training mode lives.

:data:`flags` is the current thread's pair (plain attributes, read without a call on the hot path of a
training step); ``record()``/``pause()``/``train_mode()``/``predict_mode()`` set them for a ``with``
block. A pure Block call (``functional_call``) sets the training flag for its duration, so every layer
reads the mode from here whether it runs recorded, compiled or under a user's ``jax.jit``.

>>> with record():
...     is_recording(), is_training()
(True, True)
>>> prev = set_training(True)
>>> is_training(), is_recording()
(True, False)
>>> _ = set_training(prev)
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

__all__ = ["flags", "is_recording", "is_training", "set_recording", "set_training", "record",
           "pause", "train_mode", "predict_mode"]


class _Flags(threading.local):
    """One thread's flags; the class attributes are every thread's starting values."""

    recording = False
    training = False


flags = _Flags()


def is_recording() -> bool:
    """Whether operations are being recorded for ``backward()``."""
    return flags.recording


def is_training() -> bool:
    """Whether layers behave as in training (Dropout active, BatchNorm on batch statistics)."""
    return flags.training


def set_recording(flag: bool) -> bool:
    """Set the recording flag; returns the previous one."""
    prev = flags.recording
    flags.recording = bool(flag)
    return prev


def set_training(flag: bool) -> bool:
    """Set the training flag; returns the previous one."""
    prev = flags.training
    flags.training = bool(flag)
    return prev


class _Scope:
    """Set the recording and/or training flag for a ``with`` block (None: leave it), then restore it.
    A class rather than a generator: a training loop enters one per step."""

    __slots__ = ("recording", "training", "prev")

    def __init__(self, recording: bool | None, training: bool | None) -> None:
        self.recording, self.training = recording, training

    def __enter__(self) -> None:
        local = flags
        self.prev = (local.recording, local.training)
        if self.recording is not None:
            local.recording = self.recording
        if self.training is not None:
            local.training = self.training

    def __exit__(self, *exc: Any) -> None:
        flags.recording, flags.training = self.prev


def record(train_mode: bool = True) -> contextlib.AbstractContextManager[None]:
    """Record computations for ``backward()``; ``train_mode`` sets Dropout/BatchNorm behaviour."""
    return _Scope(True, train_mode)


def pause(train_mode: bool = False) -> contextlib.AbstractContextManager[None]:
    """Stop recording inside a ``record()`` scope."""
    return _Scope(False, train_mode)


def train_mode() -> contextlib.AbstractContextManager[None]:
    """Training behaviour (batch statistics, dropout) without recording."""
    return _Scope(None, True)


def predict_mode() -> contextlib.AbstractContextManager[None]:
    """Inference behaviour, even inside ``record()``."""
    return _Scope(None, False)
