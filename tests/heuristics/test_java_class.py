"""``java:CLASS``: Java assignors in one long-lived JVM (heuristics/java_class.py, its driver in heuristics/java/).

The Java here is the project's own: a stand-in for the part of Kafka's API the driver touches
(``java/standin``, Kafka's signatures) and small test assignors (``java/assignors/oracletest``), compiled once
per module.  Each answer is checked against an independent Python computation of what the class must do.
Without ``java`` or ``javac`` the module is skipped, except under ``CI``, where it fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from assignment_oracle.cli import main
from assignment_oracle.compare.judge.evaluate import ERROR, INVALID, OK, TIMEOUT, evaluate
from assignment_oracle.heuristics import get_assignor, run
from assignment_oracle.heuristics.java_class import CLASSPATH_VARIABLE, JavaClassError, java_assignor
from assignment_oracle.problem.errors import MissingRuntime
from assignment_oracle.problem.model import Problem

HERE = Path(__file__).parent / "java"
MISSING = [tool for tool in ("java", "javac") if shutil.which(tool) is None]
MISSING_MESSAGE = f"java:CLASS tests need a JDK: {', '.join(MISSING)} not found on PATH"
IN_CI = os.environ.get("CI", "").lower() not in ("", "0", "false")
# Skipped before any fixture runs; under CI the classpath fixture fails instead.
pytestmark = pytest.mark.skipif(bool(MISSING) and not IN_CI, reason=MISSING_MESSAGE)

DEALER = "java:oracletest.Dealer"


@pytest.fixture(scope="module")
def classpath(tmp_path_factory) -> str:
    """The stand-in and the test assignors compiled (one javac); the driver cached in a private folder; the
    echo assignors' dump file named for every JVM started here."""
    if MISSING:
        pytest.fail(f"{MISSING_MESSAGE} (CI=true: never skipped)", pytrace=False)
    folder = tmp_path_factory.mktemp("java-classes")
    sources = sorted(str(p) for p in HERE.joinpath("standin").rglob("*.java"))
    sources += sorted(str(p) for p in HERE.joinpath("assignors").rglob("*.java"))
    subprocess.run(["javac", "-nowarn", "-d", str(folder), *sources], check=True, capture_output=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
        patch.setenv("ORACLE_TEST_ECHO", str(folder / "echo.txt"))
        patch.delenv(CLASSPATH_VARIABLE, raising=False)
        yield str(folder)


def dealt(scenario: dict) -> dict:
    """What ``oracletest.Dealer`` must answer: topics and members in name order, one turn counter."""
    members = sorted(scenario["members"])
    out: dict = {m: {} for m in members}
    turn = 0
    for topic in sorted({t for m in members for t in scenario["members"][m]["topics"]}):
        size = scenario["topics"].get(topic, 0)
        size = size if isinstance(size, int) else size["partitions"]
        subscribers = [m for m in members if topic in scenario["members"][m]["topics"]]
        for p in range(size):
            out[subscribers[turn % len(subscribers)]].setdefault(topic, []).append(p)
            turn += 1
    return out


SCENARIOS = [
    {"topics": {"t": 3, "u": 2}, "members": {"a": {"topics": ["t", "u"]}, "b": {"topics": ["t"]}}},
    {
        "topics": {"orders": 5, "payments": {"partitions": 3}, "idle": 2},
        "members": {
            "c3": {"topics": ["orders"]},
            "c1": {"topics": ["orders", "payments"], "owned": {"orders": [4]}, "generation": 2},
            "c2": {"topics": ["payments", "gone"]},
            "é-ü": {"topics": ["orders", "payments"]},
        },
    },
]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_answer_is_the_classes(classpath, scenario):
    assignor = get_assignor(DEALER, classpath=classpath)
    assert (assignor.protocol, assignor.guarantee, assignor.rebalance) == ("eager", "valid", None)
    assert run(assignor, Problem.from_mapping(scenario)).assignment.to_mapping() == dealt(scenario)


def test_one_jvm_for_many_rebalances(classpath):
    runner = get_assignor(DEALER, classpath=classpath).assign
    runner(Problem.from_mapping(SCENARIOS[0]))
    pid, started = runner.pid, runner.started
    for size in range(1, 8):
        scenario = {"topics": {"t": size}, "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}}}
        assert get_assignor(DEALER, classpath=classpath).assign is runner  # every lookup: the same JVM
        assert runner(Problem.from_mapping(scenario)).to_mapping() == dealt(scenario)
    assert (runner.pid, runner.started) == (pid, started)


ECHOED = {
    "topics": {"t": {"partitions": 2, "racks": [["r1", "r2"], ["r2"]]}, "u": 1},
    "members": {
        "a": {"topics": ["t", "u"], "owned": {"t": [0, 1]}, "generation": 4, "rack": "r1", "instance_id": "i-a"},
        "b": {"topics": ["u"], "owned": {"u": [0]}, "generation": 3},
        "c": {"topics": ["t"]},
    },
}


def echo_lines(classpath: str, name: str) -> list[str]:
    dump = Path(classpath) / "echo.txt"
    dump.unlink(missing_ok=True)
    result = run(get_assignor(name, classpath=classpath), Problem.from_mapping(ECHOED))
    assert result.assignment.to_mapping() == {"a": {"t": [0, 1]}, "b": {"u": [0]}, "c": {}}  # what each owned
    return dump.read_text(encoding="utf-8").splitlines()


def test_claims_generations_racks_and_instance_ids_reach_the_class(classpath):
    """Cooperative: owned partitions in ownedPartitions; user data from onAssignment(owned, generation)."""
    assert get_assignor("java:oracletest.Echo", classpath=classpath).protocol == "cooperative"
    assert echo_lines(classpath, "java:oracletest.Echo") == [
        "member a topics=[t, u] owned=[t-0, t-1] generation=4 rack=r1 instance=i-a userData=4|a|i-a|[t-0, t-1]|[t, u]",
        "member b topics=[u] owned=[u-0] generation=3 rack=none instance=none userData=3|b|-|[u-0]|[u]",
        "member c topics=[t] owned=[] generation=none rack=none instance=none userData=null",
        "partition t-0 racks=[r1, r2]",
        "partition t-1 racks=[r2]",
        "partition u-0 racks=[none]",
    ]


def test_eager_members_send_their_claims_as_user_data_only(classpath):
    """Eager (StickyAssignor's way): ownedPartitions empty, the claims in the user data the member wrote."""
    assert get_assignor("java:oracletest.EagerEcho", classpath=classpath).protocol == "eager"
    lines = echo_lines(classpath, "java:oracletest.EagerEcho")
    assert lines[:2] == [
        "member a topics=[t, u] owned=[] generation=4 rack=r1 instance=i-a userData=4|a|i-a|[t-0, t-1]|[t, u]",
        "member b topics=[u] owned=[] generation=3 rack=none instance=none userData=3|b|-|[u-0]|[u]",
    ]


def test_a_cooperative_class_runs_every_rebalance_of_the_protocol(classpath):
    """a owned t's three partitions; b joins.  The deal gives b t-1, which a still owns: the class leaves it out,
    a revokes it, and the follow-up rebalance (a owning t-0 and t-2, one generation on) gives it to b."""
    assignor = get_assignor("java:oracletest.CooperativeDealer", classpath=classpath)
    assert assignor.protocol == "cooperative"
    scenario = {
        "topics": {"t": 3},
        "members": {"a": {"topics": ["t"], "owned": {"t": [0, 1, 2]}, "generation": 1}, "b": {"topics": ["t"]}},
    }
    result = run(assignor, Problem.from_mapping(scenario))
    assert [p.assignment.to_mapping() for p in result.phases] == [
        {"a": {"t": [0, 2]}, "b": {}},
        {"a": {"t": [0, 2]}, "b": {"t": [1]}},
    ]
    assert result.phases[0].revoked.to_mapping() == {"a": {"t": [1]}}
    assert evaluate(Problem.from_mapping(scenario), assignor).rebalances == 2


def problem_with(topic: str) -> Problem:
    return Problem.from_mapping({"topics": {topic: 2}, "members": {"a": {"topics": [topic]}, "b": {"topics": [topic]}}})


def test_a_class_that_throws_is_an_error_row_and_its_jvm_lives_on(classpath):
    assignor = get_assignor(DEALER, classpath=classpath)
    runner = assignor.assign
    runner(problem_with("t"))
    pid = runner.pid
    row = evaluate(problem_with("throw"), assignor)
    assert row.status == ERROR
    assert "java.lang.IllegalStateException: dealer refuses topic throw (at oracletest.Dealer.assign(" in row.message
    assert runner.pid == pid


def test_an_invalid_answer_is_judged_invalid(classpath):
    row = evaluate(problem_with("twice"), get_assignor(DEALER, classpath=classpath))
    assert row.status == INVALID
    assert not row.verdict.valid and {v["kind"] for v in row.verdict.violation_details} == {"duplicated"}


def test_what_the_class_prints_does_not_mix_with_the_answers(classpath):
    assert evaluate(problem_with("chatty"), get_assignor(DEALER, classpath=classpath)).status == OK


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_no_answer_in_time_is_a_timeout_and_the_jvm_is_killed(classpath):
    assignor = java_assignor(DEALER, classpath=classpath, timeout=1.5)
    pid = assignor.assign.pid
    row = evaluate(problem_with("sleep"), assignor)
    assert row.status == TIMEOUT and "gave no answer in 1.5 s ('java:oracletest.Dealer')" in row.message
    assert gone(pid) and assignor.assign.pid is None
    assert run(assignor, problem_with("t")).assignment.to_mapping() == {"a": {"t": [0]}, "b": {"t": [1]}}
    assert assignor.assign.started == 2


def test_a_jvm_that_dies_is_an_error_row_then_a_fresh_jvm(classpath):
    assignor = java_assignor(DEALER, classpath=classpath, timeout=30)
    first = assignor.assign.pid
    row = evaluate(problem_with("halt"), assignor)
    assert row.status == ERROR
    assert "the JVM exited with status 3 ('java:oracletest.Dealer'); stderr" in row.message
    assert "dealer: halting on purpose" in row.message
    assert run(assignor, problem_with("t")).assignment.to_mapping() == {"a": {"t": [0]}, "b": {"t": [1]}}
    assert assignor.assign.pid not in (None, first) and assignor.assign.started == 2


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("java:oracletest.Nope", "class oracletest.Nope is not on the classpath (classpath "),
        (
            "java:oracletest.NotAnAssignor",
            "does not implement org.apache.kafka.clients.consumer.ConsumerPartitionAssignor",
        ),
        ("java:oracletest.NoDefaultConstructor", "has no public no-arg constructor"),
        ("java:", "no class after 'java:'"),
    ],
)
def test_a_class_that_cannot_be_run_is_refused_in_one_line(classpath, name, says):
    with pytest.raises(JavaClassError, match="^[^\n]*$") as caught:
        get_assignor(name, classpath=classpath)
    assert says in str(caught.value)


