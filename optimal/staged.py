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

The first incumbent (:func:`_greedy`, then under a budget :func:`_descent`)
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
One run (:class:`_Run`) holds the model, the incumbent and the records, with
one method per kind of stage.  A stage CP-SAT proves must have the same value
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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

from assignment_oracle.optimal import cpsat_solver, lp_bound, mip_hint
from assignment_oracle.optimal.exchange import exchange, neighbourhoods, pairs, swaps
from assignment_oracle.optimal.request import Measures, Request, measure, tier_key
from assignment_oracle.optimal.slot_bound import moves_bound, slot_bound
from assignment_oracle.optimal.slot_deal import slot_deal
from assignment_oracle.optimal.slot_program import Group, slot_program
from assignment_oracle.optimal.slot_replan import slot_replan
from assignment_oracle.optimal.solution import FEASIBLE, INFEASIBLE, OPTIMAL, UNKNOWN, Solution, TierResult
from assignment_oracle.problem.claims import ResolvedClaims, resolve_claims
from assignment_oracle.problem.errors import SolverError
from assignment_oracle.problem.model import BALANCE, RACK, SPREAD, STICKINESS, Assignment, Problem
from assignment_oracle.problem.ownership import owner_array, violations
from assignment_oracle.problem.tiers import CONSUMER, pick

__all__ = ["FIRST_EFFORT", "Parts", "parts_of", "solve"]

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

#: Under a time limit, wall-clock seconds at most for the re-deals of a rack or stickiness stage
#: (optimal.exchange: a third for the pairs, the rest for the neighbourhoods, which stop sooner when
#: they stop finding anything); without one they are limited by counts and deterministic time.
REDEAL_SECONDS = 20.0

#: Seconds left below which a side stage computes no relaxation's bound (building one costs about that).
LEAST_FOR_BOUNDS = 0.5

#: The stages searched with the load-preserving re-deal (optimal.exchange) and the linear bound.
_SIDE_STAGES = {"cross-rack partitions": RACK, "kept partitions": STICKINESS}
#: The tiers the shortcuts (the slot deal, the slot pins, the re-deal) keep intact: a shortcut applies only
#: when every tier of the request is one of these (``spread`` is not: moving loads changes per-topic counts).
_SHORTCUT_TIERS = frozenset({BALANCE, RACK, STICKINESS})


@dataclass(frozen=True)
class _Class:
    load: int  # balance weight of each of its parts
    eligible: tuple[int, ...]
    cross: tuple[int, ...]  # cross-rack partitions of one part, per eligible member (aligned)
    topics: tuple[tuple[int, int], ...]  # (topic index, partitions of it) in one part
    parts: tuple[int, ...]
    signatures: tuple[tuple[tuple[tuple[int, int], ...], tuple[int, ...]], ...]  # ((owner, kept)...), parts


@dataclass(frozen=True, eq=False)
class Parts:
    """What is assigned, as dense arrays (module docstring): per part its global partition numbers,
    balance weight and best kept count; the classes; per member the partitions it owned before;
    the units no single member can take (``stranded``: the problem is infeasible)."""

    partitions: tuple[np.ndarray, ...]
    load: np.ndarray
    most_kept: np.ndarray
    least_cross: np.ndarray
    classes: tuple[_Class, ...]
    owned_by: np.ndarray
    stranded: tuple[tuple[str, int], ...] = ()
    weighted: bool = False  # balance weights are partition weights (not counts)

    @property
    def total(self) -> int:
        return int(self.load.sum())


def parts_of(problem: Problem, tiers: tuple[str, ...], claims: ResolvedClaims) -> Parts:
    """The problem's parts and classes for these tiers (module docstring)."""
    n = len(problem.members)
    offsets = problem.partition_offsets
    topic_index = {t: i for i, t in enumerate(problem.topic_names)}
    previous = claims.previous_owner_array
    weights = problem.weight_array if problem.weights else None
    locality = problem.rack_locality
    racks = RACK in tiers and locality.active
    spread = SPREAD in tiers
    subscribed = {t: frozenset(ms) for t, ms in problem.subscribers.items()}
    everyone = frozenset(range(n))
    grouped = {t for g in problem.join_groups for t in g}
    units: list[np.ndarray] = []
    stranded: list[tuple[str, int]] = []
    unit_eligible: list[tuple[int, ...]] = []

    for topic in problem.topics:
        if topic.name not in grouped and subscribed[topic.name]:
            eligible = tuple(sorted(subscribed[topic.name]))
            start = int(offsets[topic_index[topic.name]])
            for p in range(topic.partitions):
                units.append(np.array([start + p], dtype=np.int64))
                unit_eligible.append(eligible)
    for group in problem.join_groups:
        counts = {t: problem.partition_counts[t] for t in group}
        for p in range(max(counts.values())):
            members_of = [t for t in group if p < counts[t]]
            if not any(subscribed[t] for t in members_of):
                continue  # nobody subscribes to any of it: left out, like an unsubscribed topic
            eligible_set = everyone.intersection(*(subscribed[t] for t in members_of))
            if not eligible_set:
                stranded.append((members_of[0], p))
                continue
            units.append(np.array([int(offsets[topic_index[t]]) + p for t in members_of], dtype=np.int64))
            unit_eligible.append(tuple(sorted(eligible_set)))
    topic_of = np.searchsorted(offsets, np.arange(int(offsets[-1])), side="right") - 1 if units else np.zeros(0)
    load = np.array([int(weights[u].sum()) if weights is not None else u.size for u in units], dtype=np.int64)
    owned_by = np.bincount(previous[previous >= 0], minlength=n).astype(np.int64)
    most_kept = np.zeros(len(units), dtype=np.int64)
    least_cross = np.zeros(len(units), dtype=np.int64)
    keyed: dict[tuple, dict[tuple, list[int]]] = {}
    cross_cache: dict[tuple, tuple[int, ...]] = {}
    for k, unit in enumerate(units):
        eligible = unit_eligible[k]
        owners: dict[int, int] = {}
        for g in unit:
            o = int(previous[g])
            if o >= 0:
                owners[o] = owners.get(o, 0) + 1
        allowed = set(eligible)
        signature = tuple(sorted((o, c) for o, c in owners.items() if o in allowed))
        most_kept[k] = max((c for _, c in signature), default=0)
        cross: tuple[int, ...] = ()
        if racks:
            key = (eligible, tuple(int(locality.partition_rackset[g]) for g in unit))
            cross = cross_cache.get(key)  # type: ignore[assignment]
            if cross is None:
                rows, cols = np.broadcast_arrays(unit[:, None], np.array(eligible, dtype=np.int64)[None, :])
                local = locality.is_local(rows, cols)
                cross = cross_cache[key] = tuple(int(x) for x in (~local).sum(axis=0))
            least_cross[k] = min(cross)
        topics: tuple[tuple[int, int], ...] = ()
        if spread:
            seen: dict[int, int] = {}
            for g in unit:
                t = int(topic_of[g])
                seen[t] = seen.get(t, 0) + 1
            topics = tuple(sorted(seen.items()))
        keyed.setdefault((int(load[k]), eligible, cross, topics), {}).setdefault(signature, []).append(k)
    classes = []
    for (weight, eligible, cross, topics), signatures in sorted(keyed.items(), key=lambda item: item[0]):
        members_parts = tuple(sorted(k for ks in signatures.values() for k in ks))
        sigs = tuple(sorted(((s, tuple(ks)) for s, ks in signatures.items() if s), key=lambda item: item[1][0]))
        classes.append(_Class(weight, eligible, cross, topics, members_parts, sigs))
    return Parts(
        tuple(units), load, most_kept, least_cross, tuple(classes), owned_by, tuple(stranded), weights is not None
    )


