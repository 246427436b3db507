"""A proven bound on a CP-SAT model's objective from its linear relaxation (HiGHS, through SciPy), checked in exact arithmetic.

Guarantee: :func:`lp_bound` returns a number no better than the model's optimum (at most it for a
minimisation, at least it for a maximisation), or ``None``.  It holds whatever HiGHS got wrong:
HiGHS only *proposes* a dual vector, and the bound is recomputed from that vector with Python's
integers (weak duality, below), so a poor dual costs strength, never validity.

The relaxation
--------------
The model's constraints are translated as :mod:`optimal.mip_hint` translates them (a linear row
each, ``lin_max`` with selectors; a variable's domain relaxed to its hull), and integrality is
dropped: every solution of the model is a solution of this linear program, so the program's least
value is at most the model's.  Products (the sum-of-squares and spread stages' squares) are
dropped, which relaxes further (a square keeps only its variable's bounds); a model with another
constraint the translation does not cover gets no bound.

The bound from a dual vector (weak duality, checked exactly)
------------------------------------------------------------
For ``min c.x`` over ``lo <= A x <= hi`` and ``l <= x <= u`` (all finite where used), *any* row
multipliers ``y`` give ``c.x = y.(A x) + d.x`` with ``d = c - A^T y``, and so, term by term,

    c.x >= sum_i (y_i * lo_i if y_i > 0 else y_i * hi_i) + sum_j (d_j * l_j if d_j > 0 else d_j * u_j),

a row's term taken as 0 where ``y_i`` is 0 and as minus infinity where it needs an infinite side
(then no bound).  HiGHS' duals are rounded to multiples of ``2^-SCALE`` and the sum is computed
in integers, then divided once: the bound is exact for the rounded vector.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from ortools.sat.python import cp_model

from assignment_oracle.optimal.mip_hint import _Program, _Unsupported

__all__ = ["lp_bound"]

SCALE = 40  # the duals' rounding: multiples of 2^-40


def lp_bound(model: cp_model.CpModel, *, time_limit: float | None = None) -> Fraction | None:
    """A proven bound on the objective of ``model`` as it would report it (module docstring): a
    lower bound when it minimises, an upper bound when it maximises; ``None`` when the model has
    no linear objective, a constraint the translation does not cover, or HiGHS finds no dual in time.
    """
    from scipy.optimize import linprog  # a quarter of a second to import: only when asked
    from scipy.sparse import coo_array

    proto = model.proto
    if not proto.has_objective() or proto.has_floating_point_objective():
        return None
    program = _Program(proto)
    try:
        for index in range(len(proto.constraints)):
            constraint = proto.constraints[index]
            if constraint.has_int_prod():
                continue  # dropped: fewer constraints, still a relaxation (module docstring)
            program.add(constraint)
    except _Unsupported:
        return None
    n = len(program.lower)
    cost = np.zeros(n, dtype=np.int64)
    for col, coef in zip(proto.objective.vars, proto.objective.coeffs):
        cost[col] += int(coef)
    rows = np.asarray(program.rows, dtype=np.int64)
    cols = np.asarray(program.cols, dtype=np.int64)
    values = np.asarray(program.values, dtype=np.float64)
    if values.size and not np.all(values == np.round(values)):
        return None  # integer coefficients only: the exact check below reads them as integers
    lo = np.asarray(program.row_lower, dtype=np.float64)
    hi = np.asarray(program.row_upper, dtype=np.float64)
    matrix = coo_array((values, (rows, cols)), shape=(lo.size, n)).tocsr()
    # linprog's form: equalities, and each finite side of a range as a <= row.
    equal = lo == hi
    upper = ~equal & np.isfinite(hi)
    lower = ~equal & np.isfinite(lo)
    a_ub = _stack(matrix[upper], -matrix[lower])
    b_ub = np.concatenate([hi[upper], -lo[lower]])
    options: dict = {"presolve": True}
    if time_limit is not None:
        if time_limit <= 0:
            return None
        options["time_limit"] = time_limit
    result = linprog(
        cost.astype(np.float64),
        A_ub=a_ub if b_ub.size else None,
        b_ub=b_ub if b_ub.size else None,
        A_eq=matrix[equal] if equal.any() else None,
        b_eq=lo[equal] if equal.any() else None,
        bounds=np.column_stack([program.lower, program.upper]),
        method="highs",
        options=options,
    )
    if result.status != 0 or result.x is None:
        return None
    # Row multipliers in the form lo <= A x <= hi: an equality's dual as it is, a <= row's (at most 0
    # in a minimisation) on the upper side, a >= row's (its <= row negated) on the lower side.
    y = np.zeros(lo.size)
    if equal.any():
        y[equal] = result.eqlin.marginals
    if b_ub.size:
        marginals = np.minimum(np.asarray(result.ineqlin.marginals), 0.0)
        k = int(upper.sum())
        y[upper] += marginals[:k]
        y[lower] -= marginals[k:]
    stored = _weak_dual(cost, rows, cols, values, lo, hi, program.lower, program.upper, y)
    if stored is None:
        return None
    # The stored objective is minimised; CP-SAT reports scaling * (stored + offset) (scaling -1: a maximisation).
    scaling = proto.objective.scaling_factor or 1.0
    if scaling not in (1.0, -1.0) or proto.objective.offset != int(proto.objective.offset):
        return None
    return int(scaling) * (stored + int(proto.objective.offset))


def _stack(first, second):
    from scipy.sparse import vstack

    return vstack([first, second]).tocsr()


def _weak_dual(cost, rows, cols, values, lo, hi, col_lower, col_upper, y) -> Fraction | None:
    """``min c.x`` is at least this, from multipliers ``y`` rounded to multiples of ``2^-SCALE``
    (module docstring), computed in Python integers; ``None`` when an infinite side is needed."""
    if not all(float(x).is_integer() for x in (*lo[np.isfinite(lo)], *hi[np.isfinite(hi)], *col_lower, *col_upper)):
        return None  # integer sides only (the model's are)
    unit = 1 << SCALE
    scaled = [int(v) for v in np.round(y * unit)]
    d = [int(c) * unit for c in cost.tolist()]
    for r, c, v in zip(rows.tolist(), cols.tolist(), values.tolist()):
        if scaled[r]:
            d[c] -= int(v) * scaled[r]
    total = 0
    for i, yi in enumerate(scaled):
        if yi > 0:
            if not math.isfinite(lo[i]):
                return None
            total += yi * int(lo[i])
        elif yi < 0:
            if not math.isfinite(hi[i]):
                return None
            total += yi * int(hi[i])
    for j, dj in enumerate(d):
        if dj > 0:
            total += dj * int(col_lower[j])
        elif dj < 0:
            total += dj * int(col_upper[j])
    return Fraction(total, unit)
