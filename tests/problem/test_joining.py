"""problem/joining.py: a scenario's ``"joining"`` member, for every kind of group, through to Java's order.

Expected values are Kafka's (the reproduction of issue 49: the coordinator puts the heartbeating, joining member
after the others, and Kafka gives the one partition to it) or the library's own ``joining=`` keyword, called on
the scenario *without* the field: the command line's path (the scenario's field, ``--joining``) is checked
against that independent call, never against itself.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import random

import pytest

from assignment_oracle.cli import main
from assignment_oracle.compare.scenarios import share_churn, streams_churn
from assignment_oracle.compare.scenarios.churn import history_from_mapping, simulate
from assignment_oracle.heuristics import share_simple, streams_sticky, uniform
from assignment_oracle.problem.errors import InputError
from assignment_oracle.problem.joining import with_joining
from assignment_oracle.problem.kinds import KINDS
from assignment_oracle.problem.scenario_json import dumps

H, J = "HCCaphW2Sciy7OPoFqQtaQ", "J3CMRz-3SQqcaZY9Famafw"
#: Issue 49's reproduction: two members (H listed first), one topic of one partition with its Kafka id.
REPRODUCTION = {
    "topics": {"t": {"partitions": 1, "id": "AAAAAAAAAAAAAAAAAAAAAQ"}},
    "members": {H: {"topics": ["t"]}, J: {"topics": ["t"]}},
}
#: Member ids to draw from: the reproduction's pair and ids whose buckets collide in Java's HashMap
#: (tests/heuristics/test_timeline_order.py), so the joining member changes some answers.
POOL = [H, J, "m0", "m1", "m2", "m3", "G4", "ZpR"]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def written(tmp_path, document: dict, name: str = "scenario.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return str(path)


def uuid(rng: random.Random) -> str:
    return base64.urlsafe_b64encode(rng.randbytes(16)).decode().rstrip("=")


# -- drawn groups of each kind (a few members from POOL, listed in a random join order) -----------------------


def consumer_scenario(rng: random.Random) -> dict:
    topics = {f"t{i}": {"partitions": rng.randint(1, 6), "id": uuid(rng)} for i in range(rng.randint(1, 3))}
    names = list(topics)
    members = {}
    for m in rng.sample(POOL, rng.randint(2, 5)):
        members[m] = {"topics": sorted(rng.sample(names, rng.randint(1, len(names))))}
    for t, spec in topics.items():  # some partitions owned by one subscriber at generation 1
        for p in range(spec["partitions"]):
            holders = [m for m, e in members.items() if t in e["topics"]]
            if rng.random() < 0.4:
                entry = members[rng.choice(holders)]
                entry.setdefault("owned", {}).setdefault(t, []).append(p)
                entry["generation"] = 1
    return {"topics": topics, "members": members}


def streams_scenario(rng: random.Random) -> dict:
    subs = {f"s{i}": {"tasks": rng.randint(1, 5), "stateful": rng.random() < 0.5} for i in range(rng.randint(1, 2))}
    processes, previous = rng.choice([0, 2]), rng.choice([0.0, 0.4])  # one process's members: the order decides
    members = {m: {"process": f"p{rng.randint(0, processes)}"} for m in rng.sample(POOL, rng.randint(2, 6))}
    for s, spec in subs.items():
        for p in range(spec["tasks"]):
            if rng.random() < previous:
                members[rng.choice(list(members))].setdefault("active", {}).setdefault(s, []).append(p)
    return {"kind": "streams", "subtopologies": subs, "standby_replicas": rng.randint(0, 1), "members": members}


def share_scenario(rng: random.Random) -> dict:
    topics = {f"t{i}": {"partitions": rng.randint(1, 5), "id": uuid(rng)} for i in range(rng.randint(1, 2))}
    names = list(topics)
    members = {}
    for m in rng.sample(POOL, rng.randint(2, 5)):
        subscribed = sorted(rng.sample(names, rng.randint(1, len(names))))
        members[m] = {"topics": subscribed}
        if rng.random() < 0.4:
            t = rng.choice(subscribed)
            members[m]["assigned"] = {t: sorted(rng.sample(range(topics[t]["partitions"]), 1))}
    return {"kind": "share", "topics": topics, "members": members}


#: kind -> (drawn scenario, [(assignor name, the library call with joining=)]).
PORTS = {
    "consumer": (
        consumer_scenario,
        [
            ("uniform", lambda p, m: uniform.assign(p, iteration_order="java", joining=m)),
            (
                "uniform-4.0.0",
                lambda p, m: uniform.assign(p, variant=uniform.KAFKA_4_0_0, iteration_order="java", joining=m),
            ),
        ],
    ),
    "streams": (
        streams_scenario,
        [("streams-sticky", lambda p, m: streams_sticky.assign(p, iteration_order="java", joining=m))],
    ),
    "share": (
        share_scenario,
        [("share-simple", lambda p, m: share_simple.assign(p, iteration_order="java", joining=m))],
    ),
}


def problem_of(kind: str, document: dict):
    return KINDS[kind].read_scenario(document, "scenario", None, None)


def answer_of(kind: str, problem, assignment) -> dict:
    """The assignment as ``assign`` writes it (every member listed), decoded: what the command's output holds."""
    document = KINDS[kind].answer_document(problem, assignment)
    return json.loads(dumps(document))["assignment"] if "assignment" in document else json.loads(dumps(document))


