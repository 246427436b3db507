"""A bound for the rack and stickiness stages once the sorted loads are proven: the load slots' relaxation.

Guarantee: :func:`slot_bound` returns a number no better than the best value of the stage over every
assignment whose sorted loads are exactly ``loads`` and which keeps the stage's other pins (the budget
of moves in all and per member, a proven earlier tier's value), or ``None``: a lower bound on the
cross-rack partitions, an upper bound on the partitions kept (issue 40).

Why another bound
-----------------
With weights, the linear relaxation of the staged model (:mod:`optimal.lp_bound`) is weak: a fraction
of a heavy part keeps a member at its load, so balancing costs the relaxation almost no moves, and the
whole budget goes to the rack tier.  In a real assignment a member keeps whole parts: what it keeps
weighs at most its load, and what it sheds are moves.  Once ``balance`` is proven under ``dec-min``
the loads' multiset is known exactly (the lexicographically least sorted vector is unique), so every
member sits in a *slot*, one of the known load values, and this relaxation keeps exactly that:

* ``z[m, s]``, binary: member ``m`` at load value ``L_s``; each member one slot, each slot its count;
* ``k[p, o]``, binary: part ``p`` stays with its previous owner ``o`` (a part goes back to at most
  one of its owners); what ``m`` keeps weighs ``sum_s u[m, s]`` with ``0 <= u[m, s] <= L_s z[m, s]``;
* every other part is dealt, as a count ``y[c, t, s] >= 0``, to the members of one *type* ``t``
  (the same eligibility and cross-rack count for every class: members on one rack with the same
  subscriptions) in slot ``s``, only where the part fits (``w_c <= L_s``), and what a type's
  members in slot ``s`` receive weighs exactly what their loads leave after what they keep:
  ``sum_c w_c y[c, t, s] = sum_{m in t} (L_s z[m, s] - u[m, s])``.

Every assignment with these loads gives a solution (its loads, what it keeps, where the rest went,
counted by type and slot) with the same cross-rack count (kept parts on their owners' racks, dealt
ones on their type's) and the same kept count, so the program's optimum bounds the stage.  It drops
only how the dealt parts split among the members of one type and slot.  The program is solved by
HiGHS (SciPy's ``milp``); its proven dual bound, rounded outwards, is returned, and nothing when it
reports no bound.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from assignment_oracle.optimal.slot_deal import water_filled
from assignment_oracle.optimal.slot_program import Rows

__all__ = ["slot_bound"]


def slot_bound(
    parts,
    n: int,
    loads: Sequence[int],
    *,
    objective: str,
    kept_floor: int | None = None,
    cross_ceiling: int | None = None,
    per_member_floor: np.ndarray | None = None,
    time_limit: float | None = None,
) -> int | None:
    """The relaxation's bound (module docstring) for ``objective`` ``"rack"`` (least cross-rack
    partitions) or ``"stickiness"`` (most partitions kept); ``loads`` the proven sorted loads (any
    order), ``kept_floor`` / ``cross_ceiling`` the stage's other pins, ``per_member_floor`` the least
    each member must keep (a per-member budget of moves)."""
    if len(loads) != n or n == 0:
        return None
    values, counts = np.unique(np.asarray(loads, dtype=np.int64), return_counts=True)
    slots = len(values)
    classes = parts.classes
    # Member types: the same (eligible?, cross-rack count) for every class.
    columns: list[list[int]] = [[] for _ in range(n)]
    for cls in classes:
        where = dict(zip(cls.eligible, cls.cross or (0,) * len(cls.eligible)))
        for m in range(n):
            columns[m].append(where.get(m, -1))
    type_of: dict[tuple[int, ...], int] = {}
    member_type = np.array([type_of.setdefault(tuple(col), len(type_of)) for col in columns], dtype=np.int64)
    types = len(type_of)
    type_members = [np.flatnonzero(member_type == t) for t in range(types)]

    program = Rows()

    def variable(c: float, high: float, integer: bool) -> int:
        return program.variable(high, integer=integer, cost=c)

    constraint = program.constraint

    rack = objective == "rack"
    lightest = int(values[0])
    z = np.array([[variable(0.0, 1.0, True) for _ in range(slots)] for _ in range(n)], dtype=np.int64)
    kept_terms: list[tuple[int, float]] = []
    cross_terms: list[tuple[int, float]] = []
    member_kept: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    used: list[list[tuple[int, float]]] = [[] for _ in range(n)]  # weight on m: kept light parts, heavy parts
    received: list[list[tuple[int, float]]] = [[] for _ in range(types)]
    for cls in classes:
        position = {m: i for i, m in enumerate(cls.eligible)}
        owners_of = {k: dict(signature) for signature, ks in cls.signatures for k in ks}

        def cross_of(m: int) -> int:
            return cls.cross[position[m]] if cls.cross else 0

        if cls.load > lightest:
            # A part heavier than the least load: where it goes, member by member.
            for k in cls.parts:
                mine = owners_of.get(k, {})
                terms = []
                for m in cls.eligible:
                    kept = mine.get(m, 0)
                    j = variable(float(cross_of(m)) if rack else -float(kept), 1.0, True)
                    terms.append((j, 1.0))
                    used[m].append((j, float(cls.load)))
                    if cross_of(m):
                        cross_terms.append((j, float(cross_of(m))))
                    if kept:
                        kept_terms.append((j, float(kept)))
                        member_kept[m].append((j, float(kept)))
                constraint(terms, 1.0, 1.0)
            continue
        # A lighter part: kept by a previous owner (member by member), or dealt to a type of member.
        terms = []
        for k in cls.parts:
            mine = owners_of.get(k, {})
            back = []
            for o, kept in mine.items():
                j = variable(float(cross_of(o)) if rack else -float(kept), 1.0, True)
                back.append((j, 1.0))
                terms.append((j, 1.0))
                kept_terms.append((j, float(kept)))
                if cross_of(o):
                    cross_terms.append((j, float(cross_of(o))))
                member_kept[o].append((j, float(kept)))
                used[o].append((j, float(cls.load)))
            if len(back) > 1:
                constraint(back, 0.0, 1.0)
        for t in range(types):
            first = int(type_members[t][0])
            if first not in position:
                continue
            j = variable(float(cross_of(first)) if rack else 0.0, float(len(cls.parts)), True)
            terms.append((j, 1.0))
            received[t].append((j, float(cls.load)))
            if cross_of(first):
                cross_terms.append((j, float(cross_of(first))))
        constraint(terms, float(len(cls.parts)), float(len(cls.parts)))
    for m in range(n):
        constraint([(int(z[m, s]), 1.0) for s in range(slots)], 1.0, 1.0)
        # what m keeps and the heavy parts it holds weigh at most its load
        constraint(used[m] + [(int(z[m, s]), -float(values[s])) for s in range(slots)], -math.inf, 0.0)
        if per_member_floor is not None and per_member_floor[m] > 0:
            constraint(member_kept[m], float(per_member_floor[m]), math.inf)
    for s in range(slots):
        constraint([(int(z[m, s]), 1.0) for m in range(n)], float(counts[s]), float(counts[s]))
    for t in range(types):
        # the lighter parts a type's members receive weigh what their loads leave
        terms = [(j, -a) for j, a in received[t]]
        for m in (int(x) for x in type_members[t]):
            terms.extend((int(z[m, s]), float(values[s])) for s in range(slots))
            terms.extend((j, -a) for j, a in used[m])
        constraint(terms, 0.0, 0.0)
    if kept_floor is not None:
        constraint(kept_terms, float(kept_floor), math.inf)
    if cross_ceiling is not None and not rack:
        constraint(cross_terms, -math.inf, float(cross_ceiling))
    result = program.solve(time_limit=time_limit, exact=True)
    bound = getattr(result, "mip_dual_bound", None)
    if bound is None or not np.isfinite(bound):
        return None
    if rack:
        return max(0, math.ceil(bound - 1e-6))
    return math.floor(-bound + 1e-6)


def moves_bound(
    parts,
    n: int,
    loads: Sequence[int],
    *,
    objective: str,
    max_moves: int | None,
    kept_floor: int | None = None,
    cross_ceiling: int | None = None,
) -> int | None:
    """A counting bound for the rack or stickiness stage once the sorted loads are proven and are the
    water-filled ones (:func:`optimal.slot_deal.water_filled`), for groups of single partitions
    (no join groups); ``None`` otherwise.

    With those loads every heavy part is alone on a member and every other member carries at most
    ``q + 1`` (module docstring of :mod:`optimal.slot_deal`; by induction from the top: the heaviest
    part fits only the largest load, which it fills, and so on).  So some partitions must move
    whatever the assignment: a heavy part's holder sheds everything else it owned that weighs anything, and another
    member sheds until what it keeps fits ``q + 1``.  ``W``, the fewest partitions *on their
    owner's rack* that must move, is exact for that relaxation: each other member sheds all its
    cross-rack partitions for free and then its heaviest on-rack ones; the heavy parts' holders
    are chosen by one assignment problem (:func:`scipy.optimize.linear_sum_assignment`, integer
    costs).  A partition kept is cross-rack exactly when it was with its owner, and a move takes at
    most one cross-rack partition off its owner, so with ``C`` the cross-rack partitions as owned
    and at most ``M`` moves (the budget, or what the kept floor leaves):

    * rack: at least ``C - (M - W)`` cross-rack partitions;
    * stickiness, with at most ``R`` cross-rack partitions: at least ``W + max(0, C - R)`` moves,
      so at most ``owned - W - max(0, C - R)`` kept.
    """
    from scipy.optimize import linear_sum_assignment

    heavy, r, q, extra = water_filled(parts.load, n)
    expected = sorted([int(parts.load[k]) for k in heavy] + [q + 1] * extra + [q] * (r - extra))
    if sorted(int(x) for x in loads) != expected or any(len(p) != 1 for p in parts.partitions):
        return None
    owned: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]  # (part, weight, cross at owner)
    for cls in parts.classes:
        position = {m: i for i, m in enumerate(cls.eligible)}
        for signature, ks in cls.signatures:
            for o, kept in signature:
                if kept != 1:
                    return None
                x = int(cls.cross[position[o]]) if cls.cross else 0
                owned[o].extend((k, int(cls.load), x) for k in ks)
    total = sum(len(ps) for ps in owned)
    crossed = sum(x for ps in owned for _, _, x in ps)
    cap = q + (1 if extra else 0)

    def normal(m: int) -> int:
        """The fewest on-rack partitions m sheds to keep at most ``cap`` (all its cross-rack ones shed)."""
        on = sorted((w for _, w, x in owned[m] if not x), reverse=True)
        weight, shed = sum(on), 0
        for w in on:
            if weight <= cap:
                break
            weight -= w
            shed += 1
        return shed

    base = [normal(m) for m in range(n)]
    wasted = base_total = sum(base)
    if heavy:
        costs = np.zeros((len(heavy), n), dtype=np.int64)
        for i, h in enumerate(heavy):
            for m in range(n):
                holder = sum(1 for k, w, x in owned[m] if not x and k != h and w > 0)  # weightless parts may stay
                costs[i, m] = holder - base[m]
        rows, cols = linear_sum_assignment(costs)
        wasted = base_total + int(costs[rows, cols].sum())
    if objective == "rack":
        moves = total if max_moves is None else min(total, max_moves)
        if kept_floor is not None:
            moves = min(moves, total - kept_floor)
        return max(0, crossed - (moves - wasted))
    least = wasted + (max(0, crossed - cross_ceiling) if cross_ceiling is not None else 0)
    return total - least
