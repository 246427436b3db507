"""Load-preserving exchanges: an assignment's parts of equal balance weight dealt again among the members holding them.

Guarantee: :func:`exchange` returns per-part owners under which every member's load is exactly
what it was (each member ends with as many parts of each balance weight as it held), every part
is on an eligible member, and the number of kept partitions and of cross-rack partitions is what
:func:`exchange` reports; among such re-deals it finds the fewest cross-rack partitions with at
least ``kept_floor`` kept (``objective="rack"``), or the most kept with at most ``cross_ceiling``
cross-rack (``objective="stickiness"``), up to the Lagrangian's duality gap (below).  No claim of
optimality: its answer is a start (a hint) for the exact model, which checks it.

Why: on weighted groups the balance stages pin the loads to within a few units, and the later
stages (rack, stickiness) must keep them.  Almost any single move breaks the pins, so CP-SAT's
local search and a MIP's heuristics find nothing in tens of seconds (issue 40's 100 x 2,000
weighted group: 637 cross-rack partitions where 219 is the linear bound).  Re-dealing parts of
one weight among the holders of that weight keeps every load, and it is one assignment problem
per weight, coupled only by the side constraint, which a multiplier takes into the costs.

Method
------
For each balance weight, the parts of that weight and the *slots* (their current owners, one per
part): the cost of part ``p`` in a slot of member ``m`` is ``a * cross(p, m) - b * kept(p, m)``
(ineligible: forbidden), and :func:`scipy.optimize.linear_sum_assignment` deals them.  The
multiplier (``b / a`` for rack, ``a / b`` for stickiness) is bisected for the best re-deal that
meets the side constraint; the current owners are one such re-deal, so there is always one.
Weights with more than :data:`LARGEST_GROUP` parts are left as they are (a dense assignment
problem of that size costs more than it is worth as a hint).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

__all__ = ["LARGEST_GROUP", "NEIGHBOURHOOD", "PRICE", "exchange", "neighbourhoods", "pairs", "swaps"]

LARGEST_GROUP = 400
NEIGHBOURHOOD = 4  # neighbourhoods(): members whose parts are dealt again at once
NEIGHBOURHOODS = 2_000  # neighbourhoods(): at most this many
NEIGHBOURHOOD_EFFORT = 0.05  # neighbourhoods(): CP-SAT's deterministic seconds for one
PASSES = 3  # pairs(): at most this many passes over the pairs
PATIENCE = 60  # neighbourhoods(): it stops after this many in a row that found nothing
PRICE = 64  # pairs(): a partition kept is worth (PRICE - 1) / PRICE of a cross-rack one (rack), or the reverse
_FORBIDDEN = 1e9
_ROUNDS = 14  # bisection steps on the multiplier


class _Group:
    """The parts of one balance weight: their slots' members and the cross/kept matrices (part x slot)."""

    def __init__(self, parts: list[int], members: np.ndarray, cross: np.ndarray, kept: np.ndarray, ok: np.ndarray):
        self.parts = parts
        self.members = members
        self.cross = cross
        self.kept = kept
        self.ok = ok


