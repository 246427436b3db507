"""The command line for CI in any language (issue 39): --fail-on, '-' for standard input, generate,
bugs --scenario/--assignor, the kind column of assignors, every command's --help."""

import json
import subprocess
import sys

import pytest

from assignment_oracle.cli import bundled_examples, main
from assignment_oracle.program import COMMANDS

EXAMPLES = {p.stem: p for p in bundled_examples()}
# KIP-54's second example: C1 owned t1's two partitions, C2 t2's three; t0's one partition is new.  Range
# gives C2 t0-0, t1-1 and t2's three (loads 2/4 where 3/3 exists): valid, with a balance gap; sticky reaches
# 3/3 keeping all five owned partitions: optimal.
KIP54_2 = EXAMPLES["kip54-example-2-rebalance"]
UNEVEN = {
    "topics": {"t": 4},
    "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}},
}


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def cli(*argv, stdin: str | None = None):
    """The installed program in a child process (standard input given as text)."""
    done = subprocess.run(
        [sys.executable, "-m", "assignment_oracle", *map(str, argv)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode, done.stdout, done.stderr


# -- --fail-on ------------------------------------------------------------------------------------------------


def test_fail_on_gap_names_the_rows_with_a_gap(capsys):
    code, out, err = run(capsys, "compare", KIP54_2, "--assignors", "range,sticky", "--fail-on", "gap")
    assert code == 1
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("assignment-oracle: --fail-on gap: range: gap")
    assert "sticky" not in err  # optimal: not named; the optimum's own row never counts
    assert "optimum" not in err


def test_fail_on_is_a_ladder(capsys):
    # range is valid and keeps its own guarantee here (per-topic balance: t1's two partitions 1/1 and t2's
    # three on one subscriber... each topic as even as its subscribers allow): invalid and guarantee pass.
    for condition in ("invalid", "guarantee"):
        code, _, err = run(capsys, "compare", KIP54_2, "--assignors", "range,sticky", "--fail-on", condition)
        assert (code, err) == (0, "")
    code, _, _ = run(capsys, "compare", KIP54_2, "--assignors", "range,sticky")  # default: unchanged
    assert code == 0


def test_fail_on_invalid_catches_an_invalid_external_assignor(tmp_path, capsys):
    # An assignor that gives every partition to every member: t-0 twice, invalid.
    script = tmp_path / "twice.py"
    script.write_text(
        "import json, sys\n"
        "req = json.load(sys.stdin)\n"
        "members = sorted(req['members'])\n"
        "json.dump({'assignment': {m: {'t': [0, 1, 2, 3]} for m in members}}, sys.stdout)\n"
    )
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps(UNEVEN))
    code, _, err = run(
        capsys, "compare", scenario, "--assignors", f"range,external:{sys.executable} {script}", "--fail-on", "invalid"
    )
    if "external" in err and "protocol" in err and code == 2:  # pragma: no cover - the protocol's own refusal
        pytest.skip("external protocol differs")
    assert code == 1
    named = [line for line in err.splitlines() if "--fail-on invalid" in line]
    assert len(named) == 1 and "external:" in named[0] and "invalid" in named[0]


def test_fail_on_streams_rows(capsys):
    # streams-rack-tags: Kafka's StickyTaskAssignor is judged against the optimum; with --fail-on invalid
    # it passes (Kafka's answer is valid on the bundled examples), the rows are Streams rows.
    code, _, err = run(capsys, "compare", EXAMPLES["streams-fresh"], "--fail-on", "invalid")
    assert (code, err) == (0, "")


def test_fail_on_refuses_an_unknown_condition(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["compare", str(KIP54_2), "--fail-on", "slow"])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and err.count("\n") == 1 and "--fail-on" in err


# -- '-': standard input --------------------------------------------------------------------------------------


def test_dash_reads_the_scenario_and_the_assignment_from_standard_input(tmp_path):
    scenario = KIP54_2.read_text()
    code, answer, _ = cli("assign", "-", "--assignor", "range", stdin=scenario)
    assert code == 0
    # the scenario from a file, range's answer from standard input: range's 2/4 is a gap (exit 1)
    code, out, _ = cli("check", KIP54_2, "-", stdin=answer)
    assert code == 1 and "valid: yes" in out
    # and the reverse: the scenario piped, the answer from a file
    path = tmp_path / "range.json"
    path.write_text(answer)
    assert cli("check", "-", path, stdin=scenario)[0] == 1


def test_dash_twice_is_one_line(capsys):
    code, out, err = run(capsys, "check", "-", "-")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "both '-'" in err


def test_bad_standard_input_names_it():
    code, _, err = cli("solve", "-", stdin='{"topics": {"t": 0}, "members": {}}')
    assert code == 2
    assert err == "assignment-oracle: error: <stdin>: topics.t: must be positive, got 0\n"
    code, _, err = cli("solve", "-", stdin="")
    assert code == 2 and "<stdin>: is empty" in err and "Traceback" not in err


def test_a_bare_assignment_is_read_as_the_keyed_one(tmp_path, capsys):
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps({"a": {"t": [0, 1]}, "b": {"t": [2, 3]}}))
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps(UNEVEN))
    code, out, _ = run(capsys, "check", scenario, bare)
    assert code == 0 and "valid: yes" in out  # 2/2 of a fresh group: optimal


