"""Share group histories (KIP-932): Kafka's ``SimpleAssignor`` over many rebalances, each judged.

A *history* is a starting share group and a list of events; :func:`play` runs it with one assignor.
Step 0 is the starting group (nobody holds anything); each later step applies one event and rebalances.
What a member brings to a rebalance is what Kafka's group coordinator hands the assignor
(``GroupSpec.memberAssignment``): its **current assignment**, the partitions the assignor gave it in the
step before (the answer fed back, as ``assigned``), if it was in the group then; a member that joins
holds nothing.  A share consumer that restarts comes back with a new member id (the client generates
one), so a restart is a leave and a join.

Families (:data:`HISTORIES`), every choice drawn from ``random.Random`` seeded by the history and seed:

``scale-out``
    ``steps`` times, a new member joins (on every topic, or on the topics of a random member when the
    group is heterogeneous);
``scale-in``
    ``steps`` times, a random member leaves for good; at least one stays;
``rolling-restart``
    every member restarts, one at a time (a seeded order; ``steps`` limits how many): it leaves (a step)
    and comes back with a new id (``m0-r1``; the next step) on the same topics, holding nothing;
``assignable``
    the group starts with about half of each topic's partitions assignable (share state initialised:
    ``GroupSpec.isPartitionAssignable``, KAFKA-19344) and ``steps`` times a few more become assignable,
    as the share coordinator initialises them;
``steady``
    ``steps`` rebalances where nothing changes: every member brings back what it was given, so an
    assignor that keeps its promises moves nothing.

The starting group: ``topics`` topics ``t0 ..`` of 1 to ``partitions`` partitions, each with a Kafka topic
id (Java's hash order reads them), ``members`` members ``m0 ..`` on every topic, or, with
``heterogeneous``, each on a random non-empty subset.

Each step is solved exactly (:func:`assignment_oracle.optimal.solve`, Kafka's tiers and target) and the
assignor's answer judged against that optimum (:func:`assignment_oracle.compare.judge.share.judge`):
validity, each tier beside the optimum's, the first worse tier, Kafka's promises; and moves: the pairs
the members held (and may still hold) that they lost, beside the optimum's on the same state, and
``moved_optimum_kept``, pairs the optimum keeps and the assignor moved.  The trajectory is the
assignor's own: a step's problem depends on what the assignor answered before.

Assignors (:data:`ASSIGNORS`): ``share-simple`` (the port, sorted order) and ``share-simple-java``
(Java 17's hash orders); and ``optimum`` (:data:`OPTIMUM`), the oracle's own trajectory.  An assignor
that throws (Kafka's ``NoSuchElementException``) ends its history at that step with an error row.
"""

from __future__ import annotations

import base64
import random
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from assignment_oracle.compare.judge.share import judge
from assignment_oracle.compare.judge.text import cell
from assignment_oracle.compare.scenarios import history as history_
from assignment_oracle.compare.scenarios.history import OPTIMUM
from assignment_oracle.heuristics import share_simple
from assignment_oracle.optimal.share_request import BALANCE, STICKINESS
from assignment_oracle.problem.errors import AssignorError
from assignment_oracle.problem.kinds import SHARE
from assignment_oracle.problem.share import ShareAssignment, ShareProblem

__all__ = [
    "HISTORIES",
    "ASSIGNORS",
    "OPTIMUM",
    "DEFAULTS",
    "Event",
    "SharePlan",
    "ShareStep",
    "ShareHistory",
    "plan",
    "play",
    "simulate",
    "random_scenario",
    "get_share_assignor",
]

HISTORIES = ("scale-out", "scale-in", "rolling-restart", "assignable", "steady")

#: Assignor name -> what answers a :class:`ShareProblem` (Kafka's port in each iteration order).
ASSIGNORS: Mapping[str, Callable[[ShareProblem], ShareAssignment]] = history_.in_both_orders("share-simple", "share")

#: The starting group's parameters when not given.
DEFAULTS: Mapping[str, Any] = {"members": 4, "topics": 2, "partitions": 4, "heterogeneous": False}


def get_share_assignor(name: str) -> Callable[[ShareProblem], ShareAssignment]:
    """The assignor called ``name`` (:data:`ASSIGNORS`); ``ValueError`` naming the known ones otherwise."""
    return HISTORY_KIND.assignor(name)