@dataclass
class _Incumbent:
    """The best assignment so far, as the counts' values, and what is measured on it."""

    values: dict[int, int]  # primary variable index -> value
    loads: np.ndarray
    kept: int
    kept_of: np.ndarray  # per member: its previously owned partitions it keeps
    cross: int
    held: dict[tuple[int, int], int]  # (topic, member) -> partitions


class _Model:
    """The CP-SAT model over classes (module docstring), with every tier's expression and a
    registry of auxiliary variables and how each follows from an assignment (complete hints)."""

    def __init__(
        self, problem: Problem, parts: Parts, request: Request, tiers: tuple[str, ...], deadline: float | None = None
    ) -> None:
        self.parts = parts
        self.n = n = len(problem.members)
        self.model = cp_model.CpModel()
        m_ = self.model
        self.take: list[dict[int, cp_model.IntVar]] = []
        self.back: list[list[tuple[tuple[int, ...], dict[int, cp_model.IntVar], dict[int, int]]]] = []
        self.primary: list[cp_model.IntVar] = []
        self.derived: list[tuple[cp_model.IntVar, Callable[..., int]]] = []
        load_terms: list[list] = [[] for _ in range(n)]
        kept_terms: list[list] = [[] for _ in range(n)]
        cross_terms: list = []
        held_terms: dict[tuple[int, int], list] = {}
        capacity = [0] * n
        for c, cls in enumerate(parts.classes):
            if deadline is not None and c % 64 == 63 and time.perf_counter() >= deadline:
                raise _OutOfTime
            count = len(cls.parts)
            take = {m: m_.new_int_var(0, count, f"take[{c},{m}]") for m in cls.eligible}
            self.primary.extend(take.values())
            assigned: dict[int, list] = {m: [take[m]] for m in cls.eligible}
            signatures = []
            for s, (signature, ks) in enumerate(cls.signatures):
                size = len(ks)
                back = {
                    o: (
                        m_.new_bool_var(f"back[{c},{s},{o}]")
                        if size == 1
                        else m_.new_int_var(0, size, f"back[{c},{s},{o}]")
                    )
                    for o, _ in signature
                }
                self.primary.extend(back.values())
                if len(back) > 1:
                    if size == 1:
                        m_.add_at_most_one(back.values())
                    else:
                        m_.add(sum(back.values()) <= size)
                for o, kept in signature:
                    assigned[o].append(back[o])
                    kept_terms[o].append((kept, back[o]))
                signatures.append((ks, back, dict(signature)))
            m_.add(sum(v for vs in assigned.values() for v in vs) == count)
            self.take.append(take)
            self.back.append(signatures)
            for i, m in enumerate(cls.eligible):
                total = sum(assigned[m])
                load_terms[m].append((cls.load, total))
                capacity[m] += cls.load * count
                if cls.cross and cls.cross[i]:
                    cross_terms.append(cls.cross[i] * total)
                for t, k in cls.topics:
                    held_terms.setdefault((t, m), []).append(k * total)
        self.capacity = capacity
        self.load = [m_.new_int_var(0, capacity[m], f"load[{m}]") for m in range(n)]
        for m in range(n):
            m_.add(self.load[m] == sum(w * v for w, v in load_terms[m]))
            self.derived.append((self.load[m], lambda inc, m=m: int(inc.loads[m])))
        self.kept_of = [sum(k * v for k, v in kept_terms[m]) for m in range(n)]
        self.kept = sum(k * v for terms in kept_terms for k, v in terms)
        self.cross = sum(cross_terms)
        self.held = {key: sum(terms) for key, terms in sorted(held_terms.items())}
        self._largest = None
        self._excess: dict[int, list] = {}
        self._squares = None
        if request.max_moves is not None:
            m_.add(self.kept >= int(parts.owned_by.sum()) - request.max_moves)
        if request.max_moves_per_member is not None:
            for m in range(n):
                m_.add(self.kept_of[m] >= int(parts.owned_by[m]) - request.max_moves_per_member)

    # -- expressions, created when a stage asks for them --------------------------------------

    def largest(self):
        if self._largest is None:
            self._largest = self.model.new_int_var(0, max(self.capacity, default=0), "largest")
            self.model.add_max_equality(self._largest, self.load or [0])
            self.derived.append((self._largest, lambda inc: int(inc.loads.max()) if inc.loads.size else 0))
        return self._largest

    def excess(self, level: int):
        """``E(level) = sum over members of max(0, load - level)``, linear (module docstring)."""
        if level not in self._excess:
            terms = []
            for m, load in enumerate(self.load):
                over = self.model.new_int_var(0, max(0, self.capacity[m] - level), f"excess[{m},{level}]")
                self.model.add(over >= load - level)
                self.derived.append((over, lambda inc, m=m, level=level: max(0, int(inc.loads[m]) - level)))
                terms.append(over)
            self._excess[level] = terms
        return sum(self._excess[level])

    def top_sum(self, k: int):
        """The sum of the ``k`` largest loads: ``min_t k*t + E(t)``, one integer ``t`` and an excess per member."""
        top = max(self.capacity, default=0)
        t = self.model.new_int_var(0, top, f"t[{k}]")
        self.derived.append((t, lambda inc: int(np.sort(inc.loads)[::-1][k - 1])))
        terms = []
        for m, load in enumerate(self.load):
            over = self.model.new_int_var(0, self.capacity[m], f"over[{k},{m}]")
            self.model.add(over >= load - t)
            self.derived.append(
                (over, lambda inc, m=m: max(0, int(inc.loads[m]) - int(np.sort(inc.loads)[::-1][k - 1])))
            )
            terms.append(over)
        return k * t + sum(terms)

    def squares(self):
        if self._squares is None:
            self._squares = []
            for m, load in enumerate(self.load):
                square = self.model.new_int_var(0, self.capacity[m] ** 2, f"square[{m}]")
                self.model.add_multiplication_equality(square, [load, load])
                self.derived.append((square, lambda inc, m=m: int(inc.loads[m]) ** 2))
                self._squares.append(square)
        return sum(self._squares)

    def topic_squares(self):
        terms = []
        for (t, m), expression in self.held.items():
            top = sum(
                len(cls.parts) * k for cls in self.parts.classes if m in cls.eligible for tt, k in cls.topics if tt == t
            )
            count = self.model.new_int_var(0, top, f"held[{t},{m}]")
            self.model.add(count == expression)
            square = self.model.new_int_var(0, top * top, f"held_sq[{t},{m}]")
            self.model.add_multiplication_equality(square, [count, count])
            self.derived.append((count, lambda inc, key=(t, m): inc.held.get(key, 0)))
            self.derived.append((square, lambda inc, key=(t, m): inc.held.get(key, 0) ** 2))
            terms.append(square)
        return sum(terms)

    # -- assignments in and out ---------------------------------------------------------------

    def incumbent(self, values: Mapping[int, int]) -> _Incumbent:
        """Measure the counts ``values`` (primary variable index -> value)."""
        loads = np.zeros(self.n, dtype=np.int64)
        kept_of = np.zeros(self.n, dtype=np.int64)
        held: dict[tuple[int, int], int] = {}
        kept = cross = 0
        for cls, take, signatures in zip(self.parts.classes, self.take, self.back):
            per = {m: values[v.index] for m, v in take.items()}
            for _, back, kept_by in signatures:
                for o, v in back.items():
                    x = values[v.index]
                    per[o] += x
                    kept += kept_by[o] * x
                    kept_of[o] += kept_by[o] * x
            for i, m in enumerate(cls.eligible):
                x = per[m]
                if x:
                    loads[m] += cls.load * x
                    if cls.cross:
                        cross += cls.cross[i] * x
                    for t, k in cls.topics:
                        held[(t, m)] = held.get((t, m), 0) + k * x
        primary = {v.index: int(values[v.index]) for v in self.primary}
        return _Incumbent(primary, loads, kept, kept_of, cross, held)

    def values_of(self, owner: np.ndarray) -> dict[int, int]:
        """The counts of per-part owners ``owner``."""
        values: dict[int, int] = {}
        for cls, take, signatures in zip(self.parts.classes, self.take, self.back):
            free = dict.fromkeys(take, 0)
            returned: set[int] = set()
            for ks, back, _ in signatures:
                for o, v in back.items():
                    x = sum(1 for k in ks if owner[k] == o)
                    values[v.index] = x
                    returned.update(k for k in ks if owner[k] == o)
            for k in cls.parts:
                if k not in returned:
                    free[int(owner[k])] += 1
            values.update((v.index, free[m]) for m, v in take.items())
        return values

    def owners(self, values: Mapping[int, int]) -> np.ndarray:
        """Per-part owners: each signature's parts dealt by its ``back`` counts, then each class's
        other parts by ``take`` (members in index order, parts in order)."""
        owner = np.full(len(self.parts.partitions), -1, dtype=np.int64)
        for cls, take, signatures in zip(self.parts.classes, self.take, self.back):
            for ks, back, _ in signatures:
                dealt = iter(ks)
                for o, v in back.items():
                    for _ in range(int(values[v.index])):
                        owner[next(dealt)] = o
            rest = iter([k for k in cls.parts if owner[k] < 0])
            for m, v in take.items():
                for _ in range(int(values[v.index])):
                    owner[next(rest)] = m
        if (owner < 0).any():
            raise SolverError("cpsat-staged: the counts left a part without an owner (a bug)")
        return owner

    def hint(self, incumbent: _Incumbent) -> None:
        self.model.clear_hints()
        for var in self.primary:
            self.model.add_hint(var, incumbent.values[var.index])
        for var, value in self.derived:
            self.model.add_hint(var, value(incumbent))


