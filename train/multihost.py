"""The main job across processes: joining, agreeing on the resume point, and noticing a lost peer.

JAX's own runtime stops a process whose peer died with SIGABRT and a C++ stack, after its heartbeat
timeout (about 100 s by default): this module gets there first, with a message and a documented exit
status (:data:`EXIT_MULTIHOST`).

- :func:`join` checks that the coordinator answers before JAX is asked to connect (a wrong address is an
  error after ``--join-timeout`` seconds, not JAX's 65 s abort), then runs ``parallel.initialize``
  under a deadline: processes that never join are reported, not waited for.
- :meth:`Session.agree` exchanges every process's resume point (the checkpoint's epoch and digest, or
  the error it met) over the coordinator's key-value store: processes that disagree all stop, with a
  message naming each rank and what it has.
- A heartbeat thread writes a counter to the store every second and watches the others'. A peer whose
  counter stops for :data:`LOST_AFTER` seconds, a peer that reported a failure, or a coordinator that
  stops answering ends this process with a message naming the lost process.

What cannot be caught: an abort inside XLA's C++ runtime (SIGABRT, exit status 134) that comes before
these checks: a process lost during JAX's own start-up handshake, or process 0 (which hosts the
coordination service) lost, when JAX's client polls the error before the heartbeat thread does (its
``missed_heartbeat_callback`` cannot be used from Python: the status it passes fails to convert).

>>> parse_address("127.0.0.1:1234")
('127.0.0.1', 1234)
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
from typing import Any

__all__ = ["Session", "MultiHostError", "join", "parse_address", "EXIT_MULTIHOST", "LOST_AFTER"]

EXIT_MULTIHOST = 6
LOST_AFTER = 10.0  # seconds without a heartbeat before a peer counts as lost
_PREFIX = "framework/train"
_PEER_EXIT_S = 1.0  # process 0 outlives a failed peer's "I stop" by this much


class MultiHostError(RuntimeError):
    """The processes of a run cannot work together (exit status 6)."""


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` -> (host, port); ValueError with the expected form otherwise."""
    host, sep, port = str(text).rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--coordinator {text!r}: expected HOST:PORT with a port from 1 to 65535, "
                         "e.g. --coordinator 10.0.0.1:12355 (process 0's address).")
    return host.strip("[]"), int(port)


def _say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _die(status: int, msg: str) -> None:
    """Print and end the process now: JAX's exit handlers would wait for peers that are gone."""
    _say(msg)
    sys.stdout.flush()
    os._exit(status)


class _Deadline:
    """Ends the process with ``msg`` unless the block finishes within ``seconds``."""

    def __init__(self, seconds: float, msg: str) -> None:
        self._timer = threading.Timer(seconds, _die, (EXIT_MULTIHOST, msg))
        self._timer.daemon = True

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._timer.cancel()


def _wait_for_coordinator(host: str, port: int, seconds: float, me: int) -> None:
    deadline = time.monotonic() + seconds
    last: OSError | None = None
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=1.0):
                return
        except OSError as err:
            last = err
            time.sleep(0.25)
    raise MultiHostError(
        f"process {me} cannot reach the coordinator at {host}:{port} after {seconds:g} s ({last}). Start "
        "process 0 with the same --coordinator (it listens there), check the address and port, or raise "
        "--join-timeout if process 0 starts later."
    )


def join(coordinator: str, num_processes: int, process_id: int, *, timeout: float) -> Session:
    """Join the run (``jax.distributed.initialize`` through ``framework.parallel``): a :class:`Session`."""
    host, port = parse_address(coordinator)
    if process_id != 0:
        _wait_for_coordinator(host, port, timeout, process_id)
    from framework import parallel  # imports JAX: after the cheap check
    msg = (f"error: process {process_id}: not all {num_processes} processes joined at {coordinator} within "
           f"{timeout:g} s (--join-timeout). Start every process with the same --coordinator and "
           f"--num-processes {num_processes} and its own --process-id 0..{num_processes - 1}.")
    with _Deadline(timeout, msg):
        try:
            parallel.initialize(coordinator, num_processes, process_id, heartbeat_timeout_seconds=120,
                                initialization_timeout=int(timeout) + 60)
        except Exception as err:  # noqa: BLE001 -- JAX raises several types here; all mean "cannot join"
            raise MultiHostError(f"process {process_id} could not join the run at {coordinator}: {err}") \
                from err
    from framework._jax_compat import distributed_client

    session = Session(distributed_client(), process_id, num_processes)
    session.check_count(timeout)
    session.start()
    print(f"process {process_id} of {num_processes} joined at {coordinator}", flush=True)
    return session


