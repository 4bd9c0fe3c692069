"""Reference files for the rest of MXNet's API (``mx.io``, ``mx.kv``, ``mx.operator``, ``mx.metric``,
``mx.image`` augmenters, ``mx.callback``, ``mx.test_utils``), made by real MXNet 1.9.1.

Run from the repository root: ``/tmp/mx/bin/python tools/mxnet_reference/gen_api.py [SECTION ...]``
(sections: io, kv, operator, metric, image, callback, test_utils; default all), then
``python tools/mxnet_reference/manifest.py tests/reference/api --generator
tools/mxnet_reference/gen_api.py --mxnet-version 1.9.1``. Writes into ``tests/reference/api/``: the
inputs it makes (CSV, IDX, a RecordIO file of PNG images written here with zlib) and one ``.npz`` per
section whose keys name the case (``<case>/<epoch>/<batch>/<field>``); every input is documented where
it is made.
"""

from __future__ import annotations

import json
import os
import struct
import sys
import zlib

import numpy as np

OUT = os.path.join("tests", "reference", "api")


def save(name, arrays):
    path = os.path.join(OUT, name)
    np.savez_compressed(path, **{k: np.asarray(v) for k, v in arrays.items()})
    print(f"{path}: {len(arrays)} arrays")


def png(pixels):
    """An 8-bit RGB PNG of an (H, W, 3) uint8 array (filter 0 on every row)."""
    h, w, _ = pixels.shape
    rows = b"".join(b"\x00" + pixels[r].tobytes() for r in range(h))

    def chunk(tag, body):
        return (
            struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body) & 0xFFFFFFFF)
        )

    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def images():
    """Seven RGB images of different sizes (10..16 x 9..15), seeded."""
    rs = np.random.RandomState(7)
    return [rs.randint(0, 256, (9 + i, 10 + (3 * i) % 7, 3)).astype(np.uint8) for i in range(7)]


def record_iter(it, epochs, prefix, out, real=None):
    """Every batch's data, label and pad; ``real``: the number of examples, when MXNet leaves the slots
    after the last one uninitialised and says pad=0 (its record iterator with round_batch=False): then
    only the real rows are kept, and no pad."""
    for ep in range(epochs):
        for b, batch in enumerate(it):
            key = f"{prefix}/{ep}/{b}"
            data = batch.data[0].asnumpy()
            label = batch.label[0].asnumpy()
            if real is not None:
                n = min(it.batch_size, real - b * it.batch_size)
                data, label = data[:n], label[:n]
            else:
                out[f"{key}/pad"] = batch.pad
            out[f"{key}/data"] = data
            out[f"{key}/label"] = label
        it.reset()


