"""Consumer group assignors as a client maintainer writes them outside this project: a scenario dict in
(``topics``, ``members`` with ``topics``, ``owned``, ``generation``), ``{member: {topic: [partitions]}}``
out.  Each mutant is a plausible implementation with one defect of a class the bug corpus holds; the
correct ones at the end handle every shape the mutants trip on.

Written from docs/formats.md ("Scenario", "Tolerated input") and the bug corpus' entries alone, not
from the strategies that draw the groups: the defects trigger on a shape of group (a stale claim, a
deleted topic, an empty subscription), never on particular names.
"""

from __future__ import annotations

import math


def partition_count(value):
    """A topic's value is its partition count, or ``{"partitions": N, ...}``."""
    return value if isinstance(value, int) else value["partitions"]


def topic_sizes(scenario):
    """Topic -> partition count, in the metadata's order."""
    return {topic: partition_count(value) for topic, value in scenario["topics"].items()}


def generation_of(spec):
    """The generation of a member's claims; absent or null is -1 (Kafka's V0 user data)."""
    generation = spec.get("generation")
    return -1 if generation is None else generation


def resolved_claims(scenario):
    """(topic, partition) -> the one member whose claim stands: the highest generation wins, a tie at
    the highest generation leaves the partition to nobody (KAFKA-12984's rule), and a claim on a topic
    the member no longer subscribes to, a topic missing from the metadata or a partition past the
    topic's count is dropped."""
    sizes = topic_sizes(scenario)
    best = {}
    for member, spec in scenario["members"].items():
        generation = generation_of(spec)
        for topic, partitions in (spec.get("owned") or {}).items():
            for partition in set(partitions):
                key = (topic, partition)
                if key not in best or generation > best[key][0]:
                    best[key] = (generation, [member])
                elif generation == best[key][0] and member not in best[key][1]:
                    best[key][1].append(member)
    winners = {}
    for (topic, partition), (_, claimants) in best.items():
        if len(claimants) != 1:
            continue
        member = claimants[0]
        if topic in sizes and partition < sizes[topic] and topic in scenario["members"][member]["topics"]:
            winners[(topic, partition)] = member
    return winners


def fill_least_loaded(scenario, answer):
    """Every partition of a subscribed topic that no member holds yet in ``answer`` goes to its least
    loaded subscriber (join order breaks ties); topics missing from the metadata are skipped."""
    members = scenario["members"]
    taken = {(topic, p) for held in answer.values() for topic, ps in held.items() for p in ps}
    load = {member: sum(len(p) for p in answer[member].values()) for member in answer}
    for topic, size in topic_sizes(scenario).items():
        subscribers = [m for m in members if topic in members[m]["topics"]]
        if not subscribers:
            continue
        for partition in range(size):
            if (topic, partition) in taken:
                continue
            chosen = min(subscribers, key=lambda m: (load[m], subscribers.index(m)))
            answer[chosen].setdefault(topic, []).append(partition)
            load[chosen] += 1
    return answer


def keep(answer, member, topic, partition):
    answer[member].setdefault(topic, []).append(partition)


# ---------------------------------------------------------------------------------------------------
# Mutants: one defect each.


def sticky_keeps_every_claim(scenario):
    """Sticky, as before KIP-341: each member keeps what it owned (a topic it still subscribes to, a
    partition that exists), the rest goes to the least loaded subscriber.

    Defect (KAFKA-7026): the claims' generation is never read, so a zombie's stale claim is kept beside
    the current owner's and the partition is assigned twice.
    """
    sizes = topic_sizes(scenario)
    answer = {member: {} for member in scenario["members"]}
    for member, spec in scenario["members"].items():
        for topic, partitions in (spec.get("owned") or {}).items():
            if topic not in spec["topics"] or topic not in sizes:
                continue
            for partition in sorted(set(partitions)):
                if partition < sizes[topic]:
                    keep(answer, member, topic, partition)
    return fill_least_loaded(scenario, answer)


def sticky_equal_generation_keeps_both(scenario):
    """Generation-aware sticky: the newest claim of a partition wins, then a round robin over sorted
    member ids deals what nobody kept.

    Defect (KAFKA-12984): claims tied at the newest generation are all honoured, so two members that
    both claim a partition at the same generation (members without a generation included) both keep it.
    """
    sizes = topic_sizes(scenario)
    members = scenario["members"]
    newest = {}
    for member in sorted(members):
        spec = members[member]
        generation = generation_of(spec)
        for topic, partitions in (spec.get("owned") or {}).items():
            if topic not in sizes or topic not in spec["topics"]:
                continue
            for partition in set(partitions):
                if partition >= sizes[topic]:
                    continue
                seen = newest.get((topic, partition))
                if seen is None or generation > seen[0]:
                    newest[(topic, partition)] = (generation, [member])
                elif generation == seen[0]:
                    seen[1].append(member)
    answer = {member: {} for member in sorted(members)}
    for (topic, partition), (_, owners) in sorted(newest.items()):
        for owner in owners:
            keep(answer, owner, topic, partition)
    turn = 0
    for topic in sorted(sizes):
        subscribers = sorted(m for m in members if topic in members[m]["topics"])
        for partition in range(sizes[topic] if subscribers else 0):
            if (topic, partition) not in newest:
                keep(answer, subscribers[turn % len(subscribers)], topic, partition)
                turn += 1
    return answer


