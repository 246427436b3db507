"""The hostile events of the public strategies: every bug-corpus entry's shape is drawn, every draw is a scenario
the readers accept, and events shrink away.

Each shape below is written from the corpus entry's own scenario (compare/scenarios/bugs.py), as a predicate
on the JSON scenario, not from the events' code: ``find`` must reach it through ``json_scenarios`` as
check_assignor draws it (its round-1 bounds).
"""

import copy

import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from assignment_oracle.compare.scenarios.bugs import BUGS
from assignment_oracle.problem.load import load_scenario
from assignment_oracle.strategies import KINDS, json_scenarios
from assignment_oracle.testing import KINDS as ORACLE_KINDS

#: check_assignor's round-1 bounds per kind (assignment_oracle.testing.KINDS draws with these).
BOUNDS = {
    "consumer": {"max_members": 5, "max_topics": 3, "max_partitions": 6},
    "streams": {"max_subtopologies": 2, "max_tasks": 4, "max_processes": 3, "max_members_per_process": 2},
    "share": {"max_topics": 2, "max_partitions": 4, "max_members": 4},
}
FIND = settings(max_examples=2000, database=None, suppress_health_check=list(HealthCheck), derandomize=True)


# -- consumer groups: the shapes of the corpus -----------------------------------------------------------------


def _counts(s):
    return {t: (v if isinstance(v, int) else v["partitions"]) for t, v in s["topics"].items()}


def _claims(s):
    """(topic, p) -> [(member, generation or None)] of members subscribed to the topic."""
    out = {}
    for m, e in s["members"].items():
        for t, ps in (e.get("owned") or {}).items():
            for p in ps:
                if t in e["topics"]:
                    out.setdefault((t, p), []).append((m, e.get("generation")))
    return out


def _existing(s, t, p):
    return t in _counts(s) and p < _counts(s)[t]


def two_claims_at_different_generations(s):  # kafka-7026
    return any(_existing(s, t, p) and len({g for _, g in c if g is not None}) >= 2 for (t, p), c in _claims(s).items())


def two_claims_at_one_generation(s):  # kafka-12984-equal-generation
    return any(
        _existing(s, t, p) and len(c) >= 2 and len({g for _, g in c}) == 1 and c[0][1] is not None
        for (t, p), c in _claims(s).items()
    )


def contested_claim_without_generation(s):  # aiokafka-1176-no-generation
    return any(_existing(s, t, p) and len(c) >= 2 and any(g is None for _, g in c) for (t, p), c in _claims(s).items())


def claim_of_an_unsubscribed_existing_topic(s):  # kafka4-stale-owner-unsubscribed
    return any(
        t in _counts(s) and t not in e["topics"] and ps
        for e in s["members"].values()
        for t, ps in (e.get("owned") or {}).items()
    )


def claim_past_the_count(s):  # faust-claim-out-of-range
    return any(
        t in _counts(s) and max(ps) >= _counts(s)[t]
        for e in s["members"].values()
        for t, ps in (e.get("owned") or {}).items()
        if ps
    )


def empty_subscription_beside_a_subscriber(s):  # kafka-16930-empty-subscription
    return any(not e["topics"] for e in s["members"].values()) and any(e["topics"] for e in s["members"].values())


def empty_subscription_first(s):  # kafka4-empty-first-subscription
    members = sorted(s["members"])
    return (
        len(members) >= 2 and not s["members"][members[0]]["topics"] and any(s["members"][m]["topics"] for m in members)
    )


def subscribed_topic_missing_beside_an_existing_one(s):  # kafka-node-range-missing-topic, sarama, kafka-go
    subscribed = {t for e in s["members"].values() for t in e["topics"]}
    return bool(subscribed - set(s["topics"])) and bool(subscribed & set(s["topics"]))


def deleted_topic_still_claimed(s):  # a topic deleted while members still claim its partitions
    return any(
        t not in s["topics"] and t in e["topics"] and ps
        for e in s["members"].values()
        for t, ps in (e.get("owned") or {}).items()
    )


