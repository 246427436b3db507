"""CP-SAT's solver as the exact engines run it: one set of parameters, and a solve that Ctrl-C stops.

Guarantee: :func:`parameters` gives the same answer for the same model on any machine and under any
load (an interleaved portfolio, fixed seed), and :func:`solve_interruptibly` returns
``solver.solve(model)``'s status, or, on Ctrl-C, stops the search and raises ``KeyboardInterrupt``
to the caller at once, so that no later stage runs and no answer is written.  Used by the staged
model of consumer groups (:mod:`optimal.staged`), its exact re-deal (:mod:`optimal.slot_deal`) and
the Streams model (:mod:`optimal.streams`).
"""

from __future__ import annotations

import threading
from typing import Any

from ortools.sat.python import cp_model

__all__ = ["parameters", "solve_interruptibly"]


def parameters(solver: cp_model.CpSolver, *, time_limit: float | None = None, effort: float | None = None) -> None:
    """The one place CP-SAT's parameters are set: an interleaved portfolio of two workers
    (deterministic whatever the load: its strategies run in fixed batches), seed 0, cuts on the load
    rows (``linearization_level`` 2: the relaxation meets the optimum where the plain LP does not),
    and the limits."""
    solver.parameters.num_workers = 2
    solver.parameters.interleave_search = True
    solver.parameters.random_seed = 0
    solver.parameters.linearization_level = 2
    solver.parameters.catch_sigint_signal = False  # Ctrl-C is Python's (solve_interruptibly)
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = max(0.0, time_limit)
    if effort is not None:
        solver.parameters.max_deterministic_time = effort


def solve_interruptibly(solver: cp_model.CpSolver, model: cp_model.CpModel) -> Any:
    """``solver.solve(model)`` in a worker thread (CP-SAT releases the GIL), so that Ctrl-C reaches
    Python at once: the search is stopped and ``KeyboardInterrupt`` goes on to the caller, which
    writes nothing (CP-SAT's own SIGINT catching is off, :func:`parameters`, or it would swallow it
    and the solve would go on to later stages and write an answer)."""
    outcome: dict[str, Any] = {}
    done = threading.Event()

    def search() -> None:
        try:
            outcome["code"] = solver.solve(model)
        finally:
            done.set()

    threading.Thread(target=search, daemon=True).start()
    try:
        while not done.wait(0.05):  # an Event, not Thread.join: an interrupted join can lose track of the thread
            pass
    except KeyboardInterrupt:
        solver.stop_search()
        done.wait()
        raise
    return outcome["code"]
