"""Judging on weighted loads: brute force decides what the weighted optimum is.

Expectations come from ``optimal.brute_force.weighted_optimum`` (every assignment enumerated, weights
read off the scenario) or from the assignment itself, never from the weighted optimum's answer
(``optimal.solve``, which the judge asks).
"""

from __future__ import annotations

import json

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import problems

from assignment_oracle.cli import main
from assignment_oracle.compare.judge import weighted as weighted_judge
from assignment_oracle.compare.judge.evaluate import WEIGHTED_OPTIMUM, compare
from assignment_oracle.compare.scenarios.families import generate
from assignment_oracle.compare.sweep.rows import scenario_rows
from assignment_oracle.compare.sweep.spec import Checks, GridPoint
from assignment_oracle.optimal import Request
from assignment_oracle.optimal.brute_force import request_optimum, weighted_optimum
from assignment_oracle.problem import Problem
from assignment_oracle.problem.model import Assignment


@st.composite
def weighted_cases(draw):
    base = draw(problems(max_topics=3, max_partitions=3, max_members=3, max_assignments=None))
    data = base.to_mapping()
    data["weights"] = {
        t.name: draw(st.lists(st.integers(0, 9), min_size=t.partitions, max_size=t.partitions)) for t in base.topics
    }
    problem = Problem.from_mapping(data)
    try:
        best = weighted_optimum(problem, limit=2000)
    except ValueError:
        assume(False)
    # A random valid assignment: each partition of a subscribed topic to a random subscriber.
    owned: dict[str, list] = {m: [] for m in problem.member_ids}
    for topic in problem.topics:
        subscribers = [m.member_id for m in problem.members if topic.name in m.topics]
        for p in range(topic.partitions):
            if subscribers:
                owned[draw(st.sampled_from(subscribers))].append((topic.name, p))
    return problem, best, Assignment.from_partitions(owned, problem.member_ids)


@settings(max_examples=150, deadline=None)
@given(weighted_cases())
def test_most_balanced_and_optimal_exactly_when_brute_force_says(case):
    problem, (best_loads, best_kept), assignment = case
    verdict = weighted_judge.judge(problem, assignment, weighted_judge.solve_weighted(problem, time_limit=None))
    weights = dict(problem.weights)
    loads = {m: sum(weights[t][p] for t, ps in ts.items() for p in ps) for m, ts in assignment.members.items()}
    ordered = tuple(sorted(loads.values(), reverse=True))
    assert verdict.valid and verdict.sorted_loads == ordered
    assert verdict.optimal_largest == max(best_loads, default=0)
    assert verdict.most_balanced == (ordered == best_loads)
    assert verdict.optimal == (ordered == best_loads and verdict.retained == best_kept)
    if verdict.optimal_largest:
        assert verdict.largest_ratio == max(ordered, default=0) / verdict.optimal_largest


LAG = {
    "topics": {"lagging": 5, "quiet": 5},
    "members": {
        "a": {"topics": ["lagging", "quiet"], "owned": {"lagging": [0, 1, 2]}, "generation": 3},
        "b": {"topics": ["lagging", "quiet"], "owned": {"quiet": [0, 1, 2, 3]}, "generation": 3},
        "c": {"topics": ["lagging", "quiet"]},
    },
    "weights": {"lagging": [900, 50, 40, 700, 300], "quiet": [1, 1, 2, 1, 3]},
}


def test_compare_shows_what_ignoring_weights_costs():
    problem = Problem.from_mapping(LAG)
    best_loads, best_kept = weighted_optimum(problem)
    result = compare(problem, ["range", "roundrobin", "sticky"])
    names = [row.assignor for row in result.rows]
    assert names == ["optimum", WEIGHTED_OPTIMUM, "range", "roundrobin", "sticky"]
    heavy = result.rows[1].weighted
    assert heavy["optimal"] and tuple(heavy["sorted_loads"]) == best_loads and heavy["retained"] == best_kept
    for row in result.rows[2:]:
        w = row.weighted
        assert w["optimal_largest"] == best_loads[0] and w["largest"] >= best_loads[0]
        assert w["largest_ratio"] == round(w["largest"] / best_loads[0], 6)  # the finding's data rounds it
    # Here every assignor that counts partitions puts 900 and 700 together or with too much else.
    assert all(not row.weighted["most_balanced"] for row in result.rows[2:])


