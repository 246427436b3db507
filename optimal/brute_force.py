"""The third opinion: every valid assignment of a tiny problem, enumerated.

Used by the tests and by sweeps to cross-check the exact models on small
cases.  Nothing here uses the exact models, the aggregated network or the numpy
claim resolution: previous owners are resolved again, per partition, from
the rule as the issue states it, and every assignment is scored directly.

Streams groups (:func:`streams_optimum`): every valid assignment, built from
the rule (each task's active on any member; each stateful task's standbys on
exactly ``min(standby_replicas, processes - 1)`` members of distinct
processes other than the active's), none of :mod:`optimal.streams`' processes,
pooled copies or flows, and each scored by the one measure,
:func:`optimal.streams_request.measure`.

Share groups (:func:`share_optimum`): every subset of the (member, partition)
pairs the rule allows (a subscribed topic, an assignable partition), none of
:mod:`optimal.share`'s classes, hubs, levels or potentials, each scored by
:func:`optimal.share_request.measure` and compared by its tiers' own
definitions (decreasingly minimal vectors, not the model's sums of squares).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Iterable, NamedTuple, Sized

import numpy as np

from assignment_oracle.optimal import share_request
from assignment_oracle.optimal.streams_request import StreamsRequest, better, measure, standbys_wanted
from assignment_oracle.problem.kinds import GroupProblem
from assignment_oracle.problem.model import Problem
from assignment_oracle.problem.share import ShareAssignment
from assignment_oracle.problem.streams import MemberTasks, StreamsAssignment, TaskId
from assignment_oracle.problem.tiers import BALANCE, CONSUMER, RACK, SPREAD, STICKINESS
from assignment_oracle.problem.tiers import pick as for_tier


def previous_owners(problem: Problem) -> dict[tuple[str, int], str]:
    """Partition -> previous owner, by the rule: highest generation wins, a
    tie at the highest means no owner, invalid claims are dropped."""
    counts = {t.name: t.partitions for t in problem.topics}
    claims: dict[tuple[str, int], list[tuple[int, str]]] = {}
    for member in problem.members:
        generation = -1 if member.generation is None else member.generation
        for topic, partitions in member.owned:
            for p in set(partitions):
                if topic in counts and p < counts[topic]:
                    claims.setdefault((topic, p), []).append((generation, member.member_id))
    owners = {}
    for tp, cs in claims.items():
        top = max(g for g, _ in cs)
        winners = [m for g, m in cs if g == top]
        if len(winners) == 1:
            member = next(m for m in problem.members if m.member_id == winners[0])
            if tp[0] in member.topics:
                owners[tp] = winners[0]
    return owners


def is_local(problem: Problem, topic: str, partition: int, member_id: str) -> bool:
    """KIP-881's rule, read off the scenario directly: the member's rack is among the
    partition's replica racks, or either side has no rack information."""
    member = next(m for m in problem.members if m.member_id == member_id)
    racks = next(t.racks for t in problem.topics if t.name == topic)
    return member.rack is None or racks is None or not racks[partition] or member.rack in racks[partition]


@dataclass(frozen=True)
class Enumeration:
    sorted_loads: np.ndarray  # (K, M) every assignment's loads, sorted descending
    loads: np.ndarray  # (K, M) per member, in problem.members order
    retained: np.ndarray  # (K,)
    owned: int
    cross_rack: np.ndarray  # (K,) partitions outside their replicas' racks


def enumerate_assignments(problem: Problem, limit: int = 200_000) -> Enumeration:
    ids = [m.member_id for m in problem.members]
    partitions = _partition_choices(problem, limit)
    size = _enumerable(partitions, limit)
    owners = previous_owners(problem)
    choices = np.array(list(itertools.product(*[e for _, e in partitions])), dtype=np.int64).reshape(
        size, len(partitions)
    )
    loads = (
        np.stack([(choices == i).sum(axis=1) for i in range(len(ids))], axis=1)
        if ids
        else np.zeros((size, 0), dtype=np.int64)
    )
    owner_index = np.array([ids.index(owners[tp]) if tp in owners else -1 for tp, _ in partitions], dtype=np.int64)
    retained = (choices == owner_index).sum(axis=1) if partitions else np.zeros(size, dtype=np.int64)
    remote = np.array(
        [[not is_local(problem, tp[0], tp[1], m) for m in ids] for tp, _ in partitions], dtype=bool
    ).reshape(len(partitions), len(ids))
    cross = remote[np.arange(len(partitions)), choices].sum(axis=1) if partitions else np.zeros(size, np.int64)
    return Enumeration(-np.sort(-loads, axis=1), loads, retained, int((owner_index >= 0).sum()), cross)


