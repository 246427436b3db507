"""assignment_oracle.testing, the CI oracle in one import, and the API in one import (issue 39).

The newcomer's file (tests/testing_newcomer/my_assignor_tests.py, written from the README alone) is run
by pytest in a subprocess: its correct uses pass, and its three broken assignors fail with the readable
message, whose replay command exits non-zero on the files it names.  The asserts are checked against
brute force (tests/brute_force.py), the verdicts against numbers recomputed here from the files.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from brute_force import all_assignments, is_optimal, optimum
from hypothesis import given, settings
from hypothesis import strategies as st

import assignment_oracle
from assignment_oracle import testing
from assignment_oracle.compare.scenarios.strategies import problems
from assignment_oracle.problem.errors import InputError
from assignment_oracle.problem.load import load_assignment, load_scenario
from assignment_oracle.problem.streams import standby_shortfall, unavoidable_standby_shortfall
from assignment_oracle.strategies import KINDS, json_scenarios
from assignment_oracle.testing import (
    OracleAssertionError,
    assert_guarantee,
    assert_optimal,
    assert_valid,
    check_assignor,
    optimal_assignment,
)

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[1]
NEWCOMER = REPO / "tests" / "testing_newcomer" / "my_assignor_tests.py"
REPLAY = re.compile(r"^replay: assignment-oracle check (\S+) (\S+)$", re.M)
TWO = {"topics": {"t": 3}, "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}}}


def round_robin(scenario: dict) -> dict:
    """Every topic's partitions dealt around its subscribers, members in id order; owned ignored."""
    out: dict = {m: {} for m in sorted(scenario["members"])}
    turn = 0
    for topic, size in sorted(scenario["topics"].items()):
        members = [m for m in sorted(scenario["members"]) if topic in scenario["members"][m]["topics"]]
        for p in range((size if isinstance(size, int) else size["partitions"]) if members else 0):
            out[members[turn % len(members)]].setdefault(topic, []).append(p)
            turn += 1
    return out


def loads(answer: dict) -> list[int]:
    return sorted((sum(len(ps) for ps in topics.values()) for topics in answer.values()), reverse=True)


# -- the newcomer's file -------------------------------------------------------------------------------------


