"""The command line: exit codes, one-line errors, byte-stable output."""

import json
import os
import random
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from assignment_oracle.cli import bundled_examples, main
from assignment_oracle.optimal import solve
from assignment_oracle.problem.scenario_json import read_problem

EXAMPLES = {p.stem: p for p in bundled_examples()}
CHAIN = EXAMPLES["chain-move"]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_bundled_examples_are_there():
    assert {
        "kip54-example-1-rebalance",
        "kip54-example-2-rebalance",
        "kip54-example-3-rebalance",
        "kip49-example",
    } <= set(EXAMPLES)


def test_solve_then_check_is_optimal_and_byte_stable(tmp_path, capsys):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert run(capsys, "solve", CHAIN, "-o", first)[0] == 0
    assert run(capsys, "solve", CHAIN, "-o", second)[0] == 0
    assert first.read_bytes() == second.read_bytes()
    code, out, _ = run(capsys, "check", CHAIN, first)
    assert code == 0
    assert "certificate: the certificate given verifies" in out


def test_solve_methods_agree(capsys):
    docs = {}
    for method in ("flow", "cpsat", "networkx"):
        code, out, _ = run(capsys, "solve", EXAMPLES["kip54-example-3-rebalance"], "--method", method)
        assert code == 0
        docs[method] = json.loads(out)
    assert {(d["status"], tuple(d["sorted_loads"]), d["retained"]) for d in docs.values()} == {
        ("OPTIMAL", (2, 1, 1), 3)
    }


def test_objective_override(capsys):
    code, out, _ = run(capsys, "solve", EXAMPLES["kip54-example-3-rebalance"], "--objective", "stickiness,balance")
    doc = json.loads(out)
    assert code == 0 and doc["objective_order"] == ["stickiness", "balance"]
    assert doc["retained"] == 4 and doc["sorted_loads"] == [2, 2, 0]


def write(tmp_path, name, doc):
    path = tmp_path / name
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return path


def test_check_exit_codes(tmp_path, capsys):
    gap = write(tmp_path, "gap.json", {"assignment": {"c0": {"t0": [0]}, "c1": {"t1": [0, 1]}, "c2": {}}})
    code, out, _ = run(capsys, "check", CHAIN, gap)
    assert code == 1
    assert "improving-chain: t1-0: c1 → c0 → t0-0: c0 → c2" in out
    assert "kafka-local-condition: holds" in out

    invalid = write(tmp_path, "bad.json", {"assignment": {"c0": {"t0": [0, 0]}, "c2": {"t1": [0]}}})
    code, out, _ = run(capsys, "check", CHAIN, invalid, "--json")
    verdict = json.loads(out)
    assert code == 3 and not verdict["valid"]
    assert {v["kind"] for v in verdict["violations"]} == {"duplicated", "not-subscribed", "missing"}

    solved = tmp_path / "solved.json"
    run(capsys, "solve", CHAIN, "-o", solved)
    doc = json.loads(solved.read_text())
    doc["certificate"]["prices"]["c2"] = 10**6  # far above c2's next unit cost
    tampered = write(tmp_path, "tampered.json", doc)
    code, out, _ = run(capsys, "check", CHAIN, tampered)
    assert code == 4 and "certificate: the certificate given does not verify" in out


@pytest.mark.parametrize(
    "content, words",
    [
        ("{not json", "not valid JSON"),
        ('{"topics": {"a": 1, "a": 1}, "members": {}}', "duplicate JSON key"),
        ('{"topics": {"a": 1}, "members": {}, "extra": 1}', "extra: unknown key"),
        ('{"topics": {"a": "1"}, "members": {}}', "topics.a: must be an integer"),
        ('{"topics": {"a": 1.5}, "members": {}}', "topics.a: must be an integer"),
        ('{"topics": {"a": 0}, "members": {}}', "topics.a: must be positive"),
        ('{"topics": {"a": 1}, "members": {"m": {"topics": ["a"], "owned": {"a": [-1]}}}}', "members.m.owned.a[0]"),
    ],
)
def test_bad_scenarios_exit_2_with_one_line(tmp_path, capsys, content, words):
    path = write(tmp_path, "s.json", content)
    code, out, err = run(capsys, "solve", path)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and str(path) in err and words in err


def test_unreadable_files_and_bad_flags(tmp_path, capsys):
    code, _, err = run(capsys, "solve", tmp_path / "nope.json")
    assert code == 2 and "cannot read file" in err
    code, _, err = run(capsys, "solve", CHAIN, "--objective", "balance")
    assert code == 2 and "--objective" in err
    code, _, err = run(capsys, "solve", CHAIN, "--method", "cpsat", "--time-limit", "-1")
    assert code == 2 and "--time-limit" in err
    code, _, err = run(capsys, "check", CHAIN, write(tmp_path, "a.json", {"assignment": {"c0": {"t0": [-4]}}}))
    assert code == 2 and "assignment.c0.t0[0]" in err