@dataclass(frozen=True)
class BruteOptimum:
    sorted_loads: tuple[int, ...]
    retained: int
    owned: int
    cross_rack: int = 0


def optimum(problem: Problem) -> BruteOptimum:
    """The optimum for the problem's objective order, by enumeration: tier by tier, keep the
    assignments best on it (balance: lexicographically least sorted loads; rack: fewest
    cross-rack partitions; stickiness: most kept)."""
    e = enumerate_assignments(problem)
    alive = np.ones(e.retained.size, dtype=bool)
    for tier in problem.objective:
        alive &= for_tier(CONSUMER.kind, tier, _BEST_OF, "the brute force's optimum")(e, alive)
    first = int(np.flatnonzero(alive)[0])
    return BruteOptimum(
        tuple(int(x) for x in e.sorted_loads[first]), int(e.retained[first]), e.owned, int(e.cross_rack[first])
    )


def _least_sorted_loads(e: Enumeration, alive: np.ndarray) -> np.ndarray:
    return (e.sorted_loads == lexicographic_min(e.sorted_loads[alive])).all(axis=1)


#: Per tier, the enumerated assignments best on it among those still alive (:func:`optimum`).
_BEST_OF = {
    BALANCE: _least_sorted_loads,
    RACK: lambda e, alive: e.cross_rack == e.cross_rack[alive].min(),
    STICKINESS: lambda e, alive: e.retained == e.retained[alive].max(),
}


def lexicographic_min(rows: np.ndarray) -> np.ndarray:
    candidates = rows
    for column in range(rows.shape[1]):
        candidates = candidates[candidates[:, column] == candidates[:, column].min()]
    return candidates[0] if len(candidates) else np.zeros(rows.shape[1], dtype=np.int64)


def all_assignments(problem: Problem, limit: int = 512):
    """Every valid assignment as an :class:`Assignment`, with its loads, kept and cross-rack counts."""
    from assignment_oracle.problem.model import Assignment

    ids = [m.member_id for m in problem.members]
    partitions = [(tp, [ids[i] for i in eligible]) for tp, eligible in _partition_choices(problem, limit)]
    owners = previous_owners(problem)
    for choice in itertools.product(*[e for _, e in partitions]):
        members: dict[str, dict[str, list[int]]] = {m: {} for m in ids}
        for ((topic, p), _), member in zip(partitions, choice):
            members[member].setdefault(topic, []).append(p)
        loads = tuple(sum(len(v) for v in members[m].values()) for m in ids)
        kept = sum(owners.get(tp) == member for (tp, _), member in zip(partitions, choice))
        cross = sum(not is_local(problem, tp[0], tp[1], member) for (tp, _), member in zip(partitions, choice))
        yield Assignment({m: {t: tuple(ps) for t, ps in ts.items()} for m, ts in members.items()}), loads, kept, cross


def is_optimal(problem: Problem, loads, kept: int, best: BruteOptimum, cross: int | None = None) -> bool:
    """Whether an assignment with these loads, kept count (and cross-rack count, when the
    objective has the rack tier) is optimal for the objective order."""
    on_loads = tuple(sorted(loads, reverse=True)) == best.sorted_loads
    on_racks = cross is None or "rack" not in problem.objective or cross == best.cross_rack
    return on_loads and kept == best.retained and on_racks


