"""The soundness campaign: many small random rebalances, every exact model and every assignor's verdict.

For each seed it draws a small rebalance (1-4 members, 1-3 topics of 1-4
partitions, random subscriptions, claims at random generations: ties, stale
claims, claims on topics no longer subscribed, on partitions that are gone)
and records, as one canonical JSON line:

* the brute-force optimum (enumeration), the flow's and CP-SAT's solutions
  (status, sorted loads, retained, the assignment) and whether each
  certificate verifies, plus whether all of them agree;
* the composed model on the same instance dressed up (issue 24): racks, maybe weights and a join
  group, and a random request (any order of balance, rack, spread and stickiness, any balance
  definition, maybe a budget of moves), from its own random stream (the base draw is unchanged):
  ``optimal.solve`` with ``method="cpsat-staged"`` against ``brute_force.request_optimum``, a
  disagreement when they differ;
* for every registered assignor, its whole judged row
  (``compare.judge.evaluate``: validity and violations, loads, gaps,
  guarantee kept or broken, rounds).

It prints the number of instances, the number of model disagreements and a
SHA-256 digest over all lines.  Two versions of the code give the same
digest exactly when every answer and every verdict is the same, so a change
of representation is checked by running this on the old and the new code::

    python benchmarks/soundness.py --seeds 100000 --start 0 --jobs 2
    PYTHONPATH=/tmp/old-install python benchmarks/soundness.py --seeds 100000 --jobs 2

``--lines FILE`` keeps the lines, to find the first instance that differs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import random
import sys
import time

from assignment_oracle.compare.judge.evaluate import evaluate
from assignment_oracle.heuristics.registry import ASSIGNORS
from assignment_oracle.optimal import INFEASIBLE, OPTIMAL, Request, solve
from assignment_oracle.optimal.brute_force import optimum, request_optimum
from assignment_oracle.optimal.certificate import verify
from assignment_oracle.problem.model import Problem


def draw(seed: int) -> Problem:
    """The rebalance of ``seed``: small enough to enumerate, every kind of claim possible."""
    rng = random.Random(seed)
    while True:  # redraw until brute force enumerates at most ENUMERATION_LIMIT assignments
        problem = _draw(rng)
        size = 1
        for topic in problem.topics:
            size *= max(1, len(problem.subscribers[topic.name])) ** topic.partitions
        if size <= ENUMERATION_LIMIT:
            return problem


ENUMERATION_LIMIT = 20_000


def _draw(rng: random.Random) -> Problem:
    topics = {f"t{i}": rng.randint(1, 4) for i in range(rng.randint(1, 3))}
    members = {}
    for m in range(rng.randint(1, 4)):
        subscribed = [t for t in topics if rng.random() < 0.7] or [rng.choice(list(topics))]
        entry: dict = {"topics": subscribed}
        if rng.random() < 0.7:
            claimed = {}
            for t, count in topics.items():
                if rng.random() < 0.6:  # possibly a topic it no longer subscribes to
                    picked = sorted({rng.randrange(count + 1) for _ in range(rng.randint(1, 3))})  # count: gone
                    claimed[t] = picked
            if claimed:
                entry["owned"] = claimed
                entry["generation"] = rng.choice([None, 1, 2, 2, 3])
        members[f"m{m}"] = entry
    objective = ["balance", "stickiness"] if rng.random() < 0.8 else ["stickiness", "balance"]
    return Problem.from_mapping({"topics": topics, "members": members, "objective": objective})


ORDERS = [
    ["balance", "stickiness"],
    ["stickiness", "balance"],
    ["balance", "rack", "stickiness"],
    ["rack", "balance", "stickiness"],
    ["balance", "stickiness", "rack"],
    ["balance", "spread", "stickiness"],
    ["spread", "balance", "rack", "stickiness"],
    ["stickiness", "spread", "balance"],
    ["balance", "rack", "spread", "stickiness"],
    ["rack", "stickiness", "spread", "balance"],
]


def dressed(problem: Problem, seed: int) -> tuple[Problem, Request]:
    """The instance with racks, maybe weights and a join group, and a random request (own stream)."""
    rng = random.Random(f"composed-{seed}")
    data = problem.to_mapping()
    racks = ["a", "b", "c"]
    for member in data["members"].values():
        if rng.random() < 0.8:
            member["rack"] = rng.choice(racks)
    names = [t.name for t in problem.topics]
    data["topics"] = {
        t.name: {
            "partitions": t.partitions,
            "racks": [rng.sample(racks, rng.randint(0, 2)) for _ in range(t.partitions)],
        }
        for t in problem.topics
    }
    if len(names) >= 2 and rng.random() < 0.4:
        data["join_groups"] = [sorted(rng.sample(names, rng.randint(2, len(names))))]
    if rng.random() < 0.4:
        data["weights"] = {t.name: [rng.randint(0, 5) for _ in range(t.partitions)] for t in problem.topics}
    composed = Problem.from_mapping(data)
    request = Request(
        objective=tuple(rng.choice(ORDERS)),
        balance=rng.choice(["dec-min", "sum-of-squares", "max-then-squares"]),
        max_moves=rng.choice([None, None, 0, 1, 3]),
        max_moves_per_member=rng.choice([None, None, 0, 1]),
    )
    return composed, request


def record(seed: int) -> tuple[str, bool]:
    """The canonical line of one instance, and whether the exact models disagreed."""
    problem = draw(seed)
    brute = optimum(problem)
    line: dict = {
        "seed": seed,
        "scenario": problem.to_mapping(),
        "brute": [list(brute.sorted_loads), brute.retained, brute.owned],
    }
    answers = []
    for method in ("flow", "cpsat"):
        solution = solve(problem, method=method)
        verified = solution.certificate is not None and not verify(problem, solution.assignment, solution.certificate)
        answer = [solution.status, list(solution.sorted_loads), solution.retained, verified]
        answers.append(answer[:3])
        line[method] = answer + [solution.assignment.to_mapping()]
    disagree = any(a != ["OPTIMAL", list(brute.sorted_loads), brute.retained] for a in answers)
    composed, request = dressed(problem, seed)
    expected = request_optimum(composed, request, limit=ENUMERATION_LIMIT * 4)
    staged = solve(composed, request, method="cpsat-staged")
    got = None if staged.status == INFEASIBLE else [t.value for t in staged.tiers]
    composed_ok = (got == expected) and (staged.status == (INFEASIBLE if expected is None else OPTIMAL))
    line["composed"] = {
        "scenario": composed.to_mapping(),
        "request": request.to_mapping(composed),
        "brute": expected,
        "staged": got,
        "status": staged.status,
    }
    disagree = disagree or not composed_ok
    line["disagree"] = disagree
    optimum_solution = solve(problem)
    line["assignors"] = [
        evaluate(problem, name, optimum=optimum_solution).to_mapping(timing=False) for name in sorted(ASSIGNORS)
    ]
    return json.dumps(line, sort_keys=True, separators=(",", ":")), disagree


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=2000, help="instances (default 2000)")
    parser.add_argument("--start", type=int, default=0, help="first seed")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--lines", help="write every instance's line here")
    args = parser.parse_args()
    seeds = range(args.start, args.start + args.seeds)
    digest = hashlib.sha256()
    disagreements = 0
    started = time.perf_counter()
    out = open(args.lines, "w") if args.lines else None
    with multiprocessing.Pool(args.jobs) as pool:
        for text, disagree in pool.imap(record, seeds, chunksize=64):
            digest.update(text.encode() + b"\n")
            disagreements += disagree
            if out:
                out.write(text + "\n")
    if out:
        out.close()
    seconds = time.perf_counter() - started
    print(
        json.dumps(
            {
                "instances": len(seeds),
                "start": args.start,
                "model_disagreements": disagreements,
                "digest": digest.hexdigest(),
                "seconds": round(seconds, 1),
            }
        )
    )
    sys.exit(1 if disagreements else 0)


if __name__ == "__main__":
    main()
