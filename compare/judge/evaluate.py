"""Run assignors on a problem and judge each against the optimum: one row per assignor.

This is the unit every consumer shares (``assignment-oracle compare``, churn
simulation, sweeps, notebooks): :func:`evaluate` runs one registered assignor
(bounded in time if asked), and returns an :class:`Evaluation` with a status,
the :class:`~compare.judge.check.Verdict` (every metric against the optimum) and
the assignor's own guarantee; :func:`compare` does it for several assignors
with the optimum's row first, solving the problem once.

Status of a row:

``ok``
    the assignor returned a valid assignment;
``invalid``
    it returned an assignment that breaks validity (the verdict names how);
``timeout``
    it did not finish: its own loop bound
    (:class:`heuristics.AssignorDidNotFinish`) or the caller's time limit;
``error``
    it raised; the message is the exception's, in one line.

A time-limited run is interrupted at the limit (an alarm in this process,
or a forked child process that is killed; see :func:`timed_run`), so a
non-terminating assignor (KAFKA-15106) is reported, never hung on.  Without a limit the assignor runs in this process.  Either way the row
is the same (messages included); only failures of the assignor become
``error`` rows, a failure of this harness raises.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import threading
import time
from dataclasses import dataclass, field

from assignment_oracle.compare.judge.check import Verdict, check
from assignment_oracle.compare.judge.guarantees import GuaranteeCheck, check_guarantee
from assignment_oracle.heuristics import ASSIGNORS, Assignor, AssignorDidNotFinish, get_assignor
from assignment_oracle.heuristics import run as run_assignor
from assignment_oracle.heuristics.cooperative_sticky import Phase
from assignment_oracle.optimal import Solution, solve
from assignment_oracle.problem.model import BALANCE_FIRST, Assignment, Problem

__all__ = ["OK", "INVALID", "TIMEOUT", "ERROR", "OPTIMUM", "AssignorFailed", "Evaluation", "Comparison",
           "evaluate", "compare", "timed_run"]

OK, INVALID, TIMEOUT, ERROR = "ok", "invalid", "timeout", "error"
#: The name of the optimum's row.
OPTIMUM = "optimum"


@dataclass(frozen=True, eq=False)
class Evaluation:
    """One assignor on one problem.

    ``verdict`` and ``guarantee`` are ``None`` when the assignor produced no
    assignment (``timeout``, ``error``); ``rebalances`` is set for
    cooperative assignors (and 1 for the optimum, which is a target, not a
    protocol).
    """

    assignor: str
    status: str
    message: str = ""
    wall_time: float | None = None
    assignment: Assignment | None = None
    verdict: Verdict | None = None
    guarantee: GuaranteeCheck | None = None
    rebalances: int | None = None
    phases: tuple[Phase, ...] = field(default=())

    def to_mapping(self, *, timing: bool = True) -> dict:
        """A flat row (the JSON of ``compare``, a sweep's Parquet row's metrics)."""
        v = self.verdict
        out: dict = {"assignor": self.assignor, "status": self.status, "message": self.message}
        if v is not None:
            out.update(
                valid=v.valid,
                violations=[x.to_mapping() for x in v.violations],
                loads=dict(v.loads),
                sorted_loads=list(v.sorted_loads),
                spread=v.spread,
                optimal_spread=v.optimal_spread,
                kip54_score=v.kip54_score,
                optimal_kip54_score=v.optimal_kip54_score,
                kip54_gap=(v.kip54_score - v.optimal_kip54_score) if v.valid else None,
                sum_of_squares=v.sum_of_squares,
                optimal_sum_of_squares=v.optimal_sum_of_squares,
                most_balanced=v.most_balanced,
                balance_moves=v.balance_moves,
                kafka_balance_condition=v.kafka_condition,
                retained=v.retained,
                optimal_retained=v.optimal_retained,
                owned=v.owned,
                moved=v.moved,
                optimal_moved=v.optimal_moved,
                max_topic_spread=v.max_topic_spread,
                per_topic_spread=dict(v.per_topic_spread),
                optimal_on_every_tier=v.optimal,
            )
        if self.guarantee is not None:
            out["guarantee"] = self.guarantee.to_mapping()
        if self.rebalances is not None:
            out["rebalances"] = self.rebalances
        if timing:
            out["wall_time_s"] = None if self.wall_time is None else round(self.wall_time, 6)
        return out


@dataclass(frozen=True, eq=False)
class Comparison:
    """Several assignors on one problem, the optimum's row first."""

    problem: Problem
    optimum: Solution
    rows: tuple[Evaluation, ...]

    def to_mapping(self, *, timing: bool = True) -> dict:
        return {
            "members": len(self.problem.members),
            "partitions": self.problem.total_partitions,
            "rows": [row.to_mapping(timing=timing) for row in self.rows],
        }


