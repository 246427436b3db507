"""External assignors over the JSON protocol: a real script, every way it can go wrong, never a crash."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assignment_oracle.cli import main
from assignment_oracle.compare.judge.evaluate import evaluate
from assignment_oracle.compare.scenarios.churn import history_from_mapping, simulate
from assignment_oracle.compare.scenarios.families import generate
from assignment_oracle.compare.sweep.rows import scenario_rows
from assignment_oracle.compare.sweep.spec import spec_from_mapping
from assignment_oracle.heuristics.external import ExternalCommand, parse_external
from assignment_oracle.heuristics.registry import external_assignor, get_assignor
from assignment_oracle.problem.model import Problem
from assignment_oracle.problem.scenario_json import InputError

# One script, many behaviours (argv[1]); it only ever reads the scenario from stdin.
SCRIPT = r"""
import json, os, sys, time
mode = sys.argv[1]
record = os.environ.get("RECORD")
raw = sys.stdin.read()
if record:
    with open(os.path.join(record, f"call-{len(os.listdir(record)):03d}.json"), "w") as f:
        f.write(raw)
scenario = json.loads(raw)
members = sorted(scenario["members"])
def deal():
    out, i = {m: {} for m in members}, 0
    for topic in sorted(scenario["topics"]):
        spec = scenario["topics"][topic]
        count = spec if isinstance(spec, int) else spec["partitions"]
        subscribers = [m for m in members if topic in scenario["members"][m]["topics"]]
        for p in range(count):
            if subscribers:
                out[subscribers[i % len(subscribers)]].setdefault(topic, []).append(p)
                i += 1
    return out
if mode == "valid":
    print(json.dumps({"assignment": deal(), "note": "extra keys are ignored"}))
elif mode == "twice":
    out = deal(); first = members[0]; topic = sorted(scenario["topics"])[0]
    out[first].setdefault(topic, []).append(0)
    print(json.dumps({"assignment": out}))
elif mode == "sleep":
    with open(sys.argv[2], "w") as f:
        f.write(str(os.getpid()))
    time.sleep(60)
elif mode == "garbage":
    print("rebalance complete!")
elif mode == "partial":
    sys.stdout.write(json.dumps({"assignment": deal()})[:25])
elif mode == "empty":
    pass
elif mode == "no-assignment":
    print(json.dumps({"members": deal()}))
elif mode == "fail":
    sys.stderr.write("Exception in thread main: NullPointerException\n\tat Assignor.assign(Assignor.java:42)\n")
    sys.exit(3)
elif mode == "unknown-member":
    out = deal(); out["ghost"] = {}
    print(json.dumps({"assignment": out}))
elif mode == "unknown-partition":
    out = deal(); topic = sorted(scenario["topics"])[0]
    out[members[0]][topic] = [999]
    print(json.dumps({"assignment": out}))
elif mode == "unknown-topic":
    out = deal(); out[members[0]]["no-such-topic"] = [0]
    print(json.dumps({"assignment": out}))
elif mode == "duplicate-key":
    sys.stdout.write('{"assignment": {"a": {"t": [0]}, "a": {"t": [1]}, "b": {"t": [2, 0]}}}')
elif mode in ("background", "escape"):
    import subprocess
    # A child that keeps our stdout open after we exit (in our process group, or in its own session).
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"],
                             start_new_session=(mode == "escape"))
    with open(sys.argv[2], "w") as f:
        f.write(str(child.pid))
    print(json.dumps({"assignment": deal()}))
elif mode == "argv":
    with open(sys.argv[2], "w") as f:
        json.dump(sys.argv[3:], f)
    print(json.dumps({"assignment": deal()}))