def exchange(
    classes,
    load: np.ndarray,
    owner: np.ndarray,
    *,
    objective: str,
    kept: int,
    cross: int,
    kept_floor: int,
    cross_ceiling: int | None,
) -> tuple[np.ndarray, int, int]:
    """Owners after the best re-deal found (module docstring), with its kept and cross-rack counts.

    ``classes`` are :class:`optimal.staged.Parts`' classes (eligible members, cross-rack count per
    eligible member, previous owners' kept counts per signature); ``owner`` the current per-part
    owners, under which ``kept`` partitions are kept and ``cross`` are cross-rack, meeting
    ``kept_floor`` and ``cross_ceiling``.
    """
    from scipy.optimize import linear_sum_assignment

    groups = _groups(classes, load, owner)
    if not groups:
        return owner, kept, cross

    def deal(a: float, b: float) -> list[np.ndarray]:
        chosen = []
        for g in groups:
            cost = np.where(g.ok, a * g.cross - b * g.kept, _FORBIDDEN)
            rows, cols = linear_sum_assignment(cost)
            chosen.append(cols[np.argsort(rows)])
        return chosen

    identity = [np.arange(len(g.parts)) for g in groups]
    base_kept, base_cross = _counts(groups, identity)

    def counts(chosen: list[np.ndarray]) -> tuple[int, int]:
        k, c = _counts(groups, chosen)
        return kept - base_kept + k, cross - base_cross + c

    def key(k: int, c: int) -> tuple[int, int]:
        return (c, -k) if objective == "rack" else (-k, c)

    best, best_kept, best_cross = identity, kept, cross
    # The multiplier: past the largest part's size, the side tier is all that counts.
    low, high = 0.0, float(max(g.kept.max(initial=0) for g in groups) + max(g.cross.max(initial=0) for g in groups) + 1)
    for _ in range(_ROUNDS):
        mid = (low + high) / 2 if objective == "rack" or cross_ceiling is not None else 0.0
        # rack: least cross, kept weighed by mid; stickiness: most kept, cross weighed by mid (never 0:
        # a tie on the objective goes to the side tier).
        chosen = deal(1.0, mid + 1e-6) if objective == "rack" else deal(mid + 1e-6, 1.0)
        k, c = counts(chosen)
        if k >= kept_floor and (cross_ceiling is None or c <= cross_ceiling):
            if key(k, c) < key(best_kept, best_cross):
                best, best_kept, best_cross = chosen, k, c
            high = mid  # the side constraint holds: weigh it less
        else:
            low = mid
        if objective == "stickiness" and cross_ceiling is None:
            break  # no side constraint: the first deal (cross barely weighed) is the answer
    result = owner.copy()
    for g, cols in zip(groups, best):
        result[g.parts] = g.members[cols]
    return result, best_kept, best_cross


def _groups(classes, load: np.ndarray, owner: np.ndarray) -> list[_Group]:
    holdings = _Holdings(classes)
    by_weight: dict[int, list[int]] = {}
    for cls in classes:
        for k in cls.parts:
            by_weight.setdefault(int(load[k]), []).append(k)
    groups = []
    for weight in sorted(by_weight):
        parts = sorted(by_weight[weight])
        members = owner[parts]
        if len(parts) < 2 or len(parts) > LARGEST_GROUP or len(set(members.tolist())) < 2:
            continue
        size = len(parts)
        crossing = np.zeros((size, size))
        keeping = np.zeros((size, size))
        ok = np.zeros((size, size), dtype=bool)
        for i, k in enumerate(parts):
            for j, m in enumerate(members.tolist()):
                if m in holdings.eligible[k]:
                    ok[i, j] = True
                    crossing[i, j] = holdings.cross(k, m)
                    keeping[i, j] = holdings.kept(k, m)
        groups.append(_Group(parts, members, crossing, keeping, ok))
    return groups


def _counts(groups: list[_Group], chosen) -> tuple[int, int]:
    """Kept and cross-rack partitions of the grouped parts under ``chosen`` (``None``: none)."""
    if chosen is None:
        return 0, 0
    kept = cross = 0
    for g, cols in zip(groups, chosen):
        rows = np.arange(len(g.parts))
        kept += int(g.kept[rows, cols].sum())
        cross += int(g.cross[rows, cols].sum())
    return kept, cross


class _Holdings:
    """Per part: the members that may take it, and on each member its cross-rack partitions and the
    partitions it keeps (the classes of :class:`optimal.staged.Parts`, read once)."""

    def __init__(self, classes) -> None:
        self.eligible: dict[int, frozenset[int]] = {}
        self.cross_at: dict[int, dict[int, int]] = {}
        self.kept_at: dict[int, dict[int, int]] = {}
        for cls in classes:
            table = dict(zip(cls.eligible, cls.cross)) if cls.cross else {}
            members = frozenset(cls.eligible)
            for k in cls.parts:
                self.eligible[k] = members
                self.cross_at[k] = table
            for signature, ks in cls.signatures:
                mine = dict(signature)
                for k in ks:
                    self.kept_at[k] = mine

    def cross(self, k: int, m: int) -> int:
        return self.cross_at[k].get(m, 0)

    def kept(self, k: int, m: int) -> int:
        return self.kept_at.get(k, {}).get(m, 0)


