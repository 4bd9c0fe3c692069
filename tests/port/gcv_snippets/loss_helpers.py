# ruff: noqa: UP008, B905, I001  (MXNet 1.x code as its users wrote it)
"""The helpers a library imports from mxnet.gluon.loss to write its own losses."""
import json

from mxnet import gluon, nd
from mxnet.gluon.loss import _apply_weighting, _reshape_like


class WeightedL1(gluon.loss.Loss):
    def __init__(self, weight=0.5, batch_axis=0, **kwargs):
        super(WeightedL1, self).__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.abs(label - pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


pred = nd.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
label = nd.array([0.0, 1.0, 2.0, 3.0, 4.0, 9.0])
sw = nd.array([[1.0], [2.0]])
loss = WeightedL1()
print(json.dumps({'plain': loss(pred, label).asnumpy().tolist(),
                  'weighted': loss(pred, label, sw).asnumpy().tolist(),
                  'reshaped': list(_reshape_like(nd, label, pred).shape)}))
