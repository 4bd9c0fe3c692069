"""Benchmarks of the framework: ``python -m benchmarks [names...] [--quick]``.

Names: ``epochs`` (CPU vs GPU epochs), ``peers`` (PyTorch, plain JAX, MXNet's figure), and the other
teams' modules of this package: ``data_pipeline`` (the DataLoader), ``lenet_formulations``,
``step_overhead`` and ``hybridize`` (the speed team's), plus any other ``benchmarks/<name>.py`` with a
``main(argv)``. Results go to ``benchmarks/results/`` as JSON, a Markdown table and a PNG.
"""

from __future__ import annotations

import pkgutil
from pathlib import Path

# The order they run in; modules found on disk that are not listed run after these.
KNOWN = ("epochs", "peers", "data_pipeline", "lenet_formulations", "step_overhead", "hybridize", "resnet",
         "lstm")
_NOT_BENCHMARKS = {"common"}


def available() -> list[str]:
    """Every benchmark name: the known ones (present or not), then any other module of this package."""
    here = [m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)])]
    extra = sorted(n for n in here if n not in KNOWN and n not in _NOT_BENCHMARKS and not n.startswith("_"))
    return [*KNOWN, *extra]


__all__ = ["KNOWN", "available"]
