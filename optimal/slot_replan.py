"""A second start for weighted groups under a budget of moves: the parts program's plan, realised.

Guarantee: :func:`slot_replan` returns per-part owners with exactly the water-filled loads of
:func:`optimal.slot_deal.water_filled` (so the ``dec-min`` balance tier at its optimum), within the
budget of moves, or ``None``.  It aims at the fewest cross-rack partitions, then the most kept, but
claims no optimality: it is a start (an incumbent) for the exact model (:mod:`optimal.staged`), which
checks it, compares it with the parts program's proven bound and searches from it (issue 40).

Why: :func:`optimal.slot_deal.slot_deal` picks what each member keeps member by member, so it cannot
weigh a move spent on the rack tier against a move spent on the balance.  The parts program
(:mod:`optimal.slot_program`) decides for the whole group at once what every member keeps, where the
heavy and big parts go, and how many light parts of each class each rack receives.  Realising a plan:

1. the heavy and big parts where the plan puts them, the kept light parts on their owners;
2. each class's light dealt parts to the types the plan names (a part to its owner's type first: it
   may go back to it);
3. per type, the light dealt parts packed exactly into what each member's load leaves
   (:func:`_pack`: the heavier ones one by one, then each member completed by a subset-sum table).
   A type's members are alike for the rack tier, so the packing changes only which parts go back.

The plan read first is the relaxation's own solution (its bound is returned too).  Its rooms can be
too small for the light parts there are (a member 10 short where the lightest dealt parts weigh 7 and
9), so when it cannot be realised, plans in which every member's room is 0 or at least one of
``ROOM_FLOORS`` (the first plan's holders; the fewest cross-rack partitions, then the most kept) are
realised in turn.  On the issue's 100 x 2,000 group the relaxation's bound is 322 and the plan with
rooms of at least 50 is realised at 322: the rack tier proven.
"""

from __future__ import annotations

import random
import time

import numpy as np

from assignment_oracle.optimal.slot_program import Group, Plan, slot_program

__all__ = ["slot_replan"]

#: The later plans' least room a member receives light parts into, in the order tried.
ROOM_FLOORS = (50, 100)
#: Tries of a type's packing.
ATTEMPTS = 60
#: The most units a subset-sum table covers (:func:`_subset`).
TABLE_LIMIT = 1_000_000


def slot_replan(
    parts, n: int, *, max_moves: int | None, deadline: float | None = None
) -> tuple[np.ndarray | None, int | None]:
    """``(owners, bound)``: owners per part (module docstring) or ``None``, and the parts program's
    proven least cross-rack count under the budget (or ``None``); nothing is searched after
    ``deadline`` (``time.perf_counter()``)."""
    group = Group(parts, n)
    if not group.fits:
        return None, None
    floor = None if max_moves is None else group.owned_total - max_moves

    def left(share: float) -> float | None:
        return None if deadline is None else (deadline - time.perf_counter()) * share

    first = slot_program(group, objective="rack", kept_floor=floor, time_limit=left(0.5))
    if first is None:
        return None, None
    bound = first.bound
    if not first.found:
        return None, bound
    owners = realise(group, first, max_moves, deadline)
    if owners is not None:
        return owners, bound
    for room_floor in ROOM_FLOORS:
        plan = slot_program(
            group, objective="rack", kept_floor=floor, room_floor=room_floor, holders=first.holder, time_limit=left(0.6)
        )
        if plan is None:
            break
        if plan.found:
            owners = realise(group, plan, max_moves, deadline)
            if owners is not None:
                return owners, bound
    return None, bound


def realise(group: Group, plan: Plan, max_moves: int | None, deadline: float | None) -> np.ndarray | None:
    """The plan as owners (module docstring); ``None`` when a type's packing fails even with its kept
    parts, or the result breaks the budget or the loads."""
    weight, owner_of = group.weight, group.owner_of
    owner = np.full(group.count, -1, dtype=np.int64)
    for k, m in plan.holder.items():
        owner[k] = m
    for k, m in plan.placed.items():
        owner[k] = m
    for k in plan.kept:
        owner[k] = owner_of[k]
    holders = set(plan.holder.values())
    room = {m: group.q + (1 if m in plan.extra_on else 0) for m in range(group.n) if m not in holders}
    for k in range(group.count):
        m = int(owner[k])
        if m in room:
            room[m] -= weight[k]
    if any(v < 0 for v in room.values()):
        return None
    items: list[list[int]] = [[] for _ in group.types]
    classes: dict[int, list[int]] = {}
    for k in plan.light:
        if k not in plan.kept:
            classes.setdefault(group.cls_of[k], []).append(k)
    for c, pool in classes.items():
        wanted = {t: plan.dealt.get((c, t), 0) for t in range(len(group.types))}
        rest = []
        for k in pool:
            t = group.type_of.get(owner_of[k])
            if t is not None and wanted[t] > 0:
                items[t].append(k)
                wanted[t] -= 1
            else:
                rest.append(k)
        for t in range(len(group.types)):
            for _ in range(wanted[t]):
                if not rest:
                    return None
                items[t].append(rest.pop())
        if rest:
            return None
    for t, ms in enumerate(group.types):
        if deadline is not None and time.perf_counter() >= deadline:
            return None
        if not _pack(items[t], [m for m in ms if m in room], room, weight, owner_of, owner, seed=t, deadline=deadline):
            return None
    if (owner < 0).any():
        return None
    moves = sum(1 for k in range(group.count) if owner_of[k] >= 0 and owner[k] != owner_of[k])
    if max_moves is not None and moves > max_moves:
        return None
    loads = np.bincount(owner, weights=np.array(weight, dtype=np.float64), minlength=group.n)
    if sorted(int(v) for v in loads) != group.loads_expected():
        return None
    return owner


