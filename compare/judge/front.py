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
from assignment_oracle.problem.kinds import kind_named
from assignment_oracle.problem.kinds import kind_of as group_kind_of
from assignment_oracle.problem.model import Problem
from assignment_oracle.problem.scenario_json import InputError

__all__ = ["Kind", "KINDS", "ORACLE_ROWS", "judge", "kind_of", "registered"]

#: The rows of compare, simulate and a sweep that are the optimum's own (the reference, never judged by
#: ``--fail-on``): the optimum, its CP-SAT cross-check, the co-partitioned and weighted optima, and each kind's
#: own optimum (compare.sweep.rows' STREAMS_OPTIMUM and SHARE_OPTIMUM).
ORACLE_ROWS: tuple[str, ...] = (
    "optimum",
    "optimum-cpsat",
    "optimum-co-partitioned",
    "optimum-weighted",
    "optimum-streams",
    "optimum-share",
)


@dataclass(frozen=True)
class Kind:
    """One kind of group and everything the judge and the command line do with it."""

    name: str  # a name in problem.kinds.KINDS
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
    #: (problem, request, method) -> the optimum's time limit when none is given (None: no limit needed).
    default_time_limit: Callable[..., float | None] = lambda problem, request, method: None
    #: What ``demo`` runs on a bundled example of this kind.
    demo_names: Callable[[], tuple[str, ...]] = lambda: ("all",)
    #: The explanation ``explain`` prints for a verdict of this kind (None: the consumer's explain).
    explanation: Callable[[Verdict], str] | None = None
    #: () -> the names of the guarantees an assignor of this kind may promise (``assert_guarantee``,
    #: ``test-assignor --guarantee``), in the judge's order.
    guarantees: Callable[[], tuple[str, ...]] = lambda: ()
    #: (guarantee, problem, assignment, verdict) -> why the guarantee is broken on a valid answer, or None (kept,
    #: or it does not apply).
    guarantee_broken: Callable[..., str | None] = lambda guarantee, problem, assignment, verdict: None
    #: Whether ``guarantee_broken`` reads the verdict (False: the kind's rules read the answer alone, and a
    #: guarantee is checked without solving the optimum; the verdict is then None).
    guarantee_reads_verdict: bool = True

    def check_guarantee_name(self, guarantee: str) -> None:
        """Refuse a guarantee this kind does not know: ``ValueError`` naming the known ones."""
        known = self.guarantees()
        if guarantee not in known:
            raise ValueError(
                f"guarantee: {guarantee!r} is not a {kind_named(self.name).label} guarantee (known: {', '.join(known)})"
            )

    @property
    def described(self) -> str:
        """How the command line says what the scenario is (``a Streams group (KIP-1071)``): the kind's own."""
        return kind_named(self.name).described


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


def _objective_request(kind: str):
    """(problem, options) -> the request of ``--objective`` for a kind that takes only an objective
    (optimal.engines.parse_objective); one line naming ``--objective`` when it cannot be answered."""

    def request(problem, options: dict):
        from assignment_oracle.optimal.engines import parse_objective
        from assignment_oracle.problem.errors import UnsupportedRequest

        try:
            return parse_objective(kind, options.get("objective_text"))
        except UnsupportedRequest as err:
            raise InputError("--objective", "", str(err).removeprefix("objective: ")) from None

    return request


def _assignors(kind: str) -> Callable[[], tuple[str, ...]]:
    """() -> the names registered for ``kind`` (heuristics.registry, imported when asked)."""

    def names() -> tuple[str, ...]:
        from assignment_oracle.heuristics.registry import assignors_of

        return assignors_of(kind)

    return names


def _consumer_default_names() -> tuple[str, ...]:
    from assignment_oracle.heuristics import ASSIGNORS

    return tuple(ASSIGNORS)