def join_group_optimum(
    problem: Problem, balance: str = "dec-min", limit: int = 200_000
) -> tuple[tuple[int, ...], int] | None:
    """The co-partitioned optimum by enumeration, read off the scenario directly: ``(sorted loads, kept)``
    for the balance definition, or ``None`` if some unit has no member subscribing to all its topics.

    Units, eligibility and the definitions are as in docs/formats.md ("Join groups"), computed here
    again from the topics, subscriptions and :func:`previous_owners` (not from the staged model's
    parts).  With ``weights`` a unit weighs its partitions' weights (read off the scenario's lists,
    1 per partition of an unlisted topic): the weighted co-partitioned optimum.
    """
    ids = [m.member_id for m in problem.members]
    listed = dict(problem.weights)
    counts = {t.name: t.partitions for t in problem.topics}
    grouped = {t for g in problem.join_groups for t in g}
    owners = previous_owners(problem)
    unit_list: list[list[tuple[str, int]]] = [
        [(t.name, p)] for t in problem.topics if t.name not in grouped for p in range(t.partitions)
    ]
    for group in problem.join_groups:
        unit_list += [[(t, p) for t in group if p < counts[t]] for p in range(max(counts[t] for t in group))]
    choices = []
    for unit in unit_list:
        topics = {t for t, _ in unit}
        if not any(t in m.topics for m in problem.members for t in topics):
            continue
        eligible = [i for i, m in enumerate(problem.members) if topics <= m.topics]
        if not eligible:
            return None
        choices.append((unit, eligible))
    _enumerable(choices, limit)
    best_key, best_kept = None, -1
    for pick in itertools.product(*[e for _, e in choices]):
        loads = [0] * len(ids)
        kept = 0
        for (unit, _), m in zip(choices, pick):
            loads[m] += sum(listed[t][p] if t in listed else 1 for t, p in unit)
            kept += sum(1 for tp in unit if owners.get(tp) == ids[m])
        ordered = tuple(sorted(loads, reverse=True))
        squares = sum(x * x for x in loads)
        key = {"dec-min": ordered, "sum-of-squares": (squares,), "max-then-squares": (max(loads, default=0), squares)}[
            balance
        ]
        if best_key is None or key < best_key or (key == best_key and kept > best_kept):
            best_key, best_kept, best_loads = key, kept, ordered
    return (best_loads if best_key is not None else ()), max(best_kept, 0)


def _enumerable(choices: Iterable[tuple[object, Sized]], limit: int) -> int:
    """How many assignments ``choices`` make (each a thing and its ways, the ways multiplied): at most
    ``limit``, else ``ValueError``."""
    size = math.prod(len(ways) for _, ways in choices)
    if size > limit:
        raise ValueError(f"{size} assignments is too many to enumerate")
    return size


def _partition_choices(problem: Problem, limit: int) -> list[tuple[tuple[str, int], list[int]]]:
    """Each partition of a topic some member subscribes to, with the members (indices) subscribing to it, in
    topic then partition order; ``ValueError`` above ``limit`` assignments."""
    choices: list[tuple[tuple[str, int], list[int]]] = []
    for topic in problem.topics:
        eligible = [i for i, m in enumerate(problem.members) if topic.name in m.topics]
        if eligible:
            choices.extend(((topic.name, p), eligible) for p in range(topic.partitions))
    _enumerable(choices, limit)
    return choices


def weighted_optimum(problem: Problem, limit: int = 200_000) -> tuple[tuple[int, ...], int] | None:
    """The weighted optimum by enumeration, read off the scenario directly: ``(sorted weighted loads,
    kept)``, the loads dec-min (sorted largest first, lexicographically smallest), then the most kept.

    A partition's weight is its entry in ``problem.weights`` (1 when its topic is not listed), read
    here from the scenario's lists, not from :attr:`Problem.weight_array`.  With join groups, the
    co-partitioned one (:func:`join_group_optimum` over weights; ``None`` when infeasible).
    """
    if problem.join_groups:
        return join_group_optimum(problem, "dec-min", limit)
    ids = [m.member_id for m in problem.members]
    listed = dict(problem.weights)
    owners = previous_owners(problem)
    choices = [
        ((t, p), listed[t][p] if t in listed else 1, eligible)
        for (t, p), eligible in _partition_choices(problem, limit)
    ]
    best: tuple[tuple[int, ...], int] | None = None
    for pick in itertools.product(*[e for *_, e in choices]):
        loads = [0] * len(ids)
        kept = 0
        for (tp, weight, _), m in zip(choices, pick):
            loads[m] += weight
            kept += owners.get(tp) == ids[m]
        ordered = tuple(sorted(loads, reverse=True))
        if best is None or ordered < best[0] or (ordered == best[0] and kept > best[1]):
            best = (ordered, kept)
    return best if best is not None else (tuple(0 for _ in ids), 0)


