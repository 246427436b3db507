"""The CI oracle: assert that an assignment, or an assignor, is as good as the provable optimum.

Guarantee: every check here judges through the one judge (:func:`assignment_oracle.compare.judge.judge`)
against the optimum of the same request, so a pass means what ``assignment-oracle check`` would exit 0
on, and a failure is an :class:`OracleAssertionError` (an ``AssertionError``: pytest and unittest report
it as a failed test) whose message a person can act on: the scenario as short JSON, the answer, each
tier's value beside the optimum's, the first finding that does not hold (the improving chain, the
standby left out) and a one-line replay command over two files written for it.

One answer::

    from assignment_oracle.testing import assert_optimal

    scenario = {"topics": {"t": 3}, "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}}}
    assert_optimal(scenario, my_assign(scenario))   # plain dicts in, plain dicts out

The whole battery, shrunk to the smallest counterexample by Hypothesis, round after round (each round
the assignor's previous answer comes back as the members' owned partitions)::

    from assignment_oracle.testing import check_assignor

    def test_my_assignor():
        check_assignor(my_assign)                    # as balanced and as sticky as the optimum
        check_assignor(my_assign, guarantee="valid") # or only what it promises

Scenarios and assignments are the project's objects or plain JSON-shaped dicts (``{"topics": ...,
"members": ...}`` and ``{member: {topic: [partitions]}}``; a Streams group's ``{"kind": "streams", ...}``
and ``{"members": {m: {"active": ..., "standby": ...}}}``; a share group's ``{"kind": "share", ...}`` and
``{member: {topic: [partitions]}}``, several members on one partition allowed), a path, or JSON text.
Every kind goes through the judge's own table of kinds (:data:`assignment_oracle.compare.judge.KINDS`).  The pytest plugin
(:mod:`assignment_oracle.pytest_plugin`) adds ``--oracle-profile quick|thorough`` and the
``oracle_counterexamples`` fixture.  docs/testing.md has a worked example per ecosystem.
"""

from __future__ import annotations

import contextvars
import copy
import hashlib
import inspect
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from hypothesis import HealthCheck, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from assignment_oracle.problem.errors import InputError
from assignment_oracle.problem.formats import versioned
from assignment_oracle.problem.kinds import (
    PROBLEM_TYPES,
    GroupAssignment,
    GroupKind,
    GroupProblem,
    is_problem,
    kind_named,
    kind_of,
)
from assignment_oracle.problem.load import load_assignment, load_scenario, read_document
from assignment_oracle.strategies import KINDS as STRATEGY_KINDS
from assignment_oracle.strategies import Drawn, event_lists, json_scenarios

__all__ = [
    "KINDS",
    "OracleAssertionError",
    "assert_guarantee",
    "assert_optimal",
    "assert_valid",
    "check_assignor",
    "counterexample_folder",
    "optimal_assignment",
]

#: The program replay commands name.
PROG = "assignment-oracle"
#: Characters of JSON a failure message shows of a scenario or an answer before cutting it (the files
#: hold the whole of both).
SHOWN_JSON = 600
#: Findings that do not hold shown in a failure message, in the judge's order (Kafka's local condition,
#: then the improving chain, ...).
FINDINGS_SHOWN = 3
#: Where counterexample files go while a test runs: the ``oracle_counterexamples`` fixture sets it
#: (:mod:`assignment_oracle.pytest_plugin`); unset, a new temporary folder per failure.
counterexample_folder: contextvars.ContextVar[Path | None] = contextvars.ContextVar(
    "counterexample_folder", default=None
)


class OracleAssertionError(AssertionError):
    """An assignment (or an assignor's answer) is not what was asserted.

    ``str(error)`` is the readable message (module docstring).  Attributes: ``scenario`` (the JSON
    scenario dict), ``answer`` (the JSON answer, or None when the assignor raised), ``verdict`` (the
    judge's :class:`~assignment_oracle.compare.judge.Verdict`, or None), ``files`` (the scenario's and the
    answer's paths) and ``replay`` (the command that replays the judgement).
    """

    def __init__(self, message: str, *, scenario=None, answer=None, verdict=None, files=(), replay: str = ""):
        super().__init__(message)
        self.scenario, self.answer, self.verdict = scenario, answer, verdict
        self.files, self.replay = tuple(files), replay


