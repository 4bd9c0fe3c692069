# ruff: noqa: UP008, B905, I001  (MXNet 1.x code as its users wrote it)
"""mxnet.image.image._get_interp_method: MXNet's interpolation codes resolved from sizes."""
import json

from mxnet.image.image import _get_interp_method as get_interp

sizes = [(), (10, 10, 20, 20), (20, 20, 10, 10), (10, 20, 20, 10), (10, 10, 10, 10)]
print(json.dumps({'fixed': [get_interp(i) for i in range(5)],
                  'auto': [get_interp(9, s) for s in sizes],
                  'random_in_range': all(0 <= get_interp(10) <= 4 for _ in range(20))}))
