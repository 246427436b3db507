"""compare.report.tables on the bundled quick sweep: every table against the rows it summarizes and the oracle's facts."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pandas as pd
import pytest

from assignment_oracle.cli import main
from assignment_oracle.compare.judge.configuration import BALANCE_EDGE_PCT, MOVES_TRADE_PCT, configuration
from assignment_oracle.compare.report import tables
from assignment_oracle.compare.scenarios.bugs import replay
from assignment_oracle.compare.sweep.spec import CHURN, SHARE_FAMILIES, STREAMS_CHURN, STREAMS_FAMILIES
from assignment_oracle.heuristics.registry import ASSIGNORS, PEERS, PORT_OF
from assignment_oracle.problem.scenario_json import InputError

pytestmark = pytest.mark.xdist_group("spark")  # one worker runs every test that uses Spark (tests/conftest.py)

# The two registry entries that are not valid by construction: KIP-315 leaves partitions past the
# smallest topic unassigned, and the pre-KIP-341 sticky assignor honours stale claims (KAFKA-7026).
# kafka-python's round robin raises on differing subscriptions (a peer's finding, docs/external.md).
NOT_ALWAYS_VALID = {"stream-join-sticky", "sticky-kip54", "kafka-python:roundrobin"}


@pytest.fixture(scope="module")
def rows(quick_sweep):
    return tables.load(quick_sweep.out)


def results(rows):
    """Consumer group assignors' rows (the Streams and share families have their own tables:
    test_streams_assignors_*, test_share_*)."""
    return rows[~rows["assignor"].isin(tables.ORACLE) & ~rows["family"].isin((*STREAMS_FAMILIES, *SHARE_FAMILIES))]


def test_load_reads_every_row_and_keeps_the_oracle_when_filtering(quick_sweep, rows):
    assert len(rows) == quick_sweep.result.rows
    some = tables.load(quick_sweep.out, families=["churn", "uniform"], assignors="sticky")
    assert set(some["family"]) == {"churn", "uniform"}
    assert set(some["assignor"]) == {"sticky", "optimum", "optimum-cpsat"} & set(rows["assignor"])
    assert len(some) == len(
        rows[rows["family"].isin(["churn", "uniform"]) & rows["assignor"].isin(["sticky", *tables.ORACLE])]
    )


def test_load_errors_name_the_directory_and_the_field(quick_sweep, tmp_path):
    with pytest.raises(InputError, match="holds no sweep rows"):
        tables.load(tmp_path)
    with pytest.raises(InputError, match=r"family: no rows for 'zipfian' \(present: "):
        tables.load(quick_sweep.out, families=["zipfian"])


def test_report_order_is_the_registrys_then_the_oracle():
    assert tables.assignor_order({"optimum", "zeta", "sticky", "range", "optimum-cpsat", "alpha"}) == [
        "range",
        "sticky",
        "alpha",
        "zeta",
        "optimum",
        "optimum-cpsat",
    ]


def test_shares_count_every_result_once_and_agree_across_groupings(rows):
    overall = tables.shares(rows, by_family=False)
    by_family = tables.shares(rows)
    assert list(overall["assignor"]) == tables.assignor_order(results(rows)["assignor"].unique())
    assert overall["results"].sum() == by_family["results"].sum() == len(results(rows))
    for column in ("share_valid", "share_most_balanced", "share_guarantee_kept"):
        assert overall[column].dropna().between(0, 1).all()
    # The overall share is the results-weighted mean of the per-family shares.
    weighted = (
        by_family.assign(v=by_family["share_valid"] * by_family["results"]).groupby("assignor")[["v", "results"]].sum()
    )
    for _, row in overall.iterrows():
        assert row["share_valid"] == pytest.approx(
            weighted.loc[row["assignor"], "v"] / weighted.loc[row["assignor"], "results"]
        )
    # Assignors that are valid by construction are valid on every scenario.
    valid = overall.set_index("assignor")["share_valid"]
    assert all(valid[name] == 1 for name in valid.index if name not in NOT_ALWAYS_VALID)
    assert valid["sticky-kip54"] < 1  # the zombie scenarios (KIP-341's story) catch it


def test_balance_gaps_vanish_exactly_on_most_balanced_results(rows):
    gaps = tables.balance_gaps(rows)
    valid = results(rows)
    valid = valid[(valid["status"] == "ok") & valid["valid"].eq(True)]
    assert len(gaps) == len(valid)
    assert (gaps["kip54_gap"] >= 0).all() and (gaps["balance_moves"] >= 0).all()
    balanced = valid["most_balanced"].eq(True).to_numpy()
    moves = valid["balance_moves"].to_numpy()
    # Same sorted loads as the optimum <=> no partition needs to move to reach them.
    assert ((moves == 0) == balanced).all()
    assert (valid.loc[balanced, "kip54_gap"] == 0).all()


def test_stickiness_gaps_are_never_negative_among_most_balanced_results(rows):
    gaps = tables.stickiness_gaps(rows)
    assert not gaps.empty
    assert (gaps["stickiness_gap"] >= 0).all()  # the optimum retains the most among most-balanced assignments
    assert (gaps["retained"] <= gaps["owned"]).all() and (gaps["optimal_retained"] <= gaps["owned"]).all()


def test_rack_gaps_are_never_negative_and_come_from_scenarios_with_racks(rows):
    gaps = tables.rack_gaps(rows)
    assert not gaps.empty  # the quick spec has a rack-aware family
    # The optimum is the most rack-local of the most balanced assignments.
    assert (gaps["rack_gap"] >= 0).all()
    assert set(gaps["family"]) <= set(rows.loc[rows["racks"].fillna(False).astype(bool), "family"])
    # Some assignor ignores racks and pays for it (range, round robin: KIP-881 is not in them).
    assert gaps["rack_gap"].max() > 0


def test_churn_curves_accumulate_round_by_round(quick_sweep, rows):
    curves = tables.churn_curves(rows)
    churn_points = [p for p in quick_sweep.spec.points if p.family == CHURN]
    rounds = sorted(rows.loc[rows["family"] == CHURN, "round"].unique())
    assert len(rounds) > 1
    assert list(curves.loc[curves["assignor"] == "optimum", "round"]) == rounds
    for _, part in curves.groupby("assignor"):
        assert part["cumulative_moved"].is_monotonic_increasing
    histories = len(churn_points) * len(quick_sweep.spec.seeds)
    assert curves.loc[curves["assignor"] == "optimum", "histories"].eq(histories).all()


def test_run_times_cover_every_assignor_and_both_oracle_models(rows):
    times = tables.run_times(rows)
    assert {"optimum", "optimum-cpsat"} <= set(times["assignor"])
    assert set(results(rows)["assignor"]) <= set(times["assignor"])
    assert (times["group_size"] == times["members"] * times["partitions"].clip(lower=1)).all()
    assert (times["wall_time_s"] >= 0).all()


def test_oracle_checks_cover_every_scenario_round_and_never_disagree(rows):
    checks = tables.oracle_checks(rows)
    assert checks["scenario_rounds"].sum() == rows[["scenario_id", "round"]].drop_duplicates().shape[0]
    assert not checks["oracle_check"].str.startswith("DISAGREE").any()
    assert {"flow=brute-force", "flow=cpsat"} <= set(checks["oracle_check"])


def test_status_counts_add_up(rows):
    counts = tables.status_counts(rows).set_index("assignor")
    statuses = counts[["ok", "invalid", "timeout", "error"]]
    assert statuses.sum(axis=1).to_dict() == rows.groupby("assignor").size().to_dict()


def test_every_scenario_round_is_a_row_or_counted_not_played(quick_sweep, rows):
    """Each assignor's rows plus the churn rounds it did not play are the optimum's scenario-rounds; the
    sweep's summary names every assignor with rows missing, and only those."""
    counts = tables.status_counts(rows).set_index("assignor")
    rounds = len(rows[rows["assignor"] == "optimum"])
    summary = quick_sweep.result.text().splitlines()
    for assignor in results(rows)["assignor"].unique():
        entry = counts.loc[assignor]
        assert entry[["ok", "invalid", "timeout", "error"]].sum() + entry["not_played"] == rounds
        short = entry["not_played"] > 0
        assert short == any(line.startswith(f"{assignor}: ") for line in summary), assignor
        if short:  # only a churn history stops early, and only after a failed round
            assert entry["timeout"] + entry["error"] > 0
    assert counts["not_played"].sum() > 0  # kafka-python's round robin raises inside churn histories