# ----------------------------------------------------------------------------------------------------
def section_io():
    import mxnet as mx

    out = {}
    # NDArrayIter: 10 examples of (2, 2), labels 0..9; batch 3; every last_batch_handle; shuffled ones
    # with numpy.random.seed(11) set just before construction; 3 epochs with reset() between.
    data = np.arange(40, dtype=np.float32).reshape(10, 2, 2)
    label = np.arange(10, dtype=np.float32)
    for handle in ("pad", "discard", "roll_over"):
        for shuffle in (False, True):
            np.random.seed(11)
            it = mx.io.NDArrayIter(data, label, 3, shuffle, last_batch_handle=handle)
            record_iter(it, 3, f"ndarray/{handle}/{int(shuffle)}", out)
    # batch larger than the data (pad tiles it), a dict of two inputs, layout NTC with batch axis 1
    it = mx.io.NDArrayIter(data[:2], label[:2], 5, last_batch_handle="pad")
    record_iter(it, 1, "ndarray/tile", out)
    it = mx.io.NDArrayIter({"b": data, "a": data * 2}, {"y": label}, 4)
    for b, batch in enumerate(it):
        out[f"ndarray/dict/{b}/a"], out[f"ndarray/dict/{b}/b"] = (
            batch.data[0].asnumpy(),
            batch.data[1].asnumpy(),
        )
        out[f"ndarray/dict/{b}/pad"] = batch.pad
    out["ndarray/dict/provide_data"] = json.dumps([[d.name, list(d.shape)] for d in it.provide_data])

    # CSVIter: data.csv rows i, i+1, i+2 for i = 1..5, label.csv rows i; batch 3; round_batch on/off;
    # 3 epochs; and batch 7 > 5 rows with round_batch (wraps twice).
    with open(os.path.join(OUT, "data.csv"), "w") as f:
        f.write("".join(f"{i},{i + 1},{i + 2}\n" for i in range(1, 6)))
    with open(os.path.join(OUT, "label.csv"), "w") as f:
        f.write("".join(f"{i}\n" for i in range(1, 6)))
    csv, lab = os.path.join(OUT, "data.csv"), os.path.join(OUT, "label.csv")
    for rb in (True, False):
        it = mx.io.CSVIter(data_csv=csv, data_shape=(3,), label_csv=lab, batch_size=3, round_batch=rb)
        record_iter(it, 3, f"csv/{int(rb)}", out)
    it = mx.io.CSVIter(data_csv=csv, data_shape=(3,), batch_size=7)
    record_iter(it, 2, "csv/wrap", out)
    it = mx.io.CSVIter(
        data_csv=csv, data_shape=(1, 3), label_csv=csv, label_shape=(3,), batch_size=2, dtype="int32"
    )
    record_iter(it, 1, "csv/int", out)

    # MNISTIter: 7 images of 28x28 (pixel (n, r, c) = (n * 31 + r * 7 + c * 3) % 256), labels 9 - n,
    # as IDX files; batch 3, no shuffle, plain and flat, and part 1 of 2.
    n = 7
    idx = (
        np.arange(n)[:, None, None] * 31 + np.arange(28)[None, :, None] * 7 + np.arange(28)[None, None, :] * 3
    )
    pixels = (idx % 256).astype(np.uint8)
    with open(os.path.join(OUT, "mnist-images-idx3-ubyte"), "wb") as f:
        f.write(struct.pack(">IIII", 2051, n, 28, 28) + pixels.tobytes())
    with open(os.path.join(OUT, "mnist-labels-idx1-ubyte"), "wb") as f:
        f.write(struct.pack(">II", 2049, n) + (9 - np.arange(n)).astype(np.uint8).tobytes())
    paths = dict(
        image=os.path.join(OUT, "mnist-images-idx3-ubyte"), label=os.path.join(OUT, "mnist-labels-idx1-ubyte")
    )
    record_iter(mx.io.MNISTIter(batch_size=3, shuffle=False, silent=True, **paths), 2, "mnist/plain", out)
    record_iter(
        mx.io.MNISTIter(batch_size=2, shuffle=False, flat=True, silent=True, **paths), 1, "mnist/flat", out
    )
    record_iter(
        mx.io.MNISTIter(batch_size=2, shuffle=False, num_parts=2, part_index=1, silent=True, **paths),
        1,
        "mnist/part",
        out,
    )

    # ImageRecordIter over images() packed with labels i % 3 (and 3 labels [i, 2i, 3i] in a second
    # file); the records are PNG (lossless), so decoding is exact.
    from mxnet import recordio

    w = recordio.MXIndexedRecordIO(os.path.join(OUT, "images.idx"), os.path.join(OUT, "images.rec"), "w")
    w3 = recordio.MXRecordIO(os.path.join(OUT, "images3.rec"), "w")
    for i, img in enumerate(images()):
        w.write_idx(i, recordio.pack(recordio.IRHeader(0, float(i % 3), i, 0), png(img)))
        w3.write(recordio.pack(recordio.IRHeader(0, [float(i), 2.0 * i, 3.0 * i], i, 0), png(img)))
    w.close()
    w3.close()
    rec = os.path.join(OUT, "images.rec")
    cases = {
        "center": dict(data_shape=(3, 8, 8), batch_size=3),
        "norm_mirror": dict(
            data_shape=(3, 9, 7),
            batch_size=4,
            mean_r=120,
            mean_g=110,
            mean_b=100,
            std_r=50,
            std_g=60,
            std_b=70,
            scale=0.5,
            mirror=True,
        ),
        "uint8": dict(data_shape=(3, 8, 8), batch_size=3, dtype="uint8"),
        "gray": dict(data_shape=(1, 8, 8), batch_size=3),
        "noround": dict(data_shape=(3, 8, 8), batch_size=3, round_batch=False),
        "resize": dict(data_shape=(3, 8, 8), batch_size=3, resize=8),
        "enlarge": dict(data_shape=(3, 14, 14), batch_size=3),
        "pad": dict(data_shape=(3, 12, 12), batch_size=3, pad=2, fill_value=7),
    }
    for name, kw in cases.items():
        it = mx.io.ImageRecordIter(path_imgrec=rec, verbose=False, **kw)
        record_iter(it, 2, f"rec/{name}", out, real=7 if name == "noround" else None)
    it = mx.io.ImageRecordIter(
        path_imgrec=os.path.join(OUT, "images3.rec"),
        data_shape=(3, 8, 8),
        batch_size=4,
        label_width=3,
        verbose=False,
    )
    record_iter(it, 1, "rec/width3", out)
    save("io.npz", out)


