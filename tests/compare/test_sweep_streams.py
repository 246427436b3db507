"""Streams group families in sweeps (compare.sweep: spec, rows): validated grids, one row per step and
assignor, every number recomputed from the scenario itself (no Spark: the rows are what each worker runs)."""

from __future__ import annotations

import json

import pytest

from assignment_oracle.compare.scenarios.streams_churn import ASSIGNORS, HISTORIES, random_scenario, simulate
from assignment_oracle.compare.sweep.rows import COLUMNS, STREAMS_OPTIMUM, TIMING_COLUMNS, scenario_rows
from assignment_oracle.compare.sweep.spec import (
    STREAMS,
    STREAMS_CHURN,
    STREAMS_FAMILIES,
    Checks,
    GridPoint,
    read_spec,
    spec_from_mapping,
)
from assignment_oracle.optimal import solve
from assignment_oracle.optimal.streams_request import measure
from assignment_oracle.problem.scenario_json import InputError
from assignment_oracle.problem.streams import violations

STREAMS_COLUMNS = [c for c in COLUMNS if c.startswith(("streams_", "optimal_streams_"))]
#: The columns a Streams row fills besides its own: identity, status, shape, validity, times, the check.
SHARED = {
    "sweep",
    "scenario_id",
    "family",
    "params",
    "seed",
    "round",
    "assignor",
    "status",
    "message",
    "members",
    "topics",
    "partitions",
    "racks",
    "valid",
    "violations",
    "most_balanced",
    "verdict",
    "gap_tier",
    "wall_time_s",
    "oracle_wall_time_s",
    "oracle_check",
    "counterexample",
    "version",
}


def rows_of(family: str, seed: int, **params) -> list[dict]:
    return scenario_rows("h", "s", GridPoint(family, params), seed, ("range",), 10, Checks())


def test_the_spec_accepts_the_streams_families_and_names_a_bad_parameter():
    spec = spec_from_mapping(
        {
            "families": [
                {"family": STREAMS, "grid": {"previous": [False, True], "tags": True}},
                {"family": STREAMS_CHURN, "grid": {"history": list(HISTORIES), "steps": 1}},
            ]
        }
    )
    assert spec.scenarios == 2 + len(HISTORIES)
    with pytest.raises(InputError, match=r"families\[0\]\.grid: streams: unknown parameter 'racks'"):
        spec_from_mapping({"families": [{"family": STREAMS, "grid": {"racks": 2}}]})
    with pytest.raises(InputError, match=r"streams-churn: unknown Streams history 'bounce'"):
        spec_from_mapping({"families": [{"family": STREAMS_CHURN, "grid": {"history": "bounce"}}]})
    with pytest.raises(InputError, match=r"streams: previous must be true or false"):
        spec_from_mapping({"families": [{"family": STREAMS, "grid": {"previous": "random"}}]})


def test_the_quick_spec_runs_streams_groups_fresh_and_previous_with_and_without_tags_and_every_history():
    spec = read_spec("quick")
    single = [p.params for p in spec.points if p.family == STREAMS]
    assert {(p["previous"], p["tags"]) for p in single} == {(False, False), (False, True), (True, False), (True, True)}
    histories = {p.params["history"] for p in spec.points if p.family == STREAMS_CHURN}
    assert histories == set(HISTORIES)
    assert any(p.params.get("tags") for p in spec.points if p.family == STREAMS_CHURN)


