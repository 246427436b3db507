"""Churn simulation: the history format, the round model, and a state machine over random events.

The state machine (:class:`ChurnMachine`) plays one event per round against
several assignors at once and checks after every step, independently of
``compare.scenarios.churn``'s own arithmetic: the oracle's optimum of both
trajectories is certified; each assignor keeps its guarantee and is valid
(``sticky-kip54``: exactly the pre-KIP-341 duplicates); ``owned``,
``retained`` and ``moved`` agree with claim resolution recomputed here; each
member's claims are what the previous round gave it (or nothing, or a
zombie's old round); cumulative sums match; and the oracle trajectory is the
same whichever assignor is played.
"""

from __future__ import annotations

import doctest
import json
from importlib import resources
from pathlib import Path

import hypothesis
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

import assignment_oracle.compare.scenarios.churn as churn
from assignment_oracle.compare.judge.evaluate import ERROR, INVALID, OK, TIMEOUT, Evaluation
from assignment_oracle.compare.scenarios.churn import (
    CreatePartitions,
    CreateTopic,
    DeleteTopic,
    History,
    Join,
    Leave,
    StaticBounce,
    SubscriptionChange,
    ZombieRejoin,
    history_from_mapping,
    random_history,
    read_history,
    simulate,
)
from assignment_oracle.heuristics import UnknownAssignor, runner
from assignment_oracle.optimal import verify
from assignment_oracle.problem import InputError, Member, Topic
from assignment_oracle.problem.claims import resolve_claims
from assignment_oracle.problem.scenario_json import dumps

EXAMPLES = sorted(
    Path(str(p))
    for p in (resources.files("assignment_oracle") / "examples" / "churn").iterdir()
    if p.name.endswith(".json")
)

# -- independent checks shared by the state machine and the example tests ------------


def multiply_claimed(problem) -> set[tuple[str, int]]:
    """Existing partitions two or more subscribed members claim (as in test_contract)."""
    claimants: dict[tuple[str, int], set[str]] = {}
    for m in problem.members:
        for topic, partitions in m.owned:
            if topic in m.topics and topic in problem.partition_counts:
                for p in partitions:
                    if 0 <= p < problem.partition_counts[topic]:
                        claimants.setdefault((topic, p), set()).add(m.member_id)
    return {tp for tp, who in claimants.items() if len(who) > 1}


def owned_and_retained(problem, assignment) -> tuple[int, int]:
    """Partitions with a resolved previous owner, and how many the assignment leaves with it."""
    owner = resolve_claims(problem).previous_owner
    ids = problem.member_ids
    owned = sum(int((array >= 0).sum()) for array in owner.values())
    kept = {
        (topic, p)
        for member, topics in assignment.members.items()
        for topic, partitions in topics.items()
        for p in partitions
        if topic in owner and 0 <= p < owner[topic].size and owner[topic][p] >= 0 and ids[owner[topic][p]] == member
    }
    return owned, len(kept)


def check_round(name: str, simulation) -> None:
    """Every invariant of the simulation's last round (see the module docstring)."""
    rnd = simulation.rounds[-1]
    assert rnd.index == len(simulation.rounds) - 1 and rnd.generation == rnd.index + 1
    for problem, solution in ((rnd.problem, rnd.optimum), (rnd.oracle_problem, rnd.oracle)):
        assert solution.certificate is not None
        assert verify(problem, solution.assignment, solution.certificate) == ()

    e = rnd.evaluation
    assert e.status in (OK, INVALID), e.message
    v = e.verdict
    doubled = multiply_claimed(rnd.problem)
    if name == "sticky-kip54" and doubled:
        assert {x["kind"] for x in v.violation_details} == {"duplicated"}
        assert {(x["topic"], p) for x in v.violation_details for p in x["partitions"]} == doubled
    else:
        assert v.violations == () and e.status == OK
        assert e.guarantee.kept, e.guarantee.reason

    owned, kept = owned_and_retained(rnd.problem, e.assignment)
    measures = v.measures
    assert (v.owned, measures["retained"], rnd.moved) == (owned, kept, owned - kept)
    assert measures["moved"] >= 0
    if measures["most_balanced"]:
        assert measures["retained"] <= measures["optimal_retained"]
    assert rnd.optimal_moved == owned - rnd.optimum.retained >= 0
    oracle_owned, oracle_kept = owned_and_retained(rnd.oracle_problem, rnd.oracle.assignment)
    assert rnd.oracle_moved == oracle_owned - oracle_kept >= 0

    assert rnd.cumulative_moved == sum(r.moved for r in simulation.rounds)
    assert rnd.cumulative_oracle_moved == sum(r.oracle_moved for r in simulation.rounds)
    check_claims(simulation)


