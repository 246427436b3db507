"""The one way an assignor is run: bounded in time if asked, every failure one of two errors.

Every assignor (a port, a peer, an external command, a cooperative one)
satisfies one contract, :class:`assignment_oracle.heuristics.Assignor`:
``assign(problem) -> Assignment``, and for a cooperative assignor
``rebalance(problem)`` with every rebalance of its protocol.  :func:`execute`
calls it and turns what can go wrong into :mod:`assignment_oracle.problem.errors`:

* :class:`AssignorDidNotFinish`: the assignor's own loop bound, or
  ``time_limit``.  A time-limited run is interrupted at the limit: an alarm
  in this process (``SIGALRM``, on the main thread), or a forked child that
  is killed, so a non-terminating assignor (KAFKA-15106) is reported, never
  hung on;
* :class:`AssignorFailed`: it raised (``"<ExceptionType>: <text>"``), returned
  something that is not an :class:`Assignment`, or its process died.

An assignor that needs an extra this install lacks (the ``kafka-python:*``
peers) raises :class:`MissingExtra`, which passes through unchanged: that is
the install's limit, not a finding about the assignor.

A failure of this harness itself is neither: it propagates.
:func:`assignment_oracle.heuristics.run` is the public entry point.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import threading
import time

from assignment_oracle.heuristics.cooperative_sticky import Phase
from assignment_oracle.problem.errors import AssignorDidNotFinish, AssignorFailed, MissingExtra
from assignment_oracle.problem.model import Assignment, Problem

__all__ = ["MAX_TIME_LIMIT", "ISOLATIONS", "execute"]


#: The longest time limit accepted (a year): beyond it, "no limit" is meant.
MAX_TIME_LIMIT = 365 * 24 * 3600.0


#: How a time-limited run is isolated: "auto" (an alarm in this process when it
#: runs on the main thread, else a child process), "process" (always a child).
ISOLATIONS = ("auto", "process")


class _Deadline(BaseException):
    """Raised into the assignor by the alarm (a BaseException: ``except Exception`` in
    an assignor cannot swallow it)."""


def execute(assignor, problem: Problem, *, time_limit: float | None = None, isolation: str = "auto"):
    """Run ``assignor`` (anything with ``name``, ``assign`` and ``rebalance``): ``(assignment, phases, seconds)``.

    Raises :class:`AssignorDidNotFinish` when the assignor's own bound or
    ``time_limit`` is hit, and :class:`AssignorFailed` when it raises or
    returns something that is not an :class:`Assignment`.

    With a ``time_limit``, ``isolation="auto"`` runs the assignor here under
    a ``SIGALRM`` timer when this is the main thread (a pure-Python loop is
    interrupted at the limit; cheap enough for sweeps), and otherwise, or
    with ``isolation="process"``, in a child made with ``os.fork`` (which
    also works inside daemonic workers such as a multiprocessing pool's):
    the result comes back pickled through a pipe and the child is killed at
    the limit, which also contains an assignor that crashes its process.
    """
    if time_limit is not None and not (0 < time_limit <= MAX_TIME_LIMIT):
        raise ValueError(f"time_limit must be a positive number of seconds up to {MAX_TIME_LIMIT:g}, got {time_limit}")
    if isolation not in ISOLATIONS:
        raise ValueError(f"isolation must be one of {', '.join(ISOLATIONS)}, got {isolation!r}")
    if time_limit is None:
        return _unpack(_run_here(assignor, problem, portable=False))
    if isolation == "auto" and _alarm_available():
        return _unpack(_run_with_alarm(assignor, problem, time_limit))
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run, send, and leave without running the parent's cleanup
        code = 0
        try:
            os.close(reader)
            payload = pickle.dumps(_run_here(assignor, problem), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(writer, "wb") as pipe:
                pipe.write(payload)
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(writer)
    chunks: list[bytes] = []
    deadline = time.monotonic() + time_limit
    finished = False
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([reader], [], [], remaining)[0]:
                break
            chunk = os.read(reader, 1 << 20)
            if not chunk:
                finished = True
                break
            chunks.append(chunk)
    finally:
        os.close(reader)
        if not finished:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    if not finished:
        raise AssignorDidNotFinish(f"{assignor.name}: did not finish in {time_limit:g} s")
    if not chunks:
        how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit code {os.WEXITSTATUS(status)}"
        raise AssignorFailed(f"ProcessDied: the assignor's process ended without a result ({how})")
    return _unpack(pickle.loads(b"".join(chunks)))


def _alarm_available() -> bool:
    """SIGALRM exists, this is the main thread, and no other interval timer is running."""
    return (
        hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    )


def _run_with_alarm(assignor, problem: Problem, time_limit: float) -> tuple:
    def expire(signum, frame):
        raise _Deadline()

    previous = signal.signal(signal.SIGALRM, expire)
    try:
        signal.setitimer(signal.ITIMER_REAL, time_limit)
        try:
            return _run_here(assignor, problem, portable=False)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _Deadline:  # the alarm may also land just after the assignor returned: still too late
        return ("did-not-finish", f"{assignor.name}: did not finish in {time_limit:g} s")
    finally:
        signal.signal(signal.SIGALRM, previous)


def _call(assignor, problem: Problem) -> tuple:
    """The assignor's own call: ``(assignment, phases)``; every rebalance if it is cooperative."""
    if assignor.rebalance is not None:
        phases = assignor.rebalance(problem).phases
        return phases[-1].assignment, phases
    return assignor.assign(problem), ()


def _run_here(assignor, problem: Problem, *, portable: bool = True) -> tuple:
    """Run in this process.  The outcome is plain picklable data (mapping proxies do not pickle) when
    it may cross a process boundary (``portable``), the objects themselves otherwise."""
    start = time.perf_counter()
    try:
        assignment, phases = _call(assignor, problem)
    except AssignorDidNotFinish as err:
        return ("did-not-finish", str(err))
    except MissingExtra as err:  # not the assignor's failure: this install cannot run it
        return ("missing-extra", (err.extra, err.needed_by, err.module) if portable else err)
    except Exception as err:  # the assignor's failure: a finding, reported as a row
        return ("failed", f"{type(err).__name__}: {err}")
    seconds = time.perf_counter() - start
    if not isinstance(assignment, Assignment):
        return ("failed", f"TypeError: returned {type(assignment).__name__}, not an Assignment")
    if not portable:
        return ("ok", (assignment, tuple(phases), seconds))
    phases = [(p.assignment.to_mapping(), p.revoked.to_mapping(), p.withheld.to_mapping()) for p in phases]
    return ("ok", (assignment.to_mapping(), phases, seconds))


def _unpack(outcome: tuple):
    kind, payload = outcome
    if kind == "did-not-finish":
        raise AssignorDidNotFinish(payload)
    if kind == "failed":
        raise AssignorFailed(payload)
    if kind == "missing-extra":  # the exception itself when it did not cross a process boundary
        raise payload if isinstance(payload, MissingExtra) else MissingExtra(*payload)
    assignment, phases, seconds = payload
    if isinstance(assignment, Assignment):  # ran here, nothing to rebuild
        return assignment, phases, seconds
    return (
        Assignment(assignment),
        tuple(Phase(Assignment(a), Assignment(r), Assignment(w)) for a, r, w in phases),
        seconds,
    )
