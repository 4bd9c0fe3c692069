"""``python -m train``: the command line of the main job.

>>> cfg = config_from_args(["--epochs", "2", "--devices", "cpu:2", "--loop", "gluon"])
>>> cfg.epochs, cfg.devices, cfg.loop, cfg.batch_size
(2, 'cpu:2', 'gluon', 256)
"""

from __future__ import annotations

import argparse
import math
import sys
import textwrap
from collections.abc import Sequence

from . import devices as devices_mod
from .config import LOOPS, Config

__all__ = ["build_parser", "config_from_args", "main"]

_EPILOG = """\
outputs:
  PARAMS (default net.params)   the trained parameters in MXNet's .params format; the seed loads them
                                with net.load_parameters('net.params', ctx=...)
  OUT/checkpoint.params         the resumable state after the last finished epoch (parameters, optimizer
                                state, epoch, RNG and data-order state), replaced atomically each epoch
  OUT/metrics.json, .csv        per epoch: train loss, test accuracy, seconds, samples/s
  OUT/curves.png                loss and test accuracy against the epoch

An unfinished run's checkpoint in OUT needs --resume (or --overwrite); a finished run's is replaced by
a new run.

exit status (README "The main job" has the same table):
{statuses}
  137  killed by SIGKILL (out of memory, or killed): the checkpoint is intact; continue with --resume
  134  SIGABRT from XLA's C++ runtime (cannot be caught: a peer lost inside JAX's start-up handshake,
       or process 0, the coordination service's host, lost): restart every process with --resume

examples:
  python -m train                                  # the seed's run on every GPU, else the CPU
  python -m train --devices cpu:2 --epochs 3       # two host CPU devices, data parallel
  python -m train --loop gluon --devices gpu:0,1   # the seed's own loop on GPUs 0 and 1
  python -m train --resume                         # continue after a crash or kill
"""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (``--help`` documents every option)."""
    d = Config()
    from .job import EXIT_STATUSES

    statuses = "\n".join(textwrap.fill(text, 104, initial_indent=f"  {code:<4} ", subsequent_indent=" " * 7)
                         for code, text in EXIT_STATUSES.items())
    p = argparse.ArgumentParser(
        prog="python -m train",
        description="Train the seed's LeNet on Fashion-MNIST (MXNet's 'Use GPUs' tutorial, on JAX): "
                    "per epoch it prints train loss, test accuracy, seconds and samples/s, checkpoints, "
                    "and at the end writes net.params, metrics and a plot.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_EPILOG.format(statuses=statuses))
    g = p.add_argument_group("training (defaults are the seed's)")
    g.add_argument("--epochs", type=int, default=d.epochs, help="number of epochs (default %(default)s)")
    g.add_argument("--batch-size", type=int, default=d.batch_size,
                   help="global batch size, split over the devices (default %(default)s)")
    g.add_argument("--lr", "--learning-rate", dest="lr", type=float, default=d.lr,
                   help="SGD learning rate (default %(default)s)")
    g.add_argument("--momentum", type=float, default=d.momentum, help="SGD momentum (default %(default)s)")
    g.add_argument("--wd", type=float, default=d.wd, help="weight decay (default %(default)s)")
    g.add_argument("--seed", type=int, default=d.seed,
                   help="seed of the initialisation and of the data order (default %(default)s)")
    g = p.add_argument_group("devices and loop")
    g.add_argument("--devices", default=d.devices,
                   help="auto (every GPU, else one CPU device), cpu, cpu:N (N host CPU devices), gpu (every "
                        "GPU) or gpu:I[,J...] (these GPU ids) (default %(default)s)")
    g.add_argument("--loop", choices=LOOPS, default=d.loop,
                   help="compiled: the data-parallel step of framework.parallel, one XLA program per epoch; "
                        "gluon: the seed's own loop (split_and_load, autograd.record, backward, "
                        "trainer.step) (default %(default)s)")
    g.add_argument("--no-hybridize", dest="hybridize", action="store_false",
                   help="do not hybridize the network (it is by default; affects the gluon loop and "
                        "evaluation)")
    g = p.add_argument_group("data")
    g.add_argument("--data-root", default=d.data_root,
                   help="directory holding the four Fashion-MNIST .gz files (default: the framework's "
                        "search: $FRAMEWORK_HOME cache, /usr/share/datasets/fashion-mnist, "
                        "tensorflow-datasets)")
    g.add_argument("--subset", type=int, default=d.subset, metavar="N",
                   help="use only the first N samples of each split (quick runs and tests)")
    g = p.add_argument_group("files")
    g.add_argument("--out", default=d.out, metavar="DIR",
                   help="directory for the checkpoint, metrics and plot (default %(default)s)")
    g.add_argument("--params", default=d.params, metavar="PATH",
                   help="where the trained parameters go (default %(default)s)")
    g.add_argument("--resume", action="store_true",
                   help="continue from OUT/checkpoint.params (same settings; --lr and --epochs may change)")
    g.add_argument("--overwrite", action="store_true",
                   help="start afresh even if OUT/checkpoint.params exists (it is replaced after epoch 1)")
    g.add_argument("--progress", choices=("auto", "on", "off"), default=d.progress,
                   help="tqdm progress bar: auto shows it only on a terminal (default %(default)s)")
    g = p.add_argument_group("multi-host (JAX's own runtime; the environment variables are the defaults)")
    g.add_argument("--coordinator", default=_switch("coordinator"), metavar="HOST:PORT",
                   help="address of process 0's coordinator ($FRAMEWORK_COORDINATOR)")
    g.add_argument("--num-processes", type=int, metavar="N",
                   default=_switch("num_processes"),
                   help="processes in all ($FRAMEWORK_NUM_PROCESSES)")
    g.add_argument("--process-id", type=int, metavar="I",
                   default=_switch("process_id"),
                   help="this process's rank ($FRAMEWORK_PROCESS_ID)")
    g.add_argument("--join-timeout", type=float, default=d.join_timeout, metavar="SECONDS",
                   help="seconds to wait for the coordinator and for every process to join; then exit with "
                        "status 6 (default %(default)s)")
    p.add_argument("--_hang-at", dest="hang_at", default=None, help=argparse.SUPPRESS)
    p.add_argument("--_kill-at", dest="kill_at", default=None, help=argparse.SUPPRESS)
    return p


def _switch(name: str) -> object:
    """A framework switch's value from the environment (read and validated by framework.config)."""
    from framework import config

    try:
        return config.get(name)
    except config.ConfigError as err:  # bad arguments: exit status 2, as argparse's own errors
        print(f"error: {err}", file=sys.stderr)
        raise SystemExit(2) from None


