"""The order in which Kafka's group coordinator iterates a group's members: what ``groupSpec.memberIds()`` is filled from.

Guarantee: for ``String`` member ids put in a given order, :func:`timeline_order` is the order
Kafka's ``org.apache.kafka.timeline.TimelineHashMap`` (over its own ``BaseHashTable``,
``server-common``, apache/kafka d79bd50, unchanged in this respect since 1eb7644) iterates
them, and :func:`coordinator_member_order` the order ``TargetAssignmentBuilder.build``
(``modern/TargetAssignmentBuilder.java:403-407`` at d79bd50, ``:329-334`` at 1eb7644) fills the
``HashMap`` of member specs the assignor's ``groupSpec.memberIds()`` is the key set of.
``tools/kafka_differential`` checks it against Kafka's own classes (``ServerAssignors.java``,
member order ``coordinator``).

How the coordinator gets there (read at d79bd50):

* a group keeps its members in ``ModernGroup.members``, a ``TimelineHashMap<String, T>``
  (``new TimelineHashMap<>(snapshotRegistry, 0)``), put as members join (the scenario's order,
  :attr:`~assignment_oracle.problem.model.Problem.join_order`);
* the heartbeat that computes a new target assignment sees the group through
  ``UpdatedMembersAndTargetAssignmentView``, an ``OverlayMap`` over those members: the
  heartbeating member, when it is joining, is one of the overlay's *additions*, iterated after every
  member of the base map; an existing member's update replaces it in place (at 1eb7644 the same
  order: ``members.forEach`` then ``updatedMembers.forEach`` into the one ``HashMap``);
* ``build`` puts every member in that order into ``new HashMap<>()``: the assignor iterates that
  map's key set, Java 17's ``HashMap`` order (:func:`heuristics.java_order.java_order`) for this
  insertion order, which decides the order only between ids that share a bucket.

Which member is joining: the scenario's ``"joining"`` says who sent the heartbeat (the problem's
``joining``, :mod:`problem.joining`), and a port's ``joining=`` keyword overrides it
(:func:`joining_of`); a scenario that does not say has nobody joining.  :func:`joining_member` is
the guess ``tools/kafka_differential --joining last`` makes instead: the last member listed, when it
claims nothing (when it claims partitions, every member is in the group's map already).

``BaseHashTable`` (``timeline/BaseHashTable.java``): a table of 2 slots at ``expectedSize`` 0,
doubled before a put when ``(size + 1) * 0.75 > slots``; an element's slot is the top bits of
``hashCode() * -7046029254386353131`` (Knuth's multiplicative hashing, 64-bit, as many bits as
the table has slots); a slot holds its elements in insertion order, and a doubling rehashes the
old slots in order, each element appended to its new slot.  Iteration (the current table's
``CurrentIterator``, ``SnapshottableHashTable.java``) walks the slots in order, each slot's elements
from the last put to the first (it unpacks a slot into a list and takes from its end).
"""

from __future__ import annotations

from typing import Callable, Hashable, Iterable, Sequence, TypeVar

from assignment_oracle.heuristics.java_order import java_order, string_hash

__all__ = [
    "coordinator_member_order",
    "find_slot",
    "joining_member",
    "joining_of",
    "listed_member_order",
    "timeline_order",
]

K = TypeVar("K", bound=Hashable)

#: ``BaseHashTable.MAX_LOAD_FACTOR`` (``0.75f``, compared as a double: exactly 0.75).
MAX_LOAD_FACTOR = 0.75
MIN_CAPACITY = 2
MAX_CAPACITY = 1 << 30
#: Knuth's multiplier as Java's ``long`` (``-7046029254386353131L``), modulo 2**64.
_MULTIPLIER = -7046029254386353131 & 0xFFFFFFFFFFFFFFFF
_MASK64 = 0xFFFFFFFFFFFFFFFF


