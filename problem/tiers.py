"""The objective's tiers of every kind of group, as records: one table, looked up by name, refusing what it does not know.

Guarantee: :func:`tier` (and every lookup built on it, :func:`pick`) returns the record of a tier the kind of
group has, or raises :class:`UnknownTier` (an
:class:`~assignment_oracle.problem.errors.UnsupportedRequest`) naming the tier and the ones known: a tier
nobody taught a layer about is refused by name, never measured, ordered or explained as another one.

A kind of group (``consumer``, ``streams``, ``share``) has a :class:`TierTable`: its tiers in their
default order, each a :class:`Tier` record saying

* ``name`` and a plain ``description``;
* ``measure``: the attribute of the kind's measures the tier reads (named, not imported: the measures
  live in ``optimal/``, :class:`optimal.request.Measures`, :class:`optimal.streams_request.StreamsMeasures`,
  :class:`optimal.share_request.ShareMeasures`), and ``option``, the request's field that attribute takes
  when it is a method (the balance definition);
* ``sense``: :data:`LEAST` (smaller is better) or :data:`MOST` (larger is better, as partitions kept), which
  gives :meth:`Tier.key`, the value as something smaller-is-better (a list compared lexicographically);
* ``difference``: what a verdict reports when the assignment is worse on the tier (the numbers and the
  members, partitions or tasks involved);
* ``required``: every objective of the kind names it once (else at most once), and ``present_when``: the
  problem's attribute without which the tier plays no part (a Streams group's ``tag-diversity`` needs
  rack-aware tags).

Every layer reads the same records: the requests validate objectives with :meth:`TierTable.check`, the
measures read :meth:`Tier.read`, the engines and the brute force compare with :meth:`TierTable.better`, and
what a layer does per tier is a dict keyed by tier name looked up through :func:`pick`, so a tier added
here and not taught to a layer is refused there by name.  A test adds a dummy tier with
``monkeypatch.setitem(CONSUMER.records, "latency", Tier(...))``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, TypeVar

from assignment_oracle.problem.errors import UnsupportedRequest

__all__ = [
    "LEAST",
    "MOST",
    "BALANCE",
    "RACK",
    "SPREAD",
    "STICKINESS",
    "ACTIVE_BALANCE",
    "TASK_BALANCE",
    "TAG_DIVERSITY",
    "COVERAGE",
    "SHARING",
    "Tier",
    "TierTable",
    "UnknownTier",
    "CONSUMER",
    "STREAMS",
    "SHARE",
    "TABLES",
    "table",
    "tier",
    "pick",
]

#: Smaller is better.
LEAST = "least"
#: Larger is better (the key negates it).
MOST = "most"

# Consumer groups (KIP-54, KIP-881, KAFKA-16277).
BALANCE = "balance"
RACK = "rack"
SPREAD = "spread"
STICKINESS = "stickiness"
# Streams groups (KIP-1071); ``stickiness`` as above.
ACTIVE_BALANCE = "active-balance"
TASK_BALANCE = "task-balance"
TAG_DIVERSITY = "tag-diversity"
# Share groups (KIP-932); ``balance`` and ``stickiness`` as above.
COVERAGE = "coverage"
SHARING = "sharing"

V = TypeVar("V")
_MISSING = object()


class UnknownTier(UnsupportedRequest):
    """A tier a kind of group does not have, or that a part of the oracle (``where``) does not handle: one line
    naming the tier and the ones known there."""

    def __init__(self, kind: str, name: object, known: Iterable[str], where: str = "") -> None:
        self.kind, self.name, self.known, self.where = kind, name, tuple(known), where
        listed = ", ".join(self.known)
        if where:
            said = f"{where} does not handle the {kind} tier {name!r} (it handles: {listed})"
        else:
            said = f"a {kind} group has no tier {name!r} (its tiers: {listed})"
        super().__init__(said)


@dataclass(frozen=True)
class Tier:
    """One tier of one kind of group (module docstring)."""

    name: str
    kind: str
    description: str
    measure: str
    sense: str
    difference: str
    required: bool = True
    option: str | None = None
    present_when: str | None = None

    def __post_init__(self) -> None:
        if self.sense not in (LEAST, MOST):
            raise ValueError(f"tier {self.name}: sense must be {LEAST!r} or {MOST!r}, got {self.sense!r}")

    def key(self, value: Any) -> Any:
        """The value as something smaller-is-better and comparable: a list as a tuple (lexicographic), negated
        (each element) when larger is better."""
        if self.sense == MOST:
            return tuple(-x for x in value) if isinstance(value, (list, tuple)) else -value
        return tuple(value) if isinstance(value, (list, tuple)) else value

    def read(self, measures: object, option: Any = None) -> Any:
        """The tier's value on ``measures`` (the kind's measures of one assignment): the attribute named by
        ``measure``, called with ``option`` when the tier takes one.  :class:`UnknownTier` when the measures
        have no such attribute (a tier the measures were not taught)."""
        reading: Any = getattr(measures, self.measure, _MISSING)
        if reading is _MISSING:
            raise UnknownTier(self.kind, self.name, _measured(measures), f"{type(measures).__name__}")
        return reading(option) if self.option is not None else reading

    def plays(self, problem: object) -> bool:
        """Whether the tier plays a part on ``problem`` (``present_when`` set on it, or no condition)."""
        return self.present_when is None or bool(getattr(problem, self.present_when))


def _measured(measures: object) -> tuple[str, ...]:
    kind = next((t for t in TABLES.values() if t.measures == type(measures).__name__), None)
    return () if kind is None else tuple(r.name for r in kind.records.values() if hasattr(measures, r.measure))


@dataclass(frozen=True)
class TierTable:
    """The tiers of one kind of group, in their default order (Kafka's), by name (module docstring)."""

    kind: str
    described: str  # "a Streams group", as a refusal says it
    measures: str  # the class name of the kind's measures (optimal/), which the records' ``measure`` read
    records: dict[str, Tier]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.records)

    def tier(self, name: str) -> Tier:
        """The record of ``name``; :class:`UnknownTier` naming it and the kind's tiers when there is none."""
        record = self.records.get(name)
        if record is None:
            raise UnknownTier(self.kind, name, self.names)
        return record

    def key(self, name: str, value: Any) -> Any:
        """A tier's value as something smaller-is-better (:meth:`Tier.key`)."""
        return self.tier(name).key(value)

    def better(self, names: Iterable[str], a: list, b: list) -> int:
        """Compare two lists of tier values (in ``names`` order) lexicographically: -1 when ``a`` is better, 1
        when ``b`` is, 0 when equal."""
        for name, x, y in zip(names, a, b):
            kx, ky = self.key(name, x), self.key(name, y)
            if kx != ky:
                return -1 if kx < ky else 1
        return 0

    def accepts(self, objective: Iterable[str]) -> bool:
        """Whether ``objective`` names only the kind's tiers, each at most once, and every required tier."""
        tiers = tuple(objective)
        return (
            all(t in self.records for t in tiers)
            and len(set(tiers)) == len(tiers)
            and all(t.name in tiers for t in self.records.values() if t.required)
        )

    @property
    def rule(self) -> str:
        """The rule :meth:`accepts` applies, as a refusal says it: ``must name balance and stickiness once each
        and rack and spread at most once each``, or, every tier required, ``a Streams group's tiers are
        active-balance, ..., each once``."""
        required = [t.name for t in self.records.values() if t.required]
        optional = [t.name for t in self.records.values() if not t.required]
        if optional:
            return f"must name {' and '.join(required)} once each and {' and '.join(optional)} at most once each"
        return f"{self.described}'s tiers are {', '.join(self.names)}, each once"

    def check(self, objective: Iterable[str]) -> tuple[str, ...]:
        """``objective`` as a tuple when :meth:`accepts` it, else :class:`UnsupportedRequest` saying the rule
        (``objective: ...``)."""
        tiers = tuple(objective)
        if self.accepts(tiers):
            return tiers
        got = ",".join(tiers)
        every_tier_required = all(t.required for t in self.records.values())
        raise UnsupportedRequest(f"objective: {self.rule}, got {(got or 'none') if every_tier_required else got}")


