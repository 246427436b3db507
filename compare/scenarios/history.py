"""One churn history of a Streams or share group, played the same way for every kind of group.

Guarantee: every kind's history (``streams_churn``, ``share_churn``) is planned, played, judged and written
by the code here, and a kind supplies only what differs (:class:`HistoryKind`): its events, how the group
changes on one (:class:`Group`), how a step's problem is built from the answer fed back, its row of
measures and its table's columns.  A history is a starting group and a list of events: step 0 is the
starting group, each later step applies one event and rebalances; each step is solved exactly
(:func:`assignment_oracle.optimal.solve`) and the assignor's answer judged against that optimum by the
kind's judge.  The trajectory is the assignor's own: each answer is the next step's previous assignment.
:data:`OPTIMUM` plays a history with each step's optimum as the answer (the oracle's own trajectory), and
an assignor whose failure is one Kafka's coordinator survives (:attr:`HistoryKind.stops_on`) ends its
history at that step with an error row.
"""

from __future__ import annotations

import dataclasses
import functools
import random
import time
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Mapping

from assignment_oracle.compare.judge.text import table
from assignment_oracle.compare.judge.verdict import Verdict
from assignment_oracle.heuristics.registry import get_assignor
from assignment_oracle.optimal import solve
from assignment_oracle.problem.kinds import GroupKind
from assignment_oracle.problem.text import lines_text

__all__ = [
    "OPTIMUM",
    "Event",
    "Plan",
    "Step",
    "History",
    "Group",
    "HistoryKind",
    "in_both_orders",
]

#: The name that plays a history with each step's optimum as the answer (the oracle's own trajectory).
OPTIMUM = "optimum"


def in_both_orders(name: str, kind: str) -> dict[str, Callable]:
    """The registered port ``name`` of groups of ``kind`` (:func:`heuristics.registry.get_assignor`) in each
    iteration order: ``name`` iterates Kafka's hash maps sorted, ``name-java`` as Java 17 does."""
    port = get_assignor(name, kind=kind).assign
    return {
        name: functools.partial(port, iteration_order="sorted"),
        f"{name}-java": functools.partial(port, iteration_order="java"),
    }


@dataclass(frozen=True)
class Event:
    """What happens before a step's rebalance: ``kind`` (``start`` and ``none`` for every kind of group; a
    kind adds its own kinds and fields, and says what they do in :meth:`change`)."""

    kind: str

    def summary(self) -> str:
        if self.kind == "start":
            return "starting group"
        if self.kind == "none":
            return "nothing changes"
        return self.change()

    def change(self) -> str:
        """What the event does, in a few words (every kind but ``start`` and ``none``)."""
        raise NotImplementedError

    def to_mapping(self) -> dict:
        """``kind`` and every field that is set (not None, not empty), tuples written as lists."""
        out: dict = {"kind": self.kind}
        for f in dataclasses.fields(self)[1:]:
            value = getattr(self, f.name)
            if value is not None and value != ():
                out[f.name] = _listed(value)
        return out


def _listed(value: Any) -> Any:
    return [_listed(v) for v in value] if isinstance(value, tuple) else value


@dataclass(frozen=True)
class Plan:
    """A history before it is played: its name, seed and parameters; a kind adds the starting group and
    the events (one per step after step 0).  The same name, seed and parameters always give the same plan."""

    name: str
    seed: int
    params: Mapping[str, Any]


@dataclass(frozen=True, eq=False)
class Step:
    """One rebalance of a history: its event, the problem (the assignor's earlier answers fed back), the
    assignor's answer, the optimum and the verdict; a kind adds its :meth:`row` of measures."""

    index: int
    event: Event
    problem: Any
    assignment: Any
    optimum: Any
    verdict: Verdict | None
    wall_time: float

    def row(self) -> dict:
        """One flat dict of the step's measures (its keys are the kind's)."""
        raise NotImplementedError