def test_the_weighted_family_in_a_sweep_is_cross_checked_by_brute_force():
    point = GridPoint("weighted", {"members": 3, "topics": 2, "partitions": (1, 2), "previous": "random"})
    rows = scenario_rows("t", "s", point, 0, ["range"], 10, Checks(brute_force_limit=4096))
    by_name = {row["assignor"]: row for row in rows}
    assert set(by_name) == {"optimum", WEIGHTED_OPTIMUM, "range"}
    assert "weighted optimal=brute-force" in by_name["optimum"]["oracle_check"]
    best_loads, _ = weighted_optimum(generate("weighted", 0, **point.params))
    assert by_name[WEIGHTED_OPTIMUM]["weighted_largest"] == best_loads[0]
    assert by_name["range"]["optimal_weighted_largest"] == best_loads[0]
    assert by_name["range"]["weighted_largest_ratio"] == by_name["range"]["weighted_largest"] / best_loads[0]


def test_check_and_explain_on_the_command_line(tmp_path, capsys):
    scenario = tmp_path / "lag.json"
    scenario.write_text(json.dumps(LAG))
    solved = tmp_path / "solved.json"
    assert main(["solve", str(scenario), "-o", str(solved)]) == 0
    assert main(["check", str(scenario), str(solved), "--json"]) == 0
    verdict = json.loads(capsys.readouterr().out)  # tier by tier against the same request
    best_loads, best_kept = weighted_optimum(Problem.from_mapping(LAG))
    tiers = {t["tier"]: t for t in verdict["tiers"]}
    assert tuple(tiers["balance"]["value"]) == best_loads and tiers["stickiness"]["value"] == best_kept
    ranged = tmp_path / "range.json"
    assert main(["assign", str(scenario), "--assignor", "range", "-o", str(ranged)]) == 0
    assert main(["check", str(scenario), str(ranged)]) == 1
    assert "verdict: a gap at the balance tier" in capsys.readouterr().out
    # explain goes through the same request's optimum: the first tier short of it, and the moves to it.
    assert main(["explain", str(scenario), "--assignor", "range"]) == 1
    assert "first shortfall: the balance tier" in capsys.readouterr().out
    both = tmp_path / "both.json"
    both.write_text(json.dumps({**LAG, "join_groups": [["lagging", "quiet"]]}))
    capsys.readouterr()
    # Every balance definition composes with weights and join groups now (it used to be refused).
    out = tmp_path / "squares.json"
    assert main(["solve", str(both), "--balance", "max-then-squares", "-o", str(out)]) == 0
    document = json.loads(out.read_text())
    expected = request_optimum(Problem.from_mapping(json.loads(both.read_text())), Request(balance="max-then-squares"))
    assert [t["value"] for t in document["tiers"]] == expected


def test_the_lower_bound_is_a_bound_and_an_unproven_optimum_claims_nothing():
    """Under a time limit too short to prove anything, the verdict's largest-load bound stays at or below
    the brute force's optimum, and nothing unproven is called most balanced or optimal."""
    problem = Problem.from_mapping(LAG)
    best_loads, _ = weighted_optimum(problem)
    for limit in (0.0, None):
        optimum = weighted_judge.solve_weighted(problem, time_limit=limit)
        nothing = Assignment.from_partitions({}, problem.member_ids)
        verdict = weighted_judge.judge(problem, nothing if optimum.assignment is None else optimum.assignment, optimum)
        assert verdict.lower_bound <= best_loads[0]
        if optimum.status == "OPTIMAL":
            assert verdict.lower_bound == best_loads[0] == verdict.optimal_largest
        if not verdict.balance_proven:
            assert verdict.most_balanced is not True and verdict.optimal is not True
        if not verdict.largest_proven:
            assert verdict.optimal_largest is None and verdict.largest_ratio is None


def test_weights_on_join_groups_no_member_can_take_leave_nothing_most_balanced():
    data = {
        "topics": {"clicks": 2, "views": 2},
        "join_groups": [["clicks", "views"]],
        "weights": {"clicks": [5, 1]},
        "members": {"a": {"topics": ["clicks"]}, "b": {"topics": ["views"]}},
    }
    problem = Problem.from_mapping(data)
    assert weighted_optimum(problem) is None  # brute force over units: none can be placed
    optimum = weighted_judge.solve_weighted(problem)
    assert optimum.status == "INFEASIBLE"
    assignment = Assignment.from_partitions(
        {"a": [("clicks", 0), ("clicks", 1)], "b": [("views", 0), ("views", 1)]}, problem.member_ids
    )
    verdict = weighted_judge.judge(problem, assignment, optimum)
    assert verdict.valid and verdict.sorted_loads == (6, 2)
    assert verdict.most_balanced is False and verdict.optimal is False
    assert "INFEASIBLE" in verdict.text()
    result = compare(problem, ["range"])
    assert [row.assignor for row in result.rows] == ["optimum", "range"]  # no weighted optimum's row
