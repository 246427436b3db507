"""A CP-SAT model's solution found by mixed-integer programming (HiGHS, through SciPy): a hint, never a proof.

Guarantee: none about optimality.  :func:`hint` returns values for the model's variables that
satisfied its constraints *in floating point* (HiGHS' tolerances), or ``None``; whoever uses them
hands them to CP-SAT as a solution hint, and CP-SAT checks them against the exact constraints and
proves (or not) the bound.  A wrong or infeasible hint costs time, never correctness.

Why: on the staged assignment models (co-partitioned stickiness, optimal.join_groups) CP-SAT's
linear relaxation with its cuts meets the optimum within a second, but its search can take
minutes to *find* an assignment that meets it: the optimum sits a few partitions below the plain
LP bound (2,001 against 1,999 on issue 17's 3,000-partition benchmark), behind parity conditions
(a member with room for an odd number of partitions needs a unit of odd size) that the LP cannot
see and local search stumbles on.  A MIP solver's branch and cut (Gomory cuts on exactly those
conditions) finds it in half a second; CP-SAT, given it, proves it in another half.

Translation (constraint by constraint, from the model's proto)
------------------------------------------------------------
Every CP-SAT variable becomes an integer column with the same bounds (a domain with holes is
relaxed to its hull); a literal ``x`` or ``not x`` is ``x`` or ``1 - x``.

* ``linear`` ``lo <= e <= hi``, enforced by literals ``l1..lk``: with ``s = sum(1 - l_j)`` (0 exactly
  when every literal holds), ``e + (lo - min e) * s >= lo`` and ``e - (max e - hi) * s <= hi``, the
  big-M values from the variables' bounds (so the rows are void whenever a literal is false);
* ``at_most_one``, ``exactly_one``, ``bool_or``, ``bool_and``: their sums of literals;
* ``lin_max`` ``t = max(e_i)``: ``t >= e_i`` for all ``i``, and a binary selector ``y_i`` per
  expression with ``sum y_i = 1`` and ``t - e_i <= (max t - min e_i) * (1 - y_i)``;
* anything else (products, for the sum-of-squares stages): no hint (``None``).

The objective is the proto's (CP-SAT stores a maximisation negated: minimise it as stored).  HiGHS
runs with a *node* limit, so the hint, and so the solve it steers, is the same on every machine
unless the wall-clock limit (the caller's own time limit) cuts it first.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time

import numpy as np
from ortools.sat.python import cp_model

__all__ = ["NODE_LIMIT", "hint"]

NODE_LIMIT = 20_000  # branch-and-bound nodes: deterministic, unlike a wall-clock limit
_INFINITE = 2**62


class _Unsupported(Exception):
    """A constraint the translation does not cover."""


class _Program:
    """The MIP under construction: columns (CP-SAT variables first, then selectors) and rows."""

    def __init__(self, proto) -> None:
        self.lower: list[float] = []
        self.upper: list[float] = []
        for variable in proto.variables:
            domain = list(variable.domain)
            self.lower.append(float(domain[0]))
            self.upper.append(float(domain[-1]))
        self.variables = len(self.lower)
        self.rows: list[int] = []
        self.cols: list[int] = []
        self.values: list[float] = []
        self.row_lower: list[float] = []
        self.row_upper: list[float] = []

    def column(self, low: float, high: float) -> int:
        self.lower.append(low)
        self.upper.append(high)
        return len(self.lower) - 1

    def literal(self, ref: int) -> tuple[dict[int, float], float]:
        """A literal as a linear expression: (coefficients, constant)."""
        return ({ref: 1.0}, 0.0) if ref >= 0 else ({-ref - 1: -1.0}, 1.0)

    def extent(self, terms: dict[int, float], constant: float) -> tuple[float, float]:
        low = high = constant
        for col, coef in terms.items():
            a, b = coef * self.lower[col], coef * self.upper[col]
            low += min(a, b)
            high += max(a, b)
        return low, high

    def row(self, terms: dict[int, float], low: float, high: float) -> None:
        index = len(self.row_lower)
        for col, coef in terms.items():
            if coef:
                self.rows.append(index)
                self.cols.append(col)
                self.values.append(coef)
        self.row_lower.append(low)
        self.row_upper.append(high)

    def enforced(self, terms: dict[int, float], constant: float, low: float, high: float, enforcement) -> None:
        """``low <= terms + constant <= high`` whenever every literal of ``enforcement`` holds."""
        least, most = self.extent(terms, constant)
        low, high = low - constant, high - constant
        slack: dict[int, float] = {}  # s = sum(1 - l_j) = count - sum(l_j), as terms + offset
        offset = 0.0
        for ref in enforcement:
            lit, lit_constant = self.literal(ref)
            offset += 1.0 - lit_constant
            for col, coef in lit.items():
                slack[col] = slack.get(col, 0.0) - coef
        if low > -_INFINITE:
            big = max(0.0, low - (least - constant))
            merged = dict(terms)
            for col, coef in slack.items():
                merged[col] = merged.get(col, 0.0) + big * coef
            self.row(merged, low - big * offset, np.inf)
        if high < _INFINITE:
            big = max(0.0, (most - constant) - high)
            merged = dict(terms)
            for col, coef in slack.items():
                merged[col] = merged.get(col, 0.0) - big * coef
            self.row(merged, -np.inf, high + big * offset)

    def literals_sum(self, refs, low: float, high: float, enforcement=()) -> None:
        terms: dict[int, float] = {}
        constant = 0.0
        for ref in refs:
            lit, lit_constant = self.literal(ref)
            constant += lit_constant
            for col, coef in lit.items():
                terms[col] = terms.get(col, 0.0) + coef
        self.enforced(terms, constant, low, high, enforcement)

    def expression(self, proto_expression) -> tuple[dict[int, float], float]:
        terms: dict[int, float] = {}
        for col, coef in zip(proto_expression.vars, proto_expression.coeffs):
            terms[col] = terms.get(col, 0.0) + float(coef)
        return terms, float(proto_expression.offset)

    def add(self, constraint) -> None:
        enforcement = list(constraint.enforcement_literal)
        if constraint.has_linear():
            linear = constraint.linear
            terms: dict[int, float] = {}
            for col, coef in zip(linear.vars, linear.coeffs):
                terms[col] = terms.get(col, 0.0) + float(coef)
            domain = list(linear.domain)
            self.enforced(terms, 0.0, float(domain[0]), float(domain[-1]), enforcement)
        elif constraint.has_at_most_one():
            self.literals_sum(constraint.at_most_one.literals, -np.inf, 1.0, enforcement)
        elif constraint.has_exactly_one():
            self.literals_sum(constraint.exactly_one.literals, 1.0, 1.0, enforcement)
        elif constraint.has_bool_or():
            self.literals_sum(constraint.bool_or.literals, 1.0, np.inf, enforcement)
        elif constraint.has_bool_and():
            for ref in constraint.bool_and.literals:
                self.literals_sum([ref], 1.0, 1.0, enforcement)
        elif constraint.has_lin_max() and not enforcement:
            self.maximum(constraint.lin_max)
        else:
            raise _Unsupported

    def maximum(self, lin_max) -> None:
        target, target_constant = self.expression(lin_max.target)
        _, target_high = self.extent(target, target_constant)
        selectors = []
        for index in range(len(lin_max.exprs)):
            terms, constant = self.expression(lin_max.exprs[index])
            least, _ = self.extent(terms, constant)
            difference = dict(target)
            for col, coef in terms.items():
                difference[col] = difference.get(col, 0.0) - coef
            shift = target_constant - constant
            self.row(difference, -shift, np.inf)  # t >= e_i
            chosen = self.column(0.0, 1.0)
            selectors.append(chosen)
            big = max(0.0, target_high - least)
            difference[chosen] = big  # t - e_i <= big * (1 - y_i)
            self.row(difference, -np.inf, big - shift)
        self.row({col: 1.0 for col in selectors}, 1.0, 1.0)


def hint(
    model: cp_model.CpModel, *, time_limit: float | None = None, node_limit: int = NODE_LIMIT
) -> dict[int, int] | None:
    """Values (by variable index) of a solution of ``model`` found by HiGHS, or ``None``.

    ``None`` when the model has a constraint the translation does not cover, or HiGHS finds no
    solution within the limits.  The values are rounded to integers and not checked here: CP-SAT
    checks them when they are its hint (module docstring).
    """
    started = time.perf_counter()
    if time_limit is not None and time_limit <= 0:
        return None  # no time: not even the translation
    # Imported here: scipy.optimize costs a quarter of a second, which every command would pay at start.
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_array

    proto = model.proto
    program = _Program(proto)
    try:
        for index in range(len(proto.constraints)):
            program.add(proto.constraints[index])
    except _Unsupported:
        return None
    if proto.has_floating_point_objective():
        return None
    cost = np.zeros(len(program.lower))
    if proto.has_objective():
        for col, coef in zip(proto.objective.vars, proto.objective.coeffs):
            cost[col] += float(coef)
    n = len(program.lower)
    matrix = coo_array((program.values, (program.rows, program.cols)), shape=(len(program.row_lower), n)).tocsr()
    options: dict = {"disp": False, "node_limit": node_limit, "mip_rel_gap": 0.0, "presolve": False}
    if time_limit is not None:
        left = time_limit - (time.perf_counter() - started)  # the translation counts against the limit
        if left <= 0:
            return None
        options["time_limit"] = max(0.01, left)
    constraints = [LinearConstraint(matrix, program.row_lower, program.row_upper)] if program.row_lower else []
    found: dict = {}
    done = threading.Event()

    def search() -> None:
        try:
            with _quiet_stdout():  # HiGHS prints debugging lines to file descriptor 1, where an answer may go
                found["result"] = milp(
                    cost,
                    integrality=np.ones(n),
                    bounds=Bounds(program.lower, program.upper),
                    constraints=constraints,
                    options=options,
                )
        finally:
            done.set()

    # In a worker thread, so that Ctrl-C reaches the caller at once (HiGHS cannot be stopped from here: the
    # abandoned search ends with the process).
    threading.Thread(target=search, daemon=True).start()
    while not done.wait(0.05):
        pass
    result = found["result"]
    if result.x is None:
        return None
    return {col: int(round(value)) for col, value in enumerate(result.x[: program.variables])}


@contextlib.contextmanager
def _quiet_stdout():
    """File descriptor 1 sent to /dev/null for the duration (C code writes there, not to ``sys.stdout``)."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
