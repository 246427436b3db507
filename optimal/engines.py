"""Which exact engine answers a request: one table of what each can express, and the one front door.

:func:`solve` is the library's single entry (re-exported as ``optimal.solve``): a problem and a
:class:`~assignment_oracle.optimal.request.Request` in, one :class:`~assignment_oracle.optimal.solution.Solution`
out, whatever engine ran.  The engine is chosen here, from :data:`ENGINES`, the first (with
``method="auto"``) that can express everything the request needs:

* ``flow`` (OR-Tools min-cost flow on the aggregated network, :mod:`optimal.flow`): tiers
  ``balance``, ``rack``, ``stickiness`` in any order, partition counts, no join groups, no budget of
  moves.  Exact and polynomial, with a certificate :func:`optimal.verify` checks without a solver.
  Every balance definition is the same optimum there (the achievable loads are M-convex).
* ``networkx`` and ``cpsat``: the same network on networkx's simplex, and the windowed CP-SAT
  model (a second opinion, with a time limit): only by name.
* ``flow-spread`` (:mod:`optimal.topic_spread`): ``balance, spread, stickiness`` with no rack
  information (or ``rack`` left out), partition counts, no join groups, no budget.  Exact by
  integrality.
* ``units-flow`` (:mod:`optimal.units_flow`): join groups whose units all have one size (the usual
  stream join; a unit's partitions may have any previous owners, one or several): tiers
  ``balance``, ``rack`` and ``stickiness`` in any order, no weights, no budget.  One min-cost flow
  over units, exact, with member prices :func:`optimal.units_flow.verify` checks without a solver.
* ``cpsat-staged`` (:mod:`optimal.staged`): everything, each tier proven by CP-SAT in order.

Streams groups (KIP-1071) and share groups (KIP-932) have tiers of their own and a model each
(:data:`GROUP_MODELS`: :mod:`optimal.streams`, :mod:`optimal.share`); :func:`solve` hands them over,
so a caller never branches on the kind of group.

A new tier or constraint is one more key in :class:`Needs` and one entry per engine here, and one
family of constraints in :mod:`optimal.staged`.  A request no engine (or not the named one) can
express is refused with :class:`~assignment_oracle.problem.errors.UnsupportedRequest`, one line
naming the combination; no request is answered for another objective.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from types import MappingProxyType
from typing import Callable, Mapping

from assignment_oracle.optimal.request import Request
from assignment_oracle.optimal.share_request import ShareRequest
from assignment_oracle.optimal.share_request import parse_request as parse_share_request
from assignment_oracle.optimal.solution import OPTIMAL, Solution, TierResult
from assignment_oracle.optimal.streams_request import StreamsRequest
from assignment_oracle.problem.claims import ResolvedClaims
from assignment_oracle.problem.errors import UnsupportedRequest
from assignment_oracle.problem.kinds import kind_named, kind_of
from assignment_oracle.problem.model import BALANCE, RACK, SPREAD, STICKINESS, Problem

__all__ = [
    "Needs",
    "Engine",
    "ENGINES",
    "METHODS",
    "DEFAULT_METHOD",
    "GroupModel",
    "GROUP_MODELS",
    "group_model",
    "OBJECTIVES",
    "parse_objective",
    "needs",
    "choose",
    "solve",
]


@dataclass(frozen=True)
class Needs:
    """What a request on a problem asks an engine to express."""

    order: tuple[str, ...]  # the tiers, in order
    balance: str
    weights: bool
    join_groups: bool
    move_limits: bool
    racks: bool  # rack is a tier and the problem has rack information
    # Join groups whose units all have one size, whatever their previous owners (optimal.units_flow).
    uniform_units: bool = False

    def describe(self) -> str:
        parts = [",".join(self.order), f"balance {self.balance}"]
        parts += [
            name
            for name, on in (
                ("weights", self.weights),
                ("join groups (units of one size)", self.join_groups and self.uniform_units),
                ("join groups (units of mixed sizes)", self.join_groups and not self.uniform_units),
                ("move limits", self.move_limits),
                ("racks", self.racks),
            )
            if on
        ]
        return "; ".join(parts)


def needs(problem: Problem, request: Request) -> Needs:
    order = request.tiers(problem)
    return Needs(
        order=order,
        balance=request.balance,
        weights=bool(problem.weights),
        join_groups=bool(problem.join_groups),
        move_limits=request.limited,
        racks=RACK in order and problem.rack_locality.active,
        uniform_units=bool(problem.join_groups) and _uniform_units(problem),
    )


def _uniform_units(problem: Problem) -> bool:
    from assignment_oracle.optimal import units_flow

    return units_flow.applies(problem)


@dataclass(frozen=True)
class Engine:
    """One engine and what it can express (module docstring)."""

    name: str
    proof: str  # how its answers are proven: certificate, flow, cpsat
    tiers: frozenset[str]
    weights: bool = False
    join_groups: bool = False
    move_limits: bool = False
    balance_definitions: frozenset[str] = frozenset({"dec-min", "sum-of-squares", "max-then-squares"})
    orders: tuple[tuple[str, ...], ...] | None = None  # None: any order of its tiers
    racks: bool = True
    auto: bool = True  # chosen by method="auto"
    uniform_join_groups: bool = False  # join groups when their units have one size

    def can(self, need: Needs) -> bool:
        active = tuple(t for t in need.order if t != RACK or need.racks)
        return (
            set(active) <= self.tiers
            and (self.weights or not need.weights)
            and (self.join_groups or not need.join_groups or (self.uniform_join_groups and need.uniform_units))
            and (self.move_limits or not need.move_limits)
            and need.balance in self.balance_definitions
            and (self.racks or not need.racks)
            and (self.orders is None or active in self.orders)
        )


_NETWORK_TIERS = frozenset({BALANCE, RACK, STICKINESS})
#: The capability table, in the order ``auto`` tries it.
ENGINES: tuple[Engine, ...] = (
    Engine("flow", "certificate", _NETWORK_TIERS),
    Engine("networkx", "certificate", _NETWORK_TIERS, auto=False),
    Engine("cpsat", "certificate", _NETWORK_TIERS, auto=False),
    Engine(
        "flow-spread",
        "flow",
        frozenset({BALANCE, SPREAD, STICKINESS}),
        racks=False,
        orders=((BALANCE, SPREAD, STICKINESS),),
    ),
    Engine(
        "units-flow",
        "unit-prices",
        frozenset({BALANCE, RACK, STICKINESS}),
        uniform_join_groups=True,
    ),
    Engine(
        "cpsat-staged",
        "cpsat",
        frozenset({BALANCE, RACK, SPREAD, STICKINESS}),
        weights=True,
        join_groups=True,
        move_limits=True,
    ),
)
METHODS = ("auto",) + tuple(e.name for e in ENGINES)
DEFAULT_METHOD = "auto"


def choose(problem: Problem, request: Request, method: str = DEFAULT_METHOD) -> Engine:
    """The engine that answers ``request`` on ``problem``: the first ``auto`` one that can express it,
    or the named one if it can; :class:`UnsupportedRequest` otherwise."""
    need = needs(problem, request)
    if method == "auto":
        for engine in ENGINES:
            if engine.auto and engine.can(need):
                return engine
        raise UnsupportedRequest(f"no exact engine solves {need.describe()} yet")
    named = next((e for e in ENGINES if e.name == method), None)
    if named is None:
        raise UnsupportedRequest(f"method: unknown {method!r} (known: {', '.join(METHODS)})")
    if not named.can(need):
        raise UnsupportedRequest(
            f"method {method} cannot express {need.describe()} (method auto chooses an engine that can)"
        )
    return named


@dataclass(frozen=True)
class GroupModel:
    """A kind of group with its own tiers and its own exact model (not a consumer group's network), keyed by
    the kind's name (:data:`problem.kinds.KINDS`): its request type and the module whose
    ``solve(problem, request, time_limit=)`` answers it (imported when a group of the kind is solved)."""

    kind: str  # a name in problem.kinds.KINDS
    request_type: type
    model: str  # the module whose solve(problem, request, time_limit=) answers it

    def solve(self, problem, request, *, method: str, time_limit: float | None):
        import importlib

        model = importlib.import_module(self.model)
        described = kind_named(self.kind).described.split(" (")[0]
        if request is not None and not isinstance(request, self.request_type):
            raise UnsupportedRequest(
                f"{described} is solved with a {self.request_type.__name__} (its tiers are not a consumer group's)"
            )
        if method not in (DEFAULT_METHOD, model.METHOD):
            raise UnsupportedRequest(f"method {method} cannot solve {described} (method auto chooses {model.METHOD})")
        return model.solve(problem, request, time_limit=time_limit)


#: The kinds of group :func:`solve` hands to their own model, by kind: Streams groups (KIP-1071, CP-SAT stage
#: by stage) and share groups (KIP-932, a min-cost flow per tier).  A consumer group is this module's own
#: (:data:`ENGINES`).
GROUP_MODELS: Mapping[str, GroupModel] = MappingProxyType(
    {
        "streams": GroupModel("streams", StreamsRequest, "assignment_oracle.optimal.streams"),
        "share": GroupModel("share", ShareRequest, "assignment_oracle.optimal.share"),
    }
)


def _tiers(text: str) -> tuple[str, ...]:
    return tuple(t.strip() for t in text.split(",") if t.strip())


#: Each kind's request for an objective as text (tiers in priority order, separated by commas; a share group's
#: balance and sharing may name their definition after a colon), by the kind's name; None: the kind's default.
#: A text the kind cannot answer raises :class:`UnsupportedRequest` naming what is wrong.
OBJECTIVES: Mapping[str, Callable[[str | None], object]] = MappingProxyType(
    {
        "consumer": lambda text: Request() if text is None else Request(objective=_tiers(text)),
        "streams": lambda text: StreamsRequest() if text is None else StreamsRequest(objective=_tiers(text)),
        "share": parse_share_request,
    }
)


def parse_objective(kind: str, text: str | None):
    """The request of a group of ``kind`` (:data:`problem.kinds.KINDS`) for an objective as text (:data:`OBJECTIVES`)."""
    return OBJECTIVES[kind_named(kind).name](text)


def group_model(problem) -> GroupModel | None:
    """The entry of :data:`GROUP_MODELS` that solves ``problem``, by its kind (``None``: a consumer group, solved
    by :data:`ENGINES`)."""
    return GROUP_MODELS.get(kind_of(problem).name)


def solve(
    problem: Problem,
    request: Request | None = None,
    *,
    method: str = DEFAULT_METHOD,
    time_limit: float | None = None,
    claims: ResolvedClaims | None = None,
    hint=None,
) -> Solution:
    """The optimum of ``request`` (default: the problem's own objective, dec-min, no budget) on
    ``problem``, by the engine :func:`choose` picks (module docstring).

    ``time_limit`` (seconds) bounds the CP-SAT engines (the flows are exact and polynomial and take
    none); an engine that runs out of time answers ``FEASIBLE`` or ``UNKNOWN`` with its bounds, never
    ``OPTIMAL``.  ``hint`` (a valid assignment) warm-starts ``cpsat``.
    """
    group = group_model(problem)
    if group is not None:  # a Streams or share group: its own tiers and model (GROUP_MODELS)
        return group.solve(problem, request, method=method, time_limit=time_limit)
    if isinstance(request, str):
        raise TypeError("solve(problem, request): the second argument is a Request; name the engine with method=")
    request = Request() if request is None else request
    engine = choose(problem, request, method)
    started = time.perf_counter()
    if engine.name == "units-flow":
        from assignment_oracle.optimal import units_flow

        return units_flow.solve(problem, request, claims=claims)
    if engine.name == "cpsat-staged":
        from assignment_oracle.optimal import staged

        return staged.solve(problem, request, claims=claims, time_limit=time_limit)
    if engine.name == "flow-spread":
        from assignment_oracle.optimal import topic_spread

        try:
            solution = topic_spread.solve(problem, claims=claims)
        except ValueError as err:  # its tier weights overflow 64-bit costs
            if method != "auto":
                raise UnsupportedRequest(f"method flow-spread: {err}") from None
            from assignment_oracle.optimal import staged

            return staged.solve(problem, request, claims=claims, time_limit=time_limit)
    elif engine.name == "cpsat":
        from assignment_oracle.optimal.cpsat import solve as run

        solution = run(_network_problem(problem, request), claims=claims, time_limit=time_limit, hint=hint)
    else:
        from assignment_oracle.optimal.flow import solve as run

        solution = run(
            _network_problem(problem, request),
            claims=claims,
            **({"backend": "networkx"} if engine.name == "networkx" else {}),
        )
    return _with_tiers(solution, problem, request, engine, time.perf_counter() - started)


def _network_problem(problem: Problem, request: Request) -> Problem:
    """The problem the network's engines read the objective from (they take it from the problem)."""
    order = request.tiers(problem)
    return problem if order == problem.objective else dataclasses.replace(problem, objective=order)


def _with_tiers(solution: Solution, problem: Problem, request: Request, engine: Engine, elapsed: float) -> Solution:
    """The network engines' answer with its per-tier records: every tier proven by the engine's proof
    when the answer is ``OPTIMAL`` (the certificate proves the weighted objective, which
    :mod:`optimal.levels` shows is the lexicographic one), none otherwise."""
    records = []
    measures = solution.measures
    proven = solution.status == OPTIMAL
    for tier in request.tiers(problem):
        if measures is None:
            records.append(TierResult(tier, None, None, False, engine.proof))
            continue
        value = measures.value(tier, request.balance)
        if tier == RACK and not problem.rack_locality.active:
            records.append(TierResult(tier, value, value, True, "bound"))  # no rack information: all local
        else:
            records.append(TierResult(tier, value, value if proven else None, proven, engine.proof))
    # Measured once: the copy is given the measures (a cached_property it would otherwise recompute).
    return dataclasses.replace(solution, request=request, tiers=tuple(records), wall_time=elapsed, measured=measures)
