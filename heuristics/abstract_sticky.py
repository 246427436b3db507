"""What Kafka's sticky assignors share, for the ports that share it.

Kafka keeps these in ``AbstractStickyAssignor`` (``StickyAssignor`` before
2.4): the generation a claim sent without one is filed under
(:data:`DEFAULT_GENERATION`) and the loop of ``performReassignments``
(:func:`perform_reassignments`), which this project bounds by
:data:`DEFAULT_MAX_PASSES` passes.  Both :mod:`heuristics.sticky` (the fast
port) and :mod:`heuristics.sticky_kafka` (the transliteration) read them from
here, so neither module imports the other's constants.
"""

from __future__ import annotations

from typing import Callable, Hashable, Sequence

from assignment_oracle.problem.errors import AssignorDidNotFinish

__all__ = ["DEFAULT_GENERATION", "DEFAULT_MAX_PASSES", "perform_reassignments"]

#: ``AbstractStickyAssignor.DEFAULT_GENERATION``: the generation of a claim sent without one.
DEFAULT_GENERATION = -1

#: ``performReassignments`` stops with :class:`AssignorDidNotFinish` after this many full passes.
DEFAULT_MAX_PASSES = 10_000


def perform_reassignments(
    partitions: Sequence[Hashable],
    is_balanced: Callable[[], bool],
    reassign: Callable[[Hashable], bool],
    *,
    max_passes: int,
    still_moving: Callable[[int], str],
) -> bool:
    """Kafka's ``performReassignments`` loop: pass over ``partitions`` until a pass moves none.

    Each pass visits ``partitions`` in order and stops early once ``is_balanced()``
    holds; ``reassign(partition)`` tries to move one partition and says whether
    it did.  Returns whether any pass moved a partition.  After ``max_passes``
    passes that each moved one, raises :class:`AssignorDidNotFinish` with the
    message ``still_moving(passes)`` (Kafka's loop has no bound).
    """
    performed = False
    passes = 0
    while True:
        modified = False
        for partition in partitions:
            if is_balanced():
                break
            if reassign(partition):
                performed = modified = True
        if not modified:
            return performed
        passes += 1
        if passes >= max_passes:
            raise AssignorDidNotFinish(still_moving(passes))
