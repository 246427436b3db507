"""The one rule for invented names (problem.invented), on every kind of group: the optimum plus a member the
group does not have (``"ghost": {}``) or a topic / subtopology it does not have (``"nosuch": []``) is not a
valid assignment, for the library's validity, ``check`` (exit 3) and ``assert_optimal`` alike.

Each case starts from the group's proven optimum (which ``check`` calls optimal, exit 0, and which every
kind's validity accepts), so the only thing wrong with the answer is the invented name.
"""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from assignment_oracle.cli import bundled_examples, main
from assignment_oracle.optimal import solve
from assignment_oracle.problem import invented as invented_rule
from assignment_oracle.problem.load import load_assignment, load_scenario
from assignment_oracle.testing import OracleAssertionError, assert_optimal

EXAMPLES = {p.stem: p for p in bundled_examples()}
#: One bundled example per kind of group, and how its answer names a container (a topic or a subtopology).
CASES = {
    "consumer": "kip54-example-1-rebalance",
    "streams": "streams-rolling-restart",
    "share": "share-rebalance",
}


def _optimum(name: str) -> tuple[object, dict]:
    """The example's problem and its proven optimum as the JSON ``check`` reads."""
    problem = load_scenario(EXAMPLES[name])
    solution = solve(problem)
    mapping = solution.assignment.to_mapping()
    document = mapping if "members" in mapping and len(mapping) == 1 else {"assignment": mapping}
    return problem, json.loads(json.dumps(document))


def _members(document: dict) -> dict:
    return document["members"] if "members" in document else document["assignment"]


def _with_ghost(document: dict) -> dict:
    out = json.loads(json.dumps(document))
    _members(out)["ghost"] = {}
    return out


def _with_unknown_container(document: dict) -> dict:
    out = json.loads(json.dumps(document))
    members = _members(out)
    first = next(iter(members))
    if "members" in out:  # a Streams group: a subtopology listed with no tasks
        members[first].setdefault("active", {})["nosuch"] = []
    else:
        members[first]["nosuch"] = []
    return out


def _check(scenario, answer: dict, tmp_path) -> tuple[int, str]:
    path = tmp_path / "answer.json"
    path.write_text(json.dumps(answer))
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["check", str(scenario), str(path)])
    return code, out.getvalue()


@pytest.mark.parametrize("kind", sorted(CASES))
def test_the_optimum_itself_is_valid_and_optimal(kind, tmp_path):
    name = CASES[kind]
    problem, optimum = _optimum(name)
    assert load_assignment(optimum, problem) is not None
    assert _check(EXAMPLES[name], optimum, tmp_path)[0] == 0
    assert_optimal(EXAMPLES[name], optimum)


@pytest.mark.parametrize("change", [_with_ghost, _with_unknown_container], ids=["member", "topic"])
@pytest.mark.parametrize("kind", sorted(CASES))
def test_an_invented_name_is_invalid(kind, change, tmp_path):
    name = CASES[kind]
    _, optimum = _optimum(name)
    answer = change(optimum)
    code, out = _check(EXAMPLES[name], answer, tmp_path)
    assert code == 3, out
    assert "ghost" in out or "nosuch" in out, out
    with pytest.raises(OracleAssertionError, match="not valid"):
        assert_optimal(EXAMPLES[name], answer)


def test_the_rule_leaves_holdings_to_the_kinds_own_checks():
    found = invented_rule.invented(
        [("a", True), ("ghost", False), ("spectre", True)],
        [("a", "t"), ("a", "nosuch"), ("ghost", "nosuch"), ("a", "nosuch")],
        members={"a"},
        containers={"t"},
    )
    # a member that holds something is the kind's to report; a pair of an unknown member is the member's
    assert found.members == ("ghost",)
    assert found.containers == (("a", "nosuch"),)
    assert not invented_rule.invented([("a", False)], [("a", "t")], members={"a"}, containers={"t"})