def sticky_requires_generation(scenario):
    """Generation-aware sticky written against version-1 user data: every member that owns something
    is assumed to send its generation.  The newest claim stands, a tie cancels, the rest goes to the
    least loaded subscriber.

    Defect (aiokafka #1176, Kafka's V0 user data): a member with claims and no generation makes the
    assignor raise ``KeyError``, so the whole rebalance fails.
    """
    sizes = topic_sizes(scenario)
    members = scenario["members"]
    claimants = {}
    for member, spec in members.items():
        for topic, partitions in (spec.get("owned") or {}).items():
            for partition in partitions:
                claimants.setdefault((topic, partition), set()).add((spec["generation"], member))
    answer = {member: {} for member in members}
    for (topic, partition), claims in claimants.items():
        newest = max(generation for generation, _ in claims)
        owners = [member for generation, member in claims if generation == newest]
        if len(owners) == 1 and topic in sizes and partition < sizes[topic]:
            if topic in members[owners[0]]["topics"]:
                keep(answer, owners[0], topic, partition)
    return fill_least_loaded(scenario, answer)


def sticky_trusts_claims_on_unknown_topics(scenario):
    """Generation-aware sticky that checks a claim against the member's subscription and, where the
    metadata has the topic, against its partition count.

    Defect (deleted topics, faust/KAFKA-7026's shape): a claim on a subscribed topic the metadata does
    not have (deleted, or not created yet) is trusted as it is, so the member gets back partitions of a
    topic that does not exist.
    """
    sizes = topic_sizes(scenario)
    best = {}
    for member, spec in scenario["members"].items():
        generation = generation_of(spec)
        for topic, partitions in (spec.get("owned") or {}).items():
            if topic not in spec["topics"]:
                continue
            limit = sizes.get(topic)  # None: no metadata for it yet, the member knows best
            for partition in set(partitions):
                if limit is not None and partition >= limit:
                    continue
                seen = best.get((topic, partition))
                if seen is None or generation > seen[0]:
                    best[(topic, partition)] = (generation, member)
                elif generation == seen[0]:
                    best[(topic, partition)] = (generation, None)
    answer = {member: {} for member in scenario["members"]}
    for (topic, partition), (_, member) in sorted(best.items()):
        if member is not None:
            keep(answer, member, topic, partition)
    return fill_least_loaded(scenario, answer)


def sticky_keeps_claims_past_partition_count(scenario):
    """Generation-aware sticky that checks each claim's topic (in the metadata, in the subscription).

    Defect (faust-claim-out-of-range): the partition number is never compared with the topic's count,
    so a claim on a partition that no longer exists (a recreated topic, a corrupt claim) is handed back.
    """
    sizes = topic_sizes(scenario)
    claims = []
    for order, (member, spec) in enumerate(scenario["members"].items()):
        for topic, partitions in (spec.get("owned") or {}).items():
            if topic in sizes and topic in spec["topics"]:
                claims.extend((topic, p, generation_of(spec), order, member) for p in set(partitions))
    claims.sort(key=lambda claim: (claim[0], claim[1], -claim[2], claim[3]))
    answer = {member: {} for member in scenario["members"]}
    for index, (topic, partition, generation, _, member) in enumerate(claims):
        previous = claims[index - 1] if index else None
        following = claims[index + 1] if index + 1 < len(claims) else None
        if previous is not None and previous[:2] == (topic, partition):
            continue  # not the newest claim
        if following is not None and following[:3] == (topic, partition, generation):
            continue  # tied at the newest generation: nobody owns it
        keep(answer, member, topic, partition)
    return fill_least_loaded(scenario, answer)