# -- generate -------------------------------------------------------------------------------------------------


def test_generate_is_deterministic_and_read_back(tmp_path, capsys):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    argv = (
        "generate",
        "uniform",
        "--seed",
        4,
        "--param",
        "members=3",
        "--param",
        "partitions=5",
        "--param",
        "topics=2",
    )
    assert run(capsys, *argv, "-o", first)[0] == 0
    assert run(capsys, *argv, "-o", second)[0] == 0
    assert first.read_bytes() == second.read_bytes()
    document = json.loads(first.read_text())
    # uniform: every member subscribes to every topic, 5 partitions each
    assert document["topics"] == {"t0000": 5, "t0001": 5}
    assert {m: v["topics"] for m, v in document["members"].items()} == {
        m: ["t0000", "t0001"] for m in ("m0000", "m0001", "m0002")
    }
    code, out, _ = run(capsys, "solve", first)
    assert code == 0 and sorted(json.loads(out)["sorted_loads"]) == [3, 3, 4]  # 10 partitions on 3 members
    assert run(capsys, "generate", "uniform", "--seed", 5, "--param", "members=3")[1] != first.read_text()


def test_generate_a_churn_history_and_a_streams_group(capsys):
    code, out, _ = run(capsys, "generate", "churn", "--seed", 3, "--param", "rounds=2")
    history = json.loads(out)
    assert code == 0 and len(history["rounds"]) == 2 and len(history["members"]) == 3
    code, out, _ = run(capsys, "generate", "streams", "--seed", 1, "--param", "processes=2", "--param", "tasks=3")
    group = json.loads(out)
    assert code == 0 and group["kind"] == "streams"
    assert len({m["process"] for m in group["members"].values()}) == 2
    assert all(1 <= s["tasks"] <= 3 for s in group["subtopologies"].values())  # tasks: the most per subtopology


@pytest.mark.parametrize(
    "argv, named",
    [
        (("generate", "nope", "--seed", 1), "unknown family 'nope' (known: uniform, "),
        (("generate", "uniform", "--seed", 1, "--param", "foo=1"), "unknown parameter 'foo'"),
        (("generate", "random-subsets", "--seed", 1, "--param", "subscribe=2"), "subscribe must be in (0, 1], got 2"),
        (("generate", "churn", "--seed", 1, "--param", "rounds=-1"), "rounds must be an integer from 0"),
        (("generate", "uniform", "--seed", 1, "--param", "members"), "must be NAME=VALUE"),
        (("generate", "uniform"), "--seed: required"),
    ],
)
def test_generate_bad_input_is_one_line(capsys, argv, named):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and named in err


def test_generate_list_names_every_family_with_its_parameters(capsys):
    code, out, _ = run(capsys, "generate", "--list")
    assert code == 0
    for family in ("uniform", "random-subsets", "racks", "churn", "streams"):
        assert f"\n{family}: " in "\n" + out
    assert "events_per_round=2" in out and "standby_replicas=1" in out


# -- bugs --scenario / --assignor -----------------------------------------------------------------------------


def test_bugs_scenario_writes_the_entry_as_solve_reads_it(tmp_path, capsys):
    path = tmp_path / "k.json"
    assert run(capsys, "bugs", "KAFKA-7026", "--scenario", "-o", path)[0] == 0
    document = json.loads(path.read_text())
    # KAFKA-7026's group: a and b at generation 2, c evicted at generation 1 still claiming t-0
    assert document["members"]["c"] == {"generation": 1, "owned": {"t": [0]}, "topics": ["t"]}
    assert run(capsys, "solve", path)[0] == 0


