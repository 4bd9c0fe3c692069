"""Picklable helpers that DataLoader worker processes import (numpy only, so workers start fast)."""

from __future__ import annotations

import os
import sys
import time


class RaiseAt:
    """A ``transform`` (data, label) that raises FileNotFoundError on the sample labelled ``label``."""

    def __init__(self, label: int) -> None:
        self.label = label

    def __call__(self, x, y):
        if int(y) == self.label:
            raise FileNotFoundError(f"bad sample {int(y)}")  # an OSError, not to be taken for a closed pipe
        return x, y


class SleepAt:
    """A ``transform`` (data, label) that sleeps ``seconds`` on the sample whose label is ``label``."""

    def __init__(self, label: int, seconds: float) -> None:
        self.label, self.seconds = label, seconds

    def __call__(self, x, y):
        if int(y) == self.label:
            time.sleep(self.seconds)
        return x, y


def jax_loaded(x, y):
    """Replaces the label by whether the process that loaded the sample has imported JAX (1) or not (0)."""
    return x, int("jax" in sys.modules)


def pid_of_worker(x, y):
    """Replaces the label by the id of the process that loaded the sample."""
    return x, os.getpid()


class ExitAt:
    """A ``transform`` (data, label) that ends its process with ``os._exit(code)`` on sample ``label``."""

    def __init__(self, label: int, code: int) -> None:
        self.label, self.code = label, code

    def __call__(self, x, y):
        if int(y) == self.label:
            os._exit(self.code)
        return x, y


class HangWhileFlag:
    """A ``transform`` (data, label) that sleeps an hour on sample ``label`` while file ``flag`` exists."""

    def __init__(self, label: int, flag: str) -> None:
        self.label, self.flag = label, flag

    def __call__(self, x, y):
        if int(y) == self.label and os.path.exists(self.flag):
            time.sleep(3600)
        return x, y


def read_then_zero(x, y):
    """A ``transform`` (data, label) that writes into its input: returns a copy of the sample, then
    overwrites the sample where it lies in the dataset with zeros."""
    out = x.copy()
    x[...] = 0
    return out, y
