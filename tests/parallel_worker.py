"""A training run for the parallel tests, launched as a subprocess (one process of a multi-host run,
or a single process). Writes the final parameters to an .npz file. Not a test module."""

from __future__ import annotations

import argparse
import os
import sys


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--devices", type=int, default=2)
    ap.add_argument("--process-id", type=int, default=0)
    ap.add_argument("--num-processes", type=int, default=1)
    ap.add_argument("--coordinator", default="")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--out", required=True)
    ap.add_argument("--hang-after", type=int, default=-1, help="process 1 dies (SIGKILL itself) then")
    args = ap.parse_args()

    import jax

    jax.config.update("jax_num_cpu_devices", args.devices)
    import numpy as onp

    from framework import gluon, np, parallel
    from framework.gluon import nn

    if args.num_processes > 1:
        parallel.initialize(args.coordinator, args.num_processes, args.process_id,
                            heartbeat_timeout_seconds=5, initialization_timeout=30)
    net = nn.HybridSequential()
    net.add(nn.Dense(8, activation="relu"), nn.Dense(3))
    np.random.seed(0)
    net.initialize()
    net(np.ones((1, 5)))
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5, "momentum": 0.9})
    step = parallel.DataParallel(net, gluon.loss.SoftmaxCrossEntropyLoss(), trainer)
    rng = onp.random.RandomState(1)
    total = step.n * 4
    for i in range(args.steps):
        x = rng.randn(total, 5).astype(onp.float32)
        y = rng.randint(0, 3, size=total).astype(onp.int32)
        per = total // jax.process_count()
        lo = per * jax.process_index()
        if args.hang_after >= 0 and i == args.hang_after and args.process_id == 1:
            os.kill(os.getpid(), 9)
        step(x[lo:lo + per], y[lo:lo + per]).block_until_ready()
    step.sync()
    if jax.process_index() == 0:
        onp.savez(args.out, **{k: onp.asarray(p.data()) for k, p in net.collect_params().items()})
    print("done", flush=True)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