# -- reading what is given --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Case:
    """One scenario and one answer, both as the project's objects and as JSON documents."""

    problem: GroupProblem
    scenario: dict  # the JSON scenario, as written to the replay file
    answer: Any  # the answer's JSON document (None: there is none)
    assignment: GroupAssignment | None  # None: the answer cannot be read
    unreadable: str = ""  # why the answer cannot be read

    @property
    def kind(self) -> str:
        return kind_of(self.problem).name


def _scenario(scenario: Any) -> tuple[GroupProblem, dict]:
    """The problem and its JSON document; a scenario that cannot be read (one that is not JSON-shaped: an
    integer member id, a dict that contains itself) raises :class:`InputError`."""
    if is_problem(scenario):
        return scenario, scenario.to_mapping()
    document, _ = read_document(scenario, name="scenario")
    return load_scenario(document), document


class _Unreadable(Exception):
    """An answer that is not an assignment at all (why, in words); it is kept as the case's answer only when
    it can be written as JSON."""

    def __init__(self, reason: str, shown: Any = None):
        super().__init__(reason)
        self.reason, self.shown = reason, shown


def _answer_document(problem: GroupProblem, answer: Any) -> Any:
    """The answer as JSON: the project's objects converted (the kind's own document, problem.kinds); a bare
    ``{member: ...}`` given without its kind's key (``assignment``; Streams: ``members``) gets one (what
    ``check`` reads).  A :class:`~pathlib.Path` is read; a string is read as JSON text, never as a file name
    (an assignor that answers ``"/etc/passwd"`` is not an assignor that answered a file); an answer that is
    not JSON-shaped (an integer member id, a dict that contains itself) is :class:`_Unreadable`."""
    kind = kind_of(problem)
    if isinstance(answer, kind.assignment_type):
        return kind.answer_document(problem, answer)
    if isinstance(answer, (str, bytes)):
        text = answer.decode("utf-8", "replace") if isinstance(answer, bytes) else answer
        if text.lstrip()[:1] not in ("{", "["):
            raise _Unreadable(
                f"the answer is a string, not an assignment ({_short_json(text, 80)}): a string is read as JSON "
                "text, never as a file name (give a pathlib.Path to read a file)",
                text,
            )
        try:
            answer, _ = read_document(text, name="the answer")
        except InputError as err:
            raise _Unreadable(str(err), text) from None
    elif isinstance(answer, Path):
        try:
            answer, _ = read_document(answer, name="assignment")
        except InputError as err:
            raise _Unreadable(str(err), str(answer)) from None
    elif isinstance(answer, (Mapping, list)):
        try:
            read_document(answer, name="the answer")  # JSON-shaped: string keys, no dict inside itself
        except InputError as err:
            raise _Unreadable(str(err), repr(answer)[:SHOWN_JSON]) from None
    if isinstance(answer, Mapping) and not {"members", "assignment"} & set(answer):
        return kind.wrap_answer(answer)
    return answer


def _case(problem: GroupProblem, scenario: dict, answer: Any) -> _Case:
    try:
        document = _answer_document(problem, answer)
    except _Unreadable as unreadable:
        return _Case(problem, scenario, unreadable.shown, None, unreadable.reason)
    try:
        assignment = load_assignment(document, problem)
    except InputError as err:
        return _Case(problem, scenario, document, None, str(err))
    return _Case(problem, scenario, document, assignment)


def _request(problem: GroupProblem, objective: Iterable[str] | None):
    """The judge's request for ``objective`` (None: the scenario's own, Kafka's order for Streams and share
    groups; a share group's ``balance`` and ``sharing`` may name their definition, ``"balance:per-topic"``)."""
    if objective is None:
        return None
    if isinstance(objective, str):
        objective = [t.strip() for t in objective.split(",") if t.strip()]
    from assignment_oracle.optimal.engines import parse_objective

    return parse_objective(kind_of(problem).name, ",".join(objective))


def _judge(case: _Case, request):
    from assignment_oracle.compare.judge import judge

    return judge(case.problem, case.assignment, request)


def _judged(check: str, scenario: Any, assignment: Any, objective, folder) -> tuple[_Case, Any, Any]:
    """The case an ``assert_*`` judges, its request and its verdict; an answer that cannot be read is the
    ``check``'s failure."""
    problem, document = _scenario(scenario)
    case = _case(problem, document, assignment)
    request = _request(problem, objective)
    if case.assignment is None:
        raise _failure(f"{check}: the answer cannot be read", case, request, None, folder=folder)
    return case, request, _judge(case, request)


# -- the message ------------------------------------------------------------------------------------------


