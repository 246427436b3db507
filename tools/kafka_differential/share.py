"""Kafka's own share group assignor (``SimpleAssignor``, KIP-932) against the port ``share-simple``.

Not part of CI (issue 41; see README.md in this folder, "Share groups").  It reuses run.py's build and JVM
(``run.build``, ``run.Jvm``: the build takes ``SimpleAssignor`` and its two builders when the Kafka commit has
them, ``ShareAssignors.java`` hands a share group scenario to Kafka as the group coordinator builds it), draws
random share groups (:func:`generate`), asks Kafka and the port (``heuristics.share_simple.assign`` in both
iteration orders) and reports where they agree::

    .venv/bin/python tools/kafka_differential/share.py --kafka-git /work/.mirror/confluentinc+kafka/repo \\
        --commit d79bd502ec7fa49335afa422f442af80ed0ab8f6 --scenarios 20000 --shrink

``--scenario JSON`` (or ``@FILE``; repeatable) asks about given scenarios instead and prints both answers.

Java's ``memberIds()`` is filled as the coordinator fills it (issue 43): the group's members put into Kafka's
own ``TimelineHashMap`` in the scenario's member order (its join order; ``--join-order shuffled`` lists each
scenario's members in a random order drawn on its own), then, with ``--joining last``, the last member when it
holds nothing (the heartbeating member joining, the ``OverlayMap``'s addition).  The port takes the same
(``share_simple.assign(..., joining=...)``); the line "HashMap filled straight" shows the port with ``memberIds()``
filled straight in the group's order instead, as assumed before issue 43.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Callable, Iterable

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run  # noqa: E402  (this folder's run.py: build, JVM, names and topic ids)

from assignment_oracle.heuristics import share_simple  # noqa: E402
from assignment_oracle.heuristics.java_order import java_order, string_hash  # noqa: E402
from assignment_oracle.heuristics.timeline_order import joining_member  # noqa: E402
from assignment_oracle.problem.errors import AssignorError  # noqa: E402
from assignment_oracle.problem.share import ShareProblem  # noqa: E402

ASSIGNOR = "share-simple"
ORDERS = tuple(share_simple.ITERATION_ORDERS)  # ("sorted", "java")


# -- scenarios ----------------------------------------------------------------------------------------------


def _subset(rng: random.Random, items: list, p: float) -> list:
    return [x for x in items if rng.random() < p]


def generate(seed: int, index: int, max_partitions: int = 8, max_members: int = 12) -> dict:
    """Share group scenario ``index`` of run ``seed`` (reproducible alone): 1-4 topics of 1-``max_partitions``
    partitions, each with a random Kafka topic id; 1-``max_members`` members, a third of the time more members
    than partitions; all subscriptions equal about half the time, else differing (sometimes a member with
    none); some topics with only some partitions assignable (sometimes none); current assignments fresh,
    random (overlapping, sometimes of topics no longer subscribed or partitions not assignable), or the port's
    own answer to the group as it was before a change (members joined or left, subscriptions or assignable
    partitions changed), fed back."""
    rng = random.Random(f"kafka_differential/share/{seed}/{index}")
    used: set[str] = set()
    topic_style = rng.choice(["short", "kafka", "random"])
    names = [run._name(rng, used, "short" if topic_style == "kafka" else topic_style) for _ in range(rng.randint(1, 4))]
    counts = {t: rng.randint(1, max_partitions) for t in names}
    total = sum(counts.values())
    if rng.random() < 1 / 3:  # more members than partitions: partitions shared
        n_members = rng.randint(total + 1, max(total + 1, min(3 * total + 2, 40)))
    else:
        n_members = rng.randint(1, max_members)
    member_style = rng.choice(["short", "kafka", "random"])
    members = [run._name(rng, used, member_style) for _ in range(n_members)]
    ids = {}
    for t in names:
        ids[t] = run.kafka_uuid(rng, ids.values())
    topics: dict = {}
    for t in names:
        spec: dict = {"partitions": counts[t], "id": ids[t]}
        if rng.random() < 0.25:
            spec["assignable"] = _subset(rng, list(range(counts[t])), rng.choice([0.3, 0.6, 0.9]))
        topics[t] = spec

    def subscriptions() -> dict[str, list[str]]:
        if rng.random() < 0.5:
            common = _subset(rng, names, 0.7) or [rng.choice(names)]
            rng.shuffle(common)
            return {m: list(common) for m in members}
        out = {}
        for m in members:
            mine = [] if rng.random() < 0.05 else (_subset(rng, names, 0.5) or [rng.choice(names)])
            rng.shuffle(mine)
            out[m] = mine
        return out

    subscribed = subscriptions()
    scenario = {
        "kind": "share",
        "topics": topics,
        "members": {m: {"topics": subscribed[m]} for m in members},
    }
    mode = rng.choice(["fresh", "random", "feedback", "feedback"])
    if mode == "random":
        for m in members:
            if rng.random() < 0.3:
                continue
            held = {}
            for t in names:
                if t in subscribed[m] or rng.random() < 0.1:
                    parts = _subset(rng, list(range(counts[t])), rng.choice([0.2, 0.5, 0.8]))
                    if parts:
                        held[t] = parts
            if held:
                scenario["members"][m]["assigned"] = held
    elif mode == "feedback":
        _feed_back(rng, scenario, subscribed, used, member_style)
    return scenario


def _feed_back(rng: random.Random, scenario: dict, subscribed: dict, used: set[str], member_style: str) -> None:
    """The port's answer (sorted order) to the group as it was, as the current members' assignments: before,
    some of today's members were not there, others were that have left, some subscribed differently, and
    the assignable partitions were others."""
    members = list(scenario["members"])
    before_members = [m for m in members if rng.random() < 0.8]
    before_members += [run._name(rng, used, member_style) for _ in range(rng.choice([0, 0, 1, 2]))]
    rng.shuffle(before_members)
    before_topics = {}
    for t, spec in scenario["topics"].items():
        before = {"partitions": spec["partitions"], "id": spec["id"]}
        if rng.random() < 0.2:
            before["assignable"] = _subset(rng, list(range(spec["partitions"])), 0.7)
        elif "assignable" in spec and rng.random() < 0.5:
            before["assignable"] = spec["assignable"]
        before_topics[t] = before
    names = list(scenario["topics"])
    before_subscribed = {}
    for m in before_members:
        if m in subscribed and rng.random() < 0.85:
            before_subscribed[m] = subscribed[m]
        else:
            before_subscribed[m] = _subset(rng, names, 0.6) or [rng.choice(names)]
    before = {
        "kind": "share",
        "topics": before_topics,
        "members": {m: {"topics": before_subscribed[m]} for m in before_members},
    }
    try:
        answer = share_simple.assign(ShareProblem.from_mapping(before)).to_mapping()
    except AssignorError:
        return
    for m, held in answer.items():
        if m in scenario["members"] and held:
            scenario["members"][m]["assigned"] = held


# -- answers --------------------------------------------------------------------------------------------------


#: ``--joining``: ``"last"`` makes the last listed member, when it holds nothing, the one joining.
JOINING = "none"


def port_answer(scenario: dict, order: str, fill: str = "coordinator") -> dict:
    """The port's answer as Kafka's is written: ``{"assignment": ...}`` (every member) or ``{"error": ...}``;
    ``fill="hash"``: ``memberIds()`` filled straight in the group's order (before issue 43)."""
    problem = ShareProblem.from_mapping(scenario)
    keywords: dict = {}
    if fill == "hash":
        keywords["member_order"] = java_order(list(problem.member_ids), string_hash)
    elif JOINING == "last":
        keywords["joining"] = joining_member(problem.member_ids, lambda m: bool(problem.member[m].assigned))
    try:
        answer = share_simple.assign(problem, iteration_order=order, **keywords)
    except share_simple.SimpleAssignorException as e:
        return {"error": f"{e.java_class}: {e}"}
    return {"assignment": answer.to_mapping()}


