"""Why an assignment is not optimal, in moves a maintainer can check by hand.

:func:`explain` gives the first reason an assignment falls short, in the
order the objective ranks them:

``invalid``
    the violations, each named (a partition missing, given twice, given to a
    member that does not subscribe to its topic, or unknown);
``balance``
    not most balanced: an *improving chain*, single-partition moves from an
    overloaded member to one with 2+ fewer partitions
    (``t2-1: C2 → C1, then t0-0: C1 → C0``), found without a solver
    (:func:`compare.judge.balance.improving_chain`); applying it lowers the sum of
    squares, so the chain is a proof, not a hint;
``rack``
    most balanced, but more partitions sit outside their replicas' racks
    (KIP-881) than in the oracle's assignment, which is as balanced: the
    partitions it places locally and this assignment does not, and the
    moves to the oracle's assignment as cycles and paths (as below);
``stickiness``
    most balanced (and as rack-local as the oracle), but fewer partitions stay with their previous owner than
    the oracle keeps: the partitions that could have stayed (the oracle's
    stickiest most-balanced assignment keeps them with their owner), and the
    moves that turn the assignment into that one, grouped into *cycles* (each
    keeps every member's load) and *paths* (each shifts one partition of load
    from its first member to its last; together they only permute the loads,
    so the sorted loads, i.e. the balance, stay equal);
``optimal``
    nothing to explain.

The walks are trails, not simple paths (a member may appear twice), and
they are the whole difference from the oracle's assignment, so partitions
nobody owned may move too: a correct sequence, not a minimal one.
Assignments are judged balance first (the order every assignor aims for),
whatever objective order the scenario states; ``check`` follows the
scenario's order.

Any other request -- join groups (KIP-315's co-partitioning), partition weights, a budget of moves,
the per-topic ``spread`` tier, a balance definition other than dec-min, or an order that does not
put balance first -- is explained through the same door as ``check``
(:func:`compare.judge.consumer.judge`, the one judge): the constraints the assignment breaks (``invalid``), else the
first tier where it is worse than the optimum of that very request (``balance``, ``rack``,
``spread`` or ``stickiness``), with every tier's value beside the optimum's and the moves that turn
the assignment into the optimum's answer (cycles and paths as above).  That answer is the proof: it
is valid under the request, equal on every earlier tier and better on this one.  Where the optimum
was not proven in time and the assignment is equal so far, the kind is ``unknown``.  Under join
groups the moves are listed partition by partition; the partitions of one unit move together.

Everything is available as text (:meth:`Explanation.text`) and JSON
(:meth:`Explanation.to_mapping`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from assignment_oracle.compare.judge import consumer
from assignment_oracle.compare.judge.balance import Move, improving_chain
from assignment_oracle.compare.judge.verdict import Verdict
from assignment_oracle.optimal import Request, Solution, solve
from assignment_oracle.problem.claims import resolve_claims
from assignment_oracle.problem.metrics import cross_rack, load_vector, retained, sorted_loads
from assignment_oracle.problem.model import Assignment, Problem, TopicPartition
from assignment_oracle.problem.ownership import Violation, owner_arrays
from assignment_oracle.problem.text import lines_text
from assignment_oracle.problem.tiers import BALANCE, CONSUMER, RACK, STICKINESS, pick

__all__ = ["CrossRack", "Explanation", "StayedAway", "apply_moves", "explain"]

INVALID, OPTIMAL, UNKNOWN = "invalid", "optimal", "unknown"
#: The tiers the balance-first explanation (chain, rack shortfall, stickiness shortfall) knows; any other
#: request, or any other tier, goes through the one judge (module docstring).
FIRST_SHORTFALL_TIERS = frozenset({BALANCE, RACK, STICKINESS})


@dataclass(frozen=True)
class StayedAway:
    """A partition the oracle keeps with its previous owner, which this assignment gave away."""

    partition: TopicPartition
    owner: str
    given_to: str

    def __str__(self) -> str:
        return f"{self.partition} could have stayed with {self.owner} (given to {self.given_to})"

    def to_mapping(self) -> dict:
        return {
            "topic": self.partition.topic,
            "partition": self.partition.partition,
            "owner": self.owner,
            "given_to": self.given_to,
        }


@dataclass(frozen=True)
class CrossRack:
    """A partition the oracle places on a member of its replicas' racks, which this assignment does not."""

    partition: TopicPartition
    member: str
    oracle_member: str

    def __str__(self) -> str:
        return f"{self.partition} is outside its racks on {self.member} (local on {self.oracle_member})"

    def to_mapping(self) -> dict:
        return {
            "topic": self.partition.topic,
            "partition": self.partition.partition,
            "member": self.member,
            "oracle_member": self.oracle_member,
        }