def det_label(i):
    """MXNet's detection label of image i: header [2, 5], then 1 + i % 2 objects [cls, x0, y0, x1, y1]."""
    objs = [[i % 3, 0.1, 0.2, 0.6, 0.7], [1, 0.4, 0.3, 0.9, 0.95]][: 1 + i % 2]
    return [2.0, 5.0] + [float(v) for o in objs for v in o]


def section_image():
    import random

    import mxnet as mx

    out = {}
    imgs = images()
    # every augmenter on images()[1] (10 x 13 x 3, cast to float32 where the augmenter needs floats),
    # with random.seed(5) and numpy.random.seed(5) set before each call
    src = mx.nd.array(imgs[1], dtype="uint8")
    srcf = src.astype("float32")
    augs = {
        "resize": (mx.image.ResizeAug(7, 1), src),
        "force0": (mx.image.ForceResizeAug((7, 5), 0), src),
        "force1": (mx.image.ForceResizeAug((16, 12), 1), src),
        "randcrop": (mx.image.RandomCropAug((6, 5), 1), src),
        "sizedcrop": (mx.image.RandomSizedCropAug((6, 6), 0.3, (0.75, 1.33), 1), src),
        "center": (mx.image.CenterCropAug((6, 5), 1), src),
        "bright": (mx.image.BrightnessJitterAug(0.4), srcf),
        "contrast": (mx.image.ContrastJitterAug(0.4), srcf),
        "saturation": (mx.image.SaturationJitterAug(0.4), srcf),
        "hue": (mx.image.HueJitterAug(0.3), srcf),
        "colorjitter": (mx.image.ColorJitterAug(0.3, 0.3, 0.3), srcf),
        "lighting": (
            mx.image.LightingAug(
                0.5,
                np.array([55.46, 4.794, 1.148]),
                np.array(
                    [[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]]
                ),
            ),
            srcf,
        ),
        "normalize": (
            mx.image.ColorNormalizeAug(mx.nd.array([100, 110, 120]), mx.nd.array([50, 60, 70])),
            srcf,
        ),
        "gray": (mx.image.RandomGrayAug(1.0), srcf),
        "flip": (mx.image.HorizontalFlipAug(1.0), src),
        "cast": (mx.image.CastAug("float16"), src),
    }
    for name, (aug, x) in augs.items():
        random.seed(5)
        np.random.seed(5)
        out[f"aug/{name}"] = aug(x.copy()).asnumpy()
        out[f"dumps/{name}"] = json.dumps(aug.dumps())
    # CreateAugmenter's full list over five images in turn (random.seed(3), numpy.random.seed(3) once)
    kinds = dict(
        resize=9,
        rand_crop=True,
        rand_mirror=True,
        brightness=0.3,
        contrast=0.3,
        saturation=0.3,
        hue=0.1,
        pca_noise=0.1,
        rand_gray=0.3,
        mean=True,
        std=True,
        inter_method=1,
    )
    for name, kw in {"full": kinds, "sized": dict(rand_crop=True, rand_resize=True, inter_method=1)}.items():
        random.seed(3)
        np.random.seed(3)
        auglist = mx.image.CreateAugmenter((3, 6, 6), **kw)
        out[f"create/{name}/names"] = json.dumps([type(a).__name__ for a in auglist])
        for i in range(5):
            x = mx.nd.array(imgs[i], dtype="uint8")
            for a in auglist:
                x = a(x)
            out[f"create/{name}/{i}"] = x.asnumpy()
    # functions: random_crop / random_size_crop boxes (random.seed(9)); copyMakeBorder of every type;
    # imrotate of a float CHW image by 30 degrees (plain, zoom_in, zoom_out) and a batch by two angles
    random.seed(9)
    out["fn/random_crop_box"] = np.array([mx.image.random_crop(src, (5, 4), 1)[1] for _ in range(4)])
    out["fn/random_size_crop_box"] = np.array(
        [mx.image.random_size_crop(src, (5, 5), 0.2, (0.5, 2.0), 1)[1] for _ in range(4)]
    )
    for t in range(5):
        out[f"fn/border{t}"] = mx.image.copyMakeBorder(src, 1, 2, 3, 1, type=t, value=9).asnumpy()
    out["fn/border_values"] = mx.image.copyMakeBorder(src, 1, 1, 2, 2, type=16, values=(1, 2, 3)).asnumpy()
    chw = mx.nd.array(imgs[1].transpose(2, 0, 1), dtype="float32")
    out["fn/rotate"] = mx.image.imrotate(chw, 30).asnumpy()
    out["fn/rotate_in"] = mx.image.imrotate(chw, 30, zoom_in=True).asnumpy()
    out["fn/rotate_out"] = mx.image.imrotate(chw, -45, zoom_out=True).asnumpy()
    out["fn/rotate_batch"] = mx.image.imrotate(mx.nd.stack(chw, chw), mx.nd.array([10, 200])).asnumpy()
    for t in (0, 1):
        out[f"fn/imresize{t}"] = mx.image.imresize(src, 17, 7, interp=t).asnumpy()

    # ImageIter over images.rec (written by section io): CreateAugmenter (3, 6, 6) random crops and
    # mirrors with random.seed(4); batch 3; every last_batch_handle; 2 epochs; shuffled with the .idx
    rec, idx = os.path.join(OUT, "images.rec"), os.path.join(OUT, "images.idx")
    for handle in ("pad", "discard", "roll_over"):
        random.seed(4)
        it = mx.image.ImageIter(
            3,
            (3, 6, 6),
            path_imgrec=rec,
            rand_crop=True,
            rand_mirror=True,
            inter_method=1,
            last_batch_handle=handle,
        )
        record_iter(it, 2, f"imageiter/{handle}", out)
    random.seed(4)
    it = mx.image.ImageIter(4, (3, 5, 5), path_imgrec=rec, path_imgidx=idx, shuffle=True, inter_method=1)
    record_iter(it, 2, "imageiter/shuffle", out)

    # ImageDetIter over det.rec: images() with det_label(i); CreateDetAugmenter (3, 8, 8) with random
    # crops, pads and mirrors (probability 0.5 each), random.seed(6); batch 3; 2 epochs
    from mxnet import recordio

    w = recordio.MXRecordIO(os.path.join(OUT, "det.rec"), "w")
    for i, img in enumerate(imgs):
        w.write(recordio.pack(recordio.IRHeader(0, det_label(i), i, 0), png(img)))
    w.close()
    random.seed(6)
    it = mx.image.ImageDetIter(
        3,
        (3, 8, 8),
        path_imgrec=os.path.join(OUT, "det.rec"),
        rand_crop=0.5,
        rand_pad=0.5,
        rand_mirror=True,
        inter_method=1,
        area_range=(0.3, 2.0),
    )
    out["imagedet/provide_label"] = json.dumps([it.provide_label[0][0], list(it.provide_label[0][1])])
    record_iter(it, 2, "imagedet", out)
    save("image.npz", out)