def _check(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    for name, minimum in (("epochs", 1), ("batch_size", 1), ("subset", 1)):
        value = getattr(args, name)
        if value is not None and value < minimum:
            p.error(f"--{name.replace('_', '-')} {value}: must be at least {minimum}.")
    if not (math.isfinite(args.lr) and args.lr > 0):
        p.error(f"--lr {args.lr}: the learning rate must be a positive finite number, e.g. --lr 0.1.")
    if args.resume and args.overwrite:
        p.error("--resume and --overwrite contradict each other: pass one of them.")
    if (args.num_processes or 0) > 1 and args.loop == "gluon":
        p.error("--loop gluon runs in one process; use --loop compiled for a multi-process run.")
    _check_multi_host(p, args)
    try:
        devices_mod.parse(args.devices)
    except devices_mod.DeviceSpecError as err:
        p.error(str(err))


def _check_multi_host(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """What the arguments alone show, before JAX is asked (it would abort after a minute)."""
    from .multihost import parse_address

    n, me, where = args.num_processes, args.process_id, args.coordinator
    if not (math.isfinite(args.join_timeout) and args.join_timeout > 0):
        p.error(f"--join-timeout {args.join_timeout}: must be a positive number of seconds, e.g. 20.")
    if n is None and me is None and not where:
        return
    if n is not None and n < 1:
        p.error(f"--num-processes {n}: must be at least 1.")
    if (n or 1) > 1 or where:
        missing = [o for o, v in (("--coordinator", where), ("--num-processes", n), ("--process-id", me))
                   if v in (None, "")]
        if missing:
            p.error(f"a multi-process run needs {', '.join(missing)} too (or FRAMEWORK_COORDINATOR, "
                    "FRAMEWORK_NUM_PROCESSES, FRAMEWORK_PROCESS_ID).")
        try:
            parse_address(where)
        except ValueError as err:
            p.error(str(err))
    if me is not None and n is not None and not 0 <= me < n:
        p.error(f"--process-id {me}: must be from 0 to {n - 1} for --num-processes {n} (each process gets "
                "its own id).")


def config_from_args(argv: Sequence[str] | None = None) -> Config:
    """Parse ``argv`` into a :class:`Config` (exits with status 2 and a message on bad arguments)."""
    p = build_parser()
    args = p.parse_args(argv)
    _check(p, args)
    hang = None
    if args.hang_at:
        e, _, b = args.hang_at.partition(":")
        hang = (int(e), int(b or 1))
    fields = {k: v for k, v in vars(args).items() if k != "hang_at"}
    return Config(**fields, hang_at=hang)


def _multi_host(cfg: Config) -> bool:
    return bool(cfg.coordinator) or (cfg.num_processes or 0) > 1


def main(argv: Sequence[str] | None = None) -> int:
    """Run the main job; the exit status (the table in ``--help``)."""
    from . import faultpoints, multihost
    from .job import EXIT_DATA, EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, run

    cfg = config_from_args(argv)
    faultpoints.arm(cfg.kill_at)
    spec = devices_mod.parse(cfg.devices)
    session = None
    status = EXIT_ERROR  # until run() returns: an exception is a bug, reported with its traceback
    try:
        try:
            devices_mod.prepare(spec)
            if _multi_host(cfg):
                session = multihost.join(cfg.coordinator, cfg.num_processes, cfg.process_id,
                                         timeout=cfg.join_timeout)
            devs = devices_mod.resolve(spec)
        except devices_mod.DeviceSpecError as err:
            print(f"error: {err}", file=sys.stderr)
            status = EXIT_DATA
            return status
        except multihost.MultiHostError as err:
            print(f"error: {err}", file=sys.stderr)
            status = multihost.EXIT_MULTIHOST
            return status
        if session is not None:
            import jax

            devs = [d for d in jax.devices() if d.platform == devs[0].platform]
        status = run(cfg, devs, session)
        return status
    except KeyboardInterrupt:
        print(f"error: interrupted; the last checkpoint in {cfg.out} is kept. Continue with --resume.",
              file=sys.stderr, flush=True)
        status = EXIT_INTERRUPTED
        return status
    finally:
        if session is not None:
            if status == EXIT_OK:
                session.stop()
            else:  # the others must not wait for this process; JAX's exit handlers would
                if status == EXIT_ERROR:
                    import traceback

                    traceback.print_exc()
                session.fail(status, f"process {cfg.process_id} stopped with exit status {status}")