@dataclass(frozen=True)
class Explanation:
    """The first shortfall of an assignment and its evidence (see the module docstring)."""

    kind: str
    violations: tuple[Violation, ...] = ()
    chain: tuple[Move, ...] = ()
    could_have_stayed: tuple[StayedAway, ...] = ()
    cycles: tuple[tuple[Move, ...], ...] = ()
    paths: tuple[tuple[Move, ...], ...] = ()
    retained: int = 0
    optimal_retained: int = 0
    sorted_loads: tuple[int, ...] = ()
    optimal_sorted_loads: tuple[int, ...] = ()
    could_be_local: tuple[CrossRack, ...] = ()
    cross_rack: int = 0
    optimal_cross_rack: int = 0
    #: The general path (a request other than balance-first counts, module docstring): every tier
    #: judged, the constraints broken, and the request.
    verdict: Verdict | None = None

    @property
    def exit_code(self) -> int:
        """0 optimal, 3 not valid (under the request's constraints), 1 otherwise (a gap, or unknown)."""
        return {INVALID: 3, OPTIMAL: 0}.get(self.kind, 1)

    def text(self, *, limit: int = 20) -> str:
        """Human-readable lines (at most ``limit`` items per list)."""
        if self.verdict is not None:
            return self._request_text(limit)
        said = _SAID[self.kind] if self.kind in _SAID else pick(CONSUMER.kind, self.kind, _SAID, "explain")
        return lines_text(said(self, limit))

    def _invalid_lines(self, limit: int) -> list[str]:
        return [f"not valid: {len(self.violations)} violation(s)", *(f"  {v}" for v in self.violations[:limit])]

    def _balance_lines(self, limit: int) -> list[str]:
        return [
            f"not most balanced: sorted loads {list(self.sorted_loads)}, most balanced {list(self.optimal_sorted_loads)}",
            "improving chain: " + ", then ".join(str(m) for m in self.chain),
        ]

    def _rack_lines(self, limit: int) -> list[str]:
        return [
            f"most balanced, but {self.cross_rack} partition(s) outside their replicas' racks; "
            f"the oracle has {self.optimal_cross_rack} at equal balance",
            *_listed("could be local", self.could_be_local, limit),
            *self._walks(
                f"moves to a most-balanced, most rack-local assignment: {len(self.paths)} path(s) (loads permuted), "
                f"{len(self.cycles)} cycle(s) (loads unchanged)",
                limit,
            ),
        ]

    def _stickiness_lines(self, limit: int) -> list[str]:
        return [
            f"most balanced, but keeps {self.retained} partitions with their previous owner; "
            f"the oracle keeps {self.optimal_retained} at equal balance",
            *_listed("could have stayed", self.could_have_stayed, limit),
            *self._walks(
                f"moves to a stickiest most-balanced assignment: {len(self.paths)} path(s) (loads permuted), "
                f"{len(self.cycles)} cycle(s) (loads unchanged)",
                limit,
            ),
        ]

    def _optimal_lines(self, limit: int) -> list[str]:
        return ["optimal: most balanced, and as sticky as the oracle"]

    def _request_text(self, limit: int) -> str:
        verdict = self.verdict
        if verdict is None:  # (only called when there is one)
            return ""
        lines = [t.text() for t in verdict.tiers if t.tier != STICKINESS or verdict.owned]
        if self.kind == INVALID:
            lines.append(f"not valid under the request: {len(verdict.violations)} break(s)")
            lines += [f"  {b}" for b in verdict.violations[:limit]]
        elif self.kind == OPTIMAL:
            lines.append("optimal on every tier")
        elif self.kind == UNKNOWN:
            lines.append("unknown: equal to the optimum's answer so far, but the optimum was not proven in time")
        else:
            lines.append(f"first shortfall: the {self.kind} tier")
            if self.could_have_stayed:
                lines += _listed("could have stayed", self.could_have_stayed, limit)
            if self.could_be_local:
                lines += _listed("could be local", self.could_be_local, limit)
            lines += self._walks(
                f"moves to the optimum's answer (valid, equal before the {self.kind} tier, better on it): "
                f"{len(self.paths)} path(s), {len(self.cycles)} cycle(s)",
                limit,
            )
        return lines_text(lines)

    def _walks(self, header: str, limit: int) -> list[str]:
        """The header, then the paths and cycles to the oracle's assignment, one per line."""
        return [header] + ["  " + ", then ".join(str(m) for m in group) for group in (self.paths + self.cycles)[:limit]]

    def to_mapping(self) -> dict:
        def groups(gs):
            return [[m.to_mapping() for m in g] for g in gs]

        judged = {} if self.verdict is None else {"judged": self.verdict.to_mapping()}
        return {
            **judged,
            "kind": self.kind,
            "violations": [v.to_mapping() for v in self.violations],
            "improving_chain": [m.to_mapping() for m in self.chain],
            "could_have_stayed": [s.to_mapping() for s in self.could_have_stayed],
            "could_be_local": [c.to_mapping() for c in self.could_be_local],
            "cross_rack": self.cross_rack,
            "optimal_cross_rack": self.optimal_cross_rack,
            "cycles": groups(self.cycles),
            "paths": groups(self.paths),
            "retained": self.retained,
            "optimal_retained": self.optimal_retained,
            "sorted_loads": list(self.sorted_loads),
            "optimal_sorted_loads": list(self.optimal_sorted_loads),
        }