def _table(kind: str, described: str, measures: str, *records: Tier) -> TierTable:
    assert all(r.kind == kind for r in records)
    return TierTable(kind, described, measures, {r.name: r for r in records})


_BALANCE_GAP = (
    "the largest {load} beside the optimum's, else how many members are at or above the first {load} where the "
    "sorted {load}s differ; those members"
)

CONSUMER = _table(
    "consumer",
    "a consumer group",
    "Measures",
    Tier(
        BALANCE,
        "consumer",
        "the members' loads (partition counts, or weighted loads), most balanced by the request's definition "
        "(dec-min, sum-of-squares, max-then-squares)",
        "balance_value",
        LEAST,
        _BALANCE_GAP.format(load="load"),
        option="balance",
    ),
    Tier(
        RACK,
        "consumer",
        "the partitions given to a member outside their replicas' racks (KIP-881), the fewest",
        "cross_rack",
        LEAST,
        "how many more partitions are read across racks",
        required=False,
    ),
    Tier(
        SPREAD,
        "consumer",
        "the sum over topics and members of the member's partitions of the topic squared (KAFKA-16277), the least",
        "topic_squares",
        LEAST,
        "the per-topic sum of squares beside the optimum's",
        required=False,
    ),
    Tier(
        STICKINESS,
        "consumer",
        "the partitions kept by their resolved previous owner (KIP-54), the most",
        "kept",
        MOST,
        "how many fewer partitions are kept; the partitions the optimum keeps with their owner and the "
        "assignment moved",
    ),
)