@pytest.mark.parametrize("previous", [False, True])
@pytest.mark.parametrize("tags", [False, True])
def test_a_single_rebalance_row_is_the_port_judged_against_the_optimum_recomputed(previous, tags):
    seed = 5
    rows = rows_of(STREAMS, seed, previous=previous, tags=tags, processes=3, members=2)
    assert {r["assignor"] for r in rows} == {*ASSIGNORS, STREAMS_OPTIMUM} and len(rows) == 3
    problem = random_scenario(seed, previous=previous, tags=tags, processes=3, members=2)
    optimum = solve(problem)
    best = optimum.measures
    for row in rows:
        assert set(row) == set(COLUMNS) and row["round"] == 0
        # the consumer columns stay empty
        assert all(row[c] is None for c in COLUMNS if c not in SHARED and c not in STREAMS_COLUMNS), row["assignor"]
        answer = optimum.assignment if row["assignor"] == STREAMS_OPTIMUM else ASSIGNORS[row["assignor"]](problem)
        mine = measure(problem, answer)
        assert row["valid"] == (not violations(problem, answer)) and row["status"] == (
            "ok" if row["valid"] else "invalid"
        )
        assert (row["members"], row["partitions"], row["racks"]) == (len(problem.members), len(problem.tasks), tags)
        assert row["streams_largest_active"] == max(mine.active_counts)
        assert row["optimal_streams_largest_active"] == max(best.active_counts)
        assert row["streams_largest_tasks"] == max(mine.task_counts)
        assert [row["streams_actives_kept"], row["streams_standbys_kept"], row["streams_copies_on_state"]] == [
            mine.actives_kept,
            mine.standbys_kept,
            mine.on_state,
        ]
        assert [
            row["optimal_streams_actives_kept"],
            row["optimal_streams_standbys_kept"],
            row["optimal_streams_copies_on_state"],
        ] == [best.actives_kept, best.standbys_kept, best.on_state]
        assert row["streams_avoidable_shortfall"] == mine.shortfall
        same = {
            t: mine.value(t) == best.value(t) for t in ("active-balance", "task-balance", "tag-diversity", "stickiness")
        }
        assert row["most_balanced"] == (same["active-balance"] and same["task-balance"])
        assert (row["streams_tag_diversity"] is None) == (not tags)
        tiers = json.loads(row["streams_tiers"])
        for tier, entry in tiers.items():
            assert (entry["comparison"] == "equal") == same[tier]
            assert entry["value"] == mine.value(tier) and entry["optimum"] == best.value(tier)
        worse = [t for t, e in tiers.items() if e["comparison"] != "equal"]
        assert row["streams_gap_tier"] == (worse[0] if worse and tiers[worse[0]]["comparison"] == "worse" else None)
        # the one verdict's columns, shared with consumer rows (the optimum's own row is not judged there)
        if row["assignor"] == STREAMS_OPTIMUM:
            assert row["verdict"] is None and row["gap_tier"] is None
        else:
            assert (row["verdict"], row["gap_tier"]) == (row["streams_verdict"], row["streams_gap_tier"])
        assert row["streams_optimum_status"] == optimum.status == "OPTIMAL"
        assert row["oracle_check"] == "streams-cpsat optimal"
        if previous:
            assert row["streams_previous_actives"] == sum(len(m.active) for m in problem.members) > 0
        else:
            assert row["streams_previous_actives"] == row["streams_previous_standbys"] == 0


@pytest.mark.parametrize("history", HISTORIES)
def test_a_history_has_a_row_per_step_and_assignor_the_simulations_own(history):
    seed = 2
    rows = rows_of(STREAMS_CHURN, seed, history=history)
    for name in (*ASSIGNORS, "optimum"):
        played = simulate(history, name, seed=seed).rows()
        label = STREAMS_OPTIMUM if name == "optimum" else name
        mine = sorted((r for r in rows if r["assignor"] == label), key=lambda r: r["round"])
        assert [r["round"] for r in mine] == [p["step"] for p in played]
        for r, p in zip(mine, played):
            assert (r["valid"], r["streams_gap_tier"], r["streams_event"]) == (p["valid"], p["gap_tier"], p["event"])
            assert r["streams_moved_optimum_kept"] == p["moved_optimum_kept"]
            assert r["streams_actives_kept"] == p["actives_kept"]
            assert r["streams_previous_standbys"] == p["previous_standbys"]
    # the optimum's own trajectory, judged against itself, is optimal at every step
    assert all(r["streams_verdict"] == "optimal" for r in rows if r["assignor"] == STREAMS_OPTIMUM)


def test_streams_rows_are_deterministic_but_for_the_times():
    a = rows_of(STREAMS_CHURN, 1, history="rolling-restart", tags=True, steps=1)
    b = rows_of(STREAMS_CHURN, 1, history="rolling-restart", tags=True, steps=1)
    strip = [{k: v for k, v in r.items() if k not in TIMING_COLUMNS} for r in a]
    assert strip == [{k: v for k, v in r.items() if k not in TIMING_COLUMNS} for r in b]
    assert {r["family"] for r in a} <= set(STREAMS_FAMILIES)
