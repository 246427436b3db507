"""Kafka's own sticky code at 2.0.1, 2.3.1 and 2.4.1, line for line, every hash order as Java 17 iterates it.

Guarantee claimed: the one of the release's ``StickyAssignor`` javadoc (KIP-54;
since KIP-341 in 2.3.0, with generations) — "as balanced as possible", then
"preserve as many existing assignments as possible" — which Kafka checks by
its local ``isBalanced`` condition; this module claims no more than Kafka's
code does, because it *is* Kafka's code: what ``iteration_order="java"`` runs
for ``sticky`` (2.3.1), ``sticky-kip54`` (2.0.1) and the target of
``cooperative-sticky`` (2.4.1's ``AbstractStickyAssignor`` general path under
``CooperativeStickyAssignor``).

A transliteration of ``StickyAssignor.assign`` (2.0.1, 2.3.1; apache/kafka
tags, ``clients/src/main/java/org/apache/kafka/clients/consumer/StickyAssignor.java``)
and ``AbstractStickyAssignor.assign`` (2.4.1,
``clients/consumer/internals/AbstractStickyAssignor.java``), kept separate from
:mod:`heuristics.sticky`, the port of the same algorithm with its own fast
structures and documented departures.  Here every ``HashMap`` and ``HashSet``
whose iteration order decides something is a :class:`_JavaMap` or a
:class:`~heuristics.java_order.JavaHashMap` keyed by Java's ``hashCode``
(member ids by ``String.hashCode``, partitions by ``TopicPartition.hashCode``),
maps filled with ``computeIfAbsent`` put new keys at the head of their bucket
(:func:`~heuristics.java_order.grouped_order`), and ``TreeSet`` comparators
compare strings by UTF-16 unit.  Kafka's order-dependent rules are Kafka's: at
one generation the first claimant iterated keeps a partition; a claim sent
without a generation overwrites the earlier one.  The departures that remain
are listed in :func:`heuristics.sticky.assign`; ``tools/kafka_differential/legacy.py
--literal`` measures 5,000 of 5,000 random scenarios equal to Kafka's Java for
each release.
"""

from __future__ import annotations

from sortedcontainers import SortedList

from assignment_oracle.heuristics.abstract_sticky import DEFAULT_GENERATION, DEFAULT_MAX_PASSES, PerformReassignments
from assignment_oracle.heuristics.java_order import JavaHashMap, grouped_order, java_order, string_hash
from assignment_oracle.problem.errors import AssignorError
from assignment_oracle.problem.metrics import kip54_balance_score
from assignment_oracle.problem.model import Assignment, Problem

__all__ = ["KAFKA_RELEASES", "NoSuchElementException", "NullPointerException", "assign"]

#: The Kafka releases whose sticky code :func:`assign` runs line for line, iterating every
#: ``HashMap``/``HashSet`` as Java 17 does: 2.0.1 (``sticky-kip54``), 2.3.1 (``sticky``) and 2.4.1's
#: ``AbstractStickyAssignor`` general path under the ``CooperativeStickyAssignor`` (``cooperative-sticky``).
KAFKA_RELEASES = ("2.0.1", "2.3.1", "2.4.1")


class NullPointerException(AssignorError):
    """Kafka's code dereferencing what is not there (``literal=True`` only; see :func:`assign`)."""


class NoSuchElementException(AssignorError):
    """Kafka 2.0.1's ``hasIdenticalListElements`` on an empty map (``literal=True`` only; see :func:`assign`)."""


def _java_string_key(text: str) -> bytes:
    """A sort key that orders strings as Java's ``String.compareTo`` does (UTF-16 code units)."""
    return text.encode("utf-16-be", "surrogatepass")


class _JavaMap:
    """A ``java.util.HashMap``: the values in a dict, the iteration order from :class:`JavaHashMap`."""

    __slots__ = ("_order", "_values")

    def __init__(self, hash_of) -> None:
        self._order = JavaHashMap(hash_of)
        self._values: dict = {}

    def put(self, key, value) -> None:
        self._order.put(key)
        self._values[key] = value

    def compute_if_absent(self, key, factory):
        """``map.computeIfAbsent(key, k -> factory())``: a new key goes to the head of its chain."""
        self._order.compute_if_absent(key)
        if key not in self._values:
            self._values[key] = factory()
        return self._values[key]

    def get(self, key, default=None):
        return self._values.get(key, default)

    def __getitem__(self, key):
        return self._values[key]

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def __len__(self) -> int:
        return len(self._values)

    def remove(self, key):
        self._order.remove(key)
        return self._values.pop(key)

    def keys(self) -> list:
        return list(self._order)

    def items(self) -> list:
        return [(k, self._values[k]) for k in self._order]

    def values(self) -> list:
        return [self._values[k] for k in self._order]


