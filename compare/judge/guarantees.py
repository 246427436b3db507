"""The guarantee each assignor claims, checked against the oracle, not against the assignor.

Every registered assignor (:data:`heuristics.registry.ASSIGNORS`) names one of
the guarantees below.  A check says whether the guarantee *applies* to the
problem (some promises are conditional, e.g. "when all members subscribe to
the same topics") and whether the assignment *keeps* it, with a one-line
reason when it does not.  A guarantee that does not apply is kept vacuously.

``per-topic-balance`` (range)
    Valid; per topic, the subscribers' shares differ by at most one; topics
    with the same subscribers and partition count are co-partitioned.
``identical-subscriptions-balance`` (roundrobin, fair)
    When every member subscribes to the same topics: valid and most balanced
    (the oracle's sorted loads).
``kafka-balance`` (sticky, sticky-kip54)
    Valid, and Kafka's local balance condition holds
    (:func:`compare.judge.balance.satisfies_kafka_balance_condition`).
``cooperative-kafka-balance`` (cooperative-sticky)
    ``kafka-balance`` on the assignment the group settles on, and the
    cooperative protocol's promise (KIP-429) in every rebalance it took:
    no partition goes to a member that did not hold it while another member
    still holds it (:func:`problem.ownership.cooperative_handoffs`).  What a
    member holds is what it claims, not what claim resolution credits it
    with: a tied, superseded or unsubscribed claim is still being consumed.
    The rebalances are passed as ``rounds``; without them the assignment is
    judged as a single rebalance.
``exact-balance`` (constrained-sticky)
    With identical subscriptions: valid and most balanced per the oracle;
    otherwise (the assignor falls back to sticky) ``kafka-balance``.
``valid`` (an external assignor whose author claims nothing more)
    Valid: every partition of a subscribed topic to exactly one subscriber.
``stream-join`` (stream-join-sticky)
    Partition number ``p`` of every topic goes to one member; exactly the
    numbers below the smallest subscribed topic's count are assigned, to
    members subscribed to the topic, each once; and, as a problem over
    partition numbers (one virtual topic all members subscribe to, claims
    carrying their epochs), the assignment is most balanced and stickiest:
    the oracle solves that problem and the two are compared.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from operator import itemgetter
from types import MappingProxyType
from typing import Callable, Mapping, Sequence

import numpy as np

from assignment_oracle.compare.judge.balance import satisfies_kafka_balance_condition
from assignment_oracle.heuristics import AssignorRun
from assignment_oracle.optimal import solve
from assignment_oracle.problem.metrics import load_vector, retained, sorted_loads
from assignment_oracle.problem.model import Assignment, Problem
from assignment_oracle.problem.ownership import cooperative_handoffs, owner_array, place, violations

__all__ = ["GuaranteeCheck", "GUARANTEES", "check_guarantee", "check_run", "stream_join_numbers_problem"]


@dataclass(frozen=True)
class GuaranteeCheck:
    """Outcome of checking one guarantee on one assignment."""

    guarantee: str
    applies: bool
    kept: bool
    reason: str = ""

    def to_mapping(self) -> dict:
        return {"guarantee": self.guarantee, "applies": self.applies, "kept": self.kept, "reason": self.reason}


def _invalid(problem: Problem, assignment: Assignment) -> str:
    return _reason(violations(problem, assignment))


def _reason(found) -> str:
    return f"not valid: {found[0]}" + (f" (+{len(found) - 1} more)" if len(found) > 1 else "") if found else ""


def _identical(problem: Problem) -> bool:
    return len({m.topics for m in problem.members}) <= 1


def _most_balanced(problem: Problem, assignment: Assignment, best: tuple[int, ...] | None) -> str:
    loads = sorted_loads(load_vector(problem, assignment))
    if best is None:
        best = solve(problem.balance_first_order()).sorted_loads  # whatever the problem's order
    return "" if loads == tuple(best) else f"sorted loads {list(loads)}, most balanced {list(best)}"


def _per_topic_balance(problem: Problem, assignment: Assignment, best=None, rounds=None) -> GuaranteeCheck:
    key = "per-topic-balance"
    owner, found = owner_array(problem, assignment)  # valid: one owner per partition, a subscriber
    if found:
        return GuaranteeCheck(key, True, False, _reason(found))
    offsets = problem.partition_offsets
    index = {name: i for i, name in enumerate(problem.topic_names)}
    members = len(problem.members)

    def owners(topic) -> np.ndarray:
        start = int(offsets[index[topic.name]])
        return owner[start : start + topic.partitions]

    for topic in problem.assignable_topics:
        shares = np.bincount(owners(topic), minlength=members)[list(problem.subscribers[topic.name])].tolist()
        if max(shares) - min(shares) > 1:
            return GuaranteeCheck(
                key, True, False, f"topic {topic.name}: subscriber shares {shares} differ by more than one"
            )
    groups: dict[tuple, list] = {}
    for topic in problem.assignable_topics:
        groups.setdefault((problem.subscribers[topic.name], topic.partitions), []).append(topic)
    for (_, count), topics in groups.items():
        if len(topics) > 1 and count:
            rows = np.stack([owners(t) for t in topics])
            split = np.flatnonzero((rows != rows[0]).any(axis=0))
            if split.size:
                names = [t.name for t in topics]
                return GuaranteeCheck(
                    key, True, False, f"topics {', '.join(names)} not co-partitioned at partition {int(split[0])}"
                )
    return GuaranteeCheck(key, True, True)


def _identical_subscriptions_balance(
    problem: Problem, assignment: Assignment, best=None, rounds=None
) -> GuaranteeCheck:
    key = "identical-subscriptions-balance"
    if not _identical(problem):
        return GuaranteeCheck(key, False, True, "subscriptions differ")
    reason = _invalid(problem, assignment) or _most_balanced(problem, assignment, best)
    return GuaranteeCheck(key, True, not reason, reason)


def _kafka_balance(problem: Problem, assignment: Assignment, best=None, rounds=None) -> GuaranteeCheck:
    key = "kafka-balance"
    if reason := _invalid(problem, assignment):
        return GuaranteeCheck(key, True, False, reason)
    if not satisfies_kafka_balance_condition(problem, assignment):
        return GuaranteeCheck(key, True, False, "a member 2+ lighter than another could take one of its partitions")
    return GuaranteeCheck(key, True, True)


def _claimed(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Every claim on an existing partition as (member index, global partition) rows."""
    members = problem.members
    pairs = list(itertools.chain.from_iterable(m.owned for m in members))
    if not pairs:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    topic_index = {t: i for i, t in enumerate(problem.topic_names)}
    chunks = list(map(itemgetter(1), pairs))
    lengths = np.fromiter(map(len, chunks), dtype=np.int64, count=len(chunks))
    numbers = np.fromiter(itertools.chain.from_iterable(chunks), dtype=np.int64, count=int(lengths.sum()))
    topic = np.repeat(
        np.fromiter(
            map(topic_index.get, map(itemgetter(0), pairs), itertools.repeat(-1)), dtype=np.int64, count=len(pairs)
        ),
        lengths,
    )
    member = np.repeat(np.repeat(np.arange(len(members), dtype=np.int64), [len(m.owned) for m in members]), lengths)
    offsets = problem.partition_offsets
    sizes = np.diff(offsets)
    exists = (topic >= 0) & (numbers >= 0)
    exists[exists] = numbers[exists] < sizes[topic[exists]]
    return member[exists], offsets[topic[exists]] + numbers[exists]


