"""An assignment judged against the co-partitioned optimum (join groups, KIP-315's stream joins).

A stream-stream join reads partition ``p`` of both topics in one task, so a
join needs partition ``p`` of every topic of a *join group* on one member
(docs/formats.md, "Join groups").  :func:`judge` says, for any assignment:

* whether it is **co-partitioned**: no unit (partition number ``p`` of a
  group) split between members, none left out, and the assignment valid
  (every partition of a subscribed topic to exactly one subscriber);
* its sorted loads (partition counts) against the co-partitioned optimum's,
  and whether they are equal (``most_balanced``; unknown, ``None``, when the
  optimum's balance tier was not proven);
* the partitions it keeps with their previous owner against the optimum's
  (``stickiest``; unknown when the optimum's stickiness was not proven).

The co-partitioned optimum is the front door's (:func:`optimal.solve`) on the
problem with its join groups and without weights, asked for exactly what the
verdict judges: :data:`REQUEST`, the most balanced loads by decreasing-minimal
order, then the most partitions kept (the staged model, :mod:`optimal.staged`).

It is ``optimal`` when co-partitioned, most balanced and stickiest.  An
assignment that breaks co-partitioning may look *more* balanced than the
co-partitioned optimum: it solved an easier problem, and is judged not
co-partitioned first.  A unit no single member can take (its topics are
subscribed, but by no one member all) is a break in every assignment: it is
counted with the split units, and the optimum is ``INFEASIBLE``.

:func:`co_partition_problem` is the problem an assignor's co-partitioning
claim is judged on: the scenario's own ``join_groups`` if it has any, else,
for KIP-315's stream-join assignor (which co-partitions every topic), one
group of every subscribed topic.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from assignment_oracle.optimal import OPTIMAL, Request, Solution, solve
from assignment_oracle.problem.claims import resolve_claims
from assignment_oracle.problem.metrics import load_vector, retained, sorted_loads
from assignment_oracle.problem.model import BALANCE, STICKINESS, Assignment, Problem
from assignment_oracle.problem.ownership import owner_array

__all__ = [
    "CLAIM_TIME_LIMIT",
    "JUDGE_TIME_LIMIT",
    "REQUEST",
    "CoPartitionVerdict",
    "co_partition_problem",
    "judge",
    "solve_co_partitioned",
]

#: What the co-partitioned optimum is asked for: the tiers the verdict judges, dec-min loads then the most
#: partitions kept (not the scenario's rack or spread tiers, which the verdict does not measure).
REQUEST = Request(objective=(BALANCE, STICKINESS))

#: Seconds the co-partitioned optimum may take when judging (its balance stages are quick; a mixed-size
#: stickiness stage is what can run long, and then the verdict says stickiness is unknown).
JUDGE_TIME_LIMIT = 20.0
#: The same for stream-join-sticky's own claim on a scenario without join groups (every sweep row has
#: one): shorter, so big sweeps keep moving.
CLAIM_TIME_LIMIT = 5.0


def co_partition_problem(problem: Problem, *, every_topic: bool = False) -> Problem | None:
    """The problem co-partitioning is judged on, or None when there is nothing to co-partition.

    The scenario's ``join_groups`` if it has any; with ``every_topic`` (KIP-315's claim) and no groups,
    one group of every subscribed topic (two or more of them; one topic needs no co-partitioning).
    """
    if problem.join_groups:
        return problem
    if not every_topic:
        return None
    topics = tuple(t.name for t in problem.assignable_topics)
    if len(topics) < 2:
        return None
    return dataclasses.replace(problem, join_groups=(topics,))


def solve_co_partitioned(problem: Problem, *, time_limit: float | None = JUDGE_TIME_LIMIT) -> Solution:
    """The co-partitioned optimum on partition counts (dec-min, then stickiest): :func:`optimal.solve` of
    :data:`REQUEST` on ``problem`` with its join groups and its weights set aside (the weighted judge
    has those), proven tier by tier or with what was proven in ``time_limit``; ``INFEASIBLE`` when some
    unit no single member can take."""
    counts = dataclasses.replace(problem, weights=()) if problem.weights else problem
    return solve(counts, REQUEST, time_limit=time_limit)


@dataclass(frozen=True)
class CoPartitionVerdict:
    """One assignment against the co-partitioned optimum (module docstring)."""

    join_groups: tuple[tuple[str, ...], ...]
    valid: bool
    split_units: int
    unassigned: int
    first_break: str
    sorted_loads: tuple[int, ...]
    optimal_sorted_loads: tuple[int, ...] | None
    retained: int
    optimal_retained: int | None
    optimum_status: str
    balance_proven: bool
    stickiness_proven: bool

    @property
    def co_partitioned(self) -> bool:
        return self.valid and self.split_units == 0 and self.unassigned == 0

    @property
    def most_balanced(self) -> bool | None:
        if not self.co_partitioned:
            return False
        if not self.balance_proven or self.optimal_sorted_loads is None:
            return None
        return self.sorted_loads == self.optimal_sorted_loads

    @property
    def stickiest(self) -> bool | None:
        if self.most_balanced is not True:
            return self.most_balanced
        if not self.stickiness_proven or self.optimal_retained is None:
            return None
        return self.retained >= self.optimal_retained

    @property
    def optimal(self) -> bool | None:
        return self.stickiest

    def to_mapping(self) -> dict:
        return {
            "join_groups": [list(g) for g in self.join_groups],
            "co_partitioned": self.co_partitioned,
            "valid": self.valid,
            "split_units": self.split_units,
            "unassigned": self.unassigned,
            "first_break": self.first_break,
            "sorted_loads": list(self.sorted_loads),
            "optimal_sorted_loads": None if self.optimal_sorted_loads is None else list(self.optimal_sorted_loads),
            "most_balanced": self.most_balanced,
            "retained": self.retained,
            "optimal_retained": self.optimal_retained,
            "stickiest": self.stickiest,
            "optimum_status": self.optimum_status,
            "optimal": self.optimal,
        }


def judge(
    problem: Problem,
    assignment: Assignment,
    optimum: Solution | None = None,
    *,
    time_limit: float | None = JUDGE_TIME_LIMIT,
) -> CoPartitionVerdict:
    """``assignment`` against ``optimum``, the co-partitioned optimum of ``problem`` (module docstring).

    Without ``optimum`` it is solved here (within ``time_limit``), unless the assignment itself is proven
    to be it (:func:`_proven_optimal`): then nothing is solved, and the verdict is the one the solved
    optimum would give.
    """
    owner, broken = owner_array(problem, assignment)
    structure = _Structure.of(problem, owner) if not broken else None
    if structure is not None:
        split, unassigned, first = structure.split, 0, structure.first_break
    else:  # an invalid assignment: unit by unit (the holder of a partition given twice is its first)
        split, unassigned, first = _breaks(problem, assignment)
    if broken and not first:
        first = str(broken[0])
    loads = sorted_loads(load_vector(problem, assignment))
    kept = retained(problem, assignment)
    if optimum is None:
        if structure is not None and not split and _proven_optimal(problem, structure, loads, kept):
            return CoPartitionVerdict(
                join_groups=problem.join_groups,
                valid=True,
                split_units=0,
                unassigned=0,
                first_break="",
                sorted_loads=loads,
                optimal_sorted_loads=loads,
                retained=kept,
                optimal_retained=kept,
                optimum_status=OPTIMAL,
                balance_proven=True,
                stickiness_proven=True,
            )
        optimum = solve_co_partitioned(problem, time_limit=time_limit)
    answered = optimum.assignment is not None
    balance = optimum.tier(BALANCE)
    return CoPartitionVerdict(
        join_groups=problem.join_groups,
        valid=not broken,
        split_units=split,
        unassigned=unassigned,
        first_break=first,
        sorted_loads=loads,
        optimal_sorted_loads=optimum.sorted_loads if answered else None,
        retained=kept,
        optimal_retained=optimum.retained if answered else None,
        optimum_status=optimum.status,
        balance_proven=answered and balance is not None and balance.proven,
        stickiness_proven=answered and optimum.status == OPTIMAL,
    )


def _breaks(problem: Problem, assignment: Assignment) -> tuple[int, int, str]:
    """Split units, partitions of units assigned to nobody, and the first break, unit by unit
    (:func:`_units`), for any assignment."""
    owner: dict[tuple[str, int], str] = {}
    for member, topics in assignment.members.items():
        for topic, partitions in topics.items():
            for p in partitions:
                owner.setdefault((topic, p), member)
    split = unassigned = 0
    first = ""
    for unit, takeable in _units(problem):
        if not takeable:
            split += 1
            first = first or _stranded(unit)
            continue
        holders = {owner.get(tp) for tp in unit}
        missing = [tp for tp in unit if tp not in owner]
        if missing:
            unassigned += len(missing)
            first = first or f"{missing[0][0]}-{missing[0][1]} assigned to nobody"
        holders.discard(None)
        if len(holders) > 1:
            split += 1
            if not first:
                placed = [(f"{t}-{p}", owner[(t, p)]) for t, p in unit if (t, p) in owner]
                (a, on_a), (b, on_b) = placed[0], next(x for x in placed if x[1] != placed[0][1])
                first = f"{a} on {on_a}, {b} on {on_b}"
    return split, unassigned, first


def _units(problem: Problem):
    """Each unit (docs/formats.md, "Join groups") whose topics someone subscribes to, as ``(partitions,
    takeable)``: a partition of a topic outside every group, or a group's partitions numbered ``p``;
    ``takeable`` when some member subscribes to every topic of it."""
    counts = problem.partition_counts
    subscribed = {t: frozenset(ms) for t, ms in problem.subscribers.items()}
    grouped = {t for group in problem.join_groups for t in group}
    for topic in problem.topics:
        if topic.name not in grouped and subscribed[topic.name]:
            for p in range(topic.partitions):
                yield [(topic.name, p)], True
    for group in problem.join_groups:
        for p in range(max(counts[t] for t in group)):
            topics = [t for t in group if p < counts[t]]
            if any(subscribed[t] for t in topics):
                yield [(t, p) for t in topics], bool(frozenset.intersection(*(subscribed[t] for t in topics)))


def _stranded(unit) -> str:
    topic, p = unit[0]
    return (
        f"no member subscribes to every topic of the unit of {topic}-{p}'s partition number "
        f"({', '.join(t for t, _ in unit)})"
    )


@dataclass(frozen=True)
class _Structure:
    """The units of :func:`_units` in blocks, for a valid assignment (one owner per partition of a
    subscribed topic, none elsewhere), without a Python object per partition.

    A block is partition numbers ``lo .. hi - 1`` of some topics (one topic outside every group, or the
    group's topics having those numbers): each number one unit of ``len(topics)`` partitions.  Units
    whose topics nobody subscribes to are left out, as there; ``stranded`` counts units subscribed but
    takeable by no single member (each one a break, counted in ``split``: no assignment keeps it on
    one member).  A valid assignment leaves no partition of a takeable unit unassigned (its topics are
    all subscribed), so only splits can break it.
    """

    blocks: tuple[tuple[tuple[int, ...], int, int, tuple[int, ...]], ...]  # (topic indices, lo, hi, eligible)
    stranded: int
    split: int
    first_break: str

    @staticmethod
    def of(problem: Problem, owner: np.ndarray) -> _Structure:
        offsets = problem.partition_offsets
        names = problem.topic_names
        index = {t: i for i, t in enumerate(names)}
        counts = problem.partition_counts
        subscribed = {t: frozenset(ms) for t, ms in problem.subscribers.items()}
        grouped = {t for group in problem.join_groups for t in group}
        ids = problem.member_ids
        blocks: list[tuple[tuple[int, ...], int, int, tuple[int, ...]]] = []
        stranded = split = 0
        first = ""
        for topic in problem.topics:
            if topic.name not in grouped and subscribed[topic.name] and topic.partitions:
                blocks.append(((index[topic.name],), 0, topic.partitions, tuple(sorted(subscribed[topic.name]))))
        for group in problem.join_groups:
            edges = sorted({0, *(counts[t] for t in group)})
            for lo, hi in zip(edges, edges[1:]):
                topics = [t for t in group if counts[t] > lo]  # the group's topics with numbers lo .. hi - 1
                if not any(subscribed[t] for t in topics):
                    continue
                eligible = frozenset.intersection(*{subscribed[t] for t in topics})
                if not eligible:
                    stranded += hi - lo
                    split += hi - lo
                    first = first or _stranded([(t, lo) for t in topics])
                    continue
                rows = np.stack([owner[offsets[index[t]] + lo : offsets[index[t]] + hi] for t in topics])
                broken = np.flatnonzero((rows != rows[0]).any(axis=0))
                if broken.size:
                    split += int(broken.size)
                    if not first:
                        column = int(broken[0])
                        other = int(np.flatnonzero(rows[:, column] != rows[0, column])[0])
                        p = lo + column
                        first = (
                            f"{topics[0]}-{p} on {ids[rows[0, column]]}, "
                            f"{topics[other]}-{p} on {ids[rows[other, column]]}"
                        )
                blocks.append((tuple(index[t] for t in topics), lo, hi, tuple(sorted(eligible))))
        return _Structure(tuple(blocks), stranded, split, first)


def _proven_optimal(problem: Problem, structure: _Structure, loads: tuple[int, ...], kept: int) -> bool:
    """Whether a valid, co-partitioned assignment (its sorted ``loads``, ``kept`` partitions) is itself the
    co-partitioned optimum, proven without solving the co-partitioned model.

    Only with units of one size ``s`` (the usual stream join, and KIP-315's claim on topics of one
    partition count), where loads are ``s`` times unit counts, so the most balanced unit counts are a
    partition-count optimum (the achievable count vectors are M-convex): then

    * balance: the most balanced unit counts are those of the partition problem with one partition per
      unit, subscribed by the unit's eligible members, solved by the flow (proven); when every unit has
      the same eligible members they are the even split, no solve needed;
    * stickiness: no assignment keeps more than the sum over units of the most any eligible member
      would keep of it.

    An assignment as balanced as the first and keeping the second is the optimum, and the optimum's
    values are these: the verdict is the one the solved optimum gives.  Otherwise False (the caller
    solves), also when some unit no single member can take (the optimum is INFEASIBLE).
    """
    if structure.stranded or not structure.blocks:
        return False
    sizes = {len(topics) for topics, _, _, _ in structure.blocks}
    if len(sizes) != 1:
        return False
    (size,) = sizes
    previous = resolve_claims(problem).previous_owner_array
    offsets = problem.partition_offsets
    members = len(problem.members)
    bound = 0
    for topics, lo, hi, eligible in structure.blocks:
        rows = np.stack([previous[offsets[t] + lo : offsets[t] + hi] for t in topics]).astype(np.int64)
        allowed = np.zeros(members + 1, dtype=bool)
        allowed[list(eligible)] = True
        rows = np.where(allowed[rows], rows, -1)  # -1 indexes the last entry: False, stays -1
        if len(topics) == 1:
            bound += int((rows >= 0).sum())
            continue
        same = (rows == rows[0]).all(axis=0)
        bound += int(((rows[0] >= 0) & same).sum()) * len(topics)
        for column in np.flatnonzero(~same).tolist():
            values = rows[:, column]
            values = values[values >= 0]
            if values.size:
                bound += int(np.bincount(values).max())
    if kept != bound:
        return False
    by_eligible: dict[tuple[int, ...], int] = {}
    for _, lo, hi, eligible in structure.blocks:
        by_eligible[eligible] = by_eligible.get(eligible, 0) + hi - lo
    if len(by_eligible) == 1:
        ((eligible, count),) = by_eligible.items()
        q, r = divmod(count, len(eligible))
        counts = [q + 1] * r + [q] * (len(eligible) - r) + [0] * (members - len(eligible))
    else:
        ids = problem.member_ids
        unit_topics = {f"units-{i}": count for i, count in enumerate(by_eligible.values())}
        subscribes: dict[int, list[str]] = {m: [] for m in range(members)}
        for i, eligible in enumerate(by_eligible):
            for m in eligible:
                subscribes[m].append(f"units-{i}")
        virtual = Problem.from_mapping(
            {"topics": unit_topics, "members": {ids[m]: {"topics": subscribes[m]} for m in range(members)}}
        )
        best = solve(virtual)
        if best.status != OPTIMAL or best.assignment is None:
            return False
        counts = list(best.sorted_loads)
    return loads == tuple(sorted((size * c for c in counts), reverse=True))
