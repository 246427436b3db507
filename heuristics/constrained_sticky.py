"""The constrained sticky assignor for identical subscriptions (``constrained-sticky``).

Guarantee claimed (the proposal's javadoc): when every member subscribes to
the same topics, the loads differ by at most one, i.e. each member gets
``floor(P/N)`` or ``ceil(P/N)`` of the ``P`` partitions (exactly balanced,
which the oracle confirms is the most balanced), and it is as sticky as it
can be without breaking that, in a few linear passes instead of the general
sticky algorithm (users reported 2.5 minutes for 2,100 members x 2,100
partitions).  Groups with differing subscriptions fall back to
:func:`heuristics.sticky.assign`, as Kafka's ``AbstractStickyAssignor`` does.
``iteration_order="java"`` runs Kafka 3.4.0's own code instead, both paths,
hash maps in Java 17's order (the last section below).

Source: the "constrained cooperative sticky assignor" proposal (shipped in
Kafka 2.8 as the ``allSubscriptionsEqual`` fast path of the sticky
assignors, KAFKA-9987).  Its pseudocode is partly garbled; the
reconstruction, decision by decision:

1. *Quotas*: ``C_f = P // N`` (floor), ``C_c = ceil(P / N)``.
2. *Which claims count*: a member's owned partitions count only if it still
   subscribes to their topic, the partition exists, and the member's
   generation is the highest any member reports ("remove all
   owned_partitions if the generation is old": an older generation means
   the member missed a rebalance, all of its claims are stale).  A partition
   claimed by two members of that generation counts for neither (Kafka's
   ``partitionsWithMultiplePreviousOwners``, KAFKA-12984, Kafka 2.8.1/3.0;
   the proposal is silent).  Claims keep the order the member sent them in.

   This whole-member generation rule is Kafka's from 2.8.0 through 3.4.0
   (``AbstractStickyAssignor.allSubscriptionsEqual`` clears every claim of
   a member below the highest generation; read at tag 3.4.0 of
   apache/kafka).  KAFKA-14639 (apache/kafka#13550, shipped in 3.4.1 and
   3.5.0, current in 4.x) replaced it with the per-partition rule of
   :func:`problem.claims.resolve_claims`: a claim counts unless another
   member claims the same partition at a higher generation.  The port keeps
   the rule the proposal states; under today's rule a member that missed a
   rebalance keeps whatever nobody newer claims, and
   ``tests/heuristics/test_constrained_sticky.py`` shows an instance where
   that keeps two partitions this port moves.
3. *Keep owned partitions up to quota*, members in member-id order.  The
   seed garbles this branch into two consecutive "assign first C_f / first
   C_c" lines and drops the third case; the intent, restored:

   * fewer than ``C_f`` owned: keep them all; the member is *unfilled*;
   * exactly ``C_f``: keep them all; the member is full at the floor;
   * more than ``C_f``: keep the first ``C_c`` (the rest are released) and the
     member is at *max capacity*, kept in a FIFO queue in member-id order.

   With ``C_f == C_c`` the third case keeps ``C_f`` and the member is full,
   not at max capacity (it has nothing to spare).
4. *Unassigned partitions* in "data parallel" order: by partition number,
   then topic (t0-0, t1-0, t2-0, t0-1, ...), as the proposal says.
5. *Fill unfilled members up to* ``C_f``, in member-id order, each taking the
   next partitions from that list.
6. *Steal*: if the list runs dry first (more members kept ``C_c`` than
   ``P mod N`` allows), each still-unfilled member takes one partition at a
   time from the head of the max-capacity queue (that member's first kept
   partition), and the robbed member leaves the queue, now at ``C_f``.
7. *Distribute the rest*, at most one each, to members in member-id order
   that are not at max capacity (each then joins it), so that some reach
   ``C_c``.

How this differs from the code Kafka 2.8 shipped (``constrainedAssign``):
the seed is the specification here, so where the two disagree the seed
wins.  Kafka 2.8 ordered unassigned partitions by topic, then number (a
``TreeSet``); filled unfilled members one partition per member per pass
instead of each up to the floor in turn; and gave the leftovers in the order
members reached the floor rather than by member id.  It also kept claims on
partition numbers the topic no longer has (and so assigned them), and, until
KAFKA-12984, kept both claims of a partition claimed twice at the same
generation; the port drops both kinds.

Steps 3-7 keep the loads within ``[C_f, C_c]`` and place every partition:
after step 3 at most ``P`` partitions are kept, so either step 5 empties the
list (then step 6 has exactly enough surplus, because every partition kept
above the floor is one that an unfilled member lacks) or it fills everyone
(then step 7 has at most one partition per member not at ``C_c``).

Java's order (``iteration_order="java"``): Kafka 3.4.0's code
------------------------------------------------------------

The steps above are the proposal's, in a stable order (``"sorted"``, the
default, unchanged).  ``iteration_order="java"`` instead runs what Kafka 3.4.0's
eager ``StickyAssignor`` runs (``AbstractStickyAssignor`` at tag 3.4.0), with
every ``HashMap``/``HashSet`` iterated as Java 17 does
(:mod:`heuristics.java_order`):

* the ``subscriptions`` map: members in Java's order (they join in id
  order; that decides only between ids in one bucket), and so
  ``consumerToOwnedPartitions``, filled in its order;
* each member's claims as ``StickyAssignor.memberData`` reads them from the
  user data its serializer wrote: grouped by topic with ``computeIfAbsent``
  (``CollectionUtils.groupPartitionsByTopic``), so topics in that map's
  order -- two topics sharing a bucket come out in reverse -- and each
  topic's partitions as sent;
* the claim rule of 3.4.0's ``allSubscriptionsEqual`` (step 2 above, both
  halves), read in that order;
* identical subscriptions: 3.4.0's ``constrainedAssign``, i.e. Kafka 4's
  ``ConstrainedAssignmentBuilder`` (:mod:`heuristics.kafka4_sticky`) without
  racks but with 3.4.0's first step, which keeps claims in the order just
  described (Kafka 4 sorts them), and Kafka's fill: one partition per
  unfilled member per pass, leftovers to members at the floor in the order
  they reached it;
* differing subscriptions: 3.4.0's ``generalAssign`` (not the ``sticky``
  port), i.e. Kafka 4's ``GeneralAssignmentBuilder`` without racks but with
  3.4.0's ``isBalanced`` (unbalanced as soon as a member could take a
  partition from one with *more*; KAFKA-15106, apache/kafka e0b7499, 3.6.0:
  with two more), its ``PartitionMovements`` ``HashSet<TopicPartition>`` in
  Java's order.

Kafka's defects are kept where they give an answer.  One gives an invalid
one: ``performReassignments`` moves a partition back to its previous owner
(a claim below the top generation) without asking whether that member still
subscribes to the topic, so a member that changed its subscription and
missed a generation can be handed a partition it does not subscribe to
(``tests/heuristics/test_constrained_sticky.py`` has Kafka's own answer;
the code is unchanged in Kafka 4, and :mod:`heuristics.kafka4_sticky` does
the same).

Against Kafka 3.4.0's own Java (``tools/kafka_differential/legacy.py``) it
agrees on every scenario but those where Kafka throws (20,000 of seed 0:
19,989, the 11 others Kafka's ``NullPointerException``; with
``literal=True`` all 20,000).  The departures left, each shared with
:mod:`heuristics.kafka4_sticky`:

* ``NullPointerException``: when the previous owner (a claim below the top
  generation) of a reassignable partition was set aside as fixed (it can
  take part in no reassignment), 3.4.0's ``performReassignments``
  dereferences its missing assignment; the port treats the partition as
  having no previous owner and answers.  ``literal=True`` raises
  :class:`NullPointerException` instead (2 of 5,000 generated scenarios);
* an empty first subscription: Kafka takes the next member's topics as the
  reference (``subscribedTopics.isEmpty()``), so {c0: nothing, c1: [t]},
  c0 iterated first, is "all equal" and the constrained path hands t's
  partitions to c0, which does not subscribe to them; the port takes the
  first subscription as the reference (``literal=True``: Kafka's rule);
* a claim on a partition number beyond its topic's count is ignored (Kafka
  keeps it, assigns it and mis-merges its unassigned list; no broker sends
  one, the scenario format allows it);
* every call is a fresh assignor (3.4.0's ``maxGeneration`` is a field never
  reset between calls on one instance);
* strings compare by code point (``Collections.sort`` of member ids, the
  ``TreeSet`` comparators), Java by UTF-16 unit: they differ only between
  characters above U+FFFF and U+E000-U+FFFF; a bucket Java turns into a tree
  (8 colliding keys in 64+ buckets) raises
  :class:`~heuristics.java_order.TreeBinNotEmulated` rather than guess.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping

import numpy as np

from assignment_oracle.heuristics import kafka4_sticky, sticky
from assignment_oracle.heuristics.java_order import ITERATION_ORDERS, check_iteration_order, grouped_order, java_order
from assignment_oracle.heuristics.kafka4_sticky import IllegalStateException, NullPointerException
from assignment_oracle.problem.model import Assignment, Problem

__all__ = [
    "ITERATION_ORDERS",
    "KAFKA_RELEASE",
    "IllegalStateException",
    "NullPointerException",
    "assign",
    "subscriptions_identical",
]

#: The release whose ``AbstractStickyAssignor`` ``iteration_order="java"`` runs.
KAFKA_RELEASE = "3.4.0"


def subscriptions_identical(problem: Problem) -> bool:
    """Do all members subscribe to the same topics (Kafka's ``allSubscriptionsEqual``)?"""
    return len({m.topics for m in problem.members}) <= 1


def assign(problem: Problem, *, iteration_order: str = "sorted", literal: bool = False) -> Assignment:
    """Floor/ceil quotas with owned partitions kept up to quota; sticky otherwise.

    ``iteration_order="sorted"`` (the default) is the proposal's algorithm
    as the module docstring reconstructs it; ``"java"`` is Kafka 3.4.0's
    ``StickyAssignor`` (both of its paths), iterating its hash maps as Java
    17 does (the module docstring, "Java's order").  ``literal`` (Java's
    order only) keeps Kafka's ``NullPointerException`` and its
    empty-first-subscription rule instead of the two departures listed there.

    Examples
    --------
    Five partitions, two members: ``a`` owned four and keeps three (the
    ceiling), ``b`` is filled to two.

    >>> from assignment_oracle.problem import Problem
    >>> p = Problem.from_mapping({"topics": {"t": 5}, "members": {
    ...     "a": {"topics": ["t"], "owned": {"t": [0, 1, 2, 3]}, "generation": 4},
    ...     "b": {"topics": ["t"]}}})
    >>> assign(p).to_mapping()
    {'a': {'t': [0, 1, 2]}, 'b': {'t': [3, 4]}}

    In Java's order Kafka deals one partition per member per pass (the
    proposal fills each member to the floor in turn):

    >>> p = Problem.from_mapping({"topics": {"t": 4}, "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}}})
    >>> assign(p).to_mapping(), assign(p, iteration_order="java").to_mapping()
    ({'a': {'t': [0, 1]}, 'b': {'t': [2, 3]}}, {'a': {'t': [0, 2]}, 'b': {'t': [1, 3]}})
    """
    check_iteration_order(iteration_order)
    if iteration_order == "java":
        return _assign_kafka_3_4_0(problem, literal)
    if literal:
        raise ValueError("literal=True is Kafka 3.4.0's code: it needs iteration_order='java'")
    if not subscriptions_identical(problem):
        return sticky.assign(problem)
    ids = problem.member_ids
    topics = problem.assignable_topics
    total = sum(t.partitions for t in topics)
    if not ids:
        return Assignment()
    floor, ceil = total // len(ids), -(-total // len(ids))

    # Partitions are numbered globally (problem.partition_offsets): the
    # algorithm only ever compares, orders and hands out partitions.
    owned = _counted_claims(problem)
    given: list[list[int]] = [[] for _ in ids]
    taken = np.zeros(int(problem.partition_offsets[-1]), dtype=bool)
    unfilled: list[int] = []
    at_max: deque[int] = deque()
    for m in range(len(ids)):  # step 3
        mine = owned[m]
        if len(mine) < floor:
            keep = mine
            unfilled.append(m)
        elif len(mine) == floor or floor == ceil:
            keep = mine[:floor]
        else:
            keep = mine[:ceil]
            at_max.append(m)
        given[m].extend(keep)
        taken[keep] = True

    free = deque(_partition_major(problem, taken).tolist())  # step 4
    still_unfilled: list[int] = []
    for m in unfilled:  # step 5
        while len(given[m]) < floor and free:
            given[m].append(free.popleft())
        if len(given[m]) < floor:
            still_unfilled.append(m)
    for m in still_unfilled:  # step 6
        while len(given[m]) < floor:
            robbed = at_max.popleft()
            given[m].append(given[robbed].pop(0))
    capped = set(at_max)
    for m in range(len(ids)):  # step 7
        if not free:
            break
        if m not in capped and len(given[m]) < ceil:
            given[m].append(free.popleft())
            capped.add(m)
    owner = np.full(taken.size, -1, dtype=np.int32)
    for m, partitions in enumerate(given):
        owner[partitions] = m
    return Assignment.from_owners(problem, owner)


def _partition_major(problem: Problem, taken: np.ndarray) -> np.ndarray:
    """Step 4: the partitions of assignable topics not ``taken``, by partition number, then topic name."""
    offsets = problem.partition_offsets
    assignable = [i for i, t in enumerate(problem.topics) if problem.subscribers[t.name]]
    sizes = np.diff(offsets)[assignable]
    topic = np.repeat(np.asarray(assignable, dtype=np.int64), sizes)
    number = np.arange(topic.size, dtype=np.int64) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    order = np.lexsort((topic, number))  # topics are sorted by name, so index order is name order
    everything = offsets[topic[order]] + number[order]
    return everything[~taken[everything]]


def _counted_claims(problem: Problem) -> list[list[int]]:
    """Step 2: per member, the claims that count (global partition numbers), in the order the member sent them."""
    offsets = problem.partition_offsets
    index = {t: i for i, t in enumerate(problem.topic_names)}
    # Every member that reports a generation counts, with or without claims:
    # one at generation 5 that owns nothing still proves generation 4 is stale.
    newest = max((m.claim_generation for m in problem.members), default=-1)
    per_member: list[list[int]] = []
    claimants = np.zeros(int(offsets[-1]), dtype=np.int64)
    for m in problem.members:
        mine: list[int] = []
        if m.claim_generation == newest:
            seen: set[int] = set()
            for topic, partitions in m.owned:
                if topic not in m.topics or topic not in index:
                    continue
                start, size = int(offsets[index[topic]]), int(offsets[index[topic] + 1] - offsets[index[topic]])
                for p in partitions:
                    if 0 <= p < size and start + p not in seen:
                        seen.add(start + p)
                        mine.append(start + p)
        claimants[mine] += 1  # each member's claims are distinct, so no index repeats here
        per_member.append(mine)
    return [[g for g in mine if claimants[g] == 1] for mine in per_member]


# -- Java's order: Kafka 3.4.0's AbstractStickyAssignor --------------------------------------------------------


def _assign_kafka_3_4_0(problem: Problem, literal: bool) -> Assignment:
    """``StickyAssignor.assign`` at Kafka 3.4.0, hash maps in Java 17's order."""
    subscriptions = _kafka_subscriptions(problem)
    if not subscriptions:
        return Assignment()
    partitions_per_topic = {t.name: t.partitions for t in problem.assignable_topics}
    # Kafka 3.4.0's sticky assignors read no racks (KIP-881 came in 3.5): rack-aware assignment is off.
    no_racks = kafka4_sticky._RackInfo(problem, partitions_per_topic, subscriptions, prefer_rack_aware_logic=False)
    equal, consumer_to_owned, multiple_owners, max_generation = _all_subscriptions_equal(
        partitions_per_topic, subscriptions, literal
    )
    if equal:
        builder = _ConstrainedAssign(
            partitions_per_topic, no_racks, consumer_to_owned, multiple_owners, pre_kafka_15170=True
        )
        assignment = builder.build()
    else:
        general = _GeneralAssign(
            partitions_per_topic, no_racks, consumer_to_owned, subscriptions, max_generation, "java", literal
        )
        assignment = general.build()
    return Assignment.from_partitions(assignment, problem.member_ids)


def _kafka_subscriptions(problem: Problem) -> dict[str, kafka4_sticky._Subscription]:
    """The ``subscriptions`` ``HashMap`` as ``StickyAssignor`` reads it, in Java's iteration order.

    Members join in the scenario's (id) order.  ``MemberData.partitions`` is the user data as
    ``StickyAssignor``'s serializer writes it: the claims grouped by topic in a ``HashMap<String>``
    filled by ``computeIfAbsent`` per partition (``CollectionUtils.groupPartitionsByTopic``, topics
    in the member's order, by name: a topic that shares a bucket with an earlier one comes BEFORE
    it), each topic's partitions as sent.  ``generation``: the user data's (V1), absent without one (V0 or
    none).  Racks are not read (``rack`` ``None``).
    """
    members = {m.member_id: m for m in problem.members}
    subscriptions = {}
    for member_id in java_order(problem.join_order):  # the subscriptions HashMap, filled in join order
        m = members[member_id]
        by_topic = dict(m.owned)
        topics = grouped_order(t for t, ps in m.owned for _ in ps)  # computeIfAbsent per partition
        partitions = [(t, p) for t in topics for p in by_topic[t]]
        subscriptions[member_id] = kafka4_sticky._Subscription(m.topics, partitions, m.generation, None)
    return subscriptions


def _all_subscriptions_equal(
    partitions_per_topic: Mapping[str, int], subscriptions: Mapping[str, kafka4_sticky._Subscription], literal: bool
) -> tuple[bool, dict[str, list[tuple[str, int]]], set[tuple[str, int]], int]:
    """Kafka 3.4.0's ``allSubscriptionsEqual``: (equal?, consumerToOwnedPartitions,
    partitionsWithMultiplePreviousOwners, maxGeneration), in ``subscriptions``' order.

    Only members of the highest generation keep claims: a member below it is skipped, or cleared
    when a higher one arrives; a member that sent no generation counts only while nobody has sent
    one.  Among them a partition claimed twice is removed from the earlier claimant's list (the
    later never adds it) and goes into ``partitionsWithMultiplePreviousOwners``.
    """
    members_of_current_highest_generation: list[str] = []
    is_all_subscriptions_equal = True
    subscribed_topics: frozenset[str] | None = None
    all_previous_partitions_to_owner: dict[tuple[str, int], str] = {}
    partitions_with_multiple_previous_owners: set[tuple[str, int]] = set()
    consumer_to_owned_partitions: dict[str, list[tuple[str, int]]] = {}
    max_generation = kafka4_sticky.DEFAULT_GENERATION
    for consumer, subscription in subscriptions.items():
        # Kafka: an empty reference set is "not yet initialised" (subscribedTopics.isEmpty()), so the
        # next member's topics become the reference.  Departure unless literal: the first member's is.
        if subscribed_topics is None or (literal and not subscribed_topics):
            subscribed_topics = subscription.topics
        elif is_all_subscriptions_equal and subscription.topics != subscribed_topics:
            is_all_subscriptions_equal = False
        generation = subscription.generation
        owned_partitions: list[tuple[str, int]] = []
        consumer_to_owned_partitions[consumer] = owned_partitions
        if (generation is not None and generation >= max_generation) or (
            generation is None and max_generation == kafka4_sticky.DEFAULT_GENERATION
        ):
            if generation is not None and generation > max_generation:
                all_previous_partitions_to_owner.clear()
                partitions_with_multiple_previous_owners.clear()
                for dropped_out_consumer in members_of_current_highest_generation:
                    consumer_to_owned_partitions[dropped_out_consumer].clear()
                members_of_current_highest_generation.clear()
                max_generation = generation
            members_of_current_highest_generation.append(consumer)
            for tp in subscription.partitions:
                topic, partition = tp
                # Kafka filters on the topic only; a partition number beyond the topic's count is
                # ignored here too (departure: Kafka would keep it, see the module docstring).
                if topic not in partitions_per_topic or not 0 <= partition < partitions_per_topic[topic]:
                    continue
                other_consumer = all_previous_partitions_to_owner.get(tp)
                all_previous_partitions_to_owner[tp] = consumer
                if other_consumer is None:
                    owned_partitions.append(tp)
                else:
                    kafka4_sticky._remove_first(consumer_to_owned_partitions[other_consumer], tp)
                    partitions_with_multiple_previous_owners.add(tp)
    return (
        is_all_subscriptions_equal,
        consumer_to_owned_partitions,
        partitions_with_multiple_previous_owners,
        max_generation,
    )


class _ConstrainedAssign(kafka4_sticky._ConstrainedAssignmentBuilder):
    """Kafka 3.4.0's ``constrainedAssign``: Kafka 4's ``ConstrainedAssignmentBuilder`` without racks (its
    round-robin fill and final checks are 3.4.0's line for line) but with 3.4.0's first step, which
    keeps owned partitions in the order the member sent them (Kafka 4 sorts them by partition, then
    topic) and records every partition beyond the quota as revoked (``allRevokedPartitions``)."""

    def assign_owned_partitions(self) -> None:
        for consumer, owned_partitions in self.current_assignment.items():
            for doubly_claimed_partition in self.partitions_with_multiple_previous_owners:
                kafka4_sticky._remove_first(owned_partitions, doubly_claimed_partition)
            self.keep_owned_up_to_quota(consumer, owned_partitions)

    def _revoke(self, tp, consumer: str) -> None:
        self.all_revoked_partitions.add(tp)  # 3.4.0 records every partition beyond the quota as revoked


class _GeneralAssign(kafka4_sticky._GeneralAssignmentBuilder):
    """Kafka 3.4.0's ``generalAssign``: Kafka 4's ``GeneralAssignmentBuilder`` without racks, but with
    3.4.0's ``isBalanced``, which calls an assignment unbalanced as soon as a member could take a
    partition from one with MORE partitions (Kafka 4: with at least two more)."""

    unbalanced_over = 0
