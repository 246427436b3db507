"""Streams group histories (compare.scenarios.streams_churn): deterministic plans, fed-back answers, state
on disk, each step judged against its exact optimum; properties, never outputs copied from a run."""

from __future__ import annotations

import pytest

from assignment_oracle.compare.scenarios.streams_churn import (
    ASSIGNORS,
    HISTORIES,
    plan,
    random_scenario,
    simulate,
)
from assignment_oracle.heuristics import streams_sticky
from assignment_oracle.optimal.streams_request import measure
from assignment_oracle.problem.streams import violations

SEEDS = (0, 1, 2)


def _kept(problem, assignment) -> tuple[int, int]:
    """Previous actives (standbys) still on their member in the same role, counted from the sets."""
    actives = standbys = 0
    for m in problem.members:
        given = assignment.members.get(m.member_id)
        if given is None:
            continue
        actives += len(set(m.active) & set(given.active))
        standbys += len(set(m.standby) & set(given.standby))
    return actives, standbys


@pytest.mark.parametrize("history", HISTORIES)
def test_plans_and_histories_are_deterministic_from_the_seed(history):
    assert plan(history, seed=4) == plan(history, seed=4)
    for assignor in ASSIGNORS:
        a = simulate(history, assignor, seed=4, tags=True)
        b = simulate(history, assignor, seed=4, tags=True)
        assert a.to_mapping() == b.to_mapping()
    others = {repr(plan(history, seed=s)) for s in range(8)}
    assert len(others) > 1  # the seed matters


@pytest.mark.parametrize("history", HISTORIES)
@pytest.mark.parametrize("seed", SEEDS)
def test_each_step_feeds_the_previous_answer_back_and_is_a_valid_scenario(history, seed):
    h = simulate(history, "streams-sticky", seed=seed, tags=seed % 2 == 1)
    assert len(h.steps) == len(h.plan.events) + 1
    for before, step in zip(h.steps, h.steps[1:]):
        problem = step.problem
        assert problem.stale_tasks() == {}
        # every member that was in the step before brings back exactly what it was given there
        for m in problem.members:
            if m.member_id in before.problem.member:
                assert set(m.active) == set(before.assignment.active_of(m.member_id))
                assert set(m.standby) == set(before.assignment.standby_of(m.member_id))
            else:
                assert m.active == () and m.standby == ()
            # state on disk: at least every stateful task its process's members held in the step before
            held = {
                t
                for other in before.problem.members
                if other.process_id == m.process_id
                for t in (*before.assignment.active_of(other.member_id), *before.assignment.standby_of(other.member_id))
                if problem.subtopology[t[0]].stateful
            }
            assert held <= {t for t, _ in m.task_offsets}
        # the row's numbers are the step's own, recomputed
        row = step.row()
        assert row["valid"] == (not violations(problem, step.assignment))
        assert (row["actives_kept"], row["standbys_kept"]) == _kept(problem, step.assignment)
        assert (row["optimal_actives_kept"], row["optimal_standbys_kept"]) == _kept(problem, step.optimum.assignment)
        assert row["actives_moved"] == sum(len(m.active) for m in problem.members) - row["actives_kept"]
        assert step.optimum.status == "OPTIMAL"


def test_rolling_restart_rejoins_with_new_ids_no_tasks_and_the_state_left_on_disk():
    h = simulate("rolling-restart", "streams-sticky", seed=2)
    leaves = [i for i, e in enumerate(h.plan.events, start=1) if e.kind == "leave"]
    assert len(leaves) == len({p for p in h.plan.members.values()})  # every process restarts once
    for i in leaves:
        stopped, back = h.steps[i], h.steps[i + 1]
        process = back.event.process
        assert process not in stopped.problem.processes
        before = h.steps[i - 1]
        old = {m.member_id for m in before.problem.members if m.process_id == process}
        new = {m.member_id for m in back.problem.members if m.process_id == process}
        assert new and not new & old  # new member ids on the same process
        held = {
            t
            for m in old
            for t in (*before.assignment.active_of(m), *before.assignment.standby_of(m))
            if back.problem.subtopology[t[0]].stateful
        }
        for m in back.problem.members:
            if m.process_id == process:
                assert m.active == () and m.standby == ()
                assert held <= {t for t, _ in m.task_offsets}
        # the members of the other processes keep what they were given while it was away
        for m in back.problem.members:
            if m.process_id != process:
                assert set(m.active) == set(stopped.assignment.active_of(m.member_id))


