# ruff: noqa: UP008, B905, I001  (MXNet 1.x code as its users wrote it)
"""gluon.data.dataloader's _MultiWorkerIter and default_mp_batchify_fn, as a library subclasses them."""
import json
from multiprocessing.pool import ThreadPool

from mxnet.gluon.data import ArrayDataset, BatchSampler, SequentialSampler
from mxnet.gluon.data.dataloader import _MultiWorkerIter, default_mp_batchify_fn

data = ArrayDataset(list(range(7)), [v * 10 for v in range(7)])


def worker(samples, batchify_fn, dataset):
    return batchify_fn([dataset[i] for i in samples])


class Counting(_MultiWorkerIter):
    pushed = 0

    def _push_next(self):
        Counting.pushed += 1
        super(Counting, self)._push_next()


with ThreadPool(2) as pool:
    it = Counting(pool, default_mp_batchify_fn, BatchSampler(SequentialSampler(7), 3, 'keep'),
                  worker_fn=worker, prefetch=2, dataset=data)
    batches = [[b.asnumpy().tolist() for b in batch] for batch in it]
print(json.dumps({'len': len(it), 'batches': batches, 'pushed': Counting.pushed}))