def _measured(parts: Parts, n: int, owner: np.ndarray) -> _Incumbent:
    """What the model's counts of per-part owners ``owner`` would show, measured without the model
    (no counts: ``values`` is empty)."""
    loads = np.bincount(owner, weights=parts.load, minlength=n).astype(np.int64)
    kept_of = np.zeros(n, dtype=np.int64)
    held: dict[tuple[int, int], int] = {}
    cross = 0
    for cls in parts.classes:
        table = dict(zip(cls.eligible, cls.cross)) if cls.cross else {}
        for k in cls.parts:
            m = int(owner[k])
            cross += table.get(m, 0)
            for t, count in cls.topics:
                held[(t, m)] = held.get((t, m), 0) + count
        for signature, ks in cls.signatures:
            mine = dict(signature)
            for k in ks:
                m = int(owner[k])
                kept_of[m] += mine.get(m, 0)
    return _Incumbent({}, loads, int(kept_of.sum()), kept_of, cross, held)


def _greedy(parts: Parts, n: int, keep_first: bool) -> np.ndarray:
    """A first assignment: heaviest parts first, each to a previous owner keeping most of it (the
    least loaded of those, then the first), always when ``keep_first``, else while that owner is
    within a part of the least loaded; otherwise to the least loaded eligible member."""
    loads = np.zeros(n, dtype=np.int64)
    owner = np.full(len(parts.partitions), -1, dtype=np.int64)
    owners: dict[int, tuple[int, ...]] = {}
    eligible: dict[int, tuple[int, ...]] = {}
    for cls in parts.classes:
        for k in cls.parts:
            eligible[k] = cls.eligible
        for signature, ks in cls.signatures:
            most = max(kept for _, kept in signature)
            keepers = tuple(o for o, kept in signature if kept == most)
            for k in ks:
                owners[k] = keepers
    for k in sorted(range(len(owner)), key=lambda k: (-int(parts.load[k]), k)):
        members = eligible[k]
        least = min(members, key=lambda m: (loads[m], m))
        best = owners.get(k, ())
        o = min(best, key=lambda m: (loads[m], m)) if best else -1
        m = o if o >= 0 and (keep_first or loads[o] <= loads[least] + parts.load[k]) else least
        owner[k] = m
        loads[m] += parts.load[k]
    return owner