def test_tolerated_input_is_reported_not_fatal(tmp_path, capsys):
    path = write(
        tmp_path,
        "s.json",
        {
            "topics": {"a": 2, "quiet": 1},
            "members": {"m": {"topics": ["a", "gone"], "owned": {"a": [0, 9], "gone": [1]}, "generation": 2}},
        },
    )
    code, out, _ = run(capsys, "solve", path)
    doc = json.loads(out)
    assert code == 0
    assert doc["unsubscribed_topics"] == ["quiet"]
    assert doc["missing_topics"] == {"m": ["gone"]}
    assert {(d["topic"], tuple(d["partitions"]), d["reason"]) for d in doc["dropped_claims"]} == {
        ("a", (9,), "no-such-partition"),
        ("gone", (1,), "unknown-topic"),
    }
    assert doc["assignment"] == {"m": {"a": [0, 1]}}


def test_empty_group(tmp_path, capsys):
    code, out, _ = run(capsys, "solve", write(tmp_path, "s.json", {"topics": {"a": 3}, "members": {}}))
    doc = json.loads(out)
    assert code == 0 and doc["assignment"] == {} and doc["unsubscribed_topics"] == ["a"]


def test_demo_solves_and_checks_every_example(capsys):
    code, out, _ = run(capsys, "demo")
    assert code == 0
    assert out.count("OPTIMAL") == len(EXAMPLES)