def _surely_no_handoff(problem: Problem, rounds: Sequence[Assignment]) -> bool:
    """True when no rebalance of ``rounds`` hands a partition to a member that did not hold it while
    another did (:func:`problem.ownership.cooperative_handoffs`, vectorised); False when one may (then
    that function finds and names them), also whenever a row names no member or partition of the problem."""
    total = int(problem.partition_offsets[-1])
    held_member, held_partition = _claimed(problem)
    for assignment in rounds:
        placement = place(problem, assignment)
        if not placement.placed.all():
            return False
        member = placement.member.astype(np.int64)
        partition = placement.partition.astype(np.int64)
        held = np.zeros(total, dtype=bool)
        held[held_partition] = True
        new = held[partition]  # given partitions someone held: a handoff unless the member held it
        if new.any():
            if np.bincount(held_partition, minlength=total).max() <= 1:  # one holder each: compare owners
                holder = np.full(total, -1, dtype=np.int64)
                holder[held_partition] = held_member
                if (holder[partition[new]] != member[new]).any():
                    return False
            elif not np.isin(member[new] * total + partition[new], held_member * total + held_partition).all():
                return False
        held_member, held_partition = member, partition  # every member now holds what this round gave it
    return True


def _cooperative_kafka_balance(problem: Problem, assignment: Assignment, best=None, rounds=None) -> GuaranteeCheck:
    key = "cooperative-kafka-balance"
    rounds = (assignment,) if rounds is None else rounds
    handoffs = () if _surely_no_handoff(problem, rounds) else cooperative_handoffs(problem, rounds)
    if handoffs:
        more = f" (+{len(handoffs) - 1} more)" if len(handoffs) > 1 else ""
        return GuaranteeCheck(key, True, False, f"{handoffs[0]}{more}")
    final = _kafka_balance(problem, assignment)
    return GuaranteeCheck(key, True, final.kept, final.reason)


