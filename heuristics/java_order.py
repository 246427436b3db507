"""The order in which Java 17 iterates a ``java.util.HashMap`` or ``HashSet``: what Kafka's assignors see.

Guarantee: for keys whose ``hashCode`` is given exactly (:func:`string_hash` for
``String``, :func:`topic_partition_hash` for Kafka's ``TopicPartition``,
:func:`uuid_hash` for Kafka's ``Uuid``), a :class:`JavaHashMap` built by the same
constructor and the same sequence of puts and removes iterates its keys in the
order Java 17's ``HashMap`` does.  ``tests/heuristics/test_java_order.py`` checks
this against a real JVM on thousands of random key sequences and every
constructor below.

Why it matters: Kafka's assignors iterate ``HashMap``\\ s and ``HashSet``\\ s of
member ids and topic ids (``consumerToOwnedPartitions`` in
``AbstractStickyAssignor``'s constrained builder, the uniform assignor's members),
and where two members are equally good the first one iterated wins.  A Kafka
test written against fixed ids (``testMaxQuotaConsumerMoreThanNumExpectedMaxCapacityMembers``
expects consumer3, consumer2, consumer1) encodes that order; a port that
iterates in sorted order gives the mirror image.

How Java 17's ``HashMap`` orders keys (``java/util/HashMap.java``; the reasoning
the code below follows step by step):

* a key's bucket is ``spread(h) & (capacity - 1)`` with ``spread(h) = h ^ (h >>> 16)``;
* iteration walks buckets 0, 1, ... and each bucket's chain in insertion order
  (a new key is appended at the end of its chain; removing one unlinks it);
* the table is allocated at the first put: 16 buckets by default, or
  ``tableSizeFor(initialCapacity)`` (the next power of two) when a capacity was
  given; it doubles when the size exceeds ``capacity * 0.75``, and a doubling
  splits each chain into the keys that stay and those that move up by the old
  capacity, each part keeping its order;
* ``computeIfAbsent`` (:meth:`JavaHashMap.compute_if_absent`) differs: it puts a new key at the HEAD
  of its chain, and grows a full table at the start of the next call rather than after the put;
* a chain reaching 8 keys in a table smaller than 64 buckets doubles the table
  instead; in a larger table it becomes a red-black tree, whose iteration order
  is not emulated here: :class:`TreeBinNotEmulated` says so (member ids hash
  far too evenly for this to happen outside adversarial input);
* ``new HashMap<>(map)`` (and ``putAll`` into an empty map) sizes the table
  for ``map.size() / 0.75 + 1`` in ``float`` arithmetic, then puts in ``map``'s
  iteration order; ``new HashSet<>(collection)`` uses ``max((int) (size / .75f) + 1, 16)``.
"""

from __future__ import annotations

import struct
from typing import Callable, Hashable, Iterable, Iterator

__all__ = [
    "DEFAULT_CAPACITY",
    "ITERATION_ORDERS",
    "check_iteration_order",
    "JavaHashMap",
    "TreeBinNotEmulated",
    "hash_set_copy",
    "grouped_order",
    "hash_map_copy",
    "java_order",
    "string_hash",
    "topic_partition_hash",
    "uuid_hash",
]

#: How a Kafka port iterates what Kafka keeps in hash maps and sets: ``"sorted"`` (member ids and topic
#: names in sorted order, the documented default) or ``"java"`` (as Java 17 iterates them, this module).
ITERATION_ORDERS = ("sorted", "java")


def check_iteration_order(iteration_order: str) -> None:
    """Raise ``ValueError`` naming :data:`ITERATION_ORDERS` unless ``iteration_order`` is one of them."""
    if iteration_order not in ITERATION_ORDERS:
        raise ValueError(f"iteration_order must be one of {', '.join(ITERATION_ORDERS)}, got {iteration_order!r}")


DEFAULT_CAPACITY = 16
MAXIMUM_CAPACITY = 1 << 30
TREEIFY_THRESHOLD = 8
MIN_TREEIFY_CAPACITY = 64
LOAD_FACTOR = 0.75


def _int32(value: int) -> int:
    """``value`` wrapped to Java's ``int`` (two's complement, 32 bits)."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def string_hash(text: str) -> int:
    """``String.hashCode()``: ``s[0]*31^(n-1) + ... + s[n-1]`` over UTF-16 code units, as an ``int``."""
    h = 0
    units = text.encode("utf-16-be", "surrogatepass")
    for (unit,) in struct.iter_unpack(">H", units):
        h = (31 * h + unit) & 0xFFFFFFFF
    return _int32(h)


def topic_partition_hash(topic: str, partition: int) -> int:
    """Kafka's ``TopicPartition.hashCode()``: ``31 * (31 + partition) + topic.hashCode()``."""
    return _int32(31 * (31 + partition) + string_hash(topic))


