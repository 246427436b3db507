"""Kafka's CooperativeStickyAssignor (KIP-429, ``cooperative-sticky``).

Guarantee claimed: the same target as the StickyAssignor (as balanced as
possible in Kafka's sense, then as sticky as possible; see
:mod:`heuristics.sticky`), reached *incrementally*: no partition is ever
consumed by two members at once, because a partition that changes owner is
first revoked by every member that still holds it and only assigned in a
follow-up rebalance.  Members keep consuming everything that does not move.

Algorithm (KIP-429, "Incremental Cooperative Rebalancing"; the port follows
``CooperativeStickyAssignor.assign`` and ``computePartitionsTransferringOwnership``
in apache/kafka at 4.0.0-SNAPSHOT, commit 1eb7644; the general path has
used this rule since KIP-429 shipped in Kafka 2.4):

1. compute the sticky target from the members' owned partitions and
   generations (:func:`heuristics.sticky.assign`, which resolves claims per
   partition: :func:`problem.claims.resolve_claims`);
2. *first rebalance*: a partition the target gives to a member that does not
   hold it, while some other member does hold it, is *withheld*: left out of
   this assignment.  "Holds" means "claims", whatever claim resolution
   decided (:func:`problem.ownership.held_partitions`): a member whose claim
   was tied, superseded by a newer generation, or is on a topic it no
   longer subscribes to is still consuming that partition, and stops only
   when its new assignment leaves the partition out.  Each member *revokes*
   everything it holds and is not given;
3. every member that revoked something rejoins, so a *follow-up rebalance*
   runs with each member holding exactly what the previous one gave it, at
   the next generation; withheld partitions are held by nobody now and go
   to their target owner.  Repeat while a rebalance revokes anything (the
   rule Kafka's ``ConsumerCoordinator`` follows: revoked partitions trigger
   a rejoin); :attr:`CooperativeRebalance.rebalances` counts the rounds.

Before this rule the port withheld only partitions whose *resolved* previous
owner lost them, so a partition claimed by two members at the same
generation, or by a member that unsubscribed from its topic, went to a new
owner in the very rebalance in which its holders still consumed it (the
defect KAFKA-14639 fixed in Kafka's constrained path, Kafka 3.4.1/3.5.0).
:func:`problem.ownership.cooperative_handoffs` is the independent check.

Departures from Kafka: the target always comes from the general sticky
algorithm, also when all subscriptions are equal (Kafka then runs its
constrained path, :mod:`heuristics.constrained_sticky`), so tie-breaks
among equally good targets can differ from Kafka's; and
:data:`MAX_REBALANCES` bounds the follow-ups (Kafka has no bound).

Java's order (``iteration_order="java"``): each rebalance's target is Kafka
2.4.1's ``AbstractStickyAssignor.assign`` as its ``CooperativeStickyAssignor``
runs it (:func:`heuristics.sticky_kafka.assign` with release 2.4.1), every
hash order Java's: claims come from ``ownedPartitions`` with no generation
(2.4.1's ``memberData``), so generations are not read and, of members
claiming one partition, the last one the ``subscriptions`` map iterates keeps
it; the first ``performReassignments`` pass over the newly assigned
partitions (2.4's, when no revocation is required) is Kafka's too.  What is
withheld and revoked does not depend on any order (``adjustAssignment``).
Measured against Kafka 2.4.1 by ``tools/kafka_differential/legacy.py``: the
first rebalance equals Kafka's ``assign`` in 5,000 of 5,000 random scenarios
(seeds 0 and 1), against 68.6% in the sorted order.  Remaining departures:
those of :func:`heuristics.sticky.assign` in Java's order (a previous owner
cannot occur without generations), and :data:`MAX_REBALANCES`.

:func:`rebalance` returns every phase; :func:`assign` the assignment the
group settles on.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial
from typing import Callable, Mapping

import numpy as np

from assignment_oracle.heuristics import sticky, sticky_kafka
from assignment_oracle.heuristics.java_order import check_iteration_order
from assignment_oracle.problem.errors import AssignorDidNotFinish
from assignment_oracle.problem.model import Assignment, Problem, entry_columns
from assignment_oracle.problem.ownership import held_partitions

__all__ = ["assign", "rebalance", "CooperativeRebalance", "Phase", "MAX_REBALANCES"]

#: Follow-up rebalances allowed before giving up (Kafka has no bound; two suffice in practice).
MAX_REBALANCES = 10


@dataclass(frozen=True)
class Phase:
    """One rebalance of the cooperative protocol.

    ``assignment`` is what members get in this rebalance; ``revoked`` maps a
    member to the partitions it held before and must give up now;
    ``withheld`` maps a member to the partitions the target gives it but
    another member still held, so they wait for a follow-up rebalance.
    """

    assignment: Assignment
    revoked: Assignment
    withheld: Assignment = field(default_factory=Assignment)


@dataclass(frozen=True)
class CooperativeRebalance:
    """All rebalances until the group settles; ``final`` is the last assignment."""

    phases: tuple[Phase, ...]

    @property
    def first(self) -> Assignment:
        return self.phases[0].assignment

    @property
    def revoked(self) -> Assignment:
        """What the first rebalance revokes."""
        return self.phases[0].revoked

    @property
    def final(self) -> Assignment:
        return self.phases[-1].assignment

    @property
    def rebalances(self) -> int:
        """Rebalances needed: 1 when nothing moves, 2 for the usual revoke-then-assign."""
        return len(self.phases)


def rebalance(
    problem: Problem,
    *,
    max_rebalances: int = MAX_REBALANCES,
    target: Callable[[Problem], Assignment] | None = None,
    holdings: Callable[[Problem], Mapping[str, frozenset[tuple[str, int]]]] = held_partitions,
    iteration_order: str = "sorted",
    literal: bool = False,
) -> CooperativeRebalance:
    """Run the cooperative protocol to the end; every phase is returned.

    ``iteration_order``: ``"sorted"`` (default; target :func:`heuristics.sticky.assign`) or ``"java"``
    (target Kafka 2.4.1's code in Java's order, module docstring); ``target`` overrides either.
    ``literal``: in Java's order, Kafka's exceptions are raised rather than answered around.

    ``target`` is the eager assignment each rebalance aims for, ``holdings``
    what the assignor takes each member to hold when it decides what to
    withhold (members revoke what they really hold, whatever it takes).  The defaults are this module's algorithm (every claim is
    held, as in Kafka today); the bug corpus passes older rules to replay
    what they did (:data:`compare.scenarios.bugs.COOPERATIVE_CONSTRAINED_34`).

    Examples
    --------
    A third member joins two that own everything: ``a``'s t-0 (the first
    partition of the most loaded member in sticky's round-robin listing) is
    revoked first and handed to ``c`` in the follow-up rebalance.

    >>> from assignment_oracle.problem import Problem
    >>> p = Problem.from_mapping({"topics": {"t": 3}, "members": {
    ...     "a": {"topics": ["t"], "owned": {"t": [0, 1]}, "generation": 1},
    ...     "b": {"topics": ["t"], "owned": {"t": [2]}, "generation": 1},
    ...     "c": {"topics": ["t"]}}})
    >>> r = rebalance(p)
    >>> r.first.to_mapping(), r.revoked.to_mapping(), r.rebalances
    ({'a': {'t': [1]}, 'b': {'t': [2]}, 'c': {}}, {'a': {'t': [0]}}, 2)
    >>> r.final.to_mapping()
    {'a': {'t': [1]}, 'b': {'t': [2]}, 'c': {'t': [0]}}
    """
    check_iteration_order(iteration_order)
    if target is None:
        target = sticky.assign if iteration_order == "sorted" else partial(_kafka_2_4_target, literal=literal)
    phases: list[Phase] = []
    current = problem
    for _ in range(max_rebalances):
        phase = _one_rebalance(current, target, holdings)
        phases.append(phase)
        if not phase.revoked.members:
            return CooperativeRebalance(tuple(phases))
        current = _rejoin(current, phase.assignment)
    raise AssignorDidNotFinish(f"cooperative-sticky: still revoking partitions after {max_rebalances} rebalances")


def assign(problem: Problem, *, iteration_order: str = "sorted", literal: bool = False) -> Assignment:
    """The assignment the group settles on after the follow-up rebalance(s)."""
    return rebalance(problem, iteration_order=iteration_order, literal=literal).final


def _kafka_2_4_target(problem: Problem, *, literal: bool = False) -> Assignment:
    """Java's order: ``AbstractStickyAssignor.assign`` as Kafka 2.4.1 runs it under the cooperative assignor."""
    return sticky_kafka.assign(problem, "2.4.1", literal=literal)


