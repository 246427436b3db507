"""``--junit FILE`` (compare, simulate, sweep, test-assignor), ``--guarantee`` beside an external assignor, and
``--fail-on`` lines that say how a failing row is replayed (issue 49).

Every expected count comes from the group itself: who owned what, and what each assignor does with it (a round
robin that ignores what members own moves partitions a sticky assignor keeps), never from the tool's output."""

import json
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from types import SimpleNamespace

import pytest
from cli_runs import external, run

from assignment_oracle.junit import Case, junit_text, write_junit

# Two members, each owning two of t's four partitions at generation 1: balanced and sticky as it stands, so the
# optimum keeps all four.  range keeps them too (a: t-0,t-1, b: t-2,t-3, its contiguous split); sticky keeps
# them (Kafka's sticky assignor keeps a balanced group's claims); roundrobin ignores claims and deals t-0 to a,
# t-1 to b, t-2 to a, t-3 to b: two partitions move, a gap at the stickiness tier.
OWNED = {
    "topics": {"t": 4},
    "members": {
        "a": {"topics": ["t"], "owned": {"t": [0, 1]}, "generation": 1},
        "b": {"topics": ["t"], "owned": {"t": [2, 3]}, "generation": 1},
    },
}
# The external round robin: what Kafka's RoundRobinAssignor does on one topic (partitions dealt in order to
# the members sorted by id), ignoring "owned" entirely.
ROUND_ROBIN = """
import json, sys
req = json.load(sys.stdin)
members = sorted(req["members"])
out = {m: {} for m in members}
i = 0
for t in sorted(req["topics"]):
    n = req["topics"][t] if isinstance(req["topics"][t], int) else req["topics"][t]["partitions"]
    subs = [m for m in members if t in req["members"][m]["topics"]]
    for p in range(n):
        out[subs[i % len(subs)]].setdefault(t, []).append(p)
        i += 1
json.dump({"assignment": out}, sys.stdout)
"""
# Everything to the first member (by id) subscribed to each topic: valid, and as unbalanced as can be.
LUMPY = """
import json, sys
req = json.load(sys.stdin)
members = sorted(req["members"])
out = {m: {} for m in members}
for t in sorted(req["topics"]):
    n = req["topics"][t] if isinstance(req["topics"][t], int) else req["topics"][t]["partitions"]
    subs = [m for m in members if t in req["members"][m]["topics"]]
    if subs:
        out[subs[0]][t] = list(range(n))
json.dump({"assignment": out}, sys.stdout)
"""


def cases(path):
    """(name, failure message or None) of every test case, and the suite counts, checked against each other."""
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    found = [(c.get("name"), c.find("failure")) for c in suite.findall("testcase")]
    assert int(suite.get("tests")) == len(found)
    assert int(suite.get("failures")) == sum(f is not None for _, f in found)
    return [(name, None if f is None else f) for name, f in found]


@pytest.fixture
def owned(tmp_path):
    path = tmp_path / "owned.json"
    path.write_text(json.dumps(OWNED))
    return path


# -- the writer -------------------------------------------------------------------------------------------------


def test_junit_text_escapes_names_from_data(tmp_path):
    hostile = 'm<0>&"1"\n</failure><testcase name="forged">\x1b[2J\u202e\ufffe'
    path = write_junit(
        tmp_path / "r.xml", f"compare {hostile}", [Case(hostile, "compare.x", failure=hostile, details=hostile)]
    )
    root = ET.parse(path).getroot()  # well-formed: the name cannot close an element or open one
    testcases = root.findall(".//testcase")
    assert len(testcases) == 1
    name = testcases[0].get("name")
    assert "\n" not in name and "\x1b" not in name and "\u202e" not in name and "\ufffe" not in name
    assert name.startswith('m<0>&"1"\\n</failure>')  # the text, shown, not interpreted
    assert "\\x1b" in name and "\\u202e" in name
    assert testcases[0].find("failure").get("message") == name