# -- the reproduction ------------------------------------------------------------------------------------------


def test_the_joining_member_gets_the_partition_as_in_kafka(tmp_path, capsys):
    """Issue 49: Kafka gives the one partition to J3CMRz..., joining; with nobody joining, Java's order gives it
    to HCCaphW2...  The library's joining=, the scenario's field and --joining all say so."""
    problem = problem_of("consumer", REPRODUCTION)
    assert uniform.assign(problem, iteration_order="java", joining=J).to_mapping() == {H: {}, J: {"t": [0]}}
    assert uniform.assign(problem, iteration_order="java").to_mapping() == {H: {"t": [0]}, J: {}}
    with_field = written(tmp_path, {**REPRODUCTION, "joining": J})
    plain = written(tmp_path, REPRODUCTION, "plain.json")
    for argv in ((with_field,), (plain, "--joining", J)):
        code, out, _ = run(capsys, "assign", *argv, "--assignor", "uniform", "--iteration-order", "java")
        assert code == 0
        assert json.loads(out)["assignment"] == {H: {}, J: {"t": [0]}}


# -- the property: the scenario's field == the library's joining= ------------------------------------------------


@pytest.mark.parametrize("kind", list(PORTS))
def test_assign_in_java_order_reads_the_scenarios_joining_as_the_library_does(kind, tmp_path, capsys):
    """Random small groups of each kind, each member in turn joining: ``assign --iteration-order java`` on the
    scenario with ``"joining"`` answers what the port's ``joining=`` answers on the scenario without it (and
    ``--joining`` on the scenario without it the same).  Some answers depend on who joins, so the field is
    not ignored."""
    draw, ports = PORTS[kind]
    rng = random.Random(f"joining|{kind}")
    depends = 0
    for _ in range(12):
        scenario = draw(rng)
        problem = problem_of(kind, scenario)
        plain = written(tmp_path, scenario, "plain.json")
        for name, library in ports:
            nobody = answer_of(kind, problem, library(problem, None))
            for member in scenario["members"]:
                expected = answer_of(kind, problem, library(problem, member))
                depends += expected != nobody
                with_field = written(tmp_path, {**scenario, "joining": member})
                for argv in ((with_field,), (plain, "--joining", member)):
                    code, out, err = run(capsys, "assign", *argv, "--assignor", name, "--iteration-order", "java")
                    assert code == 0, err
                    assert json.loads(out)["assignment"] == expected, (name, member, scenario)
    assert depends > 0


# -- the field itself ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(PORTS))
def test_the_field_survives_round_trips_and_the_next_round_has_nobody_joining(kind):
    """Each kind's to_mapping writes ``"joining"`` back (through JSON text too), from_mapping reads it, equal
    problems; a scenario without it has none; the kind's fed_back (the next round) drops it."""
    draw, ports = PORTS[kind]
    rng = random.Random(f"round trip|{kind}")
    for _ in range(20):
        scenario = draw(rng)
        member = rng.choice(list(scenario["members"]))
        problem = problem_of(kind, {**scenario, "joining": member})
        assert problem.joining == member
        mapping = problem.to_mapping()
        assert mapping["joining"] == member
        assert problem_of(kind, mapping) == problem
        assert problem_of(kind, json.loads(dumps(mapping))) == problem
        assert problem_of(kind, scenario).joining is None and "joining" not in problem_of(kind, scenario).to_mapping()
        assert problem_of(kind, scenario) != problem  # the field is part of the problem
        given = {**scenario, "joining": member}
        before = json.dumps(given, sort_keys=True)
        answer = answer_of(kind, problem, ports[0][1](problem, None))
        members = answer.get("members", answer) if kind == "streams" else answer
        nxt = KINDS[kind].fed_back(given, members, None)
        assert "joining" not in nxt and json.dumps(given, sort_keys=True) == before
        assert problem_of(kind, nxt).joining is None


@pytest.mark.parametrize("kind", list(PORTS))
@pytest.mark.parametrize(
    "value, problem_text",
    [
        ("ghost", '"ghost" is not a member of the group'),
        (3, "must be a string, got number 3"),
        ("", "must not be empty"),
        (["m0"], "must be a string, got an array"),
    ],
)
def test_a_joining_member_not_in_the_group_is_one_line_naming_joining(kind, value, problem_text):
    scenario = PORTS[kind][0](random.Random(1))
    with pytest.raises(InputError) as err:
        problem_of(kind, {**scenario, "joining": value})
    assert err.value.field == "joining" and problem_text in err.value.problem
    assert "\n" not in str(err.value)
    assert problem_of(kind, {**scenario, "joining": None}).joining is None  # null: nobody


