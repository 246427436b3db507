"""A newcomer's tests of their own hand-written assignors, written from the README's "Test your own
assignor" alone: one import line, plain dicts in and out.

Not collected by the suite (the name does not match ``test_*.py``): ``tests/test_testing.py`` runs it
with pytester and checks that the three correct uses pass and the three broken assignors fail with the
readable message, the replay command and its files.
"""

from assignment_oracle.testing import assert_optimal, check_assignor, optimal_assignment

RESTART = {
    "topics": {"orders": 4},
    "members": {
        "c1": {"topics": ["orders"], "owned": {"orders": [2, 3]}, "generation": 1},
        "c2": {"topics": ["orders"], "owned": {"orders": [0, 1]}, "generation": 1},
    },
}


def partitions(size):
    """A topic's value is its partition count, or {"partitions": N, "racks": [...]}."""
    return size if isinstance(size, int) else size["partitions"]


def subscribers(scenario, topic):
    return [m for m in sorted(scenario["members"]) if topic in scenario["members"][m]["topics"]]


def round_robin(scenario):
    """Deal every topic's partitions around its subscribers; ignores what members owned."""
    out = {m: {} for m in sorted(scenario["members"])}
    turn = 0
    for topic, size in sorted(scenario["topics"].items()):
        members = subscribers(scenario, topic)
        for p in range(partitions(size) if members else 0):
            out[members[turn % len(members)]].setdefault(topic, []).append(p)
            turn += 1
    return out


def least_loaded(scenario):
    """Topic by topic, each partition to its least loaded subscriber: balanced when everyone subscribes
    to the same topics, not when subscriptions differ."""
    out = {m: {} for m in sorted(scenario["members"])}
    load = dict.fromkeys(out, 0)
    for topic, size in sorted(scenario["topics"].items()):
        members = subscribers(scenario, topic)
        for p in range(partitions(size) if members else 0):
            chosen = min(members, key=lambda m: (load[m], m))
            out[chosen].setdefault(topic, []).append(p)
            load[chosen] += 1
    return out


def keep_then_fill(scenario):
    """Everyone keeps what they owned (if still subscribed), the rest goes to the least loaded."""
    out = {m: {} for m in sorted(scenario["members"])}
    load = dict.fromkeys(out, 0)
    taken = set()
    for m in sorted(scenario["members"]):
        member = scenario["members"][m]
        for topic, owned in member.get("owned", {}).items():
            if topic in member["topics"] and topic in scenario["topics"]:
                for p in owned:
                    if p < partitions(scenario["topics"][topic]) and (topic, p) not in taken:
                        out[m].setdefault(topic, []).append(p)
                        taken.add((topic, p))
                        load[m] += 1
    for topic, size in sorted(scenario["topics"].items()):
        members = subscribers(scenario, topic)
        for p in range(partitions(size) if members else 0):
            if (topic, p) not in taken:
                chosen = min(members, key=lambda m: (load[m], m))
                out[chosen].setdefault(topic, []).append(p)
                load[chosen] += 1
    return out


def deal_twice(scenario):
    """Round robin, and the first partition of every shared topic to its last subscriber as well."""
    out = round_robin(scenario)
    for topic in sorted(scenario["topics"]):
        members = subscribers(scenario, topic)
        if len(members) > 1:
            out[members[-1]].setdefault(topic, []).append(0)
    return out


# -- these pass ------------------------------------------------------------------------------------


def test_the_oracles_own_answer_passes_on_every_group():
    check_assignor(optimal_assignment)


def test_round_robin_keeps_what_it_promises():
    check_assignor(round_robin, guarantee="valid")


def test_keep_then_fill_is_optimal_on_a_restart():
    assert_optimal(RESTART, keep_then_fill(RESTART))


# -- these fail, with the readable message ----------------------------------------------------------


def test_round_robin_on_a_restart(oracle_counterexamples):
    assert_optimal(RESTART, round_robin(RESTART))


def test_least_loaded_is_as_balanced_as_the_optimum():
    check_assignor(least_loaded, tiers=["balance"])


def test_deal_twice_on_every_group():
    check_assignor(deal_twice)