class _Deal:
    """Per-part owners being improved by a local search, their kept and cross-rack partitions, and the
    stage's order and pins (at least ``kept_floor`` kept, at most ``cross_ceiling`` cross-rack)."""

    def __init__(
        self,
        classes,
        owner: np.ndarray,
        *,
        objective: str,
        kept: int,
        cross: int,
        kept_floor: int,
        cross_ceiling: int | None,
    ) -> None:
        self.holdings = _Holdings(classes)
        self.owner = owner.copy()
        self.objective = objective
        self.kept, self.cross = kept, cross
        self.kept_floor, self.cross_ceiling = kept_floor, cross_ceiling

    def gain(self, dk: int, dc: int) -> tuple[int, int]:
        """A change of ``dk`` kept and ``dc`` cross-rack in the stage's order (``rack``: fewer cross-rack,
        then more kept; ``stickiness`` the reverse): it improves the stage when above ``(0, 0)``."""
        return (-dc, dk) if self.objective == "rack" else (dk, -dc)

    def rank(self, kept: int, cross: int) -> tuple[int, int]:
        """Owners with ``kept`` and ``cross`` in the stage's order: the least is the best."""
        return (cross, -kept) if self.objective == "rack" else (-kept, cross)

    def keeps_pins(self, dk: int, dc: int) -> bool:
        """Whether a change of ``dk`` kept and ``dc`` cross-rack keeps the stage's pins."""
        return self.kept + dk >= self.kept_floor and (
            self.cross_ceiling is None or self.cross + dc <= self.cross_ceiling
        )


def _improve(
    step: Callable[[Any], bool],
    candidates: Sequence[Any],
    *,
    rounds: int,
    deadline: float | None,
    every: int = 1,
    patience: int | None = None,
) -> None:
    """The one loop of the local searches: ``step(candidate)`` (the move generator: it takes the best
    improving move it finds there, and says whether it took one) for each candidate in order, round
    after round, until a round takes no move, ``rounds`` rounds are done, ``patience`` steps in a row
    took none, or ``deadline`` (``time.perf_counter()``, read before every ``every``-th candidate)
    passes."""
    idle = 0
    for _ in range(rounds):
        improved = False
        for i, candidate in enumerate(candidates):
            if patience is not None and idle >= patience:
                return
            if deadline is not None and i % every == 0 and time.perf_counter() >= deadline:
                return
            if step(candidate):
                improved, idle = True, 0
            else:
                idle += 1
        if not improved:
            return


def swaps(
    classes,
    load: np.ndarray,
    owner: np.ndarray,
    n: int,
    *,
    objective: str,
    kept: int,
    cross: int,
    kept_floor: int,
    cross_ceiling: int | None,
    rounds: int = 20,
    deadline: float | None = None,
) -> tuple[np.ndarray, int, int]:
    """Owners after improving swaps that keep every balance pin: a part ``p`` from member ``a`` to
    ``b`` and a part ``q`` (or none) from ``b`` to ``a`` with ``w(p) - w(q)`` between 0 and
    ``load(a) - load(b)`` (a transfer from the more loaded to the less, not past each other: 0 keeps
    each load, ``load(a) - load(b)`` trades them), so the new loads are majorised by the old, and
    every pin on the sorted loads (a ceiling on their prefix sums, Schur-convex) still holds.  A swap is taken when it improves the stage (``rack``: fewer cross-rack, then more
    kept; ``stickiness``: more kept, then fewer cross-rack) within ``kept_floor`` and
    ``cross_ceiling``; best swap per part, parts in order, until a round finds none or ``deadline``
    (``time.perf_counter()``) passes.  Returns the owners and their kept and cross-rack counts.  A
    start for the exact model, no claim of optimality."""
    deal = _Deal(
        classes, owner, objective=objective, kept=kept, cross=cross, kept_floor=kept_floor, cross_ceiling=cross_ceiling
    )
    _improve(_Swaps(deal, load, n).step, range(len(load)), rounds=rounds, deadline=deadline, every=64)
    return deal.owner, deal.kept, deal.cross


