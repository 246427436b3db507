"""Share group families in sweeps (compare.sweep: spec, rows): validated grids, one row per step and assignor,
every number recomputed from the scenario itself (no Spark: the rows are what each worker runs)."""

from __future__ import annotations

import json

import pytest

from assignment_oracle.compare.scenarios.share_churn import ASSIGNORS, HISTORIES, random_scenario, simulate
from assignment_oracle.compare.sweep.rows import COLUMNS, SHARE_OPTIMUM, TIMING_COLUMNS, scenario_rows
from assignment_oracle.compare.sweep.spec import SHARE, SHARE_CHURN, Checks, GridPoint, read_spec, spec_from_mapping
from assignment_oracle.optimal import solve
from assignment_oracle.optimal.share_request import measure
from assignment_oracle.problem.scenario_json import InputError
from assignment_oracle.problem.share import violations

SHARE_COLUMNS = [c for c in COLUMNS if c.startswith(("sharegroup_", "optimal_sharegroup_"))]
#: The columns a share row fills besides its own: identity, status, shape, validity, times, the check.
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


def rows_of(family: str, seed: int, limit: int = 4096, **params) -> list[dict]:
    return scenario_rows("h", "s", GridPoint(family, params), seed, ("range",), 10, Checks(brute_force_limit=limit))


def test_the_spec_accepts_the_share_families_and_names_a_bad_parameter():
    spec = spec_from_mapping(
        {
            "families": [
                {"family": SHARE, "grid": {"previous": [False, True], "heterogeneous": True}},
                {"family": SHARE_CHURN, "grid": {"history": list(HISTORIES), "steps": 1}},
            ]
        }
    )
    assert spec.scenarios == 2 + len(HISTORIES)
    with pytest.raises(InputError, match=r"families\[0\]\.grid: share: unknown parameter 'racks'"):
        spec_from_mapping({"families": [{"family": SHARE, "grid": {"racks": 2}}]})
    with pytest.raises(InputError, match=r"share-churn: unknown share history 'bounce'"):
        spec_from_mapping({"families": [{"family": SHARE_CHURN, "grid": {"history": "bounce"}}]})
    with pytest.raises(InputError, match=r"share: previous must be true or false"):
        spec_from_mapping({"families": [{"family": SHARE, "grid": {"previous": "random"}}]})


def test_the_quick_spec_runs_share_groups():
    spec = read_spec("quick")
    single = [p.params for p in spec.points if p.family == SHARE]
    assert {(p["previous"], p["heterogeneous"]) for p in single} == {
        (a, b) for a in (False, True) for b in (False, True)
    }
    assert {p.params["history"] for p in spec.points if p.family == SHARE_CHURN} >= {"scale-out", "rolling-restart"}


@pytest.mark.parametrize("previous", [False, True])
@pytest.mark.parametrize("heterogeneous", [False, True])
def test_a_single_rebalance_row_is_the_port_judged_against_the_optimum_recomputed(previous, heterogeneous):
    seed = 6
    params = {"previous": previous, "heterogeneous": heterogeneous, "members": 5, "topics": 3}
    rows = rows_of(SHARE, seed, **params)
    assert {r["assignor"] for r in rows} == {*ASSIGNORS, SHARE_OPTIMUM} and len(rows) == 3
    problem = random_scenario(seed, **params)
    optimum = solve(problem)
    best = optimum.measures
    for row in rows:
        assert set(row) == set(COLUMNS) and row["round"] == 0
        assert all(row[c] is None for c in COLUMNS if c not in SHARED and c not in SHARE_COLUMNS), row["assignor"]
        answer = optimum.assignment if row["assignor"] == SHARE_OPTIMUM else ASSIGNORS[row["assignor"]](problem)
        mine = measure(problem, answer)
        assert row["valid"] == (not violations(problem, answer))
        assert (row["members"], row["partitions"]) == (len(problem.members), int(problem.target_mask.sum()))
        assert row["sharegroup_largest_load"] == max(mine.loads) and row["optimal_sharegroup_largest_load"] == max(
            best.loads
        )
        assert (row["sharegroup_under_shared"], row["sharegroup_over_shared"]) == (mine.under_shared, mine.over_shared)
        assert (row["sharegroup_kept"], row["optimal_sharegroup_kept"]) == (mine.kept, best.kept)
        assert row["sharegroup_pairs"] == mine.pairs and row["optimal_sharegroup_pairs"] == best.pairs
        tiers = json.loads(row["sharegroup_tiers"])
        for tier, entry in tiers.items():
            assert entry["value"] == mine.value(tier) and entry["optimum"] == best.value(tier)
            assert row[f"sharegroup_{tier}"] == entry["comparison"]
        assert row["most_balanced"] == (mine.value("balance") == best.value("balance"))
        if row["assignor"] == SHARE_OPTIMUM:
            assert row["verdict"] is None and row["sharegroup_verdict"] == "optimal"
        else:
            assert (row["verdict"], row["gap_tier"]) == (row["sharegroup_verdict"], row["sharegroup_gap_tier"])
        assert row["oracle_check"] in ("share-flow optimal", "share-flow=brute-force")


