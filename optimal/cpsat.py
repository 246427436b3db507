"""The most balanced, then stickiest, assignment as a CP-SAT model (exact, proves optimality).

Guarantee: with no time limit, the returned assignment is optimal for the
problem's objective order, like :mod:`optimal.flow`, and certified the same
way.  With a time limit that strikes first, the status is ``FEASIBLE`` (an
assignment and a proven lower bound on the objective) or ``UNKNOWN`` (only
the bound); optimality is never claimed without a proof.

This is the second opinion on the flow model and the base for constraints a
flow cannot express (co-partitioning, weights, racks, move limits): each
family of constraints is an ``_add_*`` function over the same variables.

Data, variables, constraints, objective (over the aggregated network of
:mod:`optimal.network`):

* ``keep[c]``: how many partitions of class ``c`` stay with its previous
  owner (only under ``balance, stickiness``; stickiness first fixes them);
* ``give[h, m]``: how many partitions hub ``h`` gives member ``m``;
* the hub gives away exactly what its classes do not keep;
* ``load[m]`` is the member's fixed, kept and given partitions;
* ``square[m] >= W * load[m]**2`` through the secant cuts
  ``W * ((2k + 1) * load - k * (k + 1))`` for the levels in the member's
  window (:mod:`optimal.levels`): linear cuts, never a multiplication
  constraint, which stalls the solver.  The cuts bound the square from
  below everywhere and equal it inside the window, so the model's optimum is
  a lower bound and is exact when the loads land inside their windows;
  otherwise windows are widened and the model solved again.

The objective is ``sum(square) - r * sum(keep) + q * cross``, ``cross``
the partitions given or kept outside their replica racks (the rack tier of
:mod:`optimal.levels`).  A hint (any valid
assignment) can warm-start the search.  Search is deterministic (one worker
by default; ``interleave_search`` with more), so the same input gives the
same answer.
"""

from __future__ import annotations

import math
import time

import numpy as np
from ortools.sat.python import cp_model

from assignment_oracle.optimal.levels import Windows, initial_windows, objective_weights, widen
from assignment_oracle.optimal.network import AggregatedNetwork, build_network
from assignment_oracle.optimal.solution import Solution, SolverError, finish, valid_owners
from assignment_oracle.problem.claims import ResolvedClaims
from assignment_oracle.problem.model import Assignment, Problem

__all__ = ["solve"]


def solve(
    problem: Problem,
    *,
    claims: ResolvedClaims | None = None,
    time_limit: float | None = None,
    workers: int = 1,
    hint: Assignment | None = None,
    max_rounds: int = 64,
) -> Solution:
    """Solve ``problem`` with CP-SAT, proving optimality unless ``time_limit`` strikes first.

    ``hint``, a valid assignment (the flow's, a heuristic's, the previous
    one), warm-starts the search (``add_hint``).  It only helps CP-SAT find a
    good solution sooner; the lower bound, and so the proof, is CP-SAT's own.
    """
    started = time.perf_counter()
    deadline = None if time_limit is None else started + time_limit
    network = build_network(problem, claims)
    weights = objective_weights(network)
    windows = initial_windows(network)
    hinted = None
    if hint is not None:
        owners = valid_owners(
            problem, hint, lambda broken: ValueError(f"the hint is not a valid assignment ({broken})")
        )
        hinted = network.aggregate(owners)
        windows = initial_windows(network, around=network.loads(owners))
    assignment, bound, proven, rounds = None, None, False, 0
    while rounds < max_rounds:
        rounds += 1
        remaining = None if deadline is None else max(0.0, deadline - time.perf_counter())
        outcome = _solve_windowed(network, weights, windows, remaining, workers, hinted)
        if outcome is None:  # no assignment in time; keep the best bound seen
            break
        class_kept, arc_flow, loads, proven, round_bound = outcome
        assignment = network.materialize(class_kept, arc_flow)
        bound = round_bound if bound is None else max(bound, round_bound)
        if not proven:
            break
        if windows.contains(loads).all():
            break
        proven = False
        windows = widen(network, windows, loads)
    stats = {"rounds": rounds, "hubs": len(network.hubs), "classes": int(network.class_count.size)}
    return finish(network, "cpsat", assignment, proven, bound, started, stats, time.perf_counter)