def test_scale_out_and_scale_in_change_the_processes_by_one_each_step():
    out = simulate("scale-out", "streams-sticky", seed=1, processes=2)
    counts = [len(s.problem.processes) for s in out.steps]
    assert counts == [2, 3, 4]
    gone = simulate("scale-in", "streams-sticky", seed=1, processes=3)
    counts = [len(s.problem.processes) for s in gone.steps]
    assert counts == [3, 2, 1]
    # a process that left for good takes its disk: nobody reports offsets from it
    for step in gone.steps[1:]:
        assert {m.process_id for m in step.problem.members} == set(step.problem.processes)


@pytest.mark.parametrize("assignor", ASSIGNORS)
@pytest.mark.parametrize("seed", range(6))
def test_steady_history_kept_everything_exactly_when_the_row_says_and_never_beats_the_optimum(assignor, seed):
    """Nothing changes: the fed-back answer is on the table.  Whether the port kept everything is read off the
    sets; when its previous answer was already as balanced as the optimum (equal on both balance tiers), the
    optimum keeps every copy (the identity is then optimal), so a port that moves something there moved what
    the optimum kept."""
    h = simulate("steady", assignor, seed=seed, tags=seed % 2 == 0)
    for step in h.steps[1:]:
        problem, row = step.problem, step.row()
        previous = sum(len(m.active) for m in problem.members), sum(len(m.standby) for m in problem.members)
        kept = _kept(problem, step.assignment)
        everything = kept == previous
        assert (row["actives_moved"] == 0 and row["standbys_moved"] == 0) == everything
        identity_as_balanced = all(
            measure(problem, _identity(problem)).value(t) == step.optimum.measures.value(t)
            for t in ("active-balance", "task-balance")
        )
        if identity_as_balanced and not problem.rack_aware_tags:
            assert _kept(problem, step.optimum.assignment) == previous
            assert (row["moved_optimum_kept"] == 0) == everything
        # the optimum keeps at least as much as the port whenever the port is as balanced as it
        if row["tiers"]["active-balance"] == "equal" and row["tiers"]["task-balance"] == "equal":
            if row["tiers"].get("tag-diversity", "equal") == "equal":
                assert (row["optimal_actives_kept"], row["optimal_standbys_kept"]) >= (
                    row["actives_kept"],
                    row["standbys_kept"],
                )


def _identity(problem):
    from assignment_oracle.problem.streams import MemberTasks, StreamsAssignment

    return StreamsAssignment({m.member_id: MemberTasks(m.active, m.standby) for m in problem.members})


def test_the_two_assignors_are_the_two_iteration_orders_of_the_port():
    problem = random_scenario(3, previous=True, processes=3, members=3)
    assert ASSIGNORS["streams-sticky"](problem) == streams_sticky.assign(problem, iteration_order="sorted")
    assert ASSIGNORS["streams-sticky-java"](problem) == streams_sticky.assign(problem, iteration_order="java")


@pytest.mark.parametrize("seed", SEEDS)
def test_random_scenarios_are_valid_groups_with_previous_tasks_when_asked(seed):
    fresh = random_scenario(seed, tags=True)
    assert all(not m.active and not m.standby and not m.task_offsets for m in fresh.members)
    assert fresh.rack_aware_tags == ("zone",) and all(dict(m.client_tags).get("zone") for m in fresh.members)
    later = random_scenario(seed, previous=True)
    assert later.stale_tasks() == {}
    held = [t for m in later.members for t in m.active]
    assert held and len(held) == len(set(held))  # the earlier owners that stayed, each task once
    assert any(not m.active and not m.standby for m in later.members)  # the new process
    assert random_scenario(seed, previous=True) == later


def test_unknown_names_and_parameters_are_one_line_errors():
    with pytest.raises(ValueError, match="unknown Streams history 'restart'"):
        simulate("restart")
    with pytest.raises(ValueError, match="unknown Streams assignor 'sticky'"):
        simulate("steady", "sticky")
    with pytest.raises(ValueError, match="processes must be an integer >= 1"):
        plan("steady", processes=0)
    with pytest.raises(ValueError, match="unknown parameter 'racks'"):
        plan("steady", racks=2)


def test_text_has_a_line_per_step_and_the_totals():
    h = simulate("scale-out", "streams-sticky-java", seed=0)
    text = h.text()
    assert len(text.splitlines()) == 2 + len(h.steps) + 1
    assert text.splitlines()[-1].startswith("streams-sticky-java on scale-out (seed 0):")
