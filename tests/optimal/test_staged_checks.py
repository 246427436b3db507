"""The composed model checks its own answer (optimal.staged): a forced disagreement between what a stage
proved and what the answer measures, or a forced invalid answer, is a ``SolverError``, never an answer.

Each test first solves unforced and holds the answer to the brute force
(:func:`optimal.brute_force.request_optimum`), so the error comes from what is forced and nothing else.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from ortools.sat.python import cp_model

from assignment_oracle.optimal import FEASIBLE, OPTIMAL, Request, cpsat_solver, lp_bound, solve, staged, staged_model
from assignment_oracle.optimal import solution as solution_module
from assignment_oracle.optimal.brute_force import request_optimum
from assignment_oracle.optimal.request import Measures, measure
from assignment_oracle.problem.errors import SolverError
from assignment_oracle.problem.model import Assignment, Problem
from assignment_oracle.problem.ownership import owner_array

#: Every tier a stage of its own and every constraint at once: racks (KIP-881), a join group of ``l`` and
#: ``r`` (KIP-315), spread (KAFKA-16277) and a budget of three moves (KIP-429); ``c`` subscribes to ``s`` only.
GROUP = Problem.from_mapping(
    {
        "topics": {
            "l": {"partitions": 2, "racks": [["r0"], ["r1"]]},
            "r": {"partitions": 2, "racks": [["r0"], ["r1"]]},
            "s": {"partitions": 3, "racks": [["r0"], ["r0"], ["r1"]]},
        },
        "join_groups": [["l", "r"]],
        "members": {
            "a": {"topics": ["l", "r", "s"], "rack": "r0", "owned": {"l": [0, 1], "s": [0, 1, 2]}},
            "b": {"topics": ["l", "r", "s"], "rack": "r1", "owned": {"r": [1]}},
            "c": {"topics": ["s"], "rack": "r1"},
        },
    }
)
REQUEST = Request(objective=("balance", "rack", "spread", "stickiness"), max_moves=3)


def _solved(request: Request = REQUEST):
    """The unforced answer: optimal, every tier proven, the brute force's values."""
    solution = solve(GROUP, request, method="cpsat-staged")
    assert solution.status == OPTIMAL
    assert [t.value for t in solution.tiers] == request_optimum(GROUP, request)
    assert all(t.proven for t in solution.tiers)
    return solution


def _one_more_on_a(m: Measures) -> Measures:
    loads = m.loads.copy()
    loads[0] += 1
    return dataclasses.replace(m, loads=loads)


@pytest.mark.parametrize(
    ("tier", "balance", "forced"),
    [
        ("balance", "dec-min", _one_more_on_a),
        ("balance", "sum-of-squares", _one_more_on_a),
        ("balance", "max-then-squares", _one_more_on_a),
        ("rack", "dec-min", lambda m: dataclasses.replace(m, cross_rack=m.cross_rack + 1)),
        ("spread", "dec-min", lambda m: dataclasses.replace(m, topic_squares=m.topic_squares - 1)),
        ("stickiness", "dec-min", lambda m: dataclasses.replace(m, kept=m.kept + 1)),
        ("stickiness", "dec-min", lambda m: dataclasses.replace(m, kept=m.kept - 1)),
    ],
)
def test_a_tier_measuring_other_than_the_proven_value_raises(monkeypatch, tier, balance, forced):
    """The answer's measure is forced off the proven value, better or worse: a SolverError naming the tier,
    never that value reported in the proven one's place (kept partitions included: more than proven
    would mean the proof was wrong)."""
    request = dataclasses.replace(REQUEST, balance=balance)
    _solved(request)
    monkeypatch.setattr(staged, "measure", lambda *args: forced(measure(*args)))
    with pytest.raises(SolverError, match=f"measures .* on {tier}"):
        solve(GROUP, request, method="cpsat-staged")


@pytest.mark.parametrize("tier", ["rack", "spread", "stickiness"])
def test_a_stage_reporting_other_than_its_answer_measures_raises(monkeypatch, tier):
    """A stage's proven value forced one off (the answer and the model's counts untouched): the tier's
    measured value is not what the model proved, a SolverError."""
    _solved()
    pinned = staged._one_stage
    stage = {"rack": "cross-rack partitions", "spread": "per-topic squares", "stickiness": "kept partitions"}[tier]

    def one_off(self, name, *args):
        return pinned(self, name, *args) + (name == stage)

    monkeypatch.setattr(staged, "_one_stage", one_off)
    with pytest.raises(SolverError, match=f"measures .* on {tier}, the model proved"):
        solve(GROUP, REQUEST, method="cpsat-staged")