@dataclass(frozen=True, eq=False)
class History:
    """A history played by one assignor: one :class:`Step` per rebalance (step 0 the starting group).

    A kind says what its text table shows: :attr:`COLUMNS` between ``first worse`` and ``event``, filled
    by :meth:`cells`, and :attr:`MOVED`, the moves its totals count (a row key, and the noun the totals
    line counts them in)."""

    plan: Plan
    assignor: str
    steps: tuple[Step, ...]

    #: The kind of group (:data:`problem.kinds.KINDS`); the document is its ``<name>-history``.
    KIND: ClassVar[GroupKind]
    #: The kind-specific columns of :meth:`text`.
    COLUMNS: ClassVar[tuple[str, ...]] = ()
    #: (row key, noun): what the totals sum over the steps after step 0, each beside ``optimal_<key>``.
    MOVED: ClassVar[tuple[tuple[str, str], ...]] = ()
    #: Whether a step may be an error (its row's ``status``), counted in the totals.
    ERRORS: ClassVar[bool] = False

    @property
    def name(self) -> str:
        return self.plan.name

    def rows(self) -> list[dict]:
        """One dict per step (:meth:`Step.row` of the kind's step)."""
        return [s.row() for s in self.steps]

    def totals(self) -> dict:
        """The steps, errors (where a step may be one), valid steps, steps with a gap, each :attr:`MOVED`
        and the optimum's over the steps after step 0 that were answered, and how many of those moved
        what the optimum kept."""
        rows = self.rows()
        churn = [r for r in rows[1:] if r.get("status") != "error"]
        out = {"steps": len(rows)}
        if self.ERRORS:
            out["errors"] = sum(r["status"] == "error" for r in rows)
        out["valid"] = sum(bool(r["valid"]) for r in rows)
        out["gaps"] = sum(r.get("gap_tier") is not None for r in rows)
        for key, _ in self.MOVED:
            out[key] = sum(r[key] for r in churn)
            out[f"optimal_{key}"] = sum(r[f"optimal_{key}"] or 0 for r in churn)
        out["steps_moving_what_optimum_kept"] = sum(bool(r["moved_optimum_kept"]) for r in churn)
        return out

    def to_mapping(self, *, timing: bool = False) -> dict:
        """JSON: the plan, each step's event, scenario, answer, verdict and row; without ``timing`` the
        same arguments always give the same document."""
        steps = []
        for s in self.steps:
            row = s.row()
            if not timing:
                for key in ("optimum_wall_time_s", "wall_time_s"):
                    row.pop(key)
            steps.append(
                {
                    "step": s.index,
                    "event": s.event.to_mapping(),
                    "scenario": s.problem.to_mapping(),
                    "assignment": None if s.assignment is None else s.assignment.to_mapping(),
                    "verdict": None if s.verdict is None else s.verdict.to_mapping(),
                    "row": row,
                }
            )
        return {
            "kind": f"{self.KIND.name}-history",
            "history": self.plan.name,
            "seed": self.plan.seed,
            "params": dict(self.plan.params),
            "assignor": self.assignor,
            "steps": steps,
            "totals": self.totals(),
        }

    def cells(self, row: dict) -> tuple[str, ...]:
        """The :attr:`COLUMNS` of one answered step's row."""
        raise NotImplementedError

    def text(self) -> str:
        """The per-step table (and a totals line)."""
        header = ("step", "valid", "verdict", "first worse", *self.COLUMNS, "event")
        lines_ = []
        for r in self.rows():
            if r.get("status") == "error":
                dashes = ("-",) * len(self.COLUMNS)
                lines_.append((str(r["step"]), "-", "error", "-", *dashes, r["event"] + ": " + r["message"]))
                continue
            verdict = ("yes" if r["valid"] else "NO", r["verdict"], r["gap_tier"] or "-")
            lines_.append((str(r["step"]), *verdict, *self.cells(r), r["event"]))
        out = table(header, lines_)
        t = self.totals()
        errors = f", {t['errors']} error(s)" if self.ERRORS else ""
        moved = " and ".join(f"{t[key]} {noun} (optimum {t[f'optimal_{key}']})" for key, noun in self.MOVED)
        out.append(
            f"{self.assignor} on {self.plan.name} (seed {self.plan.seed}): {t['valid']}/{t['steps']} steps valid, "
            f"{t['gaps']} with a gap{errors}; moved {moved}; "
            f"{t['steps_moving_what_optimum_kept']} step(s) moved what the optimum kept"
        )
        return lines_text(out)


class Group:
    """One history's group as it is between steps: a kind says how an event changes it, how a step's
    problem is built from it and the answer fed back, and what an answer leaves behind."""

    def apply(self, event: Event) -> None:
        """The group after ``event`` (in place)."""
        raise NotImplementedError

    def problem(self, previous: Any) -> Any:
        """The step's problem: the group now, each member holding what ``previous`` gave it (None: nothing)."""
        raise NotImplementedError

    def answered(self, index: int, problem: Any, assignment: Any) -> None:
        """What step ``index``'s answer leaves in the group beyond the answer fed back (nothing, here)."""


