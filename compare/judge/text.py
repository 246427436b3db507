"""Judged results as plain text: the tables the command line prints, for any program or notebook.

:func:`table` aligns columns under a header (every text table here and in
the higher layers uses it); :func:`comparison_text` and :func:`evaluation_line` render a
:class:`~assignment_oracle.compare.judge.evaluate.Comparison` and one
:class:`~assignment_oracle.compare.judge.evaluate.Evaluation` (a verdict renders itself:
:meth:`~assignment_oracle.compare.judge.verdict.Verdict.text`).  It reads
those two by their attributes and does not import them, so that
:mod:`~assignment_oracle.compare.judge.evaluate` can render through it.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from assignment_oracle.compare.judge.weighted import largest_lower_bound
from assignment_oracle.optimal import INFEASIBLE
from assignment_oracle.problem.text import lines_text, printable

__all__ = [
    "table",
    "yes",
    "cell",
    "short_list",
    "loads_text",
    "runs",
    "comparison_text",
    "evaluation_line",
]


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """Lines of a left-aligned table: the header, a rule, then the rows (trailing spaces stripped)."""
    body = [tuple(header)] + [tuple(printable(c) for c in r) for r in rows]  # names shown escaped
    widths = [max(len(r[i]) for r in body) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in body]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def yes(flag: bool | None) -> str:
    return {True: "yes", False: "no", None: "n/a"}[flag]


def cell(value) -> str:
    return "-" if value is None else str(value)


def short_list(values, limit: int = 8) -> str:
    values = list(values)
    text = ",".join(str(v) for v in values[:limit])
    return f"[{text}{',…' if len(values) > limit else ''}]"


def _promise(evaluation) -> str:
    g = evaluation.guarantee
    return "-" if g is None else ("n/a" if not g.applies else ("kept" if g.kept else "BROKEN"))


def comparison_text(result) -> str:
    """The table ``compare`` prints for a :class:`~compare.judge.evaluate.Comparison`: the optimum's row first, then one row per assignor."""
    header = (
        "assignor",
        "status",
        "max-min",
        "KIP-54 gap",
        "moves to balance",
        "local cond.",
        "retained/opt",
        "moved",
        "topic spread",
        "rebalances",
        "guarantee",
        "time",
    )
    racks = result.problem.rack_locality.active  # a cross-rack column only where racks can differ
    if racks:
        header = header[:6] + ("cross-rack/opt",) + header[6:]
    rows = []
    for row in result.rows:
        v = row.verdict
        if v is None:
            short = row.message if len(row.message) <= 60 else row.message[:57] + "..."
            rows.append((row.assignor, row.status) + ("-",) * (len(header) - 3) + (short,))
            continue
        m = v.measures
        cells = (
            (
                row.assignor,
                row.status,
                str(m["spread"]),
                "-" if not v.valid else str(m["kip54_score"] - m["optimal_kip54_score"]),
                "-" if m["balance_moves"] is None else str(m["balance_moves"]),
                {True: "holds", False: "broken", None: "-"}[_holds(v, "kafka-local-condition")],
            )
            + ((f"{m['cross_rack']}/{m['optimal_cross_rack']}",) if racks else ())
            + (
                f"{m['retained']}/{m['optimal_retained']}",
                str(m["moved"]),
                str(m["max_topic_spread"]),
                "-" if row.rebalances is None else str(row.rebalances),
                _promise(row),
                "-" if row.wall_time is None else f"{row.wall_time * 1000:.1f} ms",
            )
        )
        rows.append(cells)
    problem = result.problem
    certified = _holds(result.rows[0].verdict, "oracle-certificate")
    title = f"{len(problem.members)} members, {problem.total_partitions} partitions; the optimum's certificate " + (
        "verifies" if certified else "DOES NOT VERIFY"
    )
    text = title + "\n" + "\n".join(table(header, rows)) + "\n"
    failed = [row for row in result.rows if row.verdict is None and len(row.message) > 60]
    if failed:  # the whole message, which the table cut
        text += "\n" + lines_text([f"{row.assignor}: {row.status}: {row.message}" for row in failed])
    joined = [row for row in result.rows if row.co_partition is not None]
    if joined:
        text += "\n" + _co_partition_text(result, joined)
    heavy = [row for row in result.rows if row.weighted is not None]
    if heavy:
        text += "\n" + _weighted_text(result, heavy)
    moving = [row for row in result.rows if row.moves is not None]
    if moving:
        text += "\n" + _moves_text(moving)
    if result.request is not None and result.request_optimum is not None:
        text += "\n" + _request_text(result)
    return text


