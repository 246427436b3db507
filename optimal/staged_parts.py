"""What the staged model assigns: the parts, their classes, and assignments of them measured without a solver.

Guarantee: :func:`parts_of` returns every part of the problem (a partition, or with join groups the
unit of a group's partitions numbered ``p``, KIP-315) that some member may take, each with its
eligible members, balance weight, cross-rack count per eligible member and previous owners, and
gathers the interchangeable ones into classes (:mod:`optimal.staged`, "Parts and classes"); the
units no member may take are listed as ``stranded``.  :func:`measured` measures per-part owners
exactly as the model's counts would (:class:`Incumbent`), and :func:`greedy` and :func:`descent`
give the first incumbents, every part on an eligible member (no claim of optimality: the model
checks and improves them).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from assignment_oracle.optimal.request import Request
from assignment_oracle.problem.claims import ResolvedClaims
from assignment_oracle.problem.model import RACK, SPREAD, Problem

__all__ = ["Incumbent", "PartClass", "Parts", "descent", "greedy", "majorised", "measured", "parts_of"]


@dataclass(frozen=True)
class PartClass:
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
    classes: tuple[PartClass, ...]
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
        classes.append(PartClass(weight, eligible, cross, topics, members_parts, sigs))
    return Parts(
        tuple(units), load, most_kept, least_cross, tuple(classes), owned_by, tuple(stranded), weights is not None
    )


@dataclass
class Incumbent:
    """The best assignment so far, as the counts' values, and what is measured on it."""

    values: dict[int, int]  # primary variable index -> value
    loads: np.ndarray
    kept: int
    kept_of: np.ndarray  # per member: its previously owned partitions it keeps
    cross: int
    held: dict[tuple[int, int], int]  # (topic, member) -> partitions


def measured(parts: Parts, n: int, owner: np.ndarray) -> Incumbent:
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
    return Incumbent({}, loads, int(kept_of.sum()), kept_of, cross, held)


def greedy(parts: Parts, n: int, keep_first: bool) -> np.ndarray:
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


def descent(parts: Parts, n: int, owner: np.ndarray, request: Request, deadline: float | None = None) -> np.ndarray:
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


def majorised(loads: np.ndarray, by: np.ndarray) -> bool:
    """Whether ``loads`` are majorised by ``by``: the same total, and every sum of the ``k`` largest
    at most ``by``'s.  Every balance pin (module docstring, "Stages": the levels' excess, the top
    sums, the largest load, the sum of squares) is Schur-convex in the loads, so loads majorised by
    an assignment's that keeps them keep them too."""
    first = np.cumsum(np.sort(loads)[::-1])
    second = np.cumsum(np.sort(by)[::-1])
    return bool(first.size == second.size and (first.size == 0 or first[-1] == second[-1]) and (first <= second).all())
