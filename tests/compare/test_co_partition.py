"""Judging against the co-partitioned optimum: brute force decides what is most balanced and stickiest.

Every expectation comes from ``optimal.brute_force.join_group_optimum`` (units and the dec-min order
computed again from the scenario) or from the assignment itself (which partitions went where), never
from the co-partitioned optimum's answer (``optimal.solve``, which the judge asks).
"""

from __future__ import annotations

import json

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import problems

from assignment_oracle.cli import main
from assignment_oracle.compare.judge import co_partition
from assignment_oracle.compare.judge.evaluate import CO_PARTITIONED_OPTIMUM, compare, evaluate
from assignment_oracle.compare.sweep.rows import scenario_rows
from assignment_oracle.compare.sweep.spec import Checks, GridPoint
from assignment_oracle.optimal.brute_force import join_group_optimum
from assignment_oracle.problem import Problem
from assignment_oracle.problem.model import Assignment


@st.composite
def grouped(draw):
    base = draw(problems(max_topics=4, max_partitions=3, max_members=4, max_assignments=None))
    names = [t.name for t in base.topics]
    assume(len(names) >= 2)
    size = draw(st.integers(2, len(names)))
    data = base.to_mapping()
    data["join_groups"] = [sorted(draw(st.permutations(names))[:size])]
    problem = Problem.from_mapping(data)
    try:
        best = join_group_optimum(problem, limit=3000)
    except ValueError:
        assume(False)
    assume(best is not None)
    return problem, best


def _random_co_partitioned(problem: Problem, draw) -> Assignment:
    """Each unit (partition p of a group's topics that have it; a free partition) to a random member
    subscribing to all of its topics: built from the scenario here, not from the judge or the model."""
    counts = problem.partition_counts
    grouped_topics = {t for g in problem.join_groups for t in g}
    units = [[(t.name, p)] for t in problem.topics if t.name not in grouped_topics for p in range(t.partitions)]
    for group in problem.join_groups:
        units += [[(t, p) for t in group if p < counts[t]] for p in range(max(counts[t] for t in group))]
    owned: dict[str, list] = {m: [] for m in problem.member_ids}
    for unit in units:
        topics = {t for t, _ in unit}
        eligible = [m.member_id for m in problem.members if topics <= m.topics]
        if not any(t in m.topics for m in problem.members for t in topics):
            continue
        owned[draw(st.sampled_from(eligible))] += unit
    return Assignment.from_partitions(owned, problem.member_ids)


@settings(max_examples=150, deadline=None)
@given(grouped(), st.data())
def test_a_co_partitioned_assignment_is_most_balanced_and_stickiest_exactly_when_brute_force_says(case, data):
    problem, (best_loads, best_kept) = case
    assignment = _random_co_partitioned(problem, data.draw)
    verdict = co_partition.judge(problem, assignment, co_partition.solve_co_partitioned(problem, time_limit=None))
    assert verdict.co_partitioned and verdict.split_units == 0 and verdict.unassigned == 0
    loads = tuple(sorted((sum(len(ps) for ps in ts.values()) for ts in assignment.members.values()), reverse=True))
    assert verdict.sorted_loads == loads
    assert verdict.most_balanced == (loads == best_loads)
    assert verdict.optimal == (loads == best_loads and verdict.retained == best_kept)


@settings(max_examples=60, deadline=None)
@given(grouped(), st.data())
def test_splitting_a_unit_is_found(case, data):
    problem, _ = case
    assignment = _random_co_partitioned(problem, data.draw)
    owner = {(t, p): m for m, ts in assignment.members.items() for t, ps in ts.items() for p in ps}
    group = problem.join_groups[0]
    # Move one partition of a two-partition unit to another subscriber of its topic.
    candidates = [
        (t, p)
        for t in group
        for p in range(problem.partition_counts[t])
        if (t, p) in owner
        and sum((u, p) in owner for u in group) >= 2
        and any(m.member_id != owner[(t, p)] and t in m.topics for m in problem.members)
    ]
    assume(candidates)
    t, p = data.draw(st.sampled_from(candidates))
    other = data.draw(
        st.sampled_from([m.member_id for m in problem.members if m.member_id != owner[(t, p)] and t in m.topics])
    )
    owner[(t, p)] = other
    moved = {m: [tp for tp, o in owner.items() if o == m] for m in problem.member_ids}
    verdict = co_partition.judge(
        problem, Assignment.from_partitions(moved, problem.member_ids), co_partition.solve_co_partitioned(problem)
    )
    assert not verdict.co_partitioned and verdict.split_units == 1
    assert verdict.most_balanced is False and verdict.optimal is False
    assert f"{t}-{p} on {other}" in verdict.first_break or f"on {other}" in verdict.first_break


