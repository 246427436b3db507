"""The scenario families: deterministic, each keeps its defining property, bad parameters named.

Every property is checked on the generated :class:`Problem` with code that
does not share the generator's (counts, sets, the KIP-49 ``fair`` port for
the balanced previous generation's loads).
"""

from __future__ import annotations

import doctest
from collections import Counter
from dataclasses import replace

import numpy as np
import pytest

from assignment_oracle.compare.scenarios.families import (
    FAMILIES,
    PARAMETERS,
    UnknownFamily,
    _water_fill,
    describe,
    generate,
)
from assignment_oracle.heuristics.fair import assign as fair_assign
from assignment_oracle.problem import Problem, resolve_claims
from assignment_oracle.problem.scenario_json import dumps

# Parameters under which each family's output depends on the seed.
SEEDED = {
    "uniform": {"previous": "random"},
    "random-subsets": {},
    "skewed-sizes": {},
    "zipf": {},
    "kip49-rolling": {"previous": "random"},
    "stream-join": {"partitions": (1, 30)},
    "join-groups": {},
    "weighted": {},
    "racks": {},
}


def scenario_bytes(problem: Problem) -> str:
    return dumps(problem.to_mapping())


def claimed(problem: Problem) -> Counter:
    """(topic, partition) -> how many members claim it."""
    return Counter((t, p) for m in problem.members for t, ps in m.owned for p in ps)


def loads(problem: Problem) -> dict[str, int]:
    return {m.member_id: sum(len(ps) for _, ps in m.owned) for m in problem.members}


def test_every_family_is_tested_for_seed_dependence():
    assert set(SEEDED) == set(FAMILIES)


# -- determinism -----------------------------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
def test_same_family_seed_and_parameters_give_the_same_bytes(family):
    params = {**SEEDED[family], "previous": "random", "churn": 2}
    assert scenario_bytes(generate(family, 42, **params)) == scenario_bytes(generate(family, 42, **params))


@pytest.mark.parametrize("family", FAMILIES)
def test_different_seeds_usually_give_different_scenarios(family):
    distinct = {scenario_bytes(generate(family, seed, **SEEDED[family])) for seed in range(6)}
    assert len(distinct) >= 5


def test_one_knob_does_not_reshuffle_the_others():
    base = generate("random-subsets", 9, members=10, topics=8)
    with_racks = generate("random-subsets", 9, members=10, topics=8, racks=3)
    with_previous = generate("random-subsets", 9, members=10, topics=8, previous="random", churn=3)
    more_members = generate("random-subsets", 9, members=25, topics=8)
    subscriptions = {m.member_id: m.topics for m in base.members}
    assert {m.member_id: m.topics for m in with_racks.members} == subscriptions
    assert {m.member_id: m.topics for m in more_members.members[:10]} == subscriptions
    survivors = {m.member_id: m.topics for m in with_previous.members if m.member_id in subscriptions}
    assert survivors == {m: ts for m, ts in subscriptions.items() if m in survivors}
    assert base.topics == with_racks.topics == with_previous.topics == more_members.topics


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("previous", [None, "balanced", "random"])
def test_scenarios_round_trip_the_json_format_and_hold_only_valid_claims(family, previous):
    params = {"previous": previous, "churn": 1} if previous else {}
    if family == "kip49-rolling" and previous is None:
        params = {}
    for seed in range(5):
        problem = generate(family, seed, **params)
        assert Problem.from_mapping(problem.to_mapping()) == problem
        assert resolve_claims(problem).dropped == ()
        assert all(count == 1 for count in claimed(problem).values())


def test_ids_are_zero_padded_so_name_order_is_number_order():
    problem = generate("uniform", 0, members=10_001, topics=12, partitions=1)
    ids = problem.member_ids
    assert ids[:2] == ("m00000", "m00001") and ids[-1] == "m10000"
    assert [int(m[1:]) for m in ids] == list(range(10_001))
    assert [t.name for t in problem.topics][:2] == ["t0000", "t0001"]


# -- each family's defining property -------------------------------------------------


def test_uniform_every_member_subscribes_to_every_topic():
    problem = generate("uniform", 3, members=7, topics=5, partitions=(2, 9))
    everything = frozenset(t.name for t in problem.topics)
    assert len(everything) == 5 and all(m.topics == everything for m in problem.members)
    assert all(2 <= t.partitions <= 9 for t in problem.topics)
    assert all(not m.owned and m.generation is None and m.rack is None for m in problem.members)