#: The balance-first explanation's text, per kind of shortfall (:meth:`Explanation.text`).
_SAID = {
    INVALID: Explanation._invalid_lines,
    BALANCE: Explanation._balance_lines,
    RACK: Explanation._rack_lines,
    STICKINESS: Explanation._stickiness_lines,
    OPTIMAL: Explanation._optimal_lines,
}


def _listed(title: str, items, limit: int) -> list[str]:
    return [f"{title} ({len(items)}):"] + [f"  {item}" for item in items[:limit]]


def explain(
    problem: Problem,
    assignment: Assignment,
    *,
    optimum: Solution | None = None,
    request: Request | None = None,
    method: str = "auto",
    time_limit: float | None = None,
) -> Explanation:
    """Explain how ``assignment`` falls short of the optimum of ``request`` on ``problem``.

    ``request`` defaults to balance first, then the scenario's other tiers (the order assignors aim
    for).  ``optimum``, if given, must be ``solve(problem, request)`` (with balance first when no
    request is given).  ``time_limit`` bounds the CP-SAT engines (the general path only; a stage not
    proven in time makes an equal tier ``unknown``, never a gap it did not find), ``method`` picks its
    engine (:func:`optimal.solve`).
    """
    if request is None:
        request = Request(
            objective=problem.balance_first_order().objective if not problem.balance_first else problem.objective
        )
    order = request.tiers(problem)
    if (
        problem.join_groups
        or problem.weights
        or request.limited
        or not FIRST_SHORTFALL_TIERS.issuperset(order)
        or order[0] != BALANCE
        or request.balance != Request().balance
    ):
        return _explain_request(problem, assignment, request, optimum, method, time_limit)
    if order != problem.objective:
        problem = dataclasses.replace(problem, objective=order)
    owners, found = owner_arrays(problem, assignment)
    if found:
        return Explanation(INVALID, violations=found)
    if optimum is None:
        optimum = solve(problem, request, method=method)
    loads = sorted_loads(load_vector(problem, assignment))
    best = tuple(optimum.sorted_loads)
    if loads != best:
        chain = improving_chain(problem, assignment) or []
        return Explanation(BALANCE, chain=tuple(chain), sorted_loads=loads, optimal_sorted_loads=best)
    cross = cross_rack(problem, assignment)
    claims = resolve_claims(problem)
    kept = retained(problem, assignment, claims)
    rack_gap = RACK in problem.objective and cross > optimum.cross_rack
    stickiness_gap = kept < optimum.retained
    # The first shortfall in objective order: rack before stickiness, or after it when stickiness is met.
    if rack_gap and (problem.ranks_before(RACK, STICKINESS) or not stickiness_gap):
        return _rack_shortfall(problem, owners, optimum, loads, best, cross)
    if not stickiness_gap:
        return Explanation(
            OPTIMAL, retained=kept, optimal_retained=optimum.retained, sorted_loads=loads, optimal_sorted_loads=best
        )
    target, _ = owner_arrays(problem, optimum.assignment)
    stayed_away = _stayed_away(problem, owners, target)
    cycles, paths = _decompose(_moves(problem, owners, target))
    return Explanation(
        STICKINESS,
        could_have_stayed=stayed_away,
        cycles=cycles,
        paths=paths,
        retained=kept,
        optimal_retained=optimum.retained,
        sorted_loads=loads,
        optimal_sorted_loads=best,
    )


