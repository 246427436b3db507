"""What Kafka's sticky assignors share, for the ports that share it.

Kafka keeps these in ``AbstractStickyAssignor`` (``StickyAssignor`` before
2.4): the generation a claim sent without one is filed under
(:data:`DEFAULT_GENERATION`) and the loop of ``performReassignments``
(:class:`PerformReassignments`), which this project bounds by
:data:`DEFAULT_MAX_PASSES` passes.  Both :mod:`heuristics.sticky` (the fast
port) and :mod:`heuristics.sticky_kafka` (the transliteration) read them from
here, so neither module imports the other's constants.
"""

from __future__ import annotations

from typing import Hashable, Sequence

from assignment_oracle.problem.errors import AssignorDidNotFinish

__all__ = ["DEFAULT_GENERATION", "DEFAULT_MAX_PASSES", "PerformReassignments"]

#: ``AbstractStickyAssignor.DEFAULT_GENERATION``: the generation of a claim sent without one.
DEFAULT_GENERATION = -1

#: ``performReassignments`` stops with :class:`AssignorDidNotFinish` after this many full passes.
DEFAULT_MAX_PASSES = 10_000


class PerformReassignments:
    """Kafka's ``performReassignments`` loop, for a sticky run that supplies one partition's step.

    A subclass has ``max_passes`` and defines ``_is_balanced()``, ``_try_reassign(partition)`` (tries to
    move one partition and says whether it did) and ``_still_moving(passes, partitions)`` (the message of a
    run that hit the bound).
    """

    max_passes: int

    def _perform_reassignments(self, partitions: Sequence[Hashable]) -> bool:
        """Pass over ``partitions`` until a pass moves none; whether any pass moved a partition.

        Each pass visits ``partitions`` in order and stops early once ``_is_balanced()`` holds.  After
        ``max_passes`` passes that each moved a partition, raises :class:`AssignorDidNotFinish` with
        ``_still_moving(passes, partitions)`` (Kafka's loop has no bound).
        """
        performed = False
        passes = 0
        while True:
            modified = False
            for partition in partitions:
                if self._is_balanced():
                    break
                if self._try_reassign(partition):
                    performed = modified = True
            if not modified:
                return performed
            passes += 1
            if passes >= self.max_passes:
                raise AssignorDidNotFinish(self._still_moving(passes, partitions))

    def _is_balanced(self) -> bool:
        raise NotImplementedError

    def _try_reassign(self, partition: Hashable) -> bool:
        raise NotImplementedError

    def _still_moving(self, passes: int, partitions: Sequence[Hashable]) -> str:
        raise NotImplementedError