class _Swaps:
    """The moves of :func:`swaps`: at a part, the best improving swap that moves it."""

    def __init__(self, deal: _Deal, load: np.ndarray, n: int) -> None:
        self.deal = deal
        self.weight = weight = [int(x) for x in load]
        self.loads = [0] * n
        self.held: list[dict[int, set[int]]] = [{} for _ in range(n)]  # member -> weight -> parts
        for k, m in enumerate(deal.owner.tolist()):
            self.loads[m] += weight[k]
            self.held[m].setdefault(weight[k], set()).add(k)

    def step(self, p: int) -> bool:
        deal, weight, loads, held = self.deal, self.weight, self.loads, self.held
        h = deal.holdings
        a = int(deal.owner[p])
        # Every improving swap moves a part to a member where it is less cross-rack or kept more
        # (the other part's own gain is found when that part is the first).
        targets = [b for b in h.kept_at.get(p, {}) if h.kept(p, b) > h.kept(p, a) and b in h.eligible[p]]
        if h.cross(p, a):
            targets.extend(b for b in h.eligible[p] if h.cross(p, b) < h.cross(p, a) and b not in targets)
        best = None
        for b in targets:
            base_dk = h.kept(p, b) - h.kept(p, a)
            base_dc = h.cross(p, b) - h.cross(p, a)
            options: list[int | None] = []
            d = loads[a] - loads[b]
            # A transfer of w(p) - w(q) from a to b between 0 and d (a Robin Hood transfer): the
            # loads end no less balanced (majorised by the current ones).
            least, most = weight[p] - max(0, d), weight[p] - min(0, d)
            if least <= 0:
                options.append(None)
            for w in range(max(least, 0), most + 1) if most - least <= 64 else sorted(held[b]):
                if least <= w <= most and w in held[b]:
                    options.extend(q for q in held[b][w] if a in h.eligible[q])
            for q in options:
                dk, dc = base_dk, base_dc
                if q is not None:
                    dk += h.kept(q, a) - h.kept(q, b)
                    dc += h.cross(q, a) - h.cross(q, b)
                if deal.gain(dk, dc) <= (0, 0) or not deal.keeps_pins(dk, dc):
                    continue
                if best is None or deal.gain(dk, dc) > best[0]:
                    best = (deal.gain(dk, dc), b, q, dk, dc)
        if best is None:
            return False
        _, b, q, dk, dc = best
        for k, src, dst in ((p, a, b), *(() if q is None else ((q, b, a),))):
            held[src][weight[k]].discard(k)
            held[dst].setdefault(weight[k], set()).add(k)
            loads[src] -= weight[k]
            loads[dst] += weight[k]
            deal.owner[k] = dst
        deal.kept += dk
        deal.cross += dc
        return True


def pairs(
    classes,
    load: np.ndarray,
    owner: np.ndarray,
    n: int,
    *,
    objective: str,
    kept: int,
    cross: int,
    kept_floor: int,
    cross_ceiling: int | None,
    deadline: float | None,
    passes: int = PASSES,
) -> tuple[np.ndarray, int, int]:
    """Owners after re-splitting the parts of two members between them, pair by pair: each pair's
    parts dealt again (each to either member, where eligible) so that the two new loads lie between
    the old two (a Robin Hood transfer, so the loads end majorised by the old ones and every balance
    pin holds), at the least ``PRICE * cross - (PRICE - 1) * kept`` (``rack``: a move that saves a
    cross-rack partition is worth a partition kept, just) or ``(PRICE + 1) * cross - PRICE * kept``
    (``stickiness``), by a knapsack over the first member's load.  Taken when it improves the stage
    within ``kept_floor`` and ``cross_ceiling``; pairs in a fixed order, at most ``passes`` times over,
    until a pass finds nothing or ``deadline`` (``time.perf_counter()``; ``None``: none, and the
    answer is the same on every machine).  A start for the exact model."""
    deal = _Deal(
        classes, owner, objective=objective, kept=kept, cross=cross, kept_floor=kept_floor, cross_ceiling=cross_ceiling
    )
    order = [(a, b) for a in range(n) for b in range(a + 1, n)]
    np.random.default_rng(0).shuffle(order)
    _improve(_Pairs(deal, load, n).step, order, rounds=passes, deadline=deadline)
    return deal.owner, deal.kept, deal.cross


