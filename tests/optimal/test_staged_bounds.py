"""Bounds and re-deals of the staged model's rack and stickiness stages (issue 40), judged by brute force.

* :func:`optimal.lp_bound.lp_bound`: the linear relaxation's bound, exact on hand-made models, and on
  tiny weighted groups never past the optimum of the stage it bounds (at most it for the fewest
  cross-rack partitions, at least it for the most kept), each earlier tier pinned at its optimum;
* the stages that go through the bound and the re-deals still prove the brute force's optimum;
* :mod:`optimal.exchange`: every re-deal keeps the loads majorised, its reported counts are the
  measured ones, and it keeps the side constraint it was given.
"""

from __future__ import annotations

from fractions import Fraction
from functools import partial

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from ortools.sat.python import cp_model
from racked_groups import measured, racked_group
from strategies import requests

from assignment_oracle.optimal import OPTIMAL, Request, cpsat_solver, lp_bound, staged, staged_parts
from assignment_oracle.optimal.brute_force import request_optimum
from assignment_oracle.optimal.exchange import exchange, neighbourhoods, pairs, swaps
from assignment_oracle.optimal.request import tier_key
from assignment_oracle.problem.claims import resolve_claims
from assignment_oracle.problem.model import RACK, STICKINESS, Problem


def test_the_linear_bound_is_the_relaxation_s_exact_value():
    """``min x + y`` with ``2x + 2y >= 3``: the LP's 3/2 exactly (the optimum is 2); as a maximisation
    of ``x + y`` with ``2x + 2y <= 3``: 3/2 from above (the optimum is 1)."""
    model = cp_model.CpModel()
    x, y = model.new_int_var(0, 5, "x"), model.new_int_var(0, 5, "y")
    model.add(2 * x + 2 * y >= 3)
    model.minimize(x + y)
    assert lp_bound.lp_bound(model) == Fraction(3, 2)
    model = cp_model.CpModel()
    x, y = model.new_int_var(0, 5, "x"), model.new_int_var(0, 5, "y")
    model.add(2 * x + 2 * y <= 3)
    model.maximize(x + y + 1)
    assert lp_bound.lp_bound(model) == Fraction(5, 2)


