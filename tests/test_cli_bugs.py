"""`bugs` that cannot be fooled, and `bugs --export DIR` (issue 49).

A candidate that crashes, times out, answers nothing or answers something invalid is never "gone"; the found line
names the candidate; an assignor without a defect comes out "gone" on every entry it can run, except the entries
whose ``candidates_note`` says why; the exported conformance folder's own commands judge answers as the corpus does.
External assignors are tiny Python scripts run with this interpreter.
"""

from __future__ import annotations

import json
import shlex
import sys

import pytest

from assignment_oracle.cli import main
from assignment_oracle.compare.scenarios.bug_export import CONDITIONS, INDEX
from assignment_oracle.compare.scenarios.bugs import BUGS, STICKY_23_TIES, answer_candidate, replay_assignor
from assignment_oracle.heuristics import roundrobin as round_robin
from assignment_oracle.heuristics.assignor import Assignor
from assignment_oracle.heuristics.registry import get_assignor
from assignment_oracle.problem.model import Assignment
from assignment_oracle.testing import optimal_assignment

PYTHON = shlex.quote(sys.executable)

#: Scripts speaking the external protocol (docs/external.md), each failing in its own way.
SCRIPTS = {
    "crash": "import sys; sys.stdin.read(); sys.exit('boom: the assignor fell over')",
    "silent": "import sys; sys.stdin.read()",
    "braces": "import sys; sys.stdin.read(); print('{}')",
    "nothing": (
        "import json, sys; group = json.load(sys.stdin); "
        "print(json.dumps({'assignment': {m: {} for m in group['members']}}))"
    ),
    # KAFKA-7026's group (t has 3 partitions): t-0 left out, nothing assigned twice: invalid, not the defect
    "missing": "import json, sys; sys.stdin.read(); print(json.dumps({'assignment': {'a': {'t': [1, 2]}}}))",
    "sleeps": "import sys, time; sys.stdin.read(); time.sleep(30)",
    "optimum": (
        "import json, sys; from assignment_oracle.testing import optimal_assignment; "
        "print(json.dumps({'assignment': optimal_assignment(json.load(sys.stdin))}))"
    ),
}


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def external(tmp_path):
    """``external:`` name of the script called ``which``."""

    def named(which: str) -> str:
        path = tmp_path / f"{which}.py"
        path.write_text(SCRIPTS[which] + "\n")
        return f"external:{PYTHON} {shlex.quote(str(path))}"

    return named


def _last_line(out: str) -> str:
    return out.rstrip("\n").rsplit("\n", 1)[-1]


# -- what a candidate fails to deliver is never "gone" ---------------------------------------------------------


@pytest.mark.parametrize(
    "which, said",
    [
        ("crash", "boom: the assignor fell over"),
        ("silent", "wrote nothing on stdout"),
        ("braces", 'no "assignment" object'),
    ],
)
def test_a_crash_on_an_entry_about_a_crash_is_still_there(capsys, external, which, said):
    # KAFKA-16930 is a NullPointerException: an assignor that delivers no assignment still has the defect
    code, out, err = run(capsys, "bugs", "kafka-16930", "--assignor", external(which))
    assert code == 1, out + err
    assert "the defect is still there (exit 1)" in _last_line(out)
    assert said in out and "crashed" in out


@pytest.mark.parametrize(
    "which, reason",
    [
        ("crash", "not judged: the assignor crashed: "),
        ("nothing", "not judged: the assignor's answer is empty: nothing assigned, where the optimum assigns 3"),
        ("missing", "not judged: the assignor's answer is not valid: "),
    ],
)
def test_a_failure_on_an_entry_not_about_it_is_not_judged(capsys, external, which, reason):
    # KAFKA-7026 is about a duplicate: an answer without one is not the fix when it is empty, invalid or missing
    code, out, _ = run(capsys, "bugs", "KAFKA-7026", "--assignor", external(which))
    assert code == 1 and reason in out and _last_line(out).endswith(": not judged (exit 1)")
    assert "the defect is gone" not in out


def test_a_timeout_is_not_judged(capsys, external):
    code, out, _ = run(capsys, "bugs", "KAFKA-7026", "--assignor", external("sleeps"), "--time-limit", "0.5")
    assert code == 1 and "not judged: the assignor did not finish: " in out