def _list_remove(items: list, item) -> None:
    """``List.remove(Object)``: the first occurrence, if any."""
    try:
        items.remove(item)
    except ValueError:
        pass


class _JavaMovements:
    """``PartitionMovements`` with its ``HashSet<TopicPartition>``\\ s iterated as Java does."""

    def __init__(self, tp_hash) -> None:
        self.tp_hash = tp_hash
        self.by_topic: dict[str, dict[tuple[str, str], JavaHashMap]] = {}
        self.moves: dict[tuple[str, int], tuple[str, str]] = {}

    def _remove_record(self, tp) -> tuple[str, str]:
        pair = self.moves.pop(tp)
        pairs = self.by_topic[tp[0]]
        pairs[pair].remove(tp)
        if not len(pairs[pair]):
            del pairs[pair]
        if not pairs:
            del self.by_topic[tp[0]]
        return pair

    def _add_record(self, tp, pair: tuple[str, str]) -> None:
        self.moves[tp] = pair
        pairs = self.by_topic.setdefault(tp[0], {})
        if pair not in pairs:
            pairs[pair] = JavaHashMap(self.tp_hash)  # new HashSet<>()
        pairs[pair].put(tp)

    def move(self, tp, old: str, new: str) -> None:
        """``movePartition``."""
        if tp in self.moves:
            source, _ = self._remove_record(tp)
            if source != new:
                self._add_record(tp, (source, new))
        else:
            self._add_record(tp, (old, new))

    def actual_partition_to_move(self, tp, old: str, new: str):
        """``getTheActualPartitionToBeMoved``: the first, in Java's order, of a reverse move of the topic."""
        pairs = self.by_topic.get(tp[0])
        if pairs is None:
            return tp
        if tp in self.moves:
            old = self.moves[tp][0]
        reverse = pairs.get((new, old))
        if reverse is None:
            return tp
        return next(iter(reverse))


