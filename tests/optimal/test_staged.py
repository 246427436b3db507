"""The composed model (optimal.staged) and the front door (optimal.solve): every combination of tiers,
orders, balance definitions and constraints, judged by brute force on tiny instances.

Expected values come from :func:`optimal.brute_force.request_optimum`, which enumerates every
assignment of the scenario's units and reads owners, locality and weights off the scenario itself.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies import problems, requests

from assignment_oracle.optimal import (
    FEASIBLE,
    INFEASIBLE,
    OPTIMAL,
    UNKNOWN,
    Request,
    UnsupportedRequest,
    choose,
    measure,
    solve,
)
from assignment_oracle.optimal.brute_force import request_optimum
from assignment_oracle.optimal.request import BALANCE_DEFINITIONS, tier_key
from assignment_oracle.problem.model import Problem
from assignment_oracle.problem.ownership import violations


#: Every objective order the scenario format accepts: balance and stickiness, rack and spread optional.
def _assert_answers(problem: Problem, request: Request, solution) -> None:
    expected = request_optimum(problem, request, limit=100_000)
    if expected is None:
        assert solution.status == INFEASIBLE, (solution.status, solution.message)
        assert solution.assignment is None and solution.message
        return
    assert solution.status == OPTIMAL, (solution.status, solution.message, solution.stages)
    assert list(solution.objective_order) == list(request.tiers(problem))  # no tier dropped, none added
    assert [t.value for t in solution.tiers] == expected
    assert all(t.proven and t.bound == t.value for t in solution.tiers)
    # Valid as a co-partitioned assignment: every partition once, to a subscriber, units together.
    assert not violations(problem, solution.assignment)
    owner = {(t, p): m for m, topics in solution.assignment.members.items() for t, ps in topics.items() for p in ps}
    counts = problem.partition_counts
    for group in problem.join_groups:
        for p in range(max(counts[t] for t in group)):
            assert len({owner.get((t, p)) for t in group if p < counts[t]}) == 1
    moved = measure(problem, solution.assignment).moved_from
    if request.max_moves is not None:
        assert int(moved.sum()) <= request.max_moves
    if request.max_moves_per_member is not None:
        assert int(moved.max(initial=0)) <= request.max_moves_per_member


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(requests())
def test_every_combination_equals_brute_force(case):
    problem, request = case
    _assert_answers(problem, request, solve(problem, request, method="cpsat-staged"))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(requests())
def test_the_front_door_answers_every_combination_as_asked(case):
    """``method="auto"``: whichever engine the table picks, the answer is the brute force's."""
    problem, request = case
    solution = solve(problem, request)
    assert solution.method == choose(problem, request).name
    _assert_answers(problem, request, solution)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    problems(max_topics=4, max_partitions=6, max_members=5, max_assignments=None, racks=True),
    st.sampled_from(BALANCE_DEFINITIONS),
)
def test_the_staged_model_agrees_with_the_certified_flow(problem, definition):
    """Where the flow can express the request (counts, no joins, no budget), both exact models give the
    same tier values; the flow's are certified."""
    request = Request(balance=definition)
    flow = solve(problem, request, method="flow")
    staged = solve(problem, request, method="cpsat-staged")
    assert flow.status == staged.status == OPTIMAL
    assert [t.value for t in staged.tiers] == [t.value for t in flow.tiers]
    assert flow.certificate is not None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(max_topics=3, max_partitions=4, max_members=4, max_assignments=None))
def test_the_spread_flow_and_the_staged_model_agree(problem):
    request = Request(objective=("balance", "spread", "stickiness"))
    spread = solve(problem, request)
    assert spread.method == "flow-spread"
    staged = solve(problem, request, method="cpsat-staged")
    assert [t.value for t in staged.tiers] == [t.value for t in spread.tiers]


def test_a_budget_that_binds_nothing_keeps_the_rack_tier():
    """The bundled KIP-881 scenario: with --max-moves 100 the answer is the unlimited one, rack tier
    included (it used to drop the rack tier and answer a different OPTIMAL)."""
    from pathlib import Path

    from assignment_oracle.problem.scenario_json import read_problem

    problem = read_problem(Path(__file__).parents[2] / "cli" / "examples" / "kip881-racks-rebalance.json")
    unlimited = solve(problem)
    limited = solve(problem, Request(max_moves=100))
    assert limited.method == "cpsat-staged" and unlimited.method == "flow"
    assert limited.objective_order == unlimited.objective_order == ("balance", "rack", "stickiness")
    assert [t.value for t in limited.tiers] == [t.value for t in unlimited.tiers]
    assert limited.tier("rack").value == unlimited.cross_rack


def test_the_objective_order_is_honoured_with_weights():
    """Stickiness first with weights keeps every claim (it used to balance first)."""
    problem = Problem.from_mapping(
        {
            "topics": {"t": 4},
            "weights": {"t": [5, 1, 1, 1]},
            "members": {"a": {"topics": ["t"], "owned": {"t": [0, 1, 2, 3]}}, "b": {"topics": ["t"]}},
            "objective": ["stickiness", "balance"],
        }
    )
    solution = solve(problem)
    assert solution.status == OPTIMAL
    assert solution.tier("stickiness").value == 4
    assert solution.tier("balance").value == [8, 0]
    balance_first = solve(problem, Request(objective=("balance", "stickiness")))
    assert balance_first.tier("balance").value == [5, 3]


def test_an_infeasible_co_partitioning_is_infeasible():
    problem = Problem.from_mapping(
        {
            "topics": {"l": 2, "r": 2},
            "join_groups": [["l", "r"]],
            "members": {"a": {"topics": ["l"]}, "b": {"topics": ["r"]}},
        }
    )
    solution = solve(problem)
    assert solution.status == INFEASIBLE and "no member subscribes" in solution.message
    assert solution.to_mapping()["status"] == INFEASIBLE


