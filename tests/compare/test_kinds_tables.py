"""The kinds' tables agree with each other (issue 48): every layer's table has a row for every kind of group in
problem.kinds, and what the command line, the sweep and the report call the optimum's own rows is one list."""

from __future__ import annotations

import pytest

from assignment_oracle.compare.judge import KINDS as JUDGE_KINDS
from assignment_oracle.compare.judge.front import ORACLE_ROWS
from assignment_oracle.heuristics.registry import REGISTRIES, get_assignor
from assignment_oracle.optimal.engines import GROUP_MODELS
from assignment_oracle.problem.errors import AssignorOfAnotherKind, UnknownAssignor
from assignment_oracle.problem.kinds import KINDS, kind_named, kind_of, kind_of_scenario
from assignment_oracle.problem.load import load_scenario
from assignment_oracle.testing import KINDS as ORACLE_KINDS


def test_every_layer_has_a_row_for_every_kind():
    assert set(JUDGE_KINDS) == set(KINDS)
    assert set(REGISTRIES) == set(KINDS)
    assert set(ORACLE_KINDS) == set(KINDS)
    from assignment_oracle.commands import REFUSES, REFUSES_IN_COMPARE
    from assignment_oracle.optimal.engines import OBJECTIVES

    assert set(REFUSES) == set(REFUSES_IN_COMPARE) == set(OBJECTIVES) == set(KINDS)
    # a kind with its own model is a kind; the consumer group is the engines' own
    assert set(GROUP_MODELS) | {"consumer"} == set(KINDS)


def test_the_optimums_own_rows_are_one_list():
    from assignment_oracle.commands import _OPTIMUM_ROWS
    from assignment_oracle.compare.report.tables import ORACLE
    from assignment_oracle.compare.sweep.rows import SHARE_OPTIMUM, STREAMS_OPTIMUM

    assert _OPTIMUM_ROWS == frozenset(ORACLE_ROWS)
    # every row the report counts as the oracle's is left out of --fail-on (optimum-share was not)
    assert set(ORACLE) <= set(ORACLE_ROWS)
    assert {STREAMS_OPTIMUM, SHARE_OPTIMUM} <= set(ORACLE_ROWS)


@pytest.mark.parametrize(
    "document, kind",
    [
        ({"topics": {"t": 1}, "members": {"a": {"topics": ["t"]}}}, "consumer"),
        (
            {
                "kind": "streams",
                "subtopologies": {"0": {"tasks": 1, "stateful": False}},
                "members": {"a": {"process": "p"}},
            },
            "streams",
        ),
        ({"kind": "share", "topics": {"t": 1}, "members": {"a": {"topics": ["t"]}}}, "share"),
    ],
)
def test_a_scenario_is_read_by_its_kind_and_found_by_its_type(document, kind):
    assert kind_of_scenario(document).name == kind
    problem = load_scenario(document)
    assert kind_of(problem) is kind_named(kind)


def test_an_unknown_kind_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown kind of group 'connect' .known: "):
        kind_named("connect")
    with pytest.raises(TypeError, match="no kind of group is a dict"):
        kind_of({})


@pytest.mark.parametrize(
    "name, kind, message",
    [
        (
            "streams-sticky",
            "consumer",
            "streams-sticky is a Streams group assignor (KIP-1071); s.json is a consumer group",
        ),
        ("share-simple", "streams", "share-simple is a share group assignor (KIP-932); s.json is a Streams group"),
        ("range", "share", "range is a consumer group assignor; s.json is a share group scenario"),
        ("external:./x", "share", "external:./x is a consumer group assignor; s.json is a share group"),
    ],
)
def test_another_kinds_assignor_is_one_refusal(name, kind, message):
    with pytest.raises(AssignorOfAnotherKind) as refused:
        get_assignor(name, kind=kind, source="s.json")
    assert message in str(refused.value)
    assert "\n" not in str(refused.value)


def test_a_name_nobody_registered_lists_the_kinds_own():
    with pytest.raises(UnknownAssignor, match=r"unknown share group assignor 'nope' \(known: share-simple"):
        get_assignor("nope", kind="share")
    with pytest.raises(UnknownAssignor, match=r"unknown assignor 'nope' \(known: range, .*or external:COMMAND\)"):
        get_assignor("nope")