def _descent(parts: Parts, n: int, owner: np.ndarray, request: Request, deadline: float | None = None) -> np.ndarray:
    """Lower the loads from the top by single-part moves that keep within the budget of moves: from
    the most loaded member that has one, a move of a part to the least loaded member that can take
    it leaving the target below the source's load (so the sorted loads improve lexicographically:
    dec-min), the cheapest in moves first, then the one leaving the pair's larger load smallest,
    until no such move exists.  A start for the budgeted stages: the greedy keeps every previous owner (within
    any budget) and is far from balanced; CP-SAT alone is slow to find its way down from there."""
    owner = owner.copy()
    eligible: dict[int, tuple[int, ...]] = {}
    kept_at: dict[int, dict[int, int]] = {}
    for cls in parts.classes:
        for k in cls.parts:
            eligible[k] = cls.eligible
        for signature, ks in cls.signatures:
            mine = dict(signature)
            for k in ks:
                kept_at[k] = mine
    weight = [int(x) for x in parts.load]
    load = [0] * n
    on: list[set[int]] = [set() for _ in range(n)]
    moved_from = [int(x) for x in parts.owned_by]
    for k, m in enumerate(owner.tolist()):
        load[m] += weight[k]
        on[m].add(k)
        for o, kept in kept_at.get(k, {}).items():
            if o == m:
                moved_from[o] -= kept
    moves = sum(moved_from)
    budget, per_member = request.max_moves, request.max_moves_per_member
    for step in range(4 * len(weight) + n):
        if deadline is not None and step % 16 == 15 and time.perf_counter() >= deadline:
            break  # the moves so far: every one improved the sorted loads within the budget
        best = None
        for m in sorted(range(n), key=lambda x: (-load[x], x)):  # the most loaded member that can shed
            least: dict[tuple[int, ...], int] = {}
            for k in on[m]:
                w = weight[k]
                members = eligible[k]
                if w == 0 or len(members) < 2:
                    continue
                t = least.get(members)
                if t is None:
                    t = least[members] = min((x for x in members if x != m), key=lambda x: (load[x], x))
                if load[t] + w >= load[m]:
                    continue
                gone, back = kept_at.get(k, {}).get(m, 0), kept_at.get(k, {}).get(t, 0)
                if budget is not None and gone > back and moves + gone - back > budget:
                    continue
                if per_member is not None and gone and moved_from[m] + gone > per_member:
                    continue
                key = (gone - back, max(load[m] - w, load[t] + w), k)
                if best is None or key < best[0]:
                    best = (key, k, t, gone, back, m)
            if best is not None:
                break
        if best is None:
            break
        _, k, t, gone, back, m = best
        load[m] -= weight[k]
        load[t] += weight[k]
        on[m].remove(k)
        on[t].add(k)
        owner[k] = t
        moved_from[m] += gone
        moved_from[t] -= back
        moves += gone - back
    return owner


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


class _OutOfTime(Exception):
    """The time limit passed before the model was built (:meth:`_Run.out_of_time`)."""


class _Stopped(Exception):
    """A stage ended without an answer: ``status`` is ``INFEASIBLE`` or ``UNKNOWN``, ``stage`` names it."""

    def __init__(self, status: str, stage: str) -> None:
        super().__init__(f"{stage}: {status}")
        self.status = status
        self.stage = stage


