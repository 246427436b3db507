"""Move limits: the staged CP-SAT model against brute force, and against the unlimited flow optimum.

Brute force (``optimal.brute_force.move_limited_optimum``) resolves previous owners again from the
scenario and enumerates every assignment within the limits.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import problems

from assignment_oracle.cli import main
from assignment_oracle.optimal import move_limits
from assignment_oracle.optimal import solve as solve_counts
from assignment_oracle.optimal.brute_force import move_limited_optimum, previous_owners
from assignment_oracle.problem import Problem

limits = st.one_of(st.none(), st.integers(0, 4))


@settings(max_examples=200, deadline=None)
@given(problems(max_topics=3, max_partitions=3, max_members=4, max_assignments=None), limits, limits)
def test_the_move_limited_optimum_equals_brute_force(problem, max_moves, per_member):
    try:
        expected = move_limited_optimum(problem, max_moves, per_member, limit=3000)
    except ValueError:
        assume(False)
    solution = move_limits.solve(problem, max_moves=max_moves, max_moves_per_member=per_member)
    assert expected is not None  # keeping every valid claim is always within the limits
    assert solution.status == "OPTIMAL" and all(s["proven"] for s in solution.stages)
    assert (solution.sorted_loads, solution.moved) == expected
    if max_moves is not None:
        assert solution.moved <= max_moves
    if per_member is not None:
        assert max(solution.moved_per_member.values(), default=0) <= per_member
    owners = previous_owners(problem)  # moves counted again from the scenario's claims
    placed = {(t, p): m for m, ts in solution.assignment.members.items() for t, ps in ts.items() for p in ps}
    assert solution.moved == sum(1 for tp, o in owners.items() if placed.get(tp) != o)


@settings(max_examples=100, deadline=None)
@given(problems(max_topics=3, max_partitions=5, max_members=5, max_assignments=None))
def test_without_limits_it_is_the_flow_optimum_and_with_none_allowed_every_claim_stays(problem):
    counts = solve_counts(problem.balance_first_order())
    free = move_limits.solve(problem)
    assert free.sorted_loads == tuple(counts.sorted_loads)
    if not problem.rack_locality.active or problem.ranks_before("stickiness", "rack"):
        assert free.moved == counts.owned - counts.retained
    frozen = move_limits.solve(problem, max_moves=0)
    assert frozen.status == "OPTIMAL" and frozen.moved == 0


@pytest.mark.parametrize("flag, value", [("--max-moves", "-1"), ("--max-moves-per-member", "x")])
def test_bad_limits_are_one_line_errors(tmp_path, capsys, flag, value):
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({"topics": {"a": 2}, "members": {"m": {"topics": ["a"]}}}))
    with pytest.raises(SystemExit) as exit_:  # argparse's own check, one line through the CLI's parser
        main(["solve", str(scenario), flag, value])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and flag in err


def test_solve_on_the_command_line_within_a_budget(tmp_path, capsys):
    data = {"topics": {"a": 6}, "members": {
        "m1": {"topics": ["a"], "owned": {"a": [0, 1, 2, 3, 4, 5]}, "generation": 1},
        "m2": {"topics": ["a"]}, "m3": {"topics": ["a"]}}}
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps(data))
    out = tmp_path / "out.json"
    assert main(["solve", str(scenario), "--max-moves", "2", "-o", str(out)]) == 0
    document = json.loads(out.read_text())
    loads, moved = move_limited_optimum(Problem.from_mapping(data), 2)
    assert document["status"] == "OPTIMAL" and tuple(document["sorted_loads"]) == loads
    assert document["moved"] == moved <= 2