def test_operational_gaps_are_measured_from_the_scenarios_themselves(rows):
    """The busiest member over the ideal, recomputed for a sample of results by generating the scenario from its
    family, seed and parameters, running the assignor and solving the optimum: never below 0, 0 exactly when
    the busiest loads match; moved and cross-rack shares are those of the rows."""
    from assignment_oracle.compare.scenarios.families import generate
    from assignment_oracle.heuristics import get_assignor
    from assignment_oracle.optimal import solve
    from assignment_oracle.problem.metrics import load_vector

    plain = results(rows)
    plain = plain[(plain["family"] != CHURN) & (plain["status"] == "ok") & plain["valid"].eq(True)]
    plain = plain[~plain["assignor"].str.contains(":")].sort_values(["scenario_id", "assignor"])
    sample = plain.iloc[:: max(1, len(plain) // 60)]
    for row in sample.itertuples():
        problem = generate(row.family, row.seed, **json.loads(row.params))
        if problem.weights or problem.join_groups:
            continue
        largest = max(load_vector(problem, get_assignor(row.assignor).assign(problem)))
        ideal = max(load_vector(problem, solve(problem).assignment))
        assert (row.largest_load, row.optimal_largest_load) == (largest, ideal), row.scenario_id
    gaps = tables.operational_gaps(rows)
    unweighted = ~gaps["family"].isin(["weighted", "join-groups"])
    assert (gaps.loc[unweighted, "busiest_over_ideal_pct"].dropna() >= 0).all()
    always = results(rows).groupby(["assignor", "family"])["most_balanced"].apply(lambda s: s.eq(True).all())
    for (assignor, family), balanced in always.items():
        if balanced and family not in ("weighted", "join-groups"):
            entry = gaps[(gaps["assignor"] == assignor) & (gaps["family"] == family)].iloc[0]
            assert entry["busiest_over_ideal_worst_pct"] == 0
    racks = gaps[gaps["family"] == "racks"]
    assert racks["cross_rack_pct"].notna().all() and (racks["optimal_cross_rack_pct"] == 0).all()
    assert gaps.loc[gaps["family"] == "uniform", "moved_pct"].isna().all()  # no previous owners


def test_the_verdict_chooses_a_configurable_assignor_nothing_configurable_beats(rows):
    """Per family: the choice is configurable today; no configurable assignor has more valid results, or as
    many and a busiest member closer to the ideal by more than the resolution; what it names as better
    but unshipped is not configurable, and the costs it prints are the choice's measures."""
    gaps = tables.operational_gaps(rows)
    verdict = tables.verdict(rows).set_index("family")
    assert sorted(verdict.index) == sorted(tables.family_in_words(f) for f in gaps["family"].unique())
    for family, line in verdict.iterrows():
        table = gaps[gaps["family"] == family.split(":")[0]].set_index("assignor")
        chosen = table.loc[line["choose"]]
        assert tables.configurable(line["choose"])
        rivals = table[[tables.configurable(a) for a in table.index]]
        assert (rivals["share_valid"] <= chosen["share_valid"]).all()
        if line["co_partitioned"] == "-":
            peers = rivals[rivals["share_valid"] == chosen["share_valid"]]
            closer = peers["busiest_over_ideal_pct"] < chosen["busiest_over_ideal_pct"] - tables.VERDICT_RESOLUTION_PCT
            if line["why"].startswith("trade: "):  # a small balance edge not worth many more moves
                traded = table.loc[line["why"].split()[1]]
                assert traded["busiest_over_ideal_pct"] > chosen["busiest_over_ideal_pct"] - BALANCE_EDGE_PCT
                assert traded["moved_pct"] >= chosen["moved_pct"] + MOVES_TRADE_PCT
            else:
                assert not closer.any(), (family, list(peers.index[closer]))
        assert line["configure"] == configuration(line["choose"]).short()
        for name in filter(None, line["better_unshipped"].replace("-", "").split(", ")):
            assert not tables.configurable(name)
        if not pd.isna(chosen["busiest_over_ideal_pct"]):
            assert line["busiest_over_ideal"].startswith(f"+{chosen['busiest_over_ideal_pct']:.1f}%")
        if not pd.isna(chosen["moved_pct"]):
            assert line["moved_per_rebalance"] == f"{chosen['moved_pct']:.1f}% ({chosen['optimal_moved_pct']:.1f}%)"
    verdict.index = [family.split(":")[0] for family in verdict.index]  # "racks: members and partition ..."
    assert verdict.loc["racks", "cross_rack_reads"].startswith("0.0%")  # KIP-881's rack-aware kafka4 ports
    # the weighted groups: round robin's small balance edge is not worth its moves, and it says so
    assert verdict.loc["weighted", "why"].startswith("trade: roundrobin is ")
    assert verdict.loc["weighted", "choose"] in ("cooperative-sticky", "kafka4-cooperative-sticky")
    assert not {"fair", "sticky-kip54", "constrained-sticky", "stream-join-sticky"} & set(verdict["choose"])


def test_kip341_the_fix_holds_where_the_old_assignor_duplicates(rows):
    stale = tables.kip341(rows).set_index("assignor")
    assert stale.loc["sticky", "share_valid"] == 1
    assert stale.loc["sticky-kip54", "share_valid"] < 1
    assert stale.loc["sticky-kip54", "mean_violations"] > 0
    scenarios = rows[rows["params"].map(lambda p: json.loads(p).get("zombies", 0) > 0)]["scenario_id"].nunique()
    assert stale.loc["sticky", "results"] == scenarios


def test_worst_counterexamples_come_worst_first_and_replay_from_their_commands(quick_sweep, rows, capsys, monkeypatch):
    worst = tables.worst_counterexamples(rows, quick_sweep.out, limit=50)
    assert not any(Path(f).is_absolute() for f in worst["file"])  # relative to the sweep directory
    monkeypatch.chdir(quick_sweep.out)  # where the commands run from
    flagged = results(rows)["counterexample"].notna().sum()
    # one row per cause (an assignor and what its results are instances of), the count beside it
    assert worst["count"].sum() == flagged > 0 and not worst.duplicated(["assignor", "cause"]).any()
    causes = dict(zip(worst["assignor"], worst["cause"]))
    assert causes["sticky-kip54"] == "invalid: duplicated"  # KAFKA-7026, one row whatever its count
    joined = worst.merge(rows, on=["assignor", "scenario_id", "round"], how="left")
    invalid = ~joined["valid"].eq(True)
    assert list(invalid) == sorted(invalid, reverse=True)  # invalid results first
    first = worst.iloc[0]
    # The file the sweep wrote, replayed by the table's own command: the same assignor breaks its guarantee again.
    argv = shlex.split(first["replay"])
    assert argv[:2] == ["assignment-oracle", "compare"]
    assert main(argv[1:] + ["--json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    row = next(r for r in replayed["rows"] if r["assignor"] == first["assignor"])
    assert row["guarantee"]["kept"] is False
    # ... and explained: not optimal (exit 3 when invalid, 1 when a gap).
    assert main(shlex.split(first["explain"])[1:]) in (1, 3)


def test_bug_rows_show_the_bug_and_the_fix():
    table = tables.bug_rows(replay("kafka-7026"))
    before = table[table["assignor"] == "sticky-kip54"]
    after = table[table["assignor"] == "sticky"]
    assert not before.empty and not after.empty
    assert (~before["valid"].astype(bool)).any() and (before["violations"] > 0).any()
    assert after["valid"].astype(bool).all()


def test_empty_tables_when_the_sweep_lacks_a_family(rows):
    no_churn = rows[rows["family"] != CHURN]
    assert tables.churn_curves(no_churn).empty
    no_zombies = rows[~rows["params"].str.contains("zombies")]
    assert tables.kip341(no_zombies).empty
    assert list(tables.worst_counterexamples(rows.assign(counterexample=None), "x").columns) == [
        "assignor",
        "cause",
        "count",
        "family",
        "scenario_id",
        "round",
        "finding",
        "members",
        "partitions",
        "file",
        "replay",
        "explain",
    ]
    assert isinstance(tables.shares(no_churn), pd.DataFrame)
    assert set(ASSIGNORS) | set(PEERS) >= set(tables.shares(no_churn)["assignor"])


def test_differential_puts_each_peer_next_to_its_port(rows):
    table = tables.differential(rows)
    assert set(table["peer"]) == set(PEERS)
    assert (table["port"] == table["peer"].map(PORT_OF)).all()
    # Kafka's RangeAssignor is deterministic: kafka-python's and this project's agree on every scenario.
    assert (table.loc[table["peer"] == "kafka-python:range", "same_result"] == 1).all()
    assert table["results"].sum() == len(
        rows[rows["assignor"].isin(PEERS)].merge(
            rows[rows["assignor"].isin(PORT_OF.values())][["scenario_id", "round"]].drop_duplicates()
        )
    )


def test_failures_list_each_peer_exception_with_its_smallest_scenario(quick_sweep, rows, capsys, monkeypatch):
    failed = tables.failures(rows, quick_sweep.out)
    monkeypatch.chdir(quick_sweep.out)  # the commands run from the sweep directory
    robin = failed[failed["assignor"] == "kafka-python:roundrobin"]
    assert not robin.empty and robin["message"].str.startswith("KeyError: ").all()
    assert (
        robin["results"].sum() == ((rows["assignor"] == "kafka-python:roundrobin") & (rows["status"] == "error")).sum()
    )
    first = robin.iloc[0]
    errors = rows[(rows["assignor"] == first["assignor"]) & (rows["message"] == first["message"])]
    smallest = errors.sort_values(["partitions", "members"]).iloc[0]
    assert first["smallest"] == f"{smallest['members']} x {smallest['partitions']}"
    assert main(shlex.split(first["replay"])[1:] + ["--json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert next(r for r in replayed["rows"] if r["assignor"] == first["assignor"])["status"] == "error"


def test_differential_stickiness_gaps_are_those_of_most_balanced_results(rows):
    table = tables.differential(rows)
    for side in ("peer", "port"):
        assert (table[f"{side}_stickiness_gap"].dropna() >= 0).all()


def test_a_scenario_that_could_not_be_built_is_not_an_assignor_result(quick_sweep, rows):
    broken = (
        rows.iloc[:1]
        .copy()
        .assign(
            assignor="scenario",
            status="error",
            message="ValueError: bad",
            members=None,
            partitions=None,
            counterexample=None,
        )
    )
    with_broken = pd.concat([rows, broken], ignore_index=True)
    assert "scenario" not in set(tables.failures(with_broken, quick_sweep.out)["assignor"])
    assert "scenario" not in set(tables.shares(with_broken)["assignor"])
    assert tables.status_counts(with_broken).set_index("assignor").loc["scenario", "error"] == 1


@pytest.mark.parametrize(
    "own",
    [
        "spec.json",
        "summary.json",
        "lock",
        "spark.log",
        "rows/part-0.parquet",
        "staged/a.parquet",
        "counterexamples/x.json",
    ],
)
def test_a_report_never_writes_over_the_sweeps_own_files(tmp_path, own):
    """Over the spec (or summary, rows, counterexamples) the sweep could not resume: refused before
    the notebook runs, and the file is left as it was."""
    from assignment_oracle.compare.report.notebooks import write_gap_report
    from assignment_oracle.problem.errors import InputError

    target = tmp_path / own
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("the sweep's\n")
    for html, notebook in ((target, None), (tmp_path / "report.html", target)):
        with pytest.raises(InputError, match="one of the sweep's own files"):
            write_gap_report(tmp_path, html, notebook=notebook)
    assert target.read_text() == "the sweep's\n" and not (tmp_path / "report.html").exists()


def test_report_tables_show_hostile_names_escaped():
    frame = pd.DataFrame({"assignor": ["ok", "x\nFORGED\x1b[2J"], "share": [0.5, 0.123456]})
    html = tables.styled(frame).to_html()
    assert "x\\nFORGED\\x1b[2J" in html and "\x1b" not in html and "0.123" in html and "0.123456" not in html


def test_client_libraries_table_summarizes_each_peers_own_rows(rows):
    from importlib import metadata

    table = tables.client_libraries(rows)
    assert list(table["library"] + ":" + table["strategy"]) == [p for p in PEERS if p in set(rows["assignor"])]
    assert (table["version"] == metadata.version("kafka-python")).all()  # recorded by the sweep on every row
    for line in table.itertuples():
        name = f"{line.library}:{line.strategy}"
        mine = [r for r in rows.to_dict("records") if r["assignor"] == name]
        assert line.copies == PORT_OF[name] and line.results == len(mine)
        valid = [r for r in mine if r["valid"] is True and r["status"] in ("ok", "invalid")]
        assert line.valid == pytest.approx(len(valid) / len(mine))
        assert line.most_balanced == pytest.approx(sum(r["most_balanced"] is True for r in valid) / len(mine))
        rebalances = [r for r in mine if (r["owned"] or 0) > 0]
        sticky = [
            r
            for r in rebalances
            if r in valid
            and r["most_balanced"] is True
            and (r["cross_rack"] or 0) <= (r["optimal_cross_rack"] or 0)
            and r["retained"] >= r["optimal_retained"]
        ]
        assert line.as_sticky_as_optimum == pytest.approx(len(sticky) / len(rebalances))
    # Kafka's RangeAssignor is deterministic: kafka-python's copy gives the port's result on every scenario.
    assert table.loc[table["strategy"] == "range", "same_as_kafka"].item() == 1


def test_streams_assignors_percentages_are_the_rows_counted_again(quick_sweep, rows):
    """The Streams table's percentages recomputed from the rows' own columns, counted one row at a time; every
    Streams scenario-step has a row per iteration order and one for the optimum."""
    table = tables.streams_assignors(rows).set_index("assignor")
    streams = rows[rows["family"].isin(STREAMS_FAMILIES)]
    assert set(table.index) == {"streams-sticky", "streams-sticky-java", "optimum-streams"}
    assert list(table.index)[-1] == "optimum-streams"
    steps = streams[["scenario_id", "round"]].drop_duplicates()
    points = [p for p in quick_sweep.spec.points if p.family in STREAMS_FAMILIES]
    assert streams["scenario_id"].nunique() == len(points) * len(quick_sweep.spec.seeds)
    for name, entry in table.iterrows():
        mine = streams[streams["assignor"] == name]
        assert entry["scenarios"] == len(mine) == len(steps)
        assert entry["iteration_order"] == {"streams-sticky": "sorted", "streams-sticky-java": "java"}.get(name, "-")
        counts = {key: [0, 0] for key in ("valid", "short", "act", "tsk", "tag", "sticky", "moved")}
        for row in mine.itertuples():
            tiers = json.loads(row.streams_tiers)
            equal = {t: v["comparison"] == "equal" for t, v in tiers.items()}
            counts["valid"][0] += row.valid is True
            counts["valid"][1] += 1
            counts["short"][0] += row.streams_avoidable_shortfall == 0
            counts["short"][1] += 1
            counts["act"][0] += equal["active-balance"]
            counts["act"][1] += 1
            counts["tsk"][0] += equal["task-balance"]
            counts["tsk"][1] += 1
            if "tag-diversity" in tiers:
                counts["tag"][0] += tiers["tag-diversity"]["value"] == tiers["tag-diversity"]["optimum"]
                counts["tag"][1] += 1
            if row.streams_previous_actives + row.streams_previous_standbys > 0:
                before = [t for t in tiers if t != "stickiness"]
                sticky = tiers["stickiness"]
                counts["sticky"][0] += bool(
                    row.valid and all(equal[t] for t in before) and sticky["value"] >= sticky["optimum"]
                )
                counts["sticky"][1] += 1
            if row.family == STREAMS_CHURN and row.round > 0:
                counts["moved"][0] += row.streams_moved_optimum_kept > 0
                counts["moved"][1] += 1
        for key, column in (
            ("valid", "valid_pct"),
            ("short", "no_avoidable_shortfall_pct"),
            ("act", "most_balanced_actives_pct"),
            ("tsk", "most_balanced_tasks_pct"),
            ("tag", "tag_diversity_at_optimum_pct"),
            ("sticky", "as_sticky_as_optimum_pct"),
            ("moved", "moved_optimum_kept_pct"),
        ):
            hit, among = counts[key]
            assert among > 0, (name, key)  # the quick spec has tags, previous tasks and histories
            assert entry[column] == pytest.approx(100 * hit / among), (name, column)
    # the optimum's own rows are optimal on every tier and, judged against themselves, never move what they keep
    oracle = table.loc["optimum-streams"]
    assert (oracle.drop(["iteration_order", "scenarios"]).drop("moved_optimum_kept_pct") == 100).all()
    assert oracle["moved_optimum_kept_pct"] == 0


def test_streams_rows_stay_out_of_the_consumer_tables(rows):
    streams = set(rows.loc[rows["family"].isin(STREAMS_FAMILIES), "assignor"]) - set(tables.ORACLE)
    assert streams == {"streams-sticky", "streams-sticky-java"}
    for table in (tables.shares(rows), tables.operational_gaps(rows), tables.balance_gaps(rows)):
        assert not set(table["assignor"]) & streams
        if "family" in table:
            assert not set(table["family"]) & set(STREAMS_FAMILIES)
    counts = tables.status_counts(rows).set_index("assignor")
    steps = len(rows[rows["assignor"] == "optimum-streams"])
    for name in streams:  # every Streams scenario-step played, none counted against the consumer optimum
        assert counts.loc[name, ["ok", "invalid", "timeout", "error"]].sum() == steps
        assert counts.loc[name, "not_played"] == 0


def test_share_groups_have_their_own_table_and_smallest_counterexamples(rows):
    share = rows[rows["family"].isin(SHARE_FAMILIES)]
    table = tables.share_assignors(rows).set_index("assignor")
    assert list(table.index) == ["share-simple", "share-simple-java", "optimum-share"]
    for name, line in table.iterrows():
        mine = share[share["assignor"] == name]
        assert line["scenarios"] == len(mine)
        assert line["under_shared_pct"] == pytest.approx(100 * (mine["sharegroup_under_shared"] > 0).mean())
        worse = mine["sharegroup_balance"].eq("worse") & mine["sharegroup_coverage"].eq("equal")
        assert line["unbalanced_pct"] == pytest.approx(100 * (worse & mine["sharegroup_sharing"].eq("equal")).mean())
    optimum = table.loc["optimum-share"]
    assert optimum["most_balanced_pct"] == 100 and optimum["unbalanced_pct"] == 0
    assert optimum["moves_what_could_stay_pct"] in (0, pytest.approx(0)) or pd.isna(
        optimum["moves_what_could_stay_pct"]
    )
    # each finding's smallest group is no larger than any other showing it
    smallest = tables.share_counterexamples(rows)
    for _, line in smallest.iterrows():
        assert line["assignor"] in ("share-simple", "share-simple-java") and line["replay"]
    # share rows are in no consumer table
    assert not results(rows)["family"].isin(SHARE_FAMILIES).any()
