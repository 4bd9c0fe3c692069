"""Benchmarks of the framework: ``python -m benchmarks [names...] [--quick]``.

Names: ``epochs`` (CPU vs GPU epochs), ``peers`` (PyTorch, plain JAX, MXNet's figure),
``data_pipeline`` (the data team's), ``lenet_formulations`` (the speed team's step overhead and
layer formulations). Results go to ``benchmarks/results/`` as JSON, a Markdown table and a PNG.
"""

BENCHMARKS = ("epochs", "peers", "data_pipeline", "lenet_formulations")

__all__ = ["BENCHMARKS"]