def heterogeneous_subscriptions(s):  # kafkajs-roundrobin-subscriptions
    return len({frozenset(e["topics"]) for e in s["members"].values()}) >= 2


def static_member_with_claims(s):  # KIP-345: a static member rejoining with its claims
    return any(e.get("instance_id") and e.get("owned") for e in s["members"].values())


def joining_member_beside_owners(s):  # faust-new-member-gets-nothing
    j = s.get("joining")
    return j is not None and not s["members"][j].get("owned") and any(e.get("owned") for e in s["members"].values())


def rack_matching_and_not(s):  # KIP-881: one member's rack holds a replica of its topics, another's none
    racks = {r for v in s["topics"].values() if isinstance(v, dict) for p in (v.get("racks") or []) for r in p}
    member_racks = [e.get("rack") for e in s["members"].values() if e.get("rack")]
    return any(r in racks for r in member_racks) and any(r not in racks for r in member_racks)


# -- Streams and share groups ------------------------------------------------------------------------------------


def _tasks(s, role):
    out = {}
    for m, e in s["members"].items():
        for sub, ps in (e.get(role) or {}).items():
            for p in ps:
                out.setdefault((sub, p), []).append(m)
    return out


def task_active_on_two_members(s):
    return any(len(ms) >= 2 for ms in _tasks(s, "active").values())


def task_active_and_standby_on_one_process(s):
    active, standby = _tasks(s, "active"), _tasks(s, "standby")
    process = {m: e["process"] for m, e in s["members"].items()}
    return any({process[m] for m in active.get(t, ())} & {process[m] for m in ms} for t, ms in standby.items())


def stateful_standby_without_active(s):
    active = _tasks(s, "active")
    return s.get("standby_replicas", 0) >= 1 and any(
        t not in active and t[0] in s["subtopologies"] and s["subtopologies"][t[0]]["stateful"]
        for t in _tasks(s, "standby")
    )


def active_task_the_topology_lacks(s):
    subs = s["subtopologies"]
    return any(t[0] not in subs or t[1] >= subs[t[0]]["tasks"] for t in _tasks(s, "active"))


def two_members_on_one_process_with_standbys(s):
    processes = [e["process"] for e in s["members"].values()]
    stateful = any(spec["stateful"] for spec in s["subtopologies"].values())
    return len(processes) > len(set(processes)) and stateful and s.get("standby_replicas", 0) >= 1


def _assignable(s):
    return {
        t: set(range(v)) if isinstance(v, int) else set(v.get("assignable", range(v["partitions"])))
        for t, v in s["topics"].items()
    }


def held_unassignable_of_a_subscribed_topic(s):  # share-held-unassignable-kept, -crash
    ok = _assignable(s)
    return any(
        t in e["topics"] and set(ps) - ok[t]
        for e in s["members"].values()
        for t, ps in (e.get("assigned") or {}).items()
    )


def held_of_an_unsubscribed_topic(s):  # share-unsubscribed-topic-kept
    return any(
        t not in e["topics"] and ps for e in s["members"].values() for t, ps in (e.get("assigned") or {}).items()
    )


SHAPES = [
    ("consumer", two_claims_at_different_generations),
    ("consumer", two_claims_at_one_generation),
    ("consumer", contested_claim_without_generation),
    ("consumer", claim_of_an_unsubscribed_existing_topic),
    ("consumer", claim_past_the_count),
    ("consumer", empty_subscription_beside_a_subscriber),
    ("consumer", empty_subscription_first),
    ("consumer", subscribed_topic_missing_beside_an_existing_one),
    ("consumer", deleted_topic_still_claimed),
    ("consumer", heterogeneous_subscriptions),
    ("consumer", static_member_with_claims),
    ("consumer", joining_member_beside_owners),
    ("consumer", rack_matching_and_not),
    ("streams", task_active_on_two_members),
    ("streams", task_active_and_standby_on_one_process),
    ("streams", stateful_standby_without_active),
    ("streams", active_task_the_topology_lacks),
    ("streams", two_members_on_one_process_with_standbys),
    ("share", held_unassignable_of_a_subscribed_topic),
    ("share", held_of_an_unsubscribed_topic),
]


