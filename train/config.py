"""The main job's settings: one frozen record, built by :mod:`train.cli` from the command line.

Defaults are the seed's (MXNet's "Use GPUs" tutorial): LeNet on Fashion-MNIST, batch 256, SGD with
learning rate 0.1, 10 epochs, ToTensor + Normalize(0.13, 0.31).

>>> cfg = Config()
>>> cfg.batch_size, cfg.lr, cfg.epochs, cfg.loop
(256, 0.1, 10, 'compiled')
>>> sorted(cfg.fingerprint())[:3]
['batch_size', 'dataset', 'loop']
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Config", "LOOPS", "MEAN", "STD"]

LOOPS = ("compiled", "gluon")
MEAN, STD = 0.13, 0.31  # the seed's Normalize(0.13, 0.31)


@dataclass(frozen=True)
class Config:
    """Everything a run depends on. ``fingerprint()`` is what a resumed run must share."""

    epochs: int = 10
    batch_size: int = 256
    lr: float = 0.1
    momentum: float = 0.0
    wd: float = 0.0
    seed: int = 0
    devices: str = "auto"
    loop: str = "compiled"
    hybridize: bool = True
    data_root: str | None = None
    subset: int | None = None
    out: str = "runs"
    params: str = "net.params"
    resume: bool = False
    overwrite: bool = False
    progress: str = "auto"
    coordinator: str | None = None
    num_processes: int | None = None
    process_id: int | None = None
    join_timeout: float = 20.0
    hang_at: tuple[int, int] | None = None  # testing aid: (epoch, batch) to stop at and wait to be killed
    kill_at: str | None = None  # testing aid: 'E:POINT' of train.faultpoints where the job SIGKILLs itself

    @property
    def out_dir(self) -> Path:
        return Path(self.out)

    @property
    def checkpoint_path(self) -> Path:
        return self.out_dir / "checkpoint.params"

    def fingerprint(self) -> dict[str, Any]:
        """Settings that fix the sequence of updates: a checkpoint only resumes a run that shares them.

        The learning rate, the epoch count and the devices may change on resume (a note is printed)."""
        return {
            "model": "lenet", "dataset": "fashion-mnist", "optimizer": "sgd", "loop": self.loop,
            "batch_size": self.batch_size, "momentum": self.momentum, "wd": self.wd, "seed": self.seed,
            "subset": self.subset, "normalize": [MEAN, STD],
        }

    def to_json(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["hang_at"] = list(self.hang_at) if self.hang_at else None
        return d