def section_kv():
    import mxnet as mx

    out = {}
    # 'local' store, key 0 = arange(6).reshape(2, 3); SGD(lr 0.1, momentum 0.9, wd 0.01, rescale_grad 0.5);
    # three pushes of two arrays (step + 1 and 1 everywhere), the pulled value after each
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    kv = mx.kv.create("local")
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=0.01, rescale_grad=0.5))
    kv.init(0, mx.nd.array(w))
    for step in range(3):
        kv.push(0, [mx.nd.array(w * 0 + step + 1), mx.nd.array(w * 0 + 1)])
        a = mx.nd.zeros((2, 3))
        kv.pull(0, out=a)
        out[f"sgd/{step}"] = a.asnumpy()
    # no optimizer: a push of four arrays replaces the value by their sum; pushpull; str keys in a list
    kv = mx.kv.create("device")
    kv.init(["a", "b"], [mx.nd.array(w), mx.nd.array(-w)])
    kv.push("a", [mx.nd.array(w * i) for i in range(4)])
    outs = [mx.nd.zeros((2, 3)), mx.nd.zeros((2, 3))]
    kv.pull(["a", "b"], out=outs)
    out["plain/a"], out["plain/b"] = outs[0].asnumpy(), outs[1].asnumpy()
    kv.pushpull("b", [mx.nd.ones((2, 3)), mx.nd.ones((2, 3)) * 5], out=outs[1])
    out["plain/pushpull"] = outs[1].asnumpy()
    # pushpull with Adam applies the update and returns it
    kv = mx.kv.create("local")
    kv.set_optimizer(mx.optimizer.Adam(learning_rate=0.01))
    kv.init(7, mx.nd.array(w))
    for step in range(2):
        a = mx.nd.zeros((2, 3))
        kv.pushpull(7, mx.nd.array(w - 2.5), out=a)
        out[f"adam/{step}"] = a.asnumpy()
    save("kv.npz", out)


