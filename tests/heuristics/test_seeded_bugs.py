"""The mutation score: check_assignor with its defaults fails every seeded bug and passes every control.

The battery (heuristics/seeded_bugs.py) is written against the bug corpus, not against the strategies: each
seeded bug is first shown to fail on its own corpus entries' scenarios (compare/scenarios/bugs.py, written from
Kafka's and the client libraries' reports), then check_assignor, drawing its own groups, must find it too.
"""

import copy
import inspect

import pytest

from assignment_oracle.compare.scenarios.bugs import BUGS
from assignment_oracle.heuristics import seeded_bugs
from assignment_oracle.heuristics.seeded_bugs import CONTROLS, SEEDED_BUGS
from assignment_oracle.testing import OracleAssertionError, assert_guarantee, assert_optimal, check_assignor


def _judged(assign, scenario: dict, guarantee, folder) -> str | None:
    """Why ``assign``'s answer to ``scenario`` breaks ``guarantee`` (its exception's name if it raises); None:
    it keeps it."""
    try:
        answer = assign(copy.deepcopy(scenario))
    except Exception as err:  # noqa: BLE001 - a crash is the defect of some rows
        return type(err).__name__
    try:
        if guarantee is None:
            assert_optimal(scenario, answer, folder=folder)
        else:
            assert_guarantee(scenario, answer, guarantee, folder=folder)
    except OracleAssertionError as err:
        return str(err)
    return None


@pytest.mark.parametrize("bug", SEEDED_BUGS, ids=lambda b: b.name)
def test_check_assignor_with_its_defaults_catches_the_seeded_bug(bug, tmp_path):
    with pytest.raises(OracleAssertionError) as err:
        check_assignor(bug.assign, kinds=bug.kind, guarantee=bug.guarantee, folder=tmp_path)
    message = str(err.value)
    for symptom in bug.symptom:
        assert symptom in message, (symptom, message)
    # the shrunk counterexample is one: judged again on its own, outside check_assignor, it fails the same way
    assert _judged(bug.assign, err.value.scenario, bug.guarantee, tmp_path) is not None


@pytest.mark.parametrize("control", CONTROLS, ids=lambda c: c.name)
def test_check_assignor_with_its_defaults_passes_the_control(control, tmp_path):
    check_assignor(control.assign, kinds=control.kind, guarantee=control.guarantee, folder=tmp_path)


@pytest.mark.parametrize("bug", SEEDED_BUGS, ids=lambda b: b.name)
def test_each_seeded_bug_fails_on_the_corpus_entries_it_mirrors(bug, tmp_path):
    """On every corpus entry of its own kind it names, some scenario of the entry shows the defect (a Streams row
    that names a consumer group entry is its analogue: nothing to replay)."""
    own = [name for name in bug.mirrors if BUGS[name].kind == bug.kind]
    for name in own:
        found = [_judged(bug.assign, dict(s), bug.guarantee, tmp_path) for s in BUGS[name].scenarios]
        assert any(found), name
    assert own or bug.kind == "streams"  # every consumer and share row mirrors an entry of its kind


@pytest.mark.parametrize("control", [c for c in CONTROLS if callable(c.assign)], ids=lambda c: c.name)
def test_each_json_control_keeps_its_guarantee_on_every_corpus_scenario_of_its_kind(control, tmp_path):
    scenarios = [dict(s) for bug in BUGS.values() if bug.kind == control.kind for s in bug.scenarios]
    assert scenarios
    guarantee = control.guarantee or "valid"  # the corpus's groups, large ones included: only validity
    assert [s for s in scenarios if _judged(control.assign, s, guarantee, tmp_path)] == []


def test_the_battery_has_a_row_per_defect_class_of_the_issue_and_names_real_entries():
    assert all(name in BUGS for bug in SEEDED_BUGS for name in bug.mirrors)
    assert len({bug.name for bug in SEEDED_BUGS}) == len(SEEDED_BUGS)
    assert {bug.kind for bug in SEEDED_BUGS} == {"consumer", "streams", "share"}
    assert {c.kind for c in CONTROLS} == {"consumer", "streams", "share"}
    mirrored = {name for bug in SEEDED_BUGS for name in bug.mirrors}
    for entry in (
        "kafka-7026",
        "kafka-12984-equal-generation",
        "aiokafka-1176-no-generation",
        "kafka4-stale-owner-unsubscribed",
        "faust-claim-out-of-range",
        "kafka-16930-empty-subscription",
        "kafka-node-range-missing-topic",
        "kafka-go-missing-topic-assigns-nothing",
        "kafkajs-roundrobin-subscriptions",
        "kafka-go-roundrobin-per-topic",
        "faust-new-member-gets-nothing",
        "share-held-unassignable-kept",
        "share-unsubscribed-topic-kept",
        "share-held-unassignable-crash",
    ):
        assert entry in mirrored, entry


def test_the_battery_does_not_know_the_strategies():
    """A seeded bug reacts to a shape of input, never to a name the strategies give (``joined-``, ``zombie-``,
    ``missing-``, ``idle-``, ``rejoined-``...): the module reads no strategy and spells none of their names."""
    source = inspect.getsource(seeded_bugs)
    assert "scenarios.strategies" not in source and "assignment_oracle.strategies" not in source
    for name in ("joined-", "zombie-", "missing-", "idle-", "rejoined-", "instance-", "rack-none", "process-"):
        assert f'"{name}' not in source and f"'{name}" not in source, name