class _KafkaRun(PerformReassignments):
    """One ``assign`` of Kafka's sticky code at ``release``; names as in Kafka, partitions ``(topic, number)``.

    The group's ``subscriptions`` map is filled in join order, taken to be the problem's member order
    (member ids sorted); each member's topics are listed in name order; a member's claims travel as
    Kafka's serializer writes them (2.0.1, 2.3.1: user data, topics grouped in a ``HashMap<String>``,
    V1 with the generation when the member sent one, else V0, none when a V0 member claims nothing;
    2.4.1: ``ownedPartitions`` as listed, no generation).
    """

    def __init__(self, problem: Problem, release: str, max_passes: int, literal: bool) -> None:
        if release not in KAFKA_RELEASES:
            raise ValueError(f"release must be one of {', '.join(KAFKA_RELEASES)}, got {release!r}")
        self.problem = problem
        self.literal = literal
        self.release = release
        self.max_passes = max_passes
        topic_hashes: dict[str, int] = {}

        def tp_hash(tp: tuple[str, int]) -> int:  # TopicPartition.hashCode (JavaHashMap masks it to 32 bits)
            h = topic_hashes.get(tp[0])
            if h is None:
                h = topic_hashes[tp[0]] = string_hash(tp[0])
            return 31 * (31 + tp[1]) + h

        self.tp_hash = tp_hash
        self.keys: dict[str, bytes] = {m.member_id: _java_string_key(m.member_id) for m in problem.members}

    # -- the subscriptions -------------------------------------------------------------------------------

    def _user_data(self, member) -> tuple[list[tuple[str, int]] | None, int | None]:
        """The claims as the leader reads them, and their generation (``None``: not sent)."""
        claims = [(t, p) for t, partitions in member.owned for p in partitions]
        if self.release == "2.4.1":  # CooperativeStickyAssignor.memberData: ownedPartitions, Optional.empty()
            return claims, None
        generation = member.generation if self.release == "2.3.1" else None
        if generation is None and not claims:
            return None, None  # no user data at all
        # The member's serializer groups the claims by topic in a HashMap: 2.0's CollectionUtils.groupDataByTopic
        # with get/put, 2.3's groupPartitionsByTopic with computeIfAbsent (a key shares a bucket in reverse).
        by_topic: dict[str, list[int]] = {}
        for t, p in claims:
            by_topic.setdefault(t, []).append(p)
        topics = java_order(by_topic) if self.release == "2.0.1" else grouped_order(t for t, _ in claims)
        return [(t, p) for t in topics for p in by_topic[t]], generation

    def run(self) -> dict[str, list[tuple[str, int]]]:
        problem = self.problem
        members = {m.member_id: m for m in problem.members}
        order = java_order(problem.join_order)  # the subscriptions HashMap, filled in join order
        self.topics = {c: sorted(members[c].topics) for c in order}
        self.subscribed = {c: members[c].topics for c in order}
        counts = problem.partition_counts

        # AbstractPartitionAssignor.assign: partitionsPerTopic over a HashSet of the subscribed topics.
        all_subscribed = JavaHashMap(string_hash)
        for c in order:
            for t in self.topics[c]:
                all_subscribed.put(t)
        partitions_per_topic = _JavaMap(string_hash)
        for t in all_subscribed:
            if counts.get(t, 0) > 0:
                partitions_per_topic.put(t, counts[t])

        current = _JavaMap(string_hash)  # currentAssignment
        prev = _JavaMap(self.tp_hash)  # prevAssignment: partition -> its previous consumer
        self._prepopulate(order, members, current, prev)
        fresh = len(current) == 0

        p2c = _JavaMap(self.tp_hash)  # partition2AllPotentialConsumers
        for t, n in partitions_per_topic.items():
            for i in range(n):
                p2c.put((t, i), [])
        c2p: dict[str, list[tuple[str, int]]] = {}  # consumer2AllPotentialPartitions (its order decides nothing)
        for c in order:
            c2p[c] = []
            for t in self.topics[c]:
                if t not in partitions_per_topic:
                    if self.release == "2.0.1" and self.literal:  # KAFKA-7962, fixed in 2.3.0
                        raise NullPointerException(
                            f"StickyAssignor.assign: partitionsPerTopic.get({t!r}) is null (a subscribed topic "
                            "the cluster does not have)"
                        )
                    continue
                for i in range(partitions_per_topic[t]):
                    c2p[c].append((t, i))
                    p2c[(t, i)].append(c)
            if c not in current:
                current.put(c, [])
        self.c2p = c2p
        self.c2p_set = {c: set(tps) for c, tps in c2p.items()}
        self.p2c = p2c

        cpc: dict[tuple[str, int], str] = {}  # currentPartitionConsumer
        for c, tps in current.items():
            for tp in tps:
                cpc[tp] = c
        sorted_partitions = self._sort_partitions(current, prev.keys(), fresh)

        removed: dict[tuple[str, int], int] = {}  # unassignedPartitions.remove(partition), first occurrences
        revocation_required = False
        for c, tps in current.items():
            kept = []
            for tp in tps:
                if tp not in p2c:
                    cpc.pop(tp, None)
                elif tp[0] not in self.subscribed[c]:
                    revocation_required = True
                else:
                    kept.append(tp)
                    removed[tp] = removed.get(tp, 0) + 1
            tps[:] = kept
        unassigned = []
        for tp in sorted_partitions:
            if removed.get(tp):
                removed[tp] -= 1
            else:
                unassigned.append(tp)

        self.current, self.prev, self.cpc = current, prev, cpc
        self.movements = _JavaMovements(self.tp_hash)
        self._balance(sorted_partitions, unassigned, revocation_required)
        return {c: tps for c, tps in self.current.items()}

    def _prepopulate(self, order: list[str], members, current: _JavaMap, prev: _JavaMap) -> None:
        if self.release == "2.0.1":  # every member keeps what its user data says
            for c in order:
                claims, _ = self._user_data(members[c])
                if claims:
                    current.put(c, claims)
            return
        # sortedPartitionConsumersByGeneration: partition -> {generation: consumer} (a TreeMap)
        by_generation = _JavaMap(self.tp_hash)
        for c in order:
            claims, generation = self._user_data(members[c])
            if claims is None:
                continue
            for tp in claims:
                consumers = by_generation.get(tp)
                if consumers is None:
                    by_generation.put(tp, {DEFAULT_GENERATION if generation is None else generation: c})
                elif generation is not None and generation in consumers:
                    pass  # the same generation twice: the first claimant keeps it
                else:
                    consumers[DEFAULT_GENERATION if generation is None else generation] = c
        for tp, consumers in by_generation.items():
            generations = sorted(consumers, reverse=True)
            current.compute_if_absent(consumers[generations[0]], list).append(tp)
            if len(generations) > 1:
                prev.put(tp, consumers[generations[1]])

    # -- sortPartitions ----------------------------------------------------------------------------------

    def _identical(self) -> bool:
        """``areSubscriptionsIdentical``: every partition's potential consumers and every consumer's potential
        partitions the same sets (2.0.1 fails on an empty map; departure: equal, as from 2.3)."""
        if self.release == "2.0.1" and self.literal and not len(self.p2c):
            raise NoSuchElementException("StickyAssignor.hasIdenticalListElements: no partition to compare")
        return (
            len({frozenset(cs) for cs in self.p2c.values()}) <= 1
            and len({frozenset(tps) for tps in self.c2p.values()}) <= 1
        )

    def _sort_partitions(self, current: _JavaMap, prev_partitions: list, fresh: bool) -> list:
        p2c = self.p2c
        if fresh or not self._identical():
            return sorted(p2c.keys(), key=lambda tp: (len(p2c[tp]), _java_string_key(tp[0]), tp[1]))
        assignments = {c: [tp for tp in tps if tp in p2c] for c, tps in current.items()}
        sorted_consumers = SortedList((len(tps), self.keys[c], c) for c, tps in assignments.items())
        listed: list = []
        while sorted_consumers:
            _, key, c = sorted_consumers.pop()
            remaining = assignments[c]
            mine = set(remaining)
            first = next((tp for tp in prev_partitions if tp in mine), None)
            if first is not None:
                remaining.remove(first)
                listed.append(first)
                sorted_consumers.add((len(remaining), key, c))
            elif remaining:
                listed.append(remaining.pop(0))
                sorted_consumers.add((len(remaining), key, c))
        seen = set(listed)
        listed.extend(tp for tp in p2c.keys() if tp not in seen)
        return listed

    # -- balance -----------------------------------------------------------------------------------------

    def _entry(self, c: str) -> tuple[int, bytes, str]:
        """The consumer's place in a ``TreeSet`` ordered by ``SubscriptionComparator``."""
        assignment = self.current.get(c)
        if assignment is None:
            raise NullPointerException(f"currentAssignment.get({c!r}) is null (its assignment was set aside)")
        return (len(assignment), self.keys[c], c)

    def _balance(self, sorted_partitions: list, unassigned: list, revocation_required: bool) -> None:
        current, p2c = self.current, self.p2c
        self.sorted_subscriptions = SortedList(self._entry(c) for c in current.keys())
        if not self.sorted_subscriptions:
            return
        initializing = not current[self.sorted_subscriptions[-1][2]]
        for tp in unassigned:
            if p2c[tp]:
                self._assign_partition(tp)
        fixed = {tp for tp in p2c.keys() if len(p2c[tp]) < 2}
        sorted_partitions = [tp for tp in sorted_partitions if tp not in fixed]
        if self.release == "2.4.1":
            unassigned = [tp for tp in unassigned if tp not in fixed]
        fixed_assignments: dict[str, list] = {}
        for c in self.c2p:
            if not self._can_participate(c):
                self.sorted_subscriptions.discard(self._entry(c))
                fixed_assignments[c] = current.remove(c)
        before = [(c, list(tps)) for c, tps in current.items()]
        cpc_before = dict(self.cpc)
        if self.release == "2.4.1" and not revocation_required:
            self._perform_reassignments(unassigned)
        performed = self._perform_reassignments(sorted_partitions)
        score = kip54_balance_score(len(tps) for _, tps in current.items())
        if not initializing and performed and score >= kip54_balance_score(len(tps) for _, tps in before):
            restored = _JavaMap(string_hash)
            for c, tps in before:
                restored.put(c, tps)
            self.current = current = restored
            self.cpc = cpc_before
        for c, tps in fixed_assignments.items():
            current.put(c, tps)

    def _can_participate(self, c: str) -> bool:
        held = self.current[c]
        if len(held) < len(self.c2p[c]):
            return True
        return any(len(self.p2c[tp]) >= 2 for tp in held)

    def _assign_partition(self, tp) -> None:
        for entry in self.sorted_subscriptions:
            c = entry[2]
            if tp in self.c2p_set[c]:
                self.sorted_subscriptions.remove(entry)
                self.current[c].append(tp)
                self.cpc[tp] = c
                self.sorted_subscriptions.add(self._entry(c))
                return

    def _is_balanced(self) -> bool:
        subscriptions, current = self.sorted_subscriptions, self.current
        if subscriptions[0][0] >= subscriptions[-1][0] - 1:
            return True
        holder: dict = {}
        for c, tps in current.items():
            for tp in tps:
                holder[tp] = c
        for count, _, c in subscriptions:
            if count == len(self.c2p[c]):
                continue
            mine = set(current[c])
            for tp in self.c2p[c]:
                if tp not in mine:
                    other = holder.get(tp)
                    if other is None:
                        raise NullPointerException(f"isBalanced: {tp[0]}-{tp[1]} has no consumer")
                    if count < len(current[other]):
                        return False
        return True

    def _still_moving(self, passes: int, partitions: list) -> str:
        return (
            f"sticky (Kafka {self.release}): performReassignments still moving partitions after {passes} "
            f"passes over {len(partitions)} partitions"
        )

    def _try_reassign(self, tp) -> bool:
        """One partition of ``performReassignments``' pass: to its previous owner, else to the first taker sorted."""
        current = self.current
        c = self.cpc.get(tp)
        held = current.get(c)
        if held is None:  # 2.0.1: a stale claimant iterated after the holder, then set aside as fixed
            if self.literal:
                raise NullPointerException(
                    f"performReassignments: currentAssignment.get({c!r}) is null (the consumer "
                    f"{tp[0]}-{tp[1]} is filed under was set aside as fixed)"
                )
            # Departure: the move starts from the member that holds the partition (the last listed).
            c = next((m for m, tps in reversed(current.items()) if tp in tps), None)
            if c is None:
                return False
            self.cpc[tp] = c
            held = current[c]
        previous = self.prev.get(tp)
        if previous is not None and previous not in current:
            if self.literal:
                raise NullPointerException(
                    f"performReassignments: currentAssignment.get({previous!r}) is null (the previous "
                    f"owner of {tp[0]}-{tp[1]} was set aside as fixed)"
                )
            previous = None  # departure: as if the partition had no previous owner
        if previous is not None and len(held) > len(current[previous]) + 1:
            self._reassign(tp, previous)
            return True
        for other in self.p2c[tp]:
            other_held = current.get(other)
            if other_held is None:
                raise NullPointerException(f"currentAssignment.get({other!r}) is null (set aside)")
            if len(held) > len(other_held) + 1:
                new = next(e[2] for e in self.sorted_subscriptions if tp in self.c2p_set[e[2]])
                self._reassign(tp, new)
                return True
        return False

    def _reassign(self, tp, new: str) -> None:
        actual = self.movements.actual_partition_to_move(tp, self.cpc[tp], new)
        old = self.cpc[actual]
        subscriptions = self.sorted_subscriptions
        subscriptions.discard(self._entry(old))
        subscriptions.discard(self._entry(new))
        self.movements.move(actual, old, new)
        _list_remove(self.current[old], actual)
        self.current[new].append(actual)
        self.cpc[actual] = new
        subscriptions.add(self._entry(new))
        subscriptions.add(self._entry(old))


def assign(
    problem: Problem, release: str, *, max_passes: int = DEFAULT_MAX_PASSES, literal: bool = False
) -> Assignment:
    """Kafka's sticky code at ``release`` (:data:`KAFKA_RELEASES`), every hash order as Java 17 iterates it.

    What ``iteration_order="java"`` runs for ``sticky`` (2.3.1), ``sticky-kip54`` (2.0.1) and the
    target of ``cooperative-sticky`` (2.4.1).  A transliteration of ``StickyAssignor.assign`` (2.0.1,
    2.3.1) or ``AbstractStickyAssignor.assign`` (2.4.1) in pure Python: slower than :func:`assign`,
    whose data structures it does not use.  Departures: see :func:`assign`.
    """
    run = _KafkaRun(problem, release, max_passes, literal)
    result = run.run()
    topic_names = [t.name for t in problem.assignable_topics]
    topic_rank = {t: i for i, t in enumerate(topic_names)}
    member_rank = problem.member_index
    rows = [(member_rank[c], topic_rank[t], p) for c, tps in result.items() for t, p in tps]
    rows.sort()
    member, topic, partition = zip(*rows) if rows else ((), (), ())
    return Assignment.from_entries(problem.member_ids, topic_names, member, topic, partition)