def test_random_subsets_subscribe_with_the_given_probability_and_to_at_least_one_topic():
    problem = generate("random-subsets", 5, members=2000, topics=20, subscribe=0.3)
    sizes = [len(m.topics) for m in problem.members]
    assert min(sizes) >= 1
    assert 0.28 < sum(sizes) / (2000 * 20) < 0.32
    sparse = generate("random-subsets", 5, members=300, topics=20, subscribe=0.01)
    assert all(len(m.topics) >= 1 for m in sparse.members)
    everything = generate("random-subsets", 5, members=30, topics=4, subscribe=1)
    assert all(len(m.topics) == 4 for m in everything.members)


def test_skewed_sizes_are_heavy_tailed_and_capped():
    problem = generate("skewed-sizes", 1, topics=1000, median=10, sigma=1.5, max_partitions=400)
    sizes = sorted(t.partitions for t in problem.topics)
    # Both bounds bind: draws below one partition are raised to 1, several above the cap come down to it.
    assert sizes[0] == 1 and sizes.count(400) > 1
    assert 8 <= sizes[500] <= 12  # the median
    assert sizes[-1] == 400 and sizes[990] > 10 * sizes[500]  # a heavy tail, capped
    flat = generate("skewed-sizes", 1, topics=50, median=7, sigma=0)
    assert {t.partitions for t in flat.topics} == {7}


def test_zipf_popular_topics_have_more_subscribers():
    problem = generate("zipf", 2, members=2000, topics=10, exponent=1.0, top=0.8)
    subscribers = [len(problem.subscribers[t.name]) for t in problem.topics]
    assert subscribers[0] > subscribers[1] > subscribers[4] > subscribers[9]
    assert 0.77 < subscribers[0] / 2000 < 0.83 and 0.37 < subscribers[1] / 2000 < 0.43
    everyone_on_the_first = generate("zipf", 2, members=50, topics=5, top=1.0)
    assert len(everyone_on_the_first.subscribers["t0000"]) == 50


@pytest.mark.parametrize("updated, expected", [(3, 3), (0, 0), (7, 7), (None, 3)])
def test_kip49_rolling_update(updated, expected):
    problem = generate("kip49-rolling", 4, members=7, topics=3, new_topics=2, partitions=(3, 7), updated=updated)
    base, new = {"t0000", "t0001", "t0002"}, {"t0003", "t0004"}
    assert {t.name for t in problem.topics} == base | new
    on_new = [m.member_id for m in problem.members if m.topics == frozenset(base | new)]
    assert on_new == list(problem.member_ids[:expected])
    assert all(m.topics == frozenset(base) for m in problem.members[expected:])
    # The previous generation: a valid, balanced assignment of the base topics only.
    counts = claimed(problem)
    assert set(counts) == {(t.name, p) for t in problem.topics if t.name in base for p in range(t.partitions)}
    assert set(counts.values()) == {1}
    assert max(loads(problem).values()) - min(loads(problem).values()) <= 1
    assert {m.generation for m in problem.members} == {1}


def test_stream_join_pairs_have_equal_partition_counts_until_one_grows():
    problem = generate("stream-join", 6, members=5, pairs=4, partitions=(1, 20))
    counts = problem.partition_counts
    assert len(counts) == 8
    for i in range(4):
        assert counts[f"clicks-{i:04d}"] == counts[f"impressions-{i:04d}"]
    assert all(m.topics == frozenset(counts) for m in problem.members)
    grown = generate("stream-join", 6, members=5, pairs=4, partitions=(1, 20), extra_partitions=3, previous="balanced")
    assert grown.partition_counts["clicks-0000"] == counts["clicks-0000"] + 3
    assert {t: n for t, n in grown.partition_counts.items() if t != "clicks-0000"} == {
        t: n for t, n in counts.items() if t != "clicks-0000"
    }
    # The claims come from before the increase: the new partitions are unowned.
    assert max(p for t, p in claimed(grown) if t == "clicks-0000") < counts["clicks-0000"]
    assert sum(claimed(grown).values()) == sum(counts.values())


@pytest.mark.parametrize("seed", range(6))
def test_join_groups_are_subscribed_whole_and_survive_the_scenario_format(seed):
    problem = generate("join-groups", seed, members=9, groups=3, group_size=3, topics=2, previous="random")
    assert problem.join_groups == tuple((f"j{g:04d}-a", f"j{g:04d}-b", f"j{g:04d}-c") for g in range(3))
    for member in problem.members:
        assert member.topics  # at least one group or free topic
        for group in problem.join_groups:
            assert len(member.topics & set(group)) in (0, 3)
    # Validated like a scenario file, byte for byte the same problem.
    assert Problem.from_mapping(problem.to_mapping()) == problem