def section_operator():
    import mxnet as mx

    # three custom operators: "scaledsig" (NumPy inside; a hand-written backward that is `scale` times
    # sigmoid's gradient), "muladd" (two inputs, two outputs: a*b and a+2b, NDArray operators), and
    # "softmaxloss" (need_top_grad=False: backward is softmax - one_hot(label) whatever the head)
    class ScaledSig(mx.operator.CustomOp):
        def __init__(self, scale):
            self.scale = scale

        def forward(self, is_train, req, in_data, out_data, aux):
            x = in_data[0].asnumpy()
            self.assign(out_data[0], req[0], mx.nd.array(1.0 / (1.0 + np.exp(-x))))

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            y, dy = out_data[0].asnumpy(), out_grad[0].asnumpy()
            self.assign(in_grad[0], req[0], mx.nd.array(self.scale * dy * y * (1.0 - y)))

    @mx.operator.register("scaledsig")
    class ScaledSigProp(mx.operator.CustomOpProp):
        def __init__(self, scale):
            super().__init__(need_top_grad=True)
            self.scale = float(scale)

        def create_operator(self, ctx, shapes, dtypes):
            return ScaledSig(self.scale)

    class MulAdd(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            a, b = in_data
            self.assign(out_data[0], req[0], a * b)
            self.assign(out_data[1], req[1], a + 2 * b)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            a, b = in_data
            g0, g1 = out_grad
            self.assign(in_grad[0], req[0], g0 * b + g1)
            self.assign(in_grad[1], req[1], g0 * a + 2 * g1)

    @mx.operator.register("muladd")
    class MulAddProp(mx.operator.CustomOpProp):
        def list_arguments(self):
            return ["a", "b"]

        def list_outputs(self):
            return ["prod", "mix"]

        def create_operator(self, ctx, shapes, dtypes):
            return MulAdd()

    class SoftmaxLoss(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            x = in_data[0].asnumpy()
            e = np.exp(x - x.max(axis=1, keepdims=True))
            self.assign(out_data[0], req[0], mx.nd.array(e / e.sum(axis=1, keepdims=True)))

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            label = in_data[1].asnumpy().astype(int)
            y = out_data[0].asnumpy().copy()
            y[np.arange(label.shape[0]), label] -= 1.0
            self.assign(in_grad[0], req[0], mx.nd.array(y))
            self.assign(in_grad[1], req[1], mx.nd.zeros(label.shape))

    @mx.operator.register("softmaxloss")
    class SoftmaxLossProp(mx.operator.CustomOpProp):
        def __init__(self):
            super().__init__(need_top_grad=False)

        def list_arguments(self):
            return ["data", "label"]

        def infer_shape(self, in_shape):
            return in_shape, [in_shape[0]], []

        def create_operator(self, ctx, shapes, dtypes):
            return SoftmaxLoss()

    # training: x (4, 3), w1 (3, 5), w2 (5, 3) from RandomState(2), labels [0, 2, 1, 2]; three steps of
    # w -= 0.1 * grad; the outputs, losses and gradients of each step
    rs = np.random.RandomState(2)
    x = mx.nd.array(rs.uniform(-1, 1, (4, 3)))
    w1, w2 = mx.nd.array(rs.uniform(-1, 1, (3, 5))), mx.nd.array(rs.uniform(-1, 1, (5, 3)))
    label = mx.nd.array([0, 2, 1, 2])
    out = {"x": x.asnumpy(), "w1": w1.asnumpy(), "w2": w2.asnumpy(), "label": label.asnumpy()}
    for w in (w1, w2):
        w.attach_grad()
    for step in range(3):
        with mx.autograd.record():
            h = mx.nd.dot(x, w1)
            a = mx.nd.Custom(h, op_type="scaledsig", scale=2)
            p, q = mx.nd.Custom(a, a * 0.5, op_type="muladd")
            prob = mx.nd.Custom(mx.nd.dot(p + q, w2), label, op_type="softmaxloss")
        prob.backward()
        out[f"{step}/prob"], out[f"{step}/a"] = prob.asnumpy(), a.asnumpy()
        out[f"{step}/w1_grad"], out[f"{step}/w2_grad"] = w1.grad.asnumpy(), w2.grad.asnumpy()
        w1[:] = w1 - 0.1 * w1.grad
        w2[:] = w2 - 0.1 * w2.grad
    out["w1_final"], out["w2_final"] = w1.asnumpy(), w2.asnumpy()
    save("operator.npz", out)


def section_metric():
    import logging

    import mxnet as mx

    out = {}
    # metrics over two updates of seeded predictions (RandomState(4)): 6 samples x 4 classes
    rs = np.random.RandomState(4)
    preds = [rs.dirichlet(np.ones(4), 6).astype(np.float32) for _ in range(2)]
    labels = [rs.randint(0, 4, 6).astype(np.float32) for _ in range(2)]
    out["preds"], out["labels"] = np.stack(preds), np.stack(labels)
    for name, metric in {
        "nll": mx.metric.NegativeLogLikelihood(),
        "pcc": mx.metric.PCC(),
        "torch": mx.metric.Torch(),
        "caffe": mx.metric.Caffe(),
        "nll_created": mx.metric.create("nll_loss"),
    }.items():
        values = []
        for p, l in zip(preds, labels, strict=True):
            metric.update([mx.nd.array(l)], [mx.nd.array(p)])
            values.append(metric.get()[1])
        metric.reset_local()
        values.append(metric.get_global()[1])
        out[f"metric/{name}"] = np.array(values)
        out[f"metric/{name}/name"] = metric.get()[0]
    # PCC with a class seen only in the second update (its matrix grows), labels as class indices
    pcc = mx.metric.PCC()
    pcc.update([mx.nd.array([0, 1, 1])], [mx.nd.array([0, 1, 0])])
    pcc.update([mx.nd.array([2, 1, 0, 2])], [mx.nd.array([2, 2, 0, 1])])
    out["metric/pcc_grow"] = np.array(pcc.get()[1])

    # callbacks: what the logging callbacks write for an Accuracy metric of 3/4 at epoch 2, batch 4
    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    root = logging.getLogger()
    root.addHandler(Keep())
    root.setLevel(logging.INFO)
    acc = mx.metric.Accuracy()
    acc.update([mx.nd.array([0, 1, 1, 0])], [mx.nd.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.7, 0.3]])])
    param = mx.model.BatchEndParam(epoch=2, nbatch=4, eval_metric=acc, locals=None)
    mx.callback.log_train_metric(2)(param)
    mx.callback.LogValidationMetricsCallback()(param)
    mx.callback.ProgressBar(total=10, length=20)(param)
    out["callback/log"] = json.dumps(records)
    # do_checkpoint's .params file for two arg and one aux arrays (epoch index 1 -> prefix-0002.params)
    arg = {"w": mx.nd.array(np.arange(6, dtype=np.float32).reshape(2, 3)), "b": mx.nd.array([1.5, -2.0])}
    aux = {"mean": mx.nd.array([0.25])}
    mx.callback.do_checkpoint(os.path.join(OUT, "ckpt"), period=2)(1, None, arg, aux)
    save("metric.npz", out)