def claim_sources(simulation) -> dict[str, int | None]:
    """Member -> the round whose assignment it claims (None: no claims), replaying the
    last round's events here rather than trusting ``compare.scenarios.churn``."""
    rounds = simulation.rounds
    rnd = rounds[-1]
    if rnd.index == 0:
        return {m: None for m in rnd.problem.member_ids}
    source: dict[str, int | None] = {m: rnd.index - 1 for m in rounds[-2].problem.member_ids}
    for event in rnd.events:
        if isinstance(event, (Join, StaticBounce)):
            source[event.member_id] = None
        elif isinstance(event, Leave):
            del source[event.member_id]
        elif isinstance(event, ZombieRejoin):
            source[event.member_id] = rnd.index - event.rounds_ago
    return source


def check_claims(simulation) -> None:
    """Each member claims what the round it claims from gave it, with that round's generation."""
    rounds = simulation.rounds
    rnd = rounds[-1]
    source = claim_sources(simulation)
    for trajectory, problem in (("assignor", rnd.problem), ("oracle", rnd.oracle_problem)):
        assert set(problem.member_ids) == set(source)
        for m in problem.members:
            j = source[m.member_id]
            if j is None:
                assert (m.owned, m.generation) == ((), None)
                continue
            a = rounds[j].evaluation.assignment if trajectory == "assignor" else rounds[j].oracle.assignment
            given = tuple((t, tuple(ps)) for t, ps in sorted(a.members.get(m.member_id, {}).items()) if ps)
            assert (m.owned, m.generation) == (given, j + 1)


# -- the state machine ---------------------------------------------------------------

ASSIGNORS_UNDER_TEST = ("sticky", "cooperative-sticky", "range", "sticky-kip54")