def find_slot(hash_code: int, slots: int) -> int:
    """``BaseHashTable.findSlot``: the top ``log2(slots)`` bits of the 64-bit product, as Java computes it
    (an ``int`` hash sign-extended to ``long``, the product wrapped, shifted without sign)."""
    log2size = slots.bit_length()  # 32 - Integer.numberOfLeadingZeros(slots)
    shift = 65 - log2size
    return ((hash_code * _MULTIPLIER) & _MASK64) >> shift


def _capacity(expected_size: int) -> int:
    """``BaseHashTable.expectedSizeToCapacity``."""
    wanted = -(-expected_size * 4 // 3) if expected_size > 0 else 0  # ceil(expected / 0.75)
    power = 1 << (wanted - 1).bit_length() if wanted > 0 else 0
    return max(MIN_CAPACITY, min(MAX_CAPACITY, power))


def timeline_order(keys: Iterable[K], hash_code: Callable[[K], int] = string_hash, expected_size: int = 0) -> list[K]:
    """The keys (distinct, put in this order) as a ``TimelineHashMap`` built with ``expected_size``
    iterates them (at the latest epoch: the current table)."""
    slots: list[list[K]] = [[] for _ in range(_capacity(expected_size))]
    hashes: dict[K, int] = {}
    size = 0
    for key in keys:
        if (size + 1) * MAX_LOAD_FACTOR > len(slots) and len(slots) < MAX_CAPACITY:
            grown: list[list[K]] = [[] for _ in range(len(slots) * 2)]
            for chain in slots:  # rehash: old slots in order, each element appended to its new slot
                for old in chain:
                    grown[find_slot(hashes[old], len(grown))].append(old)
            slots = grown
        hashes[key] = hash_code(key)
        slots[find_slot(hashes[key], len(slots))].append(key)
        size += 1
    # CurrentIterator (SnapshottableHashTable.java): a slot's elements are unpacked into a list and handed out
    # from its end (ready.remove(ready.size() - 1)): each slot backwards.
    return [key for chain in slots for key in reversed(chain)]


def joining_member(join_order: Sequence[str], claims: Callable[[str], bool]) -> str | None:
    """The member whose heartbeat computes the assignment as it joins: the last one listed, when it claims
    nothing (``claims(member)`` false); ``None`` when every member is in the group's map already."""
    if join_order and not claims(join_order[-1]):
        return join_order[-1]
    return None


def joining_of(problem, joining: str | None, port: str) -> str | None:
    """The member a port puts after the others in Java's order: ``joining`` when given, else the problem's own
    (its scenario's ``"joining"``); ``None``: nobody.  One that is not a member of the group (a keyword, or a
    problem derived without that member) is a ``ValueError`` naming ``port``."""
    chosen = problem.joining if joining is None else joining
    if chosen is not None and chosen not in problem.member_index:
        raise ValueError(f"{port}: the joining member {chosen!r} is not in the group")
    return chosen


def coordinator_member_order(join_order: Sequence[str], joining: str | None = None) -> list[str]:
    """``groupSpec.memberIds()`` as the coordinator fills it: the members but ``joining`` put into the group's
    ``TimelineHashMap`` in ``join_order``, iterated, then ``joining`` (the overlay's addition), each put in
    that order into ``TargetAssignmentBuilder``'s ``HashMap``, iterated as Java 17 does."""
    base = [m for m in join_order if m != joining]
    filled = timeline_order(base) + ([joining] if joining is not None else [])
    return java_order(filled, string_hash)  # type: ignore[return-value]


def listed_member_order(member_order: Iterable[str], member_ids: Iterable[str]) -> list[str]:
    """``groupSpec.memberIds()`` in an order a caller fixed (as Kafka's tests do with a ``LinkedHashMap``).

    Returns ``member_order`` as a list; raises ``ValueError`` unless it names every one of ``member_ids``
    exactly once.
    """
    members = list(member_order)
    if sorted(members) != sorted(member_ids):
        raise ValueError("member_order must name every member of the group once")
    return members