def _pack(items, members, room, weight, owner_of, owner, seed: int = 0, deadline: float | None = None) -> bool:
    """``items`` onto ``members`` filling each one's ``room`` exactly: the items heavier than a
    threshold one by one (back to their owner where they fit, else to the member with the most room
    left), then each member, least room left first, completed exactly from the lighter ones by a
    subset-sum table (its own parts first, another member's here last, the heaviest first within
    each, so the lightest stay for the rooms that need them).  Tried
    again with other thresholds and tie-breaks (seeded: the same input gives the same deal) up to
    ``ATTEMPTS`` times or until ``deadline``; ``False`` when none fits."""
    if not members:
        return not items
    rng = random.Random(seed)
    weights = sorted(weight[k] for k in items)
    for attempt in range(ATTEMPTS):
        if deadline is not None and time.perf_counter() >= deadline:
            return False
        left = {m: room[m] for m in members}
        where: dict[int, int] = {}
        bar = weights[min(len(weights) - 1, len(weights) * (2 + attempt % 3) // 5)] if weights else 0
        order = sorted(items, key=lambda k: (-weight[k], rng.random() if attempt else k))
        light: list[int] = []
        placed_all = True
        for k in order:
            w = weight[k]
            if w == 0:  # weighs nothing: back to its owner when it is here, else anywhere
                where[k] = owner_of[k] if owner_of[k] in left else members[0]
                continue
            if w <= bar:
                light.append(k)
                continue
            o = owner_of[k]
            if o in left and left[o] >= w:
                m = o
            else:
                fits = [m for m in members if left[m] >= w]
                if not fits:
                    placed_all = False
                    break
                ranked = sorted(fits, key=lambda m: (-left[m], m))
                m = ranked[0] if attempt == 0 else rng.choice(ranked[:3])
            where[k] = m
            left[m] -= w
        if not placed_all:
            continue
        light.sort(key=lambda k: (-weight[k], k))
        for m in sorted(members, key=lambda m: (left[m], m)):
            # m's own parts first (a part back on its owner is kept), those of another member here
            # last (they may go back to it), the heaviest first within each
            ordered = sorted(light, key=lambda k: 0 if owner_of[k] == m else 2 if owner_of[k] in left else 1)
            used = _subset(ordered, weight, left[m])
            if used is None:
                break
            chosen = {ordered[i] for i in used}
            for k in chosen:
                where[k] = m
            left[m] = 0
            light = [k for k in light if k not in chosen]
        if light or any(left.values()):
            continue
        for k, m in where.items():
            owner[k] = m
        for m in members:
            room[m] = 0
        return True
    return False


def _subset(items: list[int], weight, target: int) -> list[int] | None:
    """Indices into ``items`` whose weights sum to ``target`` exactly (each sum reached first by the
    earliest items in their order), or ``None``.  The table has a cell per unit up to ``target``, so
    past ``TABLE_LIMIT`` units (weights are up to 10^9) the items are only taken in order while they
    fit, which may miss an exact subset."""
    if target == 0:
        return []
    if target > TABLE_LIMIT:
        taken, left = [], target
        for i, k in enumerate(items):
            if 0 < weight[k] <= left:
                taken.append(i)
                left -= weight[k]
        return taken if left == 0 else None
    parent = np.full(target + 1, -1, dtype=np.int64)
    reach = np.zeros(target + 1, dtype=bool)
    reach[0] = True
    for i, k in enumerate(items):
        w = weight[k]
        if w > target:
            continue
        new = np.flatnonzero(reach[: target + 1 - w] & ~reach[w:]) + w
        parent[new] = i
        reach[new] = True
        if reach[target]:
            break
    if not reach[target]:
        return None
    used, s = [], target
    while s > 0:
        i = int(parent[s])
        used.append(i)
        s -= weight[items[i]]
    return used
