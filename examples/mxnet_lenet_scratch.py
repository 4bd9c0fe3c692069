"""LeNet on Fashion-MNIST "from scratch", written for MXNet 1.9 (numpy interface): the parameters are
arrays with attach_grad, SGD is a hand-written function that updates them in place, and the accuracy is
read with asnumpy / asscalar. It runs unchanged on MXNet (`python examples/mxnet_lenet_scratch.py`) and on
framework (`python -m framework.run examples/mxnet_lenet_scratch.py`).

Settings come from the environment: EPOCHS (default 5), MAX_BATCHES (batches per epoch and per evaluation, default all),
FASHION_MNIST (the directory with the four .gz files, default Debian's dataset-fashion-mnist).
"""
import gzip
import os
import time

import numpy as onp

import mxnet as mx
from mxnet import autograd, gluon, np, npx

npx.set_np()

EPOCHS = int(os.environ.get("EPOCHS", "5"))
MAX_BATCHES = int(os.environ.get("MAX_BATCHES", "0")) or None
ROOT = os.environ.get("FASHION_MNIST", "/usr/share/datasets/fashion-mnist")
batch_size, lr = 256, 0.1
ctx = mx.cpu()



def load(prefix):
    """The IDX files as (N, 1, 28, 28) float32 in [0, 1] and int32 labels."""
    with gzip.open(os.path.join(ROOT, prefix + "-images-idx3-ubyte.gz")) as f:
        images = onp.frombuffer(f.read(), onp.uint8, offset=16).reshape(-1, 1, 28, 28)
    with gzip.open(os.path.join(ROOT, prefix + "-labels-idx1-ubyte.gz")) as f:
        labels = onp.frombuffer(f.read(), onp.uint8, offset=8)
    return images.astype("float32") / 255, labels.astype("int32")


train_iter = gluon.data.DataLoader(gluon.data.ArrayDataset(*load("train")), batch_size, shuffle=True)
test_iter = gluon.data.DataLoader(gluon.data.ArrayDataset(*load("t10k")), batch_size, shuffle=False)

# the same starting weights on every framework
rng = onp.random.RandomState(0)


def init(*shape):
    fan_in = int(onp.prod(shape[1:])) if len(shape) == 4 else shape[0]
    return np.array(rng.normal(0, (2.0 / fan_in) ** 0.5, size=shape).astype("float32"), ctx=ctx)


W1, b1 = init(6, 1, 5, 5), np.zeros(6, ctx=ctx)
W2, b2 = init(16, 6, 5, 5), np.zeros(16, ctx=ctx)
W3, b3 = init(256, 120), np.zeros(120, ctx=ctx)
W4, b4 = init(120, 84), np.zeros(84, ctx=ctx)
W5, b5 = init(84, 10), np.zeros(10, ctx=ctx)
params = [W1, b1, W2, b2, W3, b3, W4, b4, W5, b5]
for param in params:
    param.attach_grad()


def lenet(X):
    h = npx.relu(npx.convolution(X, W1, b1, kernel=(5, 5), num_filter=6))
    h = npx.pooling(h, pool_type="max", kernel=(2, 2), stride=(2, 2))
    h = npx.relu(npx.convolution(h, W2, b2, kernel=(5, 5), num_filter=16))
    h = npx.pooling(h, pool_type="max", kernel=(2, 2), stride=(2, 2))
    h = h.reshape(h.shape[0], -1)
    h = npx.relu(np.dot(h, W3) + b3)
    h = npx.relu(np.dot(h, W4) + b4)
    return np.dot(h, W5) + b5


def cross_entropy(y_hat, y):
    return -npx.pick(npx.log_softmax(y_hat), y)


def sgd(params, lr, batch_size):
    for param in params:
        param[:] = param - lr * param.grad / batch_size


def evaluate_accuracy(data_iter):
    correct, n = 0.0, 0
    for i, (X, y) in enumerate(data_iter):
        if MAX_BATCHES is not None and i >= MAX_BATCHES:
            break
        X, y = X.as_in_context(ctx), y.as_in_context(ctx)
        predicted = lenet(X).argmax(axis=1).asnumpy()
        correct += float((predicted == y.asnumpy()).sum())
        n += y.shape[0]
    return correct / n


for epoch in range(EPOCHS):
    train_l_sum, train_acc_sum, n, start = 0.0, 0.0, 0, time.time()
    for i, (X, y) in enumerate(train_iter):
        if MAX_BATCHES is not None and i >= MAX_BATCHES:
            break
        X, y = X.as_in_context(ctx), y.as_in_context(ctx)
        with autograd.record():
            y_hat = lenet(X)
            l = cross_entropy(y_hat, y).sum()
        l.backward()
        sgd(params, lr, batch_size)
        train_l_sum += l.as_nd_ndarray().asscalar()
        train_acc_sum += (y_hat.argmax(axis=1).astype("int32") == y).sum().as_nd_ndarray().asscalar()
        n += y.shape[0]
    test_acc = evaluate_accuracy(test_iter)
    print("epoch %d, loss %.4f, train acc %.3f, test acc %.4f, %.1f sec"
          % (epoch + 1, train_l_sum / n, train_acc_sum / n, test_acc, time.time() - start))