class _Run:
    """One staged solve (module docstring, "Stages"): the model, the incumbent, each stage's record and
    what each tier's stages pinned; one method per kind of stage (:meth:`dec_min`, :meth:`squares`,
    :meth:`single`), and the answer built and checked once, at the end (:meth:`answer`)."""

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
        self.redeal_skipped = False  # the last re-deal did not run (spread is a tier, or no trusted incumbent)
        self.group: Group | None = None  # the parts program's view of the group (slot_bound), built once
        self.programmed: dict[tuple, int | None] = {}  # the parts program's bounds by stage and pins
        self.model: _Model  # the model, the incumbent and whether it meets every constraint: start()
        self.incumbent: _Incumbent
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
            self.incumbent = _Incumbent({}, empty, 0, empty, 0, {})
            for tier in self.tiers:
                self.reached[tier] = self.counted(tier)
                self.records.append(TierResult(tier, None, None, True, "bound"))
            return self.answer(OPTIMAL, np.zeros(0, dtype=np.int64))
        try:
            self.start()
        except _OutOfTime:
            return self.out_of_time()
        try:
            for position, tier in enumerate(self.tiers):
                self.position = position
                first = len(self.stages)
                if tier != BALANCE:
                    self.single(tier, last=position == len(self.tiers) - 1)
                elif self.request.balance == "dec-min":
                    self.dec_min()
                else:
                    self.squares(last=position == len(self.tiers) - 1)
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
        start = _greedy(parts, n, keep_first)
        self.best = start
        if tiers.index(BALANCE) < tiers.index(STICKINESS):
            # From everyone keeping what it can, dec-min moves (within any budget, cheapest first): most
            # of what the balance stages need, with what was kept on the way.  Without a budget the
            # greedy's own balanced start competes, and the better (sorted loads, then kept) is taken.
            kept_first = _greedy(parts, n, True) if not keep_first else start
            self.best = kept_first if request.limited else start
            kept_first = _descent(parts, n, kept_first, request, deadline=self.deadline)
            starts = [kept_first] if request.limited else [kept_first, start]
            # Weighted loads under dec-min, balance first: the deal into the water-filled loads, which
            # picks the moves for the rack tier too (optimal.slot_deal), competes when it succeeds.
            if (
                parts.weighted
                and request.balance == "dec-min"
                and tiers[0] == BALANCE
                and _SHORTCUT_TIERS.issuperset(tiers)
                and request.max_moves_per_member is None
                and not self.expired()
            ):
                rack_next = RACK in tiers and tiers.index(RACK) < tiers.index(STICKINESS)
                dealt = slot_deal(parts, n, max_moves=request.max_moves, rack=rack_next, deadline=self.deadline)
                if dealt is not None:
                    starts.append(dealt)
                if rack_next and parts.least_cross.size and not self.expired():
                    # The parts program's plan, realised (optimal.slot_replan); the program's bound for
                    # the rack stage is kept for it (slot_bound), under the same pins.
                    replanned, bound = slot_replan(parts, n, max_moves=request.max_moves, deadline=self.deadline)
                    self.programmed[RACK, self.kept_floor(), None, None] = bound
                    if replanned is not None:
                        starts.append(replanned)
            candidates = [_measured(parts, n, o) for o in starts]
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
            raise _OutOfTime
        self.model = model = _Model(self.problem, parts, request, tiers, deadline=self.deadline)
        self.incumbent = model.incumbent(model.values_of(self.best))
        moves = parts.owned_by - self.incumbent.kept_of
        # Shortcuts read the incumbent, so it must meet every constraint: the greedy one may break a budget.
        self.trusted = self.meets_budget(moves)

    def kept_floor(self) -> int | None:
        """The least kept partitions the budget of moves allows, ``None`` without a budget."""
        if self.request.max_moves is None:
            return None
        return int(self.parts.owned_by.sum()) - self.request.max_moves

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
        self.incumbent = _measured(parts, self.n, self.best)
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

    # -- the kinds of stage -------------------------------------------------------------------

    def dec_min(self) -> None:
        """``balance`` under ``dec-min``: the sorted loads from the top, each value then the members at
        it, proven and pinned (module docstring, "Stages"); the shortcuts are proofs without a solver.
        When a stage is not proven, the incumbent's whole vector is pinned as a ceiling."""
        parts, n, model = self.parts, self.n, self.model
        heaviest = np.sort(parts.load)[::-1]
        known: list[int] = []
        proven = True
        while len(known) < n:
            c = len(known)
            ordered = self.sorted_loads()
            if not proven:  # a ceiling: the incumbent's whole vector, majorising every later answer
                self.pin_levels(ordered, [*ordered, ordered[-1] - 1])
                self.reached[BALANCE] = ordered
                return
            if self.trusted and ordered[c] - ordered[-1] <= 1:
                # The members not yet counted share a fixed total within one of each other: no split of
                # that total is more balanced.
                rest = ordered[c:]
                known.extend(rest)
                self.pin_levels(known, [*rest, rest[-1] - 1])
                self.settle(
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
            if self.trusted and sum(ordered[: c + 1]) == floor:
                self.settle(
                    name,
                    floor if c == 0 else ordered[c],
                    "meets the bound max(ceil(total / members), heaviest part)"
                    if c == 0
                    else "meets the bound: the heaviest parts, or the rest's average",
                )
            else:
                status = self.stage(name, top, "min", False, lambda: sum(self.sorted_loads()[: c + 1]), floor)
                ordered = self.sorted_loads()
                if status != OPTIMAL:
                    proven = False
                    continue
            v = ordered[c]
            model.model.add(top <= prefix + v)
            if self.trusted and v - ordered[-1] <= 1:
                continue  # the rest is within one of the value found: settled at the top of the loop
            if v == 0:
                at = n - c
                self.settle(f"members at load {v}", at, "no load is below 0")
            elif self.trusted and sum(1 for x in ordered if x >= v) == c + 1:
                at = 1
                self.settle(f"members at load {v}", 1, "one member is at the value found")
            else:
                counted = self.members_at(v, sum(x - v + 1 for x in known))
                if counted is None:
                    proven = False
                    continue
                at = counted
            known.extend([v] * at)
            self.pin_levels(known, [v, v - 1])
        self.reached[BALANCE] = known

    def members_at(self, v: int, above: int) -> int | None:
        """The fewest members at load ``v`` once the values above are pinned: ``E(v - 1)`` minimised,
        less ``above`` (what the members above ``v`` add to it); ``None`` when not proven in time."""
        name = f"members at load {v}"
        status, value, bound = self.search(
            name,
            self.model.excess(v - 1),
            "min",
            False,
            lambda: sum(max(0, int(x) - v + 1) for x in self.incumbent.loads),
        )
        if status == INFEASIBLE:
            raise _Stopped(status, name)
        if status == OPTIMAL and value is not None:
            at = value - above
            self.note(name, at, True, at)
            return at
        self.note(name, value, False, bound, bound_by=self.bound_by)
        if status == UNKNOWN:
            raise _Stopped(status, name)
        self.unproven.append(name)
        return None

    def squares(self, last: bool) -> None:
        """``balance`` under ``sum-of-squares`` (the least sum of squared loads) or ``max-then-squares``
        (the least largest load, then that), each one stage."""
        parts, n = self.parts, self.n
        largest = None
        if self.request.balance == "max-then-squares":
            largest = self.one_stage(
                "largest load",
                self.model.largest(),
                "min",
                False,
                max(-(-parts.total // max(n, 1)), int(parts.load.max()) if parts.load.size else 0),
                "meets the bound max(ceil(total / members), heaviest part)",
                lambda: int(self.incumbent.loads.max(initial=0)),
            )
        squares = self.one_stage(
            "sum of squares",
            self.model.squares(),
            "min",
            last,
            None,
            "",
            lambda: int(sum(int(x) ** 2 for x in self.incumbent.loads)),
        )
        self.reached[BALANCE] = squares if largest is None else [largest, squares]

    def single(self, tier: str, last: bool) -> None:
        """``rack`` (the fewest cross-rack partitions, KIP-881), ``spread`` (the least sum of squared
        per-topic counts, KAFKA-16277) or ``stickiness`` (the most partitions kept, KIP-54): one stage."""
        model, parts = self.model, self.parts
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
                lambda: self.incumbent.cross,
            ),
            SPREAD: (
                "per-topic squares",
                spread,
                "min",
                None,
                "",
                lambda: sum(x * x for x in self.incumbent.held.values()),
            ),
            STICKINESS: (
                "kept partitions",
                model.kept,
                "max",
                int(parts.most_kept.sum()),
                "every part is with the previous owner keeping most of it",
                lambda: self.incumbent.kept,
            ),
        }[tier]
        if tier in (RACK, STICKINESS) and self.trusted and current() != bound:
            # The parts program's bound first (optimal.slot_program): an incumbent at it needs no search.
            seconds = self.remaining(last)
            programmed = self.program_bound(tier, None if seconds is None else seconds / 2)
            if programmed is not None and programmed == current():
                bound, proof = programmed, PROGRAM_PROOF
        self.reached[tier] = self.one_stage(name, expression, sense, last, bound, proof, current)

    def one_stage(
        self, name: str, expression, sense: str, last: bool, bound: int | None, proof: str, current: Callable[[], int]
    ) -> int:
        """A stage of one expression: settled without a solver when the incumbent meets ``bound`` (or
        the expression is a constant), else searched; then pinned at the incumbent's value (its optimum,
        or under a time limit a ceiling), which it returns."""
        if isinstance(expression, int) or (bound is not None and self.trusted and current() == bound):
            self.settle(name, current(), proof if not isinstance(expression, int) else "the same for every assignment")
        else:
            self.stage(name, expression, sense, last, current, bound)
        value = current()
        if not isinstance(expression, int):
            self.model.model.add(expression <= value if sense == "min" else expression >= value)
        return value

    # -- one search, and the records ----------------------------------------------------------

    def stage(
        self,
        name: str,
        expression,
        sense: str,
        last: bool,
        current: Callable[[], int],
        known_bound: int | None = None,
    ) -> str:
        """One searched stage, recorded: its status (``OPTIMAL`` or ``FEASIBLE``); stops the run
        (:class:`_Stopped`) when it found no answer."""
        status, value, bound = self.search(name, expression, sense, last, current, known_bound)
        if status == INFEASIBLE:  # no record: nothing was found or proven about the stage's value
            raise _Stopped(status, name)
        if status == OPTIMAL and self.bound_by in ("lp", "slots") and value is not None:
            self.settle(name, value, LP_PROOF if self.bound_by == "lp" else SLOTS_PROOF)
        else:
            self.note(name, value, status == OPTIMAL, bound, bound_by=None if status == OPTIMAL else self.bound_by)
        if status == UNKNOWN:
            raise _Stopped(status, name)
        if status != OPTIMAL:
            self.unproven.append(name)
        return status

    def search(
        self,
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
        model = self.model
        (model.model.minimize if sense == "min" else model.model.maximize)(expression)
        outcome: tuple[str, int | None, float | None] | None = None
        linear: Fraction | None = None  # the linear relaxation's proven bound (side stages, attempt 1)
        self.bound_by = "cpsat"
        self.linear_by = "lp"  # or "slots": the load slots' relaxation bounded it better
        share = self.remaining(last)  # this stage's seconds, all attempts together
        end = None if share is None else time.perf_counter() + share

        def left() -> float | None:
            return None if end is None else max(0.0, end - time.perf_counter())

        side = _SIDE_STAGES.get(name)
        for attempt in (0, 1, 2):
            remaining = left()
            hinted = self.incumbent
            if attempt == 2 and (side is None or end is None or self.redeal_skipped):
                break  # a third search only for a rack or stickiness stage under a time limit
            if side is not None and attempt >= 1:
                # Not settled after the first effort: the linear relaxation's bound (the record's, when
                # the stage stays unproven), and re-deals that keep every pin (a better incumbent), which
                # may meet it: proven at once.  The cheap re-deals first; after a second search that
                # did not prove it, the costlier ones with most of what is left.
                if attempt == 1 and (remaining is None or remaining > LEAST_FOR_BOUNDS):
                    linear = lp_bound.lp_bound(model.model, time_limit=remaining)
                    slots = self.slot_bound(side, left())
                    if slots is not None and (linear is None or (slots > linear if sense == "min" else slots < linear)):
                        linear, self.linear_by = Fraction(slots), "slots"
                seconds = left()
                self.redeal(side, None if seconds is None else 3 * seconds / 4, thorough=attempt == 2)
                hinted = self.incumbent
                if linear is not None:
                    known = math.ceil(linear) if sense == "min" else math.floor(linear)
                    if known == current():
                        self.bound_by = self.linear_by
                        return OPTIMAL, current(), known
                remaining = left()
            if attempt == 1:  # not settled after the first effort: a MIP's solution as the hint, if it has one
                share = None if remaining is None else remaining / (4 if side is not None else 2)
                found = mip_hint.hint(model.model, time_limit=share)
                if found is not None:
                    candidate = model.incumbent({v.index: found[v.index] for v in model.primary})
                    if side is None or _better(sense, _value_of(current, self, candidate), current()):
                        hinted = candidate
                remaining = left()
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
                if self.found_any:
                    raise SolverError(
                        f"cpsat-staged: stage {name!r} is infeasible after earlier stages were solved (a bug)"
                    )
                return INFEASIBLE, None, None
            if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                self.found_any = self.trusted = True
                candidate = model.incumbent({v.index: solver.value(v) for v in model.primary})
                if code == cp_model.OPTIMAL or not _better(sense, current(), _value_of(current, self, candidate)):
                    self.incumbent = candidate  # (a solution worse than a re-dealt incumbent is not taken)
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
            if self.deadline is not None and time.perf_counter() >= self.deadline:
                break
        status, value, found_bound = outcome if outcome is not None else (UNKNOWN, None, None)
        if status == UNKNOWN:
            found_bound = None  # nothing found: CP-SAT's bound is not to be trusted
            if self.trusted:
                status, value = FEASIBLE, current()
        elif status == FEASIBLE:
            value = current()  # the incumbent: the last solution found, or a re-deal of it, never worse
        bound: int | None = None
        if found_bound is not None:
            bound = math.ceil(found_bound - 1e-6) if sense == "min" else math.floor(found_bound + 1e-6)
        if known_bound is not None and (
            bound is None or (known_bound > bound if sense == "min" else known_bound < bound)
        ):
            bound, self.bound_by = known_bound, "argument"
        if linear is not None:
            known = math.ceil(linear) if sense == "min" else math.floor(linear)
            if bound is None or (known > bound if sense == "min" else known < bound):
                bound, self.bound_by = known, self.linear_by
        if bound is not None and value is not None:
            bound = (min if sense == "min" else max)(bound, value)
        return status, value, bound

    def slot_bound(self, tier: str, seconds: float | None) -> int | None:
        """The load slots' bounds (:mod:`optimal.slot_bound`, :mod:`optimal.slot_program`) for a rack
        or stickiness stage, when ``balance`` came first, under ``dec-min``, proven (the sorted loads
        are then known exactly) and no ``spread`` tier; ``None`` otherwise.  The parts program's is
        computed once per stage (half of ``seconds`` at most); the load slots' relaxation only when
        the program gives none (a third of ``seconds``)."""
        pins = self.slot_pins()
        if pins is None:
            return None
        floor, ceiling, per_member = pins
        counted = moves_bound(
            self.parts,
            self.n,
            self.reached[BALANCE],
            objective=tier,
            max_moves=self.request.max_moves,
            kept_floor=floor,
            cross_ceiling=ceiling,
        )
        programmed = self.program_bound(tier, None if seconds is None else seconds / 2)
        relaxed = None
        if programmed is None:
            relaxed = slot_bound(
                self.parts,
                self.n,
                self.reached[BALANCE],
                objective=tier,
                kept_floor=floor,
                cross_ceiling=ceiling,
                per_member_floor=per_member,
                time_limit=None if seconds is None else seconds / 3,
            )
        found = [b for b in (counted, programmed, relaxed) if b is not None]
        if not found:
            return None
        return max(found) if tier == RACK else min(found)

    def slot_pins(self) -> tuple[int | None, int | None, np.ndarray | None] | None:
        """``(kept floor, cross-rack ceiling, per-member kept floor)`` of a rack or stickiness stage
        when the load slots' bounds apply to it (:meth:`slot_bound`), else ``None``."""
        request, parts = self.request, self.parts
        balance = next((r for r in self.records if r.tier == BALANCE), None)
        if (
            not parts.weighted
            or request.balance != "dec-min"
            or balance is None
            or not balance.proven
            or not _SHORTCUT_TIERS.issuperset(self.tiers)
        ):
            return None
        floor = self.kept_floor()
        if STICKINESS in self.reached:
            floor = max(floor or 0, int(self.reached[STICKINESS]))
        per_member = None
        if request.max_moves_per_member is not None:
            per_member = np.maximum(0, parts.owned_by - request.max_moves_per_member)
        return floor, self.reached.get(RACK), per_member

    def program_bound(self, tier: str, seconds: float | None) -> int | None:
        """The parts program's proven bound (:mod:`optimal.slot_program`) for the stage under its pins
        (:meth:`slot_pins`), computed once: ``None`` when it does not apply (the stage is not after a
        proven ``dec-min`` balance, the proven loads are not the water-filled ones, a member may not
        take a part, a part had several owners) or reported no bound in time."""
        pins = self.slot_pins()
        if pins is None:
            return None
        if self.group is None:
            self.group = Group(self.parts, self.n)
        group = self.group
        if not group.fits or sorted(int(v) for v in self.reached[BALANCE]) != group.loads_expected():
            return None
        floor, ceiling, per_member = pins
        key = (tier, floor, ceiling, None if per_member is None else per_member.tobytes())
        if key not in self.programmed:
            plan = slot_program(
                group,
                objective=tier,
                kept_floor=floor,
                cross_ceiling=ceiling,
                per_member_floor=per_member,
                time_limit=seconds,
            )
            self.programmed[key] = None if plan is None else plan.bound
        return self.programmed[key]

    def redeal(self, tier: str, seconds: float | None, thorough: bool) -> None:
        """The incumbent's parts of equal balance weight dealt again among their holders
        (:func:`optimal.exchange.exchange`) for the ``rack`` or ``stickiness`` stage: every load stays
        as it is, so every balance pin holds; the result replaces the incumbent only when it also keeps
        the budget of moves (in all and per member), every earlier tier's pin, and is better on the
        stage.  Not with ``spread`` as a tier (a re-deal changes the per-topic counts)."""
        request, parts, model = self.request, self.parts, self.model
        self.redeal_skipped = not _SHORTCUT_TIERS.issuperset(self.tiers) or not self.trusted
        if self.redeal_skipped:
            return
        started = time.perf_counter()
        owner = model.owners(self.incumbent.values)
        now = model.incumbent(model.values_of(owner))  # kept as measured on the owners (take onto an owner keeps)
        floor = 0 if request.max_moves is None else int(parts.owned_by.sum()) - request.max_moves
        floor = max(floor, self.reached.get(STICKINESS, floor))
        ceiling = self.reached.get(RACK)
        dealt, kept, cross = exchange(
            parts.classes,
            parts.load,
            owner,
            objective=tier,
            kept=now.kept,
            cross=now.cross,
            kept_floor=floor,
            cross_ceiling=ceiling,
        )
        dealt, kept, cross = swaps(
            parts.classes,
            parts.load,
            dealt,
            self.n,
            objective=tier,
            kept=kept,
            cross=cross,
            kept_floor=floor,
            cross_ceiling=ceiling,
            deadline=None if seconds is None else started + (seconds / 2 if thorough else seconds),
        )
        if thorough:
            left = None if seconds is None else max(0.0, started + seconds - time.perf_counter())
            dealt, kept, cross = self.thorough(tier, dealt, kept, cross, floor, ceiling, left)
        found = model.incumbent(model.values_of(dealt))
        moves = parts.owned_by - found.kept_of
        if (
            _majorised(found.loads, self.incumbent.loads)
            and found.kept >= floor
            and (ceiling is None or found.cross <= ceiling)
            and (request.max_moves_per_member is None or int(moves.max(initial=0)) <= request.max_moves_per_member)
            and (
                (found.cross, -found.kept) < (self.incumbent.cross, -self.incumbent.kept)
                if tier == RACK
                else (-found.kept, found.cross) < (-self.incumbent.kept, self.incumbent.cross)
            )
        ):
            self.incumbent = found

    def thorough(self, tier, dealt, kept, cross, floor, ceiling, seconds):
        """The costlier re-deals (:func:`optimal.exchange.pairs`, :func:`optimal.exchange.neighbourhoods`,
        the equal-weight re-deal again): owners and their kept and cross-rack counts."""
        parts = self.parts
        # Under a time limit, a share of it (wall clock); without one, limits in passes and
        # deterministic time only, so the hint, and the search it steers, is the same on every machine.
        budget = None if seconds is None else min(REDEAL_SECONDS, seconds)
        started = time.perf_counter()
        dealt, kept, cross = pairs(
            parts.classes,
            parts.load,
            dealt,
            self.n,
            objective=tier,
            kept=kept,
            cross=cross,
            kept_floor=floor,
            cross_ceiling=ceiling,
            deadline=None if budget is None else started + budget / 3,
        )
        dealt, kept, cross = neighbourhoods(
            parts.classes,
            parts.load,
            dealt,
            self.n,
            objective=tier,
            kept=kept,
            cross=cross,
            kept_floor=floor,
            cross_ceiling=ceiling,
            deadline=None if budget is None else started + budget,
        )
        return exchange(
            parts.classes,
            parts.load,
            dealt,
            objective=tier,
            kept=kept,
            cross=cross,
            kept_floor=floor,
            cross_ceiling=ceiling,
        )

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


def _counted_balance(incumbent: _Incumbent, definition: str) -> Any:
    loads = [int(x) for x in incumbent.loads]
    squares = sum(x * x for x in loads)
    return {
        "dec-min": lambda: sorted(loads, reverse=True),
        "sum-of-squares": lambda: squares,
        "max-then-squares": lambda: [max(loads, default=0), squares],
    }[definition]()


#: Per tier, its value on the incumbent from the model's counts (``_Run.counted``), given the balance definition.
_COUNTED: dict[str, Callable[[_Incumbent, str], Any]] = {
    BALANCE: _counted_balance,
    RACK: lambda incumbent, definition: incumbent.cross,
    SPREAD: lambda incumbent, definition: sum(x * x for x in incumbent.held.values()),
    STICKINESS: lambda incumbent, definition: incumbent.kept,
}


def _majorised(loads: np.ndarray, by: np.ndarray) -> bool:
    """Whether ``loads`` are majorised by ``by``: the same total, and every sum of the ``k`` largest
    at most ``by``'s.  Every balance pin (module docstring, "Stages": the levels' excess, the top
    sums, the largest load, the sum of squares) is Schur-convex in the loads, so loads majorised by
    an assignment's that keeps them keep them too."""
    first = np.cumsum(np.sort(loads)[::-1])
    second = np.cumsum(np.sort(by)[::-1])
    return bool(first.size == second.size and (first.size == 0 or first[-1] == second[-1]) and (first <= second).all())


def _better(sense: str, value: int, than: int) -> bool:
    return value < than if sense == "min" else value > than


def _value_of(current: Callable[[], int], run: _Run, incumbent: _Incumbent) -> int:
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
    first = int(units[together.index(False)][0])
    topic = int(np.searchsorted(problem.partition_offsets, first, side="right")) - 1
    return f"{problem.topic_names[topic]}-{first - int(problem.partition_offsets[topic])}"


def _failure(status: str, stage: str) -> str:
    if status == INFEASIBLE:
        return "no assignment meets the constraints (the move limits cannot be kept)"
    return f"no assignment found in time (stage: {stage})"