def _holds(verdict, name: str) -> bool | None:
    found = None if verdict is None or not verdict.valid else verdict.finding(name)
    return None if found is None else found.holds


def _request_text(result) -> str:
    """Every row against the optimum of the request ``compare`` was given (compare.judge.tiers)."""
    request, optimum = result.request, result.request_optimum
    order = request.tiers(result.problem)
    limits = "".join(
        (
            f"; at most {request.max_moves} moves" if request.max_moves is not None else "",
            f"; at most {request.max_moves_per_member} from any member"
            if request.max_moves_per_member is not None
            else "",
        )
    )
    title = (
        f"against the optimum of the request: {', '.join(order)} (balance: {request.balance}{limits}); "
        f"that optimum: {optimum.status}" + (f" ({optimum.message})" if optimum.message else "")
    )
    header = ("assignor", "valid", "verdict", "first gap", *order)
    rows = []
    for row in result.rows:
        v = row.asked
        if v is None:
            rows.append((row.assignor, "-", row.status, "-", *("-" for _ in order)))
            continue
        values = {line.tier: _cell(line.value) for line in v.tiers}
        rows.append(
            (
                row.assignor,
                "yes" if v.valid else "no",
                v.status,
                v.gap_tier or "-",
                *(values.get(t, "-") for t in order),
            )
        )
    best = {line.tier: _cell(line.value) for line in optimum.tiers} if optimum.assignment is not None else {}
    rows.append(("(the optimum)", "yes" if best else "-", optimum.status, "-", *(best.get(t, "-") for t in order)))
    return title + "\n" + "\n".join(table(header, rows)) + "\n"


def _cell(value) -> str:
    if isinstance(value, list):
        shown = ",".join(str(x) for x in value[:8])
        return f"[{shown}{',…' if len(value) > 8 else ''}]"
    return "-" if value is None else str(value)


def _moves_text(rows: list) -> str:
    """Cooperative assignors against the most balanced assignment within the moves they made."""
    header = (
        "assignor",
        "moved",
        "most from one member",
        "sorted loads",
        "best within those moves",
        "its moves",
        "dominated",
    )
    unknown = {True: "YES", False: "no", None: "unknown"}
    table_rows = [
        (
            e.assignor,
            str(v["moved"]),
            str(v["most_from_one_member"]),
            short_list(v["sorted_loads"]),
            "-" if v["best_sorted_loads"] is None else short_list(v["best_sorted_loads"]),
            cell(v["best_moved"]),
            unknown[v["dominated"]],
        )
        for e in rows
        for v in (e.moves,)
    ]
    title = "cooperative rebalances against the most balanced assignment within the same moves"
    return title + "\n" + "\n".join(table(header, table_rows)) + "\n"


def _against_optimum_columns(optimum: str) -> tuple[str, str, str]:
    """The columns of a table against another optimum (weighted, co-partitioned): see :func:`_against_optimum`."""
    return ("most balanced", f"retained/{optimum}", "optimal")


def _against_optimum(finding: dict) -> tuple[str, str, str]:
    """A finding's cells against its own optimum: most balanced, retained/the optimum's, optimal.

    Each of the two verdicts reads ``yes``, ``no`` or ``unknown`` (not proven either way); the optimum's
    retained count reads ``-`` when there is none.
    """
    unknown = {True: "yes", False: "no", None: "unknown"}
    retained = f"{finding['retained']}/{cell(finding['optimal_retained'])}"
    return (unknown[finding["most_balanced"]], retained, unknown[finding["optimal"]])