@dataclass(frozen=True)
class HistoryKind:
    """What one kind of group's histories are made of: the history names, the parameters (:attr:`defaults`,
    the integers' least values, the flags), the assignors by name, the judge, and the kind's :class:`Group`,
    :class:`Event`, :class:`Step` and :class:`History` (whose ``KIND`` is the kind of group)."""

    histories: tuple[str, ...]
    defaults: Mapping[str, Any]
    #: The integer parameters and the least value each takes, in the order they are checked.
    at_least: Mapping[str, int]
    #: The true-or-false parameters.
    flags: tuple[str, ...]
    assignors: Mapping[str, Callable]
    #: (problem, assignment, optimum=, assignor=) -> the step's :class:`Verdict`.
    judge: Callable[..., Verdict]
    #: The plan -> its group as it starts.
    group: Callable[[Any], Group]
    event: type[Event]
    step: type[Step]
    history: type[History]
    #: The failures that end a history at their step with an error row (Kafka's coordinator has no
    #: assignment to go on from); any other failure propagates.
    stops_on: tuple[type[BaseException], ...] = ()

    @property
    def group_kind(self) -> GroupKind:
        return self.history.KIND

    @property
    def word(self) -> str:
        """The kind as a refusal names it ("Streams", "share")."""
        return self.group_kind.label.removesuffix(" group")

    def assignor(self, name: str) -> Callable:
        """The assignor called ``name`` (:attr:`assignors`); ``ValueError`` naming the known ones otherwise."""
        try:
            return self.assignors[name]
        except (KeyError, TypeError):
            raise ValueError(f"unknown {self.word} assignor {name!r} (known: {', '.join(self.assignors)})") from None

    def parameters(self, given: Mapping[str, Any]) -> dict:
        """``given`` over :attr:`defaults` (None: the default), each checked, and ``steps`` if given;
        ``ValueError`` naming the first wrong one."""
        unknown = sorted(set(given) - set(self.defaults) - {"steps"})
        if unknown:
            raise ValueError(f"unknown parameter {unknown[0]!r} (known: {', '.join([*self.defaults, 'steps'])})")
        params = {**self.defaults, **{k: v for k, v in given.items() if v is not None}}
        for key, least in self.at_least.items():
            _check_integer(key, params[key], least)
        for key in self.flags:
            if not isinstance(params[key], bool):
                raise ValueError(f"{key} must be true or false, got {params[key]!r}")
        if params.get("steps") is not None:
            _check_integer("steps", params["steps"], 0)
        return params

    def begin(self, history: str, seed: int, given: Mapping[str, Any]) -> tuple[dict, int | None, dict, random.Random]:
        """A plan's start: its parameters (without ``steps``), ``steps`` (None: not given), the parameters
        as the plan shows them, and the random source every choice of ``history`` at ``seed`` is drawn from."""
        if history not in self.histories:
            raise ValueError(f"unknown {self.word} history {history!r} (known: {', '.join(self.histories)})")
        params = self.parameters(given)
        steps = params.pop("steps", None)
        shown = {**params, **({"steps": steps} if steps is not None else {})}
        return params, steps, shown, random.Random(f"{self.group_kind.name}-churn|{history}|{seed}")

    def begin_single(self, seed: int, previous: bool, given: Mapping[str, Any]) -> tuple[dict, random.Random]:
        """A single rebalance's parameters (no ``steps``) and the random source it is drawn from."""
        if "steps" in given:
            raise ValueError("steps is a history's parameter, not a single rebalance's")
        if not isinstance(previous, bool):
            raise ValueError(f"previous must be true or false, got {previous!r}")
        return self.parameters(given), random.Random(f"{self.group_kind.name}|{seed}|{previous}")

    def play(self, plan: Any, assignor: str) -> History:
        """Play ``plan`` with ``assignor`` (:attr:`assignors`, or :data:`OPTIMUM`), each step solved and judged."""
        assign = None if assignor == OPTIMUM else self.assignor(assignor)
        group = self.group(plan)
        previous = None
        before: frozenset[str] | None = None
        steps: list[Step] = []
        for index, event in enumerate((self.event("start"), *plan.events)):
            group.apply(event)
            problem = _joined(group.problem(previous), before)
            before = frozenset(problem.member_ids)
            optimum = solve(problem)
            started = time.perf_counter()
            if assign is None:
                assignment = optimum.assignment
                elapsed = optimum.wall_time
            else:
                try:
                    assignment = assign(problem)
                except self.stops_on as err:
                    elapsed = time.perf_counter() - started
                    error = f"{type(err).__name__}: {err}"
                    steps.append(self.step(index, event, problem, None, optimum, None, elapsed, error))
                    break  # Kafka's coordinator has no assignment to go on from
                elapsed = time.perf_counter() - started
            verdict = self.judge(problem, assignment, optimum=optimum, assignor=assignor)
            steps.append(self.step(index, event, problem, assignment, optimum, verdict, elapsed))
            group.answered(index, problem, assignment)
            previous = assignment
        return self.history(plan, assignor, tuple(steps))

    def simulate(self, plan: Callable[..., Any], history: str, assignor: str, seed: int, params: Mapping) -> History:
        """Play the history ``plan(history, seed=seed, **params)`` with ``assignor``, checked first."""
        if assignor != OPTIMUM:
            self.assignor(assignor)
        return self.play(plan(history, seed=seed, **params), assignor)


def _joined(problem: Any, before: frozenset[str] | None) -> Any:
    """The step's problem with its joining member (:mod:`problem.joining`): of the members the step added, the
    last in the group's order (Kafka's coordinator adds the heartbeating member after the others); nobody at
    step 0 (``before`` None) or when the step added nobody."""
    if before is None:
        return problem
    added = [m for m in problem.join_order if m not in before]
    return dataclasses.replace(problem, joining=added[-1]) if added else problem


def _check_integer(key: str, value: Any, least: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{key} must be an integer >= {least}, got {value!r}")
