"""The parts program and its realised plan (issue 40): :mod:`optimal.slot_program`'s bound and
:mod:`optimal.slot_replan`'s start, judged on small weighted groups with racks and a budget of moves
by the staged model with both turned off (CP-SAT proves every stage there; the staged model is itself
held to the brute force in test_staged.py and test_staged_bounds.py).

* the program's bound is never past the optimum of the stage it bounds: the fewest cross-rack
  partitions, and, the rack pinned at its optimum, the most kept;
* a realised plan has exactly the water-filled loads, keeps the budget, and is never better than the
  bound (it is an assignment the program relaxes);
* the staged model with both on gives the same optimum, and says so where the program proved it;
* the exact packing fills every room or says it cannot.
"""

from __future__ import annotations

import numpy as np
import pytest
from racked_groups import measured, racked_group

from assignment_oracle.optimal import OPTIMAL, Request, staged, staged_parts, weighted_shortcuts
from assignment_oracle.optimal import slot_replan as replan_module
from assignment_oracle.optimal.slot_bound import moves_bound
from assignment_oracle.optimal.slot_deal import water_filled
from assignment_oracle.optimal.slot_program import Group, slot_program
from assignment_oracle.optimal.slot_replan import slot_replan
from assignment_oracle.problem.claims import resolve_claims
from assignment_oracle.problem.model import Problem

MEMBERS = 6


def _group(seed: int, *, heavy: bool, zeros: bool = False) -> tuple[Problem, Request]:
    """Weights 1-9 (with ``heavy``, two partitions far heavier than a member's share, and ones near
    half of it; with ``zeros``, a third of them weighing nothing, the heaviest one's owner owning
    those), some partitions owned by nobody, a budget of 3-8 moves."""
    return racked_group(
        np.random.default_rng(1000 + seed),
        weights=(1, 10),
        owners=(0, MEMBERS + 1),
        heavy={("t0", 0): 60, ("t1", 3): 45, ("t2", 5): 12, ("t2", 6): 11} if heavy else None,
        zeros=zeros,
    )


def _parts(problem: Problem, request: Request):
    return staged_parts.parts_of(problem, request.tiers(problem), resolve_claims(problem))


def _without_program(monkeypatch, problem: Problem, request: Request):
    """The staged model's answer with neither the program's bound nor its plan."""
    with monkeypatch.context() as patch:
        patch.setattr(weighted_shortcuts, "slot_replan", lambda *args, **kwargs: (None, None))
        patch.setattr(weighted_shortcuts.WeightedShortcuts, "program_bound", lambda self, *args: None)
        return staged.solve(problem, request)


def _seeds(fast: int, total: int) -> list:
    """Seeds ``0 .. total - 1``, those from ``fast`` on with the slow mark (CI runs them, the README's
    quick run does not)."""
    return [*range(fast), *(pytest.param(i, marks=pytest.mark.slow) for i in range(fast, total))]


def _filled(parts) -> list[int]:
    heaviest, r, q, extra = water_filled(parts.load, MEMBERS)
    return sorted([int(parts.load[k]) for k in heaviest] + [q + 1] * extra + [q] * (r - extra), reverse=True)


@pytest.mark.parametrize("heavy,zeros", [(False, False), (True, False), (True, True)])
@pytest.mark.parametrize("seed", _seeds(4, 8))
def test_the_program_s_bound_is_never_past_the_optimum(monkeypatch, seed, heavy, zeros):
    problem, request = _group(seed, heavy=heavy, zeros=zeros)
    exact = _without_program(monkeypatch, problem, request)
    assert exact.status == OPTIMAL, exact.message
    loads, rack, kept = (t.value for t in exact.tiers)
    parts = _parts(problem, request)
    group = Group(parts, MEMBERS)
    assert group.fits
    if loads != _filled(parts):
        return  # the water-filled loads are out of reach: the program does not apply (staged checks it)
    floor = int(parts.owned_by.sum()) - request.max_moves
    fewest = slot_program(group, objective="rack", kept_floor=floor)
    assert fewest is not None and fewest.bound is not None
    assert fewest.bound <= rack
    most = slot_program(group, objective="stickiness", kept_floor=floor, cross_ceiling=rack)
    assert most is not None and most.bound is not None
    assert most.bound >= kept


@pytest.mark.parametrize("heavy", [False, True])
@pytest.mark.parametrize("seed", range(12))
def test_a_realised_plan_has_the_water_filled_loads_keeps_the_budget_and_meets_no_less_than_the_bound(seed, heavy):
    problem, request = _group(seed, heavy=heavy)
    parts = _parts(problem, request)
    owner, bound = slot_replan(parts, MEMBERS, max_moves=request.max_moves)
    if owner is None:
        return
    loads = np.bincount(owner, weights=parts.load, minlength=MEMBERS)
    assert sorted((int(x) for x in loads), reverse=True) == _filled(parts)
    _, kept, cross = measured(parts, owner, MEMBERS)
    assert int(parts.owned_by.sum()) - kept <= request.max_moves
    assert bound is not None and cross >= bound