class AssignorFailed(RuntimeError):
    """The assignor raised, or returned something that is not an assignment.

    The message is ``"<ExceptionType>: <text>"``, the same whether the
    assignor ran in this process or in a bounded child.  Failures of the
    harness itself are not this exception: they propagate.
    """


#: The longest time limit accepted (a year): beyond it, "no limit" is meant.
MAX_TIME_LIMIT = 365 * 24 * 3600.0


#: How a time-limited run is isolated: "auto" (an alarm in this process when it
#: runs on the main thread, else a child process), "process" (always a child).
ISOLATIONS = ("auto", "process")


class _Deadline(BaseException):
    """Raised into the assignor by the alarm (a BaseException: ``except Exception`` in
    an assignor cannot swallow it)."""


def timed_run(assignor: str | Assignor, problem: Problem, *, time_limit: float | None = None,
              isolation: str = "auto"):
    """Run an assignor (registered name or :class:`~heuristics.Assignor`): ``(assignment, phases, seconds)``.

    Raises :class:`heuristics.AssignorDidNotFinish` when the assignor's own
    bound or ``time_limit`` is hit, and :class:`AssignorFailed` when it
    raises or returns something that is not an :class:`Assignment`.

    With a ``time_limit``, ``isolation="auto"`` runs the assignor here under
    a ``SIGALRM`` timer when this is the main thread (a pure-Python loop is
    interrupted at the limit; cheap enough for sweeps), and otherwise, or
    with ``isolation="process"``, in a child made with ``os.fork`` (which
    also works inside daemonic workers such as a multiprocessing pool's):
    the result comes back pickled through a pipe and the child is killed at
    the limit, which also contains an assignor that crashes its process.
    """
    if isinstance(assignor, str):
        assignor = get_assignor(assignor)
    if time_limit is not None and not (0 < time_limit <= MAX_TIME_LIMIT):
        raise ValueError(f"time_limit must be a positive number of seconds up to {MAX_TIME_LIMIT:g}, got {time_limit}")
    if isolation not in ISOLATIONS:
        raise ValueError(f"isolation must be one of {', '.join(ISOLATIONS)}, got {isolation!r}")
    if time_limit is None:
        return _unpack(_run_here(assignor, problem))
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


def _run_with_alarm(assignor: Assignor, problem: Problem, time_limit: float) -> tuple:
    def expire(signum, frame):
        raise _Deadline()

    previous = signal.signal(signal.SIGALRM, expire)
    try:
        signal.setitimer(signal.ITIMER_REAL, time_limit)
        try:
            return _run_here(assignor, problem)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _Deadline:  # the alarm may also land just after the assignor returned: still too late
        return ("did-not-finish", f"{assignor.name}: did not finish in {time_limit:g} s")
    finally:
        signal.signal(signal.SIGALRM, previous)


def _run_here(assignor: Assignor, problem: Problem) -> tuple:
    """Run in this process; the outcome as plain picklable data (mapping proxies do not pickle)."""
    start = time.perf_counter()
    try:
        result = run_assignor(assignor, problem)
    except AssignorDidNotFinish as err:
        return ("did-not-finish", str(err))
    except Exception as err:  # the assignor's failure: a finding, reported as a row
        return ("failed", f"{type(err).__name__}: {err}")
    seconds = time.perf_counter() - start
    if not isinstance(result.assignment, Assignment):
        return ("failed", f"TypeError: returned {type(result.assignment).__name__}, not an Assignment")
    phases = [(p.assignment.to_mapping(), p.revoked.to_mapping(), p.withheld.to_mapping()) for p in result.phases]
    return ("ok", (result.assignment.to_mapping(), phases, seconds))