def test_bugs_scenario_of_an_entry_with_two_groups(tmp_path, capsys):
    code, _, err = run(capsys, "bugs", "kafka-12984-claim-order", "--scenario", "-o", tmp_path / "c.json")
    assert code == 0 and "2 scenarios" in err
    one, two = (json.loads((tmp_path / f"c-{i}.json").read_text()) for i in (1, 2))
    assert set(one["members"]) == set(two["members"]) and one != two  # the same group, claimants swapped
    code, out, _ = run(capsys, "bugs", "kafka-12984-claim-order", "--scenario")
    assert code == 0 and json.loads(out) == [one, two]


def test_bugs_assignor_says_whether_the_defect_is_still_there(capsys):
    # KAFKA-7026: KIP-54's StickyAssignor keeps a stale claim: t-0 twice.  Kafka's fix (KIP-341, sticky
    # since 2.3) is gone; the old one still shows it.  Streams: Kafka's own assignor still deals 5/4/3.
    code, out, _ = run(capsys, "bugs", "KAFKA-7026", "--assignor", "sticky")
    assert code == 0 and "the defect is gone" in out
    code, out, _ = run(capsys, "bugs", "KAFKA-7026", "--assignor", "sticky-kip54")
    assert code == 1 and "the defect is still there" in out
    code, out, _ = run(capsys, "bugs", "streams-fresh-standbys-uneven", "--assignor", "streams-sticky")
    assert code == 1 and "task-balance [5, 4, 3]" in out


def test_bugs_share_entry_written_keeps_the_groups_order_and_kafkas_answer(tmp_path, capsys):
    # share-member-not-recorded's group as the differential drew it: memberIds() is filled in this order, and
    # Kafka's answer in Java's order (recorded from Kafka's Java) depends on it
    path = tmp_path / "s.json"
    assert run(capsys, "bugs", "share-member-not-recorded", "--scenario", "-o", path)[0] == 0
    assert list(json.loads(path.read_text())["members"]) == ["consumer-7-20d1", "consumer-9-77c1", "consumer-6-fa91"]
    code, out, _ = run(capsys, "assign", path, "--assignor", "share-simple", "--iteration-order", "java")
    assert code == 0
    assert json.loads(out)["assignment"] == {
        "consumer-6-fa91": {"DOj": [1]},
        "consumer-7-20d1": {"DOj": [1]},
        "consumer-9-77c1": {"DOj": [0]},
    }


def test_bugs_assignor_on_a_share_entry(capsys):
    # Kafka's SimpleAssignor still gives 5 and 2 where 4 and 3 is valid, in both orders; still throws in Java's
    code, out, _ = run(capsys, "bugs", "share-heterogeneous-skew", "--assignor", "share-simple")
    assert code == 1 and "gap at balance (largest load 5, the optimum's 4)" in out and "still there" in out
    code, out, _ = run(
        capsys, "bugs", "share-held-unassignable-crash", "--assignor", "share-simple", "--iteration-order", "java"
    )
    assert code == 1 and "NoSuchElementException" in out and "share-simple (java order): the defect is still" in out
    code, out, _ = run(capsys, "bugs", "share-held-unassignable-crash")
    assert code == 0 and "as Kafka's Java answered: yes" in out


@pytest.mark.parametrize(
    "argv, named",
    [
        (("bugs", "share-heterogeneous-skew", "--assignor", "sticky"), "sticky is a consumer group assignor"),
        (("bugs", "share-heterogeneous-skew", "--assignor", "streams-sticky"), "is a Streams group assignor"),
        (("bugs", "KAFKA-7026", "--assignor", "share-simple"), "share-simple is a share group assignor"),
        (("bugs", "KAFKA-7026", "--assignor", "streams-sticky"), "is a Streams group assignor"),
        (("bugs", "streams-fresh-standbys-uneven", "--assignor", "sticky"), "consumer group assignor"),
        (("bugs", "KAFKA-12984", "--scenario"), "names 2 entries"),
        (("bugs", "--scenario"), "take one entry"),
        (("bugs", "KAFKA-7026", "--scenario", "--assignor", "sticky"), "not both"),
        (("bugs", "KAFKA-7026", "--assignor", "nope"), "nope"),
    ],
)
def test_bugs_bad_input_is_one_line(capsys, argv, named):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and named in err


