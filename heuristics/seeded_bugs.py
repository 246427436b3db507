"""A battery of seeded-bug assignors, one per defect class of the bug corpus, and the correct controls.

Guarantee: every :data:`SEEDED_BUGS` row breaks the guarantee it names (``None``: the optimum) on some input of
the shape its ``defect`` describes, and every :data:`CONTROLS` row keeps its guarantee on every input a scenario
of its kind may present.  The battery measures :func:`assignment_oracle.testing.check_assignor`: with its
defaults it must fail every seeded bug and pass every control (``tests/heuristics/test_seeded_bugs.py``; the
score, ``benchmarks/mutation_score.py``; published in ``docs/testing.md``, "What the battery catches").

Each seeded bug is written as a client library's maintainer would write the assignor: it speaks JSON (takes
the scenario dict, answers ``{member: {topic: [partitions]}}``, a Streams group's ``{"members": {m: {"active":
..., "standby": ...}}}``), and its defect is the one a corpus entry (``assignment-oracle bugs``,
:mod:`compare.scenarios.bugs`) shows shipped: it reacts to a *shape* of input (a partition two members claim, a
member whose subscription is empty, a subscribed topic the metadata lacks), never to a name the strategies give.
The guarantee of a row is the one the real counterpart claimed: ``valid`` for a crash or a validity defect (every
assignor claims a valid answer), the port's own (``identical-subscriptions-balance``, ``per-topic-balance``,
``sticky-at-equal-balance``) for a balance or stickiness defect.

Every assignor here shares one skeleton (resolve the previous claims, keep what is kept, deal the rest to the
least loaded subscriber, the one first in id order on a tie) so that a row differs from the correct control
:func:`sticky_json` in its defect only.

Examples
--------
>>> scenario = {"topics": {"t": 2}, "members": {
...     "a": {"topics": ["t"], "owned": {"t": [0]}, "generation": 2},
...     "z": {"topics": ["t"], "owned": {"t": [0]}, "generation": 1}}}
>>> sticky_json(scenario)
{'a': {'t': [0]}, 'z': {'t': [1]}}
>>> keeps_stale_claims(scenario)  # KIP-341: the zombie z keeps t-0 too
{'a': {'t': [0, 1]}, 'z': {'t': [0]}}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

__all__ = [
    "CONTROLS",
    "SEEDED_BUGS",
    "Control",
    "SeededBug",
    "keeps_stale_claims",
    "optimum_json",
    "share_sticky_json",
    "sticky_json",
    "streams_sticky_json",
]


@dataclass(frozen=True)
class SeededBug:
    """One defect class of the corpus, as an assignor that has it."""

    #: The row's name (a test id).
    name: str
    #: The defect, in a sentence: the shape of input it reacts to and what it then does.
    defect: str
    #: The corpus entries (``assignment-oracle bugs NAME``) whose defect it mirrors: its own kind's entries, whose
    #: scenarios it fails on; or, for a Streams row, the consumer group entry it is the analogue of (none: a
    #: rule of Kafka's Streams assignor the corpus has no entry for).
    mirrors: tuple[str, ...]
    #: The kind of group (``consumer``, ``streams``, ``share``).
    kind: str
    #: The guarantee the real counterpart claimed (None: optimal on the scenario's objective).
    guarantee: str | None
    #: ``assign(scenario_dict) -> answer_dict``.
    assign: Callable[[dict], Any]
    #: Texts the failure message must hold: the symptom (``not valid``, ``the assignor raised``, ...) and the
    #: violation or guarantee it names.
    symptom: tuple[str, ...]


@dataclass(frozen=True)
class Control:
    """A correct assignor the battery must pass: a JSON one, or a registered one by name."""

    name: str
    kind: str
    guarantee: str | None
    #: A JSON ``assign(scenario_dict)``, or the name of a registered assignor.
    assign: Callable[[dict], Any] | str


# -- consumer groups: what every JSON assignor here reads ------------------------------------------------------


def _counts(scenario: dict) -> dict[str, int]:
    """The metadata: topic -> its partition count."""
    return {t: (v if isinstance(v, int) else v["partitions"]) for t, v in scenario["topics"].items()}


def _generation(entry: dict) -> int:
    """A member's generation; one that sent none is -1 (Kafka's V0 user data)."""
    generation = entry.get("generation")
    return -1 if generation is None else generation


def _claims(scenario: dict) -> dict[tuple[str, int], list[str]]:
    """(topic, partition) -> the members claiming it, in id order."""
    claims: dict[tuple[str, int], list[str]] = {}
    for member_id in sorted(scenario["members"]):
        for topic, partitions in (scenario["members"][member_id].get("owned") or {}).items():
            for p in partitions:
                claims.setdefault((topic, p), []).append(member_id)
    return claims


def _newest(scenario: dict, claimants: list[str]) -> list[str]:
    """The claimants at the highest generation (several: a tie)."""
    top = max(_generation(scenario["members"][m]) for m in claimants)
    return [m for m in claimants if _generation(scenario["members"][m]) == top]


def _exists(counts: dict[str, int], topic: str, p: int) -> bool:
    return topic in counts and 0 <= p < counts[topic]


def _subscribes(scenario: dict, member_id: str, topic: str) -> bool:
    return topic in scenario["members"][member_id]["topics"]


def _resolved(scenario: dict) -> dict[tuple[str, int], str]:
    """Kafka's claim resolution (KIP-341, KAFKA-12984): a partition that still exists goes to its claimant at
    the highest generation if it still subscribes to the topic; a tie there is owned by nobody."""
    counts = _counts(scenario)
    owner: dict[tuple[str, int], str] = {}
    for (topic, p), claimants in _claims(scenario).items():
        eligible = [m for m in claimants if _subscribes(scenario, m, topic)]
        if not _exists(counts, topic, p) or not eligible:
            continue
        newest = _newest(scenario, eligible)
        if len(newest) == 1:
            owner[(topic, p)] = newest[0]
    return owner


def _deal(scenario: dict, kept: dict[str, list[tuple[str, int]]]) -> dict:
    """``kept`` (member -> its kept partitions) plus every other partition of a subscribed topic, each to its
    least loaded subscriber (the first in id order on a tie), as ``{member: {topic: [partitions]}}``."""
    counts = _counts(scenario)
    members = sorted(scenario["members"])
    held = {m: list(kept.get(m, ())) for m in members}
    taken = {tp for parts in held.values() for tp in parts}
    for topic in sorted(counts):
        subscribers = [m for m in members if _subscribes(scenario, m, topic)]
        for p in range(counts[topic]):
            if subscribers and (topic, p) not in taken:
                least = min(subscribers, key=lambda m: (len(held[m]), m))
                held[least].append((topic, p))
    return _answer(held)


def _answer(held: dict[str, list[tuple[str, int]]]) -> dict:
    out: dict[str, dict[str, list[int]]] = {}
    for member_id, parts in held.items():
        mine: dict[str, list[int]] = {}
        for topic, p in parts:
            mine.setdefault(topic, []).append(p)
        out[member_id] = {t: sorted(ps) for t, ps in sorted(mine.items())}
    return out


def _kept(owner: dict[tuple[str, int], str]) -> dict[str, list[tuple[str, int]]]:
    kept: dict[str, list[tuple[str, int]]] = {}
    for tp, member_id in sorted(owner.items()):
        kept.setdefault(member_id, []).append(tp)
    return kept


# -- consumer groups: the control and the seeded bugs ----------------------------------------------------------


def sticky_json(scenario: dict) -> dict:
    """Correct: the resolved claims kept (highest generation, ties to nobody, only what still exists and is
    still subscribed), every other partition to its least loaded subscriber.  Valid on every scenario."""
    return _deal(scenario, _kept(_resolved(scenario)))


def keeps_stale_claims(scenario: dict) -> dict:
    """KIP-341 / KAFKA-7026: every claim kept, whatever its generation (a zombie's stale claim and the new
    owner's both)."""
    counts = _counts(scenario)
    kept: dict[str, list[tuple[str, int]]] = {}
    for (topic, p), claimants in _claims(scenario).items():
        for m in claimants:
            if _exists(counts, topic, p) and _subscribes(scenario, m, topic):
                kept.setdefault(m, []).append((topic, p))
    return _deal(scenario, kept)


def keeps_tied_claims(scenario: dict) -> dict:
    """KAFKA-12984: generations compared, but every claimant tied at the highest generation keeps the
    partition (Kafka 2.3's tie rule without its first-wins)."""
    counts = _counts(scenario)
    kept: dict[str, list[tuple[str, int]]] = {}
    for (topic, p), claimants in _claims(scenario).items():
        eligible = [m for m in claimants if _subscribes(scenario, m, topic)]
        if _exists(counts, topic, p) and eligible:
            for m in _newest(scenario, eligible):
                kept.setdefault(m, []).append((topic, p))
    return _deal(scenario, kept)


def trusts_claims_without_generation(scenario: dict) -> dict:
    """aiokafka #1176: a member that sends no generation is taken at its word (its claims kept as they are);
    only claims with a generation are resolved against each other."""
    counts = _counts(scenario)
    dated = {m: e for m, e in scenario["members"].items() if e.get("generation") is not None}
    owner = _resolved(
        {**scenario, "members": {m: dated.get(m, {**e, "owned": {}}) for m, e in scenario["members"].items()}}
    )
    kept = _kept(owner)
    for member_id, entry in sorted(scenario["members"].items()):
        if member_id in dated:
            continue
        for topic, partitions in (entry.get("owned") or {}).items():
            for p in partitions:
                if _exists(counts, topic, p) and topic in entry["topics"]:
                    kept.setdefault(member_id, []).append((topic, p))
    return _deal(scenario, kept)


def keeps_unsubscribed_claims(scenario: dict) -> dict:
    """kafka4-stale-owner-unsubscribed: claims resolved by generation, but a member keeps what it owned of a
    topic it no longer subscribes to."""
    counts = _counts(scenario)
    kept: dict[str, list[tuple[str, int]]] = {}
    for (topic, p), claimants in _claims(scenario).items():
        if _exists(counts, topic, p):
            newest = _newest(scenario, claimants)
            if len(newest) == 1:
                kept.setdefault(newest[0], []).append((topic, p))
    return _deal(scenario, kept)


def keeps_claims_beyond_metadata(scenario: dict) -> dict:
    """Faust's claim out of range: claims resolved by generation and subscription, never checked against the
    metadata (a partition beyond the topic's count, a topic deleted since, kept)."""
    kept: dict[str, list[tuple[str, int]]] = {}
    for (topic, p), claimants in _claims(scenario).items():
        eligible = [m for m in claimants if _subscribes(scenario, m, topic)]
        if eligible:
            newest = _newest(scenario, eligible)
            if len(newest) == 1:
                kept.setdefault(newest[0], []).append((topic, p))
    return _deal(scenario, kept)


def crashes_on_empty_subscription(scenario: dict) -> dict:
    """KAFKA-16930: the builder looks up each member's target through its first topic: a member subscribed to
    nothing has none (an ``IndexError`` here, a ``NullPointerException`` in Java)."""
    for entry in scenario["members"].values():
        entry["topics"][0]  # noqa: B018 - the first topic's lookup that crashes
    return sticky_json(scenario)


def trusts_first_subscription(scenario: dict) -> dict:
    """kafka4-empty-first-subscription: "all subscriptions equal" decided against a reference set that an empty
    subscription leaves unset; equal, every partition is dealt round robin over every member."""
    reference: set | None = None
    equal = True
    for member_id in sorted(scenario["members"]):
        topics = set(scenario["members"][member_id]["topics"])
        if not reference:  # an empty set counts as "not yet initialised"
            reference = topics
        elif topics and topics != reference:
            equal = False
    if not equal:
        return sticky_json(scenario)
    return _round_robin(scenario, sorted(scenario["members"]), sorted(reference or ()))


def _round_robin(scenario: dict, members: list[str], topics: list[str]) -> dict:
    counts = _counts(scenario)
    held: dict[str, list[tuple[str, int]]] = {m: [] for m in sorted(scenario["members"])}
    parts = [(t, p) for t in topics if t in counts for p in range(counts[t])]
    for i, tp in enumerate(parts):
        held[members[i % len(members)]].append(tp)
    return _answer(held)


def crashes_on_missing_topic(scenario: dict) -> dict:
    """kafka-node's and sarama's range: each subscribed topic's partition count looked up in the metadata; a
    topic the metadata lacks raises (``KeyError``), failing the whole rebalance."""
    counts = _counts(scenario)
    for entry in scenario["members"].values():
        for topic in entry["topics"]:
            counts[topic]  # noqa: B018 - the lookup that fails on a missing topic
    return sticky_json(scenario)


def nothing_when_topic_missing(scenario: dict) -> dict:
    """kafka-go: a subscribed topic the metadata lacks makes the partition lookup fail, and the leader answers
    an empty assignment for every member."""
    counts = _counts(scenario)
    if any(t not in counts for e in scenario["members"].values() for t in e["topics"]):
        return {m: {} for m in scenario["members"]}
    return sticky_json(scenario)


def deals_to_non_subscribers(scenario: dict) -> dict:
    """kafkajs's round robin: every subscribed topic's partitions dealt round robin over every member, whether
    it subscribes to the topic or not."""
    topics = sorted({t for e in scenario["members"].values() for t in e["topics"]})
    members = sorted(scenario["members"])
    return _round_robin(scenario, members, topics) if members else {}


def round_robin_per_topic(scenario: dict) -> dict:
    """kafka-go's round robin (and KAFKA-16277's per-topic skew): each topic dealt from its first subscriber
    again, so the first members collect every topic's extra partition."""
    counts = _counts(scenario)
    held: dict[str, list[tuple[str, int]]] = {m: [] for m in sorted(scenario["members"])}
    for topic in sorted(counts):
        subscribers = [m for m in sorted(scenario["members"]) if _subscribes(scenario, m, topic)]
        for p in range(counts[topic] if subscribers else 0):
            held[subscribers[p % len(subscribers)]].append((topic, p))
    return _answer(held)


def owners_keep_to_ceiling(scenario: dict) -> dict:
    """Faust: per topic, each owner keeps its resolved claims up to the ceiling of the topic's share, and only
    the rest is dealt, so a member that joins with nothing may get nothing."""
    counts = _counts(scenario)
    owner = _resolved(scenario)
    members = sorted(scenario["members"])
    held: dict[str, list[tuple[str, int]]] = {m: [] for m in members}
    for topic in sorted(counts):
        subscribers = [m for m in members if _subscribes(scenario, m, topic)]
        if not subscribers:
            continue
        ceiling = -(-counts[topic] // len(subscribers))
        mine = {m: 0 for m in subscribers}
        rest = []
        for p in range(counts[topic]):
            m = owner.get((topic, p))
            if m is not None and mine[m] < ceiling:
                mine[m] += 1
                held[m].append((topic, p))
            else:
                rest.append(p)
        for p in rest:  # to the subscriber with the fewest partitions in all
            least = min(subscribers, key=lambda m: (len(held[m]), m))
            held[least].append((topic, p))
    return _answer(held)


# -- Streams groups ----------------------------------------------------------------------------------------------


def _tasks(scenario: dict) -> list[tuple[str, int]]:
    return [(s, p) for s, spec in scenario["subtopologies"].items() for p in range(spec["tasks"])]


def _stateful(scenario: dict, task: tuple[str, int]) -> bool:
    return bool(scenario["subtopologies"][task[0]]["stateful"])


def _previous(scenario: dict, role: str) -> dict[tuple[str, int], list[str]]:
    """Task -> the members that had it in ``role``, in id order."""
    out: dict[tuple[str, int], list[str]] = {}
    for member_id in sorted(scenario["members"]):
        for s, parts in (scenario["members"][member_id].get(role) or {}).items():
            for p in parts:
                out.setdefault((s, p), []).append(member_id)
    return out


def _streams_answer(scenario: dict, active: dict[tuple[str, int], list[str]], standby: dict) -> dict:
    members = {m: {"active": {}, "standby": {}} for m in sorted(scenario["members"])}
    for role, placed in (("active", active), ("standby", standby)):
        for (s, p), holders in sorted(placed.items()):
            for m in holders:
                members[m][role].setdefault(s, []).append(p)
    return {"members": members}


def _streams_deal(scenario: dict, active: dict[tuple[str, int], list[str]]) -> dict[tuple[str, int], list[str]]:
    """``active`` (task -> its kept member) plus every other task to the member with the fewest active tasks."""
    members = sorted(scenario["members"])
    load = {m: 0 for m in members}
    for holders in active.values():
        for m in holders:
            load[m] += 1
    out = dict(active)
    for task in _tasks(scenario):
        if task not in out and members:
            least = min(members, key=lambda m: (load[m], m))
            out[task] = [least]
            load[least] += 1
    return out


def _standbys(scenario: dict, active: dict, *, same_process_ok: bool = False) -> dict:
    """Up to ``standby_replicas`` standbys of each stateful task, each on a process that has the task in no
    role yet (with ``same_process_ok``, only on another member), previous standby holders first."""
    replicas = scenario.get("standby_replicas", 0)
    members = sorted(scenario["members"])
    process = {m: scenario["members"][m]["process"] for m in members}
    before = _previous(scenario, "standby")
    load = {m: 0 for m in members}
    out: dict[tuple[str, int], list[str]] = {}
    for task in _tasks(scenario):
        if not _stateful(scenario, task) or task not in active:
            continue
        used = set(active[task]) if same_process_ok else {process[m] for m in active[task]}
        placed: list[str] = []
        for m in sorted(members, key=lambda m: (m not in before.get(task, ()), load[m], m)):
            if len(placed) == replicas:
                break
            key = m if same_process_ok else process[m]
            if key not in used:
                placed.append(m)
                used.add(key)
                load[m] += 1
        if placed:
            out[task] = placed
    return out


def _kept_actives(scenario: dict) -> dict[tuple[str, int], list[str]]:
    """Each previous active task the topology still has, kept by its first claimant in id order."""
    tasks = set(_tasks(scenario))
    return {t: [holders[0]] for t, holders in _previous(scenario, "active").items() if t in tasks}


def streams_sticky_json(scenario: dict) -> dict:
    """Correct: previous actives kept (one claimant each, tasks that still exist), the rest to the member with
    the fewest actives; standbys of stateful tasks on processes without the task.  Valid on every scenario."""
    active = _streams_deal(scenario, _kept_actives(scenario))
    return _streams_answer(scenario, active, _standbys(scenario, active))


def standby_beside_active(scenario: dict) -> dict:
    """Standbys kept off the active's *member* but not off its process: a standby beside its active on one
    Kafka Streams instance (two stream threads), where no failover helps."""
    active = _streams_deal(scenario, _kept_actives(scenario))
    return _streams_answer(scenario, active, _standbys(scenario, active, same_process_ok=True))


def promotes_standby_keeps_it(scenario: dict) -> dict:
    """A task without a previous active goes to a member that has its state (a previous standby), and that
    member keeps the standby too: the task in two roles on one member."""
    active = _kept_actives(scenario)
    for task, holders in sorted(_previous(scenario, "standby").items()):
        if task not in active and task in set(_tasks(scenario)):
            active[task] = [holders[0]]
    active = _streams_deal(scenario, active)
    standby = _standbys(scenario, active)
    for task, holders in _previous(scenario, "standby").items():
        if task in active and _stateful(scenario, task) and holders[0] in active[task]:
            standby[task] = [holders[0]] + [m for m in standby.get(task, ()) if m != holders[0]]
            standby[task] = standby[task][: max(1, scenario.get("standby_replicas", 0))]
    return _streams_answer(scenario, active, standby)


def keeps_every_previous_active(scenario: dict) -> dict:
    """The Streams analogue of KIP-341: every member that had a task active keeps it (two members claiming one
    task both keep it)."""
    tasks = set(_tasks(scenario))
    active = {t: list(holders) for t, holders in _previous(scenario, "active").items() if t in tasks}
    active = _streams_deal(scenario, active)
    return _streams_answer(scenario, active, _standbys(scenario, {t: h[:1] for t, h in active.items()}))


def keeps_removed_tasks(scenario: dict) -> dict:
    """A previous active task kept without asking the topology whether it still has it (a subtopology removed,
    fewer input partitions)."""
    active = _streams_deal(scenario, _kept_actives(scenario))
    for task, holders in _previous(scenario, "active").items():
        active.setdefault(task, holders[:1])
    return _streams_answer(
        scenario, active, _standbys(scenario, {t: h for t, h in active.items() if t[0] in scenario["subtopologies"]})
    )


def ignores_previous_tasks(scenario: dict) -> dict:
    """Every task dealt afresh, previous tasks ignored: balanced, but everything moves that need not."""
    active = _streams_deal(scenario, {})
    return _streams_answer(
        scenario,
        active,
        _standbys(
            {**scenario, "members": {m: {"process": e["process"]} for m, e in scenario["members"].items()}}, active
        ),
    )


# -- share groups -------------------------------------------------------------------------------------------------


def _assignable(scenario: dict) -> dict[str, set[int]]:
    out = {}
    for t, v in scenario["topics"].items():
        count = v if isinstance(v, int) else v["partitions"]
        listed = None if isinstance(v, int) else v.get("assignable")
        out[t] = set(range(count)) if listed is None else set(listed)
    return out


def _share_answer(scenario: dict, keep: Callable[[str, str, int], bool]) -> dict:
    """Each member's held partitions that ``keep(member, topic, p)`` allows, then every assignable partition of
    a subscribed topic nobody holds to its least loaded subscriber."""
    assignable = _assignable(scenario)
    members = list(scenario["members"])
    held: dict[str, list[tuple[str, int]]] = {m: [] for m in members}
    covered = set()
    for m in members:
        for topic, parts in (scenario["members"][m].get("assigned") or {}).items():
            for p in parts:
                if keep(m, topic, p):
                    held[m].append((topic, p))
                    covered.add((topic, p))
    for topic in scenario["topics"]:
        subscribers = [m for m in members if topic in scenario["members"][m]["topics"]]
        for p in sorted(assignable[topic]):
            if subscribers and (topic, p) not in covered:
                least = min(subscribers, key=lambda m: (len(held[m]), members.index(m)))
                held[least].append((topic, p))
    return _answer(held)


def share_sticky_json(scenario: dict) -> dict:
    """Correct: a member keeps what it holds of its subscribed topics' assignable partitions; every assignable
    partition nobody keeps goes to its least loaded subscriber."""
    assignable = _assignable(scenario)
    return _share_answer(scenario, lambda m, t, p: t in scenario["members"][m]["topics"] and p in assignable[t])


def keeps_unassignable_held(scenario: dict) -> dict:
    """share-held-unassignable-kept: a held partition of a subscribed topic kept without asking whether it is
    assignable."""
    return _share_answer(scenario, lambda m, t, p: t in scenario["members"][m]["topics"])


def keeps_unsubscribed_held(scenario: dict) -> dict:
    """share-unsubscribed-topic-kept: a held assignable partition kept whether the member still subscribes to
    its topic or not."""
    assignable = _assignable(scenario)
    return _share_answer(scenario, lambda m, t, p: p in assignable[t])


def crashes_on_unassignable_held(scenario: dict) -> dict:
    """share-held-unassignable-crash: the held partitions are looked up among the assignable ones, and one
    that is not there raises (``NoSuchElementException`` in Java, ``ValueError`` here)."""
    assignable = _assignable(scenario)
    for entry in scenario["members"].values():
        for topic, parts in (entry.get("assigned") or {}).items():
            for p in parts:
                sorted(assignable[topic]).index(p)  # the lookup that fails
    return share_sticky_json(scenario)


# -- the optimum, a control for every kind ---------------------------------------------------------------------


def optimum_json(scenario: dict) -> Any:
    """The exact optimum of the scenario's own objective, as its kind's JSON answer (optimal.solve)."""
    from assignment_oracle.optimal import solve
    from assignment_oracle.problem.kinds import kind_of
    from assignment_oracle.problem.load import load_scenario

    problem = load_scenario(scenario)
    document = kind_of(problem).answer_document(problem, solve(problem).assignment)
    return document.get("assignment", document)


# -- the battery ------------------------------------------------------------------------------------------------

_RAISED = "the assignor raised"


def _not_valid(violation: str) -> tuple[str, ...]:
    return ("check_assignor: not valid", violation)


#: The seeded bugs, one per defect class of the corpus.
SEEDED_BUGS: tuple[SeededBug, ...] = (
    SeededBug(
        "kip341-stale-claim-kept",
        "two members claim one partition at different generations; both keep it",
        ("kafka-7026", "aiokafka-sticky-no-generation", "faust-stale-claim-by-join-order"),
        "consumer",
        "valid",
        keeps_stale_claims,
        _not_valid("duplicated"),
    ),
    SeededBug(
        "tie-kept-by-both",
        "two members claim one partition at the same generation; both keep it",
        ("kafka-12984-equal-generation", "kafka-12984-claim-order"),
        "consumer",
        "valid",
        keeps_tied_claims,
        _not_valid("duplicated"),
    ),
    SeededBug(
        "no-generation-trusted",
        "a member that sends no generation keeps every claim, beside the owner with a generation",
        ("aiokafka-1176-no-generation",),
        "consumer",
        "valid",
        trusts_claims_without_generation,
        _not_valid("duplicated"),
    ),
    SeededBug(
        "keeps-dropped-topic",
        "a member keeps its partitions of a topic it no longer subscribes to",
        ("kafka4-stale-owner-unsubscribed",),
        "consumer",
        "valid",
        keeps_unsubscribed_claims,
        _not_valid("not-subscribed"),
    ),
    SeededBug(
        "keeps-partitions-gone",
        "a claim on a partition the metadata no longer has (beyond the count, a deleted topic) is kept",
        ("faust-claim-out-of-range",),
        "consumer",
        "valid",
        keeps_claims_beyond_metadata,
        _not_valid("unknown"),
    ),
    SeededBug(
        "crash-on-empty-subscription",
        "a member subscribed to nothing crashes the assignor",
        ("kafka-16930-empty-subscription",),
        "consumer",
        "valid",
        crashes_on_empty_subscription,
        (_RAISED, "IndexError"),
    ),
    SeededBug(
        "empty-first-subscription",
        "an empty subscription first in order makes the subscriptions look equal: partitions go to non-subscribers",
        ("kafka4-empty-first-subscription",),
        "consumer",
        "valid",
        trusts_first_subscription,
        _not_valid("not-subscribed"),
    ),
    SeededBug(
        "crash-on-missing-topic",
        "a subscribed topic missing from the metadata crashes the assignor",
        ("kafka-node-range-missing-topic", "sarama-missing-topic-fails-rebalance"),
        "consumer",
        "valid",
        crashes_on_missing_topic,
        (_RAISED, "KeyError"),
    ),
    SeededBug(
        "nothing-when-topic-missing",
        "a subscribed topic missing from the metadata: no partition assigned at all",
        ("kafka-go-missing-topic-assigns-nothing",),
        "consumer",
        "valid",
        nothing_when_topic_missing,
        _not_valid("missing"),
    ),
    SeededBug(
        "deals-to-non-subscribers",
        "heterogeneous subscriptions: every topic dealt round robin over every member",
        ("kafkajs-roundrobin-subscriptions",),
        "consumer",
        "valid",
        deals_to_non_subscribers,
        _not_valid("not-subscribed"),
    ),
    SeededBug(
        "round-robin-per-topic",
        "identical subscriptions, several topics: each topic dealt from the first member again",
        ("kafka-go-roundrobin-per-topic", "kafka-16277-per-topic-skew"),
        "consumer",
        "identical-subscriptions-balance",
        round_robin_per_topic,
        ("guarantee identical-subscriptions-balance broken",),
    ),
    SeededBug(
        "new-member-gets-nothing",
        "owners keep their claims up to the ceiling of a topic's share; a member joining with nothing gets the rest",
        ("faust-new-member-gets-nothing",),
        "consumer",
        "per-topic-balance",
        owners_keep_to_ceiling,
        ("guarantee per-topic-balance broken",),
    ),
    SeededBug(
        "standby-beside-active",
        "two members of one process: a standby on the process of its active",
        (),
        "streams",
        "valid",
        standby_beside_active,
        _not_valid("same-process"),
    ),
    SeededBug(
        "task-in-two-roles",
        "a task with no previous active goes to its previous standby, which keeps the standby too",
        (),
        "streams",
        "valid",
        promotes_standby_keeps_it,
        _not_valid("same-process"),
    ),
    SeededBug(
        "task-active-twice",
        "two members had one task active; both keep it",
        ("kafka-7026",),
        "streams",
        "valid",
        keeps_every_previous_active,
        _not_valid("duplicated"),
    ),
    SeededBug(
        "keeps-removed-task",
        "a previous active task the topology no longer has is kept",
        ("faust-claim-out-of-range",),
        "streams",
        "valid",
        keeps_removed_tasks,
        _not_valid("unknown"),
    ),
    SeededBug(
        "ignores-previous-tasks",
        "previous tasks ignored: every task dealt afresh",
        (),
        "streams",
        "sticky-at-equal-balance",
        ignores_previous_tasks,
        ("guarantee sticky-at-equal-balance broken",),
    ),
    SeededBug(
        "keeps-unassignable-held",
        "a held partition that is not assignable is kept",
        ("share-held-unassignable-kept",),
        "share",
        "valid",
        keeps_unassignable_held,
        _not_valid("not-assignable"),
    ),
    SeededBug(
        "keeps-unsubscribed-held",
        "a held partition of a topic the member no longer subscribes to is kept",
        ("share-unsubscribed-topic-kept",),
        "share",
        "valid",
        keeps_unsubscribed_held,
        _not_valid("not-subscribed"),
    ),
    SeededBug(
        "crash-on-unassignable-held",
        "a held partition that is not assignable crashes the assignor",
        ("share-held-unassignable-crash",),
        "share",
        "valid",
        crashes_on_unassignable_held,
        (_RAISED, "ValueError"),
    ),
)

#: The correct assignors the battery must pass.
CONTROLS: tuple[Control, ...] = (
    Control("sticky-json", "consumer", "valid", sticky_json),
    Control("sticky", "consumer", "valid", "sticky"),
    Control("range", "consumer", "valid", "range"),
    Control("roundrobin", "consumer", "valid", "roundrobin"),
    Control("optimum", "consumer", None, optimum_json),
    Control("streams-sticky-json", "streams", "valid", streams_sticky_json),
    Control("streams-sticky", "streams", "valid", "streams-sticky"),
    Control("share-sticky-json", "share", "valid", share_sticky_json),
    Control("optimum-share", "share", None, optimum_json),
)