def uuid_hash(most_significant_bits: int, least_significant_bits: int) -> int:
    """Kafka's ``Uuid.hashCode()``: the two halves of ``most ^ least`` xor-ed, as an ``int``."""
    xor = (most_significant_bits ^ least_significant_bits) & 0xFFFFFFFFFFFFFFFF
    return _int32((xor >> 32) ^ xor)


def _spread(h: int) -> int:
    """``HashMap.hash``: the high half folded into the low half (``h ^ (h >>> 16)``), unsigned here."""
    h &= 0xFFFFFFFF
    return h ^ (h >> 16)


def _table_size_for(capacity: int) -> int:
    """``HashMap.tableSizeFor``: the smallest power of two >= ``capacity`` (1 for 0 and 1)."""
    if capacity <= 1:
        return 1
    return min(1 << (capacity - 1).bit_length(), MAXIMUM_CAPACITY)


def _float32(value: float) -> float:
    return struct.unpack("f", struct.pack("f", value))[0]


class TreeBinNotEmulated(NotImplementedError):
    """Java turned one of the map's buckets into a red-black tree (8 keys in a bucket of a table of 64 or
    more); its iteration order then depends on the tree and is not emulated."""


class JavaHashMap:
    """The keys of a Java 17 ``HashMap`` (or ``HashSet``) in iteration order, under puts and removes.

    ``hash_of(key)`` is the key's Java ``hashCode()``; ``initial_capacity``
    is the ``int`` given to ``new HashMap<>(int)`` (``None``: the default
    constructor).  Values are not kept: only the order matters here.
    """

    def __init__(self, hash_of: Callable[[Hashable], int], initial_capacity: int | None = None) -> None:
        if initial_capacity is not None and initial_capacity < 0:
            raise ValueError(f"Illegal initial capacity: {initial_capacity}")
        self._hash_of = hash_of
        self._table: list[list[tuple[int, Hashable]]] | None = None
        # Before the table exists, Java keeps the initial capacity in ``threshold`` (0: the default).
        self._threshold = 0 if initial_capacity is None else _table_size_for(initial_capacity)
        self._size = 0
        self._where: dict[Hashable, int] = {}  # key -> its spread hash (membership, as equals does)

    # -- Java's operations --------------------------------------------------------

    def put(self, key: Hashable) -> None:
        """``map.put(key, ...)`` / ``set.add(key)``: a new key joins the end of its bucket's chain."""
        if key in self._where:
            return
        h = _spread(self._hash_of(key))
        if self._table is None:
            self._resize()
        assert self._table is not None
        chain = self._table[h & (len(self._table) - 1)]
        chain.append((h, key))
        self._where[key] = h
        if len(chain) - 1 >= TREEIFY_THRESHOLD:  # Java's binCount >= TREEIFY_THRESHOLD - 1 before the append
            self._treeify_bin(chain)
        self._size += 1
        if self._size > self._threshold:
            self._resize()

    def compute_if_absent(self, key: Hashable) -> None:
        """``map.computeIfAbsent(key, f)`` (``f`` never null): unlike ``put``, it grows a full table *before*
        looking (``size > threshold``, even when ``key`` is there) and puts a new key at the HEAD of its
        bucket's chain.  ``Collectors.groupingBy`` and Kafka's ``CollectionUtils.groupPartitionsByTopic``
        fill their maps this way."""
        if self._table is None or self._size > self._threshold:
            self._resize()
        if key in self._where:
            return
        assert self._table is not None
        h = _spread(self._hash_of(key))
        chain = self._table[h & (len(self._table) - 1)]
        chain.insert(0, (h, key))
        self._where[key] = h
        if len(chain) - 1 >= TREEIFY_THRESHOLD - 1:  # Java's binCount (the chain before) >= TREEIFY_THRESHOLD - 1
            self._treeify_bin(chain)
        self._size += 1

    def _treeify_bin(self, chain: list) -> None:
        """``treeifyBin`` of a bucket grown long: a table under ``MIN_TREEIFY_CAPACITY`` buckets doubles
        instead; a larger one would make the bucket a tree, whose order is not emulated
        (:class:`TreeBinNotEmulated`)."""
        assert self._table is not None
        if len(self._table) < MIN_TREEIFY_CAPACITY:
            self._resize()
        else:
            raise TreeBinNotEmulated(
                f"{len(chain)} keys share one bucket of a {len(self._table)}-bucket HashMap: Java makes it a tree"
            )

    def put_all(self, keys: Iterable[Hashable]) -> None:
        """``map.putAll(other)`` / ``set.addAll(collection)`` with ``keys`` in ``other``'s iteration order."""
        keys = list(keys)
        if keys:
            if self._table is None:  # pre-size, in float arithmetic as Java 17 does
                wanted = _float32(_float32(len(keys) / LOAD_FACTOR) + 1.0)
                t = int(wanted) if wanted < MAXIMUM_CAPACITY else MAXIMUM_CAPACITY
                if t > self._threshold:
                    self._threshold = _table_size_for(t)
            else:
                while len(keys) > self._threshold and len(self._table) < MAXIMUM_CAPACITY:
                    self._resize()
        for key in keys:
            self.put(key)

    def remove(self, key: Hashable) -> None:
        """``map.remove(key)``: the key leaves its chain; the others keep their order."""
        h = self._where.pop(key, None)
        if h is None or self._table is None:
            return
        chain = self._table[h & (len(self._table) - 1)]
        chain.remove((h, key))
        self._size -= 1

    def __iter__(self) -> Iterator[Hashable]:
        for chain in self._table or ():
            for _, key in chain:
                yield key

    def __len__(self) -> int:
        return self._size

    def __contains__(self, key: object) -> bool:
        return key in self._where

    # -- HashMap.resize -------------------------------------------------------------

    def _resize(self) -> None:
        old = self._table
        old_capacity = 0 if old is None else len(old)
        old_threshold = self._threshold
        new_threshold = 0
        if old_capacity > 0:
            if old_capacity >= MAXIMUM_CAPACITY:
                self._threshold = 2**31 - 1
                return
            new_capacity = old_capacity << 1
            if new_capacity < MAXIMUM_CAPACITY and old_capacity >= DEFAULT_CAPACITY:
                new_threshold = old_threshold << 1
        elif old_threshold > 0:  # the initial capacity was kept in threshold
            new_capacity = old_threshold
        else:  # the default constructor
            new_capacity = DEFAULT_CAPACITY
            new_threshold = int(LOAD_FACTOR * DEFAULT_CAPACITY)
        if new_threshold == 0:
            ft = _float32(new_capacity * LOAD_FACTOR)
            new_threshold = int(ft) if new_capacity < MAXIMUM_CAPACITY and ft < MAXIMUM_CAPACITY else 2**31 - 1
        self._threshold = new_threshold
        table: list[list[tuple[int, Hashable]]] = [[] for _ in range(new_capacity)]
        for index, chain in enumerate(old or ()):
            for h, key in chain:  # lo keys stay at index, hi keys move to index + old capacity, in order
                table[index + (old_capacity if h & old_capacity else 0)].append((h, key))
        self._table = table