class _Pairs:
    """The moves of :func:`pairs`: a pair of members' parts re-split between them, by a knapsack."""

    def __init__(self, deal: _Deal, load: np.ndarray, n: int) -> None:
        self.deal = deal
        self.weight = np.asarray(load, dtype=np.int64)
        self.on: list[list[int]] = [[] for _ in range(n)]
        for k, m in enumerate(deal.owner.tolist()):
            self.on[m].append(k)
        self.loads = np.bincount(deal.owner, weights=self.weight, minlength=n).astype(np.int64)
        self.prices = (PRICE, PRICE - 1) if deal.objective == "rack" else (PRICE + 1, PRICE)

    def step(self, pair: tuple[int, int]) -> bool:
        deal, on, loads = self.deal, self.on, self.loads
        h, owner = deal.holdings, deal.owner
        a_cross, a_kept = self.prices
        a, b = pair
        items = on[a] + on[b]
        if len(items) < 2:
            return False
        low, high = int(min(loads[a], loads[b])), int(max(loads[a], loads[b]))
        w = self.weight[items]
        if high > 1 << 16 or (w == 0).any():
            return False  # a knapsack that large costs more than it is worth
        ca = np.array([h.cross(k, a) for k in items])
        cb = np.array([h.cross(k, b) for k in items])
        ka = np.array([h.kept(k, a) for k in items])
        kb = np.array([h.kept(k, b) for k in items])
        to_a = np.array([a in h.eligible[k] for k in items])
        to_b = np.array([b in h.eligible[k] for k in items])
        big = 1 << 40
        cost_a = np.where(to_a, a_cross * ca - a_kept * ka, big)
        cost_b = np.where(to_b, a_cross * cb - a_kept * kb, big)
        delta = cost_a - cost_b  # choosing a instead of b
        now = np.array([owner[k] == a for k in items])
        current = int(np.where(now, cost_a, cost_b).sum())
        best = np.full(high + 1, big, dtype=np.int64)
        best[0] = 0
        chose = np.zeros((len(items), high + 1), dtype=bool)
        for i, wi in enumerate(w.tolist()):
            if wi > high:
                continue
            candidate = best[: high + 1 - wi] + int(delta[i])
            better = candidate < best[wi:]
            chose[i, wi:] = better
            best[wi:] = np.where(better, candidate, best[wi:])
        window = best[low : high + 1]
        at = int(np.argmin(window)) + low
        if int(window[at - low]) + int(cost_b.sum()) >= current:
            return False
        pick = np.zeros(len(items), dtype=bool)
        x = at
        for i in range(len(items) - 1, -1, -1):
            if chose[i, x]:
                pick[i] = True
                x -= int(w[i])
        if x != 0:
            return False  # (never: the table's choices end at 0)
        dk = int(np.where(pick, ka, kb).sum() - np.where(now, ka, kb).sum())
        dc = int(np.where(pick, ca, cb).sum() - np.where(now, ca, cb).sum())
        if deal.gain(dk, dc) <= (0, 0) or not deal.keeps_pins(dk, dc):
            return False
        if not (to_a[pick].all() and to_b[~pick].all()):
            return False
        on[a] = [k for k, p in zip(items, pick) if p]
        on[b] = [k for k, p in zip(items, pick) if not p]
        owner[on[a]] = a
        owner[on[b]] = b
        loads[a] = int(w[pick].sum())
        loads[b] = int(w[~pick].sum())
        deal.kept += dk
        deal.cross += dc
        return True


def neighbourhoods(
    classes,
    load: np.ndarray,
    owner: np.ndarray,
    n: int,
    *,
    objective: str,
    kept: int,
    cross: int,
    kept_floor: int,
    cross_ceiling: int | None,
    deadline: float | None,
    size: int = NEIGHBOURHOOD,
    count: int = NEIGHBOURHOODS,
) -> tuple[np.ndarray, int, int]:
    """Owners after large-neighbourhood search: again and again, the parts of ``size`` members (one
    holding a part that could do better, where it could do better, its previous owner, then at
    random) dealt again among them by a small CP-SAT model whose loads must be majorised by the old
    ones (the sum of the ``k`` largest at most the old sum, for every ``k``: ``k * t + sum max(0,
    load - t)``, exact), so every balance pin holds; at the least ``PRICE * cross - (PRICE - 1) *
    kept`` (``rack``) or ``cross - PRICE * kept`` (``stickiness``) within ``kept_floor`` and
    ``cross_ceiling``.  The best owners seen (the stage's order: ``rack`` fewer cross-rack then more
    kept, ``stickiness`` the reverse) are returned with their counts, at ``deadline``
    (``time.perf_counter()``).  A start for the exact model, no claim of optimality."""
    deal = _Deal(
        classes, owner, objective=objective, kept=kept, cross=cross, kept_floor=kept_floor, cross_ceiling=cross_ceiling
    )
    moves = _Neighbourhoods(deal, load, n, size, deadline)
    _improve(moves.step, range(count if n > size else 0), rounds=1, deadline=deadline, patience=PATIENCE)
    return moves.best