def test_the_newcomers_file_imports_only_assignment_oracle_testing_in_one_line():
    tree = ast.parse(NEWCOMER.read_text(encoding="utf-8"))
    imports = [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert len(imports) == 1
    assert isinstance(imports[0], ast.ImportFrom) and imports[0].module == "assignment_oracle.testing"


#: The tests that read the newcomer's run share one worker (pyproject's --dist loadgroup): one run per suite.
NEWCOMER_RUN = pytest.mark.xdist_group("newcomer")


@pytest.fixture(scope="module")
def newcomer_run(tmp_path_factory):
    """The newcomer's file run by pytest in a subprocess (Hypothesis's own defaults: no conftest there):
    the report per test (junit XML) and the printed output."""
    folder = tmp_path_factory.mktemp("newcomer")
    (folder / "test_my_assignor.py").write_text(NEWCOMER.read_text(encoding="utf-8"), encoding="utf-8")
    report = folder / "report.xml"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", f"--junitxml={report}", "--durations=0"]
        + [f"--basetemp={folder / 'tmp'}", "test_my_assignor.py"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    cases = {
        case.get("name"): case for case in ElementTree.parse(report).getroot().iter("testcase")
    }  # name -> <testcase>
    return done, cases, folder


def failure_text(case) -> str:
    """The failure as pytest reported it, its ``E`` prefixes taken off: the message's lines as printed."""
    failure = case.find("failure")
    assert failure is not None, f"{case.get('name')} passed"
    return re.sub(r"(?m)^E {7}", "", failure.text or "")


def replay_files(text: str) -> tuple[Path, Path]:
    found = REPLAY.search(text)
    assert found, text
    scenario, answer = Path(found.group(1)), Path(found.group(2))
    assert scenario.is_file() and answer.is_file()
    return scenario, answer


def replayed(scenario: Path, answer: Path) -> int:
    """``assignment-oracle check SCENARIO ANSWER``'s exit status, through the installed program."""
    done = subprocess.run(
        [sys.executable, "-m", "assignment_oracle", "check", str(scenario), str(answer)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode


@NEWCOMER_RUN
def test_the_newcomers_correct_uses_pass_and_the_broken_ones_fail(newcomer_run):
    done, cases, _ = newcomer_run
    passed = {name for name, case in cases.items() if case.find("failure") is None and case.find("error") is None}
    assert passed == {
        "test_the_oracles_own_answer_passes_on_every_group",
        "test_round_robin_keeps_what_it_promises",
        "test_keep_then_fill_is_optimal_on_a_restart",
    }, done.stdout[-3000:]
    assert done.returncode == 1  # the three broken assignors fail


@NEWCOMER_RUN
def test_an_assignor_that_ignores_owned_partitions_fails_at_stickiness(newcomer_run):
    _, cases, folder = newcomer_run
    text = failure_text(cases["test_round_robin_on_a_restart"])
    assert "assert_optimal: not optimal: a gap at the stickiness tier" in text
    assert "stickiness: 2 worse than optimum 4" in text  # recomputed below from the files
    assert "balance: [2, 2] = optimum [2, 2]" in text
    scenario_file, answer_file = replay_files(text)
    # the test asked for oracle_counterexamples: the files are in its tmp_path
    assert (folder / "tmp") in scenario_file.parents and scenario_file.parent.name == "oracle-counterexamples"
    scenario = json.loads(scenario_file.read_text())
    answer = json.loads(answer_file.read_text())["assignment"]
    owned = {(t, p): m for m, e in scenario["members"].items() for t, ps in e.get("owned", {}).items() for p in ps}
    kept = sum(owned.get((t, p)) == m for m, topics in answer.items() for t, ps in topics.items() for p in ps)
    assert (kept, len(owned)) == (2, 4)  # every partition was owned; balance 2/2 keeps them all
    assert replayed(scenario_file, answer_file) == 1


@NEWCOMER_RUN
def test_an_assignor_unbalanced_on_differing_subscriptions_fails_at_balance(newcomer_run):
    _, cases, _ = newcomer_run
    text = failure_text(cases["test_least_loaded_is_as_balanced_as_the_optimum"])
    assert "check_assignor: not optimal: a gap at the balance tier" in text
    assert "the smallest counterexample Hypothesis found: round" in text
    assert "finding that does not hold: improving-chain:" in text
    scenario_file, answer_file = replay_files(text)
    scenario = json.loads(scenario_file.read_text())
    answer = json.loads(answer_file.read_text())["assignment"]
    subscriptions = {frozenset(e["topics"]) for e in scenario["members"].values()}
    assert len(subscriptions) > 1  # differing subscriptions: least-loaded is balanced on identical ones
    problem = load_scenario(scenario)
    best = optimum(problem)
    assert tuple(loads(answer)) > best.sorted_loads  # brute force: a more balanced assignment exists
    shown = re.search(r"^balance: (\[[\d, ]+\]) worse than optimum (\[[\d, ]+\])", text, re.M)
    assert shown and json.loads(shown.group(1)) == loads(answer)
    assert tuple(json.loads(shown.group(2))) == best.sorted_loads
    assert replayed(scenario_file, answer_file) == 1


@NEWCOMER_RUN
def test_an_assignor_that_assigns_a_partition_twice_fails_as_invalid(newcomer_run):
    _, cases, _ = newcomer_run
    text = failure_text(cases["test_deal_twice_on_every_group"])
    assert "check_assignor: not valid" in text
    assert re.search(r"^valid: no: .*assigned more than once", text, re.M)
    scenario_file, answer_file = replay_files(text)
    answer = json.loads(answer_file.read_text())["assignment"]
    given_out = [(t, p) for topics in answer.values() for t, ps in topics.items() for p in ps]
    assert len(given_out) > len(set(given_out))  # some partition twice
    assert replayed(scenario_file, answer_file) == 3


# -- the asserts against brute force ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def counterexamples(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("counterexamples")


@settings(max_examples=40)
@given(problems(max_topics=2, max_partitions=3, max_members=3, max_assignments=64))
def test_assert_optimal_passes_exactly_the_assignments_brute_force_calls_optimal(counterexamples, problem):
    best = optimum(problem)
    for assignment, member_loads, kept, cross in all_assignments(problem):
        expected = is_optimal(problem, member_loads, kept, best, cross)
        try:
            assert_optimal(problem, assignment, folder=counterexamples)
            passed = True
        except OracleAssertionError as err:
            passed = False
            assert "gap at the" in str(err) and err.replay.startswith("assignment-oracle check ")
        assert passed == expected, (problem.to_mapping(), assignment.to_mapping(), member_loads, kept)


def test_assert_optimal_on_plain_dicts_and_the_tiers_asked_for(tmp_path):
    assert_optimal(TWO, {"a": {"t": [0, 1]}, "b": {"t": [2]}})
    assert_optimal(json.dumps(TWO), {"assignment": {"a": {"t": [2]}, "b": {"t": [0, 1]}}})
    with pytest.raises(OracleAssertionError, match=r"(?m)^balance: \[3, 0\] worse than optimum \[2, 1\]") as err:
        assert_optimal(TWO, {"a": {"t": [0, 1, 2]}}, folder=tmp_path)
    assert all(tmp_path in f.parents for f in err.value.files) and len(err.value.files) == 2
    # owning everything, one member keeping it all is stickier but not as balanced
    owned = {
        "topics": {"t": 2},
        "members": {"a": {"topics": ["t"], "owned": {"t": [0, 1]}, "generation": 1}, "b": {"topics": ["t"]}},
    }
    hoard = {"a": {"t": [0, 1]}, "b": {}}
    with pytest.raises(OracleAssertionError, match="gap at the balance tier"):
        assert_optimal(owned, hoard)
    assert_optimal(owned, hoard, tiers=["stickiness"])  # better there than the balanced optimum: passes
    assert_optimal(owned, hoard, objective=["stickiness", "balance"])  # KIP-54's "sticky yet fair"
    with pytest.raises(OracleAssertionError, match="gap at the stickiness tier"):
        assert_optimal(owned, {"a": {}, "b": {"t": [0, 1]}}, objective="stickiness,balance")


def test_assert_valid_and_assert_guarantee():
    assert_valid(TWO, {"a": {"t": [0, 1, 2]}})
    with pytest.raises(OracleAssertionError, match=r"(?m)^valid: no: .*t-2"):
        assert_valid(TWO, {"a": {"t": [0, 1]}})
    with pytest.raises(OracleAssertionError, match="the answer cannot be read: .*a.t\\[0\\]: must be non-negative"):
        assert_valid(TWO, {"a": {"t": [-1, 1, 2]}})
    assert_guarantee(TWO, {"a": {"t": [0, 1, 2]}}, "valid")
    assert_guarantee(TWO, {"a": {"t": [0, 1]}, "b": {"t": [2]}}, "kafka-balance")
    with pytest.raises(OracleAssertionError, match="guarantee kafka-balance broken"):
        assert_guarantee(TWO, {"a": {"t": [0, 1, 2]}}, "kafka-balance")


def test_bad_input_is_one_line_naming_the_field():
    with pytest.raises(InputError, match=r"^scenario: topics.t: must be positive, got 0$"):
        assert_valid({"topics": {"t": 0}, "members": {}}, {})
    with pytest.raises(ValueError, match=r"^guarantee: 'fair' is not a consumer group guarantee \(known: "):
        assert_guarantee(TWO, {"a": {"t": [0, 1, 2]}}, "fair")
    with pytest.raises(ValueError, match=r"^tiers: 'rack-ness' is not a tier of the objective"):
        assert_optimal(TWO, {"a": {"t": [0, 1]}, "b": {"t": [2]}}, tiers=["rack-ness"])
    with pytest.raises(ValueError, match=r"^kinds: each must be one of consumer, streams, share, got queue$"):
        check_assignor(round_robin, kinds=("queue",))
    with pytest.raises(ValueError, match=r"^rounds: must be a whole number, 1 or more, got 0$"):
        check_assignor(round_robin, rounds=0)
    with pytest.raises(ValueError, match=r"^speaks: must be 'json' or 'objects'"):
        check_assignor(round_robin, speaks="xml")


# -- check_assignor -------------------------------------------------------------------------------------------


def test_check_assignor_feeds_each_answer_back_as_the_next_rounds_owned_partitions():
    seen: list[dict] = []

    def remembering(scenario: dict) -> dict:
        seen.append(scenario)
        return optimal_assignment(scenario)

    check_assignor(remembering, max_examples=5, rounds=3, hostile=False)  # events between rounds edit the claims
    assert len(seen) >= 3 and len(seen) % 3 == 0
    for before, after in zip(seen[0::3] + seen[1::3], seen[1::3] + seen[2::3]):
        answer = optimal_assignment(before)
        for member, entry in after["members"].items():
            if member in before["members"]:  # a member that stayed claims what it was given
                expected = {t: ps for t, ps in answer.get(member, {}).items() if ps}
                assert entry.get("owned", {}) == expected


def test_check_assignor_runs_the_projects_own_assignors_and_streams_groups():
    from assignment_oracle.heuristics import range as range_assignor

    check_assignor(range_assignor.assign, guarantee="per-topic-balance", max_examples=10)  # by its annotation
    check_assignor("sticky", guarantee="kafka-balance", max_examples=10)  # by name
    check_assignor(optimal_assignment, kinds=("streams",), max_examples=5, rounds=2)


@pytest.mark.slow  # about 6 s of Streams optima (the Streams pass above is quick)
def test_check_assignor_finds_a_streams_assignor_that_leaves_standbys_out():
    def actives_only(scenario: dict) -> dict:
        """Every task dealt around the members in id order as an active task; no standbys."""
        members = sorted(scenario["members"])
        out: dict = {m: {"active": {}} for m in members}
        turn = 0
        for subtopology, spec in scenario["subtopologies"].items():
            for p in range(spec["tasks"]):
                out[members[turn % len(members)]]["active"].setdefault(subtopology, []).append(p)
                turn += 1
        return {"members": out}

    balance = ["active-balance", "task-balance"]  # not stickiness: it ignores previous tasks too
    with pytest.raises(OracleAssertionError) as err:
        check_assignor(actives_only, kinds="streams", tiers=balance, max_examples=10, rounds=1)
    problem = load_scenario(err.value.scenario)
    answer = load_assignment(err.value.answer, problem)
    assert standby_shortfall(problem, answer) > unavoidable_standby_shortfall(problem)  # a placeable standby left out
    assert "a standby that could be placed is left out" in str(err.value) and "(streams group" in str(err.value)


def test_an_exception_in_the_assignor_fails_the_check_with_its_traceback_chained():
    def fussy(scenario: dict) -> dict:
        if len(scenario["members"]) > 1:
            raise KeyError("two members")
        return optimal_assignment(scenario)

    with pytest.raises(OracleAssertionError, match="the assignor raised KeyError: 'two members'") as err:
        check_assignor(fussy, max_examples=30)
    assert isinstance(err.value.__cause__, KeyError)
    assert len(err.value.scenario["members"]) == 2  # shrunk to the smallest group that raises
    assert err.value.answer is None and len(err.value.files) == 1


# -- the README's failure message is the one printed ----------------------------------------------------------


@pytest.mark.parametrize(
    "document, heading, tiers, name",
    [
        ("README.md", "## Test your own assignor", ["balance"], "assign"),
        ("docs/testing.md", "## Python", None, "round_robin"),
    ],
)
def test_the_failure_message_the_docs_show_is_what_check_assignor_prints(document, heading, tiers, name):
    text = (REPO / document).read_text(encoding="utf-8")
    section = text.split(heading, 1)[1].split("\n## ", 1)[0]
    shown = re.search(r"```text\n(.*?)```", section, re.S).group(1).splitlines()
    with pytest.raises(OracleAssertionError) as err:
        check_assignor(round_robin, tiers=tiers)
    printed = str(err.value).replace("assignor round_robin", f"assignor {name}").splitlines()
    assert [line for line in printed if not line.startswith("replay:")] == [
        line for line in shown if not line.startswith("replay:")
    ]
    assert re.fullmatch(r"replay: assignment-oracle check \S+/scenario-\w+\.json \S+/answer-\w+\.json", printed[-1])


# -- the API in one import ------------------------------------------------------------------------------------


def test_the_api_in_one_import_is_lazy_and_names_the_library():
    probe = (
        "import sys, assignment_oracle\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'ortools', 'hypothesis')"
        " or (m.startswith('assignment_oracle.') and m != 'assignment_oracle'))\n"
        "print('HEAVY', heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert "HEAVY []" in done.stdout, done.stdout + done.stderr
    from assignment_oracle.compare.judge import Verdict, judge
    from assignment_oracle.optimal import Request, solve
    from assignment_oracle.problem import load

    assert (assignment_oracle.solve, assignment_oracle.Request) == (solve, Request)
    assert (assignment_oracle.judge, assignment_oracle.Verdict) == (judge, Verdict)
    assert (assignment_oracle.load_scenario, assignment_oracle.load_assignment) == (
        load.load_scenario,
        load.load_assignment,
    )
    assert assignment_oracle.strategies.json_scenarios is json_scenarios and assignment_oracle.testing is testing
    assert set(assignment_oracle.__all__) <= set(dir(assignment_oracle))
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        assignment_oracle.nope  # noqa: B018


@pytest.mark.parametrize("kind", sorted(KINDS))
@settings(max_examples=10)
@given(data=st.data())
def test_json_scenarios_are_what_load_scenario_reads(kind, data):
    scenario = data.draw(json_scenarios(kind))
    json.dumps(scenario)  # plain JSON
    problem = load_scenario(scenario)
    assert load_scenario(problem.to_mapping()) == problem
    assert ("kind" in scenario) == (kind != "consumer")


# -- the pytest plugin ----------------------------------------------------------------------------------------


def test_the_plugin_loads_a_profile_only_when_asked_and_gives_the_counterexample_folder(pytester):
    pytester.makepyfile(
        test_profile="""
        from hypothesis import settings
        from assignment_oracle import testing

        def test_profile(request, oracle_counterexamples):
            print("EXAMPLES", settings.default.max_examples)
            assert testing.counterexample_folder.get() == oracle_counterexamples
            assert oracle_counterexamples.is_dir()

        def test_no_folder_without_the_fixture():
            assert testing.counterexample_folder.get() is None
        """
    )
    untouched = pytester.runpytest_subprocess("-s", "-p", "no:cacheprovider")
    untouched.assert_outcomes(passed=2)
    untouched.stdout.fnmatch_lines(["*EXAMPLES 100*"])  # Hypothesis's own default
    quick = pytester.runpytest_subprocess("-s", "-p", "no:cacheprovider", "--oracle-profile", "quick")
    quick.assert_outcomes(passed=2)
    quick.stdout.fnmatch_lines(["assignment-oracle: Hypothesis profile 'quick'", "*EXAMPLES 20*"])
    thorough = pytester.runpytest_subprocess("-s", "-p", "no:cacheprovider", "--oracle-profile=thorough")
    thorough.stdout.fnmatch_lines(["*EXAMPLES 1000*"])
    wrong = pytester.runpytest_subprocess("--oracle-profile", "slow")
    assert wrong.ret == pytest.ExitCode.USAGE_ERROR
