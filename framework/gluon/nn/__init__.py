"""Gluon's neural-network layers (NCHW; weights (out, in, ...)), each a pure function over its Parameters."""

from .containers import HybridSequential, Sequential

__all__ = ["Sequential", "HybridSequential"]

# Layers (basic_layers, conv_layers, activations) are re-exported below.