# -- assignors, --help ----------------------------------------------------------------------------------------


def test_assignors_has_a_kind_column_with_streams(capsys):
    code, out, _ = run(capsys, "assignors")
    rows = {line.split()[0]: line.split()[1] for line in out.splitlines()[1:]}
    assert code == 0 and out.split()[:2] == ["name", "kind"]
    assert rows["streams-sticky"] == "streams"
    assert rows["range"] == rows["cooperative-sticky"] == rows["external:COMMAND"] == "consumer"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_help_opens_with_a_sentence_an_example_and_exit_codes(capsys, command):
    with pytest.raises(SystemExit) as stopped:
        main([command, "--help"])
    out = capsys.readouterr().out
    assert stopped.value.code == 0
    description = out.split("\n\n")[1]
    assert description.endswith(".") and description.count(". ") == 0  # one sentence
    assert "\nexample:\n  assignment-oracle " in out
    assert "\nexit status: 0" in out


# -- simulate and sweep: --fail-on and '-' --------------------------------------------------------------------


def _zombie_history():
    from assignment_oracle.commands import bundled_histories

    return bundled_histories()["rolling-restart-zombie"]


def test_simulate_fail_on_invalid_names_the_rounds_sticky_kip54_duplicates(capsys):
    # The bundled zombie history is KAFKA-7026's: a restarted member's stale claim comes back after a
    # rebalance moved its partitions; sticky-kip54 (before KIP-341) keeps both claims, assigning them twice,
    # while sticky (KIP-341: the highest generation wins) does not.
    code, _, err = run(
        capsys, "simulate", "rolling-restart-zombie", "--assignor", "sticky-kip54", "--fail-on", "invalid"
    )
    assert code == 1
    lines = err.splitlines()
    assert lines and all(line.startswith("assignment-oracle: --fail-on invalid: round ") for line in lines)
    assert all("duplicated" in line for line in lines)
    code, _, err = run(capsys, "simulate", "rolling-restart-zombie", "--assignor", "sticky", "--fail-on", "invalid")
    assert (code, err) == (0, "")
    code, _, err = run(capsys, "simulate", "rolling-restart-zombie", "--assignor", "sticky-kip54")  # default: unchanged
    assert code == 0


def test_simulate_reads_a_history_from_standard_input():
    text = _zombie_history().read_text(encoding="utf-8")
    code, out, err = cli("simulate", "-", "--assignor", "sticky-kip54", "--fail-on", "invalid", "--json", stdin=text)
    assert code == 1, err
    from_file = subprocess.run(
        [
            sys.executable,
            "-m",
            "assignment_oracle",
            "simulate",
            str(_zombie_history()),
            "--assignor",
            "sticky-kip54",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out == from_file.stdout  # the same simulation, byte for byte, whichever way the history came


@pytest.mark.xdist_group("spark")
def test_sweep_fail_on_reads_every_row_of_the_sweep(quick_sweep, capsys):
    """--fail-on on a sweep names exactly the rows the Parquet files say meet the condition (read here with
    pandas, independently of the command's own reader)."""
    from assignment_oracle.compare.sweep.job import read_rows

    rows = read_rows(quick_sweep.out)
    judged = rows[~rows["assignor"].str.startswith("optimum") & (rows["assignor"] != "scenario")]
    invalid = judged[(judged["status"] != "ok") | (judged["valid"] == False)]  # noqa: E712 (a nullable column)
    code, _, err = run(capsys, "sweep", "quick", "--out", quick_sweep.out, "--fail-on", "invalid", "--no-progress")
    named = [line for line in err.splitlines() if line.startswith("assignment-oracle: --fail-on invalid: ")]
    assert len(named) == len(invalid)
    assert code == (1 if len(invalid) else 0)
    gaps = judged[judged["verdict"].isin(["gap", "short"])]
    code, _, err = run(capsys, "sweep", "quick", "--out", quick_sweep.out, "--fail-on", "gap", "--no-progress")
    named = [line for line in err.splitlines() if line.startswith("assignment-oracle: --fail-on gap: ")]
    assert len(gaps) > 0 and code == 1
    assert len(named) >= len(gaps)  # every gap, and every invalid row or broken guarantee besides
