"""A start for weighted groups under a budget of moves: every member dealt into its slot of the least sorted loads.

Guarantee: :func:`slot_deal` returns per-part owners whose loads are exactly the *water-filled*
vector (the parts heavier than the rest's average each alone on a member, the others' loads within
one of each other: the least sorted loads any assignment can have, so when it succeeds the
``dec-min`` balance tier is at its optimum), that keep the budget of moves, and that put parts on
members of their racks wherever the choices below allow; or ``None`` when it cannot.  No claim of
optimality for the later tiers: it is a start (an incumbent) for the exact model (:mod:`optimal.staged`),
which checks it and searches from it (issue 40).

Why: on a weighted group with a budget of moves, a balance that is exact to the unit takes most of
the budget, and which parts move decides the rack tier.  The staged model reaches the loads first
(moving whatever balances fastest) and then has no moves left for the rack.  This deal chooses the
moves for both at once, as the load slots' relaxation (:mod:`optimal.slot_bound`) does:

1. the heavy parts' holders, one assignment problem (the moves of shedding everything else, the
   holder's rack);
2. what every other member keeps, a knapsack per member: the most parts (the fewest moves) within
   the slot's load, cross-rack ones shed first; then, with the budget left, more cross-rack parts
   shed, to be dealt onto members of their racks;
3. the shed and unowned parts dealt into what the slots leave, heaviest first, each to the member
   of its rack with the most room (its previous owner among those first: a part dealt back is kept);
   what does not fit exactly is dealt again by a small CP-SAT model over the members left short and a
   few more.

Only for groups where every member may take every part, each part from at most one previous owner.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from assignment_oracle.optimal import cpsat_solver

__all__ = ["slot_deal", "water_filled"]

#: Moves of the budget left for the last exact deal (step 3), at least this share of it.
RESERVE = 0.02
#: Members added to the last exact deal besides those left short.
EXTRA = 12
#: CP-SAT's deterministic seconds for the last exact deal.
EFFORT = 2.0


def water_filled(load: np.ndarray, n: int) -> tuple[list[int], int, int, int]:
    """The least sorted loads when every member may take every part: ``(heavy, r, q, extra)``, the
    parts (indices, heaviest first) each alone on a member, then ``r`` members sharing the rest,
    ``extra`` of them at ``q + 1`` and the others at ``q``."""
    order = sorted(range(len(load)), key=lambda k: (-int(load[k]), k))
    rest = int(load.sum())
    heavy: list[int] = []
    while len(heavy) < n - 1 and order:
        k = order[len(heavy)] if len(heavy) < len(order) else None
        if k is None:
            break
        share = -(-rest // (n - len(heavy)))
        if int(load[k]) <= share:
            break
        heavy.append(k)
        rest -= int(load[k])
    r = n - len(heavy)
    q, extra = divmod(rest, r)
    return heavy, r, q, extra


def slot_deal(parts, n: int, *, max_moves: int | None, rack: bool, deadline: float | None = None) -> np.ndarray | None:
    """Owners per part (module docstring), or ``None``.  With ``rack``, first with every move priced
    by what it does for the rack tier (a move of a part on its rack is a wasted one: holders and kept
    parts chosen to waste the fewest), then, when that breaks the budget, by moves alone.  Nothing
    more is tried after ``deadline`` (``time.perf_counter()``), and the last exact deal stops at it."""
    for rack_first in (True, False) if rack else (False,):
        if deadline is not None and time.perf_counter() >= deadline:
            return None
        found = _deal(parts, n, max_moves=max_moves, rack=rack, rack_first=rack_first, deadline=deadline)
        if found is not None:
            return found
    return None


def _deal(
    parts, n: int, *, max_moves: int | None, rack: bool, rack_first: bool, deadline: float | None
) -> np.ndarray | None:
    """One deal (:func:`slot_deal`)."""
    count = len(parts.partitions)
    if n < 2 or count == 0:
        return None
    weight = [int(x) for x in parts.load]
    owner_of = [-1] * count
    kept_of = [0] * count
    cross_at: list[dict[int, int]] = [{}] * count
    for cls in parts.classes:
        if len(cls.eligible) != n:
            return None
        table = dict(zip(cls.eligible, cls.cross)) if (rack and cls.cross) else {}
        for k in cls.parts:
            cross_at[k] = table
        for signature, ks in cls.signatures:
            if len(signature) != 1:
                return None
            ((o, kept),) = signature
            for k in ks:
                owner_of[k], kept_of[k] = o, kept
    heavy, _, q, extra = water_filled(parts.load, n)
    heavy_set = set(heavy)
    owned: list[list[int]] = [[] for _ in range(n)]
    for k in range(count):
        if owner_of[k] >= 0:
            owned[owner_of[k]].append(k)
    base = [sum(kept_of[k] for k in ks) for ks in owned]

    def cross(k: int, m: int) -> int:
        return cross_at[k].get(m, 0)

    # 1. The heavy parts' holders.
    holder: dict[int, int] = {}
    if heavy:
        from scipy.optimize import linear_sum_assignment

        costs = np.zeros((len(heavy), n))
        scale = count + 1
        wasted = [sum(kept_of[j] for j in ks if not cross(j, m)) for m, ks in enumerate(owned)]
        for i, k in enumerate(heavy):
            for m in range(n):
                moves = base[m] - (kept_of[k] if owner_of[k] == m else 0)
                if rack_first:  # on-rack parts shed, and the part itself off its rack, waste the rack tier
                    lost = wasted[m] - (kept_of[k] if owner_of[k] == m and not cross(k, m) else 0) + cross(k, m)
                    costs[i, m] = scale * lost + moves
                else:
                    costs[i, m] = scale * moves + cross(k, m)
        rows, cols = linear_sum_assignment(costs)
        holder = {heavy[int(i)]: int(m) for i, m in zip(rows, cols)}
    holders = set(holder.values())
    normal = [m for m in range(n) if m not in holders]
    owner = np.full(count, -1, dtype=np.int64)
    for k, m in holder.items():
        owner[k] = m

    # 2. What each other member keeps: the most parts within q, cross-rack ones shed first.
    kept_set: dict[int, list[int]] = {}
    for m in normal:
        items = [k for k in owned[m] if k not in heavy_set]
        kept_set[m] = _knapsack(
            items, weight, [kept_of[k] for k in items], [cross(k, m) for k in items], q, rack_first=rack_first
        )
    forced = (
        sum(base)
        - sum(kept_of[k] for ks in kept_set.values() for k in ks)
        - sum(kept_of[k] for k, m in holder.items() if owner_of[k] == m)
    )
    if max_moves is not None and forced > max_moves:
        return None
    # The budget left after the forced moves sheds more cross-rack parts; the fill may need moves too
    # (room made for parts that fit nowhere), so less is tried until a deal fits the budget.
    spare = None if max_moves is None else max_moves - forced

    def attempt(voluntary: int | None) -> np.ndarray | None:
        if deadline is not None and time.perf_counter() >= deadline:
            return None
        return _fill(
            {m: list(ks) for m, ks in kept_set.items()},
            voluntary,
            owner.copy(),
            holder,
            normal,
            heavy,
            q,
            extra,
            weight,
            owner_of,
            kept_of,
            cross,
            max_moves,
            deadline,
        )

    if spare is None or not rack:
        return attempt(None if rack else 0)
    # The most voluntary moves that still fit, in eighths of what the budget leaves.
    for voluntary in sorted({spare * i // 8 for i in range(9)}, reverse=True):
        found = attempt(voluntary)
        if found is not None:
            return found
    return None
    return None


def _fill(
    kept_set, voluntary, owner, holder, normal, heavy, q, extra, weight, owner_of, kept_of, cross, max_moves, deadline
):
    """Steps 2 (the voluntary sheds, at most ``voluntary`` moves) and 3 of :func:`slot_deal`."""
    import heapq

    count = len(owner)
    candidates = sorted(
        ((k, m) for m, ks in kept_set.items() for k in ks if cross(k, m)),
        key=lambda item: (weight[item[0]], item[0]),
    )
    for k, m in candidates:
        if voluntary is not None and voluntary < kept_of[k]:
            break
        kept_set[m].remove(k)
        if voluntary is not None:
            voluntary -= kept_of[k]
    for m, ks in kept_set.items():
        for k in ks:
            owner[k] = m
    room = {m: q - sum(weight[k] for k in ks) for m, ks in kept_set.items()}
    for m in sorted(normal, key=lambda m: (-room[m], m))[:extra]:
        room[m] += 1

    # 3. The rest dealt into the room left, heaviest first; a part that fits nowhere makes room on a
    # member of its rack by shedding lighter kept parts (the fewest: heaviest first), which join the rest.
    pool = [(-weight[k], k) for k in range(count) if owner[k] < 0]
    heapq.heapify(pool)
    moves_now = _moves(owner, owner_of, kept_of, kept_set, holder)
    left: list[int] = []
    while pool:
        _, k = heapq.heappop(pool)
        fits = [m for m in normal if room[m] >= weight[k]]
        if not fits:
            made = _make_room(k, normal, room, kept_set, weight, kept_of, cross)
            if made is None:
                left.append(k)
                continue
            m, shed = made
            moves_now += sum(kept_of[j] for j in shed)
            if max_moves is not None and moves_now > max_moves:
                return None
            for j in shed:
                owner[j] = -1
                heapq.heappush(pool, (-weight[j], j))
            fits = [m]
        m = min(fits, key=lambda m: (cross(k, m), owner_of[k] != m, -room[m], m))
        owner[k] = m
        room[m] -= weight[k]
    short = [m for m in normal if room[m] > 0]
    if left or short:
        if not _settle(owner, left, short, normal, room, weight, owner_of, cross, kept_set, deadline):
            return None
    members = len(normal) + len(heavy)
    loads = np.bincount(owner, weights=np.array(weight, dtype=np.float64), minlength=members)
    moves = sum(kept_of[k] for k in range(count) if owner_of[k] >= 0 and owner[k] != owner_of[k])
    if (owner < 0).any() or (max_moves is not None and moves > max_moves):
        return None
    expected = sorted([weight[k] for k in heavy] + [q + 1] * extra + [q] * (len(normal) - extra))
    if sorted(int(x) for x in loads) != expected:
        return None
    return owner


def _moves(owner, owner_of, kept_of, kept_set, holder) -> int:
    """The moves already decided: every owned part neither kept (step 2) nor on its holder (step 1)."""
    kept = {k for ks in kept_set.values() for k in ks} | {k for k, m in holder.items() if owner_of[k] == m}
    return sum(kept_of[k] for k in range(len(owner)) if owner_of[k] >= 0 and k not in kept)


def _make_room(k, normal, room, kept_set, weight, kept_of, cross):
    """A member of ``k``'s rack (else any) with room made for ``k`` by shedding kept parts lighter
    than it, heaviest first: ``(member, shed parts)`` with the fewest parts shed, or ``None``."""
    best = None
    for m in normal:
        need = weight[k] - room[m]
        shed: list[int] = []
        for j in sorted(kept_set[m], key=lambda j: (-weight[j], j)):
            if need <= 0:
                break
            if weight[j] < weight[k]:
                shed.append(j)
                need -= weight[j]
        if need > 0:
            continue
        key = (cross(k, m), sum(kept_of[j] for j in shed), m)
        if best is None or key < best[0]:
            best = (key, m, shed)
    if best is None:
        return None
    _, m, shed = best
    for j in shed:
        kept_set[m].remove(j)
        room[m] += weight[j]
    return m, shed


def _knapsack(
    items: list[int], weight: list[int], kept: list[int], cross: list[int], cap: int, *, rack_first: bool = False
) -> list[int]:
    """The items kept within ``cap``: the most kept partitions, then the fewest cross-rack (with
    ``rack_first``, the most kept on their rack, then the most kept) (a 0/1 knapsack by dynamic
    programming over the weights; the lightest first when the table is too large)."""
    if sum(weight[k] for k in items) <= cap:
        return list(items)
    if cap <= 0:
        return [k for k in items if weight[k] == 0]
    if cap * max(1, len(items)) > 20_000_000:
        chosen, total = [], 0
        for k in sorted(items, key=lambda k: (weight[k], k)):
            if total + weight[k] <= cap:
                chosen.append(k)
                total += weight[k]
        return chosen
    scale = sum(cross) + 1
    value = np.full(cap + 1, 0, dtype=np.int64)
    took = np.zeros((len(items), cap + 1), dtype=bool)
    for i, k in enumerate(items):
        w = weight[k]
        v = kept[i] * scale * (1 if cross[i] else scale) + kept[i] if rack_first else kept[i] * scale - cross[i]
        if w > cap:
            continue
        candidate = np.full(cap + 1, np.iinfo(np.int64).min // 2, dtype=np.int64)
        candidate[w:] = value[: cap + 1 - w] + v
        better = candidate > value
        took[i] = better
        value = np.where(better, candidate, value)
    chosen = []
    c = cap
    for i in range(len(items) - 1, -1, -1):
        if took[i, c]:
            chosen.append(items[i])
            c -= weight[items[i]]
    return sorted(chosen)


def _settle(owner, left, short, normal, room, weight, owner_of, cross, kept_set, deadline) -> bool:
    """The parts left over and the members left short, with a few more members and the dealt (not
    kept) parts on all of them, dealt again exactly by CP-SAT (the fewest cross-rack, then the most
    dealt back to their previous owners); ``False`` when it finds no exact deal."""
    from ortools.sat.python import cp_model

    kept = {k for ks in kept_set.values() for k in ks}
    dealt_on: dict[int, list[int]] = {m: [] for m in normal}
    for k in range(len(owner)):
        m = int(owner[k])
        if m in dealt_on and k not in kept:
            dealt_on[m].append(k)
    # The extra members: those holding the most dealt parts (room to re-split), in index order on ties.
    others = sorted((m for m in normal if m not in short), key=lambda m: (-len(dealt_on[m]), m))[:EXTRA]
    members = sorted(set(short) | set(others))
    items = list(left) + [k for m in members for k in dealt_on[m]]
    target = {m: room[m] + sum(weight[k] for k in dealt_on[m]) for m in members}
    model = cp_model.CpModel()
    x: dict[tuple[int, int], Any] = {}
    for k in items:
        for m in members:
            if weight[k] <= target[m]:
                x[k, m] = model.new_bool_var("")
                model.add_hint(x[k, m], int(owner[k]) == m)
        if not any((k, m) in x for m in members):
            return False
        model.add_exactly_one(x[k, m] for m in members if (k, m) in x)
    for m in members:
        model.add(sum(weight[k] * x[k, m] for k in items if (k, m) in x) == target[m])
    model.minimize(sum((2 * cross(k, m) - (1 if owner_of[k] == m else 0)) * var for (k, m), var in x.items()))
    solver = cp_model.CpSolver()
    left = None if deadline is None else (deadline - time.perf_counter()) / 4
    if left is not None and left <= 0:
        return False
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.max_deterministic_time = EFFORT
    solver.parameters.catch_sigint_signal = False  # Ctrl-C is Python's (solve_interruptibly)
    if left is not None:
        solver.parameters.max_time_in_seconds = left
    code = cpsat_solver.solve_interruptibly(solver, model)
    if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return False
    for (k, m), var in x.items():
        if solver.value(var):
            owner[k] = m
    for m in members:
        room[m] = 0
    return True