def test_a_missing_classpath_entry_is_named(classpath):
    with pytest.raises(JavaClassError) as caught:
        get_assignor("java:oracletest.Nope", classpath=f"{classpath}:/nowhere/kafka.jar")
    assert str(caught.value).endswith("; not found: /nowhere/kafka.jar)")


def test_a_classpath_without_kafkas_api_does_not_compile_the_driver(classpath, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # nothing cached: the driver is compiled against it
    with pytest.raises(JavaClassError, match="lacks Kafka's consumer API .* does not compile against it: "):
        get_assignor(DEALER, classpath=str(tmp_path))
    assert not list((tmp_path / "assignment-oracle" / "java").iterdir())  # no half-built driver left


def test_without_javac_the_runtime_is_missing(classpath, tmp_path, monkeypatch):
    only_java = tmp_path / "bin"
    only_java.mkdir()
    (only_java / "java").symlink_to(shutil.which("java"))
    monkeypatch.setenv("PATH", str(only_java))
    with pytest.raises(MissingRuntime, match="needs 'javac'"):
        get_assignor(DEALER, classpath=f"{classpath}:{tmp_path}")  # a classpath of its own: a new runner


# -- the command line --------------------------------------------------------------------------------------


def cli(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, scenario: dict) -> Path:
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(scenario))
    return path