JOIN = {
    "topics": {"impressions": 4, "clicks": 3, "audit": 3},
    "join_groups": [["impressions", "clicks"]],
    "members": {
        "a": {
            "topics": ["impressions", "clicks", "audit"],
            "owned": {"impressions": [0, 1], "clicks": [2]},
            "generation": 1,
        },
        "b": {"topics": ["impressions", "clicks", "audit"], "owned": {"clicks": [0, 1], "audit": [0]}, "generation": 1},
        "c": {"topics": ["impressions", "clicks"]},
    },
}


def test_compare_judges_every_assignor_against_the_co_partitioned_optimum():
    problem = Problem.from_mapping(JOIN)
    best_loads, best_kept = join_group_optimum(problem)
    result = compare(problem, ["range", "roundrobin", "stream-join-sticky"])
    names = [row.assignor for row in result.rows]
    assert names == ["optimum", CO_PARTITIONED_OPTIMUM, "range", "roundrobin", "stream-join-sticky"]
    co_row = result.rows[1]
    assert co_row.co_partition["optimal"] and tuple(co_row.co_partition["sorted_loads"]) == best_loads
    assert co_row.co_partition["retained"] == best_kept
    for row in result.rows:
        assert row.co_partition is not None
        mapping = row.to_mapping(timing=False)["co_partition"]
        assert mapping["optimal_sorted_loads"] == list(best_loads)
    # The plain verdict still judges against the optimum without co-partitioning (a lower bound on balance).
    assert result.rows[0].verdict.optimal


def test_stream_join_sticky_is_judged_co_partitioned_on_a_scenario_without_join_groups():
    data = {k: v for k, v in JOIN.items() if k != "join_groups"}
    problem = Problem.from_mapping(data)
    joined = Problem.from_mapping({**data, "join_groups": [["audit", "clicks", "impressions"]]})
    best_loads, best_kept = join_group_optimum(joined)
    row = evaluate(problem, "stream-join-sticky")
    found = row.co_partition
    assert found is not None and tuple(tuple(g) for g in found["join_groups"]) == (("audit", "clicks", "impressions"),)
    assert tuple(found["optimal_sorted_loads"]) == best_loads and found["optimal_retained"] == best_kept
    # KIP-315 leaves partition numbers beyond the smallest topic's count unassigned (impressions-3), and
    # audit-p of the numbers c picks (c does not read audit): not co-partitioned by the scenario's rules.
    placed = {(t, p) for ts in row.assignment.members.values() for t, ps in ts.items() for p in ps}
    left_out = {(t.name, p) for t in problem.topics for p in range(t.partitions)} - placed
    assert ("impressions", 3) in left_out
    assert found["unassigned"] == len(left_out) and not found["co_partitioned"]
    assert evaluate(problem, "range").co_partition is None  # range claims no co-partitioning


def test_the_join_groups_family_in_a_sweep_is_cross_checked_by_brute_force():
    point = GridPoint("join-groups", {"members": 3, "previous": "random", "partitions": (1, 3), "topics": 1})
    rows = scenario_rows("t", "s", point, 0, ["range", "sticky"], 10, Checks(brute_force_limit=4096))
    by_name = {row["assignor"]: row for row in rows}
    assert set(by_name) == {"optimum", CO_PARTITIONED_OPTIMUM, "range", "sticky"}
    assert "co-partitioned optimal=brute-force" in by_name["optimum"]["oracle_check"]
    problem = Problem.from_mapping(json.loads(json.dumps(_scenario(point))))
    best_loads, best_kept = join_group_optimum(problem)
    assert by_name[CO_PARTITIONED_OPTIMUM]["co_retained"] == best_kept
    for name in ("range", "sticky"):
        assert by_name[name]["co_partitioned"] is not None
        assert by_name[name]["optimal_co_retained"] == best_kept