def server_orders() -> dict | None:
    return {"joining": "last"} if JOINING == "last" else None


def kafka_answer(jvm: run.Jvm, scenario: dict) -> dict:
    return jvm.ask(scenario, [ASSIGNOR], server_orders())[ASSIGNOR]


def _exception(error: str) -> str:
    return error.split(":", 1)[0].strip()


def agree(java: dict, port: dict) -> bool:
    """Equal assignments, or both threw the same exception class."""
    if "error" in java or "error" in port:
        return "error" in java and "error" in port and _exception(java["error"]) == _exception(port["error"])
    return java["assignment"] == port["assignment"]


def size(scenario: dict) -> tuple[int, int, int, int]:
    """Fewest members, then partitions, topics and held partitions: what "smallest" means."""
    held = sum(len(ps) for m in scenario["members"].values() for ps in m.get("assigned", {}).values())
    return (
        len(scenario["members"]),
        sum(t["partitions"] for t in scenario["topics"].values()),
        len(scenario["topics"]),
        held,
    )


# -- shrinking --------------------------------------------------------------------------------------------------


def candidates(scenario: dict) -> Iterable[dict]:
    """Simpler scenarios, one change each: a member gone, a topic gone, a partition fewer, a held partition
    or a subscribed topic dropped, an ``assignable`` restriction lifted or narrowed, short member names."""

    def copy() -> dict:
        return json.loads(json.dumps(scenario))

    members = list(scenario["members"])
    for m in members:
        s = copy()
        del s["members"][m]
        yield s
    for t in list(scenario["topics"]):
        s = copy()
        del s["topics"][t]
        for mm in s["members"].values():
            mm["topics"] = [x for x in mm["topics"] if x != t]
            if "assigned" in mm:
                mm["assigned"].pop(t, None)
                if not mm["assigned"]:
                    del mm["assigned"]
        yield s
    for t, spec in scenario["topics"].items():
        if spec["partitions"] > 1:
            s = copy()
            n = spec["partitions"] - 1
            s["topics"][t]["partitions"] = n
            if "assignable" in spec:
                s["topics"][t]["assignable"] = [p for p in spec["assignable"] if p < n]
            for mm in s["members"].values():
                if t in mm.get("assigned", {}):
                    mm["assigned"][t] = [p for p in mm["assigned"][t] if p < n]
                    if not mm["assigned"][t]:
                        del mm["assigned"][t]
                    if not mm["assigned"]:
                        del mm["assigned"]
            yield s
    for m, mm in scenario["members"].items():
        for t, ps in mm.get("assigned", {}).items():
            for p in ps:
                s = copy()
                s["members"][m]["assigned"][t] = [x for x in ps if x != p]
                if not s["members"][m]["assigned"][t]:
                    del s["members"][m]["assigned"][t]
                if not s["members"][m]["assigned"]:
                    del s["members"][m]["assigned"]
                yield s
        for t in mm["topics"]:
            s = copy()
            s["members"][m]["topics"] = [x for x in mm["topics"] if x != t]
            yield s
    for t, spec in scenario["topics"].items():
        if "assignable" in spec:
            s = copy()
            del s["topics"][t]["assignable"]
            yield s
            for p in spec["assignable"]:
                s = copy()
                s["topics"][t]["assignable"] = [x for x in spec["assignable"] if x != p]
                yield s
    renames = {m: f"m{i}" for i, m in enumerate(members)}
    if any(m != n for m, n in renames.items()) and not set(renames.values()) & set(members):
        s = copy()
        s["members"] = {renames[m]: mm for m, mm in scenario["members"].items()}
        yield s


