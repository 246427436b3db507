"""The weighted shortcuts of a staged solve: the water-filled deals, the load slots' and parts program's bounds, the re-deals.

Guarantee: each shortcut applies only where it is sound, and elsewhere gives nothing, so the
staged model (:mod:`optimal.staged`) searches as it would without it.  Every shortcut needs each
tier of the request to be one it keeps intact (:data:`SHORTCUT_TIERS`: not ``spread``, whose
per-topic counts a moved part changes).  :meth:`WeightedShortcuts.starts` (weighted loads under
``dec-min``, ``balance`` first, no per-member budget) adds candidate first assignments
(:mod:`optimal.slot_deal`, :mod:`optimal.slot_replan`), which the run measures and compares: a
start, never a proof.  :meth:`WeightedShortcuts.bound` and :meth:`WeightedShortcuts.program_bound`
(weighted, ``dec-min``, the balance tier proven) return bounds that hold for a rack or stickiness
stage under its pins (:mod:`optimal.slot_bound`, :mod:`optimal.slot_program`: HiGHS' proven MIP
bounds, and a counting argument).  :meth:`WeightedShortcuts.redeal` returns an incumbent only when
it keeps every pin (loads majorised by the old ones, so every balance pin holds; the budget of
moves; every earlier tier's value) and is better on the stage (:mod:`optimal.exchange`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from assignment_oracle.optimal.exchange import exchange, neighbourhoods, pairs, swaps
from assignment_oracle.optimal.request import Request
from assignment_oracle.optimal.slot_bound import moves_bound, slot_bound
from assignment_oracle.optimal.slot_deal import slot_deal
from assignment_oracle.optimal.slot_program import Group, slot_program
from assignment_oracle.optimal.slot_replan import slot_replan
from assignment_oracle.optimal.staged_model import ClassModel
from assignment_oracle.optimal.staged_parts import Incumbent, Parts, majorised
from assignment_oracle.problem.model import BALANCE, RACK, STICKINESS

__all__ = ["REDEAL_SECONDS", "SHORTCUT_TIERS", "WeightedShortcuts"]

#: The tiers the shortcuts (the slot deal, the slot pins, the re-deal) keep intact: a shortcut applies only
#: when every tier of the request is one of these (``spread`` is not: moving loads changes per-topic counts).
SHORTCUT_TIERS = frozenset({BALANCE, RACK, STICKINESS})

#: Under a time limit, wall-clock seconds at most for the re-deals of a rack or stickiness stage
#: (optimal.exchange: a third for the pairs, the rest for the neighbourhoods, which stop sooner when
#: they stop finding anything); without one they are limited by counts and deterministic time.
REDEAL_SECONDS = 20.0

#: A rack or stickiness stage's pins as the slot bounds read them: (kept floor, cross-rack ceiling,
#: per-member kept floor).
Pins = tuple[int | None, int | None, np.ndarray | None]


class WeightedShortcuts:
    """The weighted shortcuts of one staged run (module docstring), with what they compute once: the
    parts program's view of the group and its bounds by stage and pins."""

    def __init__(self, parts: Parts, n: int, request: Request, tiers: tuple[str, ...]) -> None:
        self.parts = parts
        self.n = n
        self.request = request
        self.tiers = tiers
        self.group: Group | None = None  # the parts program's view of the group (slot_bound), built once
        self.programmed: dict[tuple, int | None] = {}  # the parts program's bounds by stage and pins
        self.redeal_skipped = False  # the last re-deal did not run (spread is a tier, or no trusted incumbent)

    def kept_floor(self) -> int | None:
        """The least kept partitions the budget of moves allows, ``None`` without a budget."""
        if self.request.max_moves is None:
            return None
        return int(self.parts.owned_by.sum()) - self.request.max_moves

    def starts(self, deadline: float | None) -> list[np.ndarray]:
        """Weighted loads under dec-min, balance first: the deal into the water-filled loads, which
        picks the moves for the rack tier too (:mod:`optimal.slot_deal`), and when rack comes before
        stickiness the parts program's plan, realised (:mod:`optimal.slot_replan`), as per-part owners
        (those that succeed); the program's bound for the rack stage is kept for it (:meth:`program_bound`),
        under the same pins."""
        parts, n, request, tiers = self.parts, self.n, self.request, self.tiers
        if not (
            parts.weighted
            and request.balance == "dec-min"
            and tiers[0] == BALANCE
            and SHORTCUT_TIERS.issuperset(tiers)
            and request.max_moves_per_member is None
            and not _expired(deadline)
        ):
            return []
        starts = []
        rack_next = RACK in tiers and tiers.index(RACK) < tiers.index(STICKINESS)
        dealt = slot_deal(parts, n, max_moves=request.max_moves, rack=rack_next, deadline=deadline)
        if dealt is not None:
            starts.append(dealt)
        if rack_next and parts.least_cross.size and not _expired(deadline):
            replanned, bound = slot_replan(parts, n, max_moves=request.max_moves, deadline=deadline)
            self.programmed[RACK, self.kept_floor(), None, None] = bound
            if replanned is not None:
                starts.append(replanned)
        return starts

    def pins(self, reached: Mapping[str, Any], balance_proven: bool) -> Pins | None:
        """``(kept floor, cross-rack ceiling, per-member kept floor)`` of a rack or stickiness stage
        when the load slots' bounds apply to it (:meth:`bound`), else ``None``; ``reached`` holds each
        tier's value as pinned so far."""
        request, parts = self.request, self.parts
        if (
            not parts.weighted
            or request.balance != "dec-min"
            or not balance_proven
            or not SHORTCUT_TIERS.issuperset(self.tiers)
        ):
            return None
        floor = self.kept_floor()
        if STICKINESS in reached:
            floor = max(floor or 0, int(reached[STICKINESS]))
        per_member = None
        if request.max_moves_per_member is not None:
            per_member = np.maximum(0, parts.owned_by - request.max_moves_per_member)
        return floor, reached.get(RACK), per_member

    def bound(self, tier: str, reached: Mapping[str, Any], balance_proven: bool, seconds: float | None) -> int | None:
        """The load slots' bounds (:mod:`optimal.slot_bound`, :mod:`optimal.slot_program`) for a rack
        or stickiness stage, when ``balance`` came first, under ``dec-min``, proven (the sorted loads
        are then known exactly) and no ``spread`` tier; ``None`` otherwise.  The parts program's is
        computed once per stage (half of ``seconds`` at most); the load slots' relaxation only when
        the program gives none (a third of ``seconds``)."""
        pins = self.pins(reached, balance_proven)
        if pins is None:
            return None
        floor, ceiling, per_member = pins
        counted = moves_bound(
            self.parts,
            self.n,
            reached[BALANCE],
            objective=tier,
            max_moves=self.request.max_moves,
            kept_floor=floor,
            cross_ceiling=ceiling,
        )
        programmed = self.program_bound(tier, reached, balance_proven, None if seconds is None else seconds / 2)
        relaxed = None
        if programmed is None:
            relaxed = slot_bound(
                self.parts,
                self.n,
                reached[BALANCE],
                objective=tier,
                kept_floor=floor,
                cross_ceiling=ceiling,
                per_member_floor=per_member,
                time_limit=None if seconds is None else seconds / 3,
            )
        found = [b for b in (counted, programmed, relaxed) if b is not None]
        if not found:
            return None
        return max(found) if tier == RACK else min(found)

    def program_bound(
        self, tier: str, reached: Mapping[str, Any], balance_proven: bool, seconds: float | None
    ) -> int | None:
        """The parts program's proven bound (:mod:`optimal.slot_program`) for the stage under its pins
        (:meth:`pins`), computed once: ``None`` when it does not apply (the stage is not after a
        proven ``dec-min`` balance, the proven loads are not the water-filled ones, a member may not
        take a part, a part had several owners) or reported no bound in time."""
        pins = self.pins(reached, balance_proven)
        if pins is None:
            return None
        if self.group is None:
            self.group = Group(self.parts, self.n)
        group = self.group
        if not group.fits or sorted(int(v) for v in reached[BALANCE]) != group.loads_expected():
            return None
        floor, ceiling, per_member = pins
        key = (tier, floor, ceiling, None if per_member is None else per_member.tobytes())
        if key not in self.programmed:
            plan = slot_program(
                group,
                objective=tier,
                kept_floor=floor,
                cross_ceiling=ceiling,
                per_member_floor=per_member,
                time_limit=seconds,
            )
            self.programmed[key] = None if plan is None else plan.bound
        return self.programmed[key]

    def redeal(
        self,
        tier: str,
        model: ClassModel,
        incumbent: Incumbent,
        reached: Mapping[str, Any],
        trusted: bool,
        seconds: float | None,
        thorough: bool,
    ) -> Incumbent | None:
        """The incumbent's parts of equal balance weight dealt again among their holders
        (:func:`optimal.exchange.exchange`) for the ``rack`` or ``stickiness`` stage: every load stays
        as it is, so every balance pin holds; the result is returned only when it also keeps the
        budget of moves (in all and per member), every earlier tier's pin (``reached``), and is better
        on the stage, else ``None``.  Not with ``spread`` as a tier (a re-deal changes the per-topic
        counts), nor from an incumbent not ``trusted`` to meet every constraint (``redeal_skipped``)."""
        request, parts = self.request, self.parts
        self.redeal_skipped = not SHORTCUT_TIERS.issuperset(self.tiers) or not trusted
        if self.redeal_skipped:
            return None
        started = time.perf_counter()
        owner = model.owners(incumbent.values)
        now = model.incumbent(model.values_of(owner))  # kept as measured on the owners (take onto an owner keeps)
        floor = 0 if request.max_moves is None else int(parts.owned_by.sum()) - request.max_moves
        floor = max(floor, reached.get(STICKINESS, floor))
        ceiling = reached.get(RACK)
        pinned = {"objective": tier, "kept_floor": floor, "cross_ceiling": ceiling}
        dealt, kept, cross = exchange(parts.classes, parts.load, owner, kept=now.kept, cross=now.cross, **pinned)
        deadline = None if seconds is None else started + (seconds / 2 if thorough else seconds)
        dealt, kept, cross = swaps(
            parts.classes, parts.load, dealt, self.n, kept=kept, cross=cross, deadline=deadline, **pinned
        )
        if thorough:
            left = None if seconds is None else max(0.0, started + seconds - time.perf_counter())
            dealt, kept, cross = self.thorough(dealt, kept, cross, pinned, left)
        found = model.incumbent(model.values_of(dealt))
        moves = parts.owned_by - found.kept_of
        if (
            majorised(found.loads, incumbent.loads)
            and found.kept >= floor
            and (ceiling is None or found.cross <= ceiling)
            and (request.max_moves_per_member is None or int(moves.max(initial=0)) <= request.max_moves_per_member)
            and (
                (found.cross, -found.kept) < (incumbent.cross, -incumbent.kept)
                if tier == RACK
                else (-found.kept, found.cross) < (-incumbent.kept, incumbent.cross)
            )
        ):
            return found
        return None

    def thorough(
        self, dealt: np.ndarray, kept: int, cross: int, pinned: dict[str, Any], seconds: float | None
    ) -> tuple[np.ndarray, int, int]:
        """The costlier re-deals (:func:`optimal.exchange.pairs`, :func:`optimal.exchange.neighbourhoods`,
        the equal-weight re-deal again) under the stage's ``pinned`` objective, floor and ceiling:
        owners and their kept and cross-rack counts."""
        classes, load, n = self.parts.classes, self.parts.load, self.n
        # Under a time limit, a share of it (wall clock); without one, limits in passes and
        # deterministic time only, so the hint, and the search it steers, is the same on every machine.
        budget = None if seconds is None else min(REDEAL_SECONDS, seconds)
        started = time.perf_counter()
        deadline = None if budget is None else started + budget / 3
        dealt, kept, cross = pairs(classes, load, dealt, n, kept=kept, cross=cross, deadline=deadline, **pinned)
        deadline = None if budget is None else started + budget
        dealt, kept, cross = neighbourhoods(
            classes, load, dealt, n, kept=kept, cross=cross, deadline=deadline, **pinned
        )
        return exchange(classes, load, dealt, kept=kept, cross=cross, **pinned)


def _expired(deadline: float | None) -> bool:
    return deadline is not None and time.perf_counter() >= deadline