def _json(document: Any) -> str:
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False, default=str)


def _shown(document: Any, file: Path | None) -> str:
    text = _json(document)
    if len(text) <= SHOWN_JSON:
        return text
    where = f"the whole in {file}" if file is not None else "not written"
    return text[:SHOWN_JSON] + f"… ({len(text)} characters; {where})"


def _folder(folder: str | Path | None) -> Path:
    """Where this failure's files go: ``folder``, else the fixture's, else a new temporary folder."""
    chosen = Path(folder) if folder is not None else counterexample_folder.get()
    if chosen is None:
        return Path(tempfile.mkdtemp(prefix="assignment-oracle-"))
    chosen.mkdir(parents=True, exist_ok=True)
    return chosen


def _write(case: _Case, folder: str | Path | None) -> tuple[Path, Path | None]:
    """The scenario and the answer written as JSON files named by their content (the same failure twice
    writes the same two files), each naming its ``format_version`` (an answer that is no assignment
    document, a string the assignor gave, as it was)."""
    where = _folder(folder)
    scenario = versioned("scenario", case.scenario) if isinstance(case.scenario, Mapping) else case.scenario
    answer = case.answer
    if isinstance(answer, Mapping) and {"members", "assignment"} & set(answer):
        answer = versioned("assignment", answer)
    scenario_text = json.dumps(scenario, indent=1, ensure_ascii=False, default=str) + "\n"
    answer_text = None if answer is None else json.dumps(answer, indent=1, ensure_ascii=False, default=str) + "\n"
    digest = hashlib.sha256((scenario_text + (answer_text or "")).encode()).hexdigest()[:10]
    scenario_file = where / f"scenario-{digest}.json"
    scenario_file.write_text(scenario_text, encoding="utf-8")
    answer_file = None
    if answer_text is not None:
        answer_file = where / f"answer-{digest}.json"
        answer_file.write_text(answer_text, encoding="utf-8")
    return scenario_file, answer_file


def _replay(case: _Case, request, scenario_file: Path, answer_file: Path | None) -> str:
    if answer_file is None:
        return f"{PROG} solve {scenario_file}   (the assignor raised on this scenario: no answer to check)"
    flags = ""
    if request is not None:
        tiers = request.objective
        if case.kind == "share":  # each tier with its definition, as --objective reads it
            definition = {"balance": f":{request.balance}", "sharing": f":{request.sharing}"}
            tiers = [t + definition.get(t, "") for t in tiers]
        flags = f" --objective {','.join(tiers)}"
    return f"{PROG} check {scenario_file} {answer_file}{flags}"


_MARK = {"equal": "=", "worse": "worse than", "better": "better than", "unknown": "? (not proven)"}


def _tier_text(line) -> str:
    said = f"{line.tier}: {line.value} {_MARK.get(line.comparison, line.comparison)} optimum {line.optimum}"
    if line.comparison == "worse":  # the difference in words, else the members and partitions involved
        note = getattr(line, "note", "")
        if note:
            said += f" ({note})"
        elif line.involved:
            said += f"; involved: {_short_json(line.involved)}"
    return said


def _says_something(line, owned: int) -> bool:
    """A tier line worth a line of the message: stickiness only where something was owned, and no tier
    where the assignment and the optimum both measure 0 (no racks, say)."""
    if line.tier == "stickiness" and owned == 0:
        return False
    return not (line.comparison == "equal" and line.value == 0 and line.optimum == 0)