def test_console_script_reports_bad_input_without_traceback(tmp_path):
    exe = shutil.which("assignment-oracle") or str(Path(sys.executable).parent / "assignment-oracle")
    bad = write(tmp_path, "s.json", '{"topics": {"a": -1}, "members": {}}')
    result = subprocess.run([exe, "solve", str(bad)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1


def test_no_topics_at_all_with_a_claim(tmp_path, capsys):
    path = write(tmp_path, "s.json", {"topics": {}, "members": {"a": {"topics": ["x"], "owned": {"x": [0]}}}})
    code, out, _ = run(capsys, "solve", path)
    doc = json.loads(out)
    assert code == 0 and doc["assignment"] == {"a": {}} and doc["missing_topics"] == {"a": ["x"]}


# -- assign / assignors -----------------------------------------------------


def test_assignors_lists_every_registered_name(capsys):
    from assignment_oracle.heuristics import ASSIGNORS, PEERS
    from assignment_oracle.heuristics.registry import CLIENT_PEERS, LIVE_PEERS, SHARE_ASSIGNORS, STREAMS_ASSIGNORS

    code, out, _ = run(capsys, "assignors")
    assert code == 0
    header, *lines = out.splitlines()
    assert header.split()[:2] == ["name", "kind"]
    consumer = [*ASSIGNORS, *PEERS, *LIVE_PEERS, *CLIENT_PEERS, "external:COMMAND", "java:CLASS"]
    assert [line.split()[0] for line in lines] == [*consumer, *STREAMS_ASSIGNORS, *SHARE_ASSIGNORS]
    kinds = {line.split()[0]: line.split()[1] for line in lines}
    assert STREAMS_ASSIGNORS and all(kinds[name] == "streams" for name in STREAMS_ASSIGNORS)
    assert SHARE_ASSIGNORS and all(kinds[name] == "share" for name in SHARE_ASSIGNORS)
    assert all(kinds[name] == "consumer" for name in consumer)


def test_assign_then_check_reads_the_output(tmp_path, capsys):
    """``assign`` writes what ``check`` reads; sticky on KIP-54 example 2 is optimal."""
    out_file = tmp_path / "sticky.json"
    assert run(capsys, "assign", EXAMPLES["kip54-example-2-rebalance"], "--assignor", "sticky", "-o", out_file)[0] == 0
    document = json.loads(out_file.read_text())
    assert document["valid"] is True and document["retained"] == document["owned"] == 5
    code, out, _ = run(capsys, "check", EXAMPLES["kip54-example-2-rebalance"], out_file)
    assert code == 0, out


def test_assign_round_robin_has_a_gap_check_reports(tmp_path, capsys):
    """Round robin after C0 leaves KIP-54 example 2 (from sticky's previous
    table) gives the seed's 2/4 table: C1 keeps t1p1, C2 keeps t2p0-2, 4 of 5;
    loads 2/4 are not most balanced, so check says gap (exit 1)."""
    out_file = tmp_path / "rr.json"
    run(capsys, "assign", EXAMPLES["kip54-example-2-rebalance"], "--assignor", "roundrobin", "-o", out_file)
    document = json.loads(out_file.read_text())
    assert document["retained"] == 4 and document["sorted_loads"] == [4, 2]
    assert run(capsys, "check", EXAMPLES["kip54-example-2-rebalance"], out_file)[0] == 1


def test_assign_cooperative_writes_every_phase(capsys):
    code, out, _ = run(capsys, "assign", EXAMPLES["kip54-example-3-rebalance"], "--assignor", "cooperative-sticky")
    document = json.loads(out)
    assert code == 0 and document["rebalances"] == 2 and len(document["phases"]) == 2
    revoked = document["revoked"]
    assert sum(len(ps) for ts in revoked.values() for ps in ts.values()) == 1
    assert document["phases"][-1]["assignment"] == document["assignment"]
    # What the first rebalance revokes is what it withheld from its new owner, who gets it in the second.
    ((member, topics),) = document["phases"][0]["withheld"].items()
    assert {(t, p) for t, ps in topics.items() for p in ps} == {
        (t, p) for ts in revoked.values() for t, ps in ts.items() for p in ps
    }
    assert all(set(ps) <= set(document["assignment"][member][t]) for t, ps in topics.items())
    assert document["phases"][1]["withheld"] == {}


def test_assign_kip54_duplicate_is_reported_not_hidden(tmp_path, capsys):
    scenario = tmp_path / "zombie.json"
    scenario.write_text(
        json.dumps(
            {
                "topics": {"t": 2},
                "members": {
                    "a": {"topics": ["t"], "owned": {"t": [1]}, "generation": 2},
                    "b": {"topics": ["t"], "owned": {"t": [0]}, "generation": 2},
                    "c": {"topics": ["t"], "owned": {"t": [0]}, "generation": 1},
                },
            }
        )
    )
    code, out, err = run(capsys, "assign", scenario, "--assignor", "sticky-kip54")
    document = json.loads(out)
    assert code == 0 and document["valid"] is False
    assert document["violations"] == [
        {"kind": "duplicated", "topic": "t", "partitions": [0], "detail": "assigned more than once"}
    ]
    assert "invalid assignment (duplicated)" in err
    assert json.loads(run(capsys, "assign", scenario, "--assignor", "sticky")[1])["valid"] is True


def test_assign_unknown_assignor_is_one_line_exit_2(capsys):
    code, out, err = run(capsys, "assign", CHAIN, "--assignor", "stiky")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "unknown assignor 'stiky'" in err and "sticky" in err


# -- compare / explain / bugs -----------------------------------------------


def test_compare_table_and_json(capsys):
    code, out, _ = run(capsys, "compare", CHAIN, "--assignors", "sticky,fair")
    lines = out.splitlines()
    assert (
        code == 0
        and lines[1].startswith("assignor")
        and [row.split()[0] for row in lines[3:]] == ["optimum", "sticky", "fair"]
    )
    code, out, _ = run(capsys, "compare", CHAIN, "--json")
    document = json.loads(out)
    assert [r["assignor"] for r in document["rows"]][:2] == ["optimum", "range"]
    assert "wall_time_s" not in document["rows"][0]
    assert out == run(capsys, "compare", CHAIN, "--json")[1]  # byte-stable without --timing


def test_compare_on_a_rack_aware_scenario_shows_cross_rack_gaps(capsys):
    """KIP-881 racks: every assignor's cross-rack count next to the rack-aware optimum's, and the
    KIP-848 server assignors and the Kafka 4 client family among the rows."""
    racks = EXAMPLES["kip881-racks-rebalance"]
    code, out, _ = run(capsys, "compare", racks, "--json")
    rows = {r["assignor"]: r for r in json.loads(out)["rows"]}
    assert code == 0 and {"uniform", "server-range", "kafka4-sticky", "kafka4-cooperative-sticky"} <= set(rows)
    optimum = rows["optimum"]
    assert optimum["optimal_cross_rack"] == optimum["cross_rack"]
    for row in rows.values():
        if row.get("most_balanced"):  # the optimum is the most rack-local of the most balanced
            assert row["cross_rack"] >= optimum["cross_rack"]
    # Brute force is out of reach here; the oracle's own certificate and the other model judge it.
    problem = read_problem(racks)
    assert solve(problem, method="cpsat").objective == solve(problem).objective
    assert solve(problem).cross_rack == optimum["cross_rack"]
    code, out, _ = run(capsys, "compare", racks)
    assert code == 0 and "cross-rack/opt" in out.splitlines()[1]
    # Seed-era sticky ignores racks: a gap the table shows (KIP-881 is not in it).
    assert rows["sticky"]["most_balanced"] and rows["sticky"]["cross_rack"] > optimum["cross_rack"]


def test_compare_unknown_assignor_is_exit_2(capsys):
    code, out, err = run(capsys, "compare", CHAIN, "--assignors", "sticky,nope")
    assert code == 2 and "unknown assignor 'nope'" in err and out == ""


def test_explain_gives_the_chain_for_stickys_9_10_11(tmp_path, capsys):
    """The chain-move example: sticky keeps 2/1/0; explain names the chain (exit 1, a gap)."""
    candidate = tmp_path / "sticky.json"
    run(capsys, "assign", CHAIN, "--assignor", "sticky", "-o", candidate)
    code, out, _ = run(capsys, "explain", CHAIN, candidate)
    assert code == 1 and out.startswith("not most balanced") and "improving chain: " in out
    code, out, _ = run(capsys, "explain", CHAIN, candidate, "--json")
    assert json.loads(out)["kind"] == "balance"
    solved = tmp_path / "optimum.json"
    run(capsys, "solve", CHAIN, "-o", solved)
    assert run(capsys, "explain", CHAIN, solved)[0] == 0


def test_explain_runs_the_assignor_itself_and_reads_counterexample_files(tmp_path, capsys):
    candidate = tmp_path / "sticky.json"
    run(capsys, "assign", CHAIN, "--assignor", "sticky", "-o", candidate)
    from_file = run(capsys, "explain", CHAIN, candidate)
    assert run(capsys, "explain", CHAIN, "--assignor", "sticky") == from_file
    # A sweep's counterexample file is its scenario, for every command that takes one.
    wrapped = tmp_path / "counterexample.json"
    wrapped.write_text(
        json.dumps({"assignor": "sticky", "finding": "chain", "scenario": json.loads(Path(CHAIN).read_text())})
    )
    assert run(capsys, "explain", wrapped, "--assignor", "sticky") == from_file
    assert run(capsys, "compare", wrapped, "--json")[1] == run(capsys, "compare", CHAIN, "--json")[1]
    for args in ((CHAIN,), (CHAIN, candidate, "--assignor", "sticky")):
        code, out, err = run(capsys, "explain", *args)
        assert code == 2 and "an assignment file or --assignor NAME" in err and err.count("\n") == 1
    code, _, err = run(capsys, "explain", CHAIN, "--assignor", "nope")
    assert code == 2 and "unknown assignor 'nope'" in err


def test_bugs_replays_the_corpus(capsys):
    code, out, _ = run(capsys, "bugs")
    assert code == 0 and out.count("as expected (") == out.count("source: ") >= 7
    code, out, err = run(capsys, "bugs", "kafka-0")
    assert code == 2 and "no corpus entry 'kafka-0'" in err


def test_bugs_finds_entries_by_jira_key_as_jira_spells_it(capsys):
    code, out, _ = run(capsys, "bugs", "KAFKA-7026")
    assert code == 0 and out.startswith("kafka-7026: ") and out.count("source: ") == 1
    code, out, _ = run(capsys, "bugs", "KAFKA-12984")  # one key, two entries
    assert code == 0 and [
        line.split(":")[0] for line in out.splitlines() if "source: " not in line and line and not line.startswith(" ")
    ] == ["kafka-12984-equal-generation", "kafka-12984-claim-order"]


def test_simulate_a_bundled_history_and_a_seeded_one(capsys):
    code, out, _ = run(capsys, "simulate", "rolling-restart-zombie", "--assignor", "sticky")
    assert code == 0 and out.splitlines()[2].startswith("0 ") and "the oracle's own trajectory moved" in out
    code, out, _ = run(capsys, "simulate", "--seed", "7", "--assignor", "range", "--json")
    document = json.loads(out)
    assert code == 0 and document["assignor"] == "range"
    assert out == run(capsys, "simulate", "--seed", "7", "--assignor", "range", "--json")[1]  # deterministic


def test_simulate_bad_input_is_one_line_exit_2(capsys, tmp_path):
    assert run(capsys, "simulate", "--assignor", "sticky")[0] == 2
    bad = tmp_path / "h.json"
    bad.write_text(json.dumps({"topics": {"t": 2}, "members": {"a": {"topics": ["t"]}}, "rounds": [[{"leave": "zz"}]]}))
    code, _, err = run(capsys, "simulate", bad, "--assignor", "sticky")
    assert code == 2 and err.count("\n") == 1 and "rounds[0][0].leave" in err


def test_sweep_bad_input_is_one_line_before_spark_starts(capsys, tmp_path):
    bad = tmp_path / "s.toml"
    bad.write_text('seeds = 0\n[[families]]\nfamily = "uniform"\n')
    code, out, err = run(capsys, "sweep", bad, "--out", tmp_path / "o")
    assert (
        code == 2 and out == "" and err.count("\n") == 1 and "seeds: must be a count from 1 to 1,000,000, got 0" in err
    )
    code, _, err = run(capsys, "sweep", "quick", "--out", tmp_path / "o", "--master", "yarn")
    assert code == 2 and "--master" in err
    code, _, err = run(capsys, "sweep", "nonesuch", "--out", tmp_path / "o")
    assert code == 2 and "not a bundled spec" in err


# -- safe edges: never over an input, never half a file, never an allocation the machine cannot hold ------------


@pytest.mark.parametrize("command", [["solve"], ["assign", "--assignor", "range"]])
def test_an_output_that_is_an_input_is_refused_and_the_input_kept(tmp_path, capsys, command):
    scenario = tmp_path / "s.json"
    shutil.copy(CHAIN, scenario)
    before = scenario.read_bytes()
    (tmp_path / "alias.json").symlink_to(scenario)
    for output in (scenario, tmp_path / "alias.json", tmp_path / "." / "s.json"):
        code, out, err = run(capsys, command[0], str(scenario), *command[1:], "-o", str(output))
        assert code == 2 and "is also an input of this command" in err and err.count("\n") == 1
        assert scenario.read_bytes() == before


def test_outputs_are_replaced_whole_and_leave_no_temporary_files(tmp_path, capsys):
    target = tmp_path / "out.json"
    target.write_text("old")
    target.chmod(0o640)
    assert run(capsys, "solve", CHAIN, "-o", str(target))[0] == 0
    assert json.loads(target.read_text())["status"] == "OPTIMAL"
    assert target.stat().st_mode & 0o777 == 0o640  # the user's file keeps its permissions
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
    (tmp_path / "dir.json").mkdir()  # cannot be replaced by a file: an error, and nothing left behind
    code, _, err = run(capsys, "solve", CHAIN, "-o", str(tmp_path / "dir.json"))
    assert code == 2 and "cannot write file" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.json", "out.json"]


def test_a_scenario_beyond_the_partition_limit_is_refused_before_allocating(tmp_path, capsys):
    scenario = tmp_path / "huge.json"
    scenario.write_text('{"topics": {"t": 1000000000, "u": 7}, "members": {"a": {"topics": ["t"]}}}')
    for command, limit in (
        (["solve"], "100,000,000"),
        (["assign", "--assignor", "range"], "100,000,000"),
        (["compare"], "10,000,000"),
    ):
        code, _, err = run(capsys, command[0], str(scenario), *command[1:])
        assert code == 2 and f"1,000,000,007 partitions in all, more than the limit of {limit}" in err
    small = tmp_path / "small.json"
    small.write_text('{"topics": {"t": 5}, "members": {"a": {"topics": ["t"]}}}')
    code, _, err = run(capsys, "solve", str(small), "--max-partitions", "4")
    assert code == 2 and "5 partitions in all, more than the limit of 4" in err
    assert run(capsys, "solve", str(small), "--max-partitions", "5")[0] == 0
    history = tmp_path / "history.json"
    history.write_text(
        '{"topics": {"t": 5}, "members": {"a": {"topics": ["t"]}}, "rounds": [[{"partitions": "t", "count": 2147483647}]]}'
    )
    code, _, err = run(capsys, "simulate", str(history), "--assignor", "sticky")
    assert code == 2 and "2,147,483,647 partitions in all at round 1, more than the limit of 100,000,000" in err


def test_the_collector_paused_for_a_one_shot_command_is_running_again_after_it(capsys):
    import gc

    assert gc.isenabled()
    assert run(capsys, "solve", CHAIN)[0] == 0
    assert run(capsys, "solve", str(CHAIN) + ".missing")[0] == 2  # also after an error
    assert gc.isenabled()


@pytest.mark.slow  # signals, as the other signal tests: CI runs it with the slow ones
@pytest.mark.parametrize(("signum", "status", "said"), [("SIGINT", 130, "interrupted"), ("SIGTERM", 143, "terminated")])
def test_ctrl_c_or_sigterm_during_a_staged_solve_stops_it_and_writes_nothing(tmp_path, signum, status, said):
    """CP-SAT would catch SIGINT itself and the solve would go on and overwrite the output; Ctrl-C (or
    SIGTERM) stops the search, exits 130 (143) with one line, and the existing output file is left as it was."""
    import signal
    import subprocess
    import sys
    import time

    rng = __import__("numpy").random.default_rng(7)
    weights = [int(x) for x in rng.integers(10**6, 10**7, size=200)]
    scenario = tmp_path / "hard.json"
    scenario.write_text(
        json.dumps(
            {
                "topics": {"t": 200},
                "weights": {"t": weights},
                "members": {f"m{i}": {"topics": ["t"]} for i in range(13)},
            }
        )
    )
    out = tmp_path / "out.json"
    out.write_text('{"assignment": {}}\n')
    code = "import sys; from assignment_oracle.cli import main; sys.exit(main(sys.argv[1:]))"
    child = subprocess.Popen(
        [sys.executable, "-c", code, "solve", str(scenario), "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(4)  # past start-up: in the staged model's first stage
    assert child.poll() is None, "the weighted solve was expected to run longer than 4 s"
    child.send_signal(getattr(signal, signum))
    _, err = child.communicate(timeout=30)  # stopped: not run to the time limit (60 s), else TimeoutExpired
    assert child.returncode == status and err.count("\n") == 1 and said in err and "Traceback" not in err
    assert out.read_text() == '{"assignment": {}}\n'


@pytest.mark.parametrize("flags", [("--max-moves", "1"), ("--objective", "balance,spread,stickiness")])
def test_compare_judges_every_row_against_the_asked_requests_optimum(capsys, flags):
    """`compare` with request flags: the request's optimum is the brute force's, and a row is optimal
    under it exactly when it is valid under the request and equal to that optimum on every tier."""
    from assignment_oracle.optimal import Request
    from assignment_oracle.optimal.brute_force import previous_owners, request_optimum

    scenario = EXAMPLES["kip54-example-2-rebalance"]
    problem = read_problem(scenario)
    code, out, _ = run(capsys, "compare", scenario, "--json", "--assignors", "sticky,roundrobin,range", *flags)
    assert code == 0
    document = json.loads(out)
    asked = document["request"]
    request = Request(
        objective=tuple(asked["objective"]),
        max_moves=asked["max_moves"],
    )
    expected = request_optimum(problem, request)
    assert [t["value"] for t in asked["optimum_tiers"]] == expected and asked["optimum_status"] == "OPTIMAL"
    from assignment_oracle.compare.judge.evaluate import compare

    # The rows' assignments, from the library (the JSON rows carry measures, not assignments).
    assignments = {r.assignor: r.assignment for r in compare(problem, ["sticky", "roundrobin", "range"]).rows}
    previous = previous_owners(problem)
    for row in document["rows"]:
        verdict = row["request"]
        given = assignments[row["assignor"]]
        owner = {(t, p): m for m, topics in given.members.items() for t, ps in topics.items() for p in ps}
        moved = sum(1 for tp, m in previous.items() if owner.get(tp) != m)
        over = request.max_moves is not None and moved > request.max_moves
        if not row["valid"] or over:
            assert verdict["verdict"] == "invalid"
            continue
        values = [t["value"] for t in verdict["tiers"]]
        assert (verdict["verdict"] == "optimal") == (values == expected), (row["assignor"], values, expected)
    code, text, _ = run(capsys, "compare", scenario, "--assignors", "sticky", *flags)
    assert "against the optimum of the request" in text


def test_demo_out_onto_a_file_is_one_line_and_leaves_it(tmp_path, capsys):
    taken = tmp_path / "taken"
    taken.write_text("mine\n")
    code, out, err = run(capsys, "demo", "--out", taken)
    assert code == 2 and out == "" and err.count("\n") == 1 and "must be a folder" in err
    assert taken.read_text() == "mine\n"


def test_no_arguments_lists_every_command_in_one_line_each(capsys):
    from assignment_oracle.cli import COMMANDS

    assert main([]) == 2
    out = capsys.readouterr().out
    for name, text in COMMANDS.items():
        assert re.search(rf"^  {name} +{re.escape(text)}$", out, re.M), name
    assert "assignment-oracle demo" in out


def test_help_and_version_import_none_of_the_library():
    """The front answers --help, --version and the overview without numpy, OR-Tools or the library."""
    probe = (
        "import sys\n"
        "from assignment_oracle.cli import main\n"
        "for argv in ([], ['--version'], ['--help']):\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'ortools', 'networkx', 'pandas')"
        " or m.startswith(('assignment_oracle.problem', 'assignment_oracle.optimal', 'assignment_oracle.commands')))\n"
        "print('HEAVY', heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "HEAVY []" in done.stdout, done.stdout[-500:]
    assert re.search(r"^assignment-oracle \S+$", done.stdout, re.M)  # --version


def test_a_reader_that_goes_away_stops_the_command_quietly():
    """`assignment-oracle demo | head -1`: exit 141 (as the shell reports SIGPIPE), nothing on stderr."""
    process = subprocess.Popen(
        [sys.executable, "-m", "assignment_oracle", "demo"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None and process.stdout.readline().startswith(b"chain-move: oracle OPTIMAL")
    process.stdout.close()
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 141 and stderr == b"", stderr.decode()[-2000:]


def on_terminal(argv: list[str]) -> tuple[int, bytes, bytes]:
    """Run ``argv`` with stderr (and stdin) on a 100-column pseudo-terminal, stdout piped: its exit
    code, stdout, and everything the terminal was shown."""
    import fcntl
    import pty
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a 100-column terminal
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=follower, stdin=follower)
    os.close(follower)
    shown = bytearray()

    def read_terminal() -> None:  # while it runs: a closed terminal's unread output is dropped
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the other end is closed: all read
                return
            if not chunk:
                return
            shown.extend(chunk)

    reader = threading.Thread(target=read_terminal, daemon=True)
    reader.start()
    stdout, _ = process.communicate(timeout=120)
    reader.join(timeout=10)
    os.close(leader)
    return process.returncode, stdout, bytes(shown)


def test_compare_shows_progress_on_a_terminal_and_nothing_in_a_pipe(tmp_path):
    """On a terminal, a bar names each step on stderr (drawn after tqdm's first 0.1 s); through pipes,
    stderr stays empty."""
    example = tmp_path / "group.json"  # large enough to take a second or so
    topics = {f"t{i}": 200 for i in range(20)}
    example.write_text(
        json.dumps({"topics": topics, "members": {f"m{i}": {"topics": list(topics)} for i in range(300)}})
    )
    argv = [
        sys.executable,
        "-m",
        "assignment_oracle",
        "compare",
        str(example),
        "--assignors",
        "range,sticky,cooperative-sticky",
    ]
    piped = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert piped.returncode == 0 and piped.stderr == "" and "range" in piped.stdout
    returncode, stdout, shown = on_terminal(argv)
    # Times masked, and the runs of spaces and dashes their width sets (a 1000 ms step widens the column).
    untimed = lambda text: re.sub(r"-{2,}", "--", re.sub(r" +\d+\.\d+ ms", "", text))  # noqa: E731
    assert returncode == 0 and untimed(stdout.decode()) == untimed(piped.stdout)
    assert b"compare" in shown and b"step" in shown and b"cooperative-sticky" in shown, shown[-500:]


def test_simulate_shows_each_round_on_a_terminal_and_nothing_in_a_pipe():
    """A churn history's rounds are counted on a terminal (``round K of N``); through pipes stderr stays
    empty; the table is the same either way."""
    argv = [sys.executable, "-m", "assignment_oracle", "simulate", "--seed", "3", "--members", "300"]
    argv += ["--topics", "20", "--partitions", "100", "--rounds", "6", "--assignor", "sticky"]
    piped = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert piped.returncode == 0 and piped.stderr == ""
    returncode, stdout, shown = on_terminal(argv)
    assert returncode == 0 and stdout.decode() == piped.stdout
    assert b"simulate sticky" in shown and b"round 6 of 6" in shown, shown[-500:]


def test_solve_with_a_time_limit_shows_the_clock_on_a_terminal_and_nothing_in_a_pipe(tmp_path):
    """CP-SAT on weighted loads runs to its limit here (even weights: the loads within one of each
    other, 3,850 and 3,851, are out of reach, so no start meets the balance's bound and the levels are
    searched): on a terminal a bar counts the seconds against the limit; through a pipe stderr holds
    only the one-line FEASIBLE verdict. The answer is the same."""
    rng = random.Random(1)
    topics = {f"t{i}": 12 for i in range(10)}
    weights = {t: [2 * rng.randint(1, 500) for _ in range(12)] for t in topics}
    example = tmp_path / "weighted.json"
    example.write_text(
        json.dumps(
            {"topics": topics, "members": {f"m{i}": {"topics": list(topics)} for i in range(17)}, "weights": weights}
        )
    )
    argv = [sys.executable, "-m", "assignment_oracle", "solve", str(example), "--time-limit", "2"]
    piped = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert piped.returncode == 1 and piped.stderr.count("\n") == 1 and "FEASIBLE" in piped.stderr
    assert "time limit" not in piped.stderr
    returncode, stdout, shown = on_terminal(argv)
    assert returncode == 1 and json.loads(stdout)["status"] == json.loads(piped.stdout)["status"]
    assert b"solve (time limit 2 s)" in shown and b"/2 s" in shown, shown[-500:]


KAFKA_MAX_QUOTA_TEST = {  # AbstractStickyAssignorTest.testMaxQuotaConsumerMoreThanNumExpectedMaxCapacityMembers
    "topics": {"topic1": 2, "topic2": 2},
    "members": {
        "consumer1": {"topics": ["topic1", "topic2"], "owned": {"topic1": [0], "topic2": [0]}, "generation": 1},
        "consumer2": {"topics": ["topic1", "topic2"], "owned": {"topic1": [1], "topic2": [1]}, "generation": 1},
        "consumer3": {"topics": ["topic1", "topic2"], "generation": 1},
    },
}


@pytest.mark.parametrize("assignor", ["kafka4-sticky", "kafka4-cooperative-sticky"])
def test_assign_in_javas_iteration_order_gives_kafkas_own_expected_answer(tmp_path, capsys, assignor):
    """Kafka's test expects consumer2 to keep both claims (Java iterates consumer3, consumer2, consumer1);
    the default sorted order gives the mirror image, consumer1 keeping both."""
    scenario = tmp_path / "kafka.json"
    scenario.write_text(json.dumps(KAFKA_MAX_QUOTA_TEST))
    code, out, err = run(capsys, "assign", str(scenario), "--assignor", assignor, "--iteration-order", "java")
    assert code == 0 and err == ""
    assert json.loads(out)["assignment"] == {
        "consumer1": {"topic1": [0]},
        "consumer2": {"topic1": [1], "topic2": [1]},
        "consumer3": {"topic2": [0]},
    }
    code, out, _ = run(capsys, "assign", str(scenario), "--assignor", assignor)
    assert code == 0 and json.loads(out)["assignment"]["consumer1"] == {"topic1": [0], "topic2": [0]}


OLDER_STICKY_CASES = [  # (assignor, scenario, Kafka's answer, the sorted order's)
    (
        "sticky",  # Kafka 2.3.1 moves t0-1, listed first in HashMap<TopicPartition> order; the sorted order t0-0
        {
            "topics": {"t0": 2},
            "members": {"c0": {"topics": ["t0"]}, "c1": {"topics": ["t0"], "owned": {"t0": [0, 1]}, "generation": 1}},
        },
        {"c0": {"t0": [1]}, "c1": {"t0": [0]}},
        {"c0": {"t0": [0]}, "c1": {"t0": [1]}},
    ),
    (
        "cooperative-sticky",  # Kafka 2.4.1 revokes t0-1 for c0 (then the follow-up hands it over)
        {"topics": {"t0": 2}, "members": {"c0": {"topics": ["t0"]}, "c1": {"topics": ["t0"], "owned": {"t0": [0, 1]}}}},
        {"c0": {"t0": [1]}, "c1": {"t0": [0]}},
        {"c0": {"t0": [0]}, "c1": {"t0": [1]}},
    ),
    (
        "sticky-kip54",  # Kafka 2.0.1: c1's user data lists d5 (same bucket as q2, put first) first, and d5-1 moves
        {
            "topics": {"d5": 2, "q2": 6},
            "members": {
                "c0": {"topics": ["d5", "q2"]},
                "c1": {"topics": ["d5", "q2"], "owned": {"d5": [1], "q2": [0, 2, 5]}},
                "c2": {"topics": ["d5", "q2"]},
            },
        },
        {"c0": {"d5": [1], "q2": [1, 4]}, "c1": {"q2": [0, 2, 5]}, "c2": {"d5": [0], "q2": [3]}},
        {"c0": {"d5": [0, 1], "q2": [3]}, "c1": {"q2": [0, 2, 5]}, "c2": {"q2": [1, 4]}},
    ),
]


@pytest.mark.parametrize("assignor, scenario, kafka, ours", OLDER_STICKY_CASES)
def test_the_older_sticky_ports_in_javas_order_give_kafkas_answers(tmp_path, capsys, assignor, scenario, kafka, ours):
    """Kafka's own answers, from tools/kafka_differential/legacy.py against the apache/kafka tag each port
    follows (2.3.1, 2.4.1, 2.0.1); the default sorted order differs."""
    path = tmp_path / "older.json"
    path.write_text(json.dumps(scenario))
    code, out, err = run(capsys, "assign", str(path), "--assignor", assignor, "--iteration-order", "java")
    assert code == 0 and err == ""
    assert json.loads(out)["assignment"] == kafka
    code, out, _ = run(capsys, "assign", str(path), "--assignor", assignor)
    assert code == 0 and json.loads(out)["assignment"] == ours


def test_assign_in_javas_order_is_refused_in_one_line_where_a_port_cannot_yet(tmp_path, capsys):
    scenario = tmp_path / "kafka.json"
    scenario.write_text(json.dumps(KAFKA_MAX_QUOTA_TEST))
    code, out, err = run(
        capsys, "assign", str(scenario), "--assignor", "stream-join-sticky", "--iteration-order", "java"
    )
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--iteration-order" in err and "kafka4-sticky" in err
    # uniform iterates topic ids as Java does: a scenario without them is refused, naming the first topic.
    code, out, err = run(capsys, "assign", str(scenario), "--assignor", "uniform", "--iteration-order", "java")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert (
        err.startswith(f"assignment-oracle: error: {scenario}: topics.topic1.id: missing")
        and "2 subscribed topic(s)" in err
    )
    code, out, _ = run(capsys, "assign", str(scenario), "--assignor", "range", "--iteration-order", "java")
    assert code == 0  # range sorts what it iterates: the order changes nothing