def _explain_request(
    problem: Problem,
    assignment: Assignment,
    request: Request,
    optimum: Solution | None,
    method: str,
    time_limit: float | None,
) -> Explanation:
    """Any request, judged tier by tier against its own optimum (module docstring)."""
    if optimum is None:
        optimum = solve(problem, request, method=method, time_limit=time_limit)
    verdict = consumer.judge(problem, assignment, request, optimum=optimum)
    owners, found = owner_arrays(problem, assignment)
    if not verdict.valid:
        return Explanation(INVALID, violations=found, verdict=verdict)
    if verdict.status != "gap":
        return Explanation(OPTIMAL if verdict.optimal else UNKNOWN, verdict=verdict)
    target, _ = owner_arrays(problem, optimum.assignment)
    stayed = _stayed_away(problem, owners, target) if verdict.gap_tier == STICKINESS else ()
    local = _could_be_local(problem, owners, target) if verdict.gap_tier == RACK else ()
    cycles, paths = _decompose(_moves(problem, owners, target))
    return Explanation(
        verdict.gap_tier or BALANCE,
        could_have_stayed=stayed,
        could_be_local=local,
        cycles=cycles,
        paths=paths,
        verdict=verdict,
    )


def _stayed_away(problem: Problem, owners, target) -> tuple[StayedAway, ...]:
    """Partitions ``target`` keeps with their previous owner that ``owners`` gave away."""
    claims = resolve_claims(problem)
    ids = problem.member_ids
    stayed_away = []
    for topic in problem.assignable_topics:
        before, now, then = claims.previous_owner[topic.name], owners[topic.name], target[topic.name]
        for p in np.flatnonzero((before >= 0) & (then == before) & (now != before)).tolist():
            stayed_away.append(StayedAway(TopicPartition(topic.name, p), ids[before[p]], ids[now[p]]))
    return tuple(stayed_away)