def test_a_stage_whose_solver_value_differs_from_its_answer_raises(monkeypatch):
    """The model's counts are forced to show no partition kept (``-1``) whatever the solver's answer holds:
    the stickiness stage's proven value (CP-SAT's objective) and its answer's counts disagree, a
    SolverError at that stage."""
    assert [s["stage"] for s in _solved().stages if "proof" not in s] == [
        "cross-rack partitions",
        "per-topic squares",
        "kept partitions",
    ]
    counts = staged_model.ClassModel.incumbent
    monkeypatch.setattr(
        staged_model.ClassModel, "incumbent", lambda self, values: dataclasses.replace(counts(self, values), kept=-1)
    )
    with pytest.raises(SolverError, match="stage 'kept partitions' proved"):
        solve(GROUP, REQUEST, method="cpsat-staged")


def test_an_answer_for_a_member_not_subscribed_raises(monkeypatch):
    """Every part forced onto ``c``, which subscribes to ``s`` only."""
    _solved()
    monkeypatch.setattr(staged_model.ClassModel, "owners", lambda self, values: np.full(len(self.parts.partitions), 2))
    with pytest.raises(SolverError, match=r"not valid \(not-subscribed \(member c\): l-0, l-1\)"):
        solve(GROUP, REQUEST, method="cpsat-staged")


def test_a_split_join_group_unit_raises(monkeypatch):
    """One partition of a unit forced onto another member: valid partition by partition, but the unit of
    ``l-0`` and ``r-0`` is no longer on one member."""
    _solved()
    build = staged._assignment

    def split(problem, parts, owner):
        global_owner = owner_array(problem, build(problem, parts, owner))[0].copy()
        l0, r0 = int(problem.partition_offsets[0]), int(problem.partition_offsets[1])
        global_owner[r0] = 1 - global_owner[l0]  # a and b subscribe to both
        return Assignment.from_owners(problem, global_owner)

    monkeypatch.setattr(staged, "_assignment", split)
    with pytest.raises(SolverError, match="splits the join group unit of l-0"):
        solve(GROUP, REQUEST, method="cpsat-staged")


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        (dataclasses.replace(REQUEST, max_moves=1), "over max_moves 1"),
        (dataclasses.replace(REQUEST, max_moves=None, max_moves_per_member=1), "over max_moves_per_member 1"),
    ],
)
def test_an_answer_over_the_budget_of_moves_raises(monkeypatch, request_, message):
    """Every part forced onto ``b``, which subscribes to every topic: valid, but ``a`` loses all five of
    its partitions, over a budget of one in all or per member (which some answer keeps)."""
    assert request_optimum(GROUP, request_) is not None
    monkeypatch.setattr(staged_model.ClassModel, "owners", lambda self, values: np.full(len(self.parts.partitions), 1))
    with pytest.raises(SolverError, match=message):
        solve(GROUP, request_, method="cpsat-staged")


@pytest.mark.parametrize(
    ("tier", "forced"),
    [
        ("rack", lambda m: dataclasses.replace(m, cross_rack=m.cross_rack + 1)),
        ("spread", lambda m: dataclasses.replace(m, topic_squares=m.topic_squares + 1)),
        ("stickiness", lambda m: dataclasses.replace(m, kept=m.kept - 1)),
    ],
)
def test_an_unproven_tier_measuring_other_than_its_counts_raises(monkeypatch, tier, forced):
    """CP-SAT forced to report no proof (``FEASIBLE`` for its optimum): the answer is ``FEASIBLE``, and an
    unproven tier is checked against the model's counts and the ceiling its stage pinned; a measure
    forced off them is a SolverError too."""
    search = cpsat_solver.solve_interruptibly

    def no_proof(solver, model):
        code = search(solver, model)
        return cp_model.FEASIBLE if code == cp_model.OPTIMAL else code

    monkeypatch.setattr(cpsat_solver, "solve_interruptibly", no_proof)
    monkeypatch.setattr(lp_bound, "lp_bound", lambda *args, **kwargs: None)  # nor a linear bound that meets it
    unproven = solve(GROUP, REQUEST, method="cpsat-staged")
    assert unproven.status == FEASIBLE and not unproven.tier(tier).proven
    assert [t.value for t in unproven.tiers] == request_optimum(GROUP, REQUEST)  # its optimum, unproven
    monkeypatch.setattr(staged, "measure", lambda *args: forced(measure(*args)))
    with pytest.raises(SolverError, match=f"measures .* on {tier}, the model's counts"):
        solve(GROUP, REQUEST, method="cpsat-staged")


def test_the_answer_is_measured_once(monkeypatch):
    """The measures the checks took are the solution's, handed in as it is built: none of its numbers
    needs a second measure (which a solution built, then filled in, would)."""
    solution = _solved()
    monkeypatch.setattr(solution_module, "measure", lambda *args: pytest.fail("measured twice"))
    document = solution.to_mapping()
    assert document["retained"] == solution.retained == solution.tier("stickiness").value
    assert document["cross_rack"] == solution.cross_rack == solution.tier("rack").value
    assert document["topic_squares"] == solution.tier("spread").value