class ChurnMachine(RuleBasedStateMachine):
    """One event per round; every step rebalances with each assignor under test."""

    @initialize(
        counts=st.lists(st.integers(1, 4), min_size=1, max_size=3),
        subscriptions=st.lists(st.sets(st.integers(0, 2), min_size=1), min_size=1, max_size=4),
    )
    def start(self, counts, subscriptions):
        names = [f"t{i}" for i in range(len(counts))]
        topics = tuple(Topic(t, c) for t, c in zip(names, counts))
        members = tuple(
            Member(f"m{i}", frozenset(names[k % len(names)] for k in picks)) for i, picks in enumerate(subscriptions)
        )
        history = History(topics, members)
        self.fresh = 0
        self.sims = {name: simulate(history, name) for name in ASSIGNORS_UNDER_TEST}

    # The group as it stands (the same in every simulation).
    @property
    def last(self):
        return self.sims["sticky"].rounds[-1]

    @property
    def members(self) -> list[str]:
        return list(self.last.problem.member_ids)

    @property
    def topics(self) -> dict[str, int]:
        return dict(self.last.problem.partition_counts)

    def play(self, *events) -> None:
        """One round with these events (none: a quiet round), played by every assignor."""
        for e in events:
            hypothesis.event(e.kind)  # --hypothesis-show-statistics shows every kind is played
        self.sims = {name: sim.next_round(events) for name, sim in self.sims.items()}

    def _name(self, prefix: str) -> str:
        self.fresh += 1
        return f"{prefix}{self.fresh}"

    def _topic_set(self, picks) -> frozenset[str]:
        names = sorted(self.topics)
        return frozenset(names[k % len(names)] for k in picks)

    @precondition(lambda self: self.topics)
    @rule(picks=st.sets(st.integers(0, 4), min_size=1, max_size=3))
    def join(self, picks):
        self.play(Join(self._name("j"), self._topic_set(picks)))

    @precondition(lambda self: len(self.members) >= 2)
    @rule(pick=st.integers(0, 99))
    def leave(self, pick):
        self.play(Leave(self.members[pick % len(self.members)]))

    @precondition(lambda self: self.members and len(self.topics) >= 2)
    @rule(pick=st.integers(0, 99), picks=st.sets(st.integers(0, 4), min_size=1, max_size=3))
    def subscribe(self, pick, picks):
        member = self.members[pick % len(self.members)]
        current = self.last.problem.members[self.last.problem.member_index[member]].topics
        wanted = self._topic_set(picks)
        if wanted == current:
            names = sorted(self.topics)
            flip = names[pick % len(names)]
            wanted = current - {flip} if flip in current and len(current) > 1 else current | {flip}
            if wanted == current:  # current is exactly {flip}
                wanted = frozenset({next(t for t in names if t != flip)})
        self.play(SubscriptionChange(member, wanted))

    @precondition(lambda self: self.topics)
    @rule(pick=st.integers(0, 99), more=st.integers(1, 3))
    def add_partitions(self, pick, more):
        names = sorted(self.topics)
        topic = names[pick % len(names)]
        self.play(CreatePartitions(topic, self.topics[topic] + more))

    @precondition(lambda self: len(self.topics) < 5)
    @rule(count=st.integers(1, 4))
    def create_topic(self, count):
        self.play(CreateTopic(self._name("n"), count))

    @precondition(lambda self: len(self.topics) >= 2)
    @rule(pick=st.integers(0, 99))
    def delete_topic(self, pick):
        names = sorted(self.topics)
        self.play(DeleteTopic(names[pick % len(names)]))

    def zombies(self) -> list[tuple[str, int]]:
        rounds = self.sims["sticky"].rounds
        r, present = len(rounds), set(self.members)
        return [(m, r - j) for j in range(r) for m in rounds[j].problem.member_ids if (m not in present) or r - j >= 2]

    @precondition(lambda self: self.zombies())
    @rule(pick=st.integers(0, 999))
    def zombie(self, pick):
        candidates = self.zombies()
        member, rounds_ago = candidates[pick % len(candidates)]
        self.play(ZombieRejoin(member, rounds_ago))

    @precondition(lambda self: self.members)
    @rule(pick=st.integers(0, 99))
    def bounce(self, pick):
        self.play(StaticBounce(self.members[pick % len(self.members)]))

    @rule()
    def quiet_round(self):
        self.play()

    @invariant()
    def every_assignor_round_holds(self):
        for name, sim in self.sims.items():
            check_round(name, sim)

    @invariant()
    def the_oracle_trajectory_does_not_depend_on_the_assignor(self):
        oracle = {
            name: (sim.rounds[-1].oracle.assignment.to_mapping(), sim.rounds[-1].cumulative_oracle_moved)
            for name, sim in self.sims.items()
        }
        assert len({json.dumps(v, sort_keys=True) for v in oracle.values()}) == 1


ChurnMachine.TestCase.settings = settings(max_examples=25, stateful_step_count=6, deadline=None)
TestChurnMachine = ChurnMachine.TestCase


# -- the JSON format -------------------------------------------------------------------

GOOD = {
    "description": "every event kind once",
    "topics": {"orders": 4, "clicks": {"partitions": 2}},
    "members": {
        "a": {"topics": ["clicks", "orders"], "rack": "r1"},
        "b": {"topics": ["orders"]},
        "c": {"topics": ["clicks", "orders"]},
    },
    "rounds": [
        [{"join": "d", "topics": ["orders"], "rack": "r2"}, {"leave": "c"}],
        [{"partitions": "orders", "count": 6}, {"create": "audit", "count": 3}],
        [{"subscribe": "b", "topics": ["audit", "orders"]}, {"zombie": "c", "rounds_ago": 3}],
        [{"delete": "clicks"}, {"bounce": "a"}],
        [],
    ],
}


def doc(**changes):
    out = json.loads(json.dumps(GOOD))
    out.update(changes)
    return out


def rounds_with(*rounds):
    return doc(rounds=[list(r) for r in rounds])