def test_plans_are_realised_on_some_of_the_groups():
    """The property above is not vacuous: most of the groups get a realised plan."""
    realised = 0
    for seed in range(12):
        for heavy in (False, True):
            problem, request = _group(seed, heavy=heavy)
            owner, _ = slot_replan(_parts(problem, request), MEMBERS, max_moves=request.max_moves)
            realised += owner is not None
    assert realised >= 12


@pytest.mark.parametrize("heavy,zeros", [(False, False), (True, False), (True, True)])
@pytest.mark.parametrize("seed", _seeds(3, 6))
def test_the_staged_model_with_the_program_reaches_the_same_optimum(monkeypatch, seed, heavy, zeros):
    """Every tier the same value with and without the program (bound and plan); a stage the program
    proved says so."""
    problem, request = _group(seed, heavy=heavy, zeros=zeros)
    exact = _without_program(monkeypatch, problem, request)
    solved = staged.solve(problem, request)
    assert solved.status == OPTIMAL, solved.message
    assert [t.value for t in solved.tiers] == [t.value for t in exact.tiers]
    for stage in solved.stages:
        if stage.get("proof") == staged.PROGRAM_PROOF:
            assert stage["stage"] in ("cross-rack partitions", "kept partitions")


def test_the_program_proves_a_stage_on_some_of_the_groups():
    """The staged model settles the rack or stickiness stage by the program's bound on some of the
    groups above (so the test before judges that path)."""
    proved = 0
    for seed in range(4):
        for heavy in (False, True):
            problem, request = _group(seed, heavy=heavy)
            solved = staged.solve(problem, request)
            proved += any(stage.get("proof") == staged.PROGRAM_PROOF for stage in solved.stages)
    assert proved >= 1


def test_the_packing_fills_every_room_exactly():
    """Rooms 10, 7 and 3 from parts 6, 4, 4, 3, 2, 1: each room filled to its last unit."""
    weight = [6, 4, 4, 3, 2, 1]
    owner = np.full(6, -1, dtype=np.int64)
    room = {0: 10, 1: 7, 2: 3}
    assert replan_module._pack(list(range(6)), [0, 1, 2], room, weight, [-1] * 6, owner)
    loads = np.bincount(owner, weights=weight, minlength=3)
    assert loads.tolist() == [10, 7, 3]
    assert room == {0: 0, 1: 0, 2: 0}


def test_the_packing_says_so_when_no_exact_fill_exists():
    """A room of 10 from parts 7 and 9 (and one of 6 for the rest): no subset sums to 10."""
    weight = [7, 9]
    owner = np.full(2, -1, dtype=np.int64)
    room = {0: 10, 1: 6}
    assert not replan_module._pack([0, 1], [0, 1], room, weight, [-1, -1], owner)
    assert (owner == -1).all() and room == {0: 10, 1: 6}


def test_the_packing_puts_a_part_back_on_its_owner_where_it_fits():
    """Part 0 (weight 5) owned by member 1, rooms 5 and 5: it goes back to member 1."""
    weight = [5, 5]
    owner = np.full(2, -1, dtype=np.int64)
    room = {0: 5, 1: 5}
    assert replan_module._pack([0, 1], [0, 1], room, weight, [1, -1], owner)
    assert owner.tolist() == [1, 0]


def test_the_packing_places_parts_that_weigh_nothing():
    """Parts of weight 0 (owned by member 1, and by nobody) with one of 4 into rooms 4 and 0."""
    weight = [0, 4, 0]
    owner = np.full(3, -1, dtype=np.int64)
    room = {0: 4, 1: 0}
    assert replan_module._pack([0, 1, 2], [0, 1], room, weight, [1, -1, -1], owner)
    assert owner.tolist() == [1, 0, 0]


@pytest.mark.parametrize("seed", _seeds(4, 8))
def test_the_moves_bound_lets_a_holder_keep_what_weighs_nothing(monkeypatch, seed):
    """:func:`optimal.slot_bound.moves_bound` on the groups with weightless partitions owned by the
    heaviest one's owner: never past the optimum (it counted them as moves a holder must make)."""
    problem, request = _group(seed, heavy=True, zeros=True)
    exact = _without_program(monkeypatch, problem, request)
    assert exact.status == OPTIMAL, exact.message
    loads, rack, kept = (t.value for t in exact.tiers)
    parts = _parts(problem, request)
    fewest = moves_bound(parts, MEMBERS, loads, objective="rack", max_moves=request.max_moves)
    most = moves_bound(parts, MEMBERS, loads, objective="stickiness", max_moves=request.max_moves, cross_ceiling=rack)
    if loads != _filled(parts):
        assert fewest is None and most is None
        return
    assert fewest is not None and fewest <= rack
    assert most is not None and most >= kept
