"""Who owned each partition before this rebalance: claim resolution.

Members claim the partitions they owned in the previous generation.  Claims
can be stale (a member that was evicted rejoins with its old user data,
KAFKA-7026 / KIP-341) or in conflict (two members report the same partition
with the same generation, KAFKA-12984).  Today's Kafka rule (KAFKA-14639),
applied per partition, is:

1. a claim on a topic that does not exist, or on a partition number beyond the
   topic's partition count, is dropped (there is nothing to own);
2. among the remaining claims on a partition, the one with the highest
   generation wins; a member that sent no generation counts as -1;
3. when two or more claims tie at the highest generation, nobody wins: the
   partition has no previous owner;
4. a winning claim on a topic the member no longer subscribes to is dropped
   too, and the partition has no previous owner.

Step 4 comes after step 2 on purpose, as in Kafka's general sticky path
(``prepopulateCurrentAssignments`` resolves generations first): the member
with the highest generation is the most recent owner, so an older claim it
shadows is stale even if the newest owner now unsubscribed.  The outcome does
not depend on the order in which members or claims are listed.

A member that is not in the group sends nothing, so it owns nothing.  Every
dropped claim is reported with its reason (:class:`DroppedClaim`).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

import numpy as np

from problem.model import Problem

__all__ = ["DROP_REASONS", "DroppedClaim", "ResolvedClaims", "resolve_claims"]

#: Reason code -> explanation, for each way a claim can be dropped.
DROP_REASONS: Mapping[str, str] = MappingProxyType(
    {
        "unknown-topic": "the topic does not exist",
        "no-such-partition": "the topic has no partition with this number",
        "duplicate": "the member listed this partition more than once",
        "superseded": "another member claimed it with a higher generation",
        "tied": "another member claimed it with the same, highest generation, so nobody owns it",
        "not-subscribed": "the member no longer subscribes to the topic",
    }
)

_NO_GENERATION_YET = np.iinfo(np.int64).min


@dataclass(frozen=True)
class DroppedClaim:
    """Claims of one member on one topic, dropped for one reason."""

    member_id: str
    topic: str
    partitions: tuple[int, ...]
    reason: str
    generation: int

    def to_mapping(self) -> dict:
        return {
            "member": self.member_id,
            "topic": self.topic,
            "partitions": list(self.partitions),
            "generation": self.generation,
            "reason": self.reason,
        }


@dataclass(frozen=True, eq=False)
class ResolvedClaims:
    """The outcome of claim resolution.

    Attributes
    ----------
    previous_owner:
        Topic -> int32 array over the topic's partitions: the index (in
        ``problem.members``) of the resolved previous owner, or -1.  The owner,
        when there is one, subscribes to the topic.
    dropped:
        Every claim that did not become previous ownership, with its reason.
    """

    previous_owner: Mapping[str, np.ndarray]
    dropped: tuple[DroppedClaim, ...]

    @property
    def owned_count(self) -> int:
        """Partitions that have a previous owner (the most a rebalance can keep)."""
        return int(sum(int((a >= 0).sum()) for a in self.previous_owner.values()))


def resolve_claims(problem: Problem) -> ResolvedClaims:
    """Resolve the members' claims into one previous owner per partition (or none).

    Examples
    --------
    >>> from problem import Problem
    >>> p = Problem.from_mapping({"topics": {"t": 2}, "members": {
    ...     "a": {"topics": ["t"], "owned": {"t": [0, 1]}, "generation": 1},
    ...     "b": {"topics": ["t"], "owned": {"t": [1]}, "generation": 2}}})
    >>> resolve_claims(p).previous_owner["t"].tolist()  # b's newer claim wins t-1
    [0, 1]
    """
    counts = problem.partition_counts
    dropped: list[DroppedClaim] = []
    best_generation = {t: np.full(n, _NO_GENERATION_YET, dtype=np.int64) for t, n in counts.items()}
    winner = {t: np.full(n, -1, dtype=np.int32) for t, n in counts.items()}
    tied = {t: np.zeros(n, dtype=bool) for t, n in counts.items()}

    # Step 1: drop what cannot be owned; keep each member's distinct claims.
    claims: list[tuple[int, str, np.ndarray, int]] = []
    for index, member in enumerate(problem.members):
        generation = member.claim_generation

        def drop(topic: str, partitions, reason: str) -> None:
            dropped.append(
                DroppedClaim(member.member_id, topic, tuple(int(p) for p in partitions), reason, generation)
            )

        for topic, partitions in member.owned:
            if topic not in counts:
                if partitions:
                    drop(topic, partitions, "unknown-topic")
                continue
            asked = np.asarray(partitions, dtype=np.int64)
            beyond = asked >= counts[topic]
            if beyond.any():
                drop(topic, asked[beyond], "no-such-partition")
            distinct, occurrences = np.unique(asked[~beyond], return_counts=True)
            if (occurrences > 1).any():
                drop(topic, np.repeat(distinct, occurrences - 1), "duplicate")
            if distinct.size:
                claims.append((index, topic, distinct, generation))

    # Steps 2-3: the highest generation wins; a tie at the highest cancels.
    # Processing claims in any order gives the same result: a partition's
    # state is (highest generation seen, its claimant, tie seen at it).
    for index, topic, partitions, generation in claims:
        best = best_generation[topic][partitions]
        higher = generation > best
        equal = generation == best
        won = partitions[higher]
        best_generation[topic][won] = generation
        winner[topic][won] = index
        tied[topic][won] = False
        tied[topic][partitions[equal]] = True

    # Report the losers, then step 4: drop winners that no longer subscribe.
    for index, topic, partitions, generation in claims:
        member = problem.members[index]
        best = best_generation[topic][partitions]
        lost = generation < best
        tie = tied[topic][partitions] & (generation == best)
        for mask, reason in ((lost, "superseded"), (tie, "tied")):
            if mask.any():
                dropped.append(
                    DroppedClaim(member.member_id, topic, tuple(partitions[mask].tolist()), reason, generation)
                )
        if topic not in member.topics:
            kept = ~lost & ~tie
            if kept.any():
                dropped.append(
                    DroppedClaim(member.member_id, topic, tuple(partitions[kept].tolist()), "not-subscribed", generation)
                )
                winner[topic][partitions[kept]] = -1

    previous_owner = {}
    for topic in counts:
        owner = np.where(tied[topic], -1, winner[topic]).astype(np.int32)
        owner.setflags(write=False)
        previous_owner[topic] = owner
    dropped.sort(key=lambda d: (d.member_id, d.topic, d.reason))
    return ResolvedClaims(MappingProxyType(previous_owner), tuple(dropped))