"""

PROBLEM = generate("random-subsets", 3, members=4, topics=3, previous="balanced", churn=1, zombies=1)


@pytest.fixture(scope="module")
def script(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("external") / "assignor.py"
    path.write_text(SCRIPT)
    return str(path)


def command(script: str, *args: str) -> str:
    return "external:" + " ".join([sys.executable, script, *args])


def test_a_valid_answer_is_judged_like_any_assignor(script):
    e = evaluate(PROBLEM, command(script, "valid"))
    assert e.status == "ok" and e.verdict.valid
    assert e.assignor == command(script, "valid") and e.guarantee.guarantee == "valid" and e.guarantee.kept


def test_an_invalid_answer_is_an_invalid_result_not_an_error(script):
    e = evaluate(PROBLEM, command(script, "twice"))
    assert e.status == "invalid" and not e.verdict.valid
    assert any(v["kind"] == "duplicated" for v in e.verdict.violation_details)
    assert e.guarantee.kept is False


@pytest.mark.parametrize(
    "mode, message",
    [
        ("garbage", "stdout is not JSON (Expecting value at line 1 column 1; it starts 'rebalance complete!')"),
        ("partial", "stdout is not JSON"),
        ("empty", "wrote nothing on stdout"),
        ("no-assignment", 'stdout is JSON but has no "assignment" object'),
        ("fail", ".txt): Exception in thread main: NullPointerException | at Assignor.assign"),
        ("unknown-member", "assignment names member 'ghost', who is not in the group"),
        ("unknown-partition", "has partition 999, which does not exist (t0000 has"),
        ("unknown-topic", "names topic 'no-such-topic', which does not exist"),
    ],
)
def test_every_failure_is_an_error_row_naming_what_was_wrong(script, mode, message):
    e = evaluate(PROBLEM, command(script, mode))
    if mode == "fail":  # the whole stderr is kept in the file the message names
        kept = Path(re.search(r"stderr \(whole in (\S+\.txt)\)", e.message).group(1))
        assert (
            kept.read_text()
            == "Exception in thread main: NullPointerException\n\tat Assignor.assign(Assignor.java:42)\n"
        )
    assert e.status == "error", e
    assert e.message.startswith("ExternalAssignorError: ") and message in e.message, e.message
    assert len(e.message) < 300  # the reason comes first: never cut off by a long command line
    assert "\n" not in e.message and e.verdict is None
    # No assignment: its guarantee ("valid", which always applies) is broken, not silently skipped.
    assert e.guarantee.applies and not e.guarantee.kept and e.guarantee.reason.startswith("no assignment: ")


def test_a_command_that_cannot_start_is_an_error_row():
    e = evaluate(PROBLEM, "external:/no/such/assignor --flag")
    assert e.status == "error" and "cannot run '/no/such/assignor --flag'" in e.message


def test_a_slow_command_is_a_timeout_and_is_killed(script, tmp_path):
    pid_file = tmp_path / "pid"
    assignor = external_assignor([sys.executable, script, "sleep", str(pid_file)], timeout=1.0)
    started = time.monotonic()
    e = evaluate(PROBLEM, assignor)
    assert e.status == "timeout" and "gave no answer in 1 s" in e.message
    assert time.monotonic() - started < 30
    pid = int(pid_file.read_text())
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]


def test_the_callers_deadline_also_kills_the_command(script, tmp_path):
    pid_file = tmp_path / "pid"
    assignor = external_assignor([sys.executable, script, "sleep", str(pid_file)], timeout=60)
    e = evaluate(PROBLEM, assignor, time_limit=1.0)
    assert e.status == "timeout"
    for _ in range(50):
        if pid_file.exists():
            break
        time.sleep(0.1)
    pid = int(pid_file.read_text())
    for _ in range(50):
        if not Path(f"/proc/{pid}").exists():
            break
        time.sleep(0.1)
    assert not Path(f"/proc/{pid}").exists()


def test_no_shell_and_nothing_interpolated(script, tmp_path):
    seen, marker = tmp_path / "argv.json", tmp_path / "pwned"
    name = command(script, "argv", str(seen), f"'$(touch {marker})'", "';'", "'*'")
    assert evaluate(PROBLEM, name).status == "ok"
    assert json.loads(seen.read_text()) == [f"$(touch {marker})", ";", "*"]
    assert not marker.exists()
    # Member and topic names are data on stdin, never arguments.
    hostile = Problem.from_mapping({"topics": {"$(touch x)": 2}, "members": {"`id`": {"topics": ["$(touch x)"]}}})
    assert evaluate(hostile, name).status == "ok"
    assert json.loads(seen.read_text()) == [f"$(touch {marker})", ";", "*"]


def test_a_shell_only_when_asked(tmp_path):
    marker = tmp_path / "made-by-shell"
    answer = json.dumps({"assignment": {"a": {"t": [0]}}})
    e = evaluate(
        Problem.from_mapping({"topics": {"t": 1}, "members": {"a": {"topics": ["t"]}}}),
        f"external-shell:touch {marker} && echo '{answer}'",
    )
    assert e.status == "ok" and marker.exists()


def test_stdin_is_the_documented_scenario_format(script, tmp_path):
    os.environ["RECORD"] = str(tmp_path)
    try:
        assert evaluate(PROBLEM, command(script, "valid")).status == "ok"
    finally:
        del os.environ["RECORD"]
    sent = json.loads((tmp_path / "call-000.json").read_text())
    assert Problem.from_mapping(sent) == PROBLEM
    assert any(m.get("generation") is not None and m.get("owned") for m in sent["members"].values())


def test_each_round_of_a_simulation_sends_the_last_result_as_owned_partitions(script, tmp_path):
    history = history_from_mapping(
        {
            "topics": {"t": 4, "u": 2},
            "members": {"a": {"topics": ["t", "u"]}, "b": {"topics": ["t"]}},
            "rounds": [[{"join": "c", "topics": ["t", "u"]}], [{"leave": "a"}]],
        }
    )
    assignor = external_assignor([sys.executable, script, "valid"], env={"RECORD": str(tmp_path)}, name="deal")
    sim = simulate(history, assignor)
    assert [r.evaluation.status for r in sim.rounds] == ["ok", "ok", "ok"]
    calls = [json.loads(p.read_text()) for p in sorted(tmp_path.glob("call-*.json"))]
    assert len(calls) == 3
    for before, after, rnd in zip(calls, calls[1:], sim.rounds):
        given = rnd.evaluation.assignment.to_mapping()
        for member, spec in after["members"].items():
            if member in before["members"]:
                owned = {t: ps for t, ps in given.get(member, {}).items() if ps}
                assert spec.get("owned", {}) == owned
        generations = {m.get("generation") for m in after["members"].values() if m.get("owned")}
        assert len(generations) == 1 and None not in generations


def test_names_and_definitions():
    assert parse_external("external:java -jar 'my assignor.jar'").argv == ("java", "-jar", "my assignor.jar")
    assert parse_external("external-shell:a | b").argv == ("a | b",)
    for bad, message in (
        ("external:", "no command"),
        ("external:'open", "does not split"),
        ("external-shell:  ", "no command"),
    ):
        with pytest.raises(ValueError, match=message):
            get_assignor(bad)
    with pytest.raises(ValueError, match="unknown guarantee 'fastest'"):
        external_assignor("x", guarantee="fastest")
    for bad in (0, float("inf"), float("nan")):
        with pytest.raises(ValueError, match="timeout must be a positive number"):
            ExternalCommand(("x",), timeout=bad)


def test_in_a_sweep_spec_by_name_and_as_a_table(script):
    spec = spec_from_mapping(
        {
            "seeds": 1,
            "assignors": [
                "sticky",
                command(script, "valid"),
                {
                    "name": "my-go-assignor",
                    "command": [sys.executable, script, "fail"],
                    "guarantee": "kafka-balance",
                    "timeout": 5,
                },
            ],
            "families": [{"family": "uniform", "grid": {"members": 3, "topics": 1, "partitions": 3}}],
        }
    )
    assert spec.assignors == ("sticky", command(script, "valid"), "my-go-assignor")
    point, seed = spec.task(0)
    rows = scenario_rows(
        spec.hash, "id", point, seed, [spec.assignor(n) for n in spec.assignors], spec.time_limit, spec.checks
    )
    by_name = {r["assignor"]: r for r in rows}
    assert by_name[command(script, "valid")]["status"] == "ok"
    failed = by_name["my-go-assignor"]
    assert failed["status"] == "error" and "exited with status 3" in failed["message"]
    assert json.loads(failed["counterexample"])["assignor"] == "my-go-assignor"  # a failure is a finding


@pytest.mark.parametrize(
    "entry, message",
    [
        ({"name": "x"}, "assignors[0].command: must be a command line or a list of arguments"),
        ({"name": "sticky", "command": "x"}, "assignors[0].name: 'sticky' is a registered assignor"),
        ({"name": "x", "command": "x", "guarantee": "fastest"}, "assignors[0].guarantee: unknown guarantee 'fastest'"),
        ({"name": "x", "command": "x", "timeout": -1}, "assignors[0].timeout: must be a positive number"),
        ({"name": "x", "command": "x", "shell": "yes"}, "assignors[0].shell: must be true or false"),
        ({"name": "x", "command": "x", "cwd": "/"}, "assignors[0].cwd: unknown field"),
        ({"name": "a,b", "command": "x"}, "assignors[0].name: must be a non-empty name without commas"),
        ({"name": "external:./other", "command": "./a"}, "assignors[0].name: must be a non-empty name without commas"),
        (
            {"name": "x", "command": "x", "guarantee": ["valid"]},
            "assignors[0].guarantee: must be the name of a guarantee",
        ),
        ({"name": "x", "command": "x", "timeout": 1e10}, "assignors[0].timeout: must be at most 3.1536e+07 seconds"),
        ({"name": "x", "command": "external:y", "shell": True}, "assignors[0].command: give the command itself"),
    ],
)
def test_bad_external_tables_are_one_line_errors(entry, message):
    with pytest.raises(InputError) as raised:
        spec_from_mapping({"assignors": [entry], "families": [{"family": "uniform", "grid": {}}]})
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_cli_assign_and_compare_with_an_external_command(script, tmp_path, capsys):
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps(PROBLEM.to_mapping()))
    assert main(["assign", str(scenario), "--assignor", command(script, "valid")]) == 0
    assert json.loads(capsys.readouterr().out)["valid"] is True
    assert main(["assign", str(scenario), "--assignor", command(script, "fail")]) == 7
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "assignor failed: " in err and "exited with status 3" in err
    assert main(["compare", str(scenario), "--assignors", f"sticky,{command(script, 'garbage')}", "--json"]) == 0
    rows = {r["assignor"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    assert rows[command(script, "garbage")]["status"] == "error"
    assert main(["assign", str(scenario), "--assignor", "external:"]) == 2
    assert "no command after 'external:'" in capsys.readouterr().err


DOCS = Path(__file__).resolve().parents[2] / "docs" / "external.md"


def _doc_block(after: str, language: str) -> str:
    text = DOCS.read_text(encoding="utf-8")
    start = text.index(f"```{language}\n", text.index(after)) + len(language) + 4
    return text[start : text.index("```", start)]


def test_the_documented_python_example_is_a_valid_round_robin(tmp_path):
    script = tmp_path / "rr.py"
    script.write_text(_doc_block("## Example: a round robin in Python", "python"))
    for problem in (PROBLEM, generate("uniform", 1, members=3, topics=2, partitions=5)):
        mine = evaluate(problem, f"external:{sys.executable} {script}")
        assert mine.status == "ok" and mine.verdict.valid
    # On identical subscriptions it deals exactly like Kafka's RoundRobinAssignor.
    uniform = generate("uniform", 1, members=3, topics=2, partitions=5)
    theirs = evaluate(uniform, "roundrobin")
    assert mine.assignment.to_mapping(uniform.member_ids) == theirs.assignment.to_mapping(uniform.member_ids)


@pytest.mark.skipif(__import__("shutil").which("jq") is None, reason="the documented one-liner needs jq")
def test_the_documented_jq_one_liner_runs(tmp_path, capsys):
    block = _doc_block("## Example: a shell one-liner with jq", "bash")
    name = block[block.index("'external-shell:") + 1 : block.rindex("'")]
    e = evaluate(
        PROBLEM.__class__.from_mapping(
            {
                "topics": {"t": 3, "u": {"partitions": 2}},
                "members": {"a": {"topics": ["t", "u"]}, "b": {"topics": ["t"]}},
            }
        ),
        name,
    )
    assert e.status == "ok" and e.verdict.valid and tuple(e.verdict.measures["sorted_loads"]) == (5, 0)


def _gone(pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        stat = Path(f"/proc/{pid}/stat")
        if not stat.exists() or stat.read_text().split()[2] == "Z":
            return True
        time.sleep(0.05)
    return False


def test_a_key_twice_in_one_object_is_an_error_not_a_silent_pick():
    problem = Problem.from_mapping({"topics": {"t": 3}, "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}}})
    e = evaluate(
        problem,
        external_assignor(
            [
                sys.executable,
                "-c",
                'import sys; sys.stdout.write(\'{"assignment": {"a": {"t": [0]}, "a": {"t": [1]}, "b": {"t": [2]}}}\')',
            ]
        ),
    )
    assert e.status == "error" and "stdout names 'a' twice in one JSON object" in e.message


def test_an_answer_with_a_background_child_holding_stdout_is_read_and_the_child_killed(script, tmp_path):
    pid_file = tmp_path / "pid"
    e = evaluate(PROBLEM, external_assignor([sys.executable, script, "background", str(pid_file)], timeout=20))
    assert e.status == "ok"  # read at once: waiting for the child would have been a timeout row
    assert _gone(int(pid_file.read_text()))  # its process group went with it


def test_a_child_in_its_own_session_is_ended_with_the_command(script, tmp_path):
    """A child the command started in a session of its own (``setsid``: out of its process group) holds
    stdout open after the command answered: the command's scope (a child subreaper) kills it as the
    command exits, so the answer is read at once and nothing the command started outlives the call
    (issue 43; before, it was a failure after a grace period, and the child lived on)."""
    pid_file = tmp_path / "pid"
    e = evaluate(PROBLEM, external_assignor([sys.executable, script, "escape", str(pid_file)], timeout=3))
    assert e.status == "ok", e.message  # read at once: waiting for the child would have been a timeout row
    assert _gone(int(pid_file.read_text()))


def test_a_deadline_in_a_forked_run_kills_the_command_too(script, tmp_path):
    pid_file = tmp_path / "pid"
    assignor = external_assignor([sys.executable, script, "sleep", str(pid_file)], timeout=60)
    e = evaluate(PROBLEM, assignor, time_limit=1.0, isolation="process")
    assert e.status == "timeout"
    for _ in range(50):
        if pid_file.exists():
            break
        time.sleep(0.1)
    assert _gone(int(pid_file.read_text()))


FLOOD = """
import sys
sys.stdin.read()
stream = sys.stderr if sys.argv[1] == "stderr" else sys.stdout
block = "x" * (1 << 20)
for _ in range(int(sys.argv[2])):
    stream.write(block)
