# ruff: noqa: UP008, B905, I001  (MXNet 1.x code as its users wrote it)
"""What MXNet 1.x code sees of the version: mx.__version__, from mxnet import __version__."""
import json

import mxnet as mx
from mxnet import __version__ as version, nd


def check(v):
    parts = tuple(int(p) for p in v.split('.')[:2])
    return (1, 4) <= parts < (2, 0)


print(json.dumps({'mx': mx.__version__, 'imported': version, 'in_range': check(mx.__version__),
                  'base': mx.base.__version__, 'nd_ok': float(nd.ones(1).asscalar())}))
