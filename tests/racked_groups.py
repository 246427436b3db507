"""Small weighted groups on three racks with a budget of moves, for the exact model's weighted tests
(test_slots.py, test_slot_program.py, test_staged_bounds.py): the group, and what an assignment of its
parts measures."""

from __future__ import annotations

import numpy as np

from assignment_oracle.optimal import Request
from assignment_oracle.problem.model import Problem

RACKS = ["r0", "r1", "r2"]


def racked_group(
    rng: np.random.Generator,
    *,
    members: int = 6,
    weights: tuple[int, int] = (1, 6),
    owners: tuple[int, int] = (0, 6),
    budget: tuple[int, int] = (3, 9),
    heavy: dict[tuple[str, int], int] | None = None,
    zeros: bool = False,
) -> tuple[Problem, Request]:
    """``members`` members on three racks (member ``i`` on ``r{i % 3}``), three topics of eight
    partitions, each on two racks; weights drawn from ``weights`` (NumPy's half-open range), then the
    ``heavy`` ones set; previous owners drawn from ``owners`` (an index past the members, or -1, is
    nobody); with ``zeros``, every third partition from the second on weighs nothing and is owned by
    the owner of ``t0``'s partition 0; a budget of moves drawn from ``budget``."""
    topics = {
        f"t{i}": {"partitions": 8, "racks": [sorted(rng.choice(RACKS, 2, replace=False).tolist()) for _ in range(8)]}
        for i in range(3)
    }
    weight = {t: [int(w) for w in rng.integers(*weights, 8)] for t in topics}
    for (t, p), w in (heavy or {}).items():
        weight[t][p] = w
    owner = {t: rng.integers(*owners, 8) for t in topics}
    if zeros:
        for t in topics:
            for p in range(1, 8, 3):
                weight[t][p] = 0
                owner[t][p] = owner["t0"][0]
    data = {
        "topics": topics,
        "weights": weight,
        "members": {
            f"m{i}": {
                "topics": sorted(topics),
                "rack": RACKS[i % 3],
                "owned": {t: [int(p) for p in np.flatnonzero(owner[t] == i)] for t in topics},
            }
            for i in range(members)
        },
    }
    return Problem.from_mapping(data), Request(max_moves=int(rng.integers(*budget)))


def measured(parts, owner: np.ndarray, members: int) -> tuple[np.ndarray, int, int]:
    """Per member its load, then the partitions kept and the cross-rack partitions, of per-part
    owners ``owner`` (counted from the classes, as the staged model counts them)."""
    loads = np.bincount(owner, weights=parts.load, minlength=members).astype(np.int64)
    kept = cross = 0
    for cls in parts.classes:
        table = dict(zip(cls.eligible, cls.cross))
        cross += sum(table.get(int(owner[k]), 0) for k in cls.parts)
        for signature, ks in cls.signatures:
            kept += sum(dict(signature).get(int(owner[k]), 0) for k in ks)
    return loads, kept, cross