def section_test_utils():
    import mxnet as mx

    tu = mx.test_utils
    out = {}

    def seeded(name, fn, seed=3):
        np.random.seed(seed)
        out[f"tu/{name}"] = np.asarray(fn())

    seeded("random_arrays", lambda: np.concatenate([a.ravel() for a in tu.random_arrays((2, 3), (4,), ())]))
    seeded("random_uniform_arrays", lambda: tu.random_uniform_arrays((2, 2), low=-1, high=2)[0])
    seeded("random_sample", lambda: tu.random_sample(list(range(10)), 4))
    seeded("rand_coord_2d", lambda: tu.rand_coord_2d(0, 10, 5, 50))
    seeded("eig_2d", lambda: tu.new_matrix_with_real_eigvals_2d(3))
    seeded("eig_nd", lambda: tu.new_matrix_with_real_eigvals_nd((2, 3, 3)))
    seeded("orthonormal", lambda: tu.new_orthonormal_matrix_2d(3))
    seeded("sym_nd", lambda: tu.new_sym_matrix_with_real_eigvals_nd((2, 3, 3)))
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    out["tu/assign_each"] = tu.assign_each(x, lambda v: v * 2 + 1)
    out["tu/assign_each2"] = tu.assign_each2(x, x + 1, lambda a, b: a * b)
    out["tu/np_reduce"] = tu.np_reduce(x, (0, 2), True, np.max)
    out["tu/collapse_sum_like"] = tu.collapse_sum_like(x, (3, 1))
    out["tu/create_2d_tensor"] = tu.create_2d_tensor(3, 4).asnumpy()
    out["tu/create_vector"] = tu.create_vector(5).asnumpy()
    out["tu/identity_batch"] = tu.get_identity_mat_batch(3).asnumpy()
    buckets, probs = tu.gen_buckets_probs_with_ppf(lambda q: q * q, 4)
    out["tu/buckets"], out["tu/probs"] = np.array(buckets), np.array(probs)
    out["tu/numeric_eps"] = np.array(
        [v for _, v in sorted((str(k), v) for k, v in tu.default_numeric_eps().items())]
    )
    save("test_utils.npz", out)


