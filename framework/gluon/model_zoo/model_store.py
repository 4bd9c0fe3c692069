"""Where MXNet's pretrained model files live, and their published SHA-1 checksums (no network).

MXNet names a pretrained file ``{name}-{first 8 hex digits of its SHA-1}.params`` and keeps it in
``$MXNET_HOME/models`` (default ``~/.mxnet/models``). :func:`get_model_file` finds such a file and checks
its SHA-1 against MXNet 1.9.1's published table; it never downloads anything.

>>> short_hash('resnet18_v1')
'a0666292'
"""

from __future__ import annotations

import os

from ... import config
from ..._files import sha1_of
from ..utils import check_sha1, download, replace_file

# ``download`` is gluon.utils.download, which MXNet's module imports too; get_model_file never calls it
__all__ = ["get_model_file", "short_hash", "default_roots", "purge", "check_sha1", "replace_file", "download"]

# MXNet 1.9.1's published checksums of its model-zoo files (model_store.py), name -> SHA-1.
_MODEL_SHA1 = {
    "alexnet": "44335d1f0046b328243b32a26a4fbd62d9057b45",
    "densenet121": "f27dbf2dbd5ce9a80b102d89c7483342cd33cb31",
    "densenet161": "b6c8a95717e3e761bd88d145f4d0a214aaa515dc",
    "densenet169": "2603f878403c6aa5a71a124c4a3307143d6820e9",
    "densenet201": "1cdbc116bc3a1b65832b18cf53e1cb8e7da017eb",
    "inceptionv3": "ed47ec45a937b656fcc94dabde85495bbef5ba1f",
    "mobilenet0.25": "9f83e440996887baf91a6aff1cccc1c903a64274",
    "mobilenet0.5": "8e9d539cc66aa5efa71c4b6af983b936ab8701c3",
    "mobilenet0.75": "529b2c7f4934e6cb851155b22c96c9ab0a7c4dc2",
    "mobilenet1.0": "6b8c5106c730e8750bcd82ceb75220a3351157cd",
    "mobilenetv2_1.0": "36da4ff1867abccd32b29592d79fc753bca5a215",
    "mobilenetv2_0.75": "e2be7b72a79fe4a750d1dd415afedf01c3ea818d",
    "mobilenetv2_0.5": "aabd26cd335379fcb72ae6c8fac45a70eab11785",
    "mobilenetv2_0.25": "ae8f9392789b04822cbb1d98c27283fc5f8aa0a7",
    "resnet18_v1": "a0666292f0a30ff61f857b0b66efc0228eb6a54b",
    "resnet34_v1": "48216ba99a8b1005d75c0f3a0c422301a0473233",
    "resnet50_v1": "0aee57f96768c0a2d5b23a6ec91eb08dfb0a45ce",
    "resnet101_v1": "d988c13d6159779e907140a638c56f229634cb02",
    "resnet152_v1": "671c637a14387ab9e2654eafd0d493d86b1c8579",
    "resnet18_v2": "a81db45fd7b7a2d12ab97cd88ef0a5ac48b8f657",
    "resnet34_v2": "9d6b80bbc35169de6b6edecffdd6047c56fdd322",
    "resnet50_v2": "ecdde35339c1aadbec4f547857078e734a76fb49",
    "resnet101_v2": "18e93e4f48947e002547f50eabbcc9c83e516aa6",
    "resnet152_v2": "f2695542de38cf7e71ed58f02893d82bb409415e",
    "squeezenet1.0": "264ba4970a0cc87a4f15c96e25246a1307caf523",
    "squeezenet1.1": "33ba0f93753c83d86e1eb397f38a667eaf2e9376",
    "vgg11": "dd221b160977f36a53f464cb54648d227c707a05",
    "vgg11_bn": "ee79a8098a91fbe05b7a973fed2017a6117723a8",
    "vgg13": "6bc5de58a05a5e2e7f493e2d75a580d83efde38c",
    "vgg13_bn": "7d97a06c3c7a1aecc88b6e7385c2b373a249e95e",
    "vgg16": "e660d4569ccb679ec68f1fd3cce07a387252a90a",
    "vgg16_bn": "7f01cf050d357127a73826045c245041b0df7363",
    "vgg19": "ad2f660d101905472b83590b59708b71ea22b2e5",
    "vgg19_bn": "f360b758e856f1074a85abd5fd873ed1d98297c3",
}


def short_hash(name: str) -> str:
    """The 8 hex digits MXNet puts in the file name of pretrained model ``name``."""
    if name not in _MODEL_SHA1:
        raise ValueError(
            f"Pretrained model for {name!r} is not available; MXNet published weights for: "
            f"{', '.join(sorted(_MODEL_SHA1))}."
        )
    return _MODEL_SHA1[name][:8]


def default_roots() -> list[str]:
    """Where pretrained files are looked for by default: ``$MXNET_HOME/models``, then ``~/.mxnet/models``."""
    roots = []
    home = config.get("mxnet_home")
    if home is not None:
        roots.append(os.path.join(home, "models"))
    roots.append(os.path.join(os.path.expanduser("~"), ".mxnet", "models"))
    return roots


def get_model_file(name: str, root: str | os.PathLike | None = None) -> str:
    """The path of MXNet's pretrained file for ``name`` in ``root`` (default: :func:`default_roots`),
    after checking its SHA-1. Nothing is downloaded: a missing file is an error saying where to put it.

    >>> import tempfile
    >>> get_model_file('alexnet', root=tempfile.mkdtemp())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    FileNotFoundError: pretrained weights for 'alexnet': no file 'alexnet-44335d1f.params' in ...
    """
    file_name = f"{name}-{short_hash(name)}.params"
    roots = default_roots() if root is None else [os.fspath(root)]
    looked = []
    for r in roots:
        path = os.path.join(os.path.expanduser(r), file_name)
        looked.append(path)
        if os.path.isfile(path):
            actual = sha1_of(path, what="model file")
            if actual != _MODEL_SHA1[name]:
                raise ValueError(
                    f"pretrained weights for {name!r}: {path} has SHA-1 {actual}, but MXNet published "
                    f"{_MODEL_SHA1[name]} for it; the file is damaged or not MXNet's. Replace it with "
                    f"MXNet's {file_name}."
                )
            return path
    raise FileNotFoundError(
        f"pretrained weights for {name!r}: no file {file_name!r} in {', '.join(map(repr, roots))} "
        f"(looked for {', '.join(looked)}). This framework downloads nothing (no network here): copy "
        f"MXNet's {file_name} (from MXNet's model zoo, e.g. an existing ~/.mxnet/models) into one of "
        "those folders, or pass root=<folder holding it>."
    )


def purge(root: str | os.PathLike | None = None) -> None:
    """Delete the ``.params`` files in ``root`` (default ``$MXNET_HOME/models`` or ``~/.mxnet/models``)."""
    folder = os.path.expanduser(os.fspath(root)) if root is not None else default_roots()[0]
    for f in os.listdir(folder):
        if f.endswith(".params"):
            os.remove(os.path.join(folder, f))