def _weighted_text(result, rows: list) -> str:
    """The rows on weighted loads against the weighted optimum (what ignoring the weights costs)."""
    header = ("assignor", "largest load", "x optimum", "sorted weighted loads", *_against_optimum_columns("opt"))
    table_rows = [
        (
            e.assignor,
            str(w["largest"]),
            "-" if w["largest_ratio"] is None else f"{w['largest_ratio']:.3f}",
            short_list(w["sorted_loads"], 6),
            *_against_optimum(w),
        )
        for e in rows
        for w in (e.weighted,)
    ]
    heavy = result.weighted_optimum
    if heavy is None:
        state = "-"
    elif heavy.status == INFEASIBLE:
        state = f"INFEASIBLE: {heavy.message}"
    else:
        state = f"{heavy.status}; largest load proven >= {largest_lower_bound(result.problem, heavy)}"
    joined = " co-partitioned," if result.problem.join_groups else ""
    title = f"weighted loads against the{joined} weighted optimum ({state}); the table above counts partitions"
    return title + "\n" + "\n".join(table(header, table_rows)) + "\n"


def _co_partition_text(result, joined: list) -> str:
    """The rows against the co-partitioned optimum (join groups; stream-join-sticky's claim)."""
    against = _against_optimum_columns("co-opt")
    header = ("assignor", "co-partitioned", "sorted loads", "co-opt loads", *against, "first break")
    rows = [
        (
            e.assignor,
            yes(c["co_partitioned"]),
            short_list(c["sorted_loads"]),
            "-" if c["optimal_sorted_loads"] is None else short_list(c["optimal_sorted_loads"]),
            *_against_optimum(c),
            c["first_break"][:60] or "-",
        )
        for e in joined
        for c in (e.co_partition,)
    ]
    if result.problem.join_groups:
        groups = "; ".join(", ".join(g) for g in result.problem.join_groups)
        co = result.co_optimum
        status = "-" if co is None else co.status + (f": {co.message}" if co.status == INFEASIBLE else "")
        title = f"against the co-partitioned optimum ({status}; join groups: {groups}); the table above ignores them"
    else:
        title = "against the optimum co-partitioning every topic (KIP-315's stream-join claim)"
    return title + "\n" + "\n".join(table(header, rows)) + "\n"


def evaluation_line(e) -> str:
    """One line: how one :class:`~compare.judge.evaluate.Evaluation` did against the optimum (``demo`` prints one per assignor)."""
    if e.verdict is None:
        return f"{e.assignor:25s} {'did not finish' if e.status == 'timeout' else 'failed'}: {e.message}"
    v = e.verdict
    m = v.measures
    if not v.valid:
        state = "INVALID (" + ", ".join(sorted({x.get("kind", "?") for x in v.violation_details})) + ")"
    else:
        state = f"most balanced {yes(m['most_balanced']):3s}"
    return (
        f"{e.assignor:25s} {state:24s} sorted loads {str(list(m['sorted_loads'])):18s} "
        f"retained {m['retained']}/{m['owned']} (optimum {m['optimal_retained']})  guarantee {_promise(e)}"
        + (
            f"  cross-rack {m['cross_rack']} (optimum {m['optimal_cross_rack']})"
            if m["cross_rack"] or m["optimal_cross_rack"]
            else ""
        )
    )


#: ``check`` lists every member's load up to this many members; past it, the busiest and the idlest
#: :data:`LOADS_SHOWN` each (``--verbose``: all).
LOADS_LISTED = 20
LOADS_SHOWN = 5


def loads_text(loads: dict[str, int], *, verbose: bool = False) -> str:
    """``loads: a=3 b=2 ...``; for a large group the busiest and idlest members and how many there are."""
    if verbose or len(loads) <= LOADS_LISTED:
        return "loads: " + " ".join(f"{m}={x}" for m, x in loads.items())
    busiest = sorted(loads.items(), key=lambda item: (-item[1], item[0]))[:LOADS_SHOWN]
    idlest = sorted(loads.items(), key=lambda item: (item[1], item[0]))[:LOADS_SHOWN]
    busiest, idlest = (" ".join(f"{m}={x}" for m, x in part) for part in (busiest, idlest))
    return f"loads of {len(loads):,} members: busiest {busiest}; idlest {idlest} (--verbose for every member)"


def runs(values, limit: int = LOADS_LISTED) -> str:
    """A sorted load vector as a list, or, longer than ``limit``, as runs: ``[3×1000, 2×1000]`` (exact)."""
    values = list(values)
    if len(values) <= limit:
        return str(values)
    parts, start = [], 0
    for end in range(1, len(values) + 1):
        if end == len(values) or values[end] != values[start]:
            count = end - start
            parts.append(f"{values[start]}×{count}" if count > 1 else str(values[start]))
            start = end
    return "[" + ", ".join(parts) + "]"