class _Neighbourhoods:
    """The moves of :func:`neighbourhoods`: a few members' parts dealt again among them by CP-SAT, and
    the best owners seen."""

    def __init__(self, deal: _Deal, load: np.ndarray, n: int, size: int, deadline: float | None) -> None:
        self.deal, self.n, self.size, self.deadline = deal, n, size, deadline
        self.weight = [int(x) for x in load]
        self.on: list[set[int]] = [set() for _ in range(n)]
        for k, m in enumerate(deal.owner.tolist()):
            self.on[m].add(k)
        self.prices = (PRICE, PRICE - 1) if deal.objective == "rack" else (1, PRICE)
        self.best = (deal.owner.copy(), deal.kept, deal.cross)
        self.rng = np.random.default_rng(0)

    def members(self) -> list[int]:
        """The members of the next neighbourhood: a part that could do better (less cross-rack, or
        kept), where it could, its owner, then at random."""
        deal, rng = self.deal, self.rng
        h, owner = deal.holdings, deal.owner
        chosen: list[int] = []
        for _ in range(8):
            p = int(rng.integers(len(self.weight)))
            a = int(owner[p])
            better = [b for b in h.eligible[p] if h.cross(p, b) < h.cross(p, a) or h.kept(p, b) > h.kept(p, a)]
            if better:
                chosen = [a, int(better[int(rng.integers(len(better)))])]
                chosen.extend(o for o in h.kept_at.get(p, {}) if o not in chosen and o in h.eligible[p])
                break
        others = [m for m in rng.permutation(self.n).tolist() if m not in chosen]
        return (chosen + others)[: self.size]

    def step(self, _: int) -> bool:
        deal, weight, on = self.deal, self.weight, self.on
        h, owner = deal.holdings, deal.owner
        a_cross, a_kept = self.prices
        chosen = self.members()
        items = [k for m in chosen for k in on[m]]
        if not items:
            return False
        model = cp_model.CpModel()
        x: dict[tuple[int, int], Any] = {}
        for k in items:
            allowed = [m for m in chosen if m in h.eligible[k]]
            for m in allowed:
                x[k, m] = model.new_bool_var(f"x[{k},{m}]")
                model.add_hint(x[k, m], int(owner[k]) == m)
            # Each part to one of the chosen members that may take it.
            model.add_exactly_one(x[k, m] for m in allowed)
        old = sorted((sum(weight[k] for k in on[m]) for m in chosen), reverse=True)
        loads = []
        for m in chosen:
            v = model.new_int_var(0, sum(weight[k] for k in items), f"load[{m}]")
            model.add(v == sum(weight[k] * x[k, m] for k in items if (k, m) in x))
            loads.append(v)
        # The new loads majorised by the old ones: every top-k sum at most the old one.
        prefix = 0
        for top in range(1, len(chosen)):
            prefix += old[top - 1]
            t = model.new_int_var(0, old[0], f"t[{top}]")
            over = [model.new_int_var(0, old[0] * len(chosen), f"over[{top},{i}]") for i in range(len(chosen))]
            for v, o in zip(loads, over):
                model.add(o >= v - t)
            model.add(top * t + sum(over) <= prefix)
        kept_expr = sum(h.kept(k, m) * x[k, m] for (k, m) in x if h.kept(k, m))
        cross_expr = sum(h.cross(k, m) * x[k, m] for (k, m) in x if h.cross(k, m))
        kept_old = sum(h.kept(k, int(owner[k])) for k in items)
        cross_old = sum(h.cross(k, int(owner[k])) for k in items)
        model.add(kept_expr >= deal.kept_floor - (deal.kept - kept_old))
        if deal.cross_ceiling is not None:
            model.add(cross_expr <= deal.cross_ceiling - (deal.cross - cross_old))
        model.minimize(a_cross * cross_expr - a_kept * kept_expr)
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.random_seed = 0
        solver.parameters.max_deterministic_time = NEIGHBOURHOOD_EFFORT
        if self.deadline is not None:
            solver.parameters.max_time_in_seconds = max(0.01, self.deadline - time.perf_counter())
        code = solver.solve(model)
        if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return False
        new_kept = deal.kept - kept_old + int(solver.value(kept_expr))
        new_cross = deal.cross - cross_old + int(solver.value(cross_expr))
        if a_cross * new_cross - a_kept * new_kept >= a_cross * deal.cross - a_kept * deal.kept:
            return False
        for m in chosen:
            on[m] = set()
        for (k, m), var in x.items():
            if solver.value(var):
                owner[k] = m
                on[m].add(k)
        deal.kept, deal.cross = new_kept, new_cross
        if deal.rank(deal.kept, deal.cross) < deal.rank(self.best[1], self.best[2]):
            self.best = (owner.copy(), deal.kept, deal.cross)
        return True