def _one_rebalance(problem: Problem, target_of, holdings) -> Phase:
    """One rebalance: the target, less what another member is believed to hold (withheld until the
    follow-up), and what each member must revoke (what it holds and is no longer given).

    Written over integer rows: every (topic, partition) named by the target, the holdings or the
    beliefs -- including claims on partitions that do not exist, which are held but never handed
    out -- gets a dense number, and the set differences are sorted-array lookups.
    """
    target = target_of(problem)
    ids = problem.member_ids
    held = _rows(held_partitions_rows(problem), ids)  # what members really hold: each revokes what it is not given
    if holdings is held_partitions:
        believed = held  # what the assignor counts
    else:
        beliefs = holdings(problem)
        keys = tuple(ids) + tuple(sorted(set(beliefs) - set(ids)))  # SEVERAL_OWNERS and the like
        believed = _rows(((k, beliefs.get(k, ())) for k in keys), keys)
    rank = {m: i for i, m in enumerate(ids)}
    target_member = np.array([rank.get(m, -1) for m in target.member_names], dtype=np.int64)[target.member]
    rows = target_member >= 0  # Kafka reads the target for group members only
    target_topic = np.asarray(target.topic_names, dtype=object)[target.topic[rows]]
    topics = sorted(set(held.topics) | set(believed.topics) | set(target.topic_names))
    code = {t: i for i, t in enumerate(topics)}
    pairs = _Pairs(
        [
            held.topic_codes(code),
            believed.topic_codes(code),
            np.fromiter((code[t] for t in target_topic), dtype=np.int64, count=target_topic.size),
        ],
        [held.partition, believed.partition, target.partition[rows]],
    )
    held_pair, believed_pair, target_pair = pairs.ids
    holders = np.bincount(believed_pair, minlength=pairs.count)  # Kafka's partitionsTransferringOwnership
    member = target_member[rows]
    mine = _contains(member, target_pair, believed.member, believed_pair, pairs.count)
    withheld = ~mine & (holders[target_pair] > 0)
    given = ~withheld
    revoked = ~_contains(held.member, held_pair, member[given], target_pair[given], pairs.count)
    return Phase(
        _assignment(
            ids,
            member[given],
            pairs.topic[target_pair[given]],
            pairs.partition[target_pair[given]],
            topics,
            every_member=True,
        ),
        _assignment(
            ids, held.member[revoked], pairs.topic[held_pair[revoked]], pairs.partition[held_pair[revoked]], topics
        ),
        _assignment(
            ids, member[withheld], pairs.topic[target_pair[withheld]], pairs.partition[target_pair[withheld]], topics
        ),
    )


