"""optimal.mip_hint: the MIP translation of a CP-SAT model has the same solutions and the same optimum.

CP-SAT is the judge: on random small models (linear rows under enforcement literals, negated
literals, at-most-one, exactly-one, bool-or, bool-and, max) the MIP's optimum is CP-SAT's, its
solution is one CP-SAT accepts with every variable fixed, and an infeasible model gets no hint.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from ortools.sat.python import cp_model

from assignment_oracle.optimal import mip_hint


@st.composite
def models(draw):
    model = cp_model.CpModel()
    numbers = [
        model.new_int_var(draw(st.integers(-3, 0)), draw(st.integers(0, 4)), f"x{i}")
        for i in range(draw(st.integers(1, 4)))
    ]
    flags = [model.new_bool_var(f"b{i}") for i in range(draw(st.integers(1, 4)))]

    def literal():
        flag = draw(st.sampled_from(flags))
        return ~flag if draw(st.booleans()) else flag

    for _ in range(draw(st.integers(0, 4))):
        used = draw(st.lists(st.sampled_from(numbers + flags), min_size=1, max_size=4, unique_by=lambda v: v.index))
        expression = sum(draw(st.integers(-3, 3)) * v for v in used)
        low = draw(st.integers(-8, 8))
        constraint = model.add_linear_constraint(expression, low, low + draw(st.integers(0, 6)))
        enforcement = draw(st.lists(st.just(None), max_size=2))
        if enforcement:
            constraint.only_enforce_if([literal() for _ in enforcement])
    kind = draw(st.sampled_from(["none", "at_most_one", "exactly_one", "bool_or", "bool_and"]))
    if kind != "none":
        refs = [literal() for _ in range(draw(st.integers(1, 3)))]
        if kind == "bool_and":
            model.add_bool_and(refs).only_enforce_if(literal())
        else:
            getattr(model, f"add_{kind}")(refs)
    if draw(st.booleans()):
        target = model.new_int_var(-20, 20, "largest")
        model.add_max_equality(target, [v + draw(st.integers(-2, 2)) for v in numbers])
        numbers.append(target)
    objective = sum(draw(st.integers(-3, 3)) * v for v in numbers + flags)
    (model.maximize if draw(st.booleans()) else model.minimize)(objective)
    return model


@settings(max_examples=300, deadline=None)
@given(models())
def test_the_mip_has_cp_sat_solutions_and_optimum(model):
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    status = solver.solve(model)
    values = mip_hint.hint(model)
    if status == cp_model.INFEASIBLE:
        assert values is None
        return
    assert status == cp_model.OPTIMAL
    assert values is not None
    optimum = round(solver.objective_value)
    variables = [model.get_int_var_from_proto_index(i) for i in range(len(model.proto.variables))]
    for var in variables:
        model.add(var == values[var.index])
    fixed = cp_model.CpSolver()
    fixed.parameters.num_workers = 1
    assert fixed.solve(model) == cp_model.OPTIMAL  # the MIP's values satisfy every exact constraint
    assert round(fixed.objective_value) == optimum  # and are optimal


def test_a_model_with_a_product_gets_no_hint():
    model = cp_model.CpModel()
    x = model.new_int_var(0, 5, "x")
    square = model.new_int_var(0, 25, "square")
    model.add_multiplication_equality(square, [x, x])
    model.minimize(square - 4 * x)
    assert mip_hint.hint(model) is None