def _could_be_local(problem: Problem, owners, target) -> tuple[CrossRack, ...]:
    """Partitions ``target`` places in their replicas' racks that ``owners`` does not."""
    ids = problem.member_ids
    locality = problem.rack_locality
    offsets = problem.partition_offsets
    index = {t: i for i, t in enumerate(problem.topic_names)}
    could_be_local = []
    for topic in problem.assignable_topics:
        now, then = owners[topic.name], target[topic.name]
        global_numbers = offsets[index[topic.name]] + np.arange(topic.partitions)
        local_now = locality.is_local(global_numbers, now)
        local_then = locality.is_local(global_numbers, then)
        for p in np.flatnonzero(~local_now & local_then).tolist():
            could_be_local.append(CrossRack(TopicPartition(topic.name, p), ids[now[p]], ids[then[p]]))
    return tuple(could_be_local)


def _rack_shortfall(problem: Problem, owners, optimum: Solution, loads, best, cross: int) -> Explanation:
    """The partitions the oracle keeps local and the moves to its assignment (balance is equal)."""
    target, _ = owner_arrays(problem, optimum.assignment)
    could_be_local = _could_be_local(problem, owners, target)
    cycles, paths = _decompose(_moves(problem, owners, target))
    return Explanation(
        RACK,
        could_be_local=could_be_local,
        cycles=cycles,
        paths=paths,
        cross_rack=cross,
        optimal_cross_rack=int(optimum.cross_rack),
        sorted_loads=loads,
        optimal_sorted_loads=best,
    )


def _moves(problem: Problem, owners, target) -> list[Move]:
    """Every partition whose owner differs between two valid assignments (per-topic owner arrays)."""
    ids = problem.member_ids
    return [
        Move(TopicPartition(topic.name, p), ids[owners[topic.name][p]], ids[target[topic.name][p]])
        for topic in problem.assignable_topics
        for p in np.flatnonzero(owners[topic.name] != target[topic.name]).tolist()
    ]


def apply_moves(assignment: Assignment, moves) -> Assignment:
    """``assignment`` after the single-partition moves (each ``partition: source → target``), in order."""
    members = {m: {t: list(ps) for t, ps in ts.items()} for m, ts in assignment.members.items()}
    for move in moves:
        members[move.source][move.partition.topic].remove(move.partition.partition)
        members.setdefault(move.target, {}).setdefault(move.partition.topic, []).append(move.partition.partition)
    return Assignment({m: {t: tuple(ps) for t, ps in ts.items()} for m, ts in members.items()})


def _decompose(moves: list[Move]) -> tuple[tuple[tuple[Move, ...], ...], tuple[tuple[Move, ...], ...]]:
    """Split moves (edges source → target) into walks: paths first (from members
    that give more than they get), then cycles; deterministic (sorted)."""
    out: dict[str, list[Move]] = {}
    balance: dict[str, int] = {}
    for move in sorted(moves, key=lambda m: (m.source, m.partition)):
        out.setdefault(move.source, []).append(move)
        balance[move.source] = balance.get(move.source, 0) + 1
        balance[move.target] = balance.get(move.target, 0) - 1
    for edges in out.values():
        edges.reverse()  # pop() takes the smallest

    def walk(start: str, closed: bool) -> tuple[Move, ...]:
        steps, member = [], start
        while out.get(member):
            move = out[member].pop()
            steps.append(move)
            member = move.target
            if closed and member == start:
                break
            if not closed and balance.get(member, 0) < 0:  # a member that gets more than it gives
                break
        return tuple(steps)

    paths = []
    for member in sorted(balance):
        while balance[member] > 0 and out.get(member):
            path = walk(member, closed=False)
            balance[member] -= 1
            balance[path[-1].target] += 1
            paths.append(path)
    cycles = []
    for member in sorted(out):
        while out.get(member):
            cycles.append(walk(member, closed=True))
    return tuple(cycles), tuple(paths)