def test_a_budget_no_assignment_keeps_is_infeasible():
    """A join group unit owned by two members must move one member's partition: no budget of 0 holds."""
    problem = Problem.from_mapping(
        {
            "topics": {"l": 1, "r": 1},
            "join_groups": [["l", "r"]],
            "members": {
                "a": {"topics": ["l", "r"], "owned": {"l": [0]}},
                "b": {"topics": ["l", "r"], "owned": {"r": [0]}},
            },
        }
    )
    assert solve(problem, Request(max_moves=0)).status == INFEASIBLE
    assert solve(problem, Request(max_moves=1)).status == OPTIMAL


def test_a_method_that_cannot_express_the_request_is_refused():
    problem = Problem.from_mapping({"topics": {"t": 2}, "weights": {"t": [1, 2]}, "members": {"a": {"topics": ["t"]}}})
    with pytest.raises(UnsupportedRequest, match="method flow cannot express"):
        solve(problem, method="flow")
    with pytest.raises(UnsupportedRequest, match="balance: unknown"):
        Request(balance="fairest")
    with pytest.raises(UnsupportedRequest, match="objective"):
        Request(objective=("balance",))
    with pytest.raises(TypeError):
        solve(problem, "flow")


def test_a_time_limit_never_claims_optimality():
    """A weighted number-partitioning instance too hard to prove in 0.05 s: FEASIBLE (or UNKNOWN), and no
    tier claims a proof it lacks."""
    rng = np.random.default_rng(7)
    weights = [int(x) for x in rng.integers(10**6, 10**7, size=60)]
    problem = Problem.from_mapping(
        {"topics": {"t": 60}, "weights": {"t": weights}, "members": {f"m{i}": {"topics": ["t"]} for i in range(7)}}
    )
    solution = solve(problem, time_limit=0.05)
    if solution.status == OPTIMAL:  # a very fast machine: then every tier was proven
        assert all(t.proven for t in solution.tiers)
    else:
        # The greedy start meets every constraint here, so a stage CP-SAT cannot finish keeps it:
        # an answer, FEASIBLE, never UNKNOWN.
        assert solution.status == FEASIBLE and solution.assignment is not None
        assert not all(t.proven for t in solution.tiers)
        assert solution.message.startswith("not proven")
    _assert_bounds_hold(solution)


def _assert_bounds_hold(solution) -> None:
    """Every stage's bound is on the right side of its value (never a bound past the answer)."""
    for stage in solution.stages:
        if stage["value"] is None or stage["bound"] is None:
            continue
        if stage["stage"] == "kept partitions":
            assert stage["bound"] >= stage["value"], stage
        else:
            assert stage["bound"] <= stage["value"], stage


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(requests())
def test_under_a_tiny_time_limit_every_answer_is_valid_and_every_bound_holds(case):
    """Stopped at once (1 ms), every combination still answers within its constraints or says why
    not: INFEASIBLE only when the brute force finds nothing, UNKNOWN only under a budget (the greedy
    start may break it), and a stage's bound never passes the brute force's optimum."""
    problem, request = case
    solution = solve(problem, request, time_limit=0.001)
    expected = request_optimum(problem, request, limit=100_000)
    if expected is None:
        assert solution.status in (INFEASIBLE, UNKNOWN)
        return
    assert solution.status != INFEASIBLE
    if solution.status == UNKNOWN:
        assert request.limited
        return
    assert solution.assignment is not None and not violations(problem, solution.assignment)
    _assert_bounds_hold(solution)
    # The tiers' values: the proven ones are the optimum's; the first unproven one is no better.
    for record, best in zip(solution.tiers, expected):
        if not record.proven:
            mine, optimum = tier_key(record.tier, record.value), tier_key(record.tier, best)
            assert mine >= optimum
            break
        assert record.value == best


@st.composite
def levelled(draw):
    """Four or five members and a handful of weighted partitions with differing subscriptions: dec-min
    needs several levels (the ``(C+1)``-th largest load, then the members at it), not a shortcut."""
    members = draw(st.integers(4, 5))
    sizes = {"a": draw(st.integers(2, 4)), "b": draw(st.integers(1, 3))}
    subscribers = {
        t: draw(st.lists(st.integers(0, members - 1), min_size=1, max_size=members, unique=True)) for t in sizes
    }
    owner = {t: [draw(st.integers(-1, members - 1)) for _ in range(n)] for t, n in sizes.items()}
    data = {
        "topics": sizes,
        "weights": {t: draw(st.lists(st.integers(1, 9), min_size=n, max_size=n)) for t, n in sizes.items()},
        "members": {
            f"m{i}": {
                "topics": [t for t in sizes if i in subscribers[t]],
                "owned": {t: [p for p in range(sizes[t]) if owner[t][p] == i] for t in sizes},
            }
            for i in range(members)
        },
    }
    problem = Problem.from_mapping(data)
    size = 1
    for t in problem.topics:
        size *= len(problem.subscribers[t.name]) ** t.partitions
    assume(size <= 20_000)
    order = draw(
        st.sampled_from([("balance", "stickiness"), ("balance", "spread", "stickiness"), ("stickiness", "balance")])
    )
    return problem, Request(
        objective=order,
        balance=draw(st.sampled_from(BALANCE_DEFINITIONS)),
        max_moves=draw(st.one_of(st.none(), st.integers(0, 4))),
    )


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(levelled())
def test_dec_min_level_by_level_equals_brute_force(case):
    problem, request = case
    _assert_answers(problem, request, solve(problem, request, method="cpsat-staged"))