def sticky_ignores_subscription_of_owner(scenario):
    """Generation-aware sticky that checks each claim against the metadata (topic and partition).

    Defect (kafka4-stale-owner-unsubscribed): the owner's subscription is not asked, so a member that
    resubscribed away from a topic gets its old partitions of it back.
    """
    sizes = topic_sizes(scenario)
    newest = {}
    for member, spec in scenario["members"].items():
        generation = generation_of(spec)
        for topic, partitions in (spec.get("owned") or {}).items():
            for partition in set(partitions):
                if topic not in sizes or partition >= sizes[topic]:
                    continue
                seen = newest.get((topic, partition))
                if seen is None or generation > seen[0]:
                    newest[(topic, partition)] = (generation, member)
                elif generation == seen[0]:
                    newest[(topic, partition)] = (generation, None)
    answer = {member: {} for member in scenario["members"]}
    for (topic, partition), (_, member) in newest.items():
        if member is not None:
            keep(answer, member, topic, partition)
    return fill_least_loaded(scenario, answer)


def uniform_crashes_on_empty_subscription(scenario):
    """A uniform assignor after KIP-848's: identical subscriptions are dealt in one round robin, differing
    ones topic by topic to the least loaded subscriber, each member's target kept per subscribed topic.

    Defect (KAFKA-16930): a member's target is only created for the topics it subscribes to, so a member
    subscribed to nothing (or only to topics that do not exist) in a heterogeneous group makes the
    builder raise ``KeyError``.
    """
    sizes = topic_sizes(scenario)
    members = scenario["members"]
    subscriptions = {member: frozenset(spec["topics"]) for member, spec in members.items()}
    answer = {member: {} for member in members}
    if len(set(subscriptions.values())) <= 1:
        order = sorted(members)
        dealt = [(t, p) for t in sorted(sizes) if order and t in subscriptions[order[0]] for p in range(sizes[t])]
        for index, (topic, partition) in enumerate(dealt):
            keep(answer, order[index % len(order)], topic, partition)
        return answer
    target = {}
    for member in members:
        for topic in members[member]["topics"]:
            if topic in sizes:
                target.setdefault(member, {})[topic] = []
    for topic, size in sizes.items():
        subscribers = [m for m in members if topic in subscriptions[m]]
        for partition in range(size if subscribers else 0):
            chosen = min(subscribers, key=lambda m: sum(len(v) for v in target[m].values()))
            target[chosen][topic].append(partition)
    for member in members:
        for topic, partitions in target[member].items():
            if partitions:
                answer[member][topic] = partitions
    return answer


def range_fails_on_missing_topic(scenario):
    """Kafka's range: each topic's partitions split into consecutive ranges over its subscribers in
    member id order, the first ``n % k`` one partition more.

    Defect (kafka-node-range-missing-topic, sarama-missing-topic-fails-rebalance): the partition count
    of every subscribed topic is read from the metadata, so a subscription to a topic the metadata does
    not have raises ``KeyError`` and the rebalance fails.
    """
    sizes = topic_sizes(scenario)
    members = scenario["members"]
    answer = {member: {} for member in members}
    subscribed = sorted({topic for spec in members.values() for topic in spec["topics"]})
    for topic in subscribed:
        count = sizes[topic]
        subscribers = sorted(m for m in members if topic in members[m]["topics"])
        share, extra = divmod(count, len(subscribers))
        start = 0
        for index, member in enumerate(subscribers):
            length = share + (1 if index < extra else 0)
            if length:
                answer[member][topic] = list(range(start, start + length))
            start += length
    return answer


def rack_aware_range_reuses_rack_matches(scenario):
    """Rack-aware range (KIP-881): each topic's quotas as range gives them (subscribers in id order, the
    first ``n % k`` one more); first each member with a rack takes, up to its quota, the partitions with
    a replica on its rack, then the remaining partitions are dealt in order to fill the quotas.

    Defect (kafka-14891-co-partitioned-subsets' class: a rack-matched partition handed out again): the
    rack pass does not take its partitions off the remaining list, so the fill gives a partition a member
    took for its rack to another member as well, and the last partitions go to nobody.
    """
    members = scenario["members"]
    answer = {member: {} for member in members}
    for topic, value in scenario["topics"].items():
        count = partition_count(value)
        racks = value.get("racks") if isinstance(value, dict) else None
        subscribers = sorted(m for m in members if topic in members[m]["topics"])
        if not subscribers:
            continue
        share, extra = divmod(count, len(subscribers))
        quota = {m: share + (1 if i < extra else 0) for i, m in enumerate(subscribers)}
        taken = {m: [] for m in subscribers}
        remaining = list(range(count))
        if racks:
            matched = set()
            for member in subscribers:
                rack = members[member].get("rack")
                for partition in range(count):
                    if rack is None or len(taken[member]) >= quota[member]:
                        break
                    if partition not in matched and rack in (racks[partition] or ()):
                        taken[member].append(partition)
                        matched.add(partition)
        for member in subscribers:
            wanted = quota[member] - len(taken[member])
            taken[member].extend(remaining[:wanted])
            del remaining[:wanted]
        for member, partitions in taken.items():
            if partitions:
                answer[member][topic] = sorted(partitions)
    return answer