def test_junit_text_is_the_same_bytes_for_the_same_cases():
    made = [Case("a", "s"), Case("b", "s", failure="gap", details="replay: x")]
    assert junit_text("suite", made) == junit_text("suite", list(made))
    assert "time=" not in junit_text("suite", made)  # nothing that depends on the clock


# -- compare --------------------------------------------------------------------------------------------------------


def test_compare_junit_one_case_per_row_failing_where_the_gap_is(tmp_path, owned, capsys):
    rr = external(tmp_path, "rr", ROUND_ROBIN)
    report = tmp_path / "compare.xml"
    code, _, err = run(
        capsys,
        "compare",
        owned,
        "--assignors",
        f"range,sticky,roundrobin,{rr}",
        "--fail-on",
        "gap",
        "--junit",
        report,
    )
    assert code == 1
    found = dict(cases(report))
    assert set(found) == {"range", "sticky", "roundrobin", rr}  # the optimum's own row is no test case
    failing = {name for name, failure in found.items() if failure is not None}
    assert failing == {"roundrobin", rr}  # the two that ignore what a and b own
    assert "stickiness" in found[rr].get("message")
    # one stderr line per failing row, each with its fixing move, a replay and the shrink command
    lines = err.splitlines()
    assert len(lines) == 2
    for line in lines:
        assert "; replay: assignment-oracle assign " in line and "| assignment-oracle check " in line
        assert "; shrink: assignment-oracle test-assignor " in line


def test_compare_out_writes_the_failing_rows_group_and_answer_and_the_replay_runs(tmp_path, owned, capsys):
    rr = external(tmp_path, "rr", ROUND_ROBIN)
    out = tmp_path / "failing"
    code, _, err = run(capsys, "compare", owned, "--assignors", f"sticky,{rr}", "--fail-on", "gap", "--out", out)
    assert code == 1
    (line,) = err.splitlines()
    replay = line.split("; replay: ")[1].split("; shrink: ")[0]
    words = shlex.split(replay)
    assert words[:2] == ["assignment-oracle", "check"]
    scenario, answer = json.loads(open(words[2]).read()), json.loads(open(words[3]).read())
    assert scenario["members"]["a"]["owned"] == {"t": [0, 1]}
    assert answer["assignment"]["a"] == {"t": [0, 2]}  # round robin's deal, as the script does it
    assert sorted(p.name.split("-")[0] for p in out.iterdir()) == ["answer", "scenario"]  # only the failing row's
    done = subprocess.run([sys.executable, "-m", "assignment_oracle", *words[1:]], capture_output=True, timeout=120)
    assert done.returncode == 1  # check: valid, with a gap


def test_compare_guarantee_judges_the_external_on_its_declared_promise(tmp_path, owned, capsys):
    lumpy = external(tmp_path, "lumpy", LUMPY)
    # Judged on validity only (its default), everything on a is valid: --fail-on guarantee passes.
    code, _, err = run(capsys, "compare", owned, "--assignors", f"range,{lumpy}", "--fail-on", "guarantee")
    assert (code, err) == (0, "")
    # Declared kafka-balance: loads 4/0 where 2/2 exists breaks it, and only the external's row fails (range
    # keeps its own per-topic-balance promise on this group: 2/2).
    report = tmp_path / "g.xml"
    code, _, err = run(
        capsys,
        "compare",
        owned,
        "--assignors",
        f"range,{lumpy}",
        "--guarantee",
        "kafka-balance",
        "--fail-on",
        "guarantee",
        "--junit",
        report,
    )
    assert code == 1
    (line,) = err.splitlines()
    assert "kafka-balance" in line and lumpy in line and "--guarantee kafka-balance" in line
    assert "fixing move: kafka-local-condition" in line
    assert [(n, f is not None) for n, f in cases(report)] == [("range", False), (lumpy, True)]