def _exact_balance(problem: Problem, assignment: Assignment, best=None, rounds=None) -> GuaranteeCheck:
    key = "exact-balance"
    if not _identical(problem):
        fallback = _kafka_balance(problem, assignment)
        return GuaranteeCheck(key, True, fallback.kept, fallback.reason or "subscriptions differ: sticky's guarantee")
    reason = _invalid(problem, assignment) or _most_balanced(problem, assignment, best)
    return GuaranteeCheck(key, True, not reason, reason)


def _valid(problem: Problem, assignment: Assignment, best=None, rounds=None) -> GuaranteeCheck:
    reason = _invalid(problem, assignment)
    return GuaranteeCheck("valid", True, not reason, reason)


#: The virtual topic of :func:`stream_join_numbers_problem`.
NUMBERS_TOPIC = "partition-numbers"


def stream_join_numbers_problem(problem: Problem) -> Problem:
    """The stream-join problem over partition numbers, for the oracle.

    One topic with ``n`` partitions (the smallest subscribed topic's count),
    every member subscribed, each member claiming the numbers it owned on any
    topic, with its generation as the epoch.  Claims on numbers ``>= n`` are
    kept in the claim list; the oracle's claim resolution drops them.
    """
    counts = [t.partitions for t in problem.assignable_topics]
    n = min(counts) if counts else 0
    members: dict[str, dict] = {}
    for m in problem.members:
        numbers = sorted({p for _, partitions in m.owned for p in partitions if p >= 0})
        subscribes = n and any(t in problem.partition_counts for t in m.topics)
        entry: dict = {"topics": [NUMBERS_TOPIC] if subscribes else []}
        if numbers:
            entry["owned"] = {NUMBERS_TOPIC: numbers}
        if m.generation is not None:
            entry["generation"] = m.generation
        members[m.member_id] = entry
    topics = {NUMBERS_TOPIC: n} if n else {}
    return Problem.from_mapping({"topics": topics, "members": members})


