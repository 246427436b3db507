"""Per-topic spread as a tier after balance: the flow against brute force and against the plain optimum."""

from __future__ import annotations

import json

from hypothesis import assume, given, settings
from strategies import problems

from assignment_oracle.cli import main
from assignment_oracle.optimal import solve as solve_counts
from assignment_oracle.optimal import topic_spread
from assignment_oracle.optimal.brute_force import topic_spread_optimum
from assignment_oracle.problem import Problem
from assignment_oracle.problem.metrics import per_topic_spread


@settings(max_examples=200, deadline=None)
@given(problems(max_topics=3, max_partitions=3, max_members=4, max_assignments=None))
def test_the_spread_tier_equals_brute_force(problem):
    try:
        expected = topic_spread_optimum(problem, limit=3000)
    except ValueError:
        assume(False)
    solution = topic_spread.solve(problem)
    assert (solution.sorted_loads, solution.measures.topic_squares, solution.retained) == expected
    placed = [(t, p, m) for m, ts in solution.assignment.members.items() for t, ps in ts.items() for p in ps]
    assert len({(t, p) for t, p, _ in placed}) == len(placed) == problem.total_partitions
    subscribed = {m.member_id: m.topics for m in problem.members}
    assert all(t in subscribed[m] for t, _, m in placed)


@settings(max_examples=100, deadline=None)
@given(problems(max_topics=4, max_partitions=6, max_members=5, max_assignments=None))
def test_the_tier_never_costs_balance(problem):
    plain = solve_counts(problem.balance_first_order())
    spread = topic_spread.solve(problem)
    assert spread.sorted_loads == tuple(plain.sorted_loads)
    assert spread.measures.topic_squares <= topic_spread.topic_squares(problem, plain.assignment)


def test_kafka_16277s_shape_a_joining_member_gets_a_share_of_each_topic(tmp_path, capsys):
    # Two members own all of two topics, one topic each; a third joins.  Balance and stickiness alone
    # give the newcomer partitions of one topic only; with the spread tier each topic is split 2/1/1.
    data = {
        "topics": {"a": 4, "b": 4},
        "members": {
            "m1": {"topics": ["a", "b"], "owned": {"a": [0, 1, 2, 3]}, "generation": 2},
            "m2": {"topics": ["a", "b"], "owned": {"b": [0, 1, 2, 3]}, "generation": 2},
            "m3": {"topics": ["a", "b"]},
        },
    }
    problem = Problem.from_mapping(data)
    solution = topic_spread.solve(problem)
    loads, squares, kept = topic_spread_optimum(problem)
    assert (solution.sorted_loads, solution.measures.topic_squares, solution.retained) == (loads, squares, kept)
    assert per_topic_spread(problem, solution.assignment) == {"a": 1, "b": 1}
    plain = solve_counts(problem)
    assert max(per_topic_spread(problem, plain.assignment).values()) > 1  # what the tier is for
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps(data))
    assert main(["solve", str(scenario), "--topic-spread"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["topic_squares"] == squares and document["objective_order"] == [
        "balance",
        "spread",
        "rack",
        "stickiness",
    ]
