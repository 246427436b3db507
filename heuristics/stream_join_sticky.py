"""KIP-315's stream-join sticky assignor (``stream-join-sticky``), proposed for joins.

Guarantee claimed: partition number ``p`` of *every* topic goes to one and
the same member (the co-partitioning a stream-stream join needs, which
RoundRobin breaks), partition numbers are shared out fairly (counts differ by
at most one), and, as KIP-54 does for single partitions, a rebalance moves as
few partition numbers as possible: a member keeps the numbers it owned at the
newest epoch.  Only the numbers below the smallest partition count among the
subscribed topics are assigned; the rest wait for the other topics to catch
up ("partitions beyond the minimum stay unassigned", KIP-315 step 1.1).

Algorithm (KIP-315, "Assignment Strategy"); the assignor works on partition
*numbers* and turns them into topic partitions at the end:

1. ``n`` = the smallest partition count among the topics members subscribe
   to (topics that do not exist are ignored); numbers ``0 .. n-1`` are
   assigned.
2. Previous ownership from user data: each member's owned partition numbers
   (any topic) and its epoch (the problem's generation; none sent = -1).  A
   number claimed by several members goes to the claim with the highest
   epoch; a tie at the highest epoch gives it to nobody (the project's rule
   for equal generations, :mod:`problem.claims`; KIP-315 is silent).
   Numbers ``>= n`` are not eligible.
3. Unowned numbers: eligible numbers that nobody previously owned.
4. Members pick numbers one at a time, round after round, until all are
   picked.  Fairness fixes the quotas: ``n // N`` each, and the ``n % N``
   extra picks go to the members with the longest previous lists (then by
   member id), which keeps the most.  ``N`` counts the members subscribed
   to at least one existing topic (a member with none would pick numbers it
   can never receive; KIP-315 assumes identical subscriptions and is silent).  Within a round, members that still
   have a previous number to reclaim pick first (KIP-315: "prefer a consumer
   who has a previously owned partition"), then by member id.  A member
   picks by the KIP's rules:

   4.1 a number it previously owned that nobody has picked (the smallest);
   4.2 else an unowned number (the smallest);
   4.3 else it *steals* an unpicked number previously owned by someone else.
       Stealing is "fair": only from a member that owns more unpicked numbers
       than it still has picks left (so the victim loses nothing it could
       keep), starting with the member that had the longest previous list
       (then member id); it takes that member's largest unpicked number.

5. A member gets partition ``p`` of every topic it subscribes to, for each
   number ``p`` it picked.  A topic some members do not subscribe to is
   partly unassigned (KIP-315 step 5.1: a new topic can be tried on one
   member without overloading it).
6. The next epoch is the highest epoch received plus one; the multi-round
   harness supplies it as the next generation.
"""

from __future__ import annotations

from assignment_oracle.problem.model import Assignment, Problem, TopicPartition

__all__ = ["assign", "assignable_numbers", "previous_numbers", "unassigned_partitions"]


def assignable_numbers(problem: Problem) -> int:
    """Step 1: how many partition numbers are assigned (smallest subscribed topic)."""
    counts = [t.partitions for t in problem.assignable_topics]
    return min(counts) if counts else 0


def previous_numbers(problem: Problem) -> dict[int, int]:
    """Step 2: eligible partition number -> index of its previous owner (highest epoch)."""
    n = assignable_numbers(problem)
    claims: dict[int, list[tuple[int, int]]] = {}
    for index, member in enumerate(problem.members):
        numbers = {p for _, partitions in member.owned for p in partitions if 0 <= p < n}
        for p in numbers:
            claims.setdefault(p, []).append((member.claim_generation, index))
    owners: dict[int, int] = {}
    for p, contenders in claims.items():
        top = max(epoch for epoch, _ in contenders)
        at_top = [index for epoch, index in contenders if epoch == top]
        if len(at_top) == 1:
            owners[p] = at_top[0]
    return owners


def unassigned_partitions(problem: Problem) -> tuple[TopicPartition, ...]:
    """The topic partitions this assignor leaves unassigned, by design.

    Numbers ``>= n`` of every subscribed topic, and, for each number, the
    topics its member does not subscribe to.
    """
    assignment = assign(problem)
    given = {tp for m in problem.member_ids for tp in assignment.partitions_of(m)}
    return tuple(
        TopicPartition(t.name, p)
        for t in problem.assignable_topics
        for p in range(t.partitions)
        if TopicPartition(t.name, p) not in given
    )


def assign(problem: Problem) -> Assignment:
    """Partition numbers picked round by round (own, unowned, fair steal), then per topic.

    Examples
    --------
    KIP-315's walk-through: ten partitions of impressions and clicks, four
    members with the ranges Range gave them; D leaves.  Nothing that A, B and
    C owned moves; D's numbers 8 and 9 go to the members with room.

    >>> from assignment_oracle.problem import Problem
    >>> both = ["clicks", "impressions"]
    >>> def owned(*ps): return {"clicks": list(ps), "impressions": list(ps)}
    >>> p = Problem.from_mapping({"topics": {"clicks": 10, "impressions": 10}, "members": {
    ...     "A": {"topics": both, "owned": owned(0, 1, 2), "generation": 1},
    ...     "B": {"topics": both, "owned": owned(3, 4, 5), "generation": 1},
    ...     "C": {"topics": both, "owned": owned(6, 7), "generation": 1}}})
    >>> {m: ts["clicks"] for m, ts in assign(p).to_mapping().items()}
    {'A': [0, 1, 2, 9], 'B': [3, 4, 5], 'C': [6, 7, 8]}
    """
    ids = problem.member_ids
    n = assignable_numbers(problem)
    owner = previous_numbers(problem)
    previous: list[list[int]] = [[] for _ in ids]  # unpicked previous numbers, ascending
    for p in sorted(owner):  # a previous owner that cannot pick any more still blocks 4.2
        previous[owner[p]].append(p)
    had = [len(ps) for ps in previous]
    unowned = [p for p in range(n) if p not in owner]
    unowned.reverse()  # pop() yields the smallest

    # Members with no existing topic would pick numbers they can never receive.
    existing = problem.partition_counts
    pickers_all = [m for m, member in enumerate(problem.members) if any(t in existing for t in member.topics)]
    quota = [0] * len(ids)
    if pickers_all:
        share, extra = divmod(n, len(pickers_all))
        for rank, m in enumerate(sorted(pickers_all, key=lambda m: (-had[m], m))):
            quota[m] = share + (1 if rank < extra else 0)
    picked: list[list[int]] = [[] for _ in ids]
    taken: set[int] = set()

    def unpicked(m: int) -> list[int]:
        previous[m] = [p for p in previous[m] if p not in taken]
        return previous[m]

    while len(taken) < n:
        pickers = [m for m in pickers_all if len(picked[m]) < quota[m]]
        pickers.sort(key=lambda m: (not unpicked(m), m))
        for m in pickers:
            mine = unpicked(m)
            if mine:  # 4.1
                p = mine.pop(0)
            elif unowned:  # 4.2
                p = unowned.pop()
            else:  # 4.3: a member with more unpicked claims than picks left
                victim = min(
                    (v for v in range(len(ids)) if len(unpicked(v)) > quota[v] - len(picked[v])),
                    key=lambda v: (-had[v], v),
                )
                p = previous[victim].pop()
            picked[m].append(p)
            taken.add(p)

    given = {
        ids[m]: [
            TopicPartition(t.name, p)
            for t in problem.assignable_topics
            if t.name in problem.members[m].topics
            for p in numbers
        ]
        for m, numbers in enumerate(picked)
    }
    return Assignment.from_partitions(given, ids)
