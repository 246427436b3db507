"""Join groups, weights and budgets of moves through the one front door (``optimal.solve``): worked
examples and properties against brute force.

Every expected value is a worked example's (derived by hand in the test's docstring or comment) or a
brute force's: :mod:`optimal.brute_force` enumerates every assignment and reads units, weights and
previous owners off the scenario again (``join_group_optimum``, ``weighted_optimum``,
``move_limited_optimum``), never from the models' parts, classes or answers.  The verdicts on any
combination of tiers and constraints are ``tests/optimal/test_staged.py``'s; these are the cases that
were written for each family first.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import problems

from assignment_oracle.cli import main
from assignment_oracle.optimal import BALANCE_DEFINITIONS, FEASIBLE, INFEASIBLE, OPTIMAL, UNKNOWN, Request, solve
from assignment_oracle.optimal.brute_force import (
    join_group_optimum,
    move_limited_optimum,
    previous_owners,
    weighted_optimum,
)
from assignment_oracle.problem import Problem
from assignment_oracle.problem.model import BALANCE, STICKINESS
from assignment_oracle.problem.ownership import violations
from assignment_oracle.problem.scenario_json import InputError

#: Most balanced, then stickiest: the order of the brute forces here (no rack or spread tier between).
ORDER = (BALANCE, STICKINESS)


def _request(balance: str = "dec-min", **limits) -> Request:
    return Request(objective=ORDER, balance=balance, **limits)


def _counts_and_kept(solution) -> tuple[tuple[int, ...], int]:
    """(sorted loads, weighted where the problem has weights; partitions kept) of an answer."""
    return solution.measures.sorted_loads, solution.measures.kept


def _assert_co_partitioned(problem: Problem, solution) -> None:
    """Valid (every partition of a subscribed topic once, to a subscriber) and each partition number of a
    group with one member: read off the assignment here."""
    assert not violations(problem, solution.assignment)
    owner = {(t, p): m for m, ts in solution.assignment.members.items() for t, ps in ts.items() for p in ps}
    counts = problem.partition_counts
    for group in problem.join_groups:
        for p in range(max(counts[t] for t in group)):
            assert len({owner[(t, p)] for t in group if p < counts[t] and (t, p) in owner}) <= 1


# -- Join groups (co-partitioning) -------------------------------------------------------------------------


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


@settings(max_examples=200, deadline=None)
@given(grouped_problems(), st.sampled_from(BALANCE_DEFINITIONS))
def test_the_co_partitioned_optimum_equals_brute_force_by_every_definition(problem, balance):
    expected = join_group_optimum(problem, balance, limit=3000)
    solution = solve(problem, _request(balance))
    if expected is None:
        assert solution.status == INFEASIBLE and solution.assignment is None and solution.message
        return
    assert solution.status == OPTIMAL and all(t.proven for t in solution.tiers)
    assert _counts_and_kept(solution) == expected
    _assert_co_partitioned(problem, solution)


#: Found by a brute-force search over random units (sizes 1-4, random eligibility, 4 members) and
#: written as join groups of one-partition topics.  Units: a0-a3 (4 partitions, for m0 m2 m3), b0-b1
#: (2, m1), c0-c3 (4, m1 m2 m3), d, e (1 each, m0 m2 m3), f (1, m2), g0-g3 (4, m1 m2): 20 partitions.
#: By hand: m1 must take b (2); a, c, g (4 each) and d, e, f (1 each) go where they may.  Dec-min is
#: (5, 5, 5, 2) (sum of squares 79: m1 takes b only, the three 4-units and three 1-units make three
#: fives); the least sum of squares is (6, 4, 4, 3) (77: m1 takes b and g, 6; m0 a, 4; m3 c, 4; m2
#: d, e, f, 3).
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


def test_the_balance_definitions_differ_on_units_of_different_sizes():
    problem = Problem.from_mapping(DIFFERING)
    worked = {"dec-min": (5, 5, 5, 2), "sum-of-squares": (6, 4, 4, 3)}
    for balance in BALANCE_DEFINITIONS:
        expected = join_group_optimum(problem, balance)
        solution = solve(problem, _request(balance))
        assert solution.status == OPTIMAL
        assert _counts_and_kept(solution) == expected, balance
        if balance in worked:
            assert expected[0] == worked[balance]
    squares = solve(problem, _request("sum-of-squares")).tiers[0].value
    assert squares == 77 < sum(x * x for x in worked["dec-min"]) == 79


def test_a_unit_no_member_can_take_is_infeasible_and_said_so():
    problem = Problem.from_mapping(
        {
            "topics": {"clicks": 2, "views": 2},
            "members": {"a": {"topics": ["clicks"]}, "b": {"topics": ["views"]}},
            "join_groups": [["clicks", "views"]],
        }
    )
    assert join_group_optimum(problem) is None
    solution = solve(problem, _request())
    assert solution.status == INFEASIBLE and solution.assignment is None and "clicks-0" in solution.message


@pytest.mark.parametrize(
    "groups, where, words",
    [
        ("x", "join_groups", "must be a list of topic lists"),
        ([["a"]], r"join_groups\[0\]", "at least two"),
        ([["a", "nope"]], r"join_groups\[0\]\[1\]", "not a topic of the scenario"),
        ([["a", "b"], ["b", "c"]], r"join_groups\[1\]\[0\]", r"already in join_groups\[0\]"),
        ([["a", "a"]], r"join_groups\[0\]\[1\]", "named twice"),
    ],
)
def test_bad_join_groups_name_the_field(groups, where, words):
    data = {"topics": {"a": 1, "b": 1, "c": 1}, "members": {"m": {"topics": ["a", "b", "c"]}}, "join_groups": groups}
    with pytest.raises(InputError, match=f"{where}: .*{words}"):
        Problem.from_mapping(data)


def test_join_groups_round_trip():
    data = {"topics": {"a": 2, "b": 3}, "members": {"m": {"topics": ["a", "b"]}}, "join_groups": [["b", "a"]]}
    problem = Problem.from_mapping(data)
    assert problem.join_groups == (("a", "b"),)
    assert Problem.from_mapping(problem.to_mapping()) == problem


def test_solve_with_join_groups_on_the_command_line(tmp_path):
    scenario = tmp_path / "join.json"
    scenario.write_text(json.dumps(DIFFERING))
    out = tmp_path / "out.json"
    assert main(["solve", str(scenario), "-o", str(out), "--balance", "sum-of-squares"]) == 0
    document = json.loads(out.read_text())
    assert document["status"] == "OPTIMAL" and document["balance_definition"] == "sum-of-squares"
    assert tuple(document["sorted_loads"]) == (6, 4, 4, 3)
    assert tuple(document["sorted_loads"]) == join_group_optimum(Problem.from_mapping(DIFFERING), "sum-of-squares")[0]


# -- Weighted partitions -----------------------------------------------------------------------------------


@st.composite
def weighted_problems(draw, max_weight: int = 6, grouped: bool = False):
    """``problems()`` with weights on some topics; ``grouped``: and one join group of two or more of its
    topics (units of mixed sizes)."""
    base = draw(problems(max_topics=4 if grouped else 3, max_partitions=3, max_members=4, max_assignments=None))
    names = [t.name for t in base.topics]
    data = base.to_mapping()
    if grouped:
        assume(len(names) >= 2)
        data["join_groups"] = [
            sorted(draw(st.lists(st.sampled_from(names), min_size=2, max_size=len(names), unique=True)))
        ]
    listed = draw(st.lists(st.sampled_from(names), unique=True)) if names else []
    data["weights"] = {
        t: draw(
            st.lists(st.integers(0, max_weight), min_size=base.partition_counts[t], max_size=base.partition_counts[t])
        )
        for t in listed
    }
    problem = Problem.from_mapping(data)
    try:
        weighted_optimum(problem, limit=3000)
    except ValueError:
        assume(False)
    return problem


@st.composite
def weighted_joins(draw):
    """A join group whose partition numbers are owned by different members (units with several previous
    owners, each keeping some of it: rare in ``weighted_problems(grouped=True)``), a free topic, weights."""
    counts = {"left": draw(st.integers(1, 3)), "right": draw(st.integers(1, 3)), "free": draw(st.integers(1, 2))}
    members = [f"m{i}" for i in range(draw(st.integers(2, 4)))]
    topics = {m: ["left", "right"] + (["free"] if draw(st.booleans()) else []) for m in members}
    owned: dict[str, dict[str, list[int]]] = {m: {} for m in members}
    for t, n in counts.items():
        for p in range(n):
            holder = draw(st.sampled_from([None, *members]))
            if holder is not None:
                owned[holder].setdefault(t, []).append(p)
    weights = {t: draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)) for t, n in counts.items()}
    return Problem.from_mapping(
        {
            "topics": counts,
            "join_groups": [["left", "right"]],
            "weights": weights,
            "members": {m: {"topics": topics[m], "owned": owned[m], "generation": 1} for m in members},
        }
    )


@settings(max_examples=150, deadline=None)
@given(st.one_of(weighted_problems(), weighted_problems(grouped=True), weighted_joins()))
def test_the_weighted_optimum_equals_brute_force(problem):
    """With join groups too: the co-partitioned weighted optimum (units weigh their partitions together)."""
    expected = weighted_optimum(problem, limit=3000)  # over units: None when one has no eligible member
    solution = solve(problem, _request())
    if expected is None:
        assert solution.status == INFEASIBLE and solution.assignment is None and solution.message
        return
    assert solution.status == OPTIMAL and all(t.proven for t in solution.tiers)
    assert _counts_and_kept(solution) == expected
    assert solution.tiers[0].value == list(expected[0])  # the balance tier's value: the sorted weighted loads
    _assert_co_partitioned(problem, solution)
    weights = dict(problem.weights)  # the weighted loads, read off the scenario's lists here
    loads = {
        m: sum(weights[t][p] if t in weights else 1 for t, ps in ts.items() for p in ps)
        for m, ts in solution.assignment.members.items()
    }
    assert solution.weighted_loads == {m: loads.get(m, 0) for m in problem.member_ids}


@settings(max_examples=100, deadline=None)
@given(
    st.one_of(
        problems(max_topics=3, max_partitions=4, max_members=4, max_assignments=None, racks=True),
        weighted_problems(max_weight=1, grouped=True),
    )
)
def test_unit_weights_give_the_partition_count_optimum(problem):
    """Weights of 1 everywhere are partition counts: the same optimum as the problem without weights (the
    certified flow where there are no join groups)."""
    counted = Problem.from_mapping({**problem.to_mapping(), "weights": {}})
    ones = Problem.from_mapping(
        {**problem.to_mapping(), "weights": {t: [1] * n for t, n in counted.partition_counts.items()}}
    )
    by_weights, by_counts = solve(ones, _request()), solve(counted, _request())
    assert by_weights.method == "cpsat-staged"
    assert by_weights.status == by_counts.status
    if by_counts.status == OPTIMAL:
        assert [t.value for t in by_weights.tiers] == [t.value for t in by_counts.tiers]


def test_weights_cost_what_counting_partitions_ignores():
    """Worked by hand: one topic of six partitions weighing 5, 1, 1, 1, 1, 1, two members.  Dec-min over
    weighted loads is (5, 5): the heavy partition alone, the five light ones together.  Counting
    partitions (three each) puts the heavy one with two light ones: (7, 3) at best."""
    data = {
        "topics": {"t": 6},
        "weights": {"t": [5, 1, 1, 1, 1, 1]},
        "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}},
    }
    problem = Problem.from_mapping(data)
    weighted = solve(problem, _request())
    assert weighted.status == OPTIMAL and weighted.measures.sorted_loads == (5, 5) == weighted_optimum(problem)[0]
    assert weighted.sorted_loads == (5, 1)  # partition counts of that answer
    counted = solve(Problem.from_mapping({**data, "weights": {}}), _request())
    heavy = {m for m, ts in counted.assignment.members.items() if 0 in ts.get("t", ())}
    with_counts = sorted(
        (sum(data["weights"]["t"][p] for p in ts.get("t", ())) for ts in counted.assignment.members.values()),
        reverse=True,
    )
    assert counted.sorted_loads == (3, 3) and len(heavy) == 1 and with_counts == [7, 3]


def test_a_time_limit_never_claims_what_it_did_not_prove():
    rng_weights = [(i * 7919) % 97 + 1 for i in range(240)]
    data = {
        "topics": {f"t{i}": 40 for i in range(6)},
        "members": {f"m{j:02d}": {"topics": [f"t{i}" for i in range(6) if (i + j) % 3]} for j in range(13)},
        "weights": {f"t{i}": rng_weights[40 * i : 40 * (i + 1)] for i in range(6)},
    }
    problem = Problem.from_mapping(data)
    solution = solve(problem, _request(), time_limit=0.05)
    assert solution.status in (OPTIMAL, FEASIBLE, UNKNOWN)
    if solution.status == UNKNOWN:
        assert solution.assignment is None
        return
    assert not violations(problem, solution.assignment)
    for tier in solution.tiers:
        assert not tier.proven or tier.bound == tier.value  # proven: its bound is its value, nothing else
    if solution.status == OPTIMAL:
        assert all(t.proven for t in solution.tiers)
    else:
        assert solution.message and any(not t.proven for t in solution.tiers)
    largest = max(solution.measures.loads)
    for stage in solution.stages:  # every bound CP-SAT proved on the largest load is below the answer's
        if stage.get("stage") == "largest load" and isinstance(stage.get("bound"), (int, float)):
            assert stage["bound"] <= largest


@pytest.mark.parametrize(
    "weights, where, words",
    [
        ([1], "weights", "must be an object"),
        ({"nope": [1]}, "weights.nope", "not a topic"),
        ({"a": [1]}, "weights.a", "1 weight.* for 2 partition"),
        ({"a": [1, -2]}, r"weights.a\[1\]", "whole number"),
        ({"a": [1, 2.5]}, r"weights.a\[1\]", "whole number"),
        ({"a": [1, True]}, r"weights.a\[1\]", "whole number"),
    ],
)
def test_bad_weights_name_the_field(weights, where, words):
    with pytest.raises(InputError, match=f"{where}: .*{words}"):
        Problem.from_mapping({"topics": {"a": 2}, "members": {"m": {"topics": ["a"]}}, "weights": weights})


def test_weights_round_trip_and_solve_on_the_command_line(tmp_path):
    data = {
        "topics": {"lagging": 4, "quiet": 4},
        "members": {
            "a": {"topics": ["lagging", "quiet"], "owned": {"lagging": [0, 1]}, "generation": 3},
            "b": {"topics": ["lagging", "quiet"], "owned": {"quiet": [0, 1, 2, 3]}, "generation": 3},
            "c": {"topics": ["quiet"]},
        },
        "weights": {"lagging": [900, 50, 40, 10]},
    }
    problem = Problem.from_mapping(data)
    assert Problem.from_mapping(problem.to_mapping()) == problem
    scenario = tmp_path / "weighted.json"
    scenario.write_text(json.dumps(data))
    out = tmp_path / "out.json"
    assert main(["solve", str(scenario), "--objective", "balance,stickiness", "-o", str(out)]) == 0
    document = json.loads(out.read_text())
    loads, kept = weighted_optimum(problem)
    assert document["status"] == "OPTIMAL" and tuple(document["weighted_sorted_loads"]) == loads
    assert document["retained"] == kept


def test_weights_with_join_groups_on_the_command_line(tmp_path, capsys):
    data = {
        "topics": {"impressions": 3, "clicks": 2, "audit": 2},
        "join_groups": [["clicks", "impressions"]],
        "members": {
            "a": {"topics": ["impressions", "clicks", "audit"], "owned": {"impressions": [0, 1]}, "generation": 2},
            "b": {"topics": ["impressions", "clicks", "audit"], "owned": {"clicks": [0]}, "generation": 2},
            "c": {"topics": ["audit"]},
        },
        "weights": {"impressions": [500, 20, 10], "clicks": [300, 5], "audit": [100, 100]},
    }
    problem = Problem.from_mapping(data)
    scenario = tmp_path / "both.json"
    scenario.write_text(json.dumps(data))
    out = tmp_path / "out.json"
    assert main(["solve", str(scenario), "-o", str(out)]) == 0
    document = json.loads(out.read_text())
    loads, kept = weighted_optimum(problem)
    assert document["status"] == "OPTIMAL" and tuple(document["weighted_sorted_loads"]) == loads
    assert document["retained"] == kept
    optimum = tmp_path / "optimum.json"
    optimum.write_text(json.dumps({"assignment": document["assignment"]}))
    capsys.readouterr()
    assert main(["check", str(scenario), str(optimum)]) == 0
    split = tmp_path / "split.json"  # impressions-0 and clicks-0 on different members: not co-partitioned
    split.write_text(
        json.dumps(
            {
                "assignment": {
                    "a": {"impressions": [0, 1, 2], "clicks": [1]},
                    "b": {"clicks": [0]},
                    "c": {"audit": [0, 1]},
                }
            }
        )
    )
    capsys.readouterr()
    assert main(["check", str(scenario), str(split)]) == 3
    out_text = capsys.readouterr().out
    assert "valid: no: join group clicks+impressions partition 0 split" in out_text
    assert main(["solve", str(scenario), "--balance", "sum-of-squares"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["tiers"][0]["value"] == sum(x * x for x in document["weighted_loads"].values())


# -- Move limits -------------------------------------------------------------------------------------------

limits = st.one_of(st.none(), st.integers(0, 4))


@settings(max_examples=150, deadline=None)
@given(problems(max_topics=3, max_partitions=3, max_members=4, max_assignments=None), limits, limits)
def test_the_move_limited_optimum_equals_brute_force(problem, max_moves, per_member):
    try:
        expected = move_limited_optimum(problem, max_moves, per_member, limit=3000)
    except ValueError:
        assume(False)
    solution = solve(problem, _request(max_moves=max_moves, max_moves_per_member=per_member))
    assert expected is not None  # keeping every valid claim is always within the limits
    assert solution.status == OPTIMAL and all(t.proven for t in solution.tiers)
    assert (solution.sorted_loads, solution.moved) == expected
    moved_from = solution.measures.moved_from
    if max_moves is not None:
        assert solution.moved <= max_moves
    if per_member is not None:
        assert int(moved_from.max(initial=0)) <= per_member
    owners = previous_owners(problem)  # moves counted again from the scenario's claims
    placed = {(t, p): m for m, ts in solution.assignment.members.items() for t, ps in ts.items() for p in ps}
    assert solution.moved == sum(1 for tp, o in owners.items() if placed.get(tp) != o)


@settings(max_examples=100, deadline=None)
@given(problems(max_topics=3, max_partitions=5, max_members=5, max_assignments=None, racks=True))
def test_without_limits_it_is_the_flow_optimum_and_with_none_allowed_every_claim_stays(problem):
    flow = solve(problem, _request())
    staged = solve(problem, _request(), method="cpsat-staged")
    assert flow.method == "flow" and flow.certificate is not None
    assert [t.value for t in staged.tiers] == [t.value for t in flow.tiers]
    frozen = solve(problem, _request(max_moves=0))
    assert frozen.status == OPTIMAL and frozen.moved == 0
    assert frozen.retained == sum(1 for _ in previous_owners(problem))  # every valid claim kept
    assert frozen.sorted_loads >= flow.sorted_loads  # a budget never balances better than none


#: Worked by hand: six partitions, all on m1, two more members.  No limit: (2, 2, 2), four of m1's six
#: moving.  Two moves: m1 keeps four, the others one each, (4, 1, 1).  Three from any one member (m1 is
#: the only owner): m1 keeps three, the other three split 2 and 1, (3, 2, 1).  No move: (6, 0, 0).
SIX_ON_ONE = {
    "topics": {"a": 6},
    "members": {
        "m1": {"topics": ["a"], "owned": {"a": [0, 1, 2, 3, 4, 5]}, "generation": 1},
        "m2": {"topics": ["a"]},
        "m3": {"topics": ["a"]},
    },
}


@pytest.mark.parametrize(
    "limits, loads, moved",
    [
        ({}, (2, 2, 2), 4),
        ({"max_moves": 2}, (4, 1, 1), 2),
        ({"max_moves_per_member": 3}, (3, 2, 1), 3),
        ({"max_moves": 5, "max_moves_per_member": 3}, (3, 2, 1), 3),
        ({"max_moves": 0}, (6, 0, 0), 0),
    ],
)
def test_a_budget_of_moves_worked_by_hand(limits, loads, moved):
    problem = Problem.from_mapping(SIX_ON_ONE)
    solution = solve(problem, _request(**limits))
    assert solution.status == OPTIMAL and (solution.sorted_loads, solution.moved) == (loads, moved)
    assert move_limited_optimum(problem, limits.get("max_moves"), limits.get("max_moves_per_member")) == (loads, moved)


@pytest.mark.parametrize("flag, value", [("--max-moves", "-1"), ("--max-moves-per-member", "x")])
def test_bad_limits_are_one_line_errors(tmp_path, capsys, flag, value):
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({"topics": {"a": 2}, "members": {"m": {"topics": ["a"]}}}))
    with pytest.raises(SystemExit) as exit_:  # argparse's own check, one line through the CLI's parser
        main(["solve", str(scenario), flag, value])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and flag in err


def test_solve_on_the_command_line_within_a_budget(tmp_path):
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps(SIX_ON_ONE))
    out = tmp_path / "out.json"
    assert main(["solve", str(scenario), "--max-moves", "2", "-o", str(out)]) == 0
    document = json.loads(out.read_text())
    assert document["status"] == "OPTIMAL" and tuple(document["sorted_loads"]) == (4, 1, 1)
    assert document["moved"] == 2 and document["moved_per_member"] == {"m1": 2}