def test_small_groups_are_checked_against_brute_force():
    rows = rows_of(SHARE, 1, members=2, topics=1, partitions=3)
    assert {r["oracle_check"] for r in rows} == {"share-flow=brute-force"}
    assert {r["oracle_check"] for r in rows_of(SHARE, 1, limit=1, members=2, topics=1, partitions=3)} == {
        "share-flow optimal"
    }


@pytest.mark.parametrize("history", ["scale-out", "rolling-restart", "steady"])
def test_a_history_has_a_row_per_step_and_assignor_the_simulations_own(history):
    seed = 2
    rows = rows_of(SHARE_CHURN, seed, history=history, heterogeneous=True)
    for name in (*ASSIGNORS, "optimum"):
        played = simulate(history, name, seed=seed, heterogeneous=True).rows()
        label = SHARE_OPTIMUM if name == "optimum" else name
        mine = sorted((r for r in rows if r["assignor"] == label), key=lambda r: r["round"])
        assert [r["round"] for r in mine] == [p["step"] for p in played]
        for r, p in zip(mine, played):
            assert (r["valid"], r["sharegroup_gap_tier"], r["sharegroup_event"]) == (
                p["valid"],
                p["gap_tier"],
                p["event"],
            )
            assert (r["sharegroup_kept"], r["sharegroup_moved_optimum_kept"]) == (p["kept"], p["moved_optimum_kept"])
    assert all(r["sharegroup_verdict"] == "optimal" for r in rows if r["assignor"] == SHARE_OPTIMUM)


def test_a_broken_promise_is_a_counterexample_with_the_scenario():
    # Kafka's answers on these seeds break a promise somewhere (found by running them): each such row carries
    # the scenario and the answer, and only such rows do.
    rows = [
        r
        for seed in range(6)
        for heterogeneous in (False, True)
        for r in rows_of(SHARE, seed, previous=True, heterogeneous=heterogeneous, members=6)
    ]
    broken = [r for r in rows if r["sharegroup_guarantees_broken"] and r["assignor"] != SHARE_OPTIMUM]
    assert broken
    for r in rows:
        if r["assignor"] == SHARE_OPTIMUM or r["status"] == "error":
            continue
        assert (r["counterexample"] is not None) == bool(r["sharegroup_guarantees_broken"] or not r["valid"])
    document = json.loads(broken[0]["counterexample"])
    assert document["scenario"]["kind"] == "share" and document["finding"]


def test_share_rows_are_deterministic_but_for_the_times():
    a = rows_of(SHARE_CHURN, 1, history="assignable", steps=2)
    b = rows_of(SHARE_CHURN, 1, history="assignable", steps=2)
    strip = [{k: v for k, v in r.items() if k not in TIMING_COLUMNS} for r in a]
    assert strip == [{k: v for k, v in r.items() if k not in TIMING_COLUMNS} for r in b]
