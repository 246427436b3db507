"""Co-partitioning (join groups): the staged CP-SAT model against brute force, every balance definition.

Brute force (``optimal.brute_force.join_group_optimum``) builds units, eligibility and the three
definitions again from the scenario, independently of ``optimal.join_groups``.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import problems

from assignment_oracle.cli import main
from assignment_oracle.optimal import join_groups
from assignment_oracle.optimal.brute_force import join_group_optimum
from assignment_oracle.problem import Problem
from assignment_oracle.problem.scenario_json import InputError


@st.composite
def grouped_problems(draw):
    """``problems()`` (claims at several generations, stale and unknown ones) with one or two join groups."""
    base = draw(problems(max_topics=4, max_partitions=3, max_members=4, max_assignments=None))
    names = [t.name for t in base.topics]
    assume(len(names) >= 2)
    shuffled = draw(st.permutations(names))
    first = draw(st.integers(2, len(names)))
    groups = [tuple(sorted(shuffled[:first]))]
    if len(names) - first >= 2 and draw(st.booleans()):
        groups.append(tuple(sorted(shuffled[first:])))
    data = base.to_mapping()
    data["join_groups"] = [list(g) for g in groups]
    problem = Problem.from_mapping(data)
    try:
        join_group_optimum(problem, limit=3000)
    except ValueError:
        assume(False)
    return problem


@settings(max_examples=250, deadline=None)
@given(grouped_problems(), st.sampled_from(join_groups.BALANCE_DEFINITIONS))
def test_every_definition_equals_brute_force(problem, balance):
    expected = join_group_optimum(problem, balance, limit=3000)
    solution = join_groups.solve(problem, balance=balance)
    if expected is None:
        assert solution.status == "INFEASIBLE" and solution.assignment is None
        return
    assert solution.status == "OPTIMAL" and all(s["proven"] for s in solution.stages)
    assert (solution.sorted_loads, solution.retained) == expected
    # The answer is co-partitioned: partition p of a group's topics goes to one member, a subscriber of each.
    owner = {(t, p): m for m, ts in solution.assignment.members.items() for t, ps in ts.items() for p in ps}
    subscribed = {m.member_id: m.topics for m in problem.members}
    for (t, p), m in owner.items():
        assert t in subscribed[m]
    for group in problem.join_groups:
        for p in range(max(problem.partition_counts[t] for t in group)):
            assert len({owner[(t, p)] for t in group if (t, p) in owner}) <= 1


@settings(max_examples=100, deadline=None)
@given(grouped_problems())
def test_the_flow_for_units_of_one_size_equals_the_staged_cp_sat_model(problem):
    # Every group's topics with one partition count and no topic outside the groups: units of one size.
    counts = problem.partition_counts
    grouped = {t for g in problem.join_groups for t in g}
    assume(grouped == set(counts))
    data = problem.to_mapping()
    for group in problem.join_groups:
        for t in group:  # claims beyond the new counts are dropped by claim resolution, as Kafka's would be
            data["topics"][t] = counts[group[0]]
    equal = Problem.from_mapping(data)
    flow, staged = join_groups.solve(equal), join_groups.solve(equal, method="cpsat")
    assert flow.status == staged.status
    if flow.status == "OPTIMAL":
        assert (flow.sorted_loads, flow.retained) == (staged.sorted_loads, staged.retained)
        assert "min-cost flow" in flow.stages[0]["stage"]


def test_the_definitions_differ_and_each_is_computed_exactly():
    """Units of different sizes (a group's topics with different partition counts): dec-min, least sum of
    squares and max-then-squares pick different load vectors here; brute force judges each."""
    problem = Problem.from_mapping(DIFFERING)
    optima = {b: join_group_optimum(problem, b) for b in join_groups.BALANCE_DEFINITIONS}
    assert len({loads for loads, _ in optima.values()}) > 1
    for balance, expected in optima.items():
        solution = join_groups.solve(problem, balance=balance)
        assert solution.status == "OPTIMAL"
        assert (solution.sorted_loads, solution.retained) == expected, balance


def test_a_unit_no_member_can_take_is_infeasible_and_said_so():
    problem = Problem.from_mapping({"topics": {"clicks": 2, "views": 2}, "members": {
        "a": {"topics": ["clicks"]}, "b": {"topics": ["views"]}}, "join_groups": [["clicks", "views"]]})
    solution = join_groups.solve(problem)
    assert solution.status == "INFEASIBLE" and "clicks-0" in solution.message


@pytest.mark.parametrize("groups, where, words", [
    ("x", "join_groups", "must be a list of topic lists"),
    ([["a"]], r"join_groups\[0\]", "at least two"),
    ([["a", "nope"]], r"join_groups\[0\]\[1\]", "not a topic of the scenario"),
    ([["a", "b"], ["b", "c"]], r"join_groups\[1\]\[0\]", r"already in join_groups\[0\]"),
    ([["a", "a"]], r"join_groups\[0\]\[1\]", "named twice"),
])
def test_bad_join_groups_name_the_field(groups, where, words):
    data = {"topics": {"a": 1, "b": 1, "c": 1}, "members": {"m": {"topics": ["a", "b", "c"]}}, "join_groups": groups}
    with pytest.raises(InputError, match=f"{where}: .*{words}"):
        Problem.from_mapping(data)


def test_join_groups_round_trip():
    data = {"topics": {"a": 2, "b": 3}, "members": {"m": {"topics": ["a", "b"]}}, "join_groups": [["b", "a"]]}
    problem = Problem.from_mapping(data)
    assert problem.join_groups == (("a", "b"),)
    assert Problem.from_mapping(problem.to_mapping()) == problem


def test_solve_on_the_command_line_and_explain_refuses_co_partitioning(tmp_path, capsys):
    scenario = tmp_path / "join.json"
    scenario.write_text(json.dumps({**DIFFERING}))
    out = tmp_path / "out.json"
    assert main(["solve", str(scenario), "-o", str(out), "--balance", "sum-of-squares"]) == 0
    document = json.loads(out.read_text())
    assert document["status"] == "OPTIMAL" and document["balance_definition"] == "sum-of-squares"
    assert tuple(document["sorted_loads"]) == join_group_optimum(Problem.from_mapping(DIFFERING), "sum-of-squares")[0]
    capsys.readouterr()
    assert main(["explain", str(scenario), "--assignor", "range"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "join_groups" in err


#: Found by a brute-force search over random units (sizes 1-4, random eligibility, 4 members) and
#: written as join groups of one-partition topics; only the input is fixed here, every expectation
#: comes from brute force.  Units: a0-a3 (4, for m0 m2 m3), b0-b1 (2, m1), c0-c3 (4, m1 m2 m3),
#: d, e (1 each, m0 m2 m3), f (1, m2), g0-g3 (4, m1 m2).  Dec-min is (5, 5, 5, 2) (sum of squares 79);
#: the least sum of squares is (6, 4, 4, 3) (77).
_GROUPS = {"a": 4, "b": 2, "c": 4, "g": 4}
DIFFERING: dict = {
    "topics": {**{f"{g}{i}": 1 for g, n in _GROUPS.items() for i in range(n)}, "d": 1, "e": 1, "f": 1},
    "members": {
        "m0": {"topics": ["a0", "a1", "a2", "a3", "d", "e"]},
        "m1": {"topics": ["b0", "b1", "c0", "c1", "c2", "c3", "g0", "g1", "g2", "g3"]},
        "m2": {"topics": ["a0", "a1", "a2", "a3", "c0", "c1", "c2", "c3", "d", "e", "f", "g0", "g1", "g2", "g3"]},
        "m3": {"topics": ["a0", "a1", "a2", "a3", "c0", "c1", "c2", "c3", "d", "e"]},
    },
    "join_groups": [[f"{g}{i}" for i in range(n)] for g, n in _GROUPS.items()],
}