def test_weighted_join_groups_draw_only_weights_from_their_own_stream():
    plain = generate("join-groups", 4, members=6, previous="random")
    heavy = generate("join-groups", 4, members=6, previous="random", weighted=True, lag_sigma=1.0)
    assert plain.weights == ()
    assert replace(heavy, weights=()) == plain  # topics, subscriptions, owners: the same draws
    assert [t for t, _ in heavy.weights] == sorted(plain.topic_names)
    assert all(len(ws) == plain.partition_counts[t] and min(ws) >= 1 for t, ws in heavy.weights)
    assert Problem.from_mapping(heavy.to_mapping()) == heavy


def test_racks_every_member_has_one():
    problem = generate("racks", 8, members=60, racks=4)
    racks = Counter(m.rack for m in problem.members)
    assert set(racks) == {"rack-0", "rack-1", "rack-2", "rack-3"}
    assert sum(racks.values()) == 60
    many = generate("racks", 8, members=60, racks=12)
    assert {m.rack for m in many.members} <= {f"rack-{r:02d}" for r in range(12)}
    assert all(m.rack is None for m in generate("uniform", 8).members)
    with_racks = generate("zipf", 8, racks=2, previous="random", churn=3)
    assert all(m.rack in {"rack-0", "rack-1"} for m in with_racks.members)


# -- the previous generation and churn ---------------------------------------------------


@pytest.mark.parametrize("family", ["uniform", "racks", "stream-join"])
def test_balanced_previous_on_identical_subscriptions_is_within_one(family):
    for seed in range(5):
        problem = generate(family, seed, members=7, partitions=(1, 12), previous="balanced", generation=4)
        counts = claimed(problem)
        assert set(counts.values()) == {1}
        assert len(counts) == problem.total_partitions
        assert max(loads(problem).values()) - min(loads(problem).values()) <= 1
        assert {m.generation for m in problem.members} == {4}


@pytest.mark.parametrize("family", ["random-subsets", "skewed-sizes", "zipf"])
def test_balanced_previous_has_the_loads_of_kip49s_greedy(family):
    # The fair port places each partition on the least-loaded subscriber, in
    # KIP-49's topic order; "balanced" must end with the same loads.
    for seed in range(8):
        problem = generate(family, seed, previous="balanced")
        fresh = Problem(problem.topics, tuple(replace(m, owned=(), generation=None) for m in problem.members))
        greedy = fair_assign(fresh)
        assert loads(problem) == {m: greedy.load(m) for m in problem.member_ids}
        assert resolve_claims(problem).dropped == ()


def test_random_previous_gives_every_partition_to_one_subscriber():
    problem = generate("random-subsets", 11, members=9, topics=6, previous="random")
    counts = claimed(problem)
    assert set(counts.values()) == {1} and len(counts) == problem.total_partitions
    assert all(t in m.topics for m in problem.members for t, _ in m.owned)


def test_churn_replaces_members_and_their_claims_vanish():
    before = generate("uniform", 12, members=10, previous="balanced")
    after = generate("uniform", 12, members=10, previous="balanced", churn=3)
    assert len(after.members) == 10
    stayed = [m for m in after.members if m.member_id in before.member_ids]
    joined = [m for m in after.members if m.member_id not in before.member_ids]
    assert len(stayed) == 7 and [m.member_id for m in joined] == ["m0010", "m0011", "m0012"]
    assert all(not m.owned and m.generation is None for m in joined)
    kept = {m.member_id: m.owned for m in before.members}
    assert all(m.owned == kept[m.member_id] for m in stayed)
    assert sum(claimed(after).values()) == sum(len(ps) for m in stayed for _, ps in m.owned)