def test_products_are_dropped_from_the_relaxation():
    """``min square`` with ``square = x * x`` and ``x >= 2``: the product dropped, the bound is the
    square's own lower bound (1 here), weaker than the optimum 4 and still a bound."""
    model = cp_model.CpModel()
    x = model.new_int_var(2, 5, "x")
    square = model.new_int_var(1, 25, "square")
    model.add_multiplication_equality(square, [x, x])
    model.minimize(square)
    assert lp_bound.lp_bound(model) == 1


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(requests())
def test_linear_bounds_never_pass_the_brute_force_and_the_stages_still_prove_it(case):
    """No first effort (every rack and stickiness stage not settled by a shortcut goes through the
    linear bound and the re-deals): each bound computed is on the right side of the brute force's
    optimum of its tier, and the answer is the brute force's, proven."""
    problem, request = case
    expected = request_optimum(problem, request, limit=100_000)
    seen: list[tuple[str, Fraction]] = []
    original = lp_bound.lp_bound

    def recorded(model, **options):
        found = original(model, **options)
        if found is not None:
            seen.append((stage_of[0], found))
        return found

    stage_of = [""]
    search = staged._search

    def searched(self, name, *args, **kwargs):
        stage_of[0] = name
        return search(self, name, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(staged, "FIRST_EFFORT", 0.0)
        patch.setattr(lp_bound, "lp_bound", recorded)
        patch.setattr(staged, "_search", searched)
        solution = staged.solve(problem, request)
    if expected is None:
        return
    assert solution.status == OPTIMAL, (solution.status, solution.message)
    assert [t.value for t in solution.tiers] == expected
    optimum = dict(zip(request.tiers(problem), expected))
    for name, bound in seen:
        tier = staged._SIDE_STAGES[name]
        if tier == RACK:
            assert bound <= optimum[RACK], (name, bound, optimum)
        else:
            assert bound >= optimum[STICKINESS], (name, bound, optimum)


def _group(seed: int) -> tuple[Problem, Request]:
    """Weights 1-5, some partitions owned by nobody, a budget of 2-7 moves."""
    return racked_group(np.random.default_rng(seed), owners=(-1, 6), budget=(2, 8))


def _measured(parts, owner: np.ndarray) -> tuple[np.ndarray, int, int]:
    return measured(parts, owner, 6)


@pytest.mark.parametrize("seed", [*range(6), *(pytest.param(i, marks=pytest.mark.slow) for i in range(6, 12))])
@pytest.mark.parametrize("objective", [RACK, STICKINESS])
def test_every_re_deal_keeps_the_loads_majorised_and_reports_what_it_did(seed, objective):
    problem, request = _group(seed)
    tiers = request.tiers(problem)
    parts = staged_parts.parts_of(problem, tiers, resolve_claims(problem))
    owner = staged_parts.greedy(parts, 6, True)
    loads, kept, cross = _measured(parts, owner)
    floor = kept - 3
    ceiling = cross if objective == STICKINESS else None
    for step in ("exchange", "swaps", "pairs", "neighbourhoods"):
        if step == "exchange":
            found = exchange(
                parts.classes,
                parts.load,
                owner,
                objective=objective,
                kept=kept,
                cross=cross,
                kept_floor=floor,
                cross_ceiling=ceiling,
            )
        elif step == "swaps":
            found = swaps(
                parts.classes,
                parts.load,
                owner,
                6,
                objective=objective,
                kept=kept,
                cross=cross,
                kept_floor=floor,
                cross_ceiling=ceiling,
            )
        else:
            search = pairs if step == "pairs" else partial(neighbourhoods, count=100)
            found = search(
                parts.classes,
                parts.load,
                owner,
                6,
                objective=objective,
                kept=kept,
                cross=cross,
                kept_floor=floor,
                cross_ceiling=ceiling,
                deadline=None,
            )
        new_owner, new_kept, new_cross = found
        new_loads, measured_kept, measured_cross = _measured(parts, new_owner)
        assert (new_kept, new_cross) == (measured_kept, measured_cross), step
        assert staged_parts.majorised(new_loads, loads), step
        assert new_kept >= floor and (ceiling is None or new_cross <= ceiling), step
        better = (
            (new_cross, -new_kept) <= (cross, -kept) if objective == RACK else (-new_kept, new_cross) <= (-kept, cross)
        )
        assert better, step
        for cls in parts.classes:
            assert all(int(new_owner[k]) in cls.eligible for k in cls.parts), step
        owner, loads, kept, cross = new_owner, new_loads, new_kept, new_cross


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(requests())
def test_a_stage_proven_by_its_linear_bound_is_the_brute_force_s(case):
    """CP-SAT never reports a proof: a tier is proven only by a shortcut or by an incumbent meeting the
    linear bound (the stage's ``proof`` says which); every proven tier up to the first unproven one
    is the brute force's optimum, and the first unproven one is no better than it."""
    problem, request = case
    expected = request_optimum(problem, request, limit=100_000)
    search = cpsat_solver.solve_interruptibly

    def no_proof(solver, model):
        code = search(solver, model)
        return cp_model.FEASIBLE if code == cp_model.OPTIMAL else code

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cpsat_solver, "solve_interruptibly", no_proof)
        solution = staged.solve(problem, request)
    if expected is None or solution.assignment is None:
        return
    for stage in solution.stages:
        assert not stage["proven"] or "proof" in stage, stage
    for record, best in zip(solution.tiers, expected):
        if not record.proven:
            assert tier_key(record.tier, record.value) >= tier_key(record.tier, best)
            break
        assert record.value == best
