"""Weighted partitions (lag, bytes/s), exact with CP-SAT: the most balanced weighted loads, then stickiest.

Guarantee: with no time limit the result is optimal: its weighted load vector
is decreasingly minimal (sorted largest first, lexicographically smallest),
each level proven by CP-SAT before the next, then it keeps the most
partitions with their resolved previous owner.  With a time limit a stage
that is not proven ends the solve as ``FEASIBLE`` with that stage's proven
bound; the largest load's bound is always reported (the heaviest partition
and an averaging bound, before CP-SAT tightens it).  The assignors ignore
weights (KIP-54's "as balanced as possible" counts partitions); a lag-aware
custom assignor is what this judges.

Definitions (docs/formats.md, "Weighted partitions")
-------------------------------------------------
A scenario's ``weights`` gives each partition of a topic a whole number;
unlisted topics weigh 1 per partition.  A member's *load* is the sum of its
partitions' weights.  Most balanced is dec-min over loads (the definition
used everywhere here; with unit weights it is the partition-count optimum of
:func:`optimal.solve`, a property the tests check), computed level by level
from the top: with ``C`` members already counted at higher loads, (a) the
next level ``t``: the least ``t`` with at most ``C`` members above it (for the
first level, the largest load: proven at once when a greedy assignment meets
:func:`lower_bound`); (b) the fewest members at ``t`` (at once when the
incumbent has one); both pinned, then the next level, until every member is
counted.  The sorted vector is lexicographically smallest exactly when every
level and count is, from the top.  Then stickiness, with every level pinned
and each load between the dec-min vector's least and largest (implied: the
vector is unique).  Under a time limit the proven levels are kept, the first
unproven one becomes a ceiling (the incumbent's value), and partitions go
back to their previous owners (moves, then swaps) wherever no pin can notice.

With ``join_groups`` the parts assigned are units (:func:`optimal.join_groups.units`:
a partition number of a group goes to one member subscribing to all its
topics), each weighing its partitions together: the co-partitioned weighted
optimum.  Without them every part is one partition.

Model: parts of the same weight and the same eligible members are
interchangeable for balance, so the balance stages count them per member
(``take[c][m]``); the stickiness stage adds a boolean per part and previous
owner who may keep some of it (it goes back to that owner, at most one, or
is one of its class's counted parts).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
from ortools.sat.python import cp_model

from assignment_oracle.optimal.join_groups import units as join_group_units
from assignment_oracle.optimal.solution import FEASIBLE, INFEASIBLE, OPTIMAL
from assignment_oracle.problem.claims import resolve_claims
from assignment_oracle.problem.model import Assignment, Problem

__all__ = ["WeightedSolution", "lower_bound", "solve", "weighted_loads"]


def weighted_loads(problem: Problem, assignment: Assignment) -> dict[str, int]:
    """Each member's weighted load under ``assignment`` (partitions outside the problem weigh nothing)."""
    offsets = problem.partition_offsets
    index = {t: i for i, t in enumerate(problem.topic_names)}
    weights = problem.weight_array
    loads = dict.fromkeys(problem.member_ids, 0)
    for member, topics in assignment.members.items():
        total = 0
        for topic, partitions in topics.items():
            if topic in index:
                count = problem.partition_counts[topic]
                total += sum(int(weights[offsets[index[topic]] + p]) for p in partitions if 0 <= p < count)
        loads[member] = loads.get(member, 0) + total
    return loads


@dataclass(frozen=True)
class _Partitions:
    """What is assigned, as arrays: *parts*, each a partition or, with join groups, a unit of
    co-partitioned partitions (:func:`optimal.join_groups.units`) that goes to one member; per part its
    partitions, weight (theirs summed), eligible members, the eligible previous owners with how many of
    its partitions each would keep (``kept``), and the one keeping the most (``previous``, -1: none);
    the classes of interchangeable parts (same weight, same eligible members); and the parts no single
    member can take (``stranded``: the problem is infeasible)."""

    partitions: list[tuple[tuple[str, int], ...]]
    weight: list[int]
    previous: list[int]
    kept: list[dict[int, int]]
    eligible: list[tuple[int, ...]]
    classes: list[tuple[int, tuple[int, ...], list[int]]]  # (weight, eligible members, part ids)
    stranded: tuple[tuple[str, int], ...] = ()