def section_misc():
    import random

    import mxnet as mx

    out = {}
    # SDMLLoss of seeded (5, 4) embeddings (RandomState(8)), smoothing 0.3 and 0.1, and its gradient
    rs = np.random.RandomState(8)
    x1, x2 = rs.normal(size=(5, 4)).astype(np.float32), rs.normal(size=(5, 4)).astype(np.float32)
    out["sdml/x1"], out["sdml/x2"] = x1, x2
    for s in (0.3, 0.1):
        a = mx.nd.array(x1)
        a.attach_grad()
        with mx.autograd.record():
            loss = mx.gluon.loss.SDMLLoss(smoothing_parameter=s)(a, mx.nd.array(x2))
        loss.backward()
        out[f"sdml/{s}"], out[f"sdml/{s}/grad"] = loss.asnumpy(), a.grad.asnumpy()
    # transforms on a float32 CHW image (images()[2] / 255): Rotate(35), RandomRotation((-40, 40)) with
    # numpy.random.seed(2), RandomApply(Rotate(90), p=0.5) over four calls after random.seed(2)
    T = mx.gluon.data.vision.transforms
    chw = mx.nd.array(images()[2].transpose(2, 0, 1).astype(np.float32) / 255)
    out["tf/rotate"] = T.Rotate(35)(chw).asnumpy()
    out["tf/rotate_zoom"] = T.Rotate(-20, zoom_in=True)(chw).asnumpy()
    np.random.seed(2)
    out["tf/random_rotation"] = np.stack(
        [T.RandomRotation((-40, 40), rotate_with_proba=0.7)(chw).asnumpy() for _ in range(4)]
    )
    random.seed(2)
    apply = T.RandomApply(T.Rotate(90), p=0.5)
    out["tf/random_apply"] = np.stack([apply(chw).asnumpy() for _ in range(4)])
    # ReflectionPad2D(2) of a (1, 2, 3, 4) arange, and of (0, 0, 0, 0, 1, 0, 2, 1), with the gradient of
    # the sum of the output times its arange
    x = mx.nd.arange(24).reshape(1, 2, 3, 4)
    for name, pad in (("2", 2), ("asym", (0, 0, 0, 0, 1, 0, 2, 1))):
        x.attach_grad()
        with mx.autograd.record():
            y = mx.gluon.nn.ReflectionPad2D(pad)(x)
            loss = (y * mx.nd.arange(y.size).reshape(y.shape)).sum()
        loss.backward()
        out[f"pad/{name}"], out[f"pad/{name}/grad"] = y.asnumpy(), x.grad.asnumpy()
    with mx.util.np_shape(True):  # framework is always in NumPy shape mode: -1 marks an unknown size
        out["utils/shape_is_known"] = np.array(
            [mx.gluon.utils.shape_is_known(s) for s in [(2, 3), (2, -1), ()]]
        )
    save("misc.npz", out)


SECTIONS = {
    "misc": section_misc,
    "test_utils": section_test_utils,
    "metric": section_metric,
    "io": section_io,
    "image": section_image,
    "kv": section_kv,
    "operator": section_operator,
}


def main(argv):
    os.makedirs(OUT, exist_ok=True)
    for name in argv or list(SECTIONS):
        SECTIONS[name]()


if __name__ == "__main__":
    main(sys.argv[1:])
