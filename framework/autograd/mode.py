"""The recording and training flags of the current thread: the one place training mode lives.

A pure Block call (``functional_call``) sets the training flag for its duration, so every layer reads
the mode from here whether it runs recorded, compiled or under a user's ``jax.jit``.

>>> prev = set_training(True)
>>> is_training(), is_recording()
(True, False)
>>> _ = set_training(prev)
"""

from __future__ import annotations

import threading

__all__ = ["is_recording", "is_training", "set_recording", "set_training", "swap"]

_local = threading.local()


def is_recording() -> bool:
    """Whether operations are being recorded for ``backward()``."""
    return getattr(_local, "recording", False)


def is_training() -> bool:
    """Whether layers behave as in training (Dropout active, BatchNorm on batch statistics)."""
    return getattr(_local, "training", False)


def set_recording(flag: bool) -> bool:
    """Set the recording flag; returns the previous one."""
    prev = is_recording()
    _local.recording = bool(flag)
    return prev


def set_training(flag: bool) -> bool:
    """Set the training flag; returns the previous one."""
    prev = is_training()
    _local.training = bool(flag)
    return prev


def swap(recording: bool | None, training: bool | None) -> tuple[bool, bool]:
    """Set both flags (None: leave one as it is); returns the previous ``(recording, training)``."""
    local = _local
    prev = (getattr(local, "recording", False), getattr(local, "training", False))
    if recording is not None:
        local.recording = recording
    if training is not None:
        local.training = training
    return prev