def _stream_join(problem: Problem, assignment: Assignment, best=None, rounds=None) -> GuaranteeCheck:
    key = "stream-join"
    counts = [t.partitions for t in problem.assignable_topics]
    n = min(counts) if counts else 0
    number_owner: dict[int, str] = {}
    seen: set[tuple[str, int]] = set()
    for member, topics in assignment.members.items():
        subscribed = problem.members[problem.member_index[member]].topics if member in problem.member_index else None
        for topic, partitions in topics.items():
            for p in partitions:
                if subscribed is None or topic not in subscribed or topic not in problem.partition_counts:
                    return GuaranteeCheck(
                        key, True, False, f"{topic}-{p} given to {member}, which does not subscribe to it"
                    )
                if (topic, p) in seen:
                    return GuaranteeCheck(key, True, False, f"{topic}-{p} assigned more than once")
                seen.add((topic, p))
                if p >= n:
                    return GuaranteeCheck(key, True, False, f"{topic}-{p} assigned although only numbers below {n} are")
                if number_owner.setdefault(p, member) != member:
                    return GuaranteeCheck(
                        key, True, False, f"partition {p} split between {number_owner[p]} and {member}"
                    )
    for p, member in number_owner.items():
        wanted = {t for t in problem.members[problem.member_index[member]].topics if t in problem.partition_counts}
        got = {t for t, ps in assignment.members[member].items() if p in ps}
        if wanted != got:
            return GuaranteeCheck(
                key, True, False, f"{member} has partition {p} of {sorted(got)} but subscribes to {sorted(wanted)}"
            )
    if problem.members and len(number_owner) != n:
        missing = sorted(set(range(n)) - set(number_owner))
        return GuaranteeCheck(key, True, False, f"partition numbers {missing[:8]} assigned to nobody")
    numbers = stream_join_numbers_problem(problem)
    as_numbers = Assignment.from_partitions(
        {m: [(NUMBERS_TOPIC, p) for p, owner in number_owner.items() if owner == m] for m in problem.member_ids},
        problem.member_ids,
    )
    best = solve(numbers)
    loads = sorted_loads(load_vector(numbers, as_numbers))
    if loads != tuple(best.sorted_loads):
        return GuaranteeCheck(
            key, True, False, f"partition numbers per member {list(loads)}, most balanced {list(best.sorted_loads)}"
        )
    kept = retained(numbers, as_numbers)
    if kept != best.retained:
        return GuaranteeCheck(
            key, True, False, f"keeps {kept} partition numbers with their owner, the oracle keeps {best.retained}"
        )
    return GuaranteeCheck(key, True, True)


#: Guarantee key -> check.
GUARANTEES: Mapping[str, Callable[..., GuaranteeCheck]] = MappingProxyType(
    {
        "per-topic-balance": _per_topic_balance,
        "identical-subscriptions-balance": _identical_subscriptions_balance,
        "kafka-balance": _kafka_balance,
        "cooperative-kafka-balance": _cooperative_kafka_balance,
        "exact-balance": _exact_balance,
        "stream-join": _stream_join,
        "valid": _valid,
    }
)


def check_guarantee(
    guarantee: str,
    problem: Problem,
    assignment: Assignment,
    *,
    optimal_sorted_loads: tuple[int, ...] | None = None,
    rounds: Sequence[Assignment] | None = None,
) -> GuaranteeCheck:
    """Check ``assignment`` against the named guarantee (see the module docstring).

    ``optimal_sorted_loads``, if given, are the most balanced sorted loads
    of ``problem`` (from a solve already made), so the check need not solve.
    ``rounds``, for a cooperative assignor, are the assignments of every
    rebalance it took, the last being ``assignment``; only
    ``cooperative-kafka-balance`` reads them.
    """
    return GUARANTEES[guarantee](problem, assignment, optimal_sorted_loads, rounds)


def check_run(result: AssignorRun, *, optimal_sorted_loads: tuple[int, ...] | None = None) -> GuaranteeCheck:
    """The guarantee ``result``'s assignor claims, on that run: every rebalance it took, if cooperative."""
    return check_guarantee(
        result.assignor.guarantee,
        result.problem,
        result.assignment,
        optimal_sorted_loads=optimal_sorted_loads,
        rounds=[p.assignment for p in result.phases] or None,
    )