def test_a_valid_history_round_trips():
    history = history_from_mapping(GOOD)
    assert history.to_mapping() == json.loads(json.dumps(GOOD)) | {"topics": {"orders": 4, "clicks": 2}}
    assert history_from_mapping(history.to_mapping()) == history
    assert [[e.kind for e in events] for events in history.rounds] == [
        ["join", "leave"],
        ["partitions", "create"],
        ["subscribe", "zombie"],
        ["delete", "bounce"],
        [],
    ]
    assert history.rounds[0][0] == Join("d", frozenset({"orders"}), "r2")


def test_read_history_reads_a_file_and_names_it(tmp_path):
    path = tmp_path / "h.json"
    path.write_text(json.dumps(GOOD), encoding="utf-8")
    assert read_history(path) == history_from_mapping(GOOD)
    path.write_text('{"topics": {}, "topics": {}}', encoding="utf-8")
    with pytest.raises(InputError, match="duplicate JSON key"):
        read_history(path)
    with pytest.raises(InputError) as err:
        read_history(tmp_path / "missing.json")
    assert err.value.source.endswith("missing.json") and "cannot read file" in str(err.value)


@pytest.mark.parametrize(
    "data, field, words",
    [
        ([], "", "JSON object"),
        (doc(round=[]), "round", "unknown key"),
        ({k: v for k, v in GOOD.items() if k != "rounds"}, "rounds", "missing"),
        (doc(rounds={}), "rounds", "array of rounds"),
        (doc(rounds=[{}]), "rounds[0]", "array of events"),
        (doc(description=3), "description", "string"),
        (doc(topics={"orders": 0}), "topics.orders", "positive"),
        (doc(members={"a": {"topics": ["orders"], "owned": {"orders": [0]}}}), "members.a.owned", "unknown key"),
        (doc(members={"a": {"topics": []}}), "members.a.topics", "at least one topic"),
        (doc(members={"a": {}}), "members.a", "topics"),
        (rounds_with(["leave a"]), "rounds[0][0]", "JSON object"),
        (rounds_with([{}]), "rounds[0][0]", "one event kind"),
        (rounds_with([{"joins": "x"}]), "rounds[0][0].joins", "unknown key"),
        (rounds_with([{"join": "x", "leave": "a"}]), "rounds[0][0]", "two event kinds"),
        (rounds_with([{"join": "x"}]), "rounds[0][0]", 'missing key "topics"'),
        (rounds_with([{"join": "x", "topics": ["orders", "orders"]}]), "rounds[0][0].topics[1]", "twice"),
        (rounds_with([{"join": "x", "topics": ["orders"], "generation": 2}]), "rounds[0][0].generation", "unknown key"),
        (rounds_with([{"join": "", "topics": ["orders"]}]), "rounds[0][0].join", "empty"),
        (rounds_with([{"leave": 3}]), "rounds[0][0].leave", "string"),
        (rounds_with([{"partitions": "orders", "count": "8"}]), "rounds[0][0].count", "integer"),
        (rounds_with([{"create": "new", "count": 0}]), "rounds[0][0].count", "positive"),
        (rounds_with([{"zombie": "a", "rounds_ago": 0}]), "rounds[0][0].rounds_ago", "positive"),
        (rounds_with([{"zombie": "a"}]), "rounds[0][0]", 'missing key "rounds_ago"'),
    ],
)
def test_bad_shapes_name_the_field(data, field, words):
    with pytest.raises(InputError) as err:
        history_from_mapping(data, source="h.json")
    assert (err.value.source, err.value.field) == ("h.json", field)
    assert words in err.value.problem
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    "rounds, field, words",
    [
        ([[], [], [{"leave": "m9"}]], "rounds[2][0].leave", 'no member "m9" in the group at round 3'),
        ([[{"leave": "c"}, {"leave": "c"}]], "rounds[0][1].leave", 'no member "c"'),
        ([[{"join": "a", "topics": ["orders"]}]], "rounds[0][0].join", "already in the group at round 1"),
        ([[{"subscribe": "zz", "topics": ["orders"]}]], "rounds[0][0].subscribe", "no member"),
        ([[{"subscribe": "b", "topics": ["orders"]}]], "rounds[0][0].topics", "already subscribes"),
        ([[{"partitions": "nope", "count": 9}]], "rounds[0][0].partitions", 'no topic "nope" at round 1'),
        ([[{"partitions": "orders", "count": 3}]], "rounds[0][0].count", "only grow"),
        ([[{"partitions": "orders", "count": 4}]], "rounds[0][0].count", "only grow"),
        ([[{"create": "orders", "count": 3}]], "rounds[0][0].create", "already exists"),
        ([[{"delete": "nope"}]], "rounds[0][0].delete", 'no topic "nope"'),
        ([[{"delete": "clicks"}], [{"delete": "clicks"}]], "rounds[1][0].delete", "at round 2"),
        ([[{"zombie": "c", "rounds_ago": 2}]], "rounds[0][0].rounds_ago", "round 1 has 1 earlier round"),
        (
            [[{"join": "x", "topics": ["orders"]}], [{"leave": "x"}], [{"zombie": "x", "rounds_ago": 3}]],
            "rounds[2][0].rounds_ago",
            'member "x" was not in the group at round 0',
        ),
        ([[], [{"zombie": "a", "rounds_ago": 1}]], "rounds[1][0].rounds_ago", "current, not stale"),
        ([[], [{"bounce": "a"}, {"zombie": "a", "rounds_ago": 2}]], "rounds[1][1].zombie", "no current claims"),
        ([[{"bounce": "zz"}]], "rounds[0][0].bounce", "no member"),
        ([[{"join": "x", "topics": ["orders"]}, {"bounce": "x"}]], "rounds[0][1].bounce", "no claims to lose"),
        ([[{"bounce": "a"}, {"bounce": "a"}]], "rounds[0][1].bounce", "no claims to lose"),
    ],
)
def test_events_that_make_no_sense_name_round_and_position(rounds, field, words):
    with pytest.raises(InputError) as err:
        history_from_mapping(doc(rounds=rounds), source="h.json")
    assert err.value.field == field
    assert words in err.value.problem