def registered(kind: str, name: str, option: str, source: str = "the scenario"):
    """The assignor ``name`` registered for ``kind`` (heuristics.registry.get_assignor); another kind's, or
    nobody's, is one line for ``option`` (the registry's one refusal); a live peer whose extra is missing too."""
    from assignment_oracle.heuristics.registry import get_assignor, require_installed

    try:
        entry = get_assignor(name, kind=kind, source=source)
    except UnknownAssignor as err:
        raise InputError(option, "", str(err)) from None
    except ValueError as err:  # an external name without a command, a Java class that cannot run
        raise InputError(option, "", str(err)) from None
    require_installed(name)  # a peer whose library or runtime is missing: one line, exit 2
    return entry


def _registered_assign(kind: str):
    """(name, problem, iteration order) -> the assignment of one assignor of ``kind``'s own registry."""

    def assign(name: str, problem, iteration_order: str = "sorted", source: str = "the scenario"):
        from assignment_oracle.problem.errors import AssignorError, AssignorFailed

        entry = registered(kind, name, "--assignor", source)
        try:
            return entry.assign(problem, iteration_order=iteration_order)
        except ValueError as err:  # Java's order without the topic ids it hashes
            raise InputError("--iteration-order", "", str(err)) from None
        except AssignorError as err:
            raise AssignorFailed(f"{name}: {err}") from None

    return assign


def _registered_resolve(kind: str):
    """(names given, the scenario's source) -> the names, each one of ``kind``'s own or ``all``; refused in one
    line otherwise, before any work."""

    def resolve(given, source: str):
        for name in given:
            if name != "all":
                registered(kind, name, "--assignors", source)
        return list(given)

    return resolve


def _registered_runs(kind: str, names) -> list[tuple[str, str]]:
    """What ``compare`` runs on a group of ``kind``: (name, iteration order); ``all``: every port (not a live
    peer) in both orders."""
    from assignment_oracle.heuristics.registry import ITERATION_ORDERS, REGISTRIES

    ports = [n for n, a in REGISTRIES[kind].entries.items() if not getattr(a, "live", False)]
    runs: list[tuple[str, str]] = []
    for name in names:
        items = [(n, o) for n in ports for o in ITERATION_ORDERS] if name == "all" else [(name, "sorted")]
        for item in items:
            if item in runs:
                raise InputError("--assignors", "", f"assignor {item[0]!r} is named twice")
            runs.append(item)
    return runs


def _consumer_solution(solution, *, timing: bool = False) -> dict:
    return solution.to_mapping(timing=timing, plain=False)


def _assignment_mapping(problem, assignment, name: str, iteration_order: str) -> dict:
    """The JSON ``assign`` writes for a group with its own assignors: the kind, the assignor, validity (by the
    kind's one rule, problem.kinds) and the assignment; a Streams group adds its standby shortfall."""
    group = group_kind_of(problem)
    found = group.violations(problem, assignment)
    out = {
        "kind": group.name,
        "assignor": name,
        "iteration_order": iteration_order,
        "valid": not found,
        "violations": [v.to_mapping() for v in found],
    }
    return (
        out
        | _assignment_extras.get(group.name, lambda p, a: {})(problem, assignment)
        | {"assignment": assignment.to_mapping()}
    )


def _streams_extras(problem, assignment) -> dict:
    from assignment_oracle.problem.streams import standby_shortfall

    return {"standby_shortfall": standby_shortfall(problem, assignment)}


#: What ``assign`` writes beyond the common fields, by kind.
_assignment_extras = {"streams": _streams_extras}


def _consumer_resolve(given, source: str):
    from assignment_oracle.heuristics.registry import registered_kind, require_installed, resolve_names

    for name in given:
        other = registered_kind(name)
        if other is not None and other.name != "consumer":
            registered("consumer", name, "--assignors", source)  # refused: another kind's assignor
    try:
        names = list(resolve_names(given))
    except ValueError as err:
        raise InputError("--assignors", "", str(err)) from None
    for name in names:  # before any work: a peer that cannot run is one line, not a row of errors
        require_installed(name)
    return names


def _consumer_time_limit(problem, request, method: str) -> float | None:
    from assignment_oracle.optimal import choose

    return consumer.JUDGE_TIME_LIMIT if choose(problem, request, method).name == "cpsat-staged" else None


