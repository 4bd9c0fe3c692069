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


SECTIONS = {"io": section_io, "image": section_image}


def main(argv):
    os.makedirs(OUT, exist_ok=True)
    for name in argv or list(SECTIONS):
        SECTIONS[name]()


if __name__ == "__main__":
    main(sys.argv[1:])