def test_the_error_is_one_line_naming_source_field_and_round():
    with pytest.raises(InputError) as err:
        history_from_mapping(doc(rounds=[[], [], [{"leave": "m9"}]]), source="churn.json")
    assert str(err.value) == 'churn.json: rounds[2][0].leave: no member "m9" in the group at round 3'


def test_a_history_built_in_code_is_checked_when_simulated():
    history = History((Topic("t", 2),), (Member("a", frozenset({"t"})),), [[Leave("b")]])
    assert history.rounds == ((Leave("b"),),)  # lists become tuples
    with pytest.raises(InputError) as err:
        simulate(history, "sticky")
    assert str(err.value) == 'history: rounds[0][0].leave: no member "b" in the group at round 1'
    with pytest.raises(InputError, match="round 0 starts with no claims"):
        simulate(History((Topic("t", 2),), (Member("a", frozenset({"t"}), (("t", (0,)),), 1),)), "sticky")


def test_unknown_assignor_and_bad_time_limit():
    history = history_from_mapping(GOOD)
    with pytest.raises(UnknownAssignor):
        simulate(history, "stiky")
    with pytest.raises(ValueError, match="positive"):
        simulate(history, "sticky", time_limit=0)


def test_an_empty_group_is_allowed_and_refills():
    history = history_from_mapping(
        {
            "topics": {"t": 3},
            "members": {"a": {"topics": ["t"]}},
            "rounds": [[{"leave": "a"}], [{"zombie": "a", "rounds_ago": 2}]],
        }
    )
    sim = simulate(history, "sticky")
    assert [r["members"] for r in sim.rows()] == [1, 0, 1]
    assert sim.rounds[2].problem.members[0].owned == (("t", (0, 1, 2)),)
    assert sim.rounds[2].moved == 0 and sim.completed


# -- determinism ---------------------------------------------------------------------


def test_random_history_is_deterministic_and_seeded():
    first = random_history(7, members=4, rounds=8, events_per_round=3)
    again = random_history(7, members=4, rounds=8, events_per_round=3)
    assert first == again and dumps(first.to_mapping()) == dumps(again.to_mapping())
    assert len({dumps(random_history(seed).to_mapping()) for seed in range(6)}) == 6
    assert len(first.rounds) == 8 and all(1 <= len(events) <= 3 for events in first.rounds)
    assert [m.member_id for m in first.members] == ["m0", "m1", "m2", "m3"]


