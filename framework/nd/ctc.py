"""MXNet 1.x's ``mx.nd.CTCLoss`` / ``mx.nd.ctc_loss`` (also ``nd.contrib.*``): see
:mod:`framework.npx.ctc`.

>>> import framework as mx
>>> mx.nd.ctc_loss is mx.nd.CTCLoss
True
"""

from __future__ import annotations

from ..npx import ctc as _ctc
from ._op import nd_op

__all__ = ["CTCLoss", "ctc_loss"]

CTCLoss = nd_op(_ctc.ctc_loss)
ctc_loss = CTCLoss