def test_a_port_keyword_overrides_the_scenarios_field_and_checks_it():
    problem = problem_of("consumer", {**REPRODUCTION, "joining": J})
    assert (
        uniform.assign(problem, iteration_order="java", joining=H).to_mapping()
        == uniform.assign(problem_of("consumer", REPRODUCTION), iteration_order="java", joining=H).to_mapping()
    )
    with pytest.raises(ValueError, match="uniform: the joining member 'nobody' is not in the group"):
        uniform.assign(problem, iteration_order="java", joining="nobody")
    with pytest.raises(InputError, match='^--joining: "nobody" is not a member of the group'):
        with_joining(problem, "nobody")


# -- the command line ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ("assign", "{scenario}", "--assignor", "uniform"),
        ("compare", "{scenario}", "--assignors", "range"),
        ("simulate", "--seed", "1", "--assignor", "range"),
    ],
)
def test_an_unknown_joining_member_is_exit_2_naming_the_option(command, tmp_path, capsys):
    scenario = written(tmp_path, REPRODUCTION)
    argv = [a.format(scenario=scenario) for a in command]
    code, out, err = run(capsys, *argv, "--joining", "gh\x1bost")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "--joining" in err and "Traceback" not in err and "\x1b" not in err


def test_compare_runs_streams_ports_with_the_joining_member(tmp_path, capsys):
    """compare on a Streams group runs streams-sticky in Java's order (its ``-java`` row) with ``--joining``:
    the row's answer is the library's joining= answer."""
    rng = random.Random("compare")
    for _ in range(30):  # a group whose answer depends on who joins
        scenario = streams_scenario(rng)
        problem = problem_of("streams", scenario)
        nobody = streams_sticky.assign(problem, iteration_order="java")
        member = next(
            (
                m
                for m in problem.member_ids
                if streams_sticky.assign(problem, iteration_order="java", joining=m) != nobody
            ),
            None,
        )
        if member is not None:
            break
    assert member is not None
    path = written(tmp_path, scenario)
    answers = []
    for extra in ((), ("--joining", member)):
        code, out, err = run(capsys, "compare", path, "--assignors", "all", "--json", *extra)
        assert code in (0, 1), err
        answers.append(json.dumps(json.loads(out)["rows"], sort_keys=True))
    assert answers[0] != answers[1]


# -- simulate: who joins each round --------------------------------------------------------------------------


HISTORY = {
    "topics": {"t": 4},
    "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}},
    "rounds": [
        [{"join": "c", "topics": ["t"]}],
        [],
        [{"join": "d", "topics": ["t"]}, {"join": "e", "topics": ["t"]}],
        [{"join": "f", "topics": ["t"]}, {"leave": "f"}],
        [{"leave": "a"}, {"zombie": "a", "rounds_ago": 2}],
    ],
}


def test_each_round_has_the_member_its_events_added_last_joining():
    """Kafka's coordinator adds the heartbeating member after the group's: round r's problem names the member
    the round's events added last (a join, a zombie rejoining), nobody in a round that adds nobody or whose
    joiner left again; round 0 the history's own ``"joining"`` (none: nobody)."""
    played = simulate(history_from_mapping(HISTORY), "range")
    assert [r.problem.joining for r in played.rounds] == [None, "c", None, "e", None, "a"]
    with_start = history_from_mapping({**HISTORY, "joining": "b"})
    assert with_start.to_mapping()["joining"] == "b" and history_from_mapping(with_start.to_mapping()) == with_start
    assert simulate(with_start, "range").rounds[0].problem.joining == "b"
    with pytest.raises(InputError, match='joining: "z" is not a member of the group'):
        history_from_mapping({**HISTORY, "joining": "z"})


def test_simulate_joining_sets_round_0(tmp_path, capsys):
    path = written(tmp_path, HISTORY, "history.json")
    code, out, err = run(capsys, "simulate", path, "--assignor", "range", "--joining", "b", "--json")
    assert code == 0, err
    assert json.loads(out)["history"]["joining"] == "b"


@pytest.mark.parametrize(
    "module, history, assignor",
    [
        (streams_churn, "rolling-restart", "streams-sticky-java"),
        (streams_churn, "scale-out", "streams-sticky-java"),
        (share_churn, "rolling-restart", "share-simple-java"),
        (share_churn, "scale-out", "share-simple-java"),
    ],
)
def test_a_streams_or_share_history_step_has_the_member_it_added_last_joining(module, history, assignor):
    """A Streams or share history's step names, as its problem's joining member, the last member its event added
    (a Streams process's members join in the listed order; a share member joins alone); nobody at step 0 or
    when the step added nobody, and the Java-order port answers as the library does with that joining=."""
    played = module.simulate(history, assignor, seed=3)
    seen = 0
    for step in played.steps:
        added = tuple(getattr(step.event, "members", ()) or ()) or (
            (step.event.member,) if step.event.kind == "join" else ()
        )
        expected = added[-1] if step.index and added else None
        assert step.problem.joining == expected, (step.index, step.event)
        seen += expected is not None
        port = streams_sticky if module is streams_churn else share_simple
        plain = dataclasses.replace(step.problem, joining=None)
        assert step.assignment == port.assign(plain, iteration_order="java", joining=expected)
    assert seen > 0