def move_limited_optimum(
    problem: Problem, max_moves: int | None = None, max_moves_per_member: int | None = None, limit: int = 200_000
) -> tuple[tuple[int, ...], int] | None:
    """The move-limited optimum by enumeration: ``(sorted partition counts, fewest moves)`` over the
    assignments that move at most ``max_moves`` partitions and take at most ``max_moves_per_member``
    from any member (a move: a partition with a previous owner, by :func:`previous_owners`, that goes
    elsewhere), the counts dec-min first; ``None`` if no assignment is within the limits."""
    ids = [m.member_id for m in problem.members]
    owners = previous_owners(problem)
    choices = _partition_choices(problem, limit)
    best: tuple[tuple[int, ...], int] | None = None
    for pick in itertools.product(*[e for _, e in choices]):
        loads = [0] * len(ids)
        left = dict.fromkeys(ids, 0)
        for (tp, _), m in zip(choices, pick):
            loads[m] += 1
            if tp in owners and owners[tp] != ids[m]:
                left[owners[tp]] += 1
        moved = sum(left.values())
        if max_moves is not None and moved > max_moves:
            continue
        if max_moves_per_member is not None and max(left.values(), default=0) > max_moves_per_member:
            continue
        key = (tuple(sorted(loads, reverse=True)), moved)
        if best is None or key < best:
            best = key
    return best


def topic_spread_optimum(problem: Problem, limit: int = 200_000) -> tuple[tuple[int, ...], int, int]:
    """The (balance, spread, stickiness) optimum by enumeration: ``(sorted counts, sum over topics and
    members of the topic's partitions held squared, kept)``, dec-min first, then the least sum of
    squares, then the most kept (claims by :func:`previous_owners`)."""
    ids = [m.member_id for m in problem.members]
    owners = previous_owners(problem)
    choices = _partition_choices(problem, limit)
    best = None
    for pick in itertools.product(*[e for _, e in choices]):
        loads = [0] * len(ids)
        held: dict[tuple[str, int], int] = {}
        kept = 0
        for ((topic, p), _), m in zip(choices, pick):
            loads[m] += 1
            held[(topic, m)] = held.get((topic, m), 0) + 1
            kept += owners.get((topic, p)) == ids[m]
        key = (tuple(sorted(loads, reverse=True)), sum(x * x for x in held.values()), -kept)
        if best is None or key < best:
            best = key
    if best is None:
        return tuple(0 for _ in ids), 0, 0
    return best[0], best[1], -best[2]


def request_optimum(problem: Problem, request, limit: int = 200_000) -> list | None:
    """The optimum of a :class:`~assignment_oracle.optimal.request.Request` by enumeration: the tier
    values in the request's order (``balance`` in the request's definition: the sorted loads, the sum
    of squares, or ``[largest, sum of squares]``; ``rack``: cross-rack partitions; ``spread``: the sum
    over topics and members of squared counts; ``stickiness``: partitions kept), lexicographically best
    over every assignment of the units (a join group's partitions numbered ``p`` go to one member
    subscribing to all of them) within the move limits; ``None`` when no assignment is (a unit no
    member can take, or limits no assignment keeps).

    Everything is read off the scenario again here (units, previous owners by the rule, locality by
    :func:`is_local`), not from the models' parts, classes or arrays.
    """
    ids = [m.member_id for m in problem.members]
    tiers = request.tiers(problem)
    owners = previous_owners(problem)
    weight = {}
    for topic, topic_weights in problem.weights:
        for p, w in enumerate(topic_weights):
            weight[(topic, p)] = w
    subscribed = {t.name: [i for i, m in enumerate(problem.members) if t.name in m.topics] for t in problem.topics}
    grouped = {t for g in problem.join_groups for t in g}
    units: list[tuple[list[tuple[str, int]], list[int]]] = []
    for topic in problem.topics:
        if topic.name not in grouped and subscribed[topic.name]:
            units.extend(([(topic.name, p)], subscribed[topic.name]) for p in range(topic.partitions))
    counts = {t.name: t.partitions for t in problem.topics}
    for group in problem.join_groups:
        for p in range(max(counts[t] for t in group)):
            topics = [t for t in group if p < counts[t]]
            if not any(subscribed[t] for t in topics):
                continue
            eligible = [i for i in range(len(ids)) if all(i in subscribed[t] for t in topics)]
            if not eligible:
                return None
            units.append(([(t, p) for t in topics], eligible))
    _enumerable(units, limit)
    owned = {ids.index(m): 0 for m in owners.values()}
    for member_id in owners.values():
        owned[ids.index(member_id)] += 1
    local = {
        (tp, i): is_local(problem, tp[0], tp[1], ids[i]) for unit, eligible in units for tp in unit for i in eligible
    }
    readers = [for_tier(CONSUMER.kind, t, _SCORED, "the brute force's request optimum") for t in tiers]
    keys = [CONSUMER.tier(t).key for t in tiers]
    best_key, best_values = None, None
    for choice in itertools.product(*[e for _, e in units]):
        loads = [0] * len(ids)
        kept_by = [0] * len(ids)
        held: dict[tuple[str, int], int] = {}
        cross = 0
        for (unit, _), m in zip(units, choice):
            for tp in unit:
                loads[m] += weight.get(tp, 1)
                held[(tp[0], m)] = held.get((tp[0], m), 0) + 1
                cross += not local[(tp, m)]
                if owners.get(tp) == ids[m]:
                    kept_by[m] += 1
        kept = sum(kept_by)
        moved_from = {o: n - kept_by[o] for o, n in owned.items()}
        if request.max_moves is not None and sum(moved_from.values()) > request.max_moves:
            continue
        if (
            request.max_moves_per_member is not None
            and max(moved_from.values(), default=0) > request.max_moves_per_member
        ):
            continue
        scored = _Scored(loads, held, cross, kept, request.balance)
        values = [read(scored) for read in readers]
        key = [k(v) for k, v in zip(keys, values)]
        if best_key is None or key < best_key:
            best_key, best_values = key, values
    return best_values