def test_random_histories_are_valid_and_draw_every_kind():
    kinds = set()
    for seed in range(40):
        history = random_history(seed, members=2 + seed % 3, topics=1 + seed % 3, rounds=6, events_per_round=3)
        assert history_from_mapping(history.to_mapping()) == history
        kinds |= {e.kind for events in history.rounds for e in events}
    assert kinds == set(churn.EVENT_KINDS)


def test_random_histories_keep_someone_in_the_group():
    for seed in range(8):
        sim = simulate(random_history(seed, members=1, rounds=8, events_per_round=3), "range")
        assert sim.completed and all(row["members"] >= 1 for row in sim.rows())


@pytest.mark.parametrize("name", ASSIGNORS_UNDER_TEST)
def test_random_histories_hold_every_invariant(name):
    """Seeded histories with several events per round (the state machine plays one)."""
    for seed in range(16):
        sim = simulate(random_history(seed, members=3, topics=2, rounds=6, events_per_round=3), name)
        assert sim.completed
        for n in range(1, len(sim.rounds) + 1):
            check_round(name, churn.Simulation(sim.history, sim.assignor, sim.rounds[:n]))


@pytest.mark.parametrize("arg", [{"members": 0}, {"rounds": -1}, {"events_per_round": 0}, {"partitions": 1.5}])
def test_random_history_rejects_bad_sizes(arg):
    with pytest.raises(ValueError, match="random_history"):
        random_history(1, **arg)


@pytest.mark.parametrize("name", ["sticky", "cooperative-sticky", "range"])
def test_simulation_output_is_byte_identical_across_runs(name):
    history = random_history(3, members=3, rounds=6, events_per_round=2)
    once = dumps(simulate(history, name).to_mapping(timing=False))
    assert dumps(simulate(history, name).to_mapping(timing=False)) == once
    assert "wall_time" not in once
    timed = simulate(history, name).to_mapping(timing=True)
    assert "optimum_wall_time_s" in timed["rounds"][0] and "wall_time_s" in timed["rounds"][0]["evaluation"]


def test_step_by_step_equals_one_call():
    history = random_history(11, rounds=5)
    sim = simulate(History(history.topics, history.members, (), history.description), "cooperative-sticky")
    for events in history.rounds:
        sim = sim.next_round(events)
    assert dumps(sim.to_mapping()) == dumps(simulate(history, "cooperative-sticky").to_mapping())


# -- round semantics -----------------------------------------------------------------

KAFKA_7026 = {
    "topics": {"t": 6},
    "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}, "c": {"topics": ["t"]}},
    "rounds": [[{"leave": "c"}], [{"zombie": "c", "rounds_ago": 2}]],
}


def test_a_zombies_stale_claim_duplicates_before_kip341_and_not_after():
    history = history_from_mapping(KAFKA_7026)
    before, after = simulate(history, "sticky-kip54"), simulate(history, "sticky")
    c_then = before.rounds[0].evaluation.assignment.to_mapping()["c"]
    for sim in (before, after):
        zombie = sim.rounds[2].problem.members[sim.rounds[2].problem.member_index["c"]]
        assert (zombie.owned, zombie.generation) == (tuple((t, tuple(ps)) for t, ps in c_then.items()), 1)
        assert {m.generation for m in sim.rounds[2].problem.members if m.member_id != "c"} == {2}
        # KIP-341's resolution: c's claims lose to the generation-2 owners.
        assert {(d.member_id, d.reason) for d in sim.rounds[2].optimum.network.claims.dropped} == {("c", "superseded")}
    broken = before.rounds[2].evaluation
    assert broken.status == INVALID
    assert [(v["kind"], tuple(v["partitions"])) for v in broken.verdict.violation_details] == [
        ("duplicated", tuple(c_then["t"]))
    ]
    fixed = after.rounds[2]
    assert fixed.evaluation.status == OK and fixed.evaluation.guarantee.kept
    assert fixed.evaluation.verdict.measures["most_balanced"]
    assert (fixed.moved, fixed.optimal_moved, fixed.oracle_moved) == (2, 2, 2)