def java_order(
    keys: Iterable[Hashable], hash_of: Callable[[Hashable], int] = string_hash, initial_capacity: int | None = None
) -> list[Hashable]:
    """``keys`` put one by one into ``new HashMap<>()`` (or ``new HashMap<>(initial_capacity)``), in the
    order Java iterates them.  Without a capacity this is also ``new HashSet<>()`` filled by ``add``."""
    table = JavaHashMap(hash_of, initial_capacity)
    for key in keys:
        table.put(key)
    return list(table)


def grouped_order(keys: Iterable[Hashable], hash_of: Callable[[Hashable], int] = string_hash) -> list[Hashable]:
    """``keys`` (repeats allowed) given one by one to ``computeIfAbsent`` of a ``new HashMap<>()``, in the order
    Java iterates the map: the keys of ``Collectors.groupingBy`` or Kafka's ``groupPartitionsByTopic``."""
    table = JavaHashMap(hash_of)
    for key in keys:
        table.compute_if_absent(key)
    return list(table)


def hash_map_copy(keys: Iterable[Hashable], hash_of: Callable[[Hashable], int] = string_hash) -> list[Hashable]:
    """``new HashMap<>(map)`` where ``map`` iterates ``keys`` in this order: the copy's iteration order."""
    table = JavaHashMap(hash_of)
    table.put_all(keys)
    return list(table)


def hash_set_copy(
    keys: Iterable[Hashable], hash_of: Callable[[Hashable], int] = string_hash, size: int | None = None
) -> list[Hashable]:
    """``new HashSet<>(collection)`` where ``collection`` iterates ``keys`` in this order; ``size`` is what
    the collection's ``size()`` answers when that is not the number of keys it iterates (Kafka's
    ``TopicIds`` counts topic names it cannot resolve, and iterates only the ids it can)."""
    keys = list(keys)
    capacity = max(int(_float32((len(keys) if size is None else size) / _float32(LOAD_FACTOR))) + 1, 16)
    table = JavaHashMap(hash_of, capacity)
    for key in keys:
        table.put(key)
    return list(table)