stream.flush()
"""


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_a_flood_past_the_cap_is_one_line_and_memory_stays_bounded(tmp_path, stream):
    """3 GiB written to one stream: stopped at the 64 MiB default cap, one line, a few hundred MiB at most."""
    flood = tmp_path / "flood.py"
    flood.write_text(FLOOD)
    probe = (
        "import resource, sys, time\n"
        "from assignment_oracle.compare.judge.evaluate import evaluate\n"
        "from assignment_oracle.heuristics.registry import external_assignor\n"
        "from assignment_oracle.problem.scenario_json import problem_from_mapping\n"
        "problem = problem_from_mapping({'topics': {'t': 2}, 'members': {'a': {'topics': ['t']}}})\n"
        "started = time.monotonic()\n"
        f"e = evaluate(problem, external_assignor([sys.executable, {str(flood)!r}, {stream!r}, '3072']))\n"
        # VmHWM, the peak of this process's own memory: ru_maxrss would carry over the high-water mark of
        # the process it was started from (a pytest worker of several hundred MiB), kept across exec.
        "peak = next(line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM:'))\n"
        "print(e.status, time.monotonic() - started, peak)\n"
        "print(e.message)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    first, message = done.stdout.splitlines()
    status, seconds, peak_kib = first.split()
    assert status == "error"
    assert f"wrote more than 64 MiB to {stream}" in message and "--max-output" in message and "\n" not in message
    assert int(peak_kib) < 600 * 1024, f"peak memory {int(peak_kib) >> 10} MiB"
    assert float(seconds) < 30


def test_max_output_raises_the_cap_for_a_long_but_valid_answer(tmp_path, capsys):
    """An answer padded to 3 MiB: over a 1 MiB cap it fails; under --max-output 4 it is judged."""
    padded = tmp_path / "padded.py"
    padded.write_text(
        "import json, sys\n"
        "scenario = json.load(sys.stdin)\n"
        "print(' ' * (3 << 20) + json.dumps({'assignment': {'a': {'t': [0, 1]}}}))\n"
    )
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({"topics": {"t": 2}, "members": {"a": {"topics": ["t"]}}}))
    name = f"external:{sys.executable} {padded}"
    assert main(["assign", str(scenario), "--assignor", name, "--max-output", "1"]) != 0
    assert "wrote more than 1 MiB to stdout" in capsys.readouterr().err
    assert main(["assign", str(scenario), "--assignor", name, "--max-output", "4"]) == 0
    assert json.loads(capsys.readouterr().out)["assignment"] == {"a": {"t": [0, 1]}}
    assert main(["assign", str(scenario), "--assignor", name, "--max-output", "0"]) == 2
    assert capsys.readouterr().err.strip() == (
        "assignment-oracle: error: --max-output: must be a positive number of MiB up to 1048576, got 0"
    )


def test_compare_prints_a_failed_assignors_whole_message_under_its_table(script, tmp_path, capsys):
    from assignment_oracle.problem.scenario_json import problem_to_mapping

    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps(problem_to_mapping(PROBLEM)))
    failing = command(script, "fail")
    assert main(["compare", str(scenario), "--assignors", f"range,{failing}"]) in (0, 1)
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith(failing[:40]) and "error" in line)
    assert row.endswith("...") and len(row) < 400  # cut in the table
    full = next(line for line in out.splitlines() if line.startswith(f"{failing}: error: ExternalAssignorError:"))
    assert "exited with status 3" in full and "stderr (whole in " in full and "at Assignor.assign" in full
