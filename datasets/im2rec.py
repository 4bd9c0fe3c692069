"""``python -m datasets im2rec PREFIX ROOT``: MXNet's ``im2rec`` tool (``--list`` makes ``PREFIX.lst``
from an image folder; without it, every ``PREFIX*.lst`` is packed into ``.rec``/``.idx``).

The list (``index<TAB>label...<TAB>relative path``, shuffled with Python's ``random.seed(100)``) and
``--pass-through`` packing are byte-identical to MXNet 1.9.1's tool; re-encoding packing uses Pillow
instead of OpenCV (same headers, same resize/crop geometry, pixels within codec rounding).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections.abc import Iterator

__all__ = ["add_parser", "run", "list_images", "write_list", "read_list", "pack_list"]


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("im2rec", help="MXNet's im2rec: --list an image folder, or pack .lst files to .rec")
    p.add_argument("prefix", help="prefix of the .lst/.rec/.idx files (or a directory of .lst files)")
    p.add_argument("root", help="folder holding the images")
    p.add_argument("--list", action="store_true", help="make PREFIX.lst instead of packing")
    p.add_argument("--exts", nargs="+", default=[".jpeg", ".jpg", ".png"], help="image extensions listed")
    p.add_argument("--chunks", type=int, default=1, help="number of list chunks")
    p.add_argument("--train-ratio", type=float, default=1.0, help="fraction of images in _train.lst")
    p.add_argument("--test-ratio", type=float, default=0.0, help="fraction of images in _test.lst")
    p.add_argument("--recursive", action="store_true",
                   help="walk sub-folders, one label per folder (otherwise the root's files, label 0)")
    p.add_argument("--no-shuffle", dest="shuffle", action="store_false", help="keep the listing order")
    p.add_argument("--pass-through", action="store_true", help="pack the files' bytes as they are")
    p.add_argument("--resize", type=int, default=0, help="resize the shorter edge to this many pixels")
    p.add_argument("--center-crop", action="store_true", help="crop the centre square first")
    p.add_argument("--quality", type=int, default=95, help="JPEG quality (PNG compression level / 10)")
    p.add_argument("--num-thread", type=int, default=1, help="accepted for MXNet compatibility")
    p.add_argument("--color", type=int, default=1, choices=[-1, 0, 1], help="1 colour, 0 gray, -1 as stored")
    p.add_argument("--encoding", default=".jpg", choices=[".jpg", ".png"], help="re-encoding format")
    p.add_argument("--pack-label", action="store_true", help="pack every label column (multi-label)")


def list_images(root: str, recursive: bool, exts: list[str]) -> Iterator[tuple[int, str, int]]:
    """(index, path relative to root, label) for each image, in MXNet im2rec's order."""
    i = 0
    if recursive:
        cat: dict[str, int] = {}
        for path, dirs, files in os.walk(root, followlinks=True):
            dirs.sort()
            files.sort()
            for fname in files:
                fpath = os.path.join(path, fname)
                if os.path.isfile(fpath) and os.path.splitext(fname)[1].lower() in exts:
                    cat.setdefault(path, len(cat))
                    yield i, os.path.relpath(fpath, root), cat[path]
                    i += 1
        return
    for fname in sorted(os.listdir(root)):
        fpath = os.path.join(root, fname)
        if os.path.isfile(fpath) and os.path.splitext(fname)[1].lower() in exts:
            yield i, os.path.relpath(fpath, root), 0
            i += 1


def write_list(path: str, items: list[tuple]) -> None:
    with open(path, "w") as f:
        for item in items:
            f.write(f"{item[0]}\t" + "".join(f"{float(v):f}\t" for v in item[2:]) + f"{item[1]}\n")


def read_list(path: str) -> Iterator[list]:
    """[index, relative path, label, ...] per well-formed line (others are reported and skipped)."""
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            parts = [p.strip() for p in line.strip().split("\t")]
            if len(parts) < 3:
                print(f"{path}:{lineno}: expected index, label(s) and path, got {line.strip()!r}",
                      file=sys.stderr)
                continue
            try:
                yield [int(parts[0]), parts[-1], *[float(v) for v in parts[1:-1]]]
            except ValueError as e:
                print(f"{path}:{lineno}: {e}", file=sys.stderr)