def test_cli_assign_runs_the_class(classpath, tmp_path, capsys):
    code, out, _ = cli(capsys, "assign", write(tmp_path, SCENARIOS[1]), "--assignor", DEALER, "--classpath", classpath)
    assert code == 0
    assert json.loads(out)["assignment"] == dealt(SCENARIOS[1])
    assert CLASSPATH_VARIABLE not in os.environ  # --classpath lasts for its command


def test_cli_compare_judges_the_class_next_to_a_port(classpath, tmp_path, capsys):
    scenario = write(tmp_path, SCENARIOS[0])
    code, out, _ = cli(
        capsys, "compare", scenario, "--assignors", f"range,{DEALER}", "--classpath", classpath, "--json"
    )
    assert code == 0
    rows = {r["assignor"]: r for r in json.loads(out)["rows"]}
    assert rows[DEALER]["status"] == "ok" and rows[DEALER]["loads"] == {"a": 4, "b": 1}  # t-0 t-2 u-0 u-1, t-1


@pytest.mark.parametrize("command", ["assign", "compare", "explain"])
def test_cli_without_a_classpath_exits_2_in_one_line(classpath, tmp_path, capsys, command):
    option = "--assignors" if command == "compare" else "--assignor"
    code, out, err = cli(capsys, command, write(tmp_path, SCENARIOS[0]), option, DEALER)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "java:oracletest.Dealer needs a classpath: --classpath" in err