def test_a_zombie_still_in_the_group_keeps_its_current_subscription():
    history = history_from_mapping(
        {
            "topics": {"t": 4, "u": 2},
            "members": {"a": {"topics": ["t", "u"]}, "b": {"topics": ["t", "u"]}},
            "rounds": [
                [],
                [{"subscribe": "a", "topics": ["t"]}, {"join": "c", "topics": ["t", "u"]}],
                [{"zombie": "a", "rounds_ago": 2}],
            ],
        }
    )
    sim = simulate(history, "sticky")
    a = sim.rounds[3].problem.members[0]
    round1 = sim.rounds[1].evaluation.assignment.to_mapping()["a"]
    assert a.topics == frozenset({"t"})
    assert (a.owned, a.generation) == (tuple((t, tuple(ps)) for t, ps in round1.items()), 2)
    check_round("sticky", sim)


def test_an_absent_zombie_rejoins_with_the_subscription_it_had_then():
    history = history_from_mapping(
        {
            "topics": {"t": 4, "u": 2},
            "members": {"a": {"topics": ["t", "u"]}, "b": {"topics": ["t", "u"], "rack": "r"}},
            "rounds": [[{"subscribe": "b", "topics": ["u"]}], [{"leave": "b"}], [{"zombie": "b", "rounds_ago": 2}]],
        }
    )
    b = simulate(history, "range").rounds[3].problem.members[1]
    assert (b.member_id, b.topics, b.rack, b.generation) == ("b", frozenset({"u"}), "r", 2)


def test_a_bounced_static_member_rejoins_with_nothing_and_keeps_its_id():
    history = history_from_mapping(
        {
            "topics": {"t": 6},
            "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}, "c": {"topics": ["t"]}},
            "rounds": [[{"bounce": "b"}]],
        }
    )
    for name in ("sticky", "cooperative-sticky", "range"):
        sim = simulate(history, name)
        first, bounced = sim.rounds
        b = bounced.problem.members[1]
        assert (b.member_id, b.owned, b.generation) == ("b", (), None)
        # b's partitions have no owner now: only a's and c's count as owned.
        assert bounced.optimum.owned == 6 - first.evaluation.assignment.load("b")
        # Nobody else has to give anything up, and no assignor here makes anyone.
        assert (bounced.moved, bounced.optimal_moved, bounced.oracle_moved) == (0, 0, 0)
        assert bounced.evaluation.assignment == first.evaluation.assignment
        check_round(name, sim)


def test_a_bounce_is_not_a_leave_and_a_join():
    """Range orders by member id: a bounce keeps b's place, a replacement member gets another."""
    group = {"topics": {"t": 6}, "members": {m: {"topics": ["t"]} for m in "abc"}}
    bounce = history_from_mapping(group | {"rounds": [[{"bounce": "b"}]]})
    replaced = history_from_mapping(group | {"rounds": [[{"leave": "b"}, {"join": "d", "topics": ["t"]}]]})
    assert simulate(bounce, "range").rows()[1]["moved"] == 0
    assert simulate(replaced, "range").rows()[1]["moved"] == 2  # c's range shifts down


def test_counts_of_a_cooperative_round_include_its_follow_up_rebalance():
    history = history_from_mapping(
        {"topics": {"t": 4}, "members": {"a": {"topics": ["t"]}}, "rounds": [[{"join": "b", "topics": ["t"]}], []]}
    )
    rows = simulate(history, "cooperative-sticky").rows()
    assert [r["rebalances"] for r in rows] == [1, 2, 1]
    assert [r["generation"] for r in rows] == [1, 2, 3]
    assert [r["moved"] for r in rows] == [0, 2, 0]
    assert [r["cumulative_moved"] for r in rows] == [0, 2, 2]