@dataclass(frozen=True)
class _Holdings:
    """Who holds what, as rows: member index, topic name (per row) and partition."""

    member: np.ndarray
    topic: list[str]
    partition: np.ndarray

    @property
    def topics(self) -> set[str]:
        return set(self.topic)

    def topic_codes(self, code: Mapping[str, int]) -> np.ndarray:
        return np.fromiter((code[t] for t in self.topic), dtype=np.int64, count=len(self.topic))


def _used(index: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The indices (below ``size``) that occur, ascending, and each row's rank among them."""
    present = np.bincount(index, minlength=size) > 0
    rank = np.cumsum(present) - 1
    return np.flatnonzero(present), rank[index] if index.size else index


def held_partitions_rows(problem: Problem):
    """(member id, (topic, partition) pairs) per member: every claim, as :func:`held_partitions` counts it."""
    return ((m.member_id, ((t, p) for t, partitions in m.owned for p in partitions)) for m in problem.members)


def _rows(holdings, keys) -> _Holdings:
    """Rows of ``holdings`` (key, pairs) with ``keys`` numbered in order; a pair held twice by one key counts once."""
    distinct = ((key, dict.fromkeys(pairs)) for key, pairs in holdings)
    member, topic, partition = entry_columns(distinct, {k: i for i, k in enumerate(keys)})
    return _Holdings(member, topic, np.asarray(partition, dtype=np.int64))


class _Pairs:
    """Dense numbers for the distinct (topic code, partition) pairs of several row sets."""

    def __init__(self, topics: list[np.ndarray], partitions: list[np.ndarray]) -> None:
        topic = np.concatenate(topics) if topics else np.zeros(0, np.int64)
        partition = np.concatenate(partitions).astype(np.int64)
        order = np.lexsort((partition, topic))
        new = (
            np.r_[True, (topic[order][1:] != topic[order][:-1]) | (partition[order][1:] != partition[order][:-1])]
            if order.size
            else np.zeros(0, bool)
        )
        number = np.empty(order.size, dtype=np.int64)
        number[order] = np.cumsum(new) - 1
        self.count = int(new.sum())
        self.topic, self.partition = topic[order][new], partition[order][new]
        bounds = np.cumsum([0] + [a.size for a in topics])
        self.ids = [number[bounds[i] : bounds[i + 1]] for i in range(len(topics))]


def _contains(
    query_member: np.ndarray, query_pair: np.ndarray, member: np.ndarray, pair: np.ndarray, pairs: int
) -> np.ndarray:
    """Whether each (query_member, query_pair) row is among the (member, pair) rows.

    A pair in one row (the usual case: one holder) is a table lookup; only pairs in several rows
    go through a sorted search.
    """
    count = np.bincount(pair, minlength=pairs)
    only = np.full(pairs, -1, dtype=np.int64)
    single = count[pair] == 1
    only[pair[single]] = member[single]
    found = only[query_pair] == query_member
    several = count[query_pair] > 1
    if several.any():
        shared = count[pair] > 1
        found[several] = np.isin(
            query_member[several] * pairs + query_pair[several], member[shared] * pairs + pair[shared]
        )
    return found


def _assignment(member_ids, member, topic, partition, topics, *, every_member: bool = False) -> Assignment:
    """An assignment from rows over ``member_ids`` and ``topics`` (both sorted): names kept only where
    used, except every member when ``every_member`` (what ``Assignment.from_partitions`` lists)."""
    used_topics, topic_rank = _used(topic, len(topics))
    names = member_ids
    if not every_member:
        used, member = _used(member, len(member_ids))
        names = [member_ids[i] for i in used.tolist()]
    return Assignment.from_entries(names, [topics[i] for i in used_topics.tolist()], member, topic_rank, partition)


def _rejoin(problem: Problem, assignment: Assignment) -> Problem:
    """The follow-up rebalance: everyone owns what it was just given, one generation on."""
    generation = max((m.claim_generation for m in problem.members), default=-1) + 1
    members = tuple(
        replace(  # the same member (rack, instance id, subscription), owning what it was given
            m,
            owned=tuple((t, tuple(ps)) for t, ps in sorted(assignment.members.get(m.member_id, {}).items()) if ps),
            generation=generation,
        )
        for m in problem.members
    )
    return Problem(problem.topics, members, problem.objective)