class _Scored(NamedTuple):
    """One enumerated assignment's numbers, counted from the scenario (:func:`request_optimum`)."""

    loads: list[int]
    held: dict[tuple[str, int], int]  # (topic, member) -> partitions of the topic it holds
    cross: int
    kept: int
    balance: str  # the request's balance definition


def _squares(loads: list[int]) -> int:
    return sum(x * x for x in loads)


#: The balance tier's value per definition, from the loads.
_BALANCES = {
    "dec-min": lambda loads: sorted(loads, reverse=True),
    "sum-of-squares": _squares,
    "max-then-squares": lambda loads: [max(loads, default=0), _squares(loads)],
}
#: Per tier, its value on one enumerated assignment (:func:`request_optimum`), as the request reports it.
_SCORED = {
    BALANCE: lambda s: _BALANCES[s.balance](s.loads),
    RACK: lambda s: s.cross,
    SPREAD: lambda s: sum(x * x for x in s.held.values()),
    STICKINESS: lambda s: s.kept,
}


# -- Streams groups (KIP-1071) ------------------------------------------------------------


@dataclass(frozen=True)
class StreamsBruteOptimum:
    """The Streams optimum by enumeration: the best tier values (in ``tiers`` order, as
    :meth:`~assignment_oracle.optimal.streams_request.StreamsMeasures.value` reports them), how many valid
    assignments reach them, the first of those enumerated, and how many valid assignments there are."""

    tiers: tuple[str, ...]
    values: list
    optimal_count: int
    assignment: StreamsAssignment
    enumerated: int


def streams_choices(problem: GroupProblem) -> list[tuple[TaskId, list[tuple[str, tuple[str, ...]]]]]:
    """Task -> every way to place its copies, ``(active member, standby members)``, read off the rule: the
    active on any member; a stateful task's standbys every set of exactly
    :func:`~assignment_oracle.optimal.streams_request.standbys_wanted` members on distinct processes, none
    on the active's process (so no task is twice on a process); a stateless task none."""
    wanted = standbys_wanted(problem)
    members = [(m.member_id, m.process_id) for m in problem.members]
    out: list[tuple[TaskId, list[tuple[str, tuple[str, ...]]]]] = []
    for task in problem.tasks:
        stateful = problem.subtopology[task[0]].stateful
        ways: list[tuple[str, tuple[str, ...]]] = []
        for active, active_process in members:
            if not stateful or wanted == 0:
                ways.append((active, ()))
                continue
            others = [(m, p) for m, p in members if p != active_process]
            for chosen in itertools.combinations(others, wanted):
                if len({p for _, p in chosen}) == wanted:
                    ways.append((active, tuple(m for m, _ in chosen)))
        out.append((task, ways))
    return out