def test_rows_are_flat_and_consistent():
    sim = simulate(history_from_mapping(GOOD), "sticky")
    rows = sim.rows()
    assert [r["round"] for r in rows] == [0, 1, 2, 3, 4, 5]
    assert rows[0]["events"] == "initial group" and rows[5]["events"] == "(no events)"
    assert rows[1]["events"] == "join d; leave c"
    expected = {
        "round",
        "generation",
        "events",
        "members",
        "partitions",
        "status",
        "message",
        "valid",
        "sorted_loads",
        "optimal_sorted_loads",
        "spread",
        "optimal_spread",
        "most_balanced",
        "kafka_balance_condition",
        "guarantee_kept",
        "owned",
        "retained",
        "optimal_retained",
        "moved",
        "optimal_moved",
        "oracle_moved",
        "cumulative_moved",
        "cumulative_oracle_moved",
        "rebalances",
    }
    for row, rnd in zip(rows, sim.rounds):
        assert set(row) == expected
        assert all(not isinstance(v, dict) for v in row.values())
        assert row["retained"] + row["moved"] == row["owned"]
        assert row["spread"] == row["sorted_loads"][0] - row["sorted_loads"][-1]
    document = sim.to_mapping()
    assert document["totals"]["moved"] == rows[-1]["cumulative_moved"]
    assert document["totals"]["oracle_moved"] == rows[-1]["cumulative_oracle_moved"]
    assert document["stopped"] is None and document["history"] == sim.history.to_mapping()
    assert all(r["oracle_trajectory"]["certified"] for r in document["rounds"])


# -- stopping ------------------------------------------------------------------------


def test_an_assignor_error_stops_the_simulation(monkeypatch):
    real = churn.evaluate

    def failing(problem, name, **kwargs):
        if len(problem.members) == 4:  # first in round 3, when the zombie c comes back
            return Evaluation(name, ERROR, "RuntimeError: boom")
        return real(problem, name, **kwargs)

    monkeypatch.setattr(churn, "evaluate", failing)
    history = history_from_mapping(GOOD)
    sim = simulate(history, "sticky")
    assert sim.stopped == 3 and not sim.completed and len(sim.rounds) == 4
    row = sim.rows()[3]
    assert (row["status"], row["message"], row["moved"], row["cumulative_moved"], row["rebalances"]) == (
        ERROR,
        "RuntimeError: boom",
        None,
        None,
        None,
    )
    assert sim.to_mapping()["stopped"] == {"round": 3, "status": ERROR, "message": "RuntimeError: boom"}
    assert sim.totals()["rounds"] == 4
    with pytest.raises(ValueError, match="stopped at round 3"):
        sim.next_round(())


def test_an_assignor_timeout_stops_the_simulation(monkeypatch):
    import time

    real = runner._call

    def slow(assignor, problem):
        if any(m.owned for m in problem.members):  # from round 1 on
            time.sleep(30)
        return real(assignor, problem)

    # The forked child inherits the patch; the parent kills it at the limit.
    monkeypatch.setattr(runner, "_call", slow)
    sim = simulate(history_from_mapping(KAFKA_7026), "sticky", time_limit=0.5)
    assert sim.stopped == 1 and sim.rounds[1].evaluation.status == TIMEOUT
    assert sim.rounds[0].evaluation.status == OK


def test_docstring_examples_run():
    result = doctest.testmod(churn)
    assert result.attempted > 0 and result.failed == 0


# -- the bundled examples --------------------------------------------------------------


def test_examples_are_bundled():
    assert {p.name for p in EXAMPLES} == {"rolling-restart-zombie.json", "scale-out-and-topic-changes.json"}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
@pytest.mark.parametrize("name", ["sticky", "cooperative-sticky", "range", "sticky-kip54"])
def test_bundled_examples_run_and_hold(path, name):
    history = read_history(path)
    assert history.description
    sim = simulate(history, name)
    assert sim.completed
    for n in range(1, len(sim.rounds) + 1):
        check_round(name, churn.Simulation(sim.history, sim.assignor, sim.rounds[:n]))


def test_the_rolling_restart_story():
    history = read_history(next(p for p in EXAMPLES if p.stem == "rolling-restart-zombie"))
    before, after = simulate(history, "sticky-kip54"), simulate(history, "sticky")
    assert [r["valid"] for r in before.rows()] == [True, True, True, True, False, False]
    assert all(r["valid"] and r["most_balanced"] for r in after.rows())
    # The sticky assignor churns exactly as little as the oracle over the whole restart.
    assert after.totals()["moved"] == after.totals()["oracle_moved"] == 3
