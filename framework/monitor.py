"""``mx.monitor`` (``mx.mon``): statistics of a bound symbol's arrays every ``interval`` batches, for
debugging: each operator node's outputs during the forward, then the arguments and auxiliary states.

``Monitor.install(exe)`` hands an executor (or ``Module.install_monitor(mon)`` every executor of a
module) a callback; ``tic()`` before a batch's forward starts collecting on every ``interval``-th
batch, ``toc()`` after it returns ``(batch, name, text)`` rows (the text holds the statistic followed by
a tab, as MXNet's), ``toc_print()`` logs them. The default statistic is ``norm(x) / sqrt(x.size)``.
As MXNet, ``pattern`` is a regular expression matched at the start of each name. The backward's nodes are
not reported (MXNet also lists ``<node>_backward_output<i>``), and ``monitor_all=True`` is refused.

>>> import numpy as onp
>>> import framework as mx
>>> x = mx.sym.var('x')
>>> exe = mx.sym.relu(x, name='r').bind(None, {'x': onp.float32([-3, 4])})
>>> mon = mx.mon.Monitor(1)
>>> mon.install(exe)
>>> mon.tic()
>>> _ = exe.forward()
>>> mon.toc()
[(1, 'r_output', '2.828427\\t'), (1, 'x', '3.535534\\t')]
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

__all__ = ["Monitor"]


def _norm_stat(x: jax.Array) -> jax.Array:
    """``norm(x) / sqrt(size)``: the root mean square of the array's values."""
    return jnp.linalg.norm(jnp.ravel(x).astype(jnp.float32)) / math.sqrt(x.size)


def _text(value: Any) -> str:
    """One statistic as MXNet prints it: a scalar's float32 text, otherwise NumPy's array text."""
    arr = onp.asarray(value)
    if arr.size == 1 and arr.ndim <= 1:
        return str(arr.reshape(-1)[0])
    return str(arr)


class Monitor:
    """Collect ``stat_func`` of the installed executors' arrays on every ``interval``-th batch."""

    def __init__(self, interval: int, stat_func: Callable[[jax.Array], Any] | None = None,
                 pattern: str = ".*", sort: bool = False, monitor_all: bool = False) -> None:
        if not isinstance(interval, int) or interval < 1:
            raise ValueError(f"Monitor: interval={interval!r} must be a positive int (batches between stats)")
        if monitor_all:
            raise ValueError("Monitor: monitor_all=True (the inputs of every node) is not supported; the "
                             "default reports every node's outputs, and toc() adds arguments and auxiliary "
                             "states")
        self.stat_func = stat_func if stat_func is not None else _norm_stat
        self.interval = interval
        self.activated = False
        self.queue: list[tuple[int, str, Any]] = []
        self.step = 0
        self.exes: list[Any] = []
        self.re_prog = re.compile(pattern)
        self.sort = sort
        self.monitor_all = monitor_all

    def stat_helper(self, name: str, array: jax.Array) -> None:
        """The executor's callback: queue the statistic of ``array`` while collecting and ``name`` matches."""
        if self.activated and self.re_prog.match(name):
            self.queue.append((self.step, name, self.stat_func(array)))

    def install(self, exe: Any) -> None:
        """Install the callback on an executor (several may be installed)."""
        exe.set_monitor_callback(self.stat_helper, self.monitor_all)
        self.exes.append(exe)

    def tic(self) -> None:
        """Call before a batch's forward: on every ``interval``-th batch, start collecting."""
        if self.step % self.interval == 0:
            self.queue = []
            self.activated = True
        self.step += 1

    def toc(self) -> list[tuple[int, str, str]]:
        """Call after the batch: add the arguments and auxiliary states, stop collecting and return
        ``(batch, name, statistic text)`` rows (sorted by name with ``sort``); [] when not collecting."""
        if not self.activated:
            return []
        for exe in self.exes:
            for name, array in [*exe.arg_dict.items(), *exe.aux_dict.items()]:
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
        self.activated = False
        if self.sort:
            self.queue.sort(key=lambda row: row[1])
        res = []
        for step, name, stats in self.queue:
            values = stats if isinstance(stats, list) else [stats]
            res.append((step, name, "".join(_text(v) + "\t" for v in values)))
        self.queue = []
        return res

    def toc_print(self) -> None:
        """:meth:`toc`, logged (``logging.info``) one row a line as MXNet's."""
        for step, name, text in self.toc():
            logging.info(f"Batch: {step:7d} {name:30s} {text:s}")