def _partitions(problem: Problem) -> _Partitions:
    weights = problem.weight_array
    offsets = problem.partition_offsets
    index = {t: i for i, t in enumerate(problem.topic_names)}
    units, stranded = join_group_units(problem)  # one unit per partition without join groups
    partitions, weight, owner, kept, eligible = [], [], [], [], []
    for unit in units:
        partitions.append(unit.partitions)
        weight.append(sum(int(weights[offsets[index[t]] + p]) for t, p in unit.partitions))
        keeps = {m: unit.kept_by(m) for m in sorted(set(unit.previous)) if m in unit.eligible}
        kept.append(keeps)
        owner.append(max(keeps, key=lambda m: (keeps[m], -m)) if keeps else -1)
        eligible.append(unit.eligible)
    grouped: dict[tuple[int, tuple[int, ...]], list[int]] = {}
    for k in range(len(weight)):
        grouped.setdefault((weight[k], eligible[k]), []).append(k)
    classes = [(w, e, ids) for (w, e), ids in sorted(grouped.items())]
    return _Partitions(partitions, weight, owner, kept, eligible, classes, stranded)


def lower_bound(problem: Problem) -> int:
    """A proven lower bound on the largest weighted load: the heaviest partition, and for every set of
    members that is some topic's subscribers (or everyone subscribed to anything), the weight of the
    topics only they subscribe to, shared evenly among them (rounded up)."""
    parts = _partitions(problem)
    if not parts.weight:
        return 0
    bound = max(parts.weight)
    topic_weight: dict[tuple[int, ...], int] = {}
    for k, subscribers in enumerate(parts.eligible):
        topic_weight[subscribers] = topic_weight.get(subscribers, 0) + parts.weight[k]
    sets = {frozenset(s) for s in topic_weight} | {frozenset().union(*topic_weight)}
    for members in sets:
        inside = sum(w for s, w in topic_weight.items() if members.issuperset(s))
        bound = max(bound, -(-inside // len(members)))
    return bound


@dataclass(frozen=True)
class WeightedSolution:
    """What :func:`solve` returns: an assignment, its weighted loads, and stage by stage what was proven."""

    problem: Problem
    status: str
    assignment: Assignment | None
    loads: Mapping[str, int] = field(default_factory=dict)
    stages: tuple[Mapping[str, object], ...] = ()
    lower_bound: int = 0
    wall_time: float = 0.0
    message: str = ""
    #: Seconds from the start when each stage ended (with ``timing`` in :meth:`to_mapping`).
    stage_times: tuple[float, ...] = ()

    @property
    def sorted_loads(self) -> tuple[int, ...]:
        return tuple(sorted(self.loads.values(), reverse=True))

    @property
    def largest(self) -> int:
        return max(self.loads.values(), default=0)

    @property
    def largest_bound(self) -> int:
        """The proven lower bound on the largest load: the largest load itself once its stage is proven,
        else the better of :func:`lower_bound` and CP-SAT's bound when it stopped."""
        first = self.stages[0] if self.stages else {}
        value = first.get("value")
        if first.get("proven") and isinstance(value, int):
            return int(value)
        cpsat = first.get("bound")
        return max(self.lower_bound, int(cpsat)) if isinstance(cpsat, (int, float)) else self.lower_bound

    @property
    def largest_proven(self) -> bool:
        """Whether the largest load is proven least (the first stage), whatever came after."""
        return self.assignment is not None and (self.status == OPTIMAL or (bool(self.stages) and
                                                                          bool(self.stages[0].get("proven"))))

    @property
    def balance_proven(self) -> bool:
        return self.assignment is not None and all(s["proven"] for s in self.stages if s["stage"] != "kept partitions")

    @property
    def retained(self) -> int | None:
        if self.assignment is None:
            return None
        previous = resolve_claims(self.problem).previous_owner
        index = self.problem.member_index
        return sum(1 for m, topics in self.assignment.members.items() for t, ps in topics.items()
                   for p in ps if int(previous[t][p]) == index[m])

    def to_mapping(self, *, timing: bool = False) -> dict:
        out: dict = {
            "status": self.status,
            "method": "cpsat-staged",
            "balance_definition": "dec-min over weighted loads",
            "stages": [dict(s) for s in self.stages],
            "largest_load_lower_bound": self.largest_bound,
            "message": self.message,
            "certificate": None,
        }
        if self.assignment is not None:
            out.update(assignment=self.assignment.to_mapping(self.problem.member_ids), loads=dict(self.loads),
                       sorted_loads=list(self.sorted_loads), retained=self.retained,
                       owned=resolve_claims(self.problem).owned_count)
        if timing:
            out["wall_time_s"] = round(self.wall_time, 6)
            out["stage_times_s"] = [round(t, 6) for t in self.stage_times]
        return out


class _Model:
    """``take[c][m]``: parts of class ``c`` member ``m`` gets; with ``sticky``, ``back[k][m]``: part ``k``
    goes back to ``m``, one of its previous owners (then it is not among its class's counted ones)."""

    def __init__(self, members: int, parts: _Partitions, *, sticky: bool) -> None:
        self.parts = parts
        self.model = cp_model.CpModel()
        self.take: list[dict[int, cp_model.IntVar]] = []
        self.back: dict[int, dict[int, cp_model.IntVar]] = {}
        kept_terms = []
        terms: list[list] = [[] for _ in range(members)]
        capacity = [0] * members
        for c, (weight, eligible, ids) in enumerate(parts.classes):
            chosen = {m: self.model.new_int_var(0, len(ids), f"take[{c},{m}]") for m in eligible}
            returned = []
            if sticky:
                for k in ids:
                    if parts.kept[k]:
                        back = {m: self.model.new_bool_var(f"back[{k},{m}]") for m in parts.kept[k]}
                        if len(back) > 1:
                            self.model.add_at_most_one(back.values())
                        self.back[k] = back
                        for m, var in back.items():
                            terms[m].append((weight, var))
                            kept_terms.append((parts.kept[k][m], var))
                            returned.append(var)
            self.model.add(sum(chosen.values()) + sum(returned) == len(ids))
            self.take.append(chosen)
            for m, var in chosen.items():
                terms[m].append((weight, var))
                capacity[m] += weight * len(ids)
        self.load = [self.model.new_int_var(0, capacity[m], f"load[{m}]") for m in range(members)]
        for m in range(members):
            self.model.add(self.load[m] == sum(w * var for w, var in terms[m]))
        self.largest = self.model.new_int_var(0, max(capacity, default=0), "largest")
        largest_of: list[cp_model.LinearExprT] = list(self.load) if self.load else [0]
        self.model.add_max_equality(self.largest, largest_of)
        self.kept = sum(k * var for k, var in kept_terms) if kept_terms else 0
        self.flags: list[tuple[cp_model.IntVar, int, int]] = []  # (load[m] >= level, m, level), by at_least

    def at_least(self, level: int) -> list:
        flags = []
        for m, load in enumerate(self.load):
            flag = self.model.new_bool_var(f"load[{m}]>={level}")
            self.model.add(load >= level).only_enforce_if(flag)
            self.model.add(load <= level - 1).only_enforce_if(~flag)
            flags.append(flag)
            self.flags.append((flag, m, level))
        return flags

    def pin(self, level: int, above: int, at_or_above: int) -> None:
        """At most ``above`` members above ``level``, at most ``at_or_above`` at it or above."""
        self.model.add(sum(self.at_least(level + 1)) <= above)
        self.model.add(sum(self.at_least(level)) <= at_or_above)

    def variables(self):
        yield from (var for chosen in self.take for var in chosen.values())
        yield from (var for back in self.back.values() for var in back.values())

    def hint(self, owner: list[int]) -> dict:
        values = {}
        for (_, _, ids), chosen in zip(self.parts.classes, self.take):
            counted = dict.fromkeys(chosen, 0)
            for k in ids:
                back = self.back.get(k, {})
                for m, var in back.items():
                    values[var] = int(owner[k] == m)
                if owner[k] not in back:
                    counted[owner[k]] += 1
            values.update((var, counted[m]) for m, var in chosen.items())
        # The loads and the largest too: a complete hint is checked and taken as the first solution before
        # presolve, which on 2,000 partitions of distinct weights (a boolean per partition and member)
        # takes most of a stage's time; an incomplete one waits for the search to complete it.
        loads = [0] * len(self.load)
        for k, m in enumerate(owner):
            loads[m] += self.parts.weight[k]
        values.update((var, loads[m]) for m, var in enumerate(self.load))
        values[self.largest] = max(loads, default=0)
        values.update((flag, int(loads[m] >= level)) for flag, m, level in self.flags)
        return values

    def owners(self, values: Mapping) -> list[int]:
        """Per-part owners: parts that go back first, then each class's counted ones dealt by the counts,
        previous owners first (same weight: the loads are the same, more stay)."""
        owner = [-1] * len(self.parts.weight)
        for (_, _, ids), chosen in zip(self.parts.classes, self.take):
            quota = {m: int(values[var]) for m, var in chosen.items()}
            rest = []
            for k in ids:
                back = [m for m, var in self.back.get(k, {}).items() if values[var]]
                if back:
                    owner[k] = back[0]
                elif quota.get(self.parts.previous[k], 0) > 0:
                    owner[k] = self.parts.previous[k]
                    quota[owner[k]] -= 1
                else:
                    rest.append(k)
            dealt = iter(rest)
            for m in sorted(quota):
                for _ in range(quota[m]):
                    owner[next(dealt)] = m
        if -1 in owner:
            raise RuntimeError("the model's counts left a part without an owner (a bug)")
        return owner


def _greedy(members: int, parts: _Partitions, cap: int | None = None) -> list[int]:
    """Heaviest first to the least loaded subscriber (its previous owner among the least loaded first),
    then moves off the most loaded member while they lower it: an upper bound and the first hint.

    With ``cap``, partitions first go back to their previous owner while it stays at or under ``cap``
    (heaviest first), and only the rest is dealt: as light a busiest member, keeping many more.
    """
    loads = [0] * members
    owner = [-1] * len(parts.weight)
    order = sorted(range(len(parts.weight)), key=lambda k: (-parts.weight[k], k))
    if cap is not None:
        for k in order:
            o = parts.previous[k]
            if o >= 0 and o in parts.eligible[k] and loads[o] + parts.weight[k] <= cap:
                owner[k] = o
                loads[o] += parts.weight[k]
    for k in order:
        if owner[k] >= 0:
            continue
        m = min(parts.eligible[k], key=lambda m: (loads[m], m != parts.previous[k], m))
        owner[k] = m
        loads[m] += parts.weight[k]
    held: list[list[int]] = [[] for _ in range(members)]
    for k, m in enumerate(owner):
        held[m].append(k)
    for _ in range(4 * len(parts.weight)):
        top = max(range(members), key=lambda m: (loads[m], -m))
        best = None
        for k in held[top]:
            for m in parts.eligible[k]:
                if m != top and loads[m] + parts.weight[k] < loads[top]:
                    after = max(loads[m] + parts.weight[k], loads[top] - parts.weight[k])
                    if best is None or after < best[0]:
                        best = (after, k, m)
        if best is None:
            break
        _, k, m = best
        held[top].remove(k)
        held[m].append(k)
        loads[top] -= parts.weight[k]
        loads[m] += parts.weight[k]
        owner[k] = m
    return owner


def _give_back(owner: list[int], parts: _Partitions, loads: np.ndarray, ceiling: int) -> list[int]:
    """``owner`` with parts moved back to their previous owner while its load stays <= ``ceiling``; then
    swaps: a part back to its previous owner ``o`` for one of ``o``'s parts that ``o`` keeps less of,
    both members ending <= ``ceiling`` (every proven level lies above it, so no pin can notice)."""
    owner = list(owner)
    loads = loads.copy()
    order = sorted(range(len(owner)), key=lambda k: (-parts.weight[k], k))
    for k in order:
        o = parts.previous[k]
        if o >= 0 and o != owner[k] and loads[o] + parts.weight[k] <= ceiling:
            loads[owner[k]] -= parts.weight[k]
            loads[o] += parts.weight[k]
            owner[k] = o
    held: list[set[int]] = [set() for _ in range(len(loads))]
    for k, m in enumerate(owner):
        held[m].add(k)
    for k in order:
        o, a = parts.previous[k], owner[k]
        if o < 0 or o == a or loads[a] > ceiling:
            continue
        gain = parts.kept[k][o] - parts.kept[k].get(a, 0)
        for j in sorted(held[o]):
            if a not in parts.eligible[j]:
                continue
            loss = parts.kept[j].get(o, 0) - parts.kept[j].get(a, 0)
            o_after = loads[o] - parts.weight[j] + parts.weight[k]
            a_after = loads[a] - parts.weight[k] + parts.weight[j]
            if loss < gain and o_after <= ceiling and a_after <= ceiling:
                owner[k], owner[j] = o, a
                held[a].remove(k)
                held[o].remove(j)
                held[o].add(k)
                held[a].add(j)
                loads[o], loads[a] = o_after, a_after
                break
    return owner


def solve(problem: Problem, *, time_limit: float | None = None, workers: int = 1) -> WeightedSolution:
    """The dec-min weighted loads, then the most partitions kept (module docstring)."""
    started = time.perf_counter()
    deadline = None if time_limit is None else started + time_limit
    members = len(problem.members)
    parts = _partitions(problem)
    bound = lower_bound(problem)
    stages: list[dict] = []
    times: list[float] = []  # seconds from the start when each stage ended

    def result(owner: list[int], status: str, message: str = "") -> WeightedSolution:
        assignment: dict[str, list[tuple[str, int]]] = {mid: [] for mid in problem.member_ids}
        loads = dict.fromkeys(problem.member_ids, 0)
        for k, m in enumerate(owner):
            assignment[problem.member_ids[m]].extend(parts.partitions[k])
            loads[problem.member_ids[m]] += parts.weight[k]
        return WeightedSolution(problem, status, Assignment.from_partitions(assignment, problem.member_ids), loads,
                                tuple(stages), bound, time.perf_counter() - started, message, tuple(times))

    if parts.stranded:
        topic, p = parts.stranded[0]
        return WeightedSolution(problem, INFEASIBLE, None, {}, (), bound, time.perf_counter() - started,
                                f"no member subscribes to every topic of the unit of {topic}-{p}'s partition number "
                                f"({len(parts.stranded)} such unit(s))")
    if not parts.weight:
        return result([], OPTIMAL)

    def run(state: _Model, name: str, expression, hint: Mapping | None, sense: str = "min", portfolio: bool = False,
            share: float = 1.0):
        """One stage: optimise, record (with its time), return (values, proven).  ``share``: of the time left."""
        remaining = None if deadline is None else share * max(0.0, deadline - time.perf_counter())
        (state.model.minimize if sense == "min" else state.model.maximize)(expression)
        state.model.clear_hints()
        for var, value in (hint or {}).items():
            state.model.add_hint(var, value)
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = max(workers, 2) if portfolio else workers
        solver.parameters.interleave_search = portfolio or workers > 1
        solver.parameters.random_seed = 0
        if portfolio:
            solver.parameters.linearization_level = 2
        if remaining is not None:
            solver.parameters.max_time_in_seconds = remaining
        code = solver.solve(state.model)
        times.append(time.perf_counter() - started)
        if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            stages.append({"stage": name, "status": solver.status_name(code), "proven": False,
                           "bound": solver.best_objective_bound})
            return None, False
        bound_value = solver.best_objective_bound
        stage = {"stage": name, "value": round(solver.objective_value), "proven": code == cp_model.OPTIMAL,
                 "bound": int(-(-bound_value // 1)) if sense == "min" else int(bound_value // 1)}
        stages.append(stage)
        return {var: solver.value(var) for var in state.variables()}, code == cp_model.OPTIMAL

    balance = _Model(members, parts, sticky=False)
    owner = _greedy(members, parts)
    total = sum(parts.weight)
    largest = int(np.bincount(owner, weights=parts.weight, minlength=members).max())
    stickier = _greedy(members, parts, cap=largest)
    if np.bincount(stickier, weights=parts.weight, minlength=members).max() <= largest:
        owner = stickier  # as light a busiest member, more partitions kept: the better start
    # Booleans the level stages add, with what each means, so every hint is complete: (var, member,
    # level, strict) is ``load[member] > level`` if strict else ``load[member] >= level``; a level is a
    # number, or None for the stage's own variable ``t`` (hinted with the incumbent's value).
    flags: list[tuple[object, int, int | None, bool]] = []
    pins: list[tuple[int, int, int]] = []  # (level, members above it, members at it or above)

    def loads_of(owner: list[int]) -> np.ndarray:
        return np.bincount(owner, weights=parts.weight, minlength=members).astype(np.int64)

    def hint(owner: list[int], t=None, t_value: int = 0) -> dict:
        values = balance.hint(owner)
        loads = loads_of(owner)
        for var, m, level, strict in flags:
            level = t_value if level is None else level
            values[var] = int(loads[m] > level) if strict else int(loads[m] >= level)
        values[balance.largest] = int(loads.max())
        if t is not None:
            values[t] = t_value
        return values

    def reify(m: int, level, strict: bool, name: str):
        var = balance.model.new_bool_var(name)
        load = balance.load[m]
        if strict:
            balance.model.add(load >= level + 1).only_enforce_if(var)
            balance.model.add(load <= level).only_enforce_if(~var)
        else:
            balance.model.add(load >= level).only_enforce_if(var)
            balance.model.add(load <= level - 1).only_enforce_if(~var)
        flags.append((var, m, None if not isinstance(level, int) else level, strict))
        return var

    counted, j = 0, 0
    unproven = ""
    while counted < members:
        j += 1
        ordered = np.sort(loads_of(owner))[::-1]
        if ordered[counted] == 0:
            # The incumbent's remaining members carry nothing: no load can be lower, so it is the level.
            stages.append({"stage": f"load level {j}", "value": {"load": 0, "members": members - counted},
                           "proven": True, "bound": {"load": 0, "members": members - counted}})
            times.append(time.perf_counter() - started)
            pins.append((0, counted, members))
            break
        # (a) The next level: the least t with at most `counted` members above it.
        if j == 1 and int(ordered[0]) == bound:
            level = bound  # the greedy assignment meets the proven lower bound: nothing to search
            balance.model.add(balance.largest <= level)
            stages.append({"stage": "largest load", "value": level, "proven": True, "bound": bound,
                           "proof": "meets the lower bound (heaviest partition, or weight shared evenly)"})
            times.append(time.perf_counter() - started)
        else:
            if j == 1:
                t, name = balance.largest, "largest load"
                balance.model.add(t >= bound)
            else:
                t, name = balance.model.new_int_var(0, total, f"t{j}"), f"load level {j}"
                above = [reify(m, t, True, f"above[{j},{m}]") for m in range(members)]
                balance.model.add(sum(above) <= counted)
            found, proven = run(balance, name, t, hint(owner, t, int(ordered[counted])), share=0.5 if j > 1 else 1.0)
            if found is not None:
                owner = balance.owners(found)
            if not proven:
                unproven = f"{name}: not proven in time"
                # The stickiness stage keeps what was proven and the incumbent's level as a ceiling.
                pins.append((int(np.sort(loads_of(owner))[::-1][counted]), counted, members))
                break
            level = int(stages[-1]["value"])
            balance.model.add(t == level)
            if j == 1:
                bound = level
        flags[:] = [(v, m, level if lv is None else lv, strict) for v, m, lv, strict in flags]  # t is fixed now
        # (b) The fewest members at the level (those above it are the `counted` ones).
        at = [reify(m, level, False, f"at[{j},{m}]") for m in range(members)]
        incumbent = int((loads_of(owner) >= level).sum())
        if incumbent == counted + 1:
            cumulative = incumbent  # some member is at the level: one more is the least there can be
            stages.append({"stage": f"members at load {level}", "value": 1, "proven": True, "bound": 1})
            times.append(time.perf_counter() - started)
        else:
            found, proven = run(balance, f"members at load {level}", sum(at), hint(owner), share=0.5)
            if found is not None:
                owner = balance.owners(found)
            if not proven:
                unproven = f"the members at load {level}: not proven fewest in time"
                pins.append((level, counted, int((loads_of(owner) >= level).sum())))
                break
            cumulative = int(stages[-1]["value"])
            stages[-1].update(value=cumulative - counted, bound=cumulative - counted)
        balance.model.add(sum(at) <= cumulative)
        pins.append((level, counted, cumulative))
        counted = cumulative
    balanced = owner
    if unproven:
        # Give partitions back to their previous owners where no pin can notice: the owner stays below
        # every proven level and at or under the incumbent's unproven one (a stickier start, and the
        # answer if the stickiness stage finds nothing in the time left).
        ceiling = min(min(level for level, *_ in pins[:-1]) - 1 if pins[:-1] else pins[-1][0], pins[-1][0])
        if unproven.startswith("the members at load"):  # that level is proven: nobody may rise to it
            ceiling = min(ceiling, pins[-1][0] - 1)
        balanced = _give_back(owner, parts, loads_of(owner), ceiling)
    if not any(parts.kept):
        stages.append({"stage": "kept partitions", "value": 0, "proven": True, "bound": 0})
        times.append(time.perf_counter() - started)
        return result(balanced, FEASIBLE if unproven else OPTIMAL, unproven)
    sticky = _Model(members, parts, sticky=True)
    for level, above_level, at_or_above in pins:
        sticky.pin(level, above_level, at_or_above)
    if not unproven:
        # The dec-min vector is unique: every load lies between its least and largest (linear, where the
        # level pins are not; the relaxation is what proves this stage).
        loads = loads_of(balanced)
        for load in sticky.load:
            sticky.model.add_linear_constraint(load, int(loads.min()), int(loads.max()))
    found, proven = run(sticky, "kept partitions", sticky.kept, sticky.hint(balanced), sense="max", portfolio=True)
    if found is None:
        return result(balanced, FEASIBLE, unproven or "no stickier assignment found in time; the balanced one is given")
    owner = sticky.owners(found)
    stages[-1]["value"] = sum(parts.kept[k].get(m, 0) for k, m in enumerate(owner))
    if unproven:  # kept as many as it could within what was proven and the incumbent's level
        return result(owner, FEASIBLE, unproven + "; stickiness within the proven levels")
    return result(owner, OPTIMAL if proven else FEASIBLE, "" if proven else "stickiness was not proven maximal in time")