def _consumer_compare(problem: Problem, names, **options):
    from assignment_oracle.compare.judge.evaluate import compare

    return compare(problem, names, **options)


def _consumer_guarantee_broken(guarantee: str, problem, assignment, verdict) -> str | None:
    """A consumer group's guarantee, checked by its own rule (compare.judge.guarantees)."""
    from assignment_oracle.compare.judge.guarantees import check_guarantee

    outcome = check_guarantee(guarantee, problem, assignment)
    return None if outcome.kept else f"guarantee {guarantee} broken: {outcome.reason}"


def _finding_broken(guarantee: str, problem, assignment, verdict) -> str | None:
    """A guarantee that is one of the verdict's findings (Kafka's Streams and share promises)."""
    found = next((f for f in verdict.findings if f.name == guarantee), None)
    if found is None or found.holds is not False:
        return None
    return f"guarantee {guarantee} broken: {found.summary}"


def _consumer_guarantees() -> tuple[str, ...]:
    from assignment_oracle.compare.judge.guarantees import GUARANTEES

    return tuple(GUARANTEES)


def _own_kind(name: str, module, time_limit: float | None = None) -> Kind:
    """The row of a kind with its own tiers, model and assignors (Streams and share groups), from its judge
    module (``judge``, ``solution_to_mapping``, ``compare``, ``explanation_text``) and its registry; its optimum's
    time limit when none is given (None: its model needs none)."""

    def compare(problem, names, *, progress=None, **_):
        return module.compare(problem, _registered_runs(name, names), progress=progress)

    return Kind(
        name=name,
        judge=module.judge,
        request=_objective_request(name),
        solution_mapping=module.solution_to_mapping,
        assignors=_assignors(name),
        assign=_registered_assign(name),
        assignment_mapping=_assignment_mapping,
        compare=compare,
        resolve=_registered_resolve(name),
        default_time_limit=lambda problem, request, method: time_limit,
        explanation=module.explanation_text,
        guarantees=lambda: tuple(module.GUARANTEES),
        guarantee_broken=_finding_broken,
    )


#: The kinds of group the judge knows, by the kind's name (problem.kinds.KINDS; module docstring).
KINDS: dict[str, Kind] = {
    "consumer": Kind(
        name="consumer",
        judge=consumer.judge,
        request=_consumer_request,
        solution_mapping=_consumer_solution,
        assignors=_assignors("consumer"),
        assign=None,
        assignment_mapping=None,
        compare=_consumer_compare,
        resolve=_consumer_resolve,
        default_time_limit=_consumer_time_limit,
        demo_names=lambda: tuple(_consumer_default_names()),
        guarantees=_consumer_guarantees,
        guarantee_broken=_consumer_guarantee_broken,
        guarantee_reads_verdict=False,
    ),
    "streams": _own_kind("streams", streams, streams.STREAMS_TIME_LIMIT),
    "share": _own_kind("share", share),
}


def kind_of(problem) -> Kind:
    """The judge's row for the kind of ``problem`` (:func:`problem.kinds.kind_of`); a problem of no kind raises
    ``TypeError`` naming the known ones."""
    return KINDS[group_kind_of(problem).name]


def judge(problem, assignment, request=None, *, optimum=None, **context) -> Verdict:
    """``assignment`` against the optimum of ``request`` on ``problem``, whatever the kind of group.

    ``request``: the kind's request (:class:`optimal.Request`, :class:`optimal.streams_request.StreamsRequest`,
    :class:`optimal.share_request.ShareRequest`; ``None``: the scenario's own objective).  ``optimum``, if given, is that request's optimum (judging
    several assignments solves it once).  ``context``: ``assignor`` (its guarantee and the findings about
    it), ``certificate`` (verified), ``time_limit`` and ``method`` (for the optimum), ``optima`` (the
    findings' optima, by name), ``rounds`` (a cooperative assignor's rebalances).
    """
    return kind_of(problem).judge(problem, assignment, request, optimum=optimum, **context)
