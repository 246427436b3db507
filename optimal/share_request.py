"""What "best" means for a share group (KIP-932): the tiers, their order, the sharing target, and the one measure.

A share group's members may *share* a partition: an assignment is any set of
(member, partition) pairs, each member holding a partition at most once, only
partitions of topics it subscribes to and whose share state is initialised
(:func:`problem.share.violations`).  Kafka's ``SimpleAssignor`` (apache/kafka
d79bd50, KAFKA-19362 4690527fab, KAFKA-19363 860853dba2) aims at a number of
holders per partition, ``desiredSharing``, then at member loads within one
partition of each other, then at keeping what members hold ("Balance is
prioritized above stickiness").  The oracle judges an assignment tier after
tier, each compared only among assignments equal on every tier before it, in
Kafka's order unless the request changes it:

``coverage``
    the assignable partitions of subscribed topics (the *target* partitions)
    that nobody holds: the fewest.  Kafka's promise "every assignable
    partition is assigned".
``sharing``
    each target partition's holder count ``h_p`` against its target ``s_p``
    (below): the deviations ``|h_p - s_p|`` sorted largest first, the
    lexicographically least (decreasingly minimal: first the largest
    deviation as small as possible, then as few partitions at it, then the
    next, ...).  Where the target can be met (always, when ``coverage`` and
    ``sharing`` come first: ``s_p`` never exceeds the topic's subscribers)
    every partition is at it exactly; where it cannot (``stickiness`` ranked
    before ``sharing`` keeps more holders than the target) the shortfalls and
    excesses are as even as possible.  Reported as the non-zero deviations,
    largest first (``[]``: every partition at its target).
``balance``
    the members' loads (partitions held), most balanced: sorted largest
    first, lexicographically least (``dec-min``).  With ``balance="per-topic"``
    the loads of each (member, subscribed topic) instead, which is what Kafka's
    heterogeneous builder balances ("balance is computed for each topic
    individually and then the assignments are combined").
``stickiness``
    the (member, partition) pairs of the members' current assignment
    (``assigned``) that the assignment keeps: the most (Kafka: "minimize
    partition movements").

Ranked before ``coverage`` and ``sharing``, ``balance`` alone prefers fewer
pairs (fewer is more balanced): ``balance`` first gives the empty assignment.

The sharing target
------------------
``s_p`` is Kafka's ``desiredSharing`` for the partition.  ``sharing="kafka"``
(the default) computes it as Kafka does: on a homogeneous group (every member
subscribes to the same topics; Kafka's ``SubscriptionType.HOMOGENEOUS``) one
target for the whole group, ``ceil(M / P)`` over the ``M`` members and the
``P`` target partitions of all the topics together
(``SimpleHomogeneousAssignmentBuilder``); on a heterogeneous group, per topic,
``ceil(M_t / P_t)`` over the topic's subscribers and its target partitions
(``SimpleHeterogeneousAssignmentBuilder``).  ``sharing="per-topic"`` uses the
per-topic formula on every group.  The two differ only on homogeneous groups
with several topics, where ``ceil(M / P_t) > ceil(M / P)`` for some topic (it
has fewer target partitions than the members): 4 members on two topics of 2
partitions each
get 1 holder per partition from Kafka (loads 1, 1, 1, 1), 2 per partition per
topic (loads 2, 2, 2, 2).  The default judges Kafka against its own target;
``per-topic`` asks what every member consuming from every topic would cost.

:func:`measure` is the one definition of every number: the exact model
(:mod:`optimal.share`), the brute force and the judge all read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from assignment_oracle.problem.errors import UnsupportedRequest
from assignment_oracle.problem.share import ShareAssignment, ShareProblem, valid_pairs
from assignment_oracle.problem.tiers import BALANCE, COVERAGE, SHARE, SHARING, STICKINESS, pick

__all__ = [
    "COVERAGE",
    "SHARING",
    "BALANCE",
    "STICKINESS",
    "SHARE_TIERS",
    "DEFAULT_ORDER",
    "BALANCE_KINDS",
    "SHARING_TARGETS",
    "ShareRequest",
    "ShareMeasures",
    "parse_request",
    "sharing_targets",
    "owned_pairs",
    "measure",
    "tier_key",
    "better",
]

#: The tiers (their records: :data:`problem.tiers.SHARE`).
SHARE_TIERS = SHARE.names
#: Kafka's order (module docstring).
DEFAULT_ORDER = SHARE_TIERS
#: ``member``: the members' loads; ``per-topic``: each (member, subscribed topic)'s load.
BALANCE_KINDS = ("member", "per-topic")
#: ``kafka``: desiredSharing as Kafka's builder for the group computes it; ``per-topic``: always per topic.
SHARING_TARGETS = ("kafka", "per-topic")


@dataclass(frozen=True)
class ShareRequest:
    """The tiers of a share-group solve in priority order (each of :data:`SHARE_TIERS` once; ``None``: Kafka's
    order), what ``balance`` balances and how the sharing target is computed (module docstring)."""

    objective: tuple[str, ...] | None = None
    balance: str = "member"
    sharing: str = "kafka"

    def __post_init__(self) -> None:
        if self.objective is not None:
            object.__setattr__(self, "objective", SHARE.check(self.objective))
        if self.balance not in BALANCE_KINDS:
            raise UnsupportedRequest(
                f"balance: a share group balances {' or '.join(BALANCE_KINDS)} loads, got {self.balance!r}"
            )
        if self.sharing not in SHARING_TARGETS:
            raise UnsupportedRequest(f"sharing: the target is {' or '.join(SHARING_TARGETS)}, got {self.sharing!r}")

    def tiers(self, problem: ShareProblem | None = None) -> tuple[str, ...]:
        return self.objective if self.objective is not None else DEFAULT_ORDER

    def to_mapping(self, problem: ShareProblem | None = None) -> dict:
        return {"objective": list(self.tiers(problem)), "balance": self.balance, "sharing": self.sharing}


def parse_request(text: str | None) -> ShareRequest:
    """The request an ``--objective`` text asks for: the four tiers separated by commas, in priority order,
    ``balance`` and ``sharing`` optionally with their definition after a colon
    (``coverage,sharing:per-topic,balance:per-topic,stickiness``); ``None``: Kafka's order and definitions.
    :class:`UnsupportedRequest` names what is wrong."""
    if text is None:
        return ShareRequest()
    tiers, options = [], {}
    for raw in text.split(","):
        name, _, definition = raw.strip().partition(":")
        if not name:
            continue
        tiers.append(name)
        if definition:
            if name not in (BALANCE, SHARING):
                raise UnsupportedRequest(f"objective: only balance and sharing take a definition, got {raw.strip()!r}")
            options[name] = definition
    return ShareRequest(objective=tuple(tiers), **options)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def sharing_targets(problem: ShareProblem, sharing: str = "kafka") -> np.ndarray:
    """Per dense partition (:attr:`ShareProblem.partitions`), its target number of holders ``s_p``: 0 for a
    partition that is not a target (not assignable, or of a topic nobody subscribes to), else Kafka's
    ``desiredSharing`` as ``sharing`` says (module docstring)."""
    out = np.zeros(problem.partition_count, dtype=np.int64)
    target = problem.target_mask
    counts = {
        t: int(target[problem.topic_offset[t] : problem.topic_offset[t] + n].sum()) for t, n in problem.topics.items()
    }
    group_wide = sharing == "kafka" and problem.is_homogeneous
    if group_wide:
        total = sum(counts[t] for t in problem.topics if problem.subscribers(t))
        members = len(problem.members)
    for topic, n in problem.topics.items():
        if not counts[topic]:
            continue
        start = problem.topic_offset[topic]
        if group_wide:
            s = _ceil_div(members, total)
        else:
            s = _ceil_div(len(problem.subscribers(topic)), counts[topic])
        out[start : start + n][target[start : start + n]] = s
    return out


def owned_pairs(problem: ShareProblem) -> list[tuple[int, int]]:
    """(member index, dense partition) of every pair of the members' current assignments that could be kept:
    the member subscribes to the topic and the partition is assignable (the stickiness tier counts these)."""
    out = []
    for i, m in enumerate(problem.members):
        subscribed = set(m.topics)
        for topic, p in m.assigned:
            if topic in subscribed and problem.is_assignable(topic, p):
                out.append((i, problem.index_of(topic, p)))
    return out


@dataclass(frozen=True, eq=False)
class ShareMeasures:
    """Every number the tiers are about, for one assignment (:func:`measure`); counts over valid pairs only.

    ``holders`` per dense partition, ``targets`` the sharing target per dense partition (0 off target),
    ``loads`` per member (the group's order), ``topic_loads`` per (member, topic) pair of a subscribed topic
    with target partitions (in member order, then the member's subscription order), ``kept`` the pairs of the
    current assignment kept, ``owned`` the pairs that could be (:func:`owned_pairs`)."""

    holders: np.ndarray
    targets: np.ndarray
    target_mask: np.ndarray
    loads: np.ndarray
    topic_loads: np.ndarray
    kept: int
    owned: int

    @property
    def uncovered(self) -> int:
        return int((self.target_mask & (self.holders == 0)).sum())

    @property
    def deviations(self) -> np.ndarray:
        """``|h_p - s_p|`` per target partition (dense order)."""
        return np.abs(self.holders[self.target_mask] - self.targets[self.target_mask])

    @property
    def under_shared(self) -> int:
        """Target partitions with fewer holders than their target."""
        return int((self.holders[self.target_mask] < self.targets[self.target_mask]).sum())

    @property
    def over_shared(self) -> int:
        return int((self.holders[self.target_mask] > self.targets[self.target_mask]).sum())

    @property
    def pairs(self) -> int:
        return int(self.loads.sum())

    @property
    def sharing(self) -> list[int]:
        """The non-zero deviations from the sharing targets, largest first."""
        d = self.deviations
        return sorted((int(x) for x in d[d > 0]), reverse=True)

    def balanced(self, balance: str = "member") -> np.ndarray:
        """The loads the balance tier balances: the members' (``member``), or each (member, topic)'s."""
        return _BALANCED[balance](self)

    def balance_loads(self, balance: str = "member") -> list[int]:
        """The balance tier's value: :meth:`balanced`'s loads, largest first."""
        return sorted((int(x) for x in self.balanced(balance)), reverse=True)

    def value(self, tier: str, balance: str = "member") -> Any:
        """A tier's value as reported, read as its record in :data:`problem.tiers.SHARE` says: ``coverage`` the
        partitions without a holder, ``sharing`` the non-zero deviations largest first, ``balance`` the sorted
        loads (largest first), ``stickiness`` pairs kept; :class:`~assignment_oracle.problem.tiers.UnknownTier`
        on a tier the table or these measures do not know."""
        return SHARE.tier(tier).read(self, balance)

    def values(self, tiers: tuple[str, ...], balance: str = "member") -> list:
        return [self.value(t, balance) for t in tiers]

    def scalar(self, tier: str, balance: str = "member") -> int:
        """The number the exact model minimises for a tier (:mod:`optimal.share`): uncovered partitions, the
        sum of squared deviations (its minimum is the decreasingly minimal deviations), the sum of squared
        loads (likewise), minus the pairs kept."""
        return pick(SHARE.kind, tier, _SCALARS, "ShareMeasures.scalar")(self, balance)


#: What :meth:`ShareMeasures.balanced` reads, per balance definition (:data:`BALANCE_KINDS`).
_BALANCED = {"member": lambda m: m.loads, "per-topic": lambda m: m.topic_loads}
#: What the exact model minimises per tier (:meth:`ShareMeasures.scalar`).
_SCALARS = {
    COVERAGE: lambda m, balance: m.uncovered,
    SHARING: lambda m, balance: int((m.deviations**2).sum()),
    BALANCE: lambda m, balance: int((m.balanced(balance) ** 2).sum()),
    STICKINESS: lambda m, balance: -m.kept,
}


def measure(problem: ShareProblem, assignment: ShareAssignment, request: ShareRequest | None = None) -> ShareMeasures:
    """The tiers' numbers for ``assignment``.  Only valid pairs count (:func:`problem.share.valid_pairs`: a
    member of the group, a subscribed topic, an assignable partition, each pair once): validity is
    :func:`problem.share.violations`' job."""
    sharing = "kafka" if request is None else request.sharing
    n = len(problem.members)
    holders = np.zeros(problem.partition_count, dtype=np.int64)
    loads = np.zeros(n, dtype=np.int64)
    with_targets = {t for t in problem.topics if _has_targets(problem, t)}
    topic_slot: dict[tuple[int, str], int] = {}
    for i, m in enumerate(problem.members):
        for t in m.topics:
            if t in with_targets:
                topic_slot[(i, t)] = len(topic_slot)
    topic_loads = np.zeros(len(topic_slot), dtype=np.int64)
    owned = set(owned_pairs(problem))
    kept = 0
    for i, j in valid_pairs(problem, assignment):
        holders[j] += 1
        loads[i] += 1
        topic_loads[topic_slot[(i, problem.partitions[j][0])]] += 1
        kept += (i, j) in owned
    return ShareMeasures(
        holders=holders,
        targets=sharing_targets(problem, sharing),
        target_mask=problem.target_mask,
        loads=loads,
        topic_loads=topic_loads,
        kept=kept,
        owned=len(owned),
    )


def _has_targets(problem: ShareProblem, topic: str) -> bool:
    start = problem.topic_offset[topic]
    return bool(problem.target_mask[start : start + problem.topics[topic]].any())


#: A tier's value as something smaller-is-better and comparable (its record's key; ``sharing`` and ``balance``
#: as tuples: a shorter list of deviations, equal where both have one, is the better).
tier_key = SHARE.key
#: Compare two lists of tier values lexicographically: -1 when ``a`` is better, 1 when ``b`` is, 0.
better = SHARE.better
