"""Seeded scenario generators: the families of rebalances that matter, as :class:`Problem` values.

One entry point, :func:`generate`, and a registry, :data:`FAMILIES`::

    generate("random-subsets", seed=7, members=40, topics=12, subscribe=0.3, previous="balanced", churn=2)

The same family, seed and parameters give the same problem, byte for byte in
``problem.scenario_json.dumps(problem.to_mapping())`` (with the same numpy:
the draws come from ``numpy.random.default_rng``, never from global state).

The families (``describe(name)`` lists each one's parameters and defaults):

``uniform``
    Every member subscribes to every topic: Kafka's common case, where
    RoundRobin and the constrained sticky path promise exact balance.
``random-subsets``
    Each member subscribes to each topic with probability ``subscribe``.
``skewed-sizes``
    Random subsets over topics whose partition counts are log-normal (a few
    huge topics, many small ones), capped at ``max_partitions``.
``zipf``
    Topic popularity follows Zipf's law: a member subscribes to the topic of
    rank ``k`` (``t0000`` is rank 1) with probability ``top * k**-exponent``.
``kip49-rolling``
    KIP-49's rolling subscription update: at generation ``g`` every member
    subscribed to the base topics and owned a balanced assignment of them;
    now the first ``updated`` members (by id) already subscribe to the base
    *and* the new topics, the others not yet.
``stream-join``
    Topic pairs with equal partition counts (``clicks-i``/``impressions-i``)
    that every member joins (KIP-315); ``extra_partitions`` grows
    ``clicks-0000`` after the previous generation (a partition-count
    increase that breaks co-partitioning).
``join-groups``
    ``groups`` join groups of ``group_size`` topics (``j0000-a``, ``j0000-b``,
    ...) to co-partition, and ``topics`` free topics (``t0000``, ...); each
    topic's partition count is drawn on its own, so a group's topics may
    differ.  A member subscribes to a whole group, or a free topic, with
    probability ``subscribe``.  The scenario carries ``join_groups``: every
    assignor is also judged against the co-partitioned optimum.  With
    ``weighted``, partitions weigh a consumer lag as in ``weighted`` (units
    weigh their partitions together): judged on co-partitioned weighted loads
    too.
``weighted``
    ``random-subsets`` with a weight per partition (consumer lag: log-normal,
    median ``lag_median``, shape ``lag_sigma``); the scenario carries
    ``weights``: every assignor is also judged on weighted loads.
``racks``
    Members carry ``client.rack`` values ``rack-0 .. rack-(R-1)``.

Every family also takes ``zombies`` (with a previous generation): KIP-341's
stale claims, the shape of KAFKA-7026.

How a scenario is built, for every family:

1. **Layout** (the family's own step): topics and partition counts, and a
   boolean subscription matrix, rows = members, columns = topics.
2. **Previous generation** (``previous``): the original members own
   partitions at ``generation``: ``"balanced"`` gives each topic's
   partitions to its least-loaded subscribers (topics with fewest
   subscribers first, then more partitions, then name), the loads KIP-49's
   greedy reaches, within one of each other when subscriptions are
   identical; ``"random"`` gives each partition to a uniformly random
   subscriber.  Claims are always valid (no stale or tied claims: the
   ``rebalances`` strategy draws those).
3. **Churn** (``churn``): that many of the original members leave (their
   claims vanish with them) and as many new members join, with ids after the
   originals, subscribing by the family's rule and claiming nothing.
4. **Zombies** (``zombies``): that many of the remaining original members
   missed generation ``generation``: their sessions timed out, the group
   rebalanced without them (step 2 is then computed over the others only),
   and they rejoin now claiming what they owned at ``generation - 1``, when
   everybody was there (the ``previous`` rule over all the originals).  Their
   claims overlap the current owners' claims at ``generation``: KIP-341's
   generation check gives each such partition to its current owner, and the
   pre-KIP-341 StickyAssignor (``sticky-kip54``) honours both claims.
5. **Racks** (``racks``): each member gets a rack, uniformly at random.
6. **Static members** (``static``): each member is static with that
   probability and carries a ``group.instance.id``, ``instance-NNNN``
   numbered by a random permutation, so Kafka's static-first order
   (KIP-345) differs from member id order.
7. **Replica racks** (``replicas``): each partition's replicas sit on that
   many distinct racks drawn uniformly from the members' racks (KIP-881's
   input); 0 leaves partitions without rack information.

Each step draws from its own stream (``SeedSequence(seed, spawn_key=(k,))``),
so turning one knob does not reshuffle the others: adding racks, a previous
generation or churn leaves the topics and subscriptions as they were, and
more members only append rows.

Member ids are ``m`` plus a zero-padded number (``m0007``), topics ``t0000``
(stream-join: ``clicks-0000``, ``impressions-0000``), so name order is number
order.  Everything is vectorised per topic at most (no per-partition Python
work until the owned partition lists are built), so thousands of members and
hundreds of thousands of partitions generate in about a second.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import numbers
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Mapping, NamedTuple

import numpy as np

from assignment_oracle.problem.json_fields import INT32_MAX
from assignment_oracle.problem.model import Member, Problem, Topic

__all__ = [
    "Family",
    "FAMILIES",
    "Layout",
    "Parameter",
    "PARAMETERS",
    "PREVIOUS",
    "UnknownFamily",
    "describe",
    "generate",
    "get_family",
]

#: The values of the ``previous`` parameter.
PREVIOUS = (None, "balanced", "random")


# -- parameters ----------------------------------------------------------------


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


#: The most members, or topics, a generated group may have (Kafka's own stress test has 1,000,000
#: partitions): a bigger grid value is refused when the spec is read, not met by a worker's MemoryError.
GROUP_MAXIMUM = 1_000_000


def _is_real(value: Any) -> bool:
    # An int is finite however large (math.isfinite would overflow converting 10**400 to a float).
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and (_is_int(value) or math.isfinite(value))


def _at_least(minimum: int, maximum: int | None = None) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        if not _is_int(value):
            return f"must be an integer, got {value!r}"
        if value < minimum:
            return f"must be at least {minimum}, got {value!r}"
        if maximum is not None and value > maximum:
            return f"must be at most {maximum}, got {value!r}"
        return None

    return check


def _probability(value: Any) -> str | None:
    if not _is_real(value) or not 0 < value <= 1:
        return f"must be in (0, 1], got {value!r}"
    return None


def _share(value: Any) -> str | None:
    if not _is_real(value) or not 0 <= value <= 1:
        return f"must be in [0, 1], got {value!r}"
    return None


def _boolean(value: Any) -> str | None:
    return None if isinstance(value, bool) else f"must be true or false, got {value!r}"


def _non_negative_real(value: Any) -> str | None:
    if not _is_real(value) or value < 0:
        return f"must be a non-negative number, got {value!r}"
    return None


def _partitions(value: Any) -> str | None:
    if _is_int(value):
        return _at_least(1, INT32_MAX)(value)
    if isinstance(value, (tuple, list)) and len(value) == 2 and all(_is_int(v) for v in value):
        low, high = value
        if 1 <= low <= high <= INT32_MAX:
            return None
    return f"must be a count or a pair [low, high] with 1 <= low <= high, got {value!r}"


def _previous(value: Any) -> str | None:
    return None if value in PREVIOUS else f"must be one of None, 'balanced', 'random', got {value!r}"


def _updated(value: Any) -> str | None:
    return None if value is None else _at_least(0)(value)


@dataclass(frozen=True)
class Parameter:
    """One generator parameter: its meaning (one line) and its check.

    ``check(value)`` returns what is wrong with a value (``"must be ..., got
    ..."``) or None; the same name means the same thing in every family.
    """

    name: str
    doc: str
    check: Callable[[Any], str | None] = field(repr=False)


_PARAMETER_LIST = (
    Parameter("members", "members in the group (churn replaces some, the count stays)", _at_least(1, GROUP_MAXIMUM)),
    Parameter("topics", "topics (kip49-rolling: the base topics)", _at_least(1, GROUP_MAXIMUM)),
    Parameter("partitions", "partitions per topic: a count, or [low, high] drawn uniformly per topic", _partitions),
    Parameter(
        "subscribe",
        "probability that a member subscribes to each topic (one with none takes its nearest miss)",
        _probability,
    ),
    Parameter("median", "median partition count of the log-normal topic sizes", _at_least(1)),
    Parameter(
        "sigma",
        "log-normal shape of the topic sizes: 0 makes them all `median`, 1.5 is heavy-tailed",
        _non_negative_real,
    ),
    Parameter("max_partitions", "cap on a topic's partition count", _at_least(1, INT32_MAX)),
    Parameter(
        "exponent",
        "Zipf exponent s: the topic of rank k is subscribed with probability top * k**-s",
        _non_negative_real,
    ),
    Parameter("top", "probability of subscribing to the most popular topic (rank 1)", _probability),
    Parameter(
        "new_topics", "topics added by the rolling update (named after the base topics)", _at_least(1, GROUP_MAXIMUM)
    ),
    Parameter(
        "updated", "members (the first by id) already on the new subscription; None: half, rounded down", _updated
    ),
    Parameter("pairs", "topic pairs clicks-i/impressions-i with equal partition counts", _at_least(1)),
    Parameter("groups", "join groups of topics to co-partition (Kafka Streams joins)", _at_least(1)),
    Parameter("group_size", "topics per join group", _at_least(2, 26)),
    Parameter(
        "weighted", "join-groups: partitions weigh a consumer lag (lag_median, lag_sigma) as in weighted", _boolean
    ),
    Parameter("lag_median", "median partition weight (consumer lag) of the weighted family", _at_least(1)),
    Parameter(
        "lag_sigma", "log-normal shape of the partition weights: 0 makes them all `lag_median`", _non_negative_real
    ),
    Parameter("extra_partitions", "partitions added to clicks-0000 after the previous generation", _at_least(0)),
    Parameter("previous", "the previous generation's owners: None, 'balanced' or 'random'", _previous),
    Parameter(
        "churn", "original members that leave after the previous generation, and new ones that join", _at_least(0)
    ),
    Parameter("generation", "the previous generation's number, sent with the claims", _at_least(0, INT32_MAX)),
    Parameter("racks", "racks rack-0 .. rack-(R-1) the members are spread over at random; 0: no racks", _at_least(0)),
    Parameter(
        "zombies",
        "original members that missed `generation` and rejoin claiming generation - 1 (KIP-341)",
        _at_least(0),
    ),
    Parameter(
        "replicas",
        "racks of each partition's replicas: that many distinct racks of rack-0 .. rack-(R-1) "
        "drawn per partition (KIP-881); 0: no partition racks",
        _at_least(0),
    ),
    Parameter(
        "rack_skew",
        "Zipf exponent of replica placement over racks: rack-k holds replicas in proportion to "
        "(k+1)**-rack_skew (brokers unevenly spread; members on the small racks find few local partitions); "
        "0: uniform",
        _non_negative_real,
    ),
    Parameter(
        "static",
        "probability that a member is static (KIP-345): it carries a group.instance.id, "
        "instance-NNNN numbered in a random order unrelated to member ids",
        _share,
    ),
)

#: Parameter name -> :class:`Parameter`, for every family.
PARAMETERS: Mapping[str, Parameter] = MappingProxyType({p.name: p for p in _PARAMETER_LIST})

# Every family takes these; a family's defaults may override them.
_COMMON = {
    "members": 12,
    "previous": None,
    "churn": 0,
    "generation": 1,
    "racks": 0,
    "zombies": 0,
    "replicas": 0,
    "rack_skew": 0.0,
    "static": 0.0,
}


# -- streams and layout --------------------------------------------------------


class _Streams(NamedTuple):
    """One independent generator per step, so one knob does not reshuffle the others."""

    sizes: np.random.Generator
    subscriptions: np.random.Generator
    previous: np.random.Generator
    churn: np.random.Generator
    racks: np.random.Generator
    zombies: np.random.Generator
    replicas: np.random.Generator
    static: np.random.Generator
    weights: np.random.Generator

    @classmethod
    def of(cls, seed: int) -> _Streams:
        return cls(*(np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(k,))) for k in range(9)))


@dataclass(frozen=True, eq=False)
class Layout:
    """What a family decides: topics, their sizes, and who subscribes to what.

    Topic names are sorted (columns are in name order).  ``subscribed`` has
    one row per member, originals first (``members`` of them) then the
    members that join after churn; ``previous_subscribed`` has one row per
    original member, as subscribed at the previous generation, and
    ``previous_partitions`` the counts then (they differ from the current
    ones only when a family grows a topic).
    """

    topic_names: tuple[str, ...]
    partitions: np.ndarray
    subscribed: np.ndarray
    previous_partitions: np.ndarray
    previous_subscribed: np.ndarray
    #: Groups of topics to co-partition (the ``join-groups`` family), each sorted.
    join_groups: tuple[tuple[str, ...], ...] = ()
    #: Partition weights per topic (the ``weighted`` family), sorted by topic.
    weights: tuple[tuple[str, tuple[int, ...]], ...] = ()


def _names(prefix: str, count: int, width: int = 4) -> tuple[str, ...]:
    """``prefix`` plus zero-padded numbers, at least ``width`` digits, so name order is number order."""
    width = max(width, len(str(count - 1)))
    return tuple(f"{prefix}{i:0{width}d}" for i in range(count))


def _sizes(partitions: int | tuple[int, int], count: int, rng: np.random.Generator) -> np.ndarray:
    if _is_int(partitions):
        return np.full(count, int(partitions), dtype=np.int64)
    low, high = partitions
    return rng.integers(low, high, size=count, endpoint=True, dtype=np.int64)


def _rows(p: Mapping[str, Any]) -> int:
    return p["members"] + p["churn"]


def _subscribe_below(draws: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """Member subscribes to topic where its uniform draw is below the topic's threshold.

    A member left with no topic takes the one it came nearest to (smallest
    draw / threshold): no extra draws, so the row stays independent of the
    number of rows.
    """
    subscribed = draws < thresholds
    empty = np.flatnonzero(~subscribed.any(axis=1))
    if empty.size:
        nearest = np.argmin(draws[empty] / thresholds, axis=1)
        subscribed[empty, nearest] = True
    return subscribed


def _uniform(p: Mapping[str, Any], rng: _Streams) -> Layout:
    sizes = _sizes(p["partitions"], p["topics"], rng.sizes)
    subscribed = np.ones((_rows(p), p["topics"]), dtype=bool)
    return Layout(_names("t", p["topics"]), sizes, subscribed, sizes, subscribed[: p["members"]])


def _random_subsets(p: Mapping[str, Any], rng: _Streams, sizes: np.ndarray | None = None) -> Layout:
    if sizes is None:
        sizes = _sizes(p["partitions"], p["topics"], rng.sizes)
    draws = rng.subscriptions.random((_rows(p), p["topics"]))
    subscribed = _subscribe_below(draws, np.full(p["topics"], float(p["subscribe"])))
    return Layout(_names("t", p["topics"]), sizes, subscribed, sizes, subscribed[: p["members"]])


def _skewed_sizes(p: Mapping[str, Any], rng: _Streams) -> Layout:
    # Log-normal with the given median: exp(N(log median, sigma)).
    raw = p["median"] * np.exp(p["sigma"] * rng.sizes.standard_normal(p["topics"]))
    sizes = np.clip(np.rint(raw), 1, p["max_partitions"]).astype(np.int64)
    return _random_subsets(p, rng, sizes)


def _zipf(p: Mapping[str, Any], rng: _Streams) -> Layout:
    sizes = _sizes(p["partitions"], p["topics"], rng.sizes)
    ranks = np.arange(1, p["topics"] + 1, dtype=np.float64)
    thresholds = p["top"] * ranks ** -float(p["exponent"])
    draws = rng.subscriptions.random((_rows(p), p["topics"]))
    subscribed = _subscribe_below(draws, thresholds)
    return Layout(_names("t", p["topics"]), sizes, subscribed, sizes, subscribed[: p["members"]])


def _kip49_rolling(p: Mapping[str, Any], rng: _Streams) -> Layout:
    base, total = p["topics"], p["topics"] + p["new_topics"]
    updated = p["members"] // 2 if p["updated"] is None else p["updated"]
    sizes = _sizes(p["partitions"], total, rng.sizes)
    previous = np.zeros((p["members"], total), dtype=bool)
    previous[:, :base] = True
    subscribed = np.zeros((_rows(p), total), dtype=bool)
    subscribed[:, :base] = True
    # The first `updated` originals restarted with the new subscription; so
    # did every member that joins now (it starts on the new configuration).
    subscribed[:updated, base:] = True
    subscribed[p["members"] :, base:] = True
    return Layout(_names("t", total), sizes, subscribed, sizes, previous)


def _stream_join(p: Mapping[str, Any], rng: _Streams) -> Layout:
    pairs = p["pairs"]
    per_pair = _sizes(p["partitions"], pairs, rng.sizes)
    names = _names("clicks-", pairs) + _names("impressions-", pairs)
    previous_sizes = np.concatenate([per_pair, per_pair])
    sizes = previous_sizes.copy()
    sizes[0] += p["extra_partitions"]
    subscribed = np.ones((_rows(p), 2 * pairs), dtype=bool)
    return Layout(names, sizes, subscribed, previous_sizes, subscribed[: p["members"]])


def _join_groups(p: Mapping[str, Any], rng: _Streams) -> Layout:
    """``groups`` join groups of ``group_size`` topics (``j0000-a``, ``j0000-b``, ...) and ``topics`` free
    ones; each topic's partition count drawn on its own, so a group's topics may differ (units of mixed
    sizes).  A member subscribes to a whole group, or to a free topic, with probability ``subscribe``."""
    groups, size, free = p["groups"], p["group_size"], p["topics"]
    letters = "abcdefghijklmnopqrstuvwxyz"
    grouped = [tuple(f"{g}-{letters[k]}" for k in range(size)) for g in _names("j", groups)]
    names = tuple(t for group in grouped for t in group) + _names("t", free)
    sizes = _sizes(p["partitions"], len(names), rng.sizes)
    draws = rng.subscriptions.random((_rows(p), groups + free))
    chosen = _subscribe_below(draws, np.full(groups + free, float(p["subscribe"])))
    subscribed = np.concatenate([np.repeat(chosen[:, :groups], size, axis=1), chosen[:, groups:]], axis=1)
    layout = Layout(names, sizes, subscribed, sizes, subscribed[: p["members"]], tuple(grouped))
    return _with_lag(layout, p, rng) if p["weighted"] else layout


def _weighted(p: Mapping[str, Any], rng: _Streams) -> Layout:
    """``random-subsets`` with a weight per partition: consumer lag, log-normal with median
    ``lag_median`` and shape ``lag_sigma`` (a few hot partitions, many quiet ones), rounded, at least 1."""
    return _with_lag(_random_subsets(p, rng), p, rng)


def _with_lag(layout: Layout, p: Mapping[str, Any], rng: _Streams) -> Layout:
    """``layout`` with a consumer lag per partition (log-normal, median ``lag_median``, shape ``lag_sigma``),
    from the weights' own random stream (nothing else drawn changes)."""
    weights = []
    for name, count in zip(layout.topic_names, layout.partitions.tolist()):
        draws = rng.weights.lognormal(math.log(p["lag_median"]), p["lag_sigma"], size=count)
        weights.append((name, tuple(int(w) for w in np.clip(np.rint(draws), 1, 10**9).tolist())))
    return dataclasses.replace(layout, weights=tuple(weights))


# -- the shared steps: previous generation, churn, racks -------------------------


def _water_fill(loads: np.ndarray, partitions: int) -> np.ndarray:
    """How many of ``partitions`` each member gets when each goes to the least loaded.

    Placing partitions one by one on the least-loaded member (ties to the
    smallest position) ends with the lightest members raised to a common
    level and the remainder one each to the smallest positions at that
    level; this computes that end state directly, in O(k log k) for k
    members, instead of one step per partition.
    """
    order = np.lexsort((np.arange(loads.size), loads))
    ordered = loads[order]
    below = np.concatenate(([0], np.cumsum(ordered)))
    # cost[j]: partitions needed to lift the j+1 lightest to ordered[j] (non-decreasing).
    cost = np.arange(1, loads.size + 1) * ordered - below[1:]
    lifted = int(np.searchsorted(cost, partitions, side="right"))
    raise_by, extra = divmod(partitions - int(cost[lifted - 1]), lifted)
    members = order[:lifted]
    given = np.zeros(loads.size, dtype=np.int64)
    given[members] = ordered[lifted - 1] + raise_by - loads[members]
    given[np.sort(members)[:extra]] += 1
    return given


def _previous_owners(
    layout: Layout, previous: str, rng: np.random.Generator, absent: np.ndarray | None = None
) -> list[np.ndarray]:
    """Per topic, the original member (row) owning each partition at the previous generation; -1 if none.

    Rows in ``absent`` were not in the group then: they subscribe to nothing.
    """
    subscribed, sizes = layout.previous_subscribed, layout.previous_partitions
    if absent is not None and absent.size:
        subscribed = subscribed.copy()
        subscribed[absent] = False
    owners: list[np.ndarray] = [np.full(int(n), -1, dtype=np.int64) for n in sizes]
    if previous == "random":
        for t in range(sizes.size):
            subscribers = np.flatnonzero(subscribed[:, t])
            if subscribers.size:
                owners[t] = subscribers[rng.integers(0, subscribers.size, size=int(sizes[t]))]
        return owners
    # "balanced": KIP-49's order, fewest subscribers first, then more partitions, then name.
    loads = np.zeros(subscribed.shape[0], dtype=np.int64)
    counts = subscribed.sum(axis=0)
    for t in sorted(range(sizes.size), key=lambda t: (counts[t], -sizes[t], t)):
        subscribers = np.flatnonzero(subscribed[:, t])
        if subscribers.size:
            given = _water_fill(loads[subscribers], int(sizes[t]))
            loads[subscribers] += given
            owners[t] = np.repeat(subscribers, given)
    return owners


def _owned_lists(layout: Layout, owners: list[np.ndarray]) -> dict[int, tuple[tuple[str, tuple[int, ...]], ...]]:
    """Row -> ((topic, partitions), ...), topics and partitions in order, from the per-topic owner arrays."""
    owner = np.concatenate(owners) if owners else np.zeros(0, dtype=np.int64)
    sizes = layout.previous_partitions
    topic = np.repeat(np.arange(sizes.size), sizes)
    partition = np.arange(owner.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    keep = owner >= 0
    owner, topic, partition = owner[keep], topic[keep], partition[keep]
    if owner.size == 0:
        return {}
    # Stable: within a row, entries stay in (topic, partition) order.
    order = np.argsort(owner, kind="stable")
    owner, topic, partition = owner[order], topic[order], partition[order]
    # One group per (row, topic); rows start at some of the group starts.
    starts = np.flatnonzero(np.concatenate(([True], (np.diff(owner) != 0) | (np.diff(topic) != 0))))
    bounds = np.concatenate((starts, [owner.size])).tolist()
    numbers, names = partition.tolist(), layout.topic_names
    groups = [(names[t], tuple(numbers[a:b])) for t, a, b in zip(topic[starts].tolist(), bounds[:-1], bounds[1:])]
    group_owner = owner[starts]
    row_starts = np.flatnonzero(np.concatenate(([True], np.diff(group_owner) != 0)))
    row_bounds = np.concatenate((row_starts, [len(groups)])).tolist()
    return {
        row: tuple(groups[a:b]) for row, a, b in zip(group_owner[row_starts].tolist(), row_bounds[:-1], row_bounds[1:])
    }


def _assemble(layout: Layout, p: Mapping[str, Any], rng: _Streams) -> Problem:
    """Steps 2-4 (previous generation, churn, racks) and the :class:`Problem`."""
    originals, rows = p["members"], _rows(p)
    owned: dict[int, tuple[tuple[str, tuple[int, ...]], ...]] = {}
    leaving = set(rng.churn.choice(originals, size=p["churn"], replace=False).tolist()) if p["churn"] else set()
    zombies: set[int] = set()
    if p["zombies"]:
        staying = np.array([row for row in range(originals) if row not in leaving], dtype=np.int64)
        zombies = set(rng.zombies.choice(staying, size=p["zombies"], replace=False).tolist())
    if p["previous"] is not None:
        absent = np.array(sorted(zombies), dtype=np.int64)
        owned = _owned_lists(layout, _previous_owners(layout, p["previous"], rng.previous, absent))
    if zombies:
        # Generation - 1, everybody there; its own draws, so the current generation is unchanged by them.
        earlier = _owned_lists(layout, _previous_owners(layout, p["previous"], rng.zombies))
        owned.update({row: earlier.get(row, ()) for row in zombies})
    racks = rng.racks.integers(0, p["racks"], size=rows).tolist() if p["racks"] else None
    rack_names = _names("rack-", p["racks"], width=1) if p["racks"] else ()
    instance = None
    if p["static"]:  # step 6: static members, instance ids in an order of their own
        is_static = rng.static.random(rows) < p["static"]
        numbers = rng.static.permutation(rows).tolist()
        width = max(4, len(str(rows - 1)))
        instance = [f"instance-{numbers[row]:0{width}d}" if is_static[row] else None for row in range(rows)]

    ids = _names("m", rows)
    subscriptions: dict[bytes, frozenset[str]] = {}  # identical rows share one frozenset
    members = []
    for row in range(rows):
        if row in leaving:
            continue
        line = layout.subscribed[row]
        key = np.packbits(line).tobytes()
        if key not in subscriptions:
            subscriptions[key] = frozenset(itertools.compress(layout.topic_names, line.tolist()))
        previous_member = p["previous"] is not None and row < originals
        generation = p["generation"] - 1 if row in zombies else p["generation"]
        members.append(
            Member(
                member_id=ids[row],
                topics=subscriptions[key],
                owned=owned.get(row, ()),
                generation=generation if previous_member else None,
                rack=rack_names[racks[row]] if racks is not None else None,
                instance_id=instance[row] if instance is not None else None,
            )
        )
    replica_racks = [None] * len(layout.topic_names)
    if p["replicas"]:  # step 7: each partition's replicas on that many distinct racks
        # Weighted sampling without replacement (Efraimidis-Spirakis: the largest u ** (1 / w)); with equal
        # weights, any R of the racks equally likely (the first branch, kept as it was drawn before rack_skew).
        weights = np.arange(1, p["racks"] + 1, dtype=float) ** -float(p["rack_skew"])
        for i, n in enumerate(layout.partitions.tolist()):
            draws = rng.replicas.random((n, p["racks"]))
            if p["rack_skew"]:
                chosen = np.argsort(-(draws ** (1.0 / weights)), axis=1)[:, : p["replicas"]]
            else:
                chosen = np.argsort(draws, axis=1)[:, : p["replicas"]]
            replica_racks[i] = tuple(tuple(rack_names[r] for r in sorted(row)) for row in chosen.tolist())
    topics = tuple(
        Topic(name, int(n), racks)
        for name, n, racks in zip(layout.topic_names, layout.partitions.tolist(), replica_racks)
    )
    return Problem(
        topics=tuple(sorted(topics, key=lambda t: t.name)),
        members=tuple(members),
        join_groups=layout.join_groups,
        weights=layout.weights,
    )


# -- families ------------------------------------------------------------------


@dataclass(frozen=True)
class Family:
    """One scenario family.

    Attributes
    ----------
    name:
        The registry key (``generate(name, seed, ...)``).
    description:
        One line, for listings.
    layout:
        The family's own step: ``layout(params, streams) -> Layout`` (topics,
        sizes, subscriptions); :meth:`generate` adds the shared steps.
    defaults:
        Every parameter the family takes, with its default.
    check:
        Rules across parameters (``params -> message or None``), after each
        parameter passed its own check.
    """

    name: str
    description: str
    layout: Callable[[Mapping[str, Any], _Streams], Layout] = field(repr=False)
    defaults: Mapping[str, Any]
    check: Callable[[Mapping[str, Any]], str | None] = field(default=lambda p: None, repr=False)

    def parameters(self, params: Mapping[str, Any]) -> Mapping[str, Any]:
        """The defaults overridden by ``params``, validated; ``ValueError`` names the family and parameter."""
        unknown = sorted(set(params) - set(self.defaults))
        if unknown:
            raise ValueError(
                f"{self.name}: unknown parameter {unknown[0]!r} (parameters: {', '.join(sorted(self.defaults))})"
            )
        values = {**self.defaults, **params}
        for name, value in values.items():
            if (wrong := PARAMETERS[name].check(value)) is not None:
                raise ValueError(f"{self.name}: {name} {wrong}")
            values[name] = _plain(value)
        for wrong in (_common_check(values, params), self.check(values)):
            if wrong is not None:
                raise ValueError(f"{self.name}: {wrong}")
        return MappingProxyType(values)

    def generate(self, seed: int, **params: Any) -> Problem:
        """The scenario for ``seed`` and ``params`` (see :func:`generate`)."""
        if not _is_int(seed) or seed < 0:
            raise ValueError(f"{self.name}: seed must be a non-negative integer, got {seed!r}")
        values = self.parameters(params)
        streams = _Streams.of(int(seed))
        return _assemble(self.layout(values, streams), values, streams)


def _plain(value: Any) -> Any:
    """Python numbers for numpy ones (they end up in the JSON), a tuple for a ``[low, high]`` list."""
    if isinstance(value, (tuple, list)):
        return tuple(_plain(v) for v in value)
    if _is_int(value):
        return int(value)
    if _is_real(value):
        return float(value)
    return value


def _common_check(values: Mapping[str, Any], given: Mapping[str, Any]) -> str | None:
    if values["churn"] > values["members"]:
        return f"churn must be at most members ({values['members']}), got {values['churn']}"
    if values["zombies"]:
        if values["previous"] is None:
            return (
                f"zombies need a previous generation (previous='balanced' or 'random'), got zombies={values['zombies']}"
            )
        if values["zombies"] > values["members"] - values["churn"]:
            return (
                f"zombies must be at most the members that stay (members - churn = "
                f"{values['members'] - values['churn']}), got {values['zombies']}"
            )
        if values["generation"] < 1:
            return f"zombies need generation >= 1 (they claim generation - 1), got generation={values['generation']}"
    if values["replicas"] > values["racks"]:
        return (
            f"replicas must be at most racks ({values['racks']}): each replica of a partition is on its own rack, "
            f"got {values['replicas']}"
        )
    if values["previous"] is None and values["churn"]:
        return f"churn needs a previous generation (previous='balanced' or 'random'), got churn={values['churn']}"
    if values["previous"] is None and "generation" in given:
        return "generation needs a previous generation (previous='balanced' or 'random')"
    return None


def _kip49_check(values: Mapping[str, Any]) -> str | None:
    if values["previous"] is None:
        return "previous must be 'balanced' or 'random' (the rolling update starts from one), got None"
    if values["updated"] is not None and values["updated"] > values["members"]:
        return f"updated must be at most members ({values['members']}), got {values['updated']}"
    return None


def _skewed_check(values: Mapping[str, Any]) -> str | None:
    if values["median"] > values["max_partitions"]:
        return f"median must be at most max_partitions ({values['max_partitions']}), got {values['median']}"
    return None


def _racks_check(values: Mapping[str, Any]) -> str | None:
    return None if values["racks"] >= 1 else f"racks must be at least 1, got {values['racks']}"


_FAMILY_LIST = (
    Family("uniform", "every member subscribes to every topic", _uniform, {**_COMMON, "topics": 6, "partitions": 8}),
    Family(
        "random-subsets",
        "each member subscribes to each topic with probability `subscribe`",
        _random_subsets,
        {**_COMMON, "topics": 6, "partitions": (1, 12), "subscribe": 0.5},
    ),
    Family(
        "skewed-sizes",
        "random subsets over topics with log-normal partition counts, capped",
        _skewed_sizes,
        {**_COMMON, "topics": 12, "median": 8, "sigma": 1.0, "max_partitions": 256, "subscribe": 0.5},
        _skewed_check,
    ),
    Family(
        "zipf",
        "Zipf topic popularity: rank k subscribed with probability top * k**-exponent",
        _zipf,
        {**_COMMON, "topics": 10, "partitions": (1, 12), "exponent": 1.0, "top": 1.0},
    ),
    Family(
        "kip49-rolling",
        "KIP-49's rolling update: a balanced base assignment, the first `updated` members add new topics",
        _kip49_rolling,
        {
            **_COMMON,
            "members": 6,
            "previous": "balanced",
            "topics": 3,
            "new_topics": 2,
            "partitions": 6,
            "updated": None,
        },
        _kip49_check,
    ),
    Family(
        "stream-join",
        "topic pairs clicks-i/impressions-i with equal partition counts, all members on all",
        _stream_join,
        {**_COMMON, "members": 6, "pairs": 3, "partitions": 8, "extra_partitions": 0},
    ),
    Family(
        "join-groups",
        "join groups of topics to co-partition (sizes drawn per topic) and free topics, subscribed per group",
        _join_groups,
        {
            **_COMMON,
            "groups": 2,
            "group_size": 2,
            "topics": 2,
            "partitions": (4, 8),
            "subscribe": 0.6,
            "weighted": False,
            "lag_median": 1000,
            "lag_sigma": 1.5,
        },
    ),
    Family(
        "weighted",
        "random subsets with a log-normal weight (consumer lag) per partition",
        _weighted,
        {**_COMMON, "topics": 6, "partitions": (1, 12), "subscribe": 0.5, "lag_median": 1000, "lag_sigma": 1.5},
    ),
    Family(
        "racks",
        "members spread over racks rack-0 .. rack-(R-1); subscriptions as random-subsets",
        _random_subsets,
        {**_COMMON, "topics": 6, "partitions": 8, "subscribe": 1.0, "racks": 3},
        _racks_check,
    ),
)

#: Family name -> :class:`Family`, in the order above.
FAMILIES: Mapping[str, Family] = MappingProxyType({f.name: f for f in _FAMILY_LIST})


class UnknownFamily(ValueError):
    """No scenario family is registered under this name."""

    def __init__(self, name: Any):
        super().__init__(f"unknown scenario family {name!r} (known: {', '.join(FAMILIES)})")
        self.name = name


def get_family(name: str) -> Family:
    """The family called ``name``; :class:`UnknownFamily` lists the known ones."""
    try:
        return FAMILIES[name]
    except (KeyError, TypeError):
        raise UnknownFamily(name) from None


def generate(family: str, seed: int, **params: Any) -> Problem:
    """The scenario of ``family`` for ``seed``: a rebalance, as a :class:`Problem`.

    Parameters
    ----------
    family:
        A key of :data:`FAMILIES`.
    seed:
        A non-negative integer.  The same family, seed and parameters give
        the same problem (byte-identical scenario JSON) with the same numpy.
    **params:
        The family's parameters (``describe(family)`` lists them with their
        defaults; :data:`PARAMETERS` says what each means).

    Raises
    ------
    UnknownFamily
        ``family`` is not registered (the message lists the known families).
    ValueError
        An unknown parameter or a bad value, e.g. ``random-subsets:
        subscribe must be in (0, 1], got 2``.

    Examples
    --------
    >>> problem = generate("uniform", 1, members=2, topics=1, partitions=3)
    >>> [m.member_id for m in problem.members], [(t.name, t.partitions) for t in problem.topics]
    (['m0000', 'm0001'], [('t0000', 3)])
    >>> [m.owned for m in generate("uniform", 1, members=2, topics=1, partitions=3, previous="balanced").members]
    [(('t0000', (0, 1)),), (('t0000', (2,)),)]
    """
    return get_family(family).generate(seed, **params)


def describe(family: str) -> str:
    """The family's description and its parameters with defaults, one per line."""
    f = get_family(family)
    lines = [f"{f.name}: {f.description}"]
    width = max(len(f"{name}={value!r}") for name, value in f.defaults.items())
    for name in sorted(f.defaults):
        lines.append(f"  {f'{name}={f.defaults[name]!r}':<{width}}  {PARAMETERS[name].doc}")
    return "\n".join(lines)