# -- the group and its events ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Event(history_.Event):
    """What happens before a step's rebalance: ``kind`` (``start``, ``join``, ``leave``, ``assignable``,
    ``none``), the member (``join``, ``leave``) with its topics (``join``), the partitions that become
    assignable (``assignable``)."""

    member: str | None = None
    topics: tuple[str, ...] = ()
    partitions: tuple[tuple[str, int], ...] = ()

    def change(self) -> str:
        if self.kind == "join":
            return f"{self.member} joins on {', '.join(self.topics)}"
        if self.kind == "leave":
            return f"{self.member} leaves"
        return "assignable now: " + ", ".join(f"{t}-{p}" for t, p in self.partitions)


@dataclass(frozen=True)
class SharePlan(history_.Plan):
    """A history before it is played: the topics (partition count, id), which partitions are assignable at
    the start, the starting members (id -> topics), the events (one per step after step 0).  The same
    name, seed and parameters always give the same plan."""

    topics: Mapping[str, tuple[int, str]]
    assignable: Mapping[str, tuple[int, ...]]  # topics that restrict it, at the start
    members: Mapping[str, tuple[str, ...]]
    events: tuple[Event, ...]


def _topic_id(rng: random.Random) -> str:
    """A Kafka topic id as ``Uuid.randomUuid().toString()`` prints one (never the all-zero id)."""
    while True:
        raw = rng.getrandbits(128).to_bytes(16, "big")
        if any(raw):
            return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _subscription(rng: random.Random, names: list[str], heterogeneous: bool) -> tuple[str, ...]:
    if not heterogeneous:
        return tuple(names)
    chosen = [t for t in names if rng.random() < 0.6]
    return tuple(chosen or [rng.choice(names)])


def starting_group(
    rng: random.Random, params: Mapping[str, Any]
) -> tuple[dict[str, tuple[int, str]], dict[str, tuple[str, ...]]]:
    """The topics (name -> (partitions, id)) and the starting members (id -> topics), drawn from ``rng``."""
    topics = {f"t{k}": (rng.randint(1, params["partitions"]), _topic_id(rng)) for k in range(params["topics"])}
    names = list(topics)
    members = {f"m{i}": _subscription(rng, names, params["heterogeneous"]) for i in range(params["members"])}
    return topics, members