@pytest.mark.parametrize("family", FAMILIES)
def test_zombies_claim_the_generation_before_and_lose_every_contested_partition(family):
    """KIP-341's shape: the zombie's claims are one generation older than the current owners'."""
    contested = 0
    for seed in range(5):
        base = generate(family, seed, members=6, previous="balanced", generation=4)
        problem = generate(family, seed, members=6, previous="balanced", generation=4, zombies=2)
        old = [m for m in problem.members if m.generation == 3]
        current = [m for m in problem.members if m.generation == 4]
        assert len(old) == 2 and len(current) == 4
        # The zombies' claims are what they owned when everybody was there (the zombie-free rule).
        # Their own draws: with `balanced` the generation before is exactly the zombie-free scenario.
        before = {m.member_id: m.owned for m in base.members}
        assert all(m.owned == before[m.member_id] for m in old)
        # The current generation was computed without the zombies: it claims every partition once.
        counts = Counter((t, p) for m in current for t, ps in m.owned for p in ps)
        assert set(counts.values()) <= {1}
        resolved = resolve_claims(problem)
        owner = {
            (t, p): problem.members[i].member_id
            for t, owners in resolved.previous_owner.items()
            for p, i in enumerate(owners.tolist())
            if i >= 0
        }
        for m in old:
            for t, ps in m.owned:
                for p in ps:
                    if (t, p) in counts:  # contested: the newer generation wins
                        contested += 1
                        assert owner[(t, p)] != m.member_id
                    else:
                        assert owner[(t, p)] == m.member_id
    assert contested > 0
    assert Problem.from_mapping(problem.to_mapping()) == problem


def test_zombies_leave_the_layout_and_the_others_draws_alone():
    plain = generate("random-subsets", 5, members=9, previous="random", churn=2)
    haunted = generate("random-subsets", 5, members=9, previous="random", churn=2, zombies=3)
    assert plain.topics == haunted.topics
    assert [(m.member_id, m.topics) for m in plain.members] == [(m.member_id, m.topics) for m in haunted.members]
    assert generate("random-subsets", 5, members=9, previous="random", churn=2, zombies=0) == plain


def test_water_fill_is_the_one_by_one_least_loaded_greedy():
    rng = np.random.default_rng(0)
    for _ in range(500):
        start = rng.integers(0, 6, size=int(rng.integers(1, 8)))
        partitions = int(rng.integers(0, 30))
        current, given = start.copy(), np.zeros(start.size, dtype=int)
        for _ in range(partitions):
            lightest = min(range(start.size), key=lambda i: (current[i], i))
            current[lightest] += 1
            given[lightest] += 1
        assert given.tolist() == _water_fill(start, partitions).tolist()


# -- parameters -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "family, params, message",
    [
        ("random-subsets", {"subscribe": 2}, "random-subsets: subscribe must be in (0, 1], got 2"),
        ("random-subsets", {"subscribe": 0}, "random-subsets: subscribe must be in (0, 1], got 0"),
        ("uniform", {"members": 0}, "uniform: members must be at least 1, got 0"),
        ("uniform", {"members": True}, "uniform: members must be an integer, got True"),
        ("uniform", {"topics": 2.0}, "uniform: topics must be an integer, got 2.0"),
        ("uniform", {"partitions": (5, 2)}, "uniform: partitions must be a count or a pair"),
        ("uniform", {"partitions": 2**31}, "uniform: partitions must be at most 2147483647"),
        ("uniform", {"pairs": 2}, "uniform: unknown parameter 'pairs' (parameters: churn, generation, members,"),
        ("uniform", {"previous": "fresh"}, "uniform: previous must be one of None, 'balanced', 'random', got 'fresh'"),
        ("uniform", {"churn": 2}, "uniform: churn needs a previous generation"),
        ("uniform", {"generation": 3}, "uniform: generation needs a previous generation"),
        ("uniform", {"previous": "random", "churn": 13}, "uniform: churn must be at most members (12), got 13"),
        ("uniform", {"previous": "random", "generation": -1}, "uniform: generation must be at least 0, got -1"),
        ("skewed-sizes", {"sigma": -1}, "skewed-sizes: sigma must be a non-negative number, got -1"),
        ("skewed-sizes", {"median": 300}, "skewed-sizes: median must be at most max_partitions (256), got 300"),
        ("zipf", {"exponent": float("nan")}, "zipf: exponent must be a non-negative number, got nan"),
        ("zipf", {"top": 1.5}, "zipf: top must be in (0, 1], got 1.5"),
        ("kip49-rolling", {"previous": None}, "kip49-rolling: previous must be 'balanced' or 'random'"),
        ("kip49-rolling", {"updated": 7}, "kip49-rolling: updated must be at most members (6), got 7"),
        ("stream-join", {"topics": 4}, "stream-join: unknown parameter 'topics'"),
        ("stream-join", {"extra_partitions": -1}, "stream-join: extra_partitions must be at least 0, got -1"),
        ("racks", {"racks": 0}, "racks: racks must be at least 1, got 0"),
        ("join-groups", {"weighted": "yes"}, "join-groups: weighted must be true or false, got 'yes'"),
        ("uniform", {"zombies": 1}, "uniform: zombies need a previous generation"),
        (
            "uniform",
            {"previous": "random", "churn": 10, "zombies": 3},
            "uniform: zombies must be at most the members that stay (members - churn = 2), got 3",
        ),
        ("uniform", {"previous": "random", "generation": 0, "zombies": 1}, "uniform: zombies need generation >= 1"),
    ],
)
def test_bad_parameters_are_one_line_errors_naming_family_and_parameter(family, params, message):
    with pytest.raises(ValueError) as raised:
        generate(family, 0, **params)
    assert str(raised.value).startswith(message)
    assert "\n" not in str(raised.value)