STREAMS = _table(
    "streams",
    "a Streams group",
    "StreamsMeasures",
    Tier(
        ACTIVE_BALANCE,
        "streams",
        "the members' active task counts, most balanced (dec-min)",
        "active_balance",
        LEAST,
        _BALANCE_GAP.format(load="active count"),
    ),
    Tier(
        TASK_BALANCE,
        "streams",
        "the members' task counts, actives and standbys together, most balanced (dec-min)",
        "task_balance",
        LEAST,
        _BALANCE_GAP.format(load="task count"),
    ),
    Tier(
        TAG_DIVERSITY,
        "streams",
        "over the stateful tasks and the rack-aware tag keys, the distinct tag values among the members holding "
        "the task's copies (KIP-708), the most",
        "tag_diversity",
        MOST,
        "how many fewer distinct tag values; the tasks with fewer than in the optimum",
        present_when="rack_aware_tags",
    ),
    Tier(
        STICKINESS,
        "streams",
        "actives kept, actives on state, standbys kept, standbys on state, the most, in that order",
        "stickiness",
        MOST,
        "how many fewer of each of the four; the previous actives and standbys the optimum kept on their member "
        "and the copies it put on a member with state",
    ),
)

SHARE = _table(
    "share",
    "a share group",
    "ShareMeasures",
    Tier(
        COVERAGE,
        "share",
        "the assignable partitions of subscribed topics that nobody holds, the fewest",
        "uncovered",
        LEAST,
        "the partitions without a holder beside the optimum's; those partitions",
    ),
    Tier(
        SHARING,
        "share",
        "each target partition's holders against Kafka's desiredSharing: the deviations, decreasingly minimal",
        "sharing",
        LEAST,
        "the partitions under- and over-shared beside the optimum's; those partitions with their holders",
    ),
    Tier(
        BALANCE,
        "share",
        "the members' loads (or each member's per topic), most balanced (dec-min)",
        "balance_loads",
        LEAST,
        _BALANCE_GAP.format(load="load"),
        option="balance",
    ),
    Tier(
        STICKINESS,
        "share",
        "the (member, partition) pairs of the members' current assignment kept, the most",
        "kept",
        MOST,
        "how many fewer pairs are kept; the pairs the optimum keeps and the assignment moved",
    ),
)

#: Every kind's table, by kind.
TABLES: Mapping[str, TierTable] = {t.kind: t for t in (CONSUMER, STREAMS, SHARE)}


def table(kind: str) -> TierTable:
    """The tier table of ``kind``; :class:`UnsupportedRequest` naming the kinds known when there is none."""
    found = TABLES.get(kind)
    if found is None:
        raise UnsupportedRequest(f"no tiers for a kind of group {kind!r} (known: {', '.join(TABLES)})")
    return found


def tier(kind: str, name: str) -> Tier:
    """The record of tier ``name`` of ``kind``; :class:`UnknownTier` naming it and the kind's tiers when the
    kind has no such tier."""
    return table(kind).tier(name)


def pick(kind: str, name: str, handlers: Mapping[str, V], where: str) -> V:
    """What a part of the oracle (``where``, as a refusal names it) does for tier ``name`` of ``kind``:
    ``handlers[name]``.  :class:`UnknownTier` when the kind has no such tier, or when ``handlers`` has nothing
    for it (a tier added to the table and not taught to this part): never another tier's handling."""
    tier(kind, name)
    handled = handlers.get(name)
    if handled is None:
        raise UnknownTier(kind, name, tuple(handlers), where)
    return handled
