"""Gluon's neural-network layers (NCHW; weights (out, in, ...)), each a pure function over its Parameters."""

from ..block import Block, HybridBlock
from .containers import HybridSequential, Sequential

__all__ = ["Block", "HybridBlock", "Sequential", "HybridSequential"]

# Layers (basic_layers, conv_layers, activations) are re-exported below.
from ..symbol_block import SymbolBlock  # noqa: E402  (MXNet exports it from gluon.nn too)
from . import fusion  # noqa: E402,F401  (registers the Conv2D+MaxPool2D rewrite with the compile layer)
from .activations import ELU, GELU, SELU, Activation, LeakyReLU, PReLU, SiLU, Swish  # noqa: E402
from .basic_layers import (  # noqa: E402
    Concatenate,
    Dense,
    Dropout,
    Embedding,
    Flatten,
    HybridConcatenate,
    HybridLambda,
    Identity,
    Lambda,
)
from .conv_layers import (  # noqa: E402
    Conv1D,
    Conv1DTranspose,
    Conv2D,
    Conv2DTranspose,
    Conv3D,
    Conv3DTranspose,
)
from .norm_layers import BatchNorm, BatchNormReLU, GroupNorm, InstanceNorm, LayerNorm  # noqa: E402
from .padding import ReflectionPad2D  # noqa: E402
from .pool_layers import (  # noqa: E402
    AvgPool1D,
    AvgPool2D,
    AvgPool3D,
    GlobalAvgPool1D,
    GlobalAvgPool2D,
    GlobalAvgPool3D,
    GlobalMaxPool1D,
    GlobalMaxPool2D,
    GlobalMaxPool3D,
    MaxPool1D,
    MaxPool2D,
    MaxPool3D,
)

__all__ += [
    "Activation", "LeakyReLU", "PReLU", "ELU", "SELU", "GELU", "Swish", "SiLU",
    "Dense", "Dropout", "Embedding", "Flatten", "Identity", "Lambda", "HybridLambda", "Concatenate",
    "HybridConcatenate",
    "Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose",
    "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D",
    "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D", "GlobalAvgPool1D", "GlobalAvgPool2D",
    "GlobalAvgPool3D",
    "BatchNorm", "BatchNormReLU", "LayerNorm", "InstanceNorm", "GroupNorm",
    "SymbolBlock", "ReflectionPad2D",
]
