"""Named points of the main job where a test can have it killed by SIGKILL (``--_kill-at E:NAME``).

The job announces where it is (:func:`at_epoch`, :func:`reached`); when the armed point ``E:NAME`` is
reached, the process prints ``kill point reached: E:NAME`` and sends itself SIGKILL: no clean-up, no
``finally``, exactly as the kernel's out-of-memory killer or a lost machine would stop it. Points (``E``
is the 1-based epoch in progress): ``batchB`` (the gluon loop, after batch B), ``trained`` (the epoch's
training finished), ``ckpt-begin``, ``ckpt-half`` (half the temporary file written), ``ckpt-written``,
``ckpt-fsynced``, ``ckpt-renamed``, ``ckpt-dir-synced``, and after the last epoch ``params-written``,
``metrics-written``, ``outputs-written``. Unarmed, a point costs one comparison.

>>> arm(None); at_epoch(1); reached("ckpt-begin")   # unarmed: nothing happens
"""

from __future__ import annotations

import os
import signal
import sys

__all__ = ["arm", "at_epoch", "reached", "POINTS"]

POINTS = ("trained", "ckpt-begin", "ckpt-half", "ckpt-written", "ckpt-fsynced", "ckpt-renamed",
          "ckpt-dir-synced", "params-written", "metrics-written", "outputs-written")

_state: dict[str, object] = {"target": None, "epoch": 0}


def arm(target: str | None) -> None:
    """Kill this process at ``target`` ('E:NAME'); None disarms."""
    _state["target"] = target


def at_epoch(epoch: int) -> None:
    """The job is now in epoch ``epoch`` (1-based)."""
    _state["epoch"] = epoch


def reached(name: str) -> None:
    """The job is at point ``name`` of the current epoch."""
    target = _state["target"]
    if target is not None and target == f"{_state['epoch']}:{name}":
        print(f"kill point reached: {target}", flush=True)
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGKILL)
