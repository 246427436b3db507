"""``assignment-oracle test-assignor``: the CI oracle's battery from the command line, for any language
(issue 49).  The assignors under test are tiny Python scripts run as ``external:`` commands (as a Go or
JavaScript assignor would be), so what they do wrong is known before the oracle says it."""

import json
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from cli_runs import external, run

from assignment_oracle import commands

# Kafka's RoundRobinAssignor's deal (partitions in order, to the subscribed members sorted by id), ignoring
# "owned" entirely: always valid, never sticky.
ROUND_ROBIN = """
import json, sys
req = json.load(sys.stdin)
members = sorted(req["members"])
out = {m: {} for m in members}
i = 0
for t in sorted(req["topics"]):
    n = req["topics"][t] if isinstance(req["topics"][t], int) else req["topics"][t]["partitions"]
    subs = [m for m in members if t in req["members"][m].get("topics", [])]
    for p in range(n if subs else 0):
        out[subs[i % len(subs)]].setdefault(t, []).append(p)
        i += 1
json.dump({"assignment": out}, sys.stdout)
"""
CRASH = """
import sys
sys.stdin.read()
print("boom: no assignment today", file=sys.stderr)
sys.exit(1)
"""
#: Groups drawn where a test needs a counterexample: seed 0 finds round robin's within them.
EXAMPLES = 10


def junit(path):
    (suite,) = ET.parse(path).getroot().findall("testsuite")
    found = [(c.get("name"), c.find("failure")) for c in suite.findall("testcase")]
    assert int(suite.get("tests")) == len(found)
    assert int(suite.get("failures")) == sum(f is not None for _, f in found)
    return found


def test_round_robin_fails_shrunk_written_and_replayable(tmp_path, capsys):
    rr = external(tmp_path, "rr", ROUND_ROBIN)
    out, report = tmp_path / "found", tmp_path / "oracle.xml"
    code, printed, err = run(capsys, "test-assignor", rr, "--examples", EXAMPLES, "--out", out, "--junit", report)
    assert code == 1
    assert printed.startswith("check_assignor: not optimal")
    # the files: one scenario, one answer, in --out (created), named on stderr in one line
    scenario_file = next(out.glob("scenario-*.json"))
    answer_file = next(out.glob("answer-*.json"))
    assert err.count("\n") == 1 and str(out) in err and "test-assignor" in err
    scenario = json.loads(scenario_file.read_text())
    answer = json.loads(answer_file.read_text())["assignment"]
    # shrunk: far smaller than compare's 12-member, 41-partition case (issue 49)
    partitions = sum(t if isinstance(t, int) else t["partitions"] for t in scenario["topics"].values())
    assert 2 <= len(scenario["members"]) <= 3 and partitions <= 3, scenario  # a gap needs two members
    # what is wrong is what round robin does: a partition a member still holds, subscribed, is dealt to another
    held = {
        (t, p): m for m, member in scenario["members"].items() for t, ps in member.get("owned", {}).items() for p in ps
    }
    given = {(t, p): m for m, topics in answer.items() for t, ps in topics.items() for p in ps}
    assert any(given.get(tp) not in (None, owner) for tp, owner in held.items())
    # the replay command printed runs: check exits 1 (valid, with a gap)
    (replay,) = [line.removeprefix("replay: ") for line in printed.splitlines() if line.startswith("replay: ")]
    words = shlex.split(replay)
    assert words[:2] == ["assignment-oracle", "check"] and words[2:4] == [str(scenario_file), str(answer_file)]
    done = subprocess.run([sys.executable, "-m", "assignment_oracle", *words[1:]], capture_output=True, timeout=120)
    assert done.returncode == 1
    # JUnit: the one kind checked, failing, with the replay command in its message
    ((name, failure),) = junit(report)
    assert name == "consumer groups" and failure is not None and replay in failure.get("message")


def test_a_promise_kept_passes_in_one_line(tmp_path, capsys):
    rr = external(tmp_path, "rr", ROUND_ROBIN)
    out, report = tmp_path / "none", tmp_path / "oracle.xml"
    code, printed, err = run(
        capsys, "test-assignor", rr, "--guarantee", "valid", "--examples", 5, "--out", out, "--junit", report
    )
    assert (code, err) == (0, "")
    assert printed.count("\n") == 1
    assert "passed on 5 consumer groups drawn" in printed and "3 round(s)" in printed and "guarantee valid" in printed
    assert not out.exists()  # nothing written when nothing fails
    assert [(name, failure is None) for name, failure in junit(report)] == [("consumer groups", True)]


def test_a_crashing_external_fails_naming_the_crash_the_same_way_every_run(tmp_path, capsys):
    crash = external(tmp_path, "crash", CRASH)
    said = []
    for _ in range(2):
        code, printed, _ = run(capsys, "test-assignor", crash, "--examples", 3, "--out", tmp_path / "out")
        assert code == 1
        said.append(printed)
    assert "the assignor raised" in said[0] and "exited with status 1" in said[0] and "boom" in said[0]
    assert said[0] == said[1]  # same seed, same groups, same bytes


def test_a_registered_assignor_of_another_kind_is_one_case_of_its_kind(tmp_path, capsys):
    # Whatever share-simple does on the groups drawn, the exit status and the JUnit case agree, and the case is
    # the share groups' (not a consumer group's).
    report = tmp_path / "oracle.xml"
    code, printed, _ = run(
        capsys, "test-assignor", "share-simple", "--kind", "share", "--guarantee", "valid", "--examples", 3,
        "--out", tmp_path / "out", "--junit", report,
    )  # fmt: skip
    ((name, failure),) = junit(report)
    assert name == "share groups"
    assert (code, failure is not None) in ((0, False), (1, True))
    assert ("passed on 3 share groups" in printed) == (code == 0)
    assert (tmp_path / "out").exists() == (code == 1)


@pytest.mark.parametrize(
    ("options", "named"),
    [
        (["--kind", "connect"], "--kind"),
        (["--kind", "consumer,share"], "ASSIGNOR"),  # an external assignor assigns consumer groups only
        (["--guarantee", "always-right"], "--guarantee"),
        (["--objective", "balance"], "--objective"),
        (["--tiers", "speed"], "--tiers"),
        (["--examples", "0"], "--examples"),
        (["--rounds", "0"], "--rounds"),
        (["--time-limit", "-1"], "--time-limit"),
    ],
)
def test_bad_input_is_one_line_naming_the_option(tmp_path, capsys, options, named):
    rr = external(tmp_path, "rr", ROUND_ROBIN)
    code, printed, err = run(capsys, "test-assignor", rr, *options, "--out", tmp_path / "out")
    assert code == 2 and printed == ""
    assert err.count("\n") == 1 and named in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_an_unknown_assignor_is_one_line(capsys):
    code, _, err = run(capsys, "test-assignor", "no-such-assignor\x1b[2J")
    assert code == 2 and err.count("\n") == 1 and "ASSIGNOR" in err and "\x1b" not in err


def test_the_command_runs_only_through_the_front(capsys):
    # the command line's module never imports the CI oracle (the layers): without the front it says so
    code = commands.run(["test-assignor", "range"])
    assert code == 2 and "front" in capsys.readouterr().err
