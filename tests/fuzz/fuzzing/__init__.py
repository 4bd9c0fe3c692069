"""Fuzzing the readers of hostile files: a seeded mutation engine and one target per file format.

Add a format by writing ``targets_<name>.py`` here with a module-level ``TARGET`` (a
:class:`.engine.Target`: a generator of valid files, a loader, the documented error type) and listing
the module in ``TARGET_MODULES``. The normal suite runs a short deterministic slice of every target
(``tests/fuzz/test_fuzz_targets.py``); ``python -m benchmarks fuzz --cases N`` runs the long one.

>>> sorted(targets())[:2]
['checkpoint', 'idx']
"""

from __future__ import annotations

import importlib

from .engine import Target

__all__ = ["TARGET_MODULES", "targets"]

#: Target modules of this package, by format name.
TARGET_MODULES = {
    "params": "targets_params",
    "idx": "targets_idx",
    "checkpoint": "targets_checkpoint",
    "npz": "targets_npz",
    "symbol": "targets_symbol",
    "recordio": "targets_recordio",
    "trainer_states": "targets_trainer_states",
    "image": "targets_image",
}


def targets() -> dict[str, Target]:
    """Every registered format's :class:`.engine.Target`, by name."""
    return {name: importlib.import_module(f".{module}", __name__).TARGET
            for name, module in TARGET_MODULES.items()}