def round_robin_leaders_topics(scenario):
    """kafkajs's round robin: the leader (the first member to join) hands over its subscription as the
    group's topics, and every partition of them is dealt around the members in id order.

    Defect (kafkajs-roundrobin-subscriptions): the members' own subscriptions are never read, so a member
    gets partitions of a topic it does not subscribe to and a topic only others read goes to nobody.
    """
    members = scenario["members"]
    if not members:
        return {}
    sizes = topic_sizes(scenario)
    leader = next(iter(members))
    topics = sorted(topic for topic in members[leader]["topics"] if topic in sizes)
    order = sorted(members)
    answer = {member: {} for member in order}
    turn = 0
    for topic in topics:
        for partition in range(sizes[topic]):
            keep(answer, order[turn % len(order)], topic, partition)
            turn += 1
    return answer


def round_robin_restarting_each_topic(scenario):
    """kafka-go's round robin: each topic's partitions dealt around its subscribers in id order.
    Claims Kafka's round robin promise: on identical subscriptions, loads within one.

    Defect (kafka-go-roundrobin-per-topic): the deal restarts at the first member for every topic, so
    each topic's remainder lands on the same first members (two one-partition topics, two members:
    2 and 0).
    """
    sizes = topic_sizes(scenario)
    members = scenario["members"]
    answer = {member: {} for member in members}
    for topic in sorted(sizes):
        subscribers = sorted(m for m in members if topic in members[m]["topics"])
        for partition in range(sizes[topic] if subscribers else 0):
            keep(answer, subscribers[partition % len(subscribers)], topic, partition)
    return answer


def sticky_keeps_up_to_ceiling(scenario):
    """Faust-style sticky: each member keeps its (resolved) claims up to its fair share of the group's
    partitions, then each free partition goes to the least loaded subscriber.  Claims Kafka's sticky
    promise on identical subscriptions: loads as balanced as can be.

    Defect (faust-new-member-gets-nothing): every owner keeps up to ``ceil(P/N)``, not just ``P % N`` of
    them, so after a member joins the owners keep their old share and the newcomer is left short
    (4 partitions, 2 owners of 2, a third joining: 2, 2, 0).
    """
    sizes = topic_sizes(scenario)
    members = scenario["members"]
    subscribed = {topic for spec in members.values() for topic in spec["topics"] if topic in sizes}
    ceiling = math.ceil(sum(sizes[t] for t in subscribed) / len(members)) if members else 0
    answer = {member: {} for member in members}
    held = dict.fromkeys(members, 0)
    for (topic, partition), owner in sorted(resolved_claims(scenario).items()):
        if held[owner] < ceiling:
            keep(answer, owner, topic, partition)
            held[owner] += 1
    return fill_least_loaded(scenario, answer)


# ---------------------------------------------------------------------------------------------------
# Correct assignors: the same styles without the defects.


def generation_aware_sticky(scenario):
    """Correct sticky: the newest claim stands (ties at the newest generation cancel), claims on a topic
    the member dropped, a topic the metadata lacks or a partition past the count are dropped, and the
    rest goes to the least loaded subscriber.  Valid on every group."""
    winners = resolved_claims(scenario)
    answer = {member: {} for member in scenario["members"]}
    for (topic, partition), member in sorted(winners.items()):
        keep(answer, member, topic, partition)
    return fill_least_loaded(scenario, answer)


def plain_range(scenario):
    """Correct range: per topic in the metadata, consecutive ranges over its subscribers in id order,
    the first ``n % k`` one more; a topic missing from the metadata is skipped.  Per-topic balance."""
    sizes = topic_sizes(scenario)
    members = scenario["members"]
    answer = {member: {} for member in members}
    for topic, count in sizes.items():
        subscribers = sorted(m for m in members if topic in members[m]["topics"])
        if not subscribers:
            continue
        share, extra = divmod(count, len(subscribers))
        start = 0
        for index, member in enumerate(subscribers):
            length = share + (1 if index < extra else 0)
            if length:
                answer[member][topic] = list(range(start, start + length))
            start += length
    return answer


def plain_round_robin(scenario):
    """Correct round robin (Kafka's): every partition of every subscribed topic, in (topic, partition)
    order, to the next member in id order that subscribes to its topic, one cursor for the whole deal.
    Loads within one on identical subscriptions."""
    sizes = topic_sizes(scenario)
    members = scenario["members"]
    order = sorted(members)
    answer = {member: {} for member in order}
    cursor = 0
    for topic in sorted(sizes):
        if not any(topic in members[m]["topics"] for m in order):
            continue
        for partition in range(sizes[topic]):
            while topic not in members[order[cursor % len(order)]]["topics"]:
                cursor += 1
            keep(answer, order[cursor % len(order)], topic, partition)
            cursor += 1
    return answer
