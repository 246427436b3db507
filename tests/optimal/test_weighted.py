"""Weighted partitions: the staged CP-SAT model against brute force and against the unweighted optimum.

Brute force (``optimal.brute_force.weighted_optimum``) reads the weights and claims off the scenario
again and enumerates every assignment; with unit weights the answer must be the flow's partition-count
optimum (``optimal.solve``), a model that knows nothing of weights.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import problems

from assignment_oracle.cli import main
from assignment_oracle.optimal import join_groups, weighted
from assignment_oracle.optimal import solve as solve_counts
from assignment_oracle.optimal.brute_force import weighted_optimum
from assignment_oracle.problem import Problem
from assignment_oracle.problem.scenario_json import InputError


@st.composite
def weighted_problems(draw, max_weight: int = 6, grouped: bool = False):
    """``problems()`` with weights on some topics; ``grouped``: and one join group of two or more of its
    topics (units of mixed sizes)."""
    base = draw(problems(max_topics=4 if grouped else 3, max_partitions=3, max_members=4, max_assignments=None))
    names = [t.name for t in base.topics]
    data = base.to_mapping()
    if grouped:
        assume(len(names) >= 2)
        data["join_groups"] = [sorted(draw(st.lists(st.sampled_from(names), min_size=2, max_size=len(names),
                                                    unique=True)))]
    listed = draw(st.lists(st.sampled_from(names), unique=True)) if names else []
    data["weights"] = {t: draw(st.lists(st.integers(0, max_weight), min_size=base.partition_counts[t],
                                        max_size=base.partition_counts[t])) for t in listed}
    problem = Problem.from_mapping(data)
    try:
        weighted_optimum(problem, limit=3000)
    except ValueError:
        assume(False)
    return problem


@settings(max_examples=200, deadline=None)
@given(weighted_problems())
def test_the_weighted_optimum_equals_brute_force(problem):
    expected = weighted_optimum(problem, limit=3000)
    solution = weighted.solve(problem)
    assert solution.status == "OPTIMAL" and all(s["proven"] for s in solution.stages)
    assert (solution.sorted_loads, solution.retained) == expected
    assert solution.lower_bound <= max(expected[0], default=0)  # the bound is a bound
    # Valid: every partition of a subscribed topic exactly once, to a subscriber.
    placed = [(t, p, m) for m, ts in solution.assignment.members.items() for t, ps in ts.items() for p in ps]
    assert len({(t, p) for t, p, _ in placed}) == len(placed) == problem.total_partitions
    subscribed = {m.member_id: m.topics for m in problem.members}
    assert all(t in subscribed[m] for t, _, m in placed)
    assert weighted.weighted_loads(problem, solution.assignment) == dict(solution.loads)


@settings(max_examples=100, deadline=None)
@given(problems(max_topics=3, max_partitions=4, max_members=4, max_assignments=None))
def test_unit_weights_give_the_partition_count_optimum(problem):
    counts = solve_counts(problem.balance_first_order())
    if counts.status != "OPTIMAL":
        return
    solution = weighted.solve(problem)
    assert solution.sorted_loads == tuple(counts.sorted_loads)
    if problem.ranks_before("stickiness", "rack") or not problem.rack_locality.active:
        assert solution.retained == counts.retained


def test_a_time_limit_never_claims_what_it_did_not_prove():
    rng_weights = [(i * 7919) % 97 + 1 for i in range(240)]
    data = {"topics": {f"t{i}": 40 for i in range(6)},
            "members": {f"m{j:02d}": {"topics": [f"t{i}" for i in range(6) if (i + j) % 3]} for j in range(13)},
            "weights": {f"t{i}": rng_weights[40 * i: 40 * (i + 1)] for i in range(6)}}
    problem = Problem.from_mapping(data)
    solution = weighted.solve(problem, time_limit=0.05)
    assert solution.status in ("OPTIMAL", "FEASIBLE")
    assert solution.assignment is not None and solution.lower_bound <= solution.largest
    if solution.status == "FEASIBLE":
        assert solution.message and any(not s["proven"] for s in solution.stages)


@pytest.mark.parametrize("weights, where, words", [
    ([1], "weights", "must be an object"),
    ({"nope": [1]}, "weights.nope", "not a topic"),
    ({"a": [1]}, "weights.a", "1 weight.* for 2 partition"),
    ({"a": [1, -2]}, r"weights.a\[1\]", "whole number"),
    ({"a": [1, 2.5]}, r"weights.a\[1\]", "whole number"),
    ({"a": [1, True]}, r"weights.a\[1\]", "whole number"),
])
def test_bad_weights_name_the_field(weights, where, words):
    with pytest.raises(InputError, match=f"{where}: .*{words}"):
        Problem.from_mapping({"topics": {"a": 2}, "members": {"m": {"topics": ["a"]}}, "weights": weights})


def test_weights_round_trip_and_solve_on_the_command_line(tmp_path, capsys):
    data = {"topics": {"lagging": 4, "quiet": 4},
            "members": {"a": {"topics": ["lagging", "quiet"], "owned": {"lagging": [0, 1]}, "generation": 3},
                        "b": {"topics": ["lagging", "quiet"], "owned": {"quiet": [0, 1, 2, 3]}, "generation": 3},
                        "c": {"topics": ["quiet"]}},
            "weights": {"lagging": [900, 50, 40, 10]}}
    problem = Problem.from_mapping(data)
    assert Problem.from_mapping(problem.to_mapping()) == problem
    scenario = tmp_path / "weighted.json"
    scenario.write_text(json.dumps(data))
    out = tmp_path / "out.json"
    assert main(["solve", str(scenario), "-o", str(out)]) == 0
    document = json.loads(out.read_text())
    loads, kept = weighted_optimum(problem)
    assert document["status"] == "OPTIMAL" and tuple(document["weighted_sorted_loads"]) == loads
    assert document["retained"] == kept


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
    return Problem.from_mapping({
        "topics": counts, "join_groups": [["left", "right"]], "weights": weights,
        "members": {m: {"topics": topics[m], "owned": owned[m], "generation": 1} for m in members}})


@settings(max_examples=200, deadline=None)
@given(st.one_of(weighted_problems(grouped=True), weighted_joins()))
def test_the_weighted_co_partitioned_optimum_equals_brute_force(problem):
    expected = weighted_optimum(problem, limit=3000)  # over units: None when one has no eligible member
    solution = weighted.solve(problem)
    if expected is None:
        assert solution.status == "INFEASIBLE" and solution.assignment is None and solution.message
        return
    assert solution.status == "OPTIMAL" and (solution.sorted_loads, solution.retained) == expected
    assert solution.lower_bound <= max(expected[0], default=0)
    placed = [(t, p, m) for m, ts in solution.assignment.members.items() for t, ps in ts.items() for p in ps]
    subscribed = {m.member_id: m.topics for m in problem.members}
    assert all(t in subscribed[m] for t, _, m in placed)  # valid: to subscribers, each partition once
    assert len({(t, p) for t, p, _ in placed}) == len(placed) == sum(
        n for t, n in problem.partition_counts.items() if problem.subscribers[t])
    owner = {(t, p): m for t, p, m in placed}
    counts = problem.partition_counts
    for group in problem.join_groups:  # co-partitioned: each partition number of the group with one member
        for p in range(max(counts[t] for t in group)):
            assert len({owner[(t, p)] for t in group if p < counts[t] and (t, p) in owner}) <= 1
    assert weighted.weighted_loads(problem, solution.assignment) == dict(solution.loads)


@settings(max_examples=100, deadline=None)
@given(weighted_problems(max_weight=1, grouped=True))
def test_unit_weights_with_join_groups_give_the_co_partitioned_count_optimum(problem):
    counted = Problem.from_mapping({**problem.to_mapping(), "weights": {}})
    ones = Problem.from_mapping({**problem.to_mapping(),
                                 "weights": {t: [1] * n for t, n in counted.partition_counts.items()}})
    by_weights, by_counts = weighted.solve(ones), join_groups.solve(counted)
    assert by_weights.status == by_counts.status
    if by_counts.status == "OPTIMAL":
        assert (by_weights.sorted_loads, by_weights.retained) == (by_counts.sorted_loads, by_counts.retained)


def test_weights_with_join_groups_on_the_command_line(tmp_path, capsys):
    data = {"topics": {"impressions": 3, "clicks": 2, "audit": 2},
            "join_groups": [["clicks", "impressions"]],
            "members": {"a": {"topics": ["impressions", "clicks", "audit"], "owned": {"impressions": [0, 1]},
                              "generation": 2},
                        "b": {"topics": ["impressions", "clicks", "audit"], "owned": {"clicks": [0]}, "generation": 2},
                        "c": {"topics": ["audit"]}},
            "weights": {"impressions": [500, 20, 10], "clicks": [300, 5], "audit": [100, 100]}}
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
    split.write_text(json.dumps({"assignment": {"a": {"impressions": [0, 1, 2], "clicks": [1]},
                                                "b": {"clicks": [0]}, "c": {"audit": [0, 1]}}}))
    capsys.readouterr()
    assert main(["check", str(scenario), str(split)]) == 3
    out = capsys.readouterr().out
    assert "valid under the constraints: no: join group clicks+impressions partition 0 split" in out
    assert "most balanced (dec-min):" not in out  # balance is judged on weights only
    capsys.readouterr()
    assert main(["solve", str(scenario), "--balance", "sum-of-squares"]) == 0  # composes now (was refused)
    document = json.loads(capsys.readouterr().out)
    assert document["tiers"][0]["value"] == sum(x * x for x in document["weighted_loads"].values())


@settings(max_examples=200, deadline=None)
@given(st.one_of(weighted_problems(), weighted_problems(grouped=True), weighted_joins()), st.data())
def test_giving_back_keeps_more_and_never_lifts_a_member_over_the_ceiling(problem, data):
    """The answer under a time limit (``_give_back``): parts back to previous owners, by moves and swaps,
    where no proven level can notice: nobody at or under the ceiling ends over it, nobody over it gains."""
    parts = weighted._partitions(problem)
    assume(parts.weight and not parts.stranded)
    owner = [data.draw(st.sampled_from(parts.eligible[k])) for k in range(len(parts.weight))]
    members = len(problem.members)

    def loads_of(owner):
        loads = [0] * members
        for k, m in enumerate(owner):
            loads[m] += parts.weight[k]
        return loads

    def kept(owner):
        return sum(parts.kept[k].get(m, 0) for k, m in enumerate(owner))

    before = loads_of(owner)
    ceiling = data.draw(st.integers(0, max(before)))
    after_owner = weighted._give_back(owner, parts, np.array(before, dtype=np.int64), ceiling)
    after = loads_of(after_owner)
    assert all(m in parts.eligible[k] for k, m in enumerate(after_owner))
    assert kept(after_owner) >= kept(owner)
    for m in range(members):
        assert after[m] <= ceiling if before[m] <= ceiling else after[m] <= before[m]