def _unpack(outcome: tuple):
    kind, payload = outcome
    if kind == "did-not-finish":
        raise AssignorDidNotFinish(payload)
    if kind == "failed":
        raise AssignorFailed(payload)
    assignment, phases, seconds = payload
    return (
        Assignment(assignment),
        tuple(Phase(Assignment(a), Assignment(r), Assignment(w)) for a, r, w in phases),
        seconds,
    )


def evaluate(
    problem: Problem,
    assignor: str | Assignor,
    *,
    optimum: Solution | None = None,
    time_limit: float | None = None,
    isolation: str = "auto",
) -> Evaluation:
    """Run assignor ``name`` on ``problem`` and judge it (see the module docstring).

    Judged against the balance-first optimum whatever the scenario's
    objective order says: that is the order every assignor here aims for.
    """
    if isinstance(assignor, str):
        assignor = get_assignor(assignor)
    name = assignor.name
    problem = _balance_first(problem)
    if optimum is None:
        optimum = solve(problem)
    try:
        assignment, phases, seconds = timed_run(assignor, problem, time_limit=time_limit, isolation=isolation)
    except AssignorDidNotFinish as err:
        message = _one_line(str(err))
        return Evaluation(name, TIMEOUT, message, guarantee=_undelivered(assignor, problem, optimum, message))
    except AssignorFailed as err:  # the assignor's crash is a finding; the harness's is a bug and propagates
        message = _one_line(str(err))
        return Evaluation(name, ERROR, message, guarantee=_undelivered(assignor, problem, optimum, message))
    verdict = check(problem, assignment, optimum=optimum)
    return Evaluation(
        assignor=name,
        status=OK if verdict.valid else INVALID,
        wall_time=seconds,
        assignment=assignment,
        verdict=verdict,
        guarantee=check_guarantee(assignor.guarantee, problem, assignment,
                                  optimal_sorted_loads=tuple(optimum.sorted_loads),
                                  rounds=[p.assignment for p in phases] or None),
        rebalances=len(phases) if phases else None,
        phases=phases,
    )


def compare(
    problem: Problem,
    names: "list[str | Assignor] | tuple[str | Assignor, ...] | None" = None,
    *,
    time_limit: float | None = None,
) -> Comparison:
    """Every assignor in ``names`` (default: all registered) on ``problem``, the optimum first.

    The problem is solved once, balance first (the order the assignors aim
    for), whatever objective order the scenario states.
    """
    names = list(ASSIGNORS) if names is None else list(names)
    names = [get_assignor(n) if isinstance(n, str) else n for n in names]  # unknown names fail first
    problem = _balance_first(problem)
    optimum = solve(problem)
    best = Evaluation(
        assignor=OPTIMUM,
        status=OK,
        wall_time=optimum.wall_time,
        assignment=optimum.assignment,
        verdict=check(problem, optimum.assignment, optimum=optimum),
        rebalances=1,
    )
    rows = [best] + [evaluate(problem, name, optimum=optimum, time_limit=time_limit) for name in names]
    return Comparison(problem, optimum, tuple(rows))


def _undelivered(assignor: Assignor, problem: Problem, optimum: Solution, message: str) -> GuaranteeCheck:
    """No assignment came back: the guarantee is broken wherever it applies (kept vacuously elsewhere).

    Whether a guarantee applies depends on the problem only (identical
    subscriptions, say), so it is asked with an empty assignment.
    """
    probe = check_guarantee(assignor.guarantee, problem, Assignment.from_partitions({}, problem.member_ids),
                            optimal_sorted_loads=tuple(optimum.sorted_loads))
    if not probe.applies:
        return probe
    return GuaranteeCheck(probe.guarantee, True, False, f"no assignment: {message}")


def _balance_first(problem: Problem) -> Problem:
    return problem if problem.balance_first else Problem(problem.topics, problem.members, BALANCE_FIRST)


def _one_line(text: str) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first[:300]