def streams_optimum(problem: GroupProblem, request=None, limit: int = 20_000) -> StreamsBruteOptimum | None:
    """The optimum of a :class:`~assignment_oracle.optimal.streams_request.StreamsRequest` (default: Kafka's
    order) on a tiny Streams group by enumeration: every valid assignment that gives every placeable standby
    (:func:`streams_choices`), each measured by :func:`~assignment_oracle.optimal.streams_request.measure`
    and compared tier by tier (:func:`~assignment_oracle.optimal.streams_request.better`); ``None`` when
    there is no valid assignment (tasks and no member).  ``ValueError`` above ``limit`` assignments.
    """
    request = StreamsRequest() if request is None else request
    tiers = request.tiers(problem)
    choices = streams_choices(problem)
    size = _enumerable(choices, limit)
    if size == 0:
        return None
    ids = problem.member_ids
    best: list | None = None
    first: StreamsAssignment | None = None
    count = 0
    for pick in itertools.product(*[ways for _, ways in choices]):
        active: dict[str, list[TaskId]] = {m: [] for m in ids}
        standby: dict[str, list[TaskId]] = {m: [] for m in ids}
        for (task, _), (holder, standbys) in zip(choices, pick):
            active[holder].append(task)
            for m in standbys:
                standby[m].append(task)
        assignment = StreamsAssignment({m: MemberTasks(tuple(active[m]), tuple(standby[m])) for m in ids})
        values = measure(problem, assignment).values(tiers)
        order = -1 if best is None else better(tiers, values, best)
        if order < 0:
            best, first, count = values, assignment, 1
        elif order == 0:
            count += 1
    assert best is not None and first is not None
    return StreamsBruteOptimum(tiers, best, count, first, size)


# -- share groups (KIP-932) ----------------------------------------------------------------


@dataclass(frozen=True)
class ShareBruteOptimum:
    """The share-group optimum by enumeration: the best tier values (in ``tiers`` order, as
    :meth:`~assignment_oracle.optimal.share_request.ShareMeasures.value` reports them), how many assignments
    reach them, the first of those enumerated, and how many assignments there are."""

    tiers: tuple[str, ...]
    values: list
    optimal_count: int
    assignment: ShareAssignment
    enumerated: int


def share_pairs(problem: GroupProblem) -> list[tuple[str, tuple[str, int]]]:
    """Every (member, partition) pair an assignment may hold, read off the rule: a topic the member subscribes
    to, a partition whose share state is initialised; members in the group's order."""
    return [
        (m.member_id, (t, p))
        for m in problem.members
        for t in m.topics
        for p in range(problem.topics[t])
        if problem.is_assignable(t, p)
    ]


def share_optimum(problem: GroupProblem, request=None, limit: int = 1 << 14) -> ShareBruteOptimum:
    """The optimum of a :class:`~assignment_oracle.optimal.share_request.ShareRequest` (default: Kafka's
    order) on a tiny share group by enumeration: every subset of :func:`share_pairs` (each a valid
    assignment: a member holds a pair once), each measured by
    :func:`~assignment_oracle.optimal.share_request.measure` and compared tier by tier
    (:func:`~assignment_oracle.optimal.share_request.better`).  ``ValueError`` above ``limit`` subsets."""
    request = share_request.ShareRequest() if request is None else request
    return share_optima(problem, [request], limit)[0]


def share_optima(problem: GroupProblem, requests, limit: int = 1 << 14) -> list[ShareBruteOptimum]:
    """:func:`share_optimum` for several requests, every subset enumerated and measured once per sharing
    target."""
    pairs = share_pairs(problem)
    size = 1 << len(pairs)
    if size > limit:
        raise ValueError(f"{size} assignments is too many to enumerate")
    measured: dict[str, list[tuple[ShareAssignment, share_request.ShareMeasures]]] = {}
    for sharing in dict.fromkeys(r.sharing for r in requests):
        rows = []
        for mask in range(size):
            held: dict[str, list[tuple[str, int]]] = {m.member_id: [] for m in problem.members}
            for bit, (member, tp) in enumerate(pairs):
                if mask >> bit & 1:
                    held[member].append(tp)
            assignment = ShareAssignment({m: tuple(ps) for m, ps in held.items()})
            probe = share_request.ShareRequest(sharing=sharing)
            rows.append((assignment, share_request.measure(problem, assignment, probe)))
        measured[sharing] = rows
    out = []
    for request in requests:
        tiers = request.tiers(problem)
        best: list | None = None
        first: ShareAssignment | None = None
        count = 0
        for assignment, measures in measured[request.sharing]:
            values = measures.values(tiers, request.balance)
            order = -1 if best is None else share_request.better(tiers, values, best)
            if order < 0:
                best, first, count = values, assignment, 1
            elif order == 0:
                count += 1
        assert best is not None and first is not None
        out.append(ShareBruteOptimum(tiers, best, count, first, size))
    return out
