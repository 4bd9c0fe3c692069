# ruff: noqa: UP008, B905, I001  (MXNet 1.x code as its users wrote it)
"""mxnet.symbol.contrib.SyncBatchNorm: the node a symbolic graph gets."""
import json

from mxnet.symbol import var
from mxnet.symbol.contrib import SyncBatchNorm

data = var('data')
bn = SyncBatchNorm(data, name='p3_bn', key='p3', eps=1e-5)
graph = json.loads(bn.tojson())
node = graph['nodes'][-1]
print(json.dumps({'args': bn.list_arguments(), 'aux': bn.list_auxiliary_states(), 'op': node['op'],
                  'name': node['name'], 'eps': node['attrs']['eps'], 'key': node['attrs']['key'],
                  'inputs': [i[0] for i in node['inputs']],
                  'inits': [graph['nodes'][i]['attrs'].get('__init__') for i in (3, 4)]}))
