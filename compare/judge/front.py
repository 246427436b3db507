"""The one judge: ``judge(problem, assignment, request)`` for every kind of group, from one table of kinds.

Guarantee: whatever the kind, the :class:`~assignment_oracle.compare.judge.verdict.Verdict` says
``optimal`` only when the assignment is valid and equal to a proven optimum of the same request on every
tier (:mod:`compare.judge.verdict`).

:data:`KINDS` is the table: a kind of group (consumer groups, KIP-848's and the classic protocol's;
Streams groups, KIP-1071; share groups, KIP-932) names its problem type, its
request type, its judge (which optimum each part of the verdict is judged against is that module's
own table: :data:`compare.judge.consumer.FINDINGS`), how its solutions and assignments are written, how
its assignors are run and compared.  Callers -- the command line, notebooks, a test -- never branch on a
kind: they call :func:`judge`, :func:`kind_of` and the kind's entries (Kafka's model: one
``assign(GroupSpec, ...)`` contract, one ``GroupAssignment`` result, consumer and Streams API packages
built alike).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from assignment_oracle.compare.judge import consumer, share, streams
from assignment_oracle.compare.judge.verdict import Verdict
from assignment_oracle.problem.errors import UnknownAssignor
from assignment_oracle.problem.model import Problem
from assignment_oracle.problem.scenario_json import InputError
from assignment_oracle.problem.share import ShareProblem
from assignment_oracle.problem.streams import StreamsProblem

__all__ = ["Kind", "KINDS", "judge", "kind_of"]


@dataclass(frozen=True)
class Kind:
    """One kind of group and everything the judge and the command line do with it."""

    name: str
    problem_type: type
    #: (problem, assignment, request, **context) -> Verdict
    judge: Callable[..., Verdict]
    #: The request from the command line's options (``objective`` as text or None, the consumer-only flags).
    request: Callable[..., Any]
    #: A solution as the JSON ``solve`` writes.
    solution_mapping: Callable[..., dict]
    #: The registered assignors' names of this kind.
    assignors: Callable[[], tuple[str, ...]]
    #: (name, problem, iteration order) -> assignment: one assignor of this kind's own registry, run (None: the
    #: command line's runner of consumer assignors, peers, ``external:`` and ``java:``).
    assign: Callable[..., Any] | None
    #: The JSON ``assign`` writes for an assignment of this kind (with ``assign``).
    assignment_mapping: Callable[..., dict] | None
    #: (problem, names, **options) -> a comparison with .rows (each with ``meets``), .text(), .to_mapping()
    compare: Callable[..., Any]
    #: (names given, the scenario's source) -> what ``compare`` runs: the names resolved, refused in one line
    #: when unknown, of another kind, or not installed.
    resolve: Callable[..., Any]
    #: How the command line says what the scenario is (``a Streams group (KIP-1071)``).
    described: str = "a consumer group"
    #: Options of the command line this kind has no use for (refused when given, never ignored).
    refuses: tuple[str, ...] = ()
    #: The same, for ``compare`` (which judges in the kind's own order).
    refuses_in_compare: tuple[str, ...] = ()
    #: (problem, request, method) -> the optimum's time limit when none is given (None: no limit needed).
    default_time_limit: Callable[..., float | None] = lambda problem, request, method: None
    #: What ``demo`` runs on a bundled example of this kind.
    demo_names: Callable[[], tuple[str, ...]] = lambda: ("all",)
    #: The explanation ``explain`` prints for a verdict of this kind (None: the consumer's explain).
    explanation: Callable[[Verdict], str] | None = None


def _consumer_request(problem: Problem, options: dict):
    from assignment_oracle.optimal import Request
    from assignment_oracle.problem.model import BALANCE, SPREAD
    from assignment_oracle.problem.scenario_json import parse_objective

    text = options.get("objective_text")
    order = (parse_objective(text, "--objective", "") if text is not None else None) or options.get("default_order")
    order = order or problem.objective
    if options.get("topic_spread") and SPREAD not in order:
        at = order.index(BALANCE) + 1
        order = (*order[:at], SPREAD, *order[at:])
    return Request(
        objective=order,
        balance=options.get("balance") or "dec-min",
        max_moves=options.get("max_moves"),
        max_moves_per_member=options.get("max_moves_per_member"),
    )


def _streams_request(problem: StreamsProblem, options: dict):
    from assignment_oracle.optimal.streams_request import StreamsRequest
    from assignment_oracle.problem.errors import UnsupportedRequest

    objective = options.get("objective_text")
    if objective is None:
        return StreamsRequest()
    try:
        return StreamsRequest(objective=tuple(t.strip() for t in objective.split(",") if t.strip()))
    except UnsupportedRequest as err:
        raise InputError("--objective", "", str(err).removeprefix("objective: ")) from None


def _consumer_assignors() -> tuple[str, ...]:
    from assignment_oracle.heuristics import ASSIGNORS
    from assignment_oracle.heuristics.registry import CLIENT_PEERS, LIVE_PEERS, PEERS

    return (*ASSIGNORS, *PEERS, *LIVE_PEERS, *CLIENT_PEERS)


def _consumer_default_names() -> tuple[str, ...]:
    from assignment_oracle.heuristics import ASSIGNORS

    return tuple(ASSIGNORS)


def _streams_assignors() -> tuple[str, ...]:
    from assignment_oracle.heuristics.registry import STREAMS_ASSIGNORS

    return tuple(STREAMS_ASSIGNORS)


def _streams_assign(name: str, problem: StreamsProblem, iteration_order: str = "sorted"):
    from assignment_oracle.heuristics.registry import get_streams_assignor
    from assignment_oracle.problem.errors import AssignorError, AssignorFailed

    try:
        entry = get_streams_assignor(name)
    except UnknownAssignor:
        raise InputError(
            "--assignor",
            "",
            f"unknown Streams group assignor {name!r} (its assignors: {', '.join(_streams_assignors())})",
        ) from None
    try:
        return entry.assign(problem, iteration_order=iteration_order)
    except AssignorError as err:
        raise AssignorFailed(f"{name}: {err}") from None


def _consumer_solution(solution, *, timing: bool = False) -> dict:
    return solution.to_mapping(timing=timing, plain=False)


def _streams_assignment_mapping(problem: StreamsProblem, assignment, name: str, iteration_order: str) -> dict:
    from assignment_oracle.problem.streams import standby_shortfall, violations

    found = violations(problem, assignment)
    return {
        "kind": "streams",
        "assignor": name,
        "iteration_order": iteration_order,
        "valid": not found,
        "violations": [v.to_mapping() for v in found],
        "standby_shortfall": standby_shortfall(problem, assignment),
        "assignment": assignment.to_mapping(),
    }


def _streams_compare(problem: StreamsProblem, names, *, progress=None, **_):
    from assignment_oracle.heuristics.registry import ITERATION_ORDERS

    runs: list[tuple[str, str]] = []
    for name in names:
        items = [(n, o) for n in _streams_assignors() for o in ITERATION_ORDERS] if name == "all" else None
        if items is None:
            if name not in _streams_assignors():
                raise InputError(
                    "--assignors",
                    "",
                    f"unknown Streams group assignor {name!r} (its assignors: {', '.join(_streams_assignors())})",
                )
            items = [(name, "sorted")]
        for item in items:
            if item in runs:
                raise InputError("--assignors", "", f"assignor {item[0]!r} is named twice")
            runs.append(item)
    return streams.compare(problem, runs, progress=progress)


def _consumer_resolve(given, source: str):
    from assignment_oracle.heuristics.registry import STREAMS_ASSIGNORS, require_installed, resolve_names

    streams_named = [n for n in given if n in STREAMS_ASSIGNORS]
    if streams_named:
        raise InputError(
            "--assignors",
            "",
            f"{streams_named[0]} is a Streams group assignor (KIP-1071); {source} is a consumer group scenario",
        )
    share_named = [n for n in given if n in _share_assignors()]
    if share_named:
        raise InputError(
            "--assignors",
            "",
            f"{share_named[0]} is a share group assignor (KIP-932); {source} is a consumer group scenario",
        )
    try:
        names = list(resolve_names(given))
    except ValueError as err:
        raise InputError("--assignors", "", str(err)) from None
    for name in names:  # before any work: a peer that cannot run is one line, not a row of errors
        require_installed(name)
    return names


def _streams_resolve(given, source: str):
    from assignment_oracle.heuristics.registry import get_assignor

    for name in given:
        if name == "all" or name in _streams_assignors():
            continue
        try:
            get_assignor(name)
        except Exception:
            raise InputError(
                "--assignors",
                "",
                f"unknown Streams group assignor {name!r} ({source} is a Streams group; known: {', '.join(_streams_assignors())})",
            ) from None
        raise InputError(
            "--assignors",
            "",
            f"{name} is a consumer group assignor; {source} is a Streams group scenario (its assignors: "
            f"{', '.join(_streams_assignors())})",
        )
    return list(given)


def _share_request(problem: ShareProblem, options: dict):
    from assignment_oracle.optimal.share_request import parse_request
    from assignment_oracle.problem.errors import UnsupportedRequest

    try:
        return parse_request(options.get("objective_text"))
    except UnsupportedRequest as err:
        raise InputError("--objective", "", str(err).removeprefix("objective: ")) from None


def _share_assignors() -> tuple[str, ...]:
    from assignment_oracle.heuristics.registry import SHARE_ASSIGNORS

    return tuple(SHARE_ASSIGNORS)


def _share_assign(name: str, problem: ShareProblem, iteration_order: str = "sorted"):
    from assignment_oracle.heuristics.registry import get_share_assignor
    from assignment_oracle.problem.errors import AssignorError, AssignorFailed

    try:
        entry = get_share_assignor(name)
    except UnknownAssignor:
        raise InputError(
            "--assignor", "", f"unknown share group assignor {name!r} (its assignors: {', '.join(_share_assignors())})"
        ) from None
    _share_installed(name)
    try:
        return entry.assign(problem, iteration_order=iteration_order)
    except ValueError as err:  # Java's order without the topic ids it hashes
        raise InputError("--iteration-order", "", str(err)) from None
    except AssignorError as err:
        raise AssignorFailed(f"{name}: {err}") from None


def _share_installed(name: str) -> None:
    """A live share group peer whose extra is not installed is one line naming it (exit 2)."""
    from assignment_oracle.heuristics.registry import SHARE_ASSIGNORS
    from assignment_oracle.problem.extras import require

    entry = SHARE_ASSIGNORS.get(name)
    if entry is not None and entry.extra is not None:
        require(entry.extra, name)


def _share_assignment_mapping(problem: ShareProblem, assignment, name: str, iteration_order: str) -> dict:
    from assignment_oracle.problem.share import violations

    found = violations(problem, assignment)
    return {
        "kind": "share",
        "assignor": name,
        "iteration_order": iteration_order,
        "valid": not found,
        "violations": [v.to_mapping() for v in found],
        "assignment": assignment.to_mapping(),
    }


def _share_compare(problem: ShareProblem, names, *, progress=None, **_):
    from assignment_oracle.heuristics.registry import ITERATION_ORDERS, SHARE_ASSIGNORS

    runs: list[tuple[str, str]] = []
    ports = [n for n, a in SHARE_ASSIGNORS.items() if not a.live]  # "all": the ports, each in both orders
    for name in names:
        items = [(n, o) for n in ports for o in ITERATION_ORDERS] if name == "all" else [(name, "sorted")]
        for item in items:
            if item in runs:
                raise InputError("--assignors", "", f"assignor {item[0]!r} is named twice")
            runs.append(item)
    return share.compare(problem, runs, progress=progress)


def _share_resolve(given, source: str):
    from assignment_oracle.heuristics.registry import get_assignor

    for name in given:
        if name == "all" or name in _share_assignors():
            _share_installed(name)  # before any work: a peer that cannot run is one line, not a row of errors
            continue
        try:
            get_assignor(name)
        except Exception:
            raise InputError(
                "--assignors",
                "",
                f"unknown share group assignor {name!r} ({source} is a share group; known: {', '.join(_share_assignors())})",
            ) from None
        raise InputError(
            "--assignors",
            "",
            f"{name} is a consumer group assignor; {source} is a share group scenario (its assignors: "
            f"{', '.join(_share_assignors())})",
        )
    return list(given)


def _consumer_time_limit(problem, request, method: str) -> float | None:
    from assignment_oracle.optimal import choose

    return consumer.JUDGE_TIME_LIMIT if choose(problem, request, method).name == "cpsat-staged" else None


def _consumer_compare(problem: Problem, names, **options):
    from assignment_oracle.compare.judge.evaluate import compare

    return compare(problem, names, **options)


#: The kinds of group the judge knows, by problem type (module docstring).
KINDS: dict[type, Kind] = {
    Problem: Kind(
        name="consumer",
        problem_type=Problem,
        judge=consumer.judge,
        request=_consumer_request,
        solution_mapping=_consumer_solution,
        assignors=_consumer_assignors,
        assign=None,
        assignment_mapping=None,
        compare=_consumer_compare,
        resolve=_consumer_resolve,
        default_time_limit=_consumer_time_limit,
        demo_names=lambda: tuple(_consumer_default_names()),
    ),
    StreamsProblem: Kind(
        name="streams",
        problem_type=StreamsProblem,
        judge=streams.judge,
        request=_streams_request,
        solution_mapping=streams.solution_to_mapping,
        assignors=_streams_assignors,
        assign=_streams_assign,
        assignment_mapping=_streams_assignment_mapping,
        compare=_streams_compare,
        resolve=_streams_resolve,
        described="a Streams group (KIP-1071)",
        refuses=("--method", "--balance", "--topic-spread", "--max-moves", "--max-moves-per-member"),
        refuses_in_compare=("--time-limit", "--objective"),
        default_time_limit=lambda problem, request, method: streams.STREAMS_TIME_LIMIT,
        explanation=lambda verdict: streams.explanation_text(verdict),
    ),
    ShareProblem: Kind(
        name="share",
        problem_type=ShareProblem,
        judge=share.judge,
        request=_share_request,
        solution_mapping=share.solution_to_mapping,
        assignors=_share_assignors,
        assign=_share_assign,
        assignment_mapping=_share_assignment_mapping,
        compare=_share_compare,
        resolve=_share_resolve,
        described="a share group (KIP-932)",
        refuses=("--method", "--balance", "--topic-spread", "--max-moves", "--max-moves-per-member"),
        refuses_in_compare=("--time-limit", "--objective"),
        explanation=lambda verdict: share.explanation_text(verdict),
    ),
}


def kind_of(problem) -> Kind:
    """The kind of ``problem`` (a consumer group's :class:`Problem`, a Streams group's :class:`StreamsProblem`, a
    share group's :class:`ShareProblem`)."""
    kind = KINDS.get(type(problem))
    if kind is None:
        raise TypeError(
            f"no kind of group judges a {type(problem).__name__} (known: {', '.join(k.name for k in KINDS.values())})"
        )
    return kind


def judge(problem, assignment, request=None, *, optimum=None, **context) -> Verdict:
    """``assignment`` against the optimum of ``request`` on ``problem``, whatever the kind of group.

    ``request``: the kind's request (:class:`optimal.Request`, :class:`optimal.streams_request.StreamsRequest`,
    :class:`optimal.share_request.ShareRequest`; ``None``: the scenario's own objective).  ``optimum``, if given, is that request's optimum (judging
    several assignments solves it once).  ``context``: ``assignor`` (its guarantee and the findings about
    it), ``certificate`` (verified), ``time_limit`` and ``method`` (for the optimum), ``optima`` (the
    findings' optima, by name), ``rounds`` (a cooperative assignor's rebalances).
    """
    return kind_of(problem).judge(problem, assignment, request, optimum=optimum, **context)
