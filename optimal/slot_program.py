"""The parts program: a relaxation of the rack and stickiness stages once the water-filled loads are proven.

Guarantee: :func:`slot_program` with ``room_floor=0`` and no fixed holders is a *relaxation* of the
stage: every assignment with the water-filled loads (:func:`optimal.slot_deal.water_filled`, what a
proven ``dec-min`` balance gives when every member may take every part) that keeps the stage's pins
(the budget of moves in all and per member, a proven earlier tier's value) is a solution of it with
the same cross-rack and kept counts.  So HiGHS' proven dual bound, rounded outwards, bounds the stage:
a lower bound on the cross-rack partitions, an upper bound on the partitions kept (issue 40).  Its
solution (:class:`Plan`) is what :mod:`optimal.slot_replan` realises into an assignment.

The program
-----------
With those loads every heavy part is alone on a member and every other member carries ``q`` or
``q + 1`` (:func:`optimal.slot_bound.moves_bound`'s docstring).  Parts heavier than ``q / BIG_SHARE``
(*big*) are placed member by member; the lighter ones (*light*) only counted by class and by member
type (members alike in every class's cross-rack count: one rack):

* ``h[k, m]``, binary: heavy part ``k`` alone on member ``m`` (each heavy part on one member, each
  member at most one heavy part; a holder keeps and receives nothing else that weighs anything);
* ``keep[k]``, binary: light part ``k`` stays with its previous owner;
* ``x[k, m]``, binary: big part ``k`` on member ``m`` (kept when ``m`` owned it);
* ``y[c, t]``, integer: light parts of class ``c`` dealt (not kept) to members of type ``t``;
* ``e[m]``, binary: member ``m`` carries ``q + 1`` (``extra`` of them), and ``s[m] >= 0`` what its
  load leaves for light dealt parts: ``kept + big + s[m] = q + e[m]`` on a member without a heavy
  part; the light parts dealt to a type weigh exactly its members' ``s``.

A real assignment gives each variable its count (a light part back on its owner is ``keep``), so
only how a type's light dealt parts split among its members is dropped.  With ``room_floor > 0``
each member's ``s`` is 0 or at least ``room_floor``, and ``holders`` may be fixed: then it is no
longer a relaxation, and its solution is only a plan that is easier to realise (rooms the light
parts can fill exactly); no bound is reported from it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from assignment_oracle.optimal.slot_deal import water_filled

__all__ = ["Group", "Plan", "Rows", "slot_program"]

#: Parts heavier than the shared load ``q`` over this are placed member by member.
BIG_SHARE = 2


@dataclass(frozen=True)
class Plan:
    """The program's outcome: ``bound`` (proven; ``None`` when not a relaxation or none reported) and
    its solution, when ``found``: where the heavy and big parts go, the light parts kept, the members at
    ``q + 1``, and how many light parts of each class each type of member receives."""

    bound: int | None
    found: bool
    light: tuple[int, ...]  # the parts only counted by class (neither heavy nor big)
    holder: dict[int, int] = field(default_factory=dict)  # heavy part -> member
    kept: frozenset[int] = frozenset()  # light parts kept by their owners
    placed: dict[int, int] = field(default_factory=dict)  # big part -> member
    extra_on: frozenset[int] = frozenset()  # members carrying q + 1
    dealt: dict[tuple[int, int], int] = field(default_factory=dict)  # (class, type) -> light parts dealt there


class Group:
    """The group as the program reads it: per part its weight, class and previous owner, the
    classes' cross-rack counts per member, and the water-filled loads; ``fits`` false when the
    program does not apply (a member that may not take a part, a part with several owners or one
    kept in part)."""

    def __init__(self, parts, n: int) -> None:
        self.parts, self.n = parts, n
        count = len(parts.partitions)
        self.count = count
        self.weight = [int(x) for x in parts.load]
        self.owner_of = [-1] * count
        self.cls_of = [0] * count
        self.fits = n >= 2 and count > 0 and all(len(p) == 1 for p in parts.partitions)
        cross = np.zeros((len(parts.classes), n), dtype=np.int64)
        for c, cls in enumerate(parts.classes):
            if len(cls.eligible) != n:
                self.fits = False
                continue
            if cls.cross:
                cross[c] = cls.cross
            for k in cls.parts:
                self.cls_of[k] = c
            for signature, ks in cls.signatures:
                if len(signature) != 1 or signature[0][1] != 1:
                    self.fits = False
                for k in ks:
                    self.owner_of[k] = signature[0][0]
        self.cross = cross
        heavy, _, self.q, self.extra = water_filled(parts.load, n)
        self.heavy = tuple(heavy)
        kinds: dict[bytes, list[int]] = {}
        for m in range(n):
            kinds.setdefault(cross[:, m].tobytes(), []).append(m)
        self.types = tuple(tuple(ms) for ms in kinds.values())
        self.type_of = {m: t for t, ms in enumerate(self.types) for m in ms}
        self.owned_total = sum(1 for o in self.owner_of if o >= 0)

    def cross_of(self, k: int, m: int) -> int:
        return int(self.cross[self.cls_of[k], m])

    def loads_expected(self) -> list[int]:
        normal = self.n - len(self.heavy)
        return sorted(
            [self.weight[k] for k in self.heavy] + [self.q + 1] * self.extra + [self.q] * (normal - self.extra)
        )


class Rows:
    """A mixed-integer program built row by row for SciPy's ``milp`` (HiGHS): each variable's upper
    bound (the lower is 0), integrality and cost, and the constraints as sparse rows."""

    def __init__(self) -> None:
        self.cost: list[float] = []
        self.upper: list[float] = []
        self.integral: list[int] = []
        self.rows: list[int] = []
        self.cols: list[int] = []
        self.data: list[float] = []
        self.low: list[float] = []
        self.high: list[float] = []

    def variable(self, upper: float, *, integer: bool = True, cost: float = 0.0) -> int:
        """A new variable in ``[0, upper]``: its index."""
        self.cost.append(cost)
        self.upper.append(upper)
        self.integral.append(1 if integer else 0)
        return len(self.cost) - 1

    def constraint(self, terms, low: float, high: float) -> None:
        """``low <= sum(a * x[j] for j, a in terms) <= high``."""
        row = len(self.low)
        for j, a in terms:
            self.rows.append(row)
            self.cols.append(j)
            self.data.append(a)
        self.low.append(low)
        self.high.append(high)

    def solve(self, *, time_limit: float | None = None, exact: bool = False):
        """HiGHS' result (SciPy's ``OptimizeResult``: ``x``, ``mip_dual_bound``) within ``time_limit``
        seconds; with ``exact``, no relative gap is tolerated (the dual bound is then the optimum's)."""
        from scipy.optimize import Bounds, LinearConstraint, milp
        from scipy.sparse import coo_array

        options: dict[str, Any] = {"disp": False}
        if exact:
            options["mip_rel_gap"] = 0.0
        if time_limit is not None:
            options["time_limit"] = max(0.05, time_limit)
        matrix = coo_array((self.data, (self.rows, self.cols)), shape=(len(self.low), len(self.cost))).tocsr()
        return milp(
            np.array(self.cost, dtype=np.float64),
            constraints=LinearConstraint(matrix, np.array(self.low), np.array(self.high)),
            integrality=np.array(self.integral),
            bounds=Bounds(np.zeros(len(self.cost)), np.array(self.upper, dtype=np.float64)),
            options=options,
        )


def slot_program(
    group: Group,
    *,
    objective: str,
    kept_floor: int | None = None,
    cross_ceiling: int | None = None,
    per_member_floor: np.ndarray | None = None,
    room_floor: int = 0,
    holders: dict[int, int] | None = None,
    time_limit: float | None = None,
) -> Plan | None:
    """The program (module docstring) for ``objective`` ``"rack"`` (least cross-rack partitions; the
    most kept among those, when ``room_floor`` makes it a plan) or ``"stickiness"`` (most kept),
    solved by HiGHS within ``time_limit`` seconds; ``None`` when the program does not apply."""
    if not group.fits:
        return None
    n, q, weight, owner_of = group.n, group.q, group.weight, group.owner_of
    heavy = group.heavy
    heavy_set = set(heavy)
    bar = q / BIG_SHARE
    big = tuple(k for k in range(group.count) if k not in heavy_set and weight[k] > bar)
    light = tuple(k for k in range(group.count) if k not in heavy_set and weight[k] <= bar)
    relaxation = room_floor == 0 and holders is None
    program = Rows()
    variable, constraint = program.variable, program.constraint
    cross_terms: list[tuple[int, float]] = []
    kept_terms: list[tuple[int, float]] = []
    h = {}
    for k in heavy:
        for m in range(n):
            if holders is not None and holders.get(k) != m:
                continue
            h[k, m] = variable(1)
            cross_terms.append((h[k, m], group.cross_of(k, m)))
            if owner_of[k] == m:
                kept_terms.append((h[k, m], 1))
        constraint([(h[k, m], 1) for m in range(n) if (k, m) in h], 1, 1)
    held = {m: [(h[k, m], 1) for k in heavy if (k, m) in h] for m in range(n)}
    for m in range(n):
        if len(held[m]) > 1:
            constraint(held[m], 0, 1)
    keep = {k: variable(1) for k in light if owner_of[k] >= 0}
    for k, j in keep.items():
        cross_terms.append((j, group.cross_of(k, owner_of[k])))
        kept_terms.append((j, 1))
    x = {(k, m): variable(1) for k in big for m in range(n)}
    for (k, m), j in x.items():
        cross_terms.append((j, group.cross_of(k, m)))
        if owner_of[k] == m:
            kept_terms.append((j, 1))
    for k in big:
        constraint([(x[k, m], 1) for m in range(n)], 1, 1)
    classes: dict[int, list[int]] = {}
    for k in light:
        classes.setdefault(group.cls_of[k], []).append(k)
    y = {}
    for c, ks in classes.items():
        for t, ms in enumerate(group.types):
            y[c, t] = variable(len(ks))
            cross_terms.append((y[c, t], int(group.cross[c, ms[0]])))
        constraint(
            [(y[c, t], 1) for t in range(len(group.types))] + [(keep[k], 1) for k in ks if k in keep], len(ks), len(ks)
        )
    e = {m: variable(1) for m in range(n)}
    s = {m: variable(q + 1, integer=False) for m in range(n)}
    constraint([(e[m], 1) for m in range(n)], group.extra, group.extra)
    carried: dict[int, list[tuple[int, float]]] = {m: [] for m in range(n)}
    for k, j in keep.items():
        carried[owner_of[k]].append((j, weight[k]))
    for (k, m), j in x.items():
        carried[m].append((j, weight[k]))
    for m in range(n):
        # kept + big + s - e + q * (holds a heavy part) = q; a holder carries nothing else
        constraint(carried[m] + [(s[m], 1), (e[m], -1)] + [(j, q) for j, _ in held[m]], q, q)
        if held[m]:
            constraint([(e[m], 1)] + held[m], 0, 1)
            for j, w in carried[m]:
                if w > 0:  # a part that weighs nothing may stay with a holder
                    constraint([(j, 1)] + held[m], 0, 1)
            constraint([(s[m], 1)] + [(j, q + 1) for j, _ in held[m]], 0, q + 1)
        if room_floor > 0:
            z = variable(1)  # m receives light dealt parts: at least room_floor of them
            constraint([(s[m], 1), (z, -(q + 1))], -np.inf, 0)
            constraint([(s[m], 1), (z, -room_floor)], 0, np.inf)
    for t, ms in enumerate(group.types):
        constraint([(y[c, t], weight[ks[0]]) for c, ks in classes.items()] + [(s[m], -1) for m in ms], 0, 0)
    if kept_floor is not None:
        constraint(kept_terms, kept_floor, np.inf)
    if cross_ceiling is not None:
        constraint(cross_terms, -np.inf, cross_ceiling)
    if per_member_floor is not None:
        mine: dict[int, list[tuple[int, float]]] = {m: [] for m in range(n)}
        for k, j in keep.items():
            mine[owner_of[k]].append((j, 1))
        for (k, m), j in x.items():
            if owner_of[k] == m:
                mine[m].append((j, 1))
        for (k, m), j in h.items():
            if owner_of[k] == m:
                mine[m].append((j, 1))
        for m in range(n):
            if int(per_member_floor[m]) > 0:
                constraint(mine[m], int(per_member_floor[m]), np.inf)
    cost = program.cost
    scale = group.owned_total + 1
    if objective == "rack":
        for j, a in cross_terms:
            cost[j] += a if relaxation else scale * a
        if not relaxation:
            for j, a in kept_terms:
                cost[j] -= a
    else:
        for j, a in kept_terms:
            cost[j] -= a
    if time_limit is not None and time_limit <= 0:
        return None
    result = program.solve(time_limit=time_limit, exact=relaxation)
    bound = None
    dual = getattr(result, "mip_dual_bound", None)
    if relaxation and dual is not None and math.isfinite(dual):
        bound = math.ceil(dual - 1e-6) if objective == "rack" else -math.ceil(dual - 1e-6)
    if result.x is None:
        return Plan(bound, False, light)
    value = np.rint(result.x).astype(np.int64)
    return Plan(
        bound,
        True,
        light,
        holder={k: m for (k, m), j in h.items() if value[j] == 1},
        kept=frozenset(k for k, j in keep.items() if value[j] == 1),
        placed={k: m for (k, m), j in x.items() if value[j] == 1},
        extra_on=frozenset(m for m, j in e.items() if value[j] == 1),
        dealt={key: int(value[j]) for key, j in y.items() if value[j] > 0},
    )