def test_bad_seed_and_unknown_family():
    with pytest.raises(ValueError, match=r"^uniform: seed must be a non-negative integer, got -1$"):
        generate("uniform", -1)
    with pytest.raises(UnknownFamily, match=r"^unknown scenario family 'zipfian' \(known: uniform, random-subsets,"):
        generate("zipfian", 0)


def test_partitions_may_be_a_json_list():
    assert generate("uniform", 0, partitions=[2, 5]) == generate("uniform", 0, partitions=(2, 5))


@pytest.mark.parametrize("family", FAMILIES)
def test_describe_lists_every_parameter_with_its_default(family):
    text = describe(family)
    assert text.splitlines()[0] == f"{family}: {FAMILIES[family].description}"
    for name, value in FAMILIES[family].defaults.items():
        assert f"{name}={value!r}" in text and PARAMETERS[name].doc in text


def test_numpy_numbers_are_accepted_and_come_out_as_plain_json():
    from_numpy = generate(
        "uniform",
        np.int64(3),
        members=np.int32(4),
        partitions=[np.int64(1), 3],
        previous="balanced",
        generation=np.int64(2),
    )
    plain = generate("uniform", 3, members=4, partitions=(1, 3), previous="balanced", generation=2)
    assert scenario_bytes(from_numpy) == scenario_bytes(plain)


def test_the_docstring_examples_run():
    from assignment_oracle.compare.scenarios import families

    result = doctest.testmod(families)
    assert result.attempted > 0 and result.failed == 0


# -- large sizes ----------------------------------------------------------------------


def test_thousands_of_members_and_a_hundred_thousand_partitions():
    problem = generate("uniform", 0, members=2000, topics=500, partitions=200, previous="balanced", churn=5)
    assert len(problem.members) == 2000 and len(problem.topics) == 500
    assert problem.total_partitions == 100_000
    survivors = [m for m in problem.members if m.generation is not None]
    assert len(survivors) == 1995
    owned = sum(len(ps) for m in survivors for _, ps in m.owned)
    assert owned == 100_000 - 5 * 50  # every original member owned 50; five left
    assert {sum(len(ps) for _, ps in m.owned) for m in survivors} == {50}
    mixed = generate(
        "random-subsets", 0, members=2000, topics=500, partitions=(1, 400), subscribe=0.1, previous="random"
    )
    assert len(mixed.members) == 2000 and mixed.total_partitions > 90_000
    assert sum(claimed(mixed).values()) == mixed.total_partitions


def test_static_members_and_replica_racks_are_drawn_without_reshuffling_the_rest():
    base = generate("racks", 5, members=12, topics=3, partitions=4)
    richer = generate("racks", 5, members=12, topics=3, partitions=4, replicas=2, static=0.5)
    # The same group, only with instance ids and partition racks added.
    assert [(m.member_id, m.topics, m.rack) for m in base.members] == [
        (m.member_id, m.topics, m.rack) for m in richer.members
    ]
    assert [(t.name, t.partitions) for t in base.topics] == [(t.name, t.partitions) for t in richer.topics]
    instance_ids = [m.instance_id for m in richer.members if m.instance_id is not None]
    assert 0 < len(instance_ids) < 12 and len(set(instance_ids)) == len(instance_ids)
    racks = {m.rack for m in richer.members}
    for topic in richer.topics:
        assert len(topic.racks) == topic.partitions
        assert all(len(set(r)) == 2 and set(r) <= {"rack-0", "rack-1", "rack-2"} for r in topic.racks)
    assert racks <= {"rack-0", "rack-1", "rack-2"}
    assert all(t.racks is None for t in base.topics) and all(m.instance_id is None for m in base.members)


def test_more_replicas_than_racks_is_refused():
    with pytest.raises(ValueError, match="replicas must be at most racks"):
        generate("racks", 1, racks=2, replicas=3)