def _short_json(value: Any, limit: int = 160) -> str:
    text = _json(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _failure(
    title: str,
    case: _Case,
    request,
    verdict,
    *,
    folder: str | Path | None,
    context: Iterable[str] = (),
    error: BaseException | None = None,
) -> OracleAssertionError:
    """The error for a failed check: what failed, the scenario, the answer, tier by tier, the first finding
    that does not hold, and the replay command over two files written for it."""
    try:
        scenario_file, answer_file = _write(case, folder)
    except OSError as err:  # a full disk, a folder that is a file: the verdict is still the message
        scenario_file = answer_file = None
        replay = f"(none: the counterexample files could not be written: {type(err).__name__}: {err})"
    else:
        replay = _replay(case, request, scenario_file, answer_file)
    lines = [title, *context, f"scenario: {_shown(case.scenario, scenario_file)}"]
    if error is not None:
        lines.append(f"the assignor raised {type(error).__name__}: {error}")
    elif case.assignment is None:
        lines += [f"answer: {_shown(case.answer, answer_file)}", f"the answer cannot be read: {case.unreadable}"]
    else:
        lines.append(f"answer: {_shown(case.answer, answer_file)}")
    if verdict is not None:
        if not verdict.valid:
            shown = "; ".join(verdict.violations[:3])
            more = f" (+{len(verdict.violations) - 3} more)" if len(verdict.violations) > 3 else ""
            lines.append(f"valid: no: {shown}{more}")
        else:
            lines.append("valid: yes")
            lines += [_tier_text(t) for t in verdict.tiers if _says_something(t, verdict.owned)]
            defects = [f for f in verdict.findings if f.holds is False][:FINDINGS_SHOWN]
            lines += [f"finding that does not hold: {f.name}: {f.summary}" for f in defects]
    lines.append(f"replay: {replay}")
    return OracleAssertionError(
        "\n".join(lines),
        scenario=case.scenario,
        answer=case.answer,
        verdict=verdict,
        files=tuple(p for p in (scenario_file, answer_file) if p is not None),
        replay=replay,
    )


# -- the checks -------------------------------------------------------------------------------------------


def _guarantee_failure(case: _Case, verdict, guarantee: str) -> str | None:
    """Why ``guarantee`` is broken on the case (None: kept, or it does not apply): the kind's own rule, a row of
    the judge's table (:data:`assignment_oracle.compare.judge.KINDS`)."""
    from assignment_oracle.compare.judge.front import KINDS as JUDGED

    judged = JUDGED[case.kind]
    judged.check_guarantee_name(guarantee)
    return judged.guarantee_broken(guarantee, case.problem, case.assignment, verdict)


def _optimality_failure(verdict, tiers: Iterable[str] | None) -> str | None:
    """Why the verdict is not optimal on the tiers asked for (None: it is).

    ``tiers=None`` asks for every tier of the objective (the verdict's status must be ``optimal``); a
    tier asked for passes when its value equals the optimum's, proven (or is better there, which only
    happens after a tier not asked for where it is worse)."""
    if not verdict.valid:
        return "not valid"
    if tiers is None:
        if verdict.status == "optimal":
            return None
        if verdict.status == "gap":
            return f"not optimal: a gap at the {verdict.gap_tier} tier"
        if verdict.status == "short":
            return "not optimal: a standby that could be placed is left out"
        return "not proven optimal: the optimum was not proven on every tier (raise the time limit)"
    asked = [tiers] if isinstance(tiers, str) else list(tiers)
    order = tuple(verdict.objective_order)
    unknown = [t for t in asked if t not in order]
    if unknown:
        raise ValueError(f"tiers: {unknown[0]!r} is not a tier of the objective ({', '.join(order)})")
    shortfall = next((f for f in verdict.findings if f.name == "standby-shortfall"), None)
    if shortfall is not None and shortfall.holds is False:
        return "not optimal: a standby that could be placed is left out"
    for name in asked:
        line = verdict.tier(name)
        if line.comparison == "worse":
            return f"not optimal: a gap at the {name} tier"
        if line.comparison == "unknown":
            return f"not proven optimal at the {name} tier (the optimum's {name} was not proven)"
    return None


def assert_valid(scenario: Any, assignment: Any, *, folder: str | Path | None = None) -> None:
    """Pass when ``assignment`` is valid for ``scenario``: every partition of a subscribed topic (every
    task) assigned exactly once, to a member that subscribes to it, and nothing else (a share group: each
    member holds only assignable partitions of its topics, each at most once; a partition without a
    holder is a gap at the coverage tier, not a violation); else raise :class:`OracleAssertionError`
    listing the violations.

    ``scenario``: the project's problem of any kind (:data:`assignment_oracle.problem.kinds.KINDS`),
    a JSON-shaped dict, a path or JSON text; ``assignment``: the project's assignment or ``{member: {topic: [partitions]}}`` (Streams:
    ``{"members": {m: {"active": ..., "standby": ...}}}``).  ``folder``: where the counterexample files go
    (default: the ``oracle_counterexamples`` fixture's folder under pytest, else a temporary folder).

    Raises
    ------
    InputError
        The scenario cannot be read (one line naming the field).
    OracleAssertionError
        The assignment cannot be read, or is not valid.
    """
    __tracebackhide__ = True
    case, _, verdict = _judged("assert_valid", scenario, assignment, None, folder)
    if not verdict.valid:
        raise _failure("assert_valid: not valid", case, None, verdict, folder=folder)


def assert_guarantee(scenario: Any, assignment: Any, guarantee: str, *, folder: str | Path | None = None) -> None:
    """Pass when ``assignment`` keeps ``guarantee`` on ``scenario`` (vacuously where the guarantee does not
    apply), judged against the oracle; else raise :class:`OracleAssertionError` saying why.

    Consumer groups: a key of :data:`assignment_oracle.compare.judge.guarantees.GUARANTEES` (``valid``,
    ``per-topic-balance``, ``identical-subscriptions-balance``, ``kafka-balance``,
    ``cooperative-kafka-balance``, ``exact-balance``, ``stream-join``).  Streams groups: one of Kafka's
    (``valid``, ``standby-not-on-same-process``, ``every-placeable-standby``, ``active-balance``,
    ``sticky-at-equal-balance``).  Share groups: one of Kafka's ``SimpleAssignor`` promises
    (:data:`assignment_oracle.compare.judge.share.GUARANTEES`: ``valid``, ``coverage``,
    ``balance-within-one``, ``sharing-at-desired``, ``sticky-at-equal-balance``; the last is not judged,
    and so kept, where a tier before stickiness differs from the optimum's).  Inputs as :func:`assert_valid`.

    Raises
    ------
    ValueError
        ``guarantee`` is not one of the kind's guarantees.
    OracleAssertionError
        The guarantee is broken (an invalid assignment breaks every guarantee).
    """
    __tracebackhide__ = True
    case, _, verdict = _judged("assert_guarantee", scenario, assignment, None, folder)
    broken = _guarantee_failure(case, verdict, guarantee)
    if broken is None and not verdict.valid:
        broken = f"guarantee {guarantee} broken: not valid"
    if broken is not None:
        raise _failure(f"assert_guarantee: {broken}", case, None, verdict, folder=folder)


def assert_optimal(
    scenario: Any,
    assignment: Any,
    objective: Iterable[str] | str | None = None,
    tiers: Iterable[str] | str | None = None,
    *,
    folder: str | Path | None = None,
) -> None:
    """Pass when ``assignment`` is valid and equal to the proven optimum on every tier asked for; else raise
    :class:`OracleAssertionError` with each tier beside the optimum's and the first finding that does not hold.

    Parameters
    ----------
    scenario, assignment:
        As :func:`assert_valid`.
    objective:
        The tiers in priority order (``["balance", "stickiness"]`` or ``"balance,stickiness"``); None: the
        scenario's own (consumer groups: ``balance, rack, stickiness`` unless it says otherwise; Streams
        and share groups: Kafka's order; a share group's four tiers each once, ``balance`` and ``sharing``
        optionally with their definition, ``"balance:per-topic"``).
    tiers:
        The tiers that must equal the optimum's (a subset of the objective: ``["balance"]`` asks "as
        balanced as the optimum", whatever the stickiness); None: every tier, and the verdict must be
        ``optimal``.  A tier after one where the assignment is worse may be *better* than the optimum's
        there: that passes too.  A Streams group must also place every placeable standby.

    Raises
    ------
    ValueError
        A tier asked for is not in the objective.
    OracleAssertionError
        Not valid, a gap on a tier asked for, or the optimum not proven there.
    """
    __tracebackhide__ = True
    case, request, verdict = _judged("assert_optimal", scenario, assignment, objective, folder)
    failed = _optimality_failure(verdict, tiers)
    if failed is not None:
        raise _failure(f"assert_optimal: {failed}", case, request, verdict, folder=folder)


def optimal_assignment(scenario: Any, objective: Iterable[str] | str | None = None) -> dict:
    """The oracle's optimum of ``scenario`` as a plain dict (``{member: {topic: [partitions]}}``, every member
    listed; Streams: ``{"members": {m: {"active": ..., "standby": ...}}}``): a reference assignor that
    :func:`assert_optimal` and :func:`check_assignor` pass, for differential tests."""
    from assignment_oracle.optimal import solve

    problem, _ = _scenario(scenario)
    solution = solve(problem, _request(problem, objective))
    document = kind_of(problem).answer_document(problem, solution.assignment)
    return document.get("assignment", document)


# -- kinds of group, for check_assignor ----------------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    """One kind of group :func:`check_assignor` can play: its round-1 scenarios, the events drawn between
    rounds, and how an answer becomes the next round's previous assignment."""

    name: str
    #: ``scenarios(hostile)``: the round-1 JSON scenarios (a strategy of dicts: :func:`json_scenarios`, with
    #: its hostile events or without).
    scenarios: Callable[[bool], Any]
    #: ``events(hostile)``: the events between two rounds, a strategy of lists of the kind's events
    #: (:data:`assignment_oracle.strategies.KINDS`; an empty list is a round where only the answer comes back);
    #: not hostile, at most one member leaving or joining.
    events: Callable[[bool], Any]
    #: ``next_round(scenario, answer, events, round)``: the scenario of round ``round`` (counted from 1) after
    #: ``answer`` and ``events`` (nothing mutated); a member an event adds is named after the round
    #: (``joined-ROUND-INDEX``), and the last one added is the scenario's ``"joining"`` member.
    next_round: Callable[[dict, Any, list, int], dict]
    #: A registered assignor's ``assign(problem)`` by name.
    registered: Callable[[str], Callable]


def _next_round(kind: GroupKind, drawn: Drawn) -> Callable[[dict, Any, list, int], dict]:
    """The answer fed back as every member's previous assignment (the kind's own, problem.kinds: a consumer
    group's ``owned`` at the next generation, a Streams group's previous active and standby tasks, a share
    group's ``assigned``); then the round's events (the strategies' own, :data:`assignment_oracle.strategies.
    KINDS`: a member leaving or joining last, a zombie's claim, a topic deleted, ...)."""

    def next_round(scenario: dict, answer: Any, events: list, round_: int) -> dict:
        return drawn.apply(kind.fed_back(scenario, kind.answer_members(answer), None), events, f"{round_}-")

    return next_round


def _registered(kind: str) -> Callable[[str], Callable]:
    """A registered assignor of ``kind`` (heuristics.registry's one registry) -> its ``assign(problem)``."""

    def assign(name: str) -> Callable:
        from assignment_oracle.heuristics.registry import get_assignor

        return get_assignor(name, kind=kind).assign

    return assign


#: The events between rounds without hostile ones: a member leaving or joining, now and then.
_CHURN = event_lists(("none", "leave", "join"), max_events=1)


def _playing(name: str, **draws: int) -> Kind:
    """How :func:`check_assignor` plays a kind of group (problem.kinds): round-1 groups drawn small
    (``draws``: :func:`json_scenarios`' bounds) with up to two hostile events, as many between rounds, the
    kind's own feed-back and registry."""
    drawn = STRATEGY_KINDS[name]
    return Kind(
        name,
        lambda hostile: json_scenarios(name, hostile=hostile, **draws),
        lambda hostile: drawn.event_lists() if hostile else _CHURN,
        _next_round(kind_named(name), drawn),
        _registered(name),
    )


#: The kinds of group, by name.
KINDS: dict[str, Kind] = {
    "consumer": _playing("consumer", max_members=5, max_topics=3, max_partitions=6),
    "streams": _playing("streams", max_subtopologies=2, max_tasks=4, max_processes=3, max_members_per_process=2),
    "share": _playing("share", max_topics=2, max_partitions=4, max_members=4),
}


@dataclass(frozen=True)
class _Assignor:
    """The assignor under test, called the way it speaks: JSON dicts, or the project's objects."""

    call: Callable
    objects: bool
    label: str

    def __call__(self, problem: GroupProblem, scenario: dict) -> Any:
        return self.call(problem) if self.objects else self.call(copy.deepcopy(scenario))


def _speaks_objects(assign: Callable) -> bool:
    """Whether ``assign`` takes the project's problem: its first parameter is annotated with a problem class,
    or, not annotated as a dict, it is one of the project's own functions."""
    try:
        parameters = list(inspect.signature(assign).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    if parameters:
        annotation = parameters[0].annotation
        if isinstance(annotation, type) and issubclass(annotation, PROBLEM_TYPES):
            return True
        if isinstance(annotation, str) and annotation.split(".")[-1] in {t.__name__ for t in PROBLEM_TYPES}:
            return True
        if annotation in (dict, Mapping) or (isinstance(annotation, str) and annotation.split("[")[0] in _JSON):
            return False  # annotated as the scenario dict: JSON, even one of the project's own (seeded bugs)
    return getattr(assign, "__module__", "").startswith("assignment_oracle.")


#: The annotations that say a first parameter is the scenario dict.
_JSON = {"dict", "Mapping", "typing.Mapping", "collections.abc.Mapping"}


def _assignor(assign: Any, kind: Kind, speaks: str | None) -> _Assignor:
    if speaks not in (None, "json", "objects"):
        raise ValueError(f"speaks: must be 'json' or 'objects', got {speaks!r}")
    if isinstance(assign, str):
        return _Assignor(kind.registered(assign), True, assign)
    if hasattr(assign, "assign") and callable(assign.assign):  # a registered assignor object
        return _Assignor(assign.assign, True, getattr(assign, "name", repr(assign)))
    if not callable(assign):
        raise TypeError(f"assign: must be a callable, an assignor name or object, got {type(assign).__name__}")
    objects = _speaks_objects(assign) if speaks is None else speaks == "objects"
    return _Assignor(assign, objects, getattr(assign, "__qualname__", repr(assign)))


class _Counterexample(Exception):
    """A failing round, raised inside Hypothesis (which shrinks it) and turned into the message after."""

    def __init__(self, title, case, request, verdict, context, error=None):
        super().__init__(title)
        self.title, self.case, self.request, self.verdict = title, case, request, verdict
        self.context, self.error = context, error


def _events_said(events: list) -> str:
    """The events between two rounds, as the round's context says them (``", then: leave, zombie-equal"``)."""
    named = [what for what, *_ in events if what != "none"]
    return f", then: {', '.join(named)}" if named else ""


def _play(
    kind: Kind,
    assignor: _Assignor,
    scenario: dict,
    events: list,
    *,
    rounds: int,
    guarantee: str | None,
    objective,
    tiers,
    optimality: bool,
) -> None:
    """Every round of one drawn case; the first that fails raises :class:`_Counterexample`."""
    for round_ in range(rounds):
        problem = load_scenario(scenario)
        request = _request(problem, objective)
        context = [
            f"round {round_ + 1} of {rounds} ({kind.name} group"
            + (", the previous round's answer as owned" + _events_said(events[round_ - 1]) if round_ else "")
            + f"; assignor {assignor.label})"
        ]
        try:
            answer = assignor(problem, scenario)
        except Exception as err:  # the assignor's own failure: a counterexample like any other
            case = _Case(problem, scenario, None, None)
            raise _Counterexample("check_assignor: the assignor raised", case, request, None, context, err) from err
        case = _case(problem, scenario, answer)
        if case.assignment is None:
            raise _Counterexample("check_assignor: the answer cannot be read", case, request, None, context)
        if kind_of(problem).violations(problem, case.assignment):  # judged once Hypothesis has shrunk it
            raise _Counterexample("check_assignor: not valid", case, request, None, context)
        # no optimum to solve where only a guarantee is asked that the kind checks on the answer alone (valid;
        # a consumer group's guarantees): the verdict is judged once, after shrinking, for the message
        from assignment_oracle.compare.judge.front import KINDS as JUDGED

        reads = guarantee not in (None, "valid") and JUDGED[kind.name].guarantee_reads_verdict
        verdict = _judge(case, request) if optimality or reads else None
        if verdict is not None and not verdict.valid:
            raise _Counterexample("check_assignor: not valid", case, request, verdict, context)
        if guarantee not in (None, "valid"):
            broken = _guarantee_failure(case, verdict, guarantee)
            if broken is not None:
                raise _Counterexample(f"check_assignor: {broken}", case, request, verdict, context)
        if optimality:
            failed = _optimality_failure(verdict, tiers)
            if failed is not None:
                raise _Counterexample(f"check_assignor: {failed}", case, request, verdict, context)
        if round_ + 1 < rounds:
            scenario = kind.next_round(scenario, case.answer, events[round_], round_ + 2)


def check_assignor(
    assign: Callable | str,
    *,
    guarantee: str | None = None,
    objective: Iterable[str] | str | None = None,
    tiers: Iterable[str] | str | None = None,
    kinds: Iterable[str] = ("consumer",),
    max_examples: int | None = None,
    rounds: int = 3,
    speaks: str | None = None,
    seed: int | None = 0,
    folder: str | Path | None = None,
    hostile: bool = True,
) -> None:
    """Pass when ``assign`` keeps what is asked on every drawn group, round after round; else raise
    :class:`OracleAssertionError` on Hypothesis's smallest counterexample.

    Each example draws a group of a kind in ``kinds`` (:func:`assignment_oracle.strategies.json_scenarios`)
    and plays ``rounds`` rebalances: the assignor answers, the judge judges, and the answer comes back
    as the members' previous assignment (consumer: ``owned`` at the next ``generation``; Streams:
    previous active and standby tasks; share: each member's ``assigned``), then up to two hostile events
    (``hostile``: a zombie's claim, a member leaving or joining, a topic deleted, ...).  An answer must be
    valid; then it must keep ``guarantee`` when one is named, and be optimal on ``tiers`` of
    ``objective`` (as :func:`assert_optimal`) unless only a guarantee is named.  An exception the
    assignor raises fails the check the same way, with its traceback chained.

    Parameters
    ----------
    assign:
        ``assign(scenario_dict) -> assignment_dict`` (``{member: {topic: [partitions]}}``; Streams:
        ``{"members": {m: {"active": ..., "standby": ...}}}``), or the project's ``assign(problem) ->
        Assignment`` (told apart by its first parameter's annotation, or by ``speaks``), or a registered
        assignor's name (``"sticky"``, ``"external:./my-assignor"``; ``"share-simple"`` for share groups).
    guarantee:
        A guarantee the assignor promises (:func:`assert_guarantee`'s names); alone, it is all that is
        judged beyond validity.
    objective, tiers:
        As :func:`assert_optimal`; naming either judges optimality too.  Neither, and no guarantee:
        optimal on every tier of the scenario's own objective.
    kinds:
        The kinds of group to draw, keys of :data:`KINDS`: ``"consumer"``, ``"streams"``, ``"share"``.
    max_examples:
        Groups to draw (None: the loaded Hypothesis profile's, which ``--oracle-profile`` sets).
    rounds:
        Rebalances per group, 1 or more.
    speaks:
        ``"json"`` or ``"objects"``, when the annotation does not tell.
    seed:
        Hypothesis's seed, so the same groups are drawn on every run (None: a fresh draw each run).
    folder:
        Where the counterexample files go (default: the ``oracle_counterexamples`` fixture's folder
        under pytest, else a temporary folder).
    hostile:
        Whether the groups carry the inputs that broke real assignors (default: yes; :func:`json_scenarios`'
        events, up to two on the first round's group and up to two between two rounds: zombies' claims,
        topics deleted or missing, empty subscriptions, ...); ``False``: the bundled families, and between
        rounds now and then a member leaving or joining.

    Raises
    ------
    ValueError
        An unknown kind, guarantee or tier, or ``rounds`` below 1.
    OracleAssertionError
        The smallest failing group, its round, the answer, tier by tier, and the replay command.
    """
    __tracebackhide__ = True
    names = (kinds,) if isinstance(kinds, str) else tuple(kinds)
    if not names or any(k not in KINDS for k in names):
        raise ValueError(f"kinds: each must be one of {', '.join(KINDS)}, got {', '.join(map(str, names)) or 'none'}")
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"rounds: must be a whole number, 1 or more, got {rounds!r}")
    if max_examples is not None and (
        isinstance(max_examples, bool) or not isinstance(max_examples, int) or max_examples < 1
    ):
        raise ValueError(f"max_examples: must be a whole number, 1 or more, got {max_examples!r}")
    assignors = {k: _assignor(assign, KINDS[k], speaks) for k in names}
    optimality = guarantee is None or objective is not None or tiers is not None
    cases = st.sampled_from(names).flatmap(
        lambda k: st.tuples(
            st.just(k),
            KINDS[k].scenarios(hostile),
            st.lists(KINDS[k].events(hostile), min_size=rounds - 1, max_size=rounds - 1),
        )
    )

    def run(case) -> None:
        name, scenario, events = case
        _play(
            KINDS[name],
            assignors[name],
            scenario,
            events,
            rounds=rounds,
            guarantee=guarantee,
            objective=objective,
            tiers=tiers,
            optimality=optimality,
        )

    configured = settings(
        max_examples=settings.default.max_examples if max_examples is None else max_examples,
        deadline=None,
        database=None,
        report_multiple_bugs=False,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
    )
    if seed is not None:  # the same groups whatever the loaded profile says (its derandomize included)
        configured = settings(configured, derandomize=False)
    test = configured(given(cases)(run))
    if seed is not None:
        test = hypothesis_seed(seed)(test)
    try:
        test()
    except _Counterexample as found:
        verdict = found.verdict
        if verdict is None and found.case.assignment is not None:  # an invalid answer: judged only now, once
            verdict = _judge(found.case, found.request)
        raise _failure(
            found.title,
            found.case,
            found.request,
            verdict,
            folder=folder,
            context=[f"the smallest counterexample Hypothesis found: {line}" for line in found.context],
            error=found.error,
        ) from found.error
