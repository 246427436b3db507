"""Share group assignors (KIP-932) as a maintainer writes them against the JSON protocol: a ``{"kind":
"share", "topics", "members"}`` scenario in (a topic's ``assignable`` partitions, each member's
``topics`` and currently ``assigned`` partitions, members in join order), ``{member: {topic:
[partitions]}}`` out.  Written from docs/formats.md ("Share groups") and the bug corpus alone.
"""

from __future__ import annotations


def assignable_of(scenario):
    """Topic -> the partitions that may be assigned (all of them when ``assignable`` is absent)."""
    out = {}
    for topic, value in scenario["topics"].items():
        if isinstance(value, int):
            out[topic] = list(range(value))
        else:
            listed = value.get("assignable")
            out[topic] = sorted(listed) if listed is not None else list(range(value["partitions"]))
    return out


def sticky_share(scenario, *, may_keep):
    """Each member keeps what it holds where ``may_keep(member, topic, partition)``, then every
    assignable partition of a subscribed topic without a holder goes to its least loaded subscriber."""
    members = scenario["members"]
    answer = {member: {} for member in members}
    held = set()
    for member, spec in members.items():
        for topic, partitions in (spec.get("assigned") or {}).items():
            for partition in sorted(set(partitions)):
                if may_keep(member, topic, partition):
                    answer[member].setdefault(topic, []).append(partition)
                    held.add((topic, partition))
    load = {member: sum(len(p) for p in answer[member].values()) for member in members}
    order = list(members)
    for topic, partitions in assignable_of(scenario).items():
        subscribers = [m for m in order if topic in members[m]["topics"]]
        for partition in partitions if subscribers else ():
            if (topic, partition) in held:
                continue
            chosen = min(subscribers, key=lambda m: (load[m], order.index(m)))
            answer[chosen].setdefault(topic, []).append(partition)
            load[chosen] += 1
    return answer


# ---------------------------------------------------------------------------------------------------
# Mutants.


def share_keeps_unassignable(scenario):
    """Sticky share assignor: a member keeps what it holds of the topics it still subscribes to.
    Claims Kafka's ``valid``.

    Defect (share-held-unassignable-kept): whether a held partition is still assignable (its share
    state initialised) is never asked, so a held partition that is not assignable is handed back.
    """
    members = scenario["members"]
    return sticky_share(scenario, may_keep=lambda m, topic, p: topic in members[m]["topics"])


def share_keeps_unsubscribed(scenario):
    """Sticky share assignor: a member keeps what it holds that is still assignable.
    Claims Kafka's ``valid``.

    Defect (share-unsubscribed-topic-kept): the member's subscription is never asked, so partitions of
    a topic it no longer subscribes to are never revoked.
    """
    assignable = {topic: set(ps) for topic, ps in assignable_of(scenario).items()}
    return sticky_share(scenario, may_keep=lambda m, topic, p: p in assignable.get(topic, ()))


# ---------------------------------------------------------------------------------------------------
# Correct.


def share_sticky(scenario):
    """Correct: a member keeps what it holds only of topics it subscribes to and only what is
    assignable; every other assignable partition to its least loaded subscriber."""
    members = scenario["members"]
    assignable = {topic: set(ps) for topic, ps in assignable_of(scenario).items()}

    def may_keep(member, topic, partition):
        return topic in members[member]["topics"] and partition in assignable.get(topic, ())

    return sticky_share(scenario, may_keep=may_keep)