def plan(history: str, *, seed: int = 0, **params: Any) -> SharePlan:
    """The events of ``history`` (:data:`HISTORIES`) from ``seed`` (module docstring); parameters as
    :data:`DEFAULTS`, and ``steps`` (default: every member for ``rolling-restart``, 2 otherwise;
    ``scale-in`` removes at most ``members - 1``)."""
    p, steps, shown, rng = HISTORY_KIND.begin(history, seed, params)
    topics, members = starting_group(rng, p)
    names = list(topics)
    count = 2 if steps is None else steps
    events: list[Event] = []
    assignable: dict[str, tuple[int, ...]] = {}
    if history == "scale-out":
        for k in range(count):
            model = members[rng.choice(sorted(members))]
            topics_of = model if p["heterogeneous"] else tuple(names)
            events.append(Event("join", f"m{len(members) + k}", topics_of))
    elif history == "scale-in":
        left = sorted(members)
        for _ in range(min(count, len(left) - 1)):
            gone = rng.choice(left)
            left.remove(gone)
            events.append(Event("leave", gone))
    elif history == "rolling-restart":
        order = sorted(members)
        rng.shuffle(order)
        for m in order[: len(order) if steps is None else steps]:
            events.append(Event("leave", m))
            events.append(Event("join", f"{m}-r1", members[m]))
    elif history == "assignable":
        pending = []
        for t, (n, _) in topics.items():
            blocked = sorted(rng.sample(range(n), n // 2)) if n > 1 else []
            if blocked:
                assignable[t] = tuple(q for q in range(n) if q not in blocked)
                pending += [(t, q) for q in blocked]
        rng.shuffle(pending)
        for k in range(count):
            now = tuple(sorted(pending[k::count]))
            events.append(Event("assignable", partitions=now) if now else Event("none"))
    else:
        events = [Event("none")] * count
    return SharePlan(history, seed, shown, topics, assignable, members, tuple(events))


def _problem(
    plan_: SharePlan,
    members: Mapping[str, tuple[str, ...]],
    assignable: Mapping[str, tuple[int, ...]],
    previous: ShareAssignment | None,
) -> ShareProblem:
    """The step's scenario: the members in join order, each with what it was given in the step before."""
    topics: dict[str, Any] = {}
    for t, (n, topic_id) in plan_.topics.items():
        spec: dict[str, Any] = {"partitions": n, "id": topic_id}
        if t in assignable:
            spec["assignable"] = list(assignable[t])
        topics[t] = spec
    out: dict[str, Any] = {}
    for member_id, subscribed in members.items():
        entry: dict[str, Any] = {"topics": list(subscribed)}
        if previous is not None and previous.of(member_id):
            held: dict[str, list[int]] = {}
            for t, q in previous.of(member_id):
                held.setdefault(t, []).append(q)
            entry["assigned"] = held
        out[member_id] = entry
    return ShareProblem.from_mapping(
        {"kind": "share", "topics": topics, "members": out}, source=f"share history {plan_.name}"
    )


# -- playing a history -------------------------------------------------------------------------------------


class _Group(history_.Group):
    """A share group between steps: its members in join order (id -> topics) and the topics whose
    partitions are not all assignable yet (topic -> the assignable ones)."""

    def __init__(self, plan_: SharePlan) -> None:
        self.plan = plan_
        self.members = dict(plan_.members)
        self.assignable = {t: tuple(ps) for t, ps in plan_.assignable.items()}

    def apply(self, event: Event) -> None:
        if event.kind == "leave":
            self.members.pop(event.member, None)
        elif event.kind == "join" and event.member is not None:
            self.members[event.member] = event.topics
        elif event.kind == "assignable":
            for t, q in event.partitions:
                now = set(self.assignable.get(t, ())) | {q}
                if len(now) == self.plan.topics[t][0]:
                    self.assignable.pop(t, None)
                else:
                    self.assignable[t] = tuple(sorted(now))

    def problem(self, previous: ShareAssignment | None) -> ShareProblem:
        return _problem(self.plan, self.members, self.assignable, previous)


@dataclass(frozen=True, eq=False)
class ShareStep(history_.Step):
    """One rebalance of a share group's history (:class:`history.Step`): ``problem`` a :class:`ShareProblem`,
    ``assignment`` a :class:`ShareAssignment` (``None`` when the assignor threw: ``error`` says what),
    ``optimum`` an ``optimal.share.ShareSolution``."""

    error: str = ""

    def row(self) -> dict:
        """One flat dict: ``step``, ``event``, ``members``, ``partitions`` (assignable, of subscribed
        topics), ``homogeneous``, ``status`` (``ok`` or ``error``: the assignor threw, ``message``); the
        verdict's ``valid``, ``violations``, ``verdict``, ``gap_tier``, ``tiers`` (tier -> equal, worse,
        better, unknown), ``values`` and ``optimal_values``, ``guarantees_broken``; ``uncovered``,
        ``under_shared``, ``over_shared``, ``load_spread``, ``largest_load`` and the optimum's; moves:
        ``owned`` (pairs held that may stay), ``kept``/``moved`` and the optimum's, ``moved_optimum_kept``;
        ``optimum_status``, ``optimum_wall_time_s``, ``wall_time_s``."""
        p = self.problem
        best = self.optimum.measures
        base = {
            "step": self.index,
            "event": self.event.summary(),
            "members": len(p.members),
            "partitions": int(p.target_mask.sum()),
            "homogeneous": p.is_homogeneous,
            "optimum_status": self.optimum.status,
            "optimal_values": {t.tier: t.value for t in self.optimum.tiers},
            "owned": best.owned,
            "optimal_kept": best.kept,
            "optimal_moved": best.owned - best.kept,
            "optimum_wall_time_s": self.optimum.wall_time,
            "wall_time_s": self.wall_time,
        }
        v = self.verdict
        if v is None:
            return {**base, "status": "error", "message": self.error, "valid": False, "verdict": None}
        m = v.measures
        sticky = v.tier(STICKINESS)
        moved_kept = sticky.involved.get("count") if sticky is not None and sticky.involved else None
        balance = v.tier(BALANCE)
        return {
            **base,
            "status": "ok",
            "message": "",
            "valid": v.valid,
            "violations": len(v.violations),
            "verdict": v.status,
            "gap_tier": v.gap_tier,
            "tiers": {t.tier: t.comparison for t in v.tiers},
            "values": {t.tier: t.value for t in v.tiers},
            "guarantees_broken": list(v.broken),
            "uncovered": m["uncovered"],
            "under_shared": m["under_shared"],
            "over_shared": m["over_shared"],
            "load_spread": m["load_spread"],
            "largest_load": balance.value[0] if balance is not None and balance.value else 0,
            "optimal_largest_load": balance.optimum[0] if balance is not None and balance.optimum else 0,
            "kept": m["kept"],
            "moved": m["owned"] - m["kept"],
            "moved_optimum_kept": moved_kept,
        }


@dataclass(frozen=True, eq=False)
class ShareHistory(history_.History):
    """A share group's history played by one assignor (:class:`history.History`): one :class:`ShareStep`
    per rebalance (step 0 the starting group); an assignor that threw ends it with an error row."""

    KIND = SHARE
    COLUMNS = ("largest/opt", "under/over", "moved/opt")
    MOVED = (("moved", "pairs"),)
    ERRORS = True

    def cells(self, r: dict) -> tuple[str, ...]:
        return (
            f"{r['largest_load']}/{r['optimal_largest_load']}",
            f"{r['under_shared']}/{r['over_shared']}",
            f"{r['moved']}/{cell(r['optimal_moved'])} of {r['owned']}",
        )


#: What a share group's history is made of (the one play loop, :class:`history.HistoryKind`).
HISTORY_KIND = history_.HistoryKind(
    histories=HISTORIES,
    defaults=DEFAULTS,
    at_least={"members": 1, "topics": 1, "partitions": 1},
    flags=("heterogeneous",),
    assignors=ASSIGNORS,
    judge=judge,
    group=_Group,
    event=Event,
    step=ShareStep,
    history=ShareHistory,
    stops_on=(AssignorError,),
)


def play(plan_: SharePlan, assignor: str) -> ShareHistory:
    """Play ``plan_`` with ``assignor`` (:data:`ASSIGNORS`, or :data:`OPTIMUM`), each step solved and judged."""
    return HISTORY_KIND.play(plan_, assignor)


def simulate(history: str, assignor: str = "share-simple", *, seed: int = 0, **params: Any) -> ShareHistory:
    """Play the history called ``history`` (:data:`HISTORIES`) with ``assignor`` (``share-simple``,
    ``share-simple-java`` or ``optimum``) from ``seed``; ``params`` as :func:`plan`.

    >>> h = simulate("steady", "share-simple", seed=1)
    >>> [r["step"] for r in h.rows()], h.rows()[0]["valid"]
    ([0, 1, 2], True)
    """
    return HISTORY_KIND.simulate(plan, history, assignor, seed, params)


# -- single rebalances for sweeps ------------------------------------------------------------------------------


def random_scenario(seed: int, *, previous: bool = False, **params: Any) -> ShareProblem:
    """One share group rebalance from ``seed`` (parameters as :data:`DEFAULTS`; ``steps`` not taken).

    Without ``previous``: a fresh group (nobody holds anything).  With it: the group after Kafka's answer
    (the port, sorted order) on an earlier group fed back, then some churn: a random member left (unless it
    is the only one), a new member joined (on the topics of a random member) and, on about half the seeds,
    a partition of each topic was not assignable earlier and is now.
    """
    p, rng = HISTORY_KIND.begin_single(seed, previous, params)
    topics, members = starting_group(rng, p)
    plan_ = SharePlan("single", seed, p, topics, {}, members, ())
    if not previous:
        return _problem(plan_, members, {}, None)
    newly = {t: rng.randrange(n) for t, (n, _) in topics.items() if n > 1 and rng.random() < 0.5}
    earlier_assignable = {t: tuple(q for q in range(topics[t][0]) if q != blocked) for t, blocked in newly.items()}
    earlier = _problem(plan_, members, earlier_assignable, None)
    try:
        answer: ShareAssignment | None = share_simple.assign(earlier)
    except AssignorError:
        answer = None
    now = dict(members)
    if len(now) > 1:
        now.pop(rng.choice(sorted(now)))
    now[f"m{len(members)}"] = members[rng.choice(sorted(members))]
    return _problem(plan_, now, {}, answer)