def test_cli_without_javac_exits_2_in_one_line(classpath, tmp_path, capsys, monkeypatch):
    only_java = tmp_path / "bin"
    only_java.mkdir()
    (only_java / "java").symlink_to(shutil.which("java"))
    monkeypatch.setenv("PATH", str(only_java))
    code, _, err = cli(
        capsys, "assign", write(tmp_path, SCENARIOS[0]), "--assignor", DEALER, "--classpath", f"{classpath}:{only_java}"
    )
    assert code == 2 and err.count("\n") == 1 and "needs 'javac' (a JDK, Java 17 or later) on PATH" in err


def test_cli_end_to_end_leaves_no_jvm_behind(classpath, tmp_path):
    """A real process: compare with a Java class, then nothing of its JVM is left once it exits."""
    marker = tmp_path / "marker"
    marker.mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "assignment_oracle", "compare", write(tmp_path, SCENARIOS[0]), "--assignors",
         f"roundrobin,{DEALER}", "--classpath", f"{classpath}:{marker}"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert DEALER in result.stdout and result.stderr == ""
    assert not subprocess.run(["pgrep", "-f", str(marker)], capture_output=True).stdout  # its JVM's command line


def test_cli_a_cached_driver_on_an_older_kafka_api_exits_2_in_one_line(classpath, tmp_path, capsys):
    """The driver is cached once per source and javac; a later classpath whose Kafka API lacks what it calls
    (here ``Subscription`` without the rack argument, as before kafka-clients 3.5) is refused at JVM start,
    not reported as the class failing on every rebalance."""
    older = tmp_path / "older"
    shutil.copytree(HERE / "standin", older / "standin")
    shutil.copytree(HERE / "assignors", older / "assignors")
    api = older / "standin/org/apache/kafka/clients/consumer/ConsumerPartitionAssignor.java"
    text = api.read_text()
    api.write_text(
        text.replace("int generationId, Optional<String> rackId) {", "int generationId) {", 1).replace(
            "this.rackId = rackId;", "this.rackId = Optional.empty();", 1
        )
    )
    classes = tmp_path / "older-classes"
    sources = [str(p) for p in sorted(older.rglob("*.java"))]
    subprocess.run(["javac", "-nowarn", "-d", str(classes), *sources], check=True, capture_output=True)
    scenario = write(tmp_path, SCENARIOS[0])
    assert cli(capsys, "assign", scenario, "--assignor", DEALER, "--classpath", classpath)[0] == 0  # driver cached
    code, out, err = cli(capsys, "assign", scenario, "--assignor", DEALER, "--classpath", str(classes))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "Kafka consumer API is not the one the driver needs" in err and "Subscription" in err


def test_cli_an_unwritable_cache_exits_2_in_one_line(classpath, tmp_path, capsys, monkeypatch):
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    code, out, err = cli(
        capsys, "assign", write(tmp_path, SCENARIOS[0]), "--assignor", DEALER, "--classpath", f"{classpath}:{tmp_path}"
    )
    assert code == 2 and out == "" and err.count("\n") == 1 and "cache folder" in err
