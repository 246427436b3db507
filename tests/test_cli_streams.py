"""The command line on Streams group scenarios ("kind": "streams"): solve, check, assign, compare, explain, demo.

Expected values are derived by hand from the bundled examples (cli/examples/streams-*.json):

* streams-fresh: 8 tasks (4 stateful) on 5 members of 3 processes, one standby: active counts [2, 2, 2, 1, 1]
  (8 over 5), 8 + 4 = 12 copies in all, [3, 3, 2, 2, 2]; nobody had anything, stickiness [0, 0, 0, 0].
* streams-rolling-restart: 9 tasks (6 stateful), 6 members of 3 processes (app-b restarted: new members, state
  on disk only), one standby.  Actives [2, 2, 2, 1, 1, 1], copies 9 + 6 = 15, [3, 3, 3, 2, 2, 2].  a-1 and
  c-1 had 3 actives each and may keep 2, a-2 keeps 2, c-2 its 1: 7 kept at most.  Then a-1, a-2 and c-1 (2
  actives) take one standby each, and so does everybody: a-1 keeps 0_1, a-2 0_5, c-2 0_4 and c-1 one of
  0_0/0_3: 4 standbys kept.  Every one of the 12 stateful copies can be on a member with state (b-1 takes
  0_2's standby, b-2 0_0's): the 6 stateful actives and the 6 standbys, [7, 6, 4, 6] ([actives kept, actives
  on state, standbys kept, standbys on state]).  Kafka's assignor walks tasks by (partition, subtopology), so a-1's
  quota of 2 fills with 0_0 and 1_0 before 0_3 comes: 0_3 moves although the optimum keeps it on a-1.
* streams-rack-tags: 6 tasks (4 stateful) on 4 single-member processes, two standbys: [2, 2, 1, 1];
  6 + 4 x 2 = 14 copies, [4, 4, 3, 3]; zones east (two processes), west, central: each stateful task's 3
  copies can span the 3 zones, 4 x 3 = 12, the most.  Kafka's server-side assignor does not read tags.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from assignment_oracle.cli import bundled_examples, main
from assignment_oracle.problem.streams import StreamsAssignment, StreamsProblem, violations

EXAMPLES = {p.stem: p for p in bundled_examples()}
FRESH = EXAMPLES["streams-fresh"]
RESTART = EXAMPLES["streams-rolling-restart"]
TAGS = EXAMPLES["streams-rack-tags"]
CONSUMER = EXAMPLES["kip49-example"]

EXPECTED = {
    "streams-fresh": {
        "active-balance": [2, 2, 2, 1, 1],
        "task-balance": [3, 3, 2, 2, 2],
        "stickiness": [0, 0, 0, 0],
    },
    "streams-rolling-restart": {
        "active-balance": [2, 2, 2, 1, 1, 1],
        "task-balance": [3, 3, 3, 2, 2, 2],
        "stickiness": [7, 6, 4, 6],
    },
    "streams-rack-tags": {"active-balance": [2, 2, 1, 1], "task-balance": [4, 4, 3, 3], "tag-diversity": 12},
}


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path, name, content):
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def problem_of(path) -> StreamsProblem:
    return StreamsProblem.from_mapping(json.loads(path.read_text()))


def test_the_streams_examples_are_bundled():
    assert {"streams-fresh", "streams-rolling-restart", "streams-rack-tags"} <= set(EXAMPLES)
    assert problem_of(TAGS).rack_aware_tags == ("zone",)
    assert any(m.task_offsets and not m.active for m in problem_of(RESTART).members)  # restarted: state only


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_solve_writes_the_proven_optimum_byte_stable(name, tmp_path, capsys):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert run(capsys, "solve", EXAMPLES[name], "-o", first)[0] == 0
    assert run(capsys, "solve", EXAMPLES[name], "-o", second)[0] == 0
    assert first.read_bytes() == second.read_bytes()
    doc = json.loads(first.read_text())
    assert doc["kind"] == "streams" and doc["status"] == "OPTIMAL" and doc["method"]
    values = {t["tier"]: t["value"] for t in doc["tiers"]}
    assert doc["objective_order"] == list(values)
    for tier, value in EXPECTED[name].items():
        assert values[tier] == value
    assert all(t["proven"] and t["bound"] == t["value"] and t["how"] for t in doc["tiers"])
    problem = problem_of(EXAMPLES[name])
    assert violations(problem, StreamsAssignment.from_mapping(doc["assignment"])) == ()
    # then checked against the optimum: optimal on every tier
    code, out, _ = run(capsys, "check", EXAMPLES[name], first)
    assert code == 0 and "optimal on every tier" in out


def test_rack_aware_tags_bring_the_tag_tier(capsys):
    code, out, _ = run(capsys, "solve", TAGS)
    assert code == 0
    assert json.loads(out)["objective_order"] == ["active-balance", "task-balance", "tag-diversity", "stickiness"]


def test_assign_then_check_shows_the_stickiness_gap_of_a_rolling_restart(tmp_path, capsys):
    out_file = tmp_path / "a.json"
    assert run(capsys, "assign", RESTART, "--assignor", "streams-sticky", "-o", out_file)[0] == 0
    doc = json.loads(out_file.read_text())
    assert doc["kind"] == "streams" and doc["assignor"] == "streams-sticky" and doc["iteration_order"] == "sorted"
    assert doc["valid"] is True and doc["violations"] == [] and doc["standby_shortfall"] == 0
    code, out, _ = run(capsys, "check", RESTART, out_file)
    assert code == 1
    assert "a gap at the stickiness tier" in out and "sticky-at-equal-balance" in out
    code, out, _ = run(capsys, "check", RESTART, out_file, "--json")
    verdict = json.loads(out)
    assert code == 1 and verdict["verdict"] == "gap" and verdict["gap_tier"] == "stickiness"
    stickiness = verdict["tiers"][-1]
    assert stickiness["optimum"] == [7, 6, 4, 6] and stickiness["value"][0] == 7  # both keep 7 actives
    assert stickiness["value"][1] < 6  # 0_3 moved off a-1's state to a member without it


def test_check_reads_a_bare_streams_assignment_and_an_invalid_one_exits_3(tmp_path, capsys):
    # fresh group, all 8 actives on one member: valid, but the active-balance tier is worse (largest 8, not 2)
    lopsided = {"members": {"p1-t1": {"active": {"0": [0, 1, 2, 3], "1": [0, 1, 2, 3]}}}}
    code, out, _ = run(capsys, "check", FRESH, write(tmp_path, "a.json", lopsided), "--json")
    doc = json.loads(out)
    assert code == 1 and doc["gap_tier"] == "active-balance"
    assert doc["tiers"][0]["difference"]["largest_over_optimum"] == 6
    standbys = next(f for f in doc["findings"] if f["name"] == "standby-shortfall")
    assert standbys["data"] == {"replicas": 1, "given": 0, "shortfall": 4, "unavoidable": 0, "avoidable": 4}
    # a member the group does not have: an invalid assignment, as for consumer groups (exit 3), named
    ghost = {"assignment": {"members": {"ghost": {"active": {"0": [0]}}}}}
    code, out, err = run(capsys, "check", FRESH, write(tmp_path, "g.json", ghost))
    assert code == 3 and "ghost" in out and "not a member of the group" in out and err == ""


def test_assign_in_java_order(capsys):
    code, out, _ = run(capsys, "assign", FRESH, "--assignor", "streams-sticky", "--iteration-order", "java")
    doc = json.loads(out)
    assert code == 0 and doc["iteration_order"] == "java" and doc["valid"]
    assignment = StreamsAssignment.from_mapping(doc["assignment"])
    assert sorted(len(t.active) for t in assignment.members.values()) == [1, 1, 2, 2, 2]


def test_java_order_iterates_the_members_as_the_coordinator_fills_them(tmp_path, capsys):
    """``a0`` and ``d3`` share a bucket of Java's ``HashMap`` and a slot of Kafka's ``TimelineHashMap``, and
    both claim ``s-0`` (the last member iterated wins it).  Put into the ``HashMap`` in member id order
    (assumed before issue 43) ``d3`` always comes last; put from the group's ``TimelineHashMap`` (the
    coordinator: ``streams/TargetAssignmentBuilder.build`` at d79bd50), which hands a slot out from its last
    put, the member that joined first does.  Kafka's own Java, run by
    ``tests/heuristics/java/streams_kafka/StreamsDriver.java`` (group kind ``coordinator``), gives ``s-0`` to
    ``a0`` when the members joined as ``a0, d3`` (by ``hash``, member id order: to ``d3``), to ``d3`` when
    they joined as ``d3, a0``."""
    for joined in (["a0", "d3"], ["d3", "a0"]):
        members = {m: {"process": f"p{m}", "active": {"s": [0]}} for m in joined}
        group = {"kind": "streams", "subtopologies": {"s": {"tasks": 2, "stateful": False}}, "members": members}
        scenario = write(tmp_path, "claims.json", group)
        code, out, err = run(capsys, "assign", scenario, "--assignor", "streams-sticky", "--iteration-order", "java")
        assert code == 0 and err == ""
        assert json.loads(out)["assignment"]["members"][joined[0]]["active"] == {"s": [0]}, joined


def test_compare_has_the_optimum_and_both_iteration_orders(capsys):
    code, out, _ = run(capsys, "compare", RESTART)
    assert code == 0
    rows = [line.split()[0] for line in out.splitlines()[3:]]
    assert rows == ["optimum", "streams-sticky", "streams-sticky"]
    assert "streams-sticky (java order)" in out and "gap at stickiness" in out
    code, out, _ = run(capsys, "compare", FRESH, "--json")
    doc = json.loads(out)
    assert code == 0 and [(r["assignor"], r["iteration_order"]) for r in doc["rows"]] == [
        ("streams-sticky", "sorted"),
        ("streams-sticky", "java"),
    ]
    assert doc["optimum"]["status"] == "OPTIMAL"
    assert all(r["verdict"]["verdict"] == "optimal" for r in doc["rows"])  # fresh: balance is all there is


def test_compare_on_tags_shows_the_tag_gap(capsys):
    code, out, _ = run(capsys, "compare", TAGS, "--assignors", "streams-sticky", "--json")
    row = json.loads(out)["rows"][0]["verdict"]
    tags = next(t for t in row["tiers"] if t["tier"] == "tag-diversity")
    assert code == 0 and row["gap_tier"] == "tag-diversity" and tags["optimum"] == 12 and tags["value"] < 12


def test_explain_names_what_moved(capsys):
    code, out, _ = run(capsys, "explain", RESTART, "--assignor", "streams-sticky")
    assert code == 1
    assert "first at the stickiness tier" in out
    assert "0_3 on a-1" in out  # Kafka's quota filled with 0_0 and 1_0 first
    code, out, _ = run(capsys, "explain", FRESH, "--assignor", "streams-sticky")
    assert code == 0 and "optimal on every tier" in out


def test_demo_solves_and_checks_the_streams_examples(capsys):
    code, out, _ = run(capsys, "demo")
    assert code == 0
    for name in ("streams-fresh", "streams-rolling-restart", "streams-rack-tags"):
        line = next(line for line in out.splitlines() if line.startswith(f"{name}:"))
        assert "oracle OPTIMAL" in line and line.endswith("check exit 0")
    assert "  streams-sticky (java order): gap at stickiness" in out


# -- hostile inputs: one line, exit 2, no traceback ---------------------------------------------------------


def one_line_error(code, out, err, *needles):
    assert code == 2, (code, err)
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err
    for needle in needles:
        assert needle in err, err


@pytest.mark.parametrize(
    "content, needles",
    [
        ('{"kind": "streams", ', ("not valid JSON",)),
        ({"kind": "streams", "subtopologies": {"s": {"tasks": 0, "stateful": True}}, "members": {}}, ("tasks",)),
        ({"kind": "streams", "subtopologies": {}, "members": {}, "standbys": 1}, ("standbys", "unknown key")),
        ({"kind": "stream", "subtopologies": {}, "members": {}}, ("kind",)),
        ({"kind": "streams", "subtopologies": {}, "members": {"m": {}}}, ("members.m", "process")),
    ],
)
def test_bad_scenarios(tmp_path, capsys, content, needles):
    path = write(tmp_path, "s.json", content)
    for argv in (("solve", path), ("compare", path), ("assign", path, "--assignor", "streams-sticky")):
        one_line_error(*run(capsys, *argv), "s.json", *needles)


def test_bad_assignment_names_file_and_field(tmp_path, capsys):
    bad = write(tmp_path, "a.json", {"assignment": {"members": {"p1-t1": {"active": {"0": [-1]}}}}})
    one_line_error(*run(capsys, "check", FRESH, bad), "a.json", "members.p1-t1.active.0[0]")
    bad = write(tmp_path, "b.json", {"members": {"p1-t1": {"actives": {}}}})
    one_line_error(*run(capsys, "check", FRESH, bad), "b.json", "actives")


@pytest.mark.parametrize(
    "argv, needles",
    [
        (("assign", FRESH, "--assignor", "range"), ("range is a consumer group assignor",)),
        (("explain", FRESH, "--assignor", "kafka4-sticky"), ("kafka4-sticky is a consumer group assignor",)),
        (("compare", FRESH, "--assignors", "roundrobin"), ("--assignors", "consumer group assignor")),
        (("assign", FRESH, "--assignor", "nope"), ("unknown Streams group assignor",)),
        (("assign", CONSUMER, "--assignor", "streams-sticky"), ("streams-sticky is a Streams group assignor",)),
        (("compare", CONSUMER, "--assignors", "streams-sticky"), ("streams-sticky is a Streams group assignor",)),
        (("explain", CONSUMER, "--assignor", "streams-sticky"), ("streams-sticky is a Streams group assignor",)),
        (("solve", FRESH, "--balance", "sum-of-squares"), ("--balance", "consumer group")),
        (("solve", FRESH, "--max-moves", "1"), ("--max-moves",)),
        (("solve", FRESH, "--objective", "stickiness"), ("--objective", "each once")),
    ],
)
def test_assignors_and_options_of_the_other_kind(capsys, argv, needles):
    one_line_error(*run(capsys, *argv), *needles)


def test_the_installed_program_says_it_in_one_line(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "assignment_oracle", "assign", str(FRESH), "--assignor", "range"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
