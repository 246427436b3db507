"""Share group histories (compare/scenarios/share_churn.py): events as planned, answers fed back, each step judged.

Expected values are properties of the histories as the module defines them: a member brings back exactly
what it was given in the step before; a member that joins (or comes back with a new id) holds nothing; the
optimum's own trajectory is optimal at every step; a steady homogeneous group is left as it is by Kafka's
assignor (its promise: as few movements as possible) once settled.
"""

from __future__ import annotations

import json

import pytest

from assignment_oracle.compare.scenarios import share_churn as sc
from assignment_oracle.problem.share import violations


@pytest.mark.parametrize("history", sc.HISTORIES)
@pytest.mark.parametrize("heterogeneous", [False, True])
def test_answers_are_fed_back_and_every_step_is_judged(history, heterogeneous):
    played = sc.simulate(history, "share-simple", seed=2, heterogeneous=heterogeneous, members=4)
    steps = played.steps
    assert steps[0].event.kind == "start" and all(not m.assigned for m in steps[0].problem.members)
    for before, after in zip(steps, steps[1:]):
        for m in after.problem.members:
            given = before.assignment.of(m.member_id) if m.member_id in before.problem.member else ()
            assert m.assigned == tuple(sorted(given)), (history, after.index, m.member_id)
        assert after.verdict is not None and after.verdict.kind == "share"
    for row in played.rows():
        assert row["status"] == "ok" and row["valid"]
        assert row["moved"] == row["owned"] - row["kept"] and row["optimal_moved"] >= 0


@pytest.mark.parametrize("history", sc.HISTORIES)
def test_the_optimums_trajectory_is_optimal_at_every_step(history):
    played = sc.simulate(history, sc.OPTIMUM, seed=5, heterogeneous=True)
    assert all(r["verdict"] == "optimal" for r in played.rows())
    assert played.totals()["moved"] == played.totals()["optimal_moved"]


def test_a_steady_homogeneous_group_keeps_everything():
    played = sc.simulate("steady", "share-simple", seed=0, steps=3)
    assert [r["moved"] for r in played.rows()[1:]] == [0, 0, 0]


def test_events_do_what_they_say():
    restart = sc.plan("rolling-restart", seed=1, members=3)
    assert [e.kind for e in restart.events] == ["leave", "join"] * 3
    played = sc.play(restart, "share-simple")
    for step in played.steps:
        if step.event.kind == "join":
            assert step.event.member.endswith("-r1") and not step.problem.member[step.event.member].assigned
    grow = sc.play(sc.plan("assignable", seed=4, partitions=6), "share-simple")
    counts = [r["partitions"] for r in grow.rows()]
    assert counts == sorted(counts) and counts[-1] > counts[0]
    shrink = sc.plan("scale-in", seed=0, members=2, steps=5)
    assert len(shrink.events) == 1  # at least one member stays


def test_the_same_arguments_give_the_same_document():
    a = sc.simulate("scale-out", "share-simple-java", seed=7, heterogeneous=True).to_mapping()
    b = sc.simulate("scale-out", "share-simple-java", seed=7, heterogeneous=True).to_mapping()
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert a["kind"] == "share-history" and a["totals"]["steps"] == 3


def test_single_rebalances_for_sweeps():
    fresh = sc.random_scenario(3)
    assert all(not m.assigned for m in fresh.members)
    later = sc.random_scenario(3, previous=True, heterogeneous=True)
    assert any(m.assigned for m in later.members)
    for m in later.members:  # what was held was Kafka's answer on topics the member still subscribes to
        assert all(t in m.topics for t, _ in m.assigned)
    assert violations(later, later_answer(later)) == ()


def later_answer(problem):
    from assignment_oracle.heuristics import share_simple

    return share_simple.assign(problem)


@pytest.mark.parametrize(
    "call, needle",
    [
        (lambda: sc.plan("nope"), "unknown share history"),
        (lambda: sc.plan("steady", members=0), "members must be an integer >= 1"),
        (lambda: sc.plan("steady", heterogeneous=1), "heterogeneous must be true or false"),
        (lambda: sc.plan("steady", racks=2), "unknown parameter 'racks'"),
        (lambda: sc.simulate("steady", "range"), "unknown share assignor"),
        (lambda: sc.random_scenario(0, steps=2), "steps is a history's parameter"),
    ],
)
def test_bad_parameters_are_one_clear_error(call, needle):
    with pytest.raises(ValueError, match=needle):
        call()