def _solve_windowed(network: AggregatedNetwork, weights, windows: Windows, time_limit, workers, hinted=None):
    model = cp_model.CpModel()
    W, r, q = weights.balance_weight, weights.stickiness_reward, weights.rack_penalty
    supply = network.hub_supply
    owned = np.flatnonzero(network.class_owner >= 0)

    # Variables.
    keep = {int(c): model.new_int_var(0, int(network.class_count[c]), f"keep[{int(c)}]") for c in owned}
    give = [
        model.new_int_var(0, int(supply[h]), f"give[{int(h)},{int(m)}]")
        for h, m in zip(network.arc_hub.tolist(), network.arc_member.tolist())
    ]

    # Each hub gives away exactly the partitions its classes do not keep.
    starts = network.hub_arc_start
    hub_classes: list[list[int]] = [[] for _ in network.hubs]
    for c, h in enumerate(network.class_hub.tolist()):
        hub_classes[h].append(c)
    for h in range(len(network.hubs)):
        kept_here = [keep[c] for c in hub_classes[h] if c in keep]
        model.add(sum(give[starts[h] : starts[h + 1]]) == int(supply[h]) - sum(kept_here))

    # Each member's load: fixed, kept and given partitions.
    terms: list[list] = [[] for _ in range(network.num_members)]
    for c, var in keep.items():
        terms[int(network.class_owner[c])].append(var)
    for e, m in enumerate(network.arc_member.tolist()):
        terms[m].append(give[e])
    loads = [
        model.new_int_var(int(network.base_load[m]), int(network.capacity[m]), f"load[{m}]")
        for m in range(network.num_members)
    ]
    for m, load in enumerate(loads):
        model.add(load == int(network.base_load[m]) + sum(terms[m]))

    # Objective: squares through secant cuts, minus the stickiness reward, plus the rack penalty.
    squares = _add_square_cuts(model, loads, windows, network, W)
    cross = [give[e] for e in np.flatnonzero(network.arc_cross).tolist()]
    cross += [var for c, var in keep.items() if network.class_cross[c]]
    model.minimize(sum(squares) - (r or 0) * sum(keep.values()) + q * sum(cross))

    if hinted is not None:
        # A complete hint (every variable), or CP-SAT spends its time completing it.
        class_kept, arc_flow = hinted
        for c, var in keep.items():
            model.add_hint(var, int(class_kept[c]))
        for e, var in enumerate(give):
            model.add_hint(var, int(arc_flow[e]))
        hinted_loads = network.base_load.copy()
        np.add.at(hinted_loads, network.class_owner[list(keep)] if keep else [], class_kept[list(keep)] if keep else [])
        np.add.at(hinted_loads, network.arc_member, arc_flow)
        for m, (load, square) in enumerate(zip(loads, squares)):
            model.add_hint(load, int(hinted_loads[m]))
            model.add_hint(square, W * int(hinted_loads[m]) ** 2)

    solver = cp_model.CpSolver()
    # One worker is deterministic by construction and, on these models, the
    # fastest to a proof: the root LP settles the bound (see below) and the
    # parallel portfolio only adds workers whose tasks CP-SAT's deterministic
    # (interleaved) mode must wait for.  With more workers, interleaving keeps
    # the answer deterministic.
    solver.parameters.num_workers = workers
    solver.parameters.interleave_search = workers > 1
    solver.parameters.random_seed = 0
    # The linear relaxation of this model is a convex-cost network flow, whose
    # optimum is integral: once the root LP is solved to the end, its bound is
    # the optimum.  CP-SAT's default (2,000 simplex iterations at the root, rows
    # added lazily) stops far short of that on models with 10^4+ variables.
    solver.parameters.root_lp_iterations = 1_000_000
    solver.parameters.add_lp_constraints_lazily = False
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = time_limit
    status = solver.solve(model)
    if status == cp_model.UNKNOWN:  # the time limit struck before any solution
        return None
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        # Every valid problem has a solution and the model never exceeds int64:
        # anything else is a bug, said out loud.
        raise SolverError(f"CP-SAT ended with status {solver.status_name(status)}: {model.validate()}")
    class_kept = np.zeros(network.class_count.size, dtype=np.int64)
    for c, var in keep.items():
        class_kept[c] = solver.value(var)
    arc_flow = np.array([solver.value(v) for v in give], dtype=np.int64)
    values = np.array([solver.value(v) for v in loads], dtype=np.int64)
    # The cuts never exceed the true squares, so this bounds the true objective.
    bound = math.ceil(solver.best_objective_bound - 1e-6)
    return class_kept, arc_flow, values, status == cp_model.OPTIMAL, bound


def _add_square_cuts(model, loads, windows: Windows, network: AggregatedNetwork, W: int):
    """``square[m] >= W * load[m]**2`` by the secants of levels ``lo-1 .. hi``.

    Returns the square variables (the objective terms).
    """
    squares = []
    for m, load in enumerate(loads):
        cap = int(network.capacity[m])
        lo, hi = int(windows.lo[m]), int(windows.hi[m])
        levels = range(max(0, lo - 1), hi + 1)
        # The square is minimised, so it never needs to exceed the largest cut
        # at full capacity; a tighter domain than W*cap^2 keeps CP-SAT's
        # int64 overflow checks happy on million-partition groups.
        top = max(W * ((2 * k + 1) * cap - k * (k + 1)) for k in levels)
        if top >= 2**62:  # CP-SAT's domains are int64; say so rather than fail inside OR-Tools
            raise SolverError(f"cpsat: a member's squared load reaches {top} (W={W}, {cap} partitions), beyond int64")
        square = model.new_int_var(0, max(0, top), f"square[{m}]")
        # The secant through levels k and k+1; together they equal W*x^2 at
        # every integer x in [lo-1, hi+1] and stay below it elsewhere.
        for k in levels:
            model.add(square >= W * ((2 * k + 1) * load - k * (k + 1)))
        squares.append(square)
    return squares
