# ruff: noqa: UP008, B905, I001  (MXNet 1.x code as its users wrote it)
"""mxnet.base's type tuples, as libraries written for MXNet 1.x test their arguments."""
import json

import numpy as np
from mxnet import nd
from mxnet.base import integer_types, numeric_types, string_types

values = {'int': 3, 'float': 2.5, 'np_float32': np.float32(1), 'np_int64': np.int64(2), 'str': 'a',
          'bool': True, 'nd': nd.ones(1), 'list': [1]}
print(json.dumps({name: [isinstance(v, numeric_types), isinstance(v, integer_types),
                         isinstance(v, string_types)] for name, v in values.items()}))