@pytest.mark.parametrize("kind, shape", SHAPES, ids=[s.__name__ for _, s in SHAPES])
def test_the_shape_is_drawn_and_shrinks_small(kind, shape):
    found = find(json_scenarios(kind, **BOUNDS[kind]), shape, settings=FIND)
    load_scenario(found)
    assert len(found["members"]) <= 3  # shrunk to a handful of members


@pytest.mark.parametrize(
    "entry, shape",
    [
        ("kafka-7026", two_claims_at_different_generations),
        ("kafka-12984-equal-generation", two_claims_at_one_generation),
        ("aiokafka-1176-no-generation", contested_claim_without_generation),
        ("kafka4-stale-owner-unsubscribed", claim_of_an_unsubscribed_existing_topic),
        ("faust-claim-out-of-range", claim_past_the_count),
        ("kafka-16930-empty-subscription", empty_subscription_beside_a_subscriber),
        ("kafka4-empty-first-subscription", empty_subscription_first),
        ("kafka-node-range-missing-topic", subscribed_topic_missing_beside_an_existing_one),
        ("sarama-missing-topic-fails-rebalance", subscribed_topic_missing_beside_an_existing_one),
        ("kafka-go-missing-topic-assigns-nothing", subscribed_topic_missing_beside_an_existing_one),
        ("kafkajs-roundrobin-subscriptions", heterogeneous_subscriptions),
        ("share-held-unassignable-kept", held_unassignable_of_a_subscribed_topic),
        ("share-held-unassignable-crash", held_unassignable_of_a_subscribed_topic),
        ("share-unsubscribed-topic-kept", held_of_an_unsubscribed_topic),
    ],
)
def test_each_shape_is_the_corpus_entrys_own(entry, shape):
    """The predicates above hold on the entry's own scenario: they say what the corpus says."""
    assert any(shape(dict(s)) for s in BUGS[entry].scenarios)


@pytest.mark.parametrize("kind", ["consumer", "share"])  # a Streams group's text names shrink unevenly here
def test_without_events_nothing_hostile_is_drawn_and_events_shrink_away(kind):
    """``hostile=False`` draws the plain groups; the smallest hostile draw is the smallest plain one (no event)."""
    shrinking = settings(FIND, derandomize=False)  # derandomized, find keeps its first (unshrunk) example
    plain = find(json_scenarios(kind, hostile=False, **BOUNDS[kind]), lambda s: True, settings=shrinking)
    assert find(json_scenarios(kind, **BOUNDS[kind]), lambda s: True, settings=shrinking) == plain


@pytest.mark.parametrize("kind", sorted(KINDS))
@settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_events_between_rounds_give_scenarios_the_reader_accepts_and_leave_their_input_alone(kind, data):
    """The events check_assignor draws between rounds, on a drawn group, give a scenario load_scenario reads; the
    scenario they start from is not changed, and a member added last is the one joining."""
    scenario = data.draw(json_scenarios(kind, **BOUNDS[kind]))
    events = data.draw(ORACLE_KINDS[kind].events(True))
    before = copy.deepcopy(scenario)
    after = KINDS[kind].apply(scenario, events, "2-")
    assert scenario == before
    load_scenario(after)
    added = [m for m in after["members"] if m not in scenario["members"]]
    if added and added[-1] == list(after["members"])[-1]:
        assert after.get("joining") in added


def test_a_draw_is_the_same_for_the_same_seed():
    draws = []
    for _ in range(2):
        found = []

        @settings(max_examples=20, database=None, derandomize=True)
        @given(json_scenarios("consumer", **BOUNDS["consumer"]))
        def collect(s):
            found.append(s)

        collect()
        draws.append(found)
    assert draws[0] == draws[1]
