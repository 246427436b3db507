"""Brute force = flow = CP-SAT (= networkx) on small instances; flow = CP-SAT on medium ones."""

import brute_force
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import problems

from assignment_oracle.optimal import OPTIMAL, solve, verify
from assignment_oracle.problem import Assignment, Problem


@settings(max_examples=900)
@given(problems())
def test_flow_equals_brute_force(problem):
    expected = brute_force.optimum(problem)
    solution = solve(problem, method="flow")
    assert solution.status == OPTIMAL
    assert solution.sorted_loads == expected.sorted_loads
    assert solution.retained == expected.retained
    assert solution.owned == expected.owned


@settings(max_examples=600)
@given(problems())
def test_cpsat_and_networkx_equal_brute_force(problem):
    expected = brute_force.optimum(problem)
    for method in ("cpsat", "networkx"):
        solution = solve(problem, method=method)
        assert solution.status == OPTIMAL, method
        assert (solution.sorted_loads, solution.retained) == (expected.sorted_loads, expected.retained), method
        assert not verify(problem, solution.assignment, solution.certificate)


@settings(max_examples=400)
@given(problems(racks=True))
def test_every_model_equals_brute_force_with_racks(problem):
    # Rack locality in every objective order (rack first, between, last, or left out): the flow,
    # CP-SAT and networkx find the brute-force optimum, tier by tier, and certify it.
    expected = brute_force.optimum(problem)
    objectives = set()
    for method in ("flow", "cpsat", "networkx"):
        solution = solve(problem, method=method)
        assert solution.status == OPTIMAL, method
        assert (solution.sorted_loads, solution.retained) == (expected.sorted_loads, expected.retained), method
        if "rack" in problem.objective:  # else any number of cross-rack partitions is as good
            assert solution.cross_rack == expected.cross_rack, method
        assert not verify(problem, solution.assignment, solution.certificate)
        objectives.add(solution.objective)
    assert len(objectives) == 1


@settings(max_examples=300)
@given(problems(max_topics=2, max_partitions=6, max_members=2, max_assignments=4096, racks=True))
def test_weights_capped_at_twice_the_members_still_rank_tiers(problem):
    # Two members, up to 12 partitions: more claims and cross-rack choices than 2 * members, the cap
    # optimal/levels.py puts on the weights (one simple cycle changes a later tier by at most 2 per member).
    expected = brute_force.optimum(problem)
    solution = solve(problem)
    assert (solution.sorted_loads, solution.retained) == (expected.sorted_loads, expected.retained)
    if "rack" in problem.objective:
        assert solution.cross_rack == expected.cross_rack


@pytest.mark.slow
@settings(max_examples=60)
@given(problems(max_topics=8, max_partitions=12, max_members=10, max_assignments=None))
def test_flow_equals_cpsat_on_medium_instances(problem):
    flow, cpsat = solve(problem, method="flow"), solve(problem, method="cpsat")
    assert cpsat.status == flow.status == OPTIMAL
    assert cpsat.objective == flow.objective
    assert (cpsat.sorted_loads, cpsat.retained) == (flow.sorted_loads, flow.retained)


@settings(max_examples=100)
@given(problems(max_topics=5, max_partitions=6, max_members=6, max_assignments=None), st.randoms(use_true_random=False))
def test_a_hint_changes_nothing_but_speed(problem, rnd):
    # Any valid assignment may warm-start CP-SAT; the optimum it proves is the same.
    flow = solve(problem, method="flow")
    members = {}
    for topic in problem.assignable_topics:
        for p in range(topic.partitions):
            member = problem.member_ids[rnd.choice(problem.subscribers[topic.name])]
            members.setdefault(member, {}).setdefault(topic.name, []).append(p)
    arbitrary = Assignment({m: {t: tuple(ps) for t, ps in ts.items()} for m, ts in members.items()})
    for hint in (flow.assignment, arbitrary):
        hinted = solve(problem, method="cpsat", hint=hint)
        assert hinted.status == OPTIMAL
        assert hinted.objective == flow.objective


def test_cpsat_time_limit_never_claims_optimality():
    # A problem big enough that a near-zero limit stops CP-SAT before its proof.
    topics = {f"t{i}": 40 for i in range(30)}
    members = {f"m{j:02d}": {"topics": [f"t{i}" for i in range(30) if (i * 7 + j) % 3]} for j in range(40)}
    problem = Problem.from_mapping({"topics": topics, "members": members})
    solution = solve(problem, method="cpsat", time_limit=0.001)
    assert solution.status in ("FEASIBLE", "UNKNOWN")
    assert solution.certificate is None
    exact = solve(problem, method="flow")
    if solution.bound is not None:
        assert solution.bound <= exact.objective
    if solution.assignment is not None:
        assert solution.objective >= exact.objective


def test_cpsat_cut_short_reports_feasible_with_a_valid_bound():
    # 300 members on random 20% of 60 topics; CP-SAT needs about a second to
    # prove, and is stopped early after being handed a poor (valid) start:
    # every partition on its topic's first subscriber.
    import random

    rnd = random.Random(5)
    topics = {f"t{i:02d}": 30 for i in range(60)}
    members = {f"m{j:03d}": {"topics": rnd.sample(sorted(topics), 12)} for j in range(300)}
    problem = Problem.from_mapping({"topics": topics, "members": members})
    poor = {}
    for topic in problem.assignable_topics:
        first = problem.member_ids[problem.subscribers[topic.name][0]]
        poor.setdefault(first, {})[topic.name] = tuple(range(topic.partitions))
    exact = solve(problem, method="flow")
    # Whatever the machine's speed, each status must tell the truth: UNKNOWN
    # has no assignment, FEASIBLE a valid bound and no certificate, OPTIMAL the optimum.
    for limit in (0.5, 1.0, 2.0, 4.0):
        cut = solve(problem, method="cpsat", time_limit=limit, hint=Assignment(poor))
        if cut.status == "UNKNOWN":
            assert cut.assignment is None and cut.certificate is None
            continue
        if cut.status == "OPTIMAL":
            assert cut.objective == exact.objective
        else:
            assert cut.status == "FEASIBLE" and cut.certificate is None
            assert cut.bound <= exact.objective <= cut.objective
        break
    else:
        raise AssertionError("CP-SAT found no assignment in 4 s although it was handed one")


def test_same_input_same_output():
    problem = Problem.from_mapping(
        {
            "topics": {"a": 7, "b": 5, "c": 3},
            "members": {
                "x": {"topics": ["a", "b"], "owned": {"a": [0, 1, 2]}, "generation": 2},
                "y": {"topics": ["a", "b", "c"], "owned": {"b": [0]}, "generation": 2},
                "z": {"topics": ["c", "a"]},
            },
        }
    )
    for method in ("flow", "cpsat"):
        first = solve(problem, method=method).to_mapping()
        assert all(solve(problem, method=method).to_mapping() == first for _ in range(3))