def test_the_optimum_as_an_external_is_gone_and_named_in_the_found_line(capsys, external):
    name = external("optimum")
    for entry in ("kafka-16930", "kafka-12984-claim-order"):
        code, out, _ = run(capsys, "bugs", entry, "--assignor", name)
        found = next(line for line in out.splitlines() if line.startswith("  found: "))
        assert code == 0 and "the defect is gone (exit 0)" in out
        assert found.startswith(f"  found: {name}")


def test_the_found_line_names_the_candidate_not_the_replaced_variant(capsys):
    code, out, _ = run(capsys, "bugs", "KAFKA-7026", "--assignor", "sticky")
    found = next(line for line in out.splitlines() if line.startswith("  found: "))
    assert code == 0 and found.startswith("  found: sticky: no duplicate") and "sticky-kip54" not in found
    # a whole name only: replacing sticky leaves cooperative-sticky's name alone
    code, out, _ = run(capsys, "bugs", "local-condition-chain", "--assignor", "cooperative-sticky")
    found = next(line for line in out.splitlines() if line.startswith("  found: "))
    assert code == 1 and found.startswith("  found: cooperative-sticky keeps loads [11, 10, 9]")


# -- the kafka-12984 claim-order false alarm --------------------------------------------------------------------


def test_an_assignor_that_does_not_read_claims_has_no_claim_order_defect(capsys):
    bug = BUGS["kafka-12984-claim-order"]
    one, two = bug.problems()
    # independently of the corpus: roundrobin's answer is the very same whichever member claims what
    assert round_robin.assign(one) == round_robin.assign(two)
    for name in ("roundrobin", "range"):
        code, out, _ = run(capsys, "bugs", "kafka-12984-claim-order", "--assignor", name)
        assert code == 0 and f"{name}: the defect is gone (exit 0)" in out
        assert "the same result in both orders (the claims are not read)" in out
    # Kafka 2.3's tie rule still shows it: the first claimant iterated (a) keeps t-1 in both orders
    old = replay_assignor("kafka-12984-claim-order", STICKY_23_TIES)
    assert old.defect is True
    assert [1 in dict(row["sticky-2.3-ties"].assignment.to_mapping()["a"])["t"] for row in old.replay.rows] == [
        True,
        True,
    ]


# -- a correct assignor is "gone" wherever it can run -----------------------------------------------------------


def _optimum(objective=None) -> Assignor:
    """The proven optimum as an assignor (in this process: the corpus replays it often)."""
    return Assignor(
        "the-optimum",
        lambda problem: Assignment(optimal_assignment(problem.to_mapping(), objective)),
        "assignment_oracle.testing.optimal_assignment",
        "valid",
        "eager",
        "the proven optimum",
    )


CONSUMER_ENTRIES = [name for name, bug in BUGS.items() if bug.kind == "consumer"]


@pytest.mark.parametrize("candidate", ["the-optimum", "sticky", "cooperative-sticky"])
def test_a_correct_assignor_is_gone_on_every_consumer_entry_but_the_noted_ones(candidate):
    assignor = _optimum() if candidate == "the-optimum" else get_assignor(candidate)
    still = set()
    for name in CONSUMER_ENTRIES:
        bug = BUGS[name]
        result = replay_assignor(name, assignor)
        assert result.judged, (name, result.message)
        shown = {v if isinstance(v, str) else v.name for v in bug.shown_by}
        if result.defect:
            still.add(name)
            # its own defect (sticky is Kafka's StickyAssignor), or one the entry says a correct assignor shows
            assert candidate in shown or bug.candidates_note, (name, result.replay.finding)
    if candidate == "the-optimum":  # every note is still needed: the optimum shows exactly the noted entries
        assert still == {name for name in CONSUMER_ENTRIES if BUGS[name].candidates_note}


def test_the_optimum_with_the_spread_tier_is_gone_on_kafka_16277():
    result = replay_assignor("kafka-16277-per-topic-skew", _optimum(["balance", "spread", "stickiness"]))
    assert result.defect is False


# -- bugs NAME --answer -----------------------------------------------------------------------------------------