@pytest.mark.parametrize(
    ("assignors", "guarantee", "said"),
    [
        ("range,sticky", "kafka-balance", "none is named"),  # registered assignors keep their own
        ("EXTERNAL", "no-such-promise", "unknown guarantee 'no-such-promise'"),
    ],
)
def test_compare_guarantee_bad_input_is_one_line(tmp_path, owned, capsys, assignors, guarantee, said):
    assignors = assignors.replace("EXTERNAL", external(tmp_path, "rr", ROUND_ROBIN))
    code, out, err = run(capsys, "compare", owned, "--assignors", assignors, "--guarantee", guarantee)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "--guarantee" in err and said in err


# -- simulate ---------------------------------------------------------------------------------------------------------


def test_simulate_junit_one_case_per_round(tmp_path, capsys):
    # Three rounds, each with at least two members on t's four partitions: the lumpy external's 4/0 (4/0/0)
    # breaks kafka-balance in every one of them.
    history = tmp_path / "h.json"
    history.write_text(
        json.dumps(
            {
                "topics": {"t": 4},
                "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}},
                "rounds": [[{"join": "c", "topics": ["t"]}], [{"leave": "a"}]],
            }
        )
    )
    lumpy = external(tmp_path, "lumpy", LUMPY)
    report = tmp_path / "s.xml"
    code, _, err = run(
        capsys,
        "simulate",
        history,
        "--assignor",
        lumpy,
        "--guarantee",
        "kafka-balance",
        "--fail-on",
        "guarantee",
        "--junit",
        report,
    )
    assert code == 1
    assert [(n, f is not None) for n, f in cases(report)] == [("round 0", True), ("round 1", True), ("round 2", True)]
    assert len(err.splitlines()) == 3
    assert all("run again with --out DIR" in line for line in err.splitlines())  # a round's group is no file
    # sticky keeps kafka-balance (its own promise) in every round: three passing cases
    code, _, _ = run(capsys, "simulate", history, "--assignor", "sticky", "--junit", report)
    assert code == 0
    assert [(n, f is not None) for n, f in cases(report)] == [
        ("round 0", False),
        ("round 1", False),
        ("round 2", False),
    ]


# -- sweep (its rows as the sweep writes them; the Spark job itself is tests/compare/test_sweep*.py's) ------------------


def test_sweep_junit_reads_the_rows_of_a_sweep(tmp_path):
    import pyarrow
    import pyarrow.parquet as pq

    from assignment_oracle import commands

    rows = [
        {"scenario_id": "s1", "seed": 1, "assignor": "optimum", "status": "ok", "valid": True, "verdict": "optimal"},
        {"scenario_id": "s1", "seed": 1, "assignor": "range", "status": "ok", "valid": True, "verdict": "gap"},
        {"scenario_id": "s1", "seed": 1, "assignor": "ext", "status": "ok", "valid": False, "verdict": "invalid"},
        {"scenario_id": "s1", "seed": 1, "assignor": "sticky", "status": "ok", "valid": True, "verdict": "optimal"},
    ]
    folder = tmp_path / "sweep" / "rows" / "family=uniform"
    folder.mkdir(parents=True)
    pq.write_table(pyarrow.Table.from_pylist(rows), folder / "part-0.parquet")
    report = tmp_path / "sweep.xml"
    args = SimpleNamespace(out=str(tmp_path / "sweep"), fail_on=None, junit=str(report), spec="quick")

    def judged():
        cases(report)  # the counts agree with the cases
        return {
            (c.get("classname"), c.get("name"), c.find("failure") is not None)
            for c in ET.parse(report).getroot().iter("testcase")
        }

    # Without --fail-on a case fails on a broken promise (the invalid row), not on a gap; the optimum is no case.
    commands._sweep_junit(args)
    where = "uniform s1 seed 1"
    assert judged() == {("sweep.range", where, False), ("sweep.ext", where, True), ("sweep.sticky", where, False)}
    args.fail_on = "gap"
    commands._sweep_junit(args)
    assert judged() == {("sweep.range", where, True), ("sweep.ext", where, True), ("sweep.sticky", where, False)}