def shrink(scenario: dict, still_differs: Callable[[dict], bool], budget: int = 3000) -> dict:
    """Greedy: the first simpler scenario that still differs, until none does (or the budget is spent)."""
    tries, progress = 0, True
    while progress and tries < budget:
        progress = False
        for s in candidates(scenario):
            tries += 1
            if still_differs(s):
                scenario, progress = s, True
                break
            if tries >= budget:
                break
    return scenario


# -- main -------------------------------------------------------------------------------------------------------


def _pct(k: int, n: int) -> str:
    return f"{k} / {n} ({100.0 * k / n:.1f}%)" if n else "0 / 0"


def one_line(obj) -> str:
    return json.dumps(obj, separators=(",", ":"))


def _read_scenario(text: str) -> dict:
    return json.loads(Path(text[1:]).read_text() if text.startswith("@") else text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--kafka-git", help="a Kafka git dir (with --commit)")
    where.add_argument("--kafka", help="a Kafka source checkout")
    parser.add_argument("--commit", default="HEAD")
    parser.add_argument("--scenarios", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-partitions", type=int, default=8)
    parser.add_argument("--max-members", type=int, default=12)
    parser.add_argument("--scenario", action="append", default=[], help="a share scenario (JSON or @FILE)")
    parser.add_argument("--iteration-order", choices=[*ORDERS, "both"], default="both")
    parser.add_argument("--shrink", action="store_true")
    parser.add_argument(
        "--join-order",
        choices=("generated", "shuffled"),
        default="generated",
        help="the order each scenario lists its members, the group's join order: as generated (default) or "
        "shuffled (a stream of its own per scenario)",
    )
    parser.add_argument(
        "--joining",
        choices=("none", "last"),
        default="none",
        help="every member in the group's TimelineHashMap (none, default), or the last listed member, when it "
        "holds nothing, joining (the OverlayMap's addition, after the others)",
    )
    parser.add_argument("--out", type=Path, default=run.cache_root() / "reproducers")
    parser.add_argument("--m2", type=Path, default=Path.home() / ".m2" / "repository")
    parser.add_argument("--javac", default="javac")
    parser.add_argument("--java", default="java")
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args(argv)
    global JOINING
    JOINING = args.joining
    orders = ORDERS if args.iteration_order == "both" else (args.iteration_order,)

    source = run.kafka_source(args)
    print(f"Kafka commit: {source.describe()}")
    jars = run.classpath_jars(args.m2)
    classes = run.build(source, jars, args.javac, args.rebuild)
    args.out.mkdir(parents=True, exist_ok=True)
    jvm = run.Jvm(args.java, classes, jars, args.out / "share-jvm.log")
    try:
        if args.scenario:
            for text in args.scenario:
                scenario = _read_scenario(text)
                print("scenario", one_line(scenario))
                print("  kafka ", one_line(_plain(kafka_answer(jvm, scenario))))
                for o in orders:
                    print(f"  port {o:6}", one_line(port_answer(scenario, o)))
            return 0
        started = time.monotonic()
        scenarios = [generate(args.seed, i, args.max_partitions, args.max_members) for i in range(args.scenarios)]
        if args.join_order == "shuffled":
            scenarios = [run.shuffled_members(s, f"share/{args.seed}", i) for i, s in enumerate(scenarios)]
        answers = jvm.stream(scenarios, [ASSIGNOR], server_orders())
        tally = {o: Counter() for o in orders}
        errors: Counter = Counter()
        smallest: dict[str, dict] = {}
        for scenario, answer in zip(scenarios, answers):
            java = answer[ASSIGNOR]
            builder = java.get("subscription_type", "error")
            if "error" in java:
                errors[_exception(java["error"])] += 1
            for o in orders:
                port = port_answer(scenario, o)
                ok = agree(java, port)
                tally[o]["agree" if ok else "differ"] += 1
                tally[o][f"{builder}/{'agree' if ok else 'differ'}"] += 1
                if not ok and (o not in smallest or size(scenario) < size(smallest[o])):
                    smallest[o] = scenario
                if o == "java":
                    tally[o]["hash-fill/agree"] += agree(java, port_answer(scenario, o, fill="hash"))
        elapsed = time.monotonic() - started
        n = len(scenarios)
        print(
            f"{n} share groups (seed {args.seed}, up to {args.max_partitions} partitions per topic, join order "
            f"{args.join_order}, joining {args.joining}) in {elapsed:.1f} s, one JVM"
        )
        for o in orders:
            line = f"share-simple  {o:6}  agree {_pct(tally[o]['agree'], n)}"
            for b in ("homogeneous", "heterogeneous"):
                k, d = tally[o][f"{b}/agree"], tally[o][f"{b}/differ"]
                line += f"  {b} {_pct(k, k + d)}"
            print(line)
        if "java" in orders:
            print(
                f"share-simple  java    HashMap filled straight in the group's order (before issue 43): agree {_pct(tally['java']['hash-fill/agree'], n)}"
            )
        if errors:
            print(
                "Kafka threw: "
                + ", ".join(f"{k} {v}" for k, v in sorted(errors.items()))
                + " (agreement: the port threw the same)"
            )
        for o, scenario in smallest.items():
            if args.shrink:
                scenario = shrink(
                    scenario, lambda s, o=o: _valid(s) and not agree(kafka_answer(jvm, s), port_answer(s, o))
                )
            java, port = kafka_answer(jvm, scenario), port_answer(scenario, o)
            path = args.out / f"{ASSIGNOR}.{o}.json"
            path.write_text(json.dumps({"scenario": scenario, "kafka": _plain(java), "port": port}, indent=1) + "\n")
            print(
                f"smallest difference ({o}): {one_line(scenario)}\n  kafka {one_line(_plain(java))}\n  port  {one_line(port)}"
            )
        return 0
    finally:
        jvm.close()


def _valid(scenario: dict) -> bool:
    try:
        ShareProblem.from_mapping(scenario)
    except ValueError:
        return False
    return True


def _plain(answer: dict) -> dict:
    return {k: v for k, v in answer.items() if k != "trace"}


if __name__ == "__main__":
    sys.exit(main())