class Session:
    """This process's place in a multi-process run: the key-value store and the heartbeat."""

    def __init__(self, client: Any, me: int, n: int) -> None:
        self.client, self.me, self.n = client, me, n
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="train-heartbeat", daemon=True)

    def _key(self, kind: str, rank: int) -> str:
        return f"{_PREFIX}/{kind}/{rank}"

    def _try_get(self, key: str) -> str | None:
        try:
            return self.client.key_value_try_get(key)
        except Exception as err:  # noqa: BLE001
            if "NOT_FOUND" in str(err):
                return None
            raise

    def start(self) -> None:
        self._thread.start()

    def check_count(self, timeout: float) -> None:
        """Every process was started with the same --num-processes: raise MultiHostError naming them.

        Each posts its count; each compares with process 0's, and process 0 with every other's (a
        process that expects more peers than process 0 would otherwise wait for one that never comes)."""
        self.client.key_value_set(self._key("count", self.me), str(self.n), allow_overwrite=True)
        ranks = range(1, self.n) if self.me == 0 else (0,)
        for rank in ranks:
            try:
                theirs = int(self.client.blocking_key_value_get(self._key("count", rank),
                                                                int(timeout * 1000)))
            except Exception as err:  # noqa: BLE001
                raise MultiHostError(f"process {self.me}: process {rank} did not report its --num-processes "
                                     f"within {timeout:g} s: {str(err).splitlines()[0][:200]}") from err
            if theirs != self.n:  # ended at once: JAX's shutdown barrier would wait for the missing peer
                _say(f"error: process {self.me}: the processes disagree on --num-processes: this one was "
                     f"started with --num-processes {self.n}, process {rank} with --num-processes {theirs}. "
                     "Start every process with the same --num-processes (and its own --process-id).")
                self.fail(EXIT_MULTIHOST, "the processes disagree on --num-processes")

    def stop(self) -> None:
        """Stop the heartbeat (before a normal exit: a finished process is not a lost one)."""
        if not self._stop.is_set():
            self._stop.set()
            try:
                self.client.key_value_set(self._key("done", self.me), "1", allow_overwrite=True)
            except Exception:  # noqa: BLE001,S110 -- the coordinator is gone: nothing to tell
                pass
            self._thread.join(timeout=3)

    def fail(self, status: int, message: str) -> None:
        """Tell the others this process stops with ``status``, then end it (no JAX shutdown barrier)."""
        self._stop.set()
        try:
            self.client.key_value_set(self._key("failed", self.me), json.dumps([status, message[:500]]),
                                      allow_overwrite=True)
        except Exception:  # noqa: BLE001,S110
            pass
        if self.me == 0:
            self._await_peers()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)

    def _await_peers(self, seconds: float = 10.0) -> None:
        """Process 0 hosts the coordination service: ending it while a peer still reads the store makes
        JAX's client abort that peer (SIGABRT) before it can say why it stops. Wait (bounded) until every
        peer has said it is done or failed."""
        deadline = time.monotonic() + seconds
        try:
            while time.monotonic() < deadline:
                if all(self._try_get(self._key("failed", r)) is not None
                       or self._try_get(self._key("done", r)) is not None for r in range(1, self.n)):
                    # a peer ends right after saying so; its JAX client aborts it if the service goes
                    # first (it polls errors in a C++ thread): give its exit that moment
                    time.sleep(_PEER_EXIT_S)
                    return
                time.sleep(0.1)
        except Exception:  # noqa: BLE001,S110 -- the store is gone: nobody left to wait for
            pass

    def _watch(self) -> None:
        beat, seen, since = 0, {}, {}
        start = time.monotonic()
        while not self._stop.wait(1.0 if beat else 0.0):
            beat += 1
            try:
                self.client.key_value_set(self._key("beat", self.me), str(beat), allow_overwrite=True)
                for rank in range(self.n):
                    if rank == self.me or self._try_get(self._key("done", rank)) is not None:
                        continue
                    failed = self._try_get(self._key("failed", rank))
                    if failed is not None and not self._stop.is_set():
                        status, why = json.loads(failed)
                        # what every process meets alike keeps its status: a checkpoint disagreement (3),
                        # a non-finite loss (4); anything else is this run's failure (6)
                        _say(f"error: process {self.me}: process {rank} of {self.n} stopped (exit status "
                             f"{status}): {why}\nStopping this process too.")
                        self.fail(status if status in (3, 4) else EXIT_MULTIHOST, f"process {rank} stopped")
                    value = self._try_get(self._key("beat", rank))
                    now = time.monotonic()
                    if value != seen.get(rank):
                        seen[rank], since[rank] = value, now
                    elif now - since.get(rank, start) > LOST_AFTER and not self._stop.is_set():
                        _die(EXIT_MULTIHOST, self.lost_message(rank, f"no heartbeat for {LOST_AFTER:g} s"))
            except Exception as err:  # noqa: BLE001 -- the coordinator (process 0) stopped answering
                if self._stop.is_set():
                    return
                _die(EXIT_MULTIHOST, self.lost_message(0, f"the coordinator stopped answering: "
                                                          f"{str(err).splitlines()[0][:200]}"))

    def lost_message(self, rank: int, why: str) -> str:
        return (f"error: process {self.me}: lost process {rank} of {self.n} ({why}); it was killed, crashed "
                "or lost its network. Stopping this process too. When every process is back, restart all "
                "of them with --resume.")

    def lost_peer(self, err: BaseException) -> str:
        """After a failed collective: the message naming the peer that is gone (waits for its heartbeat)."""
        deadline = time.monotonic() + LOST_AFTER + 3
        while self._thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.2)  # the heartbeat thread names the lost process and ends the run
        others = [r for r in range(self.n) if r != self.me]
        who = f"process {others[0]}" if len(others) == 1 else "a process"
        first = str(err).splitlines()[0][:200] if str(err) else type(err).__name__
        return (f"error: process {self.me}: a collective operation failed ({first}); "
                f"{who} of {self.n} was lost. Stopping this process too; restart all with --resume.")

    def agree(self, mine: dict[str, Any], timeout: float) -> list[dict[str, Any]]:
        """Every process's ``mine`` (JSON-serialisable), in rank order, once all have posted theirs."""
        self.client.key_value_set(self._key("resume", self.me), json.dumps(mine), allow_overwrite=True)
        out = []
        for rank in range(self.n):
            if rank == self.me:
                out.append(mine)
                continue
            try:
                out.append(json.loads(self.client.blocking_key_value_get(self._key("resume", rank),
                                                                         int(timeout * 1000))))
            except Exception as err:  # noqa: BLE001
                raise MultiHostError(f"process {self.me}: process {rank} did not report its resume point "
                                     f"within {timeout:g} s: {str(err).splitlines()[0][:200]}") from err
        return out
