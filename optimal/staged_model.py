"""The staged engine's CP-SAT model: per class and member, how many of the class's parts it takes.

Guarantee: every assignment of the parts (:mod:`optimal.staged_parts`) is one of the model's
solutions and every solution is an assignment (:mod:`optimal.staged`, "Parts and classes"); each
tier's expression is linear in the counts (squares by a product each), and :meth:`ClassModel.hint`
hints every variable, the auxiliary ones derived from the incumbent, so the hint is complete.  The
budget of moves (KIP-429), in all and per member, is a constraint of the model from the start.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

import numpy as np
from ortools.sat.python import cp_model

from assignment_oracle.optimal.request import Request
from assignment_oracle.optimal.staged_parts import Incumbent, Parts
from assignment_oracle.problem.errors import SolverError
from assignment_oracle.problem.model import Problem

__all__ = ["ClassModel", "OutOfTime"]


class OutOfTime(Exception):
    """The time limit passed before the model was built (the staged run answers with its best start)."""


class ClassModel:
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
                raise OutOfTime
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

    def incumbent(self, values: Mapping[int, int]) -> Incumbent:
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
        return Incumbent(primary, loads, kept, kept_of, cross, held)

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

    def hint(self, incumbent: Incumbent) -> None:
        self.model.clear_hints()
        for var in self.primary:
            self.model.add_hint(var, incumbent.values[var.index])
        for var, value in self.derived:
            self.model.add_hint(var, value(incumbent))