def _scenario(point: GridPoint) -> dict:
    from assignment_oracle.compare.scenarios.families import generate

    return generate(point.family, 0, **point.params).to_mapping()


def test_check_on_the_command_line_exits_by_the_co_partitioned_verdict(tmp_path, capsys):
    scenario = tmp_path / "join.json"
    scenario.write_text(json.dumps(JOIN))
    problem = Problem.from_mapping(JOIN)
    best_loads, best_kept = join_group_optimum(problem)
    solved = tmp_path / "solved.json"
    assert main(["solve", str(scenario), "-o", str(solved)]) == 0
    assert main(["check", str(scenario), str(solved), "--json"]) == 0
    verdict = json.loads(capsys.readouterr().out)  # tier by tier against the same request
    tiers = {t["tier"]: t for t in verdict["tiers"]}
    assert verdict["valid"] and verdict["verdict"] == "optimal"
    assert tuple(tiers["balance"]["optimum"]) == best_loads and tiers["stickiness"]["optimum"] == best_kept
    split = tmp_path / "split.json"  # impressions-0 and clicks-0 apart
    split.write_text(
        json.dumps(
            {
                "assignment": {
                    "a": {"impressions": [0, 1, 2, 3], "audit": [0, 1, 2]},
                    "b": {"clicks": [0, 1, 2]},
                    "c": {},
                }
            }
        )
    )
    assert main(["check", str(scenario), str(split)]) == 3
    assert "join group clicks+impressions partition 0 split between a, b" in capsys.readouterr().out
    assert main(["compare", str(scenario), "--assignors", "range"]) == 0
    assert "against the co-partitioned optimum" in capsys.readouterr().out


def test_a_unit_no_member_can_take_is_a_break_in_every_assignment():
    """Co-partitioning nobody can take (clicks and views read by different members): the co-partitioned
    optimum is INFEASIBLE, no assignment is co-partitioned (valid or not), as ``check`` says (exit 3)."""
    data = {
        "topics": {"clicks": 2, "views": 2, "free": 1},
        "join_groups": [["clicks", "views"]],
        "members": {"a": {"topics": ["clicks", "free"]}, "b": {"topics": ["views"]}},
    }
    problem = Problem.from_mapping(data)
    assert join_group_optimum(problem) is None  # brute force: no assignment co-partitions it
    optimum = co_partition.solve_co_partitioned(problem)
    assert optimum.status == "INFEASIBLE" and optimum.assignment is None
    valid = Assignment.from_partitions(
        {"a": [("clicks", 0), ("clicks", 1), ("free", 0)], "b": [("views", 0), ("views", 1)]}, problem.member_ids
    )
    invalid = Assignment.from_partitions(
        {"a": [("clicks", 0), ("clicks", 1), ("views", 0), ("views", 1)], "b": [("free", 0)]}, problem.member_ids
    )
    for assignment, is_valid in ((valid, True), (invalid, False)):
        for verdict in (co_partition.judge(problem, assignment, optimum), co_partition.judge(problem, assignment)):
            assert verdict.valid == is_valid and verdict.optimum_status == "INFEASIBLE"
            assert not verdict.co_partitioned and verdict.split_units == 2
            assert verdict.most_balanced is False and verdict.optimal is False
            assert "no member subscribes to every topic of the unit of clicks-0" in verdict.first_break
            assert verdict.optimal_sorted_loads is None and verdict.optimal_retained is None
    result = compare(problem, ["range"])
    assert [row.assignor for row in result.rows] == ["optimum", "range"]  # no co-partitioned row to show
    assert all(row.co_partition["co_partitioned"] is False for row in result.rows)


def test_the_co_partitioned_optimum_sets_weights_aside():
    """The co-partition verdict counts partitions (the weighted judge has the weights): its optimum is the
    brute force's on counts, whatever the partitions weigh."""
    data = {**JOIN, "weights": {"audit": [50, 1, 1]}}
    problem = Problem.from_mapping(data)
    counted = Problem.from_mapping(JOIN)
    best_loads, best_kept = join_group_optimum(counted)
    optimum = co_partition.solve_co_partitioned(problem, time_limit=None)
    assert (optimum.sorted_loads, optimum.retained) == (best_loads, best_kept)
    verdict = co_partition.judge(problem, optimum.assignment, optimum)
    assert verdict.optimal and verdict.optimal_sorted_loads == best_loads