def test_answers_are_judged_in_the_defective_variants_place(capsys, tmp_path):
    bug = BUGS["kafka-12984-claim-order"]
    paths = []
    for i, problem in enumerate(bug.problems(), 1):
        path = tmp_path / f"answer-{i}.json"
        path.write_text(json.dumps({"assignment": round_robin.assign(problem).to_mapping()}))
        paths.append(path)
    code, out, _ = run(capsys, "bugs", "kafka-12984-claim-order", "--answer", paths[0], "--answer", paths[1])
    assert code == 0 and "the answers given: the defect is gone" in out
    code, out, err = run(capsys, "bugs", "kafka-12984-claim-order", "--answer", paths[0])
    assert code == 2 and out == "" and err.count("\n") == 1 and "give one --answer per scenario" in err
    with pytest.raises(ValueError):
        answer_candidate("kafka-12984-claim-order", [])
    # an entry about the assignor's later rounds (its own answer fed back) cannot judge a file: --assignor
    code, out, err = run(capsys, "bugs", "streams-fed-back-moves-standby", "--answer", paths[0])
    assert code == 2 and out == "" and err.count("\n") == 1 and "later rounds" in err


# -- bugs --export DIR ------------------------------------------------------------------------------------------


def test_every_entry_has_a_condition():
    assert set(CONDITIONS) == set(BUGS)


def _command(capsys, line: str) -> tuple[int, str]:
    argv = shlex.split(line)
    assert argv[0] == "assignment-oracle"
    code, out, _ = run(capsys, *argv[1:])
    return code, out


def _passes(check: dict, code: int, out: str) -> bool:
    """What the README says: the exit status in passes.exit, the verdict's gap tier not in gap_tier_not_in."""
    return code in check["passes"]["exit"] and json.loads(out)["gap_tier"] not in check["passes"]["gap_tier_not_in"]


@pytest.mark.parametrize(
    "entry, defective",
    [
        ("kafka-7026", "sticky-kip54"),  # valid: t-0 assigned twice
        ("local-condition-chain", "sticky"),  # balance: 11/10/9 where 10/10/10 exists
        ("streams-fresh-standbys-uneven", "streams-sticky"),  # task balance 5/4/3
        ("share-heterogeneous-skew", "share-simple"),  # balance 5 and 2
    ],
)
def test_the_exported_commands_judge_a_correct_and_a_defective_answer(capsys, tmp_path, monkeypatch, entry, defective):
    folder = tmp_path / "corpus"
    assert run(capsys, "bugs", "--export", folder)[0] == 0
    document = json.loads((folder / entry / "entry.json").read_text())
    assert document["name"] == entry and document["scenarios"] == ["scenario.json"]
    assert document["condition"] == dict(CONDITIONS[entry].document)
    monkeypatch.chdir(folder / entry)
    (check,) = document["judge"]["check"]
    # the optimum's answer (solve) meets the condition; the defective variant's (assign) does not
    for answer, gone in (("solve scenario.json -o answer.json", True), (None, False)):
        argv = answer.split() if answer else ["assign", "scenario.json", "--assignor", defective, "-o", "answer.json"]
        assert run(capsys, *argv)[0] == 0
        assert _passes(check, *_command(capsys, check["command"])) is gone
        assert _command(capsys, document["judge"]["answer"])[0] == (0 if gone else 1)


def test_the_export_is_the_same_bytes_and_refuses_a_folder_it_did_not_write(capsys, tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    assert run(capsys, "bugs", "--export", one)[0] == run(capsys, "bugs", "--export", two)[0] == 0
    files = json.loads((one / INDEX).read_text())["files"]
    assert len(files) == 2 + sum(1 + len(b.scenarios) for b in BUGS.values())
    assert all((one / f).read_bytes() == (two / f).read_bytes() for f in files)
    assert sorted(str(p.relative_to(one)) for p in one.rglob("*") if p.is_file()) == sorted(files)
    # a previous export is written again; a runner's answer beside it is left alone
    (one / "kafka-7026" / "answer.json").write_text("{}")
    (one / "README.md").write_text("changed")
    assert run(capsys, "bugs", "--export", one)[0] == 0
    assert (one / "README.md").read_bytes() == (two / "README.md").read_bytes()
    assert (one / "kafka-7026" / "answer.json").read_text() == "{}"
    # a folder it did not write, a path through a file, or with an entry: one line, exit 2, nothing written
    other = tmp_path / "other"
    other.mkdir()
    (other / "mine.txt").write_text("x")
    for argv, said in (
        (("bugs", "--export", other), "is not empty and holds no previous export"),
        (("bugs", "--export", other / "mine.txt" / "sub"), "--export"),
        (("bugs", "KAFKA-7026", "--export", tmp_path / "three"), "writes the whole corpus"),
    ):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "" and err.count("\n") == 1 and said in err
    assert sorted(p.name for p in other.iterdir()) == ["mine.txt"] and not (tmp_path / "three").exists()
