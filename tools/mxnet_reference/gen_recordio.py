"""Reference files for RecordIO, made by real MXNet 1.9.1 (``mx.recordio``, ``mx.image``, ``im2rec``).

Run from the repository root: ``/tmp/mx/bin/python tools/mxnet_reference/gen_recordio.py``.
Writes into ``tests/reference/recordio/``:

- ``mx.rec`` / ``mx.idx``: ``MXIndexedRecordIO`` records with keys out of order: payloads holding the
  magic word at aligned offsets (multi-part records), an empty one, ``pack`` headers with one float
  label and with three labels (``flag`` 3), a PNG image, random bytes. ``mx.npz``: what MXNet reads back
  (raw payloads, unpacked headers and payloads, the PNG decoded by ``mx.image.imdecode``).
- ``seq.rec``: the same payloads through the sequential ``MXRecordIO``.
- ``images/``: a two-class folder of small PNGs (written here with zlib: no codec needed), and
  ``im2rec.lst`` / ``im2rec.rec`` / ``im2rec.idx`` made from it by MXNet's own ``tools/im2rec.py``
  (``--list --recursive`` then ``--pass-through`` packing; its cv2 import is stubbed, pass-through
  packing never calls OpenCV).
- ``image_ops.npz``: MXNet's ``resize_short`` shapes and ``center_crop`` boxes for a few sizes.

``--check-ours REC IDX OUT.npz``: read a pair written by this framework with MXNet and save the raw
payloads (used by the test when the side venv exists).
"""

from __future__ import annotations

import os
import struct
import sys
import types
import zlib

import numpy as np

OUT = os.path.join("tests", "reference", "recordio")
MAGIC = struct.pack("<I", 0xCED7230A)


def png_bytes(pixels):
    """A minimal RGB PNG (8-bit, no filter) of an (H, W, 3) uint8 array."""
    h, w, _ = pixels.shape
    raw = b"".join(b"\x00" + pixels[r].tobytes() for r in range(h))

    def chunk(tag, data):
        crc = zlib.crc32(tag + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", crc)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def records():
    """(key, payload) pairs; headers packed by MXNet's own ``pack``."""
    from mxnet import recordio

    rs = np.random.RandomState(0)
    img = rs.randint(0, 256, (5, 7, 3)).astype(np.uint8)
    return [
        (5, MAGIC + b"abcd" + MAGIC + b"xyz" + MAGIC),
        (2, b""),
        (9, recordio.pack(recordio.IRHeader(0, 3.0, 9, 0), b"hello world")),
        (10, recordio.pack(recordio.IRHeader(0, [1.5, -2.0, 7.25], 10, 77), b"multi")),
        (11, recordio.pack(recordio.IRHeader(0, 1.0, 11, 0), png_bytes(img))),
        (12, MAGIC),
        (13, rs.randint(0, 256, 1001).astype(np.uint8).tobytes()),
        (1, b"abc"),
    ], img


def main_records():
    import mxnet as mx
    from mxnet import recordio

    recs, img = records()
    w = recordio.MXIndexedRecordIO(os.path.join(OUT, "mx.idx"), os.path.join(OUT, "mx.rec"), "w")
    for k, payload in recs:
        w.write_idx(k, payload)
    w.close()
    s = recordio.MXRecordIO(os.path.join(OUT, "seq.rec"), "w")
    for _, payload in recs:
        s.write(payload)
    s.close()
    r = recordio.MXIndexedRecordIO(os.path.join(OUT, "mx.idx"), os.path.join(OUT, "mx.rec"), "r")
    out = {"keys": np.array(r.keys), "png_source": img}
    for k in r.keys:
        raw = r.read_idx(k)
        out[f"raw{k}"] = np.frombuffer(raw, np.uint8)
        if k in (9, 10, 11):
            h, payload = recordio.unpack(raw)
            out[f"flag{k}"] = np.array(h.flag)
            out[f"label{k}"] = np.asarray(h.label, np.float32)
            out[f"id{k}"] = np.array([h.id, h.id2], np.uint64)
            out[f"payload{k}"] = np.frombuffer(payload, np.uint8)
    _, png = recordio.unpack(r.read_idx(11))
    out["png_rgb"] = mx.image.imdecode(png).asnumpy()
    out["png_bgr"] = mx.image.imdecode(png, to_rgb=False).asnumpy()
    out["png_gray"] = mx.image.imdecode(png, flag=0).asnumpy()
    np.savez(os.path.join(OUT, "mx.npz"), **out)


def image_ops():
    import mxnet as mx

    shapes, boxes = [], []
    for h, w, size in [(40, 60, 20), (60, 40, 25), (33, 33, 10), (17, 50, 7)]:
        src = mx.nd.zeros((h, w, 3), dtype="uint8")
        shapes.append([h, w, size, *mx.image.resize_short(src, size).shape])
        for cw, ch in [(16, 16), (30, 10), (100, 20)]:
            out, box = mx.image.center_crop(src, (cw, ch))
            boxes.append([h, w, cw, ch, *box, *out.shape])
    np.savez(os.path.join(OUT, "image_ops.npz"), resize_short=np.array(shapes), center_crop=np.array(boxes))


def im2rec():
    sys.modules.setdefault("cv2", types.ModuleType("cv2"))  # pass-through packing never calls OpenCV
    from mxnet.tools import im2rec as tool

    root = os.path.join(OUT, "images")
    rs = np.random.RandomState(3)
    for cls, n in [("cat", 3), ("dog", 2)]:
        os.makedirs(os.path.join(root, cls), exist_ok=True)
        for i in range(n):
            with open(os.path.join(root, cls, f"{i}.png"), "wb") as f:
                f.write(png_bytes(rs.randint(0, 256, (4 + i, 6, 3)).astype(np.uint8)))
    prefix = os.path.join(OUT, "im2rec")
    argv = sys.argv
    try:
        sys.argv = ["im2rec", "--list", "--recursive", prefix, root]
        tool.make_list(tool.parse_args())
        sys.argv = ["im2rec", "--pass-through", "--num-thread", "1", prefix, root]
        args = tool.parse_args()
        from mxnet import recordio

        rec = recordio.MXIndexedRecordIO(prefix + ".idx", prefix + ".rec", "w")
        got = []

        class Queue:
            def put(self, x):
                got.append(x)
        for i, item in enumerate(tool.read_list(prefix + ".lst")):
            tool.image_encode(args, i, item, Queue())
            rec.write_idx(item[0], got[-1][1])
        rec.close()
    finally:
        sys.argv = argv


def check_ours(rec, idx, out):
    from mxnet import recordio

    r = recordio.MXIndexedRecordIO(idx, rec, "r")
    raws = {f"raw{k}": np.frombuffer(r.read_idx(k), np.uint8) for k in r.keys}
    np.savez(out, keys=np.array(r.keys), **raws)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--check-ours":
        check_ours(*sys.argv[2:5])
        return
    os.makedirs(OUT, exist_ok=True)
    main_records()
    image_ops()
    im2rec()


if __name__ == "__main__":
    main()