def make_lists(args: argparse.Namespace) -> list[str]:
    items = list(list_images(args.root, args.recursive, args.exts))
    if args.shuffle:
        random.seed(100)
        random.shuffle(items)
    n = len(items)
    chunk_size = (n + args.chunks - 1) // args.chunks if args.chunks else n
    written = []
    for c in range(args.chunks):
        chunk = items[c * chunk_size:(c + 1) * chunk_size]
        suffix = f"_{c}" if args.chunks > 1 else ""
        sep, sep_test = int(chunk_size * args.train_ratio), int(chunk_size * args.test_ratio)
        outs = []
        if args.train_ratio == 1.0:
            outs.append((args.prefix + suffix + ".lst", chunk))
        else:
            if args.test_ratio:
                outs.append((args.prefix + suffix + "_test.lst", chunk[:sep_test]))
            if args.train_ratio + args.test_ratio < 1.0:
                outs.append((args.prefix + suffix + "_val.lst", chunk[sep_test + sep:]))
            outs.append((args.prefix + suffix + "_train.lst", chunk[sep_test:sep_test + sep]))
        for path, part in outs:
            write_list(path, part)
            written.append(path)
    return written


def _encode(args: argparse.Namespace, path: str, header) -> bytes:
    from framework import image, recordio

    if args.pass_through:
        with open(path, "rb") as f:
            return recordio.pack(header, f.read())
    with open(path, "rb") as f:
        data = f.read()
    from framework.image import _codec

    img = _codec.decode(data, flag=args.color, bgr=True)
    if args.center_crop:
        h, w = img.shape[:2]
        if h > w:
            m = (h - w) // 2
            img = img[m:m + w]
        else:
            m = (w - h) // 2
            img = img[:, m:m + h]
    if args.resize:
        h, w = img.shape[:2]
        new_w, new_h = (args.resize, h * args.resize // w) if h > w else (w * args.resize // h, args.resize)
        img = image.imresize(img, new_w, new_h, interp=1)
    return recordio.pack_img(header, img, quality=args.quality, img_fmt=args.encoding)


def pack_list(args: argparse.Namespace, lst: str) -> tuple[str, int]:
    """Pack the images of one ``.lst`` file into ``.rec``/``.idx`` beside it; returns (rec, count)."""
    from framework import recordio

    base = os.path.splitext(lst)[0]
    rec = recordio.MXIndexedRecordIO(base + ".idx", base + ".rec", "w")
    count = 0
    try:
        for item in read_list(lst):
            label = item[2:] if len(item) > 3 and args.pack_label else item[2]
            header = recordio.IRHeader(0, label, item[0], 0)
            try:
                payload = _encode(args, os.path.join(args.root, item[1]), header)
            except (OSError, ValueError) as e:
                print(f"skipping {item[1]}: {e}", file=sys.stderr)
                continue
            rec.write_idx(item[0], payload)
            count += 1
    finally:
        rec.close()
    return base + ".rec", count


def run(args: argparse.Namespace) -> int:
    if not os.path.isdir(args.root):
        print(f"im2rec: root {args.root!r} is not a directory of images", file=sys.stderr)
        return 2
    if args.list:
        for path in make_lists(args):
            print(f"wrote {path}")
        return 0
    workdir = args.prefix if os.path.isdir(args.prefix) else os.path.dirname(args.prefix) or "."
    stem = "" if os.path.isdir(args.prefix) else os.path.basename(args.prefix)
    lists = sorted(os.path.join(workdir, f) for f in os.listdir(workdir)
                   if f.startswith(stem) and f.endswith(".lst") and os.path.isfile(os.path.join(workdir, f)))
    if not lists:
        print(f"im2rec: no {args.prefix}*.lst file to pack; make one with --list first", file=sys.stderr)
        return 1
    for lst in lists:
        rec, count = pack_list(args, lst)
        print(f"packed {count} images of {lst} into {rec}")
    return 0
