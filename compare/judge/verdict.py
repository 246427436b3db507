"""The one verdict: an assignment against the optimum, for every kind of group.

Guarantee: a :class:`Verdict` says ``optimal`` only when the assignment is valid, equal to the optimum
on every tier of the request's order, and every one of those tiers of the optimum is proven; a gap is
named at the first tier where the assignment is worse than an answer the oracle holds (the optimum's
answer is itself valid and better there, equal before: a gap needs no proof).

:func:`assignment_oracle.compare.judge.judge` returns it for consumer groups and Streams groups alike
(share groups will plug in the same way).  Everything a kind of group adds beyond the tiers is a
:class:`Finding` in one list: Kafka's local balance condition and the improving chain, the
co-partitioning breaks, the weighted ratio, what a cooperative rebalance's moves bought, the standby
shortfall, the certificates, and the guarantees an assignor claims (``role="guarantee"``).  One
rendering as text (:meth:`Verdict.text`), one as JSON (:meth:`Verdict.to_mapping`): ``check``,
``explain``, ``compare``'s rows and a sweep's rows all read this one.

Statuses: ``optimal``; ``gap`` (worse than the optimum at ``gap_tier``); ``short`` (Streams: valid, no
gap found, but a placeable standby left out); ``unknown`` (the optimum not proven where it matters, or
the assignment better than an unproven optimum); ``invalid``.  Exit codes (``check``'s): 0 optimal, 1 a
gap, short or unknown, 3 invalid, 4 optimal but the certificate given with it does not verify.

``--fail-on`` conditions (:data:`FAIL_ON`) are a ladder, each including the ones before:
``invalid`` (no valid assignment), ``guarantee`` (or a guarantee the assignor claims is broken),
``gap`` (or worse than the optimum on some tier, or a placeable standby left out).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Mapping, Sequence

from assignment_oracle.problem.errors import AssignorError, SolverError
from assignment_oracle.problem.text import lines_text
from assignment_oracle.problem.tiers import pick, table

__all__ = [
    "AssignorRow",
    "FAIL_ON",
    "OPTIMAL",
    "GAP",
    "SHORT",
    "UNKNOWN",
    "INVALID",
    "TierLine",
    "Finding",
    "Verdict",
    "TierWords",
    "tier_lines",
    "judge_tiers",
    "status_of",
    "verdict_of",
    "words_for",
    "described",
    "Comparison",
    "judged_rows",
    "balance_difference",
    "short_value",
    "fails",
]

OPTIMAL, GAP, SHORT, UNKNOWN, INVALID = "optimal", "gap", "short", "unknown", "invalid"
#: ``--fail-on``'s conditions, weakest first (module docstring).
FAIL_ON = ("invalid", "guarantee", "gap")
_MARK = {"equal": "=", "worse": "worse than", "better": "better than", "unknown": "?"}


@dataclass(frozen=True)
class TierLine:
    """One tier: the assignment's value beside the optimum's, whether the optimum's is proven, the comparison
    (``equal``, ``worse``, ``better``, ``unknown``), the difference in numbers (positive where the assignment
    is worse), the members and partitions (or tasks) involved, and the difference said in words (``note``)."""

    tier: str
    value: object
    optimum: object
    proven: bool
    comparison: str
    difference: dict = field(default_factory=dict)
    involved: dict = field(default_factory=dict)
    note: str = ""

    def to_mapping(self) -> dict:
        return {
            "tier": self.tier,
            "value": self.value,
            "optimum": self.optimum,
            "optimum_proven": self.proven,
            "comparison": self.comparison,
            "difference": self.difference,
            "involved": self.involved,
        }

    def text(self) -> str:
        proof = "" if self.proven else " (not proven)"
        said = f"{self.tier}: {short_value(self.value)} {_MARK[self.comparison]} optimum {short_value(self.optimum)}{proof}"
        return said + (f" ({self.note})" if self.note and self.comparison == "worse" else "")


@dataclass(frozen=True)
class Finding:
    """One thing the judge found beyond the tiers: ``holds`` is ``True`` (fine), ``False`` (the defect is
    there) or ``None`` (not judged, or unknown: the optimum it needs was not proven).  ``role`` is
    ``guarantee`` for a promise an assignor makes (Kafka's, or the one it is registered with)."""

    name: str
    holds: bool | None
    summary: str
    data: dict = field(default_factory=dict)
    role: str = "finding"

    def to_mapping(self) -> dict:
        return {"name": self.name, "role": self.role, "holds": self.holds, "summary": self.summary, "data": self.data}

    def text(self) -> str:
        return f"{self.name}: {self.summary}"


@dataclass(frozen=True)
class Verdict:
    """One assignment against the optimum (module docstring)."""

    kind: str  # consumer, streams
    status: str  # optimal, gap, short, unknown, invalid
    valid: bool
    violations: tuple[str, ...]
    objective_order: tuple[str, ...]
    optimum_status: str
    tiers: tuple[TierLine, ...]
    gap_tier: str | None = None
    findings: tuple[Finding, ...] = ()
    #: Partitions (tasks) with a previous owner: the stickiness tier says something only when there are some.
    owned: int = 0
    assignor: str | None = None
    request: dict = field(default_factory=dict)
    optimum_message: str = ""
    #: The kind's plain numbers about the assignment beside the optimum's (a row's columns read them).
    measures: dict = field(default_factory=dict)
    violation_details: tuple[dict, ...] = ()

    @property
    def optimal(self) -> bool:
        return self.status == OPTIMAL

    @property
    def gap(self) -> TierLine | None:
        return self.tier(self.gap_tier) if self.gap_tier is not None else None

    def tier(self, name: str) -> TierLine | None:
        return next((t for t in self.tiers if t.tier == name), None)

    def finding(self, name: str) -> Finding | None:
        return next((f for f in self.findings if f.name == name), None)

    def violations_of(self, kind: str) -> tuple[str, ...]:
        """The violations of one kind (``duplicated``, ``not-subscribed``, ...), one line each."""
        return tuple(
            text for text, detail in zip(self.violations, self.violation_details) if detail.get("kind") == kind
        )

    @property
    def guarantees(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.role == "guarantee")

    @property
    def guarantee(self) -> Finding | None:
        """The assignor's own guarantee (consumer groups: the one it is registered with), if judged."""
        return next((f for f in self.guarantees if f.name.startswith("guarantee:")), None)

    @property
    def broken(self) -> tuple[str, ...]:
        """The names of the guarantees broken."""
        return tuple(f.name for f in self.guarantees if f.holds is False)

    @property
    def defects(self) -> tuple[Finding, ...]:
        """The findings (not guarantees) that do not hold, in order."""
        return tuple(f for f in self.findings if f.role == "finding" and f.holds is False)

    def exit_code(self) -> int:
        if not self.valid or self.status == INVALID:
            return 3
        if self.status != OPTIMAL:
            return 1
        certificate = self.finding("certificate")
        return 4 if certificate is not None and certificate.holds is False else 0

    def meets(self, condition: str) -> bool:
        """Whether this verdict meets a ``--fail-on`` condition (:data:`FAIL_ON`)."""
        return fails(condition, valid=self.valid, broken=bool(self.broken), gap=self.status in (GAP, SHORT))

    def to_mapping(self) -> dict:
        """Plain JSON, keys in a fixed order (docs/formats.md, "The verdict")."""
        return {
            "kind": self.kind,
            "assignor": self.assignor,
            "verdict": self.status,
            "valid": self.valid,
            "violations": list(self.violation_details) if self.violation_details else list(self.violations),
            "objective_order": list(self.objective_order),
            "request": dict(self.request),
            "optimum_status": self.optimum_status,
            "optimum_message": self.optimum_message,
            "gap_tier": self.gap_tier,
            "owned": self.owned,
            "tiers": [t.to_mapping() for t in self.tiers],
            "findings": [f.to_mapping() for f in self.findings],
            "measures": dict(self.measures),
            "exit_code": self.exit_code(),
        }

    def text(self, *, verbose: bool = False) -> str:
        """A few readable lines: validity, each tier beside the optimum (stickiness only where something was
        owned), the findings, the guarantees, the verdict and its exit code."""
        who = f"{self.assignor}: " if self.assignor else ""
        lines = [f"{who}objective: {', '.join(self.objective_order)} (optimum {self.optimum_status})"]
        if self.valid:
            lines.append("valid: yes")
        else:
            shown = "; ".join(self.violations[:3]) + (
                f" (+{len(self.violations) - 3} more)" if len(self.violations) > 3 else ""
            )
            lines.append(f"valid: no: {shown}")
        loads = self.measures.get("loads")
        if isinstance(loads, dict) and loads and (verbose or len(loads) <= 20):
            lines.append("loads: " + " ".join(f"{m}={n}" for m, n in loads.items()))
        for line in self.tiers:
            if line.tier == "stickiness" and not self.owned:
                continue  # nothing was owned: every assignment keeps the same nothing
            if line.tier == "rack" and self.measures.get("racks") is False:
                continue  # no rack information: every partition is local
            lines.append(line.text())
        for finding in self.findings:
            if finding.role == "finding":
                lines.append(finding.text())
        broken = [g for g in self.guarantees if g.holds is False]
        if self.guarantees:
            said = "; ".join(f"{g.name} ({g.summary.removeprefix('broken').strip(' :()')})" for g in broken)
            lines.append(f"guarantees broken: {said or 'none'}")
        said = {
            OPTIMAL: "optimal on every tier",
            GAP: f"a gap at the {self.gap_tier} tier",
            SHORT: "valid, but a placeable standby left out",
            UNKNOWN: "unknown (the optimum was not proven on every tier, or the assignment is no worse on any)",
            INVALID: "not valid",
        }[self.status]
        lines.append(f"verdict: {said} (exit {self.exit_code()})")
        return lines_text(lines)


def fails(condition: str, *, valid: bool, broken: bool, gap: bool) -> bool:
    """``--fail-on``'s ladder (module docstring): ``invalid`` ⊂ ``guarantee`` ⊂ ``gap``."""
    if condition not in FAIL_ON:
        raise ValueError(f"unknown condition {condition!r} (known: {', '.join(FAIL_ON)})")
    at = FAIL_ON.index(condition)
    return (not valid) or (at >= 1 and broken) or (at >= 2 and gap)


def balance_difference(mine: dict[str, int], best) -> tuple[dict, dict]:
    """A balance gap in numbers and who is involved, for any kind of group: ``mine`` is each member's count
    (partitions, active tasks, tasks), ``best`` the optimum's counts.  The difference: the largest and
    smallest counts beside the optimum's, and ``level``, the first count where the sorted counts differ,
    with how many members are at it or above in each; involved: those members with their counts (busiest
    first) and the optimum's number of them."""
    a = sorted(mine.values(), reverse=True)
    o = sorted(best, reverse=True)
    level = next((x for x, y in zip(a, o) if x != y), a[0] if a else 0)
    difference = {
        "largest": a[0] if a else 0,
        "optimum_largest": o[0] if o else 0,
        "largest_over_optimum": (a[0] if a else 0) - (o[0] if o else 0),
        "smallest": a[-1] if a else 0,
        "optimum_smallest": o[-1] if o else 0,
        "level": level,
        "members_at_level": sum(x >= level for x in a),
        "optimum_members_at_level": sum(x >= level for x in o),
    }
    at = {m: n for m, n in sorted(mine.items(), key=lambda kv: (-kv[1], kv[0])) if n >= level}
    return difference, {"level": level, "members": at, "optimum_members": difference["optimum_members_at_level"]}


def short_value(value) -> str:
    """A tier's value for a line of text: long lists cut in the middle."""
    if isinstance(value, list) and len(value) > 12:
        return f"[{', '.join(str(x) for x in value[:6])}, … {len(value)} values, … {value[-1]}]"
    return str(value)


def tier_lines(records, values, key, *, mark_unproven: bool = True) -> tuple[list[TierLine], str | None, str | None]:
    """Each tier of an optimum (``records``: ``(tier, optimum value or None, proven)``, in order) beside the
    assignment's value (``values[tier]``), compared by ``key(tier, value)`` (smaller is better).

    Returns the lines, the gap tier (the first tier that is not equal, if it is worse: nothing before it
    differs, so the optimum's answer is better there) and the first tier where the assignment is
    *better* than the optimum (possible only where the optimum is not proven, or the assignment is
    invalid: the caller decides which).  ``mark_unproven``: an equal tier before the first difference whose
    optimum is not proven is compared ``unknown`` (consumer groups), else ``equal``."""
    lines: list[TierLine] = []
    gap = better = None
    decided = False
    for tier, best, proven in records:
        value = values[tier]
        if best is None:
            lines.append(TierLine(tier, value, None, False, "unknown"))
            decided = True
            continue
        mine, target = key(tier, value), key(tier, best)
        comparison = "equal" if mine == target else ("worse" if mine > target else "better")
        if not decided and comparison == "worse":
            gap, decided = tier, True
        elif not decided and comparison == "better":
            better, decided = tier, True
        elif comparison == "equal" and not proven and not decided and mark_unproven:
            comparison = "unknown"
        lines.append(TierLine(tier, value, best, proven, comparison))
    return lines, gap, better


@dataclass(frozen=True)
class TierWords:
    """How a kind's judge describes a difference on one of its tiers (the tier record's ``difference``,
    :mod:`problem.tiers`): ``difference(judged, line)`` gives the difference in numbers (positive where the
    assignment is worse) and what is involved (members, partitions, tasks), ``judged`` being whatever the
    kind's judge passes (its problem, assignment, measures, the optimum's); ``note(line)`` says it in words;
    ``involved(line, limit)`` lists what is involved, one line each, for an explanation."""

    difference: Callable[[Any, TierLine], tuple[dict, dict]]
    note: Callable[[TierLine], str]
    involved: Callable[[TierLine, int], list[str]] = lambda line, limit: []


def words_for(kind: str, tier: str, words: Mapping[str, TierWords]) -> TierWords:
    """The :class:`TierWords` of ``tier`` in a kind's judge; :class:`~assignment_oracle.problem.tiers.UnknownTier`
    naming it when the kind has no such tier or its judge was not taught to describe it."""
    return pick(kind, tier, words, f"the {kind} judge")


def described(kind: str, words: Mapping[str, TierWords], judged: Any, line: TierLine) -> TierLine:
    """``line`` with its difference in numbers, what is involved and a note, as the kind's ``words`` for its tier
    say (read from ``judged``); ``line`` itself when there is nothing to read (``judged`` is ``None``: the
    optimum has no answer)."""
    if judged is None:
        return line
    said = words_for(kind, line.tier, words)
    difference, involved = said.difference(judged, line)
    line = dataclasses.replace(line, difference=difference, involved=involved)
    return dataclasses.replace(line, note=said.note(line))


def judge_tiers(
    kind: str,
    records: Sequence[tuple[str, Any, bool]],
    values: Mapping[str, Any],
    *,
    valid: bool,
    trusted: bool,
    who: str = "a valid assignment",
    describe: Callable[[TierLine], TierLine] = lambda line: line,
    mark_unproven: bool = False,
) -> tuple[tuple[TierLine, ...], str | None, bool]:
    """The tier-by-tier judgement every kind of group shares: each tier of the optimum (``records``:
    ``(tier, optimum value or None, proven)``, in order) beside the assignment's value (``values[tier]``),
    compared by the tier's key in the kind's table (:mod:`problem.tiers`; a tier the kind has not is refused
    by name), and described by ``describe`` (the kind's :class:`TierWords`).

    Returns the lines; the gap tier (the first tier that differs, when the assignment is worse there and
    ``valid``); and whether every tier is equal to a proven optimum.  :class:`SolverError` when ``trusted``
    (a valid answer the optimum must not be beaten by) and the first tier that differs is better than a
    proven optimum: a bug in the oracle, never a verdict."""
    lines, gap, better = tier_lines(records, values, table(kind).key, mark_unproven=mark_unproven)
    if better is not None and trusted and next(line for line in lines if line.tier == better).proven:
        raise SolverError(f"{who} beats the proven optimum on the {better} tier (a bug)")
    optimal = bool(lines) and all(line.proven and line.comparison == "equal" for line in lines)
    return tuple(describe(line) for line in lines), (gap if valid else None), optimal


def status_of(*, valid: bool, gap: str | None, optimal: bool, short: bool = False) -> str:
    """A verdict's status (module docstring): ``invalid``, else ``gap``, else ``short`` (a placeable standby
    left out), else ``optimal`` when every tier equals a proven optimum, else ``unknown``."""
    if not valid:
        return INVALID
    if gap is not None:
        return GAP
    if short:
        return SHORT
    return OPTIMAL if optimal else UNKNOWN


def verdict_of(kind: str, optimum, found, lines, gap: str | None, status: str, *, assignor=None, **fields) -> Verdict:
    """The :class:`Verdict` of a kind whose ``optimum`` has ``objective_order``, ``status`` and ``message`` and
    whose violations (``found``) say themselves (``str``) and have ``to_mapping``; ``fields`` the rest."""
    return Verdict(
        kind=kind,
        status=status,
        valid=not found,
        violations=tuple(str(v) for v in found),
        violation_details=tuple(v.to_mapping() for v in found),
        objective_order=tuple(optimum.objective_order),
        optimum_status=optimum.status,
        optimum_message=optimum.message,
        tiers=tuple(lines),
        gap_tier=gap,
        assignor=getattr(assignor, "name", assignor),
        **fields,
    )


@dataclass(frozen=True)
class AssignorRow:
    """One assignor run on a group of any kind (a row of ``compare``): its verdict, or why there is none
    (``status`` ``error``)."""

    assignor: str
    iteration_order: str
    status: str  # ok, error
    verdict: Verdict | None
    message: str = ""
    wall_time: float | None = None

    @property
    def label(self) -> str:
        return self.assignor if self.iteration_order == "sorted" else f"{self.assignor} ({self.iteration_order} order)"

    def line(self) -> str:
        """One line: how this assignor did (``demo``)."""
        v = self.verdict
        said = (
            f"{self.status}: {self.message}"
            if v is None
            else v.status
            + (f" at {v.gap_tier}" if v.gap_tier else "")
            + (f"; broken: {', '.join(v.broken)}" if v.broken else "")
        )
        return f"{self.label}: {said}"

    def cells(self, width: int) -> tuple[str, ...]:
        """The first three cells of this row in ``compare``'s table (label, status, verdict), the kind's
        own cells to follow; for a row without a verdict, all ``width`` of them (its message,
        shortened, then dashes)."""
        v = self.verdict
        if v is None:
            short = self.message if len(self.message) <= 60 else self.message[:57] + "..."
            return (self.label, self.status, short) + ("-",) * (width - 3)
        return (self.label, self.status, v.status + (f" at {v.gap_tier}" if v.gap_tier else ""))

    def meets(self, condition: str) -> bool:
        """Whether this row meets a ``--fail-on`` condition (:data:`compare.judge.verdict.FAIL_ON`); a row
        without an assignment (the assignor raised) is invalid."""
        if self.verdict is None:
            return fails(condition, valid=False, broken=True, gap=True)
        return self.verdict.meets(condition)

    def to_mapping(self, *, timing: bool = False) -> dict:
        out: dict[str, Any] = {
            "assignor": self.assignor,
            "iteration_order": self.iteration_order,
            "status": self.status,
            "message": self.message,
            "verdict": None if self.verdict is None else self.verdict.to_mapping(),
        }
        if timing:
            out["wall_time"] = self.wall_time
        return out


@dataclass(frozen=True)
class Comparison:
    """Assignors on one group, each judged against the same optimum (``compare``'s answer for a kind with its
    own model): the kind's name and how its solution is written are all a kind adds."""

    kind: ClassVar[str]
    problem: Any
    optimum: Any
    rows: tuple[AssignorRow, ...]

    @staticmethod
    def solution_mapping(solution, *, timing: bool = False) -> dict:
        raise NotImplementedError

    def to_mapping(self, *, timing: bool = False) -> dict:
        return {
            "kind": self.kind,
            "optimum": self.solution_mapping(self.optimum, timing=timing),
            "rows": [r.to_mapping(timing=timing) for r in self.rows],
        }

    # -- the table compare prints: the skeleton is here, each kind gives its columns (below) ----------------

    def header(self) -> tuple[str, ...]:
        """The table's columns: ``assignor``, ``status``, ``verdict``, then the kind's own."""
        raise NotImplementedError

    def optimum_cells(self, measures) -> tuple[str, ...]:
        """The optimum's row after its name, status and ``-`` for a verdict, from its measures."""
        raise NotImplementedError

    def verdict_cells(self, verdict: Verdict) -> tuple[str, ...]:
        """An assignor's cells after its name, status and verdict, from its verdict."""
        raise NotImplementedError

    def title(self) -> str:
        """The line above the table: the group, and the optimum's status."""
        raise NotImplementedError

    def text(self) -> str:
        """The table ``compare`` prints: the optimum's row (when it has measures), then one row per assignor
        (an error row's message and dashes, :meth:`AssignorRow.cells`)."""
        from assignment_oracle.compare.judge.text import table

        header = self.header()
        rows = []
        best = self.optimum.measures
        if best is not None:
            rows.append(("optimum", self.optimum.status.lower(), "-", *self.optimum_cells(best)))
        for row in self.rows:
            first = row.cells(len(header))
            rows.append(first if row.verdict is None else (*first, *self.verdict_cells(row.verdict)))
        return lines_text([self.title(), *table(header, rows)])


def judged_rows(
    problem,
    assignors: Sequence[tuple[str, str]],
    *,
    optimum=None,
    entry: Callable[[str], Any],
    judge: Callable[..., Verdict],
    errors: tuple[type[BaseException], ...] = (AssignorError,),
    progress: Callable[[str], None] | None = None,
) -> tuple[Any, tuple[AssignorRow, ...]]:
    """The optimum (``optimum``, or solved through :func:`assignment_oracle.optimal.solve`) and each
    ``(name, iteration order)`` of ``assignors`` run on ``problem`` (``entry(name)``'s ``assign``) and judged
    against it (``judge(problem, result, optimum=, assignor=name)``), one :class:`AssignorRow` each with its wall
    time; an assignor raising one of ``errors`` is a row with status ``error`` and its message."""
    if progress is not None:
        progress("optimum")
    if optimum is None:
        from assignment_oracle.optimal import solve

        optimum = solve(problem)
    rows = []
    for name, order in assignors:
        assignor = entry(name)
        if progress is not None:
            progress(name if order == "sorted" else f"{name} ({order} order)")
        started = time.perf_counter()
        try:
            result = assignor.assign(problem, iteration_order=order)
        except errors as err:
            rows.append(AssignorRow(name, order, "error", None, f"{type(err).__name__}: {err}"))
            continue
        seconds = time.perf_counter() - started
        rows.append(AssignorRow(name, order, "ok", judge(problem, result, optimum=optimum, assignor=name), "", seconds))
    return optimum, tuple(rows)
