"""The main job: the seed's LeNet on Fashion-MNIST, on every device, resumable.

Run it as ``python -m train`` (``--help`` lists the options); from Python, ``train.main(argv)`` returns
the exit status.

>>> from train.cli import config_from_args
>>> config_from_args([]).lr
0.1
"""

from .cli import main

__all__ = ["main"]
