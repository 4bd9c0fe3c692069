"""The framework's dataset catalogue and its command-line tool (run from the repository root).

Not an installed package: a top-level ``datasets`` would shadow the widely used ``datasets``
distribution in users' environments. The catalogue itself (sources, licences, sizes, checksums) lives
in :mod:`framework.gluon.data.vision.catalogue`, which the dataset classes also read; this package
fetches, verifies and prepares the files for machines without network::

    python -m datasets list                                   # what is supported, and what is here
    python -m datasets where fashion-mnist                    # each place looked in, and what it holds
    python -m datasets fetch fashion-mnist [--dir DIR]        # download (needs network) into the cache:
                                                              # $MXNET_GLUON_REPO's layout, then mirrors
    python -m datasets fetch fashion-mnist --from DIR         # copy and verify files you already have
    python -m datasets verify fashion-mnist [--dir DIR]       # check sizes and checksums
    python -m datasets prepare fashion-mnist [--from DIR] [--tfds]   # fetch, verify, decode (and build
                                                              # a tensorflow-datasets copy)

An air-gapped machine: ``fetch NAME --dir /media/usb/NAME`` where there is network, then
``prepare NAME --from /media/usb/NAME`` on the machine.
"""

from __future__ import annotations

from framework.gluon.data.vision.catalogue import CATALOGUE, entry_for

__all__ = ["CATALOGUE", "entry_for"]
