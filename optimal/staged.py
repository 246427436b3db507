"""The composed exact model: every tier and constraint at once, each tier proven by CP-SAT in the asked order.

Guarantee: with no time limit the answer is optimal for the request
(:mod:`optimal.request`) exactly as asked: its tiers are optimised in the
request's order, each stage proven optimal by CP-SAT and pinned before the next
starts, under every constraint of the problem and request at once: join groups
(KIP-315's co-partitioning: a unit goes to one member), weights (lag-weighted
loads), rack locality (KIP-881), per-topic spread (KAFKA-16277), and a budget of
moves in all and per member (KIP-429's revocations).  With a time limit, a stage
that is not proven is pinned at its incumbent's value (a ceiling every later
stage keeps), the answer is ``FEASIBLE``, and every tier reports what was proven
about it: never a claim the solver did not prove.

This is the engine for whatever the aggregated min-cost flow cannot express
(:data:`optimal.engines.ENGINES`); on what the flow can express the two must
agree, and the tests hold both and a brute force to that.

Parts and classes
-----------------
What is assigned are *parts*: a partition, or with join groups a *unit* (the
partitions numbered ``p`` of a group's topics), which goes to one member that
subscribes to all its topics.  A part's balance weight is its partitions'
weights summed (partition counts without weights).  Parts with the same
balance weight, the same eligible members, the same cross-rack count per
member (only when ``rack`` is a tier and racks are known) and the same topics
(only when ``spread`` is a tier) are interchangeable for every tier but
stickiness, so they form a *class*, and the model counts them: ``take[c][m]``
parts of class ``c`` go to member ``m``, a handful of integers per member
whatever the partition count.  Within a class, parts with the same previous
owners (the *signature*: which eligible members owned how many of its
partitions) are interchangeable for stickiness too: ``back[c][s][o]`` parts of
signature ``s`` go back to owner ``o`` (at most as many as it has), and
``take`` counts the others.  Every assignment is one of these, and every
solution is an assignment (each signature's parts dealt by ``back``, each
class's other parts by ``take``; a part dealt onto a previous owner only keeps
more), so the optimum is the one over a boolean per part and member.

Loads, kept partitions, moves per previous owner, cross-rack partitions and
per-topic counts are all linear in these counts.

Stages
------
``balance``, ``dec-min``: the sorted loads, largest first, lexicographically
least, found from the top.  With the ``C`` largest values known (their sum
``S``): (a) the next value is the least possible ``(C+1)``-th largest load,
``min (C+1) * t + sum_m max(0, load_m - t)`` (the sum of the ``C+1`` largest
loads, linear with one integer ``t``) minus ``S``; (b) the fewest members at
that value ``v``: ``E(v-1)``, with ``E(l) = sum_m max(0, load_m - l)``, is the
count at ``v`` plus a constant once the values above are pinned.  Each value is
pinned by ``E(l) <= E*(l)`` at ``l = v`` and ``v - 1``, where ``E*`` is the same
sum over the known values: ``E`` is convex in ``l`` and ``E*`` linear between
consecutive known values, so these pins hold for every ``l`` above the last
known value minus one, which by LP duality (the sum of the ``k`` largest loads
is ``min_t k*t + E(t)``) makes every prefix sum of the sorted loads at most the
known one, and as the known values are lexicographically least, equal to it.
No boolean per member and level: the pins' relaxation is as strong as the
loads'.  Shortcuts, each a proof: the largest load meets ``max(ceil(total /
members), heaviest part)``; one member at the level; the members not yet
counted share the rest within one of each other (the total is fixed, so that
split is the least of all).
``sum-of-squares``: the least sum of squared loads; ``max-then-squares``: the
least largest load, then that.
``rack``: the fewest cross-rack partitions; ``spread``: the least sum of
squared per-topic counts; ``stickiness``: the most partitions kept (the fewest
moves).

Every stage hints CP-SAT with the incumbent, complete (every auxiliary
variable's value derived from it), so it is the first solution before presolve.
A stage not settled after :data:`FIRST_EFFORT` deterministic seconds restarts
from the same model solved as a MIP by HiGHS (:mod:`optimal.mip_hint`), which
CP-SAT checks and proves.  The solver parameters are in
:func:`optimal.cpsat_solver.parameters`, the one place.

The first incumbent (:func:`optimal.staged_parts.greedy`, then under a budget
:func:`optimal.staged_parts.descent`)
meets every constraint whenever it can, and many stages need no search: a
dec-min level whose incumbent meets its bound (the ``c`` largest loads hold at
least the ``c`` heaviest parts, and the ``c``-th is at least the average of
what the members not yet counted share), a rack or stickiness tier at its
bound, members within one of each other.  A stage CP-SAT cannot finish in
time keeps a valid incumbent (``FEASIBLE``); its bound is CP-SAT's when it
found a solution (without one the reported bound is not reliable), else the
argument's, and never past the value.

The rack and stickiness stages, not settled after the first effort (issue 40):
(1) the bound of the stage model's linear relaxation (:mod:`optimal.lp_bound`:
HiGHS' duals, the weak-duality bound recomputed in exact integer arithmetic),
which holds for that model as it stands, every earlier stage pinned (an
unproven one at its incumbent's value, as a ceiling): it bounds the best
answer keeping those pins, not a tier's lexicographic optimum after an
unproven tier; (2) re-deals of the incumbent that keep every pin
(:mod:`optimal.exchange`: parts of equal weight among their holders, swaps and
pairs of members re-split so the loads end majorised by the old ones, which
every balance pin, Schur-convex, then keeps), taken only when they meet the
budget and the earlier tiers' pins and improve the stage.  An incumbent at the
linear bound is proven by it (the stage's ``proof`` says so); otherwise the
search goes on from it.  An unproven stage's record says how its bound was
computed (``bound_by``, :data:`BOUND_BY`), and the best of CP-SAT's, the
argument's and the linear one is reported.

The answer checks itself
------------------------
One run (:class:`_Run`) holds the model, the incumbent and the records; each
kind of stage is one function of it (:func:`_dec_min`, :func:`_squares`,
:func:`_single`, each searching by :func:`_search`), and the weighted shortcuts
are an object of their own (:class:`optimal.weighted_shortcuts.WeightedShortcuts`).
A stage CP-SAT proves must have the same value
on its answer's counts.  The answer is built once, from the counts, and then
checked before the :class:`Solution` is built (once, never patched): valid
(every partition of a subscribed topic once, to a subscriber), each join
group's unit on one member, the budget of moves kept, and every tier measured
by :func:`optimal.request.measure` equal to what the model's counts show and
to the value its stages proved (where not proven: no worse than the ceiling
pinned).  Kept partitions may measure more than counted only where stickiness
is not proven: a part dealt by ``take`` onto a previous owner keeps it.  Any
other difference raises :class:`SolverError`; a measured value never stands in
for a proven one.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

from assignment_oracle.optimal import cpsat_solver, lp_bound, mip_hint
from assignment_oracle.optimal.network import partition_name
from assignment_oracle.optimal.request import Measures, Request, measure, tier_key
from assignment_oracle.optimal.solution import FEASIBLE, INFEASIBLE, OPTIMAL, UNKNOWN, Solution, TierResult
from assignment_oracle.optimal.staged_model import ClassModel, OutOfTime
from assignment_oracle.optimal.staged_parts import Incumbent, Parts, descent, greedy, measured, parts_of
from assignment_oracle.optimal.weighted_shortcuts import WeightedShortcuts
from assignment_oracle.problem.claims import ResolvedClaims, resolve_claims
from assignment_oracle.problem.errors import SolverError
from assignment_oracle.problem.model import BALANCE, RACK, SPREAD, STICKINESS, Assignment, Problem
from assignment_oracle.problem.ownership import owner_array, violations
from assignment_oracle.problem.tiers import CONSUMER, pick

__all__ = ["FIRST_EFFORT", "solve"]

#: CP-SAT deterministic seconds for a stage before it is given the MIP's solution as its hint.
FIRST_EFFORT = 2.0

#: How an unproven stage's bound was computed (its record's ``bound_by``); each holds for the stage's
#: model as it stands: every constraint, and every earlier stage pinned (proven ones at their
#: optimum, unproven ones at their incumbent's value as a ceiling), so it bounds the best answer
#: that keeps those pins, not the lexicographic optimum of a tier after an unproven one.
BOUND_BY = {
    "cpsat": "CP-SAT's best objective bound on the stage's model",
    "argument": "counting, from the parts alone: a load value's heaviest parts or the rest's average; every "
    "part on its least cross-rack member; every part with the previous owner keeping most of it",
    "lp": "the stage model's linear relaxation: HiGHS' dual multipliers, the weak-duality bound recomputed "
    "from them in exact integer arithmetic (optimal.lp_bound)",
    "slots": "once the sorted loads are proven, the best of: the partitions any assignment with those loads "
    "must move, each move taking at most one cross-rack partition off its owner (optimal.slot_bound.moves_bound: "
    "an assignment problem and a count per member); the parts program (optimal.slot_program: every heavy part "
    "alone, big parts placed member by member, light ones counted by class and rack; HiGHS' proven MIP bound); "
    "where that program does not apply, the load slots' relaxation (every member at one of the known loads keeping "
    "whole parts that fit it, the rest dealt by rack; HiGHS' proven MIP bound)",
}
LP_PROOF = "meets the stage model's linear relaxation bound (HiGHS' duals, checked in exact arithmetic)"
SLOTS_PROOF = "meets the load slots' relaxation bound (optimal.slot_bound: HiGHS' proven MIP bound)"
PROGRAM_PROOF = (
    "meets the parts program's bound (optimal.slot_program: a relaxation of the stage once the water-filled loads "
    "are proven, every heavy part alone, big parts placed member by member, light ones counted by class and rack; "
    "HiGHS' proven MIP bound)"
)

#: Seconds left below which a side stage computes no relaxation's bound (building one costs about that).
LEAST_FOR_BOUNDS = 0.5

#: The stages searched with the load-preserving re-deal (optimal.exchange) and the linear bound.
_SIDE_STAGES = {"cross-rack partitions": RACK, "kept partitions": STICKINESS}


def solve(
    problem: Problem, request: Request, *, claims: ResolvedClaims | None = None, time_limit: float | None = None
) -> Solution:
    """The optimum of ``request`` on ``problem`` (module docstring), checked before it is returned.

    The answer is valid (every partition of a subscribed topic once, to a subscriber; each join
    group's unit on one member, KIP-315; the budget of moves kept, KIP-429), and each tier measures
    (:func:`optimal.request.measure`) exactly what the model proved, or, where a tier is not proven,
    what the model's counts show and no worse than the ceiling its stages pinned.  Otherwise this
    raises :class:`~assignment_oracle.problem.errors.SolverError`: a bug, never a wrong answer, and
    never a measured value standing in for a proven one.

    Raises
    ------
    SolverError
        The model's answer is not valid, or a tier measures other than what the model proved (also
        a stage whose solver value differs from its answer's counts).
    """
    started = time.perf_counter()
    claims = resolve_claims(problem) if claims is None else claims
    return _Run(problem, request, claims, time_limit, started).solve()


class _Stopped(Exception):
    """A stage ended without an answer: ``status`` is ``INFEASIBLE`` or ``UNKNOWN``, ``stage`` names it."""

    def __init__(self, status: str, stage: str) -> None:
        super().__init__(f"{stage}: {status}")
        self.status = status
        self.stage = stage


class _Run:
    """One staged solve (module docstring, "Stages"): the model, the incumbent, each stage's record and
    what each tier's stages pinned; each kind of stage is a function of the run (:func:`_dec_min`,
    :func:`_squares`, :func:`_single`), and the answer is built and checked once, at the end
    (:meth:`answer`)."""

    def __init__(
        self, problem: Problem, request: Request, claims: ResolvedClaims, time_limit: float | None, started: float
    ) -> None:
        self.problem = problem
        self.request = request
        self.claims = claims
        self.tiers = request.tiers(problem)
        self.parts = parts_of(problem, self.tiers, claims)
        self.n = len(problem.members)
        self.started = started
        self.deadline = None if time_limit is None else started + time_limit
        self.stages: list[dict] = []  # every stage's record, in order (Solution.stages)
        self.records: list[TierResult] = []  # per tier solved: proven or not, and each unproven stage's bound
        self.reached: dict[str, Any] = {}  # per tier: its value as pinned (the optimum when proven, else a ceiling)
        self.unproven: list[str] = []  # stages not proven (the message)
        self.found_any = False  # a search found a solution: a later stage cannot be infeasible
        self.position = 0  # the tier being solved (its index in self.tiers): remaining()
        self.bound_by = "cpsat"  # how the last search's bound was computed (BOUND_BY's keys)
        self.linear_by = "lp"  # which relaxation gave the side stage's bound: "lp" or "slots"
        self.shortcuts = WeightedShortcuts(self.parts, self.n, request, self.tiers)  # optimal.weighted_shortcuts
        self.model: ClassModel  # the model, the incumbent and whether it meets every constraint: start()
        self.incumbent: Incumbent
        self.trusted: bool
        self.best: np.ndarray  # the per-part owners of the best start (start()), the incumbent's before the model

    def solve(self) -> Solution:
        """The tiers in the request's order, each by its kind of stage, then the answer."""
        parts = self.parts
        if parts.stranded:
            topic, p = parts.stranded[0]
            return self.answer(
                INFEASIBLE,
                message=f"no member subscribes to every topic of the unit of {topic}-{p}'s "
                f"partition number ({len(parts.stranded)} such unit(s))",
            )
        if not parts.partitions:  # nothing to assign: every tier is at its only value
            empty = np.zeros(self.n, dtype=np.int64)
            self.incumbent = Incumbent({}, empty, 0, empty, 0, {})
            for tier in self.tiers:
                self.reached[tier] = self.counted(tier)
                self.records.append(TierResult(tier, None, None, True, "bound"))
            return self.answer(OPTIMAL, np.zeros(0, dtype=np.int64))
        try:
            self.start()
        except OutOfTime:
            return self.out_of_time()
        try:
            for position, tier in enumerate(self.tiers):
                self.position = position
                first = len(self.stages)
                if tier != BALANCE:
                    _single(self, tier, last=position == len(self.tiers) - 1)
                elif self.request.balance == "dec-min":
                    _dec_min(self)
                else:
                    _squares(self, last=position == len(self.tiers) - 1)
                self.records.append(self.record(tier, self.stages[first:]))
        except _Stopped as stopped:
            return self.answer(stopped.status, message=_failure(stopped.status, stopped.stage))
        owner = self.model.owners(self.incumbent.values)
        if self.unproven:
            return self.answer(FEASIBLE, owner, "not proven in time: " + ", ".join(self.unproven))
        return self.answer(OPTIMAL, owner)

    def start(self) -> None:
        """The model and the first incumbent (module docstring): the greedy, and when balance comes
        before stickiness the descent from everyone keeping what it can; ``trusted`` when the
        incumbent meets the budget of moves (the shortcuts read it)."""
        parts, n, request, tiers = self.parts, self.n, self.request, self.tiers
        keep_first = request.limited or tiers.index(STICKINESS) < tiers.index(BALANCE)
        start = greedy(parts, n, keep_first)
        self.best = start
        if tiers.index(BALANCE) < tiers.index(STICKINESS):
            # From everyone keeping what it can, dec-min moves (within any budget, cheapest first): most
            # of what the balance stages need, with what was kept on the way.  Without a budget the
            # greedy's own balanced start competes, and the better (sorted loads, then kept) is taken.
            kept_first = greedy(parts, n, True) if not keep_first else start
            self.best = kept_first if request.limited else start
            kept_first = descent(parts, n, kept_first, request, deadline=self.deadline)
            starts = [kept_first] if request.limited else [kept_first, start]
            # Weighted loads under dec-min, balance first: the water-filled deals compete when they succeed.
            starts.extend(self.shortcuts.starts(self.deadline))
            candidates = [measured(parts, n, o) for o in starts]
            after = [t for t in tiers if t in (RACK, STICKINESS)] if len(starts) > 1 + (not request.limited) else []
            chosen = min(
                range(len(starts)),
                key=lambda i: (
                    sorted(map(int, candidates[i].loads), reverse=True),
                    [candidates[i].cross if t == RACK else -candidates[i].kept for t in after] or [-candidates[i].kept],
                ),
            )
            self.best = starts[chosen]
        if self.expired():
            raise OutOfTime
        self.model = model = ClassModel(self.problem, parts, request, tiers, deadline=self.deadline)
        self.incumbent = model.incumbent(model.values_of(self.best))
        moves = parts.owned_by - self.incumbent.kept_of
        # Shortcuts read the incumbent, so it must meet every constraint: the greedy one may break a budget.
        self.trusted = self.meets_budget(moves)

    def balance_proven(self) -> bool:
        """Whether the balance tier was solved and proven (the slot bounds need its sorted loads)."""
        balance = next((r for r in self.records if r.tier == BALANCE), None)
        return balance is not None and balance.proven

    def meets_budget(self, moves: np.ndarray) -> bool:
        """Whether moves per member ``moves`` keep the budget, in all and per member."""
        request = self.request
        return (request.max_moves is None or int(moves.sum()) <= request.max_moves) and (
            request.max_moves_per_member is None or int(moves.max(initial=0)) <= request.max_moves_per_member
        )

    def expired(self) -> bool:
        return self.deadline is not None and time.perf_counter() >= self.deadline

    def out_of_time(self) -> Solution:
        """The time limit passed before the model was built: the best start found so far, measured, as a
        ``FEASIBLE`` answer when it keeps the budget, each tier unproven with the counting argument's
        bound (module docstring); else nothing (``UNKNOWN``)."""
        parts, request = self.parts, self.request
        self.incumbent = measured(parts, self.n, self.best)
        message = "no stage was searched: the limit passed while the model was being built"
        if not self.meets_budget(parts.owned_by - self.incumbent.kept_of):
            return self.answer(UNKNOWN, message=message)
        loads = parts.load
        arguments = {
            BALANCE: (
                "largest load" if request.balance != "sum-of-squares" else "sum of squares",
                max(-(-parts.total // max(self.n, 1)), int(loads.max(initial=0)))
                if request.balance != "sum-of-squares"
                else None,
            ),
            RACK: ("cross-rack partitions", int(parts.least_cross.sum())),
            SPREAD: ("per-topic squares", None),
            STICKINESS: ("kept partitions", int(parts.most_kept.sum())),
        }
        for tier in self.tiers:
            name, bound = arguments[tier]
            value = self.counted(tier)
            shown = value[0] if tier == BALANCE and isinstance(value, list) else value
            if tier == BALANCE and request.balance == "sum-of-squares":
                shown = value
            first = len(self.stages)
            self.note(name, shown, False, bound, bound_by="argument")
            self.reached[tier] = value
            self.records.append(self.record(tier, self.stages[first:]))
        return self.answer(FEASIBLE, self.best, "not proven in time: " + message)

    # -- the records -------------------------------------------------------------------------

    def remaining(self, last: bool) -> float | None:
        """Seconds left for a search: all that is left for the last stage, else an equal share with
        each tier still to come (half when one is: the later tiers keep the rest)."""
        if self.deadline is None:
            return None
        left = max(0.0, self.deadline - time.perf_counter())
        return left if last else left / max(2, len(self.tiers) - self.position)

    def pin_levels(self, known: list[int], levels) -> None:
        """``E(l) <= E*(l)`` for each level, ``E*`` over the known largest loads (module docstring)."""
        for level in sorted(set(levels)):
            self.model.model.add(self.model.excess(level) <= sum(max(0, v - level) for v in known))

    def sorted_loads(self) -> list[int]:
        """The incumbent's loads, largest first."""
        return sorted((int(x) for x in self.incumbent.loads), reverse=True)

    def settle(self, name: str, value: int, proof: str) -> None:
        """A stage proven without a solver: ``proof`` says by what."""
        self.note(name, value, True, value, proof)

    def note(
        self,
        name: str,
        value: int | None,
        proven: bool,
        bound: int | None,
        proof: str | None = None,
        bound_by: str | None = None,
    ) -> None:
        """A stage's record; an unproven one says how its bound was computed (:data:`BOUND_BY`)."""
        record: dict[str, object] = {"stage": name, "value": value, "proven": proven, "bound": bound}
        if proof is not None:
            record["proof"] = proof
        if bound_by is not None and bound is not None:
            record["bound_by"] = BOUND_BY[bound_by]
        self.stages.append(record)

    @staticmethod
    def record(tier: str, stages: list[dict]) -> TierResult:
        """A tier's record before the answer is measured: proven when every one of its stages is, else
        what each unproven one proved; ``how`` is ``bound`` when no stage needed the solver."""
        done = all(s["proven"] for s in stages)
        how = "cpsat" if any("proof" not in s for s in stages) else "bound"
        unproven = None if done else [{"stage": s["stage"], "bound": s["bound"]} for s in stages if not s["proven"]]
        return TierResult(tier, None, unproven, done, how)

    # -- the answer ---------------------------------------------------------------------------

    def counted(self, tier: str) -> Any:
        """The tier's value on the incumbent, from the model's counts (what the stages saw)."""
        return pick(CONSUMER.kind, tier, _COUNTED, "the staged model's counts")(self.incumbent, self.request.balance)

    def answer(self, status: str, owner: np.ndarray | None = None, message: str = "") -> Solution:
        """The one place the :class:`Solution` is built, once: from the per-part owners (``None``: no
        answer), its tiers' values measured on the answer after :meth:`checked`."""
        assignment = measures = None
        tiers = tuple(self.records)
        if owner is not None:
            assignment = _assignment(self.problem, self.parts, owner)
            measures = self.checked(assignment)
            values = [measures.value(r.tier, self.request.balance) for r in self.records]  # as checked
            tiers = tuple(
                TierResult(r.tier, value, value if r.proven else r.bound, r.proven, r.how)
                for r, value in zip(self.records, values)
            )
        return Solution(
            problem=self.problem,
            status=status,
            method="cpsat-staged",
            assignment=assignment,
            wall_time=time.perf_counter() - self.started,
            retained=None if measures is None else measures.kept,
            cross_rack=None if measures is None else measures.cross_rack,
            stats={"parts": len(self.parts.partitions), "classes": len(self.parts.classes)},
            request=self.request,
            tiers=tiers,
            stages=tuple(self.stages),
            message=message,
            claims=self.claims,
            measured=measures,
        )

    def checked(self, assignment: Assignment) -> Measures:
        """The answer's measures (:func:`optimal.request.measure`), once it is checked: valid (every
        partition of a subscribed topic once, to a subscriber), each join group's unit on one member
        (KIP-315), the budget of moves kept (KIP-429), and each tier measuring what the model's counts
        show and what its stages pinned: the optimum where proven, no worse than the ceiling where
        not.  Kept partitions may measure more than counted where stickiness is not proven (a part
        dealt onto a previous owner keeps more); never where it is.  :class:`SolverError` otherwise."""
        problem, request = self.problem, self.request
        broken = violations(problem, assignment)
        if broken:
            raise SolverError(f"cpsat-staged: the answer is not valid ({broken[0]}) (a bug)")
        split = _split_unit(problem, self.parts, assignment)
        if split:
            raise SolverError(f"cpsat-staged: the answer splits the join group unit of {split} (a bug)")
        measures = measure(problem, assignment, self.claims)
        moves, most = int(measures.moved_from.sum()), int(measures.moved_from.max(initial=0))
        if request.max_moves is not None and moves > request.max_moves:
            raise SolverError(f"cpsat-staged: the answer moves {moves} partitions, over max_moves {request.max_moves}")
        if request.max_moves_per_member is not None and most > request.max_moves_per_member:
            raise SolverError(
                f"cpsat-staged: the answer moves {most} partitions from one member, "
                f"over max_moves_per_member {request.max_moves_per_member}"
            )
        for record in self.records:
            tier = record.tier
            measured, counted, pinned = measures.value(tier, request.balance), self.counted(tier), self.reached[tier]
            if measured != counted and not (tier == STICKINESS and measured > counted and not record.proven):
                raise SolverError(
                    f"cpsat-staged: the answer measures {measured} on {tier}, the model's counts {counted}"
                )
            if record.proven and measured != pinned:
                raise SolverError(f"cpsat-staged: the answer measures {measured} on {tier}, the model proved {pinned}")
            if not record.proven and tier_key(tier, measured) > tier_key(tier, pinned):
                raise SolverError(
                    f"cpsat-staged: the answer measures {measured} on {tier}, past the ceiling {pinned} its stages pinned"
                )
        return measures


def _counted_balance(incumbent: Incumbent, definition: str) -> Any:
    loads = [int(x) for x in incumbent.loads]
    squares = sum(x * x for x in loads)
    return {
        "dec-min": lambda: sorted(loads, reverse=True),
        "sum-of-squares": lambda: squares,
        "max-then-squares": lambda: [max(loads, default=0), squares],
    }[definition]()


#: Per tier, its value on the incumbent from the model's counts (``_Run.counted``), given the balance definition.
_COUNTED: dict[str, Callable[[Incumbent, str], Any]] = {
    BALANCE: _counted_balance,
    RACK: lambda incumbent, definition: incumbent.cross,
    SPREAD: lambda incumbent, definition: sum(x * x for x in incumbent.held.values()),
    STICKINESS: lambda incumbent, definition: incumbent.kept,
}


# -- the kinds of stage, one function each (the run holds the state) ----------------------


def _dec_min(run: _Run) -> None:
    """``balance`` under ``dec-min``: the sorted loads from the top, each value then the members at
    it, proven and pinned (module docstring, "Stages"); the shortcuts are proofs without a solver.
    When a stage is not proven, the incumbent's whole vector is pinned as a ceiling."""
    parts, n, model = run.parts, run.n, run.model
    heaviest = np.sort(parts.load)[::-1]
    known: list[int] = []
    proven = True
    while len(known) < n:
        c = len(known)
        ordered = run.sorted_loads()
        if not proven:  # a ceiling: the incumbent's whole vector, majorising every later answer
            run.pin_levels(ordered, [*ordered, ordered[-1] - 1])
            run.reached[BALANCE] = ordered
            return
        if run.trusted and ordered[c] - ordered[-1] <= 1:
            # The members not yet counted share a fixed total within one of each other: no split of
            # that total is more balanced.
            rest = ordered[c:]
            known.extend(rest)
            run.pin_levels(known, [*rest, rest[-1] - 1])
            run.settle(
                "the other loads" if c else "every load",
                len(rest),
                "split within one of each other: the least split of a fixed total",
            )
            break
        top = model.largest() if c == 0 else model.top_sum(c + 1)
        name = "largest load" if c == 0 else f"load value {c + 1}"
        prefix = sum(known)
        # The c+1 largest loads hold at least the c+1 heaviest parts, and the (c+1)-th is at least
        # the average of what the members not yet counted share (c = 0: the largest load's bound).
        floor = max(prefix + -(-(parts.total - prefix) // (n - c)), int(heaviest[: c + 1].sum()))
        if run.trusted and sum(ordered[: c + 1]) == floor:
            run.settle(
                name,
                floor if c == 0 else ordered[c],
                "meets the bound max(ceil(total / members), heaviest part)"
                if c == 0
                else "meets the bound: the heaviest parts, or the rest's average",
            )
        else:
            status = _stage(run, name, top, "min", False, lambda: sum(run.sorted_loads()[: c + 1]), floor)
            ordered = run.sorted_loads()
            if status != OPTIMAL:
                proven = False
                continue
        v = ordered[c]
        model.model.add(top <= prefix + v)
        if run.trusted and v - ordered[-1] <= 1:
            continue  # the rest is within one of the value found: settled at the top of the loop
        if v == 0:
            at = n - c
            run.settle(f"members at load {v}", at, "no load is below 0")
        elif run.trusted and sum(1 for x in ordered if x >= v) == c + 1:
            at = 1
            run.settle(f"members at load {v}", 1, "one member is at the value found")
        else:
            counted = _members_at(run, v, sum(x - v + 1 for x in known))
            if counted is None:
                proven = False
                continue
            at = counted
        known.extend([v] * at)
        run.pin_levels(known, [v, v - 1])
    run.reached[BALANCE] = known


def _members_at(run: _Run, v: int, above: int) -> int | None:
    """The fewest members at load ``v`` once the values above are pinned: ``E(v - 1)`` minimised,
    less ``above`` (what the members above ``v`` add to it); ``None`` when not proven in time."""
    name = f"members at load {v}"
    status, value, bound = _search(
        run,
        name,
        run.model.excess(v - 1),
        "min",
        False,
        lambda: sum(max(0, int(x) - v + 1) for x in run.incumbent.loads),
    )
    if status == INFEASIBLE:
        raise _Stopped(status, name)
    if status == OPTIMAL and value is not None:
        at = value - above
        run.note(name, at, True, at)
        return at
    run.note(name, value, False, bound, bound_by=run.bound_by)
    if status == UNKNOWN:
        raise _Stopped(status, name)
    run.unproven.append(name)
    return None


def _squares(run: _Run, last: bool) -> None:
    """``balance`` under ``sum-of-squares`` (the least sum of squared loads) or ``max-then-squares``
    (the least largest load, then that), each one stage."""
    parts, n = run.parts, run.n
    largest = None
    if run.request.balance == "max-then-squares":
        largest = _one_stage(
            run,
            "largest load",
            run.model.largest(),
            "min",
            False,
            max(-(-parts.total // max(n, 1)), int(parts.load.max()) if parts.load.size else 0),
            "meets the bound max(ceil(total / members), heaviest part)",
            lambda: int(run.incumbent.loads.max(initial=0)),
        )
    squares = _one_stage(
        run,
        "sum of squares",
        run.model.squares(),
        "min",
        last,
        None,
        "",
        lambda: int(sum(int(x) ** 2 for x in run.incumbent.loads)),
    )
    run.reached[BALANCE] = squares if largest is None else [largest, squares]


def _single(run: _Run, tier: str, last: bool) -> None:
    """``rack`` (the fewest cross-rack partitions, KIP-881), ``spread`` (the least sum of squared
    per-topic counts, KAFKA-16277) or ``stickiness`` (the most partitions kept, KIP-54): one stage."""
    model, parts = run.model, run.parts
    # Every non-balance tier builds the spread expression (its count and square variables, none
    # without ``spread`` as a tier), used or not, as the model always has: a model built once per
    # tier instead reaches other optima among ties, and the answers stay as they were.
    spread = model.topic_squares()
    name, expression, sense, bound, proof, current = {
        RACK: (
            "cross-rack partitions",
            model.cross,
            "min",
            int(parts.least_cross.sum()),
            "every part is on its least cross-rack member",
            lambda: run.incumbent.cross,
        ),
        SPREAD: (
            "per-topic squares",
            spread,
            "min",
            None,
            "",
            lambda: sum(x * x for x in run.incumbent.held.values()),
        ),
        STICKINESS: (
            "kept partitions",
            model.kept,
            "max",
            int(parts.most_kept.sum()),
            "every part is with the previous owner keeping most of it",
            lambda: run.incumbent.kept,
        ),
    }[tier]
    if tier in (RACK, STICKINESS) and run.trusted and current() != bound:
        # The parts program's bound first (optimal.slot_program): an incumbent at it needs no search.
        seconds = run.remaining(last)
        programmed = run.shortcuts.program_bound(
            tier, run.reached, run.balance_proven(), None if seconds is None else seconds / 2
        )
        if programmed is not None and programmed == current():
            bound, proof = programmed, PROGRAM_PROOF
    run.reached[tier] = _one_stage(run, name, expression, sense, last, bound, proof, current)


def _one_stage(
    run: _Run, name: str, expression, sense: str, last: bool, bound: int | None, proof: str, current: Callable[[], int]
) -> int:
    """A stage of one expression: settled without a solver when the incumbent meets ``bound`` (or
    the expression is a constant), else searched; then pinned at the incumbent's value (its optimum,
    or under a time limit a ceiling), which it returns."""
    if isinstance(expression, int) or (bound is not None and run.trusted and current() == bound):
        run.settle(name, current(), proof if not isinstance(expression, int) else "the same for every assignment")
    else:
        _stage(run, name, expression, sense, last, current, bound)
    value = current()
    if not isinstance(expression, int):
        run.model.model.add(expression <= value if sense == "min" else expression >= value)
    return value


# -- one search ----------------------------------------------------------------------------


def _stage(
    run: _Run, name: str, expression, sense: str, last: bool, current: Callable[[], int], known_bound: int | None = None
) -> str:
    """One searched stage, recorded: its status (``OPTIMAL`` or ``FEASIBLE``); stops the run
    (:class:`_Stopped`) when it found no answer."""
    status, value, bound = _search(run, name, expression, sense, last, current, known_bound)
    if status == INFEASIBLE:  # no record: nothing was found or proven about the stage's value
        raise _Stopped(status, name)
    if status == OPTIMAL and run.bound_by in ("lp", "slots") and value is not None:
        run.settle(name, value, LP_PROOF if run.bound_by == "lp" else SLOTS_PROOF)
    else:
        run.note(name, value, status == OPTIMAL, bound, bound_by=None if status == OPTIMAL else run.bound_by)
    if status == UNKNOWN:
        raise _Stopped(status, name)
    if status != OPTIMAL:
        run.unproven.append(name)
    return status


def _search(
    run: _Run,
    name: str,
    expression,
    sense: str,
    last: bool,
    current: Callable[[], int],
    known_bound: int | None = None,
) -> tuple[str, int | None, int | None]:
    """Optimise ``expression`` from the incumbent: ``(status, value, bound)``; a solution becomes the
    incumbent.  Proven optimal, the solver's value must be the new incumbent's (``current()``, from
    its counts), or :class:`SolverError`.  When CP-SAT finds nothing in time but the incumbent meets
    every constraint and pin (``trusted``), the stage keeps it: ``FEASIBLE`` at ``current()``.  The
    bound is the better of CP-SAT's (only when it found a solution: without one its bound is not
    reported reliably) and ``known_bound`` (from the arguments: the average, the least cross-rack,
    the most kept), and never beyond the value."""
    model = run.model
    (model.model.minimize if sense == "min" else model.model.maximize)(expression)
    outcome: tuple[str, int | None, float | None] | None = None
    linear: Fraction | None = None  # the linear relaxation's proven bound (side stages, attempt 1)
    run.bound_by = "cpsat"
    run.linear_by = "lp"  # or "slots": the load slots' relaxation bounded it better
    share = run.remaining(last)  # this stage's seconds, all attempts together
    end = None if share is None else time.perf_counter() + share

    side = _SIDE_STAGES.get(name)
    for attempt in (0, 1, 2):
        remaining = _left(end)
        hinted = run.incumbent
        if attempt == 2 and (side is None or end is None or run.shortcuts.redeal_skipped):
            break  # a third search only for a rack or stickiness stage under a time limit
        if side is not None and attempt >= 1:
            # Not settled after the first effort: the linear relaxation's bound (the record's, when
            # the stage stays unproven), and re-deals that keep every pin (a better incumbent), which
            # may meet it: proven at once.  The cheap re-deals first; after a second search that
            # did not prove it, the costlier ones with most of what is left.
            if attempt == 1 and (remaining is None or remaining > LEAST_FOR_BOUNDS):
                linear = lp_bound.lp_bound(model.model, time_limit=remaining)
                slots = run.shortcuts.bound(side, run.reached, run.balance_proven(), _left(end))
                if slots is not None and (linear is None or (slots > linear if sense == "min" else slots < linear)):
                    linear, run.linear_by = Fraction(slots), "slots"
            seconds = _left(end)
            redealt = run.shortcuts.redeal(
                side,
                model,
                run.incumbent,
                run.reached,
                run.trusted,
                None if seconds is None else 3 * seconds / 4,
                thorough=attempt == 2,
            )
            if redealt is not None:
                run.incumbent = redealt
            hinted = run.incumbent
            if linear is not None:
                known = math.ceil(linear) if sense == "min" else math.floor(linear)
                if known == current():
                    run.bound_by = run.linear_by
                    return OPTIMAL, current(), known
            remaining = _left(end)
        if attempt == 1:  # not settled after the first effort: a MIP's solution as the hint, if it has one
            share = None if remaining is None else remaining / (4 if side is not None else 2)
            found = mip_hint.hint(model.model, time_limit=share)
            if found is not None:
                candidate = model.incumbent({v.index: found[v.index] for v in model.primary})
                if side is None or _better(sense, _value_of(current, run, candidate), current()):
                    hinted = candidate
            remaining = _left(end)
            if remaining is not None and side is not None:
                remaining /= 3  # the rest for the costlier re-deals and a last search
        if remaining is not None and remaining <= 0:
            break  # nothing left for another search: the earlier outcome stands
        if attempt == 0 and side is not None and remaining is not None:
            remaining /= 4  # the rest for the linear bound and the re-deals, if not settled
        model.hint(hinted)
        solver = cp_model.CpSolver()
        cpsat_solver.parameters(solver, time_limit=remaining, effort=FIRST_EFFORT if attempt == 0 else None)
        code = cpsat_solver.solve_interruptibly(solver, model.model)
        if code == cp_model.INFEASIBLE:
            if run.found_any:
                raise SolverError(
                    f"cpsat-staged: stage {name!r} is infeasible after earlier stages were solved (a bug)"
                )
            return INFEASIBLE, None, None
        if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            run.found_any = run.trusted = True
            candidate = model.incumbent({v.index: solver.value(v) for v in model.primary})
            if code == cp_model.OPTIMAL or not _better(sense, current(), _value_of(current, run, candidate)):
                run.incumbent = candidate  # (a solution worse than a re-dealt incumbent is not taken)
            found_value = int(solver.value(expression))
            if code == cp_model.OPTIMAL and found_value != current():
                raise SolverError(
                    f"cpsat-staged: stage {name!r} proved {found_value}, its answer's counts give {current()} (a bug)"
                )
            outcome = (OPTIMAL if code == cp_model.OPTIMAL else FEASIBLE, found_value, solver.best_objective_bound)
            if code == cp_model.OPTIMAL:
                break
        else:
            outcome = outcome or (UNKNOWN, None, solver.best_objective_bound)
        if run.deadline is not None and time.perf_counter() >= run.deadline:
            break
    status, value, found_bound = outcome if outcome is not None else (UNKNOWN, None, None)
    if status == UNKNOWN:
        found_bound = None  # nothing found: CP-SAT's bound is not to be trusted
        if run.trusted:
            status, value = FEASIBLE, current()
    elif status == FEASIBLE:
        value = current()  # the incumbent: the last solution found, or a re-deal of it, never worse
    bound: int | None = None
    if found_bound is not None:
        bound = math.ceil(found_bound - 1e-6) if sense == "min" else math.floor(found_bound + 1e-6)
    if known_bound is not None and (bound is None or (known_bound > bound if sense == "min" else known_bound < bound)):
        bound, run.bound_by = known_bound, "argument"
    if linear is not None:
        known = math.ceil(linear) if sense == "min" else math.floor(linear)
        if bound is None or (known > bound if sense == "min" else known < bound):
            bound, run.bound_by = known, run.linear_by
    if bound is not None and value is not None:
        bound = (min if sense == "min" else max)(bound, value)
    return status, value, bound


def _left(end: float | None) -> float | None:
    """Seconds left of a stage's share that ends at ``end`` (``None``: no limit)."""
    return None if end is None else max(0.0, end - time.perf_counter())


def _better(sense: str, value: int, than: int) -> bool:
    return value < than if sense == "min" else value > than


def _value_of(current: Callable[[], int], run: _Run, incumbent: Incumbent) -> int:
    """``current()`` (a stage's value on the run's incumbent) on ``incumbent`` instead."""
    saved = run.incumbent
    run.incumbent = incumbent
    try:
        return current()
    finally:
        run.incumbent = saved


def _assignment(problem: Problem, parts: Parts, owner: np.ndarray) -> Assignment:
    """The assignment of per-part owners: every partition of a part to the part's owner."""
    global_owner = np.full(int(problem.partition_offsets[-1]), -1, dtype=np.int64)
    if parts.partitions:
        global_owner[np.concatenate(parts.partitions)] = np.repeat(owner, [u.size for u in parts.partitions])
    return Assignment.from_owners(problem, global_owner)


def _split_unit(problem: Problem, parts: Parts, assignment: Assignment) -> str:
    """The first join group unit (KIP-315: the partitions numbered ``p`` of a group's topics) whose
    partitions ``assignment`` gives to more than one member, as ``topic-p``; ``""`` when none is."""
    units = [u for u in parts.partitions if u.size > 1]
    if not units:
        return ""
    owner = owner_array(problem, assignment)[0]
    together = [bool((owner[u] == owner[u[0]]).all()) for u in units]
    if all(together):
        return ""
    return partition_name(problem.topic_names, problem.partition_offsets, int(units[together.index(False)][0]))


def _failure(status: str, stage: str) -> str:
    if status == INFEASIBLE:
        return "no assignment meets the constraints (the move limits cannot be kept)"
    return f"no assignment found in time (stage: {stage})"
