"""The load slots (issue 40): the deal into the water-filled loads (:mod:`optimal.slot_deal`) and the
slots' relaxation bound (:mod:`optimal.slot_bound`), judged by the exact staged model on small
weighted groups with racks and a budget of moves (CP-SAT, proven; the staged model is itself held to
the brute force in test_staged.py and test_staged_bounds.py).

* every deal that succeeds has exactly the water-filled sorted loads, which are then the proven
  ``dec-min`` optimum's, keeps the budget, and puts every part on an eligible member;
* the bound is never past the optimum of the stage it bounds, for the fewest cross-rack partitions
  and, the rack pinned at its optimum, for the most kept.
"""

from __future__ import annotations

import numpy as np
import pytest
from racked_groups import measured, racked_group

from assignment_oracle.optimal import OPTIMAL, Request, staged, staged_parts
from assignment_oracle.optimal.slot_bound import moves_bound, slot_bound
from assignment_oracle.optimal.slot_deal import slot_deal, water_filled
from assignment_oracle.problem.claims import resolve_claims
from assignment_oracle.problem.model import Problem

MEMBERS = 6


def _group(seed: int, *, heavy: bool) -> tuple[Problem, Request]:
    """Weights 1-5 (with ``heavy``, two partitions far heavier than a member's share), random previous
    owners, a budget of 3-8 moves."""
    return racked_group(np.random.default_rng(seed), heavy={("t0", 0): 40, ("t1", 3): 25} if heavy else None)


def _parts(problem: Problem, request: Request):
    return staged_parts.parts_of(problem, request.tiers(problem), resolve_claims(problem))


def _measured(parts, owner: np.ndarray) -> tuple[list[int], int, int]:
    loads, kept, cross = measured(parts, owner, MEMBERS)
    return sorted((int(x) for x in loads), reverse=True), kept, cross


def test_water_filled_loads_put_the_heavy_parts_alone_and_split_the_rest_within_one():
    """Parts 40, 25 and twenty of weight 1 over 4 members: 40 and 25 alone, the other two at 10 each."""
    load = np.array([40, 25] + [1] * 20)
    heavy, r, q, extra = water_filled(load, 4)
    assert [int(load[k]) for k in heavy] == [40, 25]
    assert (r, q, extra) == (2, 10, 0)


@pytest.mark.parametrize("heavy", [False, True])
@pytest.mark.parametrize("seed", range(10))
def test_a_deal_has_the_water_filled_loads_which_are_the_proven_optimum_s(seed, heavy):
    problem, request = _group(seed, heavy=heavy)
    parts = _parts(problem, request)
    owner = slot_deal(parts, MEMBERS, max_moves=request.max_moves, rack=True)
    exact = staged.solve(problem, request)
    assert exact.status == OPTIMAL, exact.message
    heaviest, r, q, extra = water_filled(parts.load, MEMBERS)
    filled = sorted([int(parts.load[k]) for k in heaviest] + [q + 1] * extra + [q] * (r - extra), reverse=True)
    if owner is None:
        return
    loads, kept, _ = _measured(parts, owner)
    assert loads == filled
    assert exact.tiers[0].value == filled  # the least sorted loads, reached, are the optimum's
    assert int(parts.owned_by.sum()) - kept <= request.max_moves
    for cls in parts.classes:
        assert set(int(owner[k]) for k in cls.parts) <= set(cls.eligible)


def test_the_deal_succeeds_where_small_parts_make_any_split_exact():
    """Forty partitions of weight 1 and one of 30 over five members, nobody owning anything: 30 alone,
    the other four at 10 each."""
    data = {
        "topics": {"a": {"partitions": 41}},
        "weights": {"a": [30] + [1] * 40},
        "members": {f"m{i}": {"topics": ["a"]} for i in range(5)},
    }
    problem = Problem.from_mapping(data)
    parts = _parts(problem, Request())
    owner = slot_deal(parts, 5, max_moves=None, rack=False)
    assert owner is not None
    loads = np.bincount(owner, weights=parts.load, minlength=5)
    assert sorted(int(x) for x in loads) == [10, 10, 10, 10, 30]


@pytest.mark.parametrize("heavy", [False, True])
@pytest.mark.parametrize("seed", range(10))
def test_the_slots_bound_is_never_past_the_optimum(seed, heavy):
    problem, request = _group(seed, heavy=heavy)
    exact = staged.solve(problem, request)
    assert exact.status == OPTIMAL, exact.message
    loads, rack, kept = (t.value for t in exact.tiers)
    parts = _parts(problem, request)
    floor = int(parts.owned_by.sum()) - request.max_moves
    fewest = slot_bound(parts, MEMBERS, loads, objective="rack", kept_floor=floor)
    assert fewest is not None and fewest <= rack
    most = slot_bound(parts, MEMBERS, loads, objective="stickiness", kept_floor=floor, cross_ceiling=rack)
    assert most is not None and most >= kept


@pytest.mark.parametrize("heavy", [False, True])
@pytest.mark.parametrize("seed", range(16))
def test_the_moves_bound_is_never_past_the_optimum(seed, heavy):
    """Where the proven loads are the water-filled ones (else no bound, and the water-filled loads
    must then be out of reach: the optimum's are not them)."""
    problem, request = _group(seed, heavy=heavy)
    exact = staged.solve(problem, request)
    assert exact.status == OPTIMAL, exact.message
    loads, rack, kept = (t.value for t in exact.tiers)
    parts = _parts(problem, request)
    fewest = moves_bound(parts, MEMBERS, loads, objective="rack", max_moves=request.max_moves)
    most = moves_bound(parts, MEMBERS, loads, objective="stickiness", max_moves=request.max_moves, cross_ceiling=rack)
    heaviest, r, q, extra = water_filled(parts.load, MEMBERS)
    filled = sorted([int(parts.load[k]) for k in heaviest] + [q + 1] * extra + [q] * (r - extra), reverse=True)
    if loads != filled:
        assert fewest is None and most is None
        return
    assert fewest is not None and fewest <= rack
    assert most is not None and most >= kept
