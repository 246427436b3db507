"""The gap report's analysis: a sweep's rows turned into the tables its figures show.

Everything the notebooks (``notebooks/gap_report.ipynb``) and
``assignment-oracle report`` show is computed here, from the Parquet rows a
sweep wrote (:mod:`compare.sweep.job`, schema in ``docs/sweeps.md``), with
pandas; the notebooks only call these functions and
:mod:`compare.report.figures`.  Each function takes the frame :func:`load` returns
and gives back a small frame, one row per assignor (and family, or round,
...), in a stable order: the registry's, then the oracle.

What is judged where (the definitions the figures rely on):

*results*
    The rows of real assignors (not the oracle's ``optimum`` and
    ``optimum-cpsat`` rows), every status included: a timeout or an error
    counts as a result that is neither valid nor most balanced.
*most balanced*
    The sorted loads equal the optimum's (``most_balanced``); the KIP-54
    gap (``kip54_gap``, the difference of KIP-54's balance score to the
    optimum's) and the single-move distance (``balance_moves``, partitions
    that must move between members to reach the optimum's sorted loads)
    measure how far a valid result is from it.
*rack gap*
    Among most-balanced valid results of a scenario with racks (``racks``):
    ``cross_rack - optimal_cross_rack``, partitions placed outside their
    replicas' racks although a most-balanced assignment keeps them local
    (KIP-881); never negative, the optimum being the most rack-local of the
    most balanced.
*stickiness gap*
    Among most-balanced valid results of a rebalance with previous owners
    that are as rack-local as the optimum: ``optimal_retained - retained``,
    partitions that moved although an assignment as balanced and as local
    keeping them exists (comparing a less balanced, or less local, result's
    stickiness with the optimum's would reward imbalance).
*own guarantee*
    The assignor's documented guarantee (:mod:`compare.judge.guarantees`), among
    the results where it applies.
*Streams groups*, *share groups*
    The rows of the Streams families (``streams``, ``streams-churn``: KIP-1071
    task assignment, judged on its own tiers) and of the share group families
    (``share``, ``share-churn``: KIP-932) are left out of every consumer
    table (results, gaps, verdict, counterexamples); :func:`streams_assignors`,
    :func:`share_assignors` and :func:`share_counterexamples` are theirs.  The tables of what ran (:func:`status_counts`,
    :func:`oracle_checks`, :func:`run_times`) count them too.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import numpy as np
import pandas as pd

from assignment_oracle.compare.judge.configuration import RESOLUTION_PCT, Measured, choose, configuration, rank_key
from assignment_oracle.compare.sweep.job import counterexample_path
from assignment_oracle.compare.sweep.rows import SHARE_OPTIMUM, STREAMS_OPTIMUM
from assignment_oracle.compare.sweep.spec import CHURN, SHARE, SHARE_FAMILIES, STREAMS_CHURN, STREAMS_FAMILIES
from assignment_oracle.heuristics.registry import ASSIGNORS, PEERS
from assignment_oracle.problem.scenario_json import InputError
from assignment_oracle.problem.text import printable

__all__ = [
    "ORACLE",
    "assignor_order",
    "balance_gaps",
    "bug_rows",
    "churn_curves",
    "client_libraries",
    "co_partitioning",
    "configurable",
    "family_in_words",
    "weighted_gaps",
    "differential",
    "ensure_sweep",
    "failures",
    "operational_gaps",
    "operational_table",
    "OPTIMUM_ROW",
    "kip341",
    "load",
    "oracle_checks",
    "partitions",
    "rack_gaps",
    "run_times",
    "shares",
    "styled",
    "status_counts",
    "stickiness_gaps",
    "streams_assignors",
    "share_assignors",
    "share_counterexamples",
    "sweep_overview",
    "verdict",
    "without_machine_paths",
    "worst_counterexamples",
]

#: The oracle's rows: the flow model (every scenario), CP-SAT (a sample) and, on scenarios with join
#: groups or weights, the co-partitioned and the weighted optimum; on Streams groups, the Streams optimum.
ORACLE = ("optimum", "optimum-cpsat", "optimum-co-partitioned", "optimum-weighted", STREAMS_OPTIMUM, SHARE_OPTIMUM)
#: The assignors of the KIP-341 story: before the fix, and after.
KIP341_BEFORE, KIP341_AFTER = "sticky-kip54", "sticky"


def assignor_order(names) -> list[str]:
    """``names`` in report order: the registry's ports, its peers, other assignors by name, then the oracle."""
    names = set(names)
    known = [a for a in [*ASSIGNORS, *PEERS] if a in names]
    oracle = [a for a in ORACLE if a in names]
    others = sorted(names - set(known) - set(oracle))
    return known + others + oracle


NO_SWEEP = "holds no sweep rows (no rows/batch=*/family=*/); run `assignment-oracle sweep` first"


#: A text column whose longest cell is longer than this wraps anywhere (commands, paths, messages);
#: shorter ones (names) never wrap, so an assignor's name stays on one line.
WRAP_AFTER = 40


#: Columns holding a share (0..1): the report shows them in percent, as every other measure.
SHARE_COLUMNS = re.compile(r"^(share_.*|same_result|.*_share)$")


def _share_text(value) -> str:
    """A share as a whole percentage (``95%``), with a decimal where rounding would say none or all (``99.6%``,
    ``0.4%``); a dash when missing."""
    if pd.isna(value):
        return "–"
    pct = 100 * float(value)
    return f"{pct:.1f}%" if pct != round(pct) and round(pct) in (0, 100) else f"{pct:.0f}%"


def styled(frame: pd.DataFrame, precision: int = 3, *, percent: bool | tuple[str, ...] = ()):
    """``frame`` as the report shows it: no index, numbers to ``precision`` digits, and every text cell
    and header HTML-escaped, then through :func:`problem.text.printable` (an assignor named
    ``<script>...`` shows as that text and runs nothing; one named with a newline or an escape sequence
    is shown escaped, as on the command line).

    Laid out to fit a page: text left-aligned, names (no spaces) on one line, short phrases wrapping
    between words, long text (a replay command, a message) wrapping anywhere within its column, and
    headers shown with spaces for underscores so they wrap between words; numbers stay right-aligned;
    a missing value is a dash.  Units are percent everywhere: a share column (:data:`SHARE_COLUMNS`,
    0..1) is shown as ``95.0%``, and so is every numeric column named in ``percent`` (or every numeric
    column, ``percent=True``), whose values are percent already.
    """
    text = [c for c in frame.columns if frame[c].dtype == object]
    shown = {c: (lambda v: printable(v) if isinstance(v, str) else v) for c in text}
    numbers = [c for c in frame.columns if c not in text and pd.api.types.is_numeric_dtype(frame[c])]
    for column in numbers:
        if SHARE_COLUMNS.match(str(column)) and not pd.api.types.is_bool_dtype(frame[column]):
            shown[column] = _share_text
        elif percent is True or column in (percent or ()):
            shown[column] = lambda v: "–" if pd.isna(v) else f"{v:.1f}%"
    layout = {}  # per text column, one CSS rule for its cells (column classes: no per-cell styles to render)
    for column in text:
        values = [v for v in frame[column] if isinstance(v, str)]
        if any(len(v) > WRAP_AFTER for v in values):  # a command, a message: wraps anywhere in its column
            props = "text-align: left; overflow-wrap: anywhere; min-width: 11em"
        elif any(" " in v for v in values):  # a short phrase: wraps between words
            props = "text-align: left"
        else:  # a name: breaks nowhere, not even at its hyphens
            props = "text-align: left; white-space: nowrap"
        layout[column] = [{"selector": "td", "props": props}]
    return (
        frame.style.hide(axis="index")
        .format(shown, precision=precision, na_rep="–", escape="html")
        .format_index(lambda name: str(name).replace("_", " "), axis=1, escape="html")
        .set_table_styles([{"selector": "th", "props": "text-align: left; vertical-align: bottom"}])
        .set_table_styles(layout, overwrite=False)
    )


def partitions(out: str | Path) -> tuple[list[str], list[str]]:
    """The families and assignors a sweep directory holds rows for (from its folder names, read no data).

    Both empty when ``out`` holds no sweep.  Spark escapes partition values
    in folder names (an external command's ``:`` and ``/``); they come back
    decoded.
    """
    from urllib.parse import unquote

    rows_dir = Path(out) / "rows"
    if not rows_dir.is_dir():
        return [], []
    families = sorted({unquote(p.name.removeprefix("family=")) for p in rows_dir.glob("batch=*/family=*")})
    assignors = sorted(
        {unquote(p.name.removeprefix("assignor=")) for p in rows_dir.glob("batch=*/family=*/assignor=*")}
    )
    return families, assignors


def load(out: str | Path, *, families=None, assignors=None) -> pd.DataFrame:
    """The rows of the sweep in ``out`` (its ``rows/`` Parquet dataset), optionally only some.

    ``families`` / ``assignors``: names to keep (``None``: all); the
    oracle's rows are always kept, the run-time figure compares against
    them.  ``family`` and ``assignor`` come back as plain strings, rows in
    (family, assignor, scenario, round) order, so what follows is
    deterministic.  :class:`~problem.scenario_json.InputError` when ``out``
    holds no sweep or a name matches nothing.
    """
    import pyarrow.dataset as ds

    rows_dir = Path(out) / "rows"
    if not partitions(out)[0]:
        raise InputError(str(out), "", NO_SWEEP)
    table = ds.dataset(str(rows_dir), format="parquet", partitioning="hive").to_table()
    frame = table.drop_columns([c for c in ("batch",) if c in table.column_names]).to_pandas()
    for column in ("family", "assignor"):
        frame[column] = frame[column].astype(str)
    for column, wanted, keep in (("family", families, ()), ("assignor", assignors, ORACLE)):
        if wanted is None:
            continue
        wanted = [wanted] if isinstance(wanted, str) else list(wanted)
        missing = sorted(set(wanted) - set(frame[column]))
        if missing:
            raise InputError(
                str(out), column, f"no rows for {missing[0]!r} (present: {', '.join(sorted(set(frame[column])))})"
            )
        frame = frame[frame[column].isin(set(wanted) | set(keep))]
    return frame.sort_values(["family", "assignor", "scenario_id", "round"], kind="stable").reset_index(drop=True)


def _share(rows: pd.DataFrame) -> pd.Series:
    """Rows of share group scenarios (their own tiers: :func:`share_assignors`)."""
    return rows["family"].isin(SHARE_FAMILIES)


def _streams(rows: pd.DataFrame) -> pd.Series:
    """Rows of Streams group scenarios (their own tiers: :func:`streams_assignors`)."""
    return rows["family"].isin(STREAMS_FAMILIES)


def _results(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows of consumer group assignors: not the oracle's, not a scenario that could not be built (assignor
    ``scenario``), not a Streams group's."""
    return rows[~rows["assignor"].isin((*ORACLE, "scenario")) & ~_streams(rows) & ~_share(rows)]


def _ordered(table: pd.DataFrame, *by: str) -> pd.DataFrame:
    """Rows in report order of ``assignor``, then ``by``."""
    rank = {name: i for i, name in enumerate(assignor_order(table["assignor"].unique()))}
    keys = ["_rank", *by]
    return (
        table.assign(_rank=table["assignor"].map(rank))
        .sort_values(keys, kind="stable")
        .drop(columns="_rank")
        .reset_index(drop=True)
    )


def _true(column: pd.Series) -> pd.Series:
    """A nullable boolean column as plain booleans, missing = False."""
    return column.eq(True)


def shares(rows: pd.DataFrame, *, by_family: bool = True) -> pd.DataFrame:
    """Per assignor (and family): shares of results valid, most balanced, meeting the own guarantee.

    Columns: ``assignor``, ``family`` (``"all"`` without ``by_family``),
    ``results``, ``share_valid``, ``share_most_balanced``,
    ``guarantee_applies`` (results where the guarantee applies) and
    ``share_guarantee_kept`` (among those; NaN when it applies to none).
    """
    results = _results(rows).assign(
        _valid=lambda f: _true(f["valid"]) & f["status"].isin(["ok", "invalid"]),
        _balanced=lambda f: _true(f["most_balanced"]),
        _applies=lambda f: _true(f["guarantee_applies"]),
    )
    results["_kept"] = results["_applies"] & _true(results["guarantee_kept"])
    if not by_family:
        results = results.assign(family="all")
    grouped = results.groupby(["assignor", "family"], sort=False)
    table = pd.DataFrame(
        {
            "results": grouped.size(),
            "share_valid": grouped["_valid"].mean(),
            "share_most_balanced": grouped["_balanced"].mean(),
            "guarantee_applies": grouped["_applies"].sum(),
            "_kept": grouped["_kept"].sum(),
        }
    ).reset_index()
    applies = table["guarantee_applies"]
    table["share_guarantee_kept"] = np.where(applies > 0, table["_kept"] / applies.where(applies > 0, 1), np.nan)
    return _ordered(table.drop(columns="_kept"), "family")


def _ratio_pct(numerator: pd.Series, denominator: pd.Series) -> pd.Series:
    """``100 * numerator / denominator``, 0 where both are 0, NaN where only the denominator is."""
    num, den = numerator.astype(float), denominator.astype(float)
    return (100 * num / den.where(den > 0)).where(den > 0, np.where(num == 0, 0.0, np.nan))


def _operational(results: pd.DataFrame) -> pd.DataFrame:
    """Per valid result, its gaps in an operator's units (NaN where a unit does not apply)."""
    frame = results[(results["status"] == "ok") & _true(results["valid"])]
    missing = [c for c in ("largest_load", "optimal_largest_load") if c not in frame]
    if missing:  # a sweep written before these columns: the busiest member is unknown
        frame = frame.assign(**dict.fromkeys(missing, np.nan))
    over = _ratio_pct(frame["largest_load"] - frame["optimal_largest_load"], frame["optimal_largest_load"])
    if "weighted_largest_ratio" in frame:  # weights: the busiest member's weighted load is what an operator feels
        weighted = 100 * (frame["weighted_largest_ratio"].astype(float) - 1)
        over = weighted.where(frame["weighted_largest_ratio"].notna(), over)
    rebalance = frame["owned"].fillna(0) > 0
    racks = _true(frame["racks"]) if "racks" in frame else pd.Series(False, index=frame.index)
    co = frame["co_partitioned"] if "co_partitioned" in frame else pd.Series(np.nan, index=frame.index)
    return frame.assign(
        _co=co.map({True: 1.0, False: 0.0}).astype(float),
        _over=over,
        _moved=_ratio_pct(frame["moved"], frame["partitions"]).where(rebalance),
        _optimal_moved=_ratio_pct(frame["optimal_moved"], frame["partitions"]).where(rebalance),
        _cross=_ratio_pct(frame["cross_rack"], frame["partitions"]).where(racks),
        _optimal_cross=_ratio_pct(frame["optimal_cross_rack"], frame["partitions"]).where(racks),
    )


def operational_gaps(rows: pd.DataFrame) -> pd.DataFrame:
    """Per assignor and family, every gap in the units an operator thinks in.

    Columns: ``assignor``, ``family``, ``results``, ``share_valid`` (a
    timeout or an error counts as not valid), and over the valid results:
    ``share_co_partitioned`` (on scenarios with join groups: no join-group
    partition number split or left out; NaN where nothing was judged so);
    ``busiest_over_ideal_pct`` (mean) and ``busiest_over_ideal_worst_pct``:
    the busiest member's load above the most balanced assignment's busiest
    member, in percent (on scenarios with partition weights, weighted
    loads against the weighted optimum's); ``moved_pct`` and
    ``optimal_moved_pct``: the share of the group's partitions that left
    their previous owner in one rebalance, the assignor's and the optimum's
    on the same rebalances (those with previous owners; NaN without any);
    ``cross_rack_pct`` and ``optimal_cross_rack_pct``: the share of
    partitions read from a member outside their replicas' racks (KIP-881),
    on scenarios with racks (NaN without any).  The optimum's own rows are
    left out: their gaps are zero by definition.
    """
    columns = [
        "assignor",
        "family",
        "results",
        "share_valid",
        "share_co_partitioned",
        "busiest_over_ideal_pct",
        "busiest_over_ideal_worst_pct",
        "moved_pct",
        "optimal_moved_pct",
        "cross_rack_pct",
        "optimal_cross_rack_pct",
    ]
    results = _results(rows)
    if results.empty:
        return pd.DataFrame(columns=columns)
    counted = results.groupby(["assignor", "family"], sort=False).size().rename("results")
    judged = _operational(results)
    grouped = judged.groupby(["assignor", "family"], sort=False)
    table = pd.DataFrame(
        {
            "valid": grouped.size(),
            "share_co_partitioned": grouped["_co"].mean(),
            "busiest_over_ideal_pct": grouped["_over"].mean(),
            "busiest_over_ideal_worst_pct": grouped["_over"].max(),
            "moved_pct": grouped["_moved"].mean(),
            "optimal_moved_pct": grouped["_optimal_moved"].mean(),
            "cross_rack_pct": grouped["_cross"].mean(),
            "optimal_cross_rack_pct": grouped["_optimal_cross"].mean(),
        }
    )
    table = pd.concat([counted, table], axis=1).reset_index()
    table["share_valid"] = table["valid"].fillna(0) / table["results"]
    return _ordered(table[columns], "family")


#: The measures :func:`operational_table` lays out, and what each is.
OPERATIONAL_MEASURES = {
    "busiest_over_ideal_pct": "busiest member over the ideal (mean %)",
    "moved_pct": "partitions moved per rebalance (mean %)",
    "cross_rack_pct": "partitions read across racks (mean %)",
}


#: The oracle's row in the measure grids, labelled for what it is: the optimum of the oracle's order, which
#: may move more partitions than a heuristic that stays less balanced.
OPTIMUM_ROW = "optimum (most balanced first, then rack-local, then sticky)"


def operational_table(rows: pd.DataFrame, measure: str) -> pd.DataFrame:
    """One of :data:`OPERATIONAL_MEASURES` as a grid: a row per assignor (the optimum's own last), a
    column per family where it applies (families without previous owners, or without racks, left out).

    The means are :func:`operational_gaps`'; the last row (:data:`OPTIMUM_ROW`) is the oracle's own
    assignments measured the same way (0 for the busiest member by definition; on churn histories, the
    oracle following its own assignments).
    """
    if measure not in OPERATIONAL_MEASURES:
        raise ValueError(f"measure must be one of {', '.join(OPERATIONAL_MEASURES)}, got {measure!r}")
    gaps = operational_gaps(rows)
    own = _operational(rows[rows["assignor"] == "optimum"])
    column = {"busiest_over_ideal_pct": "_over", "moved_pct": "_moved", "cross_rack_pct": "_cross"}[measure]
    oracle = own.groupby("family")[column].mean().rename("optimum")
    grid = gaps.pivot(index="assignor", columns="family", values=measure)
    grid = grid.reindex(assignor_order(grid.index))
    if not own.empty:
        oracle = oracle.rename(OPTIMUM_ROW)
        grid = pd.concat([grid, oracle.to_frame().T.reindex(columns=grid.columns)])
    grid = grid.dropna(axis=1, how="all")
    grid.columns.name = None
    return grid.rename_axis("assignor").reset_index()


def configurable(assignor: str) -> bool:
    """Whether a consumer can be configured with ``assignor`` today: it has a setting in
    :data:`compare.judge.configuration.CONFIGURATIONS` (proposals, replaced behaviour, librdkafka's mock
    broker's own assignor and a user's external assignors have none: judged everywhere, never chosen)."""
    return configuration(assignor) is not None


#: The verdict's resolution (``compare.judge.configuration.RESOLUTION_PCT``): differences below it are ties.
VERDICT_RESOLUTION_PCT = RESOLUTION_PCT

#: Each scenario family in an operator's words: the groups it stands for.
FAMILY_IN_WORDS: dict[str, str] = {
    "uniform": "every member reads the same topics",
    "random-subsets": "members subscribe to different topic sets",
    "skewed-sizes": "topic sizes skewed: a few topics with many partitions, most with few",
    "zipf": "a few popular topics most members read, a long tail few read",
    "kip49-rolling": "a rolling update: members one by one add new topics",
    "stream-join": "topic pairs joined partition by partition, every member on all",
    "join-groups": "topics that must be co-partitioned (Streams joins) next to free ones",
    "weighted": "partitions of uneven weight (consumer lag) on different topic sets",
    "racks": "members and partition replicas spread over racks (zones)",
    "churn": "members join, leave, crash and restart round after round",
    "streams": "a Kafka Streams application's tasks (KIP-1071)",
    "streams-churn": "a Kafka Streams application restarting, scaling out and in",
}


def family_in_words(family: str) -> str:
    """``family`` with what it stands for: ``racks: members and partition replicas spread over racks``."""
    words = FAMILY_IN_WORDS.get(family)
    return f"{family}: {words}" if words else family


def _cost(assignor: float, optimum: float | None = None) -> str:
    """A percentage as the verdict prints it: ``12.5%``, or ``12.5% (10.0%)`` with the optimum's (the column
    says so); ``-`` when unknown."""
    if pd.isna(assignor):
        return "-"
    text = f"{assignor:.1f}%"
    return text if optimum is None or pd.isna(optimum) else f"{text} ({optimum:.1f}%)"


def _measured(line: pd.Series, joins: bool) -> Measured:
    def number(column: str) -> float | None:
        value = line[column]
        return None if pd.isna(value) else float(value)

    return Measured(
        assignor=line["assignor"],
        valid=float(line["share_valid"]),
        co_partitioned=number("share_co_partitioned") if joins else None,
        busiest_over_ideal=number("busiest_over_ideal_pct"),
        cross_rack=number("cross_rack_pct"),
        moved=number("moved_pct"),
    )


def verdict(rows: pd.DataFrame) -> pd.DataFrame:
    """Per scenario family: what to configure, what it costs against the optimum, and why it was chosen.

    The choice is :func:`compare.judge.configuration.choose` on :func:`operational_gaps` (the same rule
    ``capture --judge`` applies to one group): among the assignors a consumer can be configured with
    today (:func:`configurable`), the share of valid results first (a timeout or an error counts
    against it), then the share co-partitioned (families with join groups), then the oracle's own order
    -- the busiest member over the ideal, partitions read across racks, partitions moved per rebalance,
    each compared at :data:`VERDICT_RESOLUTION_PCT` points -- ties going to fewer stop-the-world
    rebalances (KIP-848, then cooperative, then eager); and a balance edge under
    ``BALANCE_EDGE_PCT`` (1) point is not worth ``MOVES_TRADE_PCT`` (10) points more partitions moved per
    rebalance: the assignor moving fewer is chosen and ``why`` says the trade.

    Columns: ``family`` (with what it stands for, :data:`FAMILY_IN_WORDS`), ``choose``, ``configure``
    (the setting and the protocol it runs, short), ``busiest_over_ideal`` (mean, and the worst),
    ``moved_per_rebalance`` and ``cross_rack_reads`` (each with the optimum's on the same scenarios in
    brackets, ``12.2% (14.7%)``; ``-`` where the family has no previous owners or no racks), ``why`` (in
    a few words); and the
    details: ``how`` (the client, the full setting, the protocol), ``reasoning`` (why, whole), ``valid``
    (share of its results), ``co_partitioned`` (share of its valid results, on families where several
    assignors were judged on join groups; ``-`` elsewhere), ``runner_up`` (the next configurable one
    that does not tie), ``equally_good`` (configurable assignors tied on every measure) and
    ``better_unshipped`` (assignors no consumer can be configured with that rank strictly above the
    choice: what adopting one would buy).
    """
    columns = [
        "family",
        "choose",
        "configure",
        "busiest_over_ideal",
        "moved_per_rebalance",
        "cross_rack_reads",
        "why",
        "how",
        "reasoning",
        "valid",
        "co_partitioned",
        "runner_up",
        "equally_good",
        "better_unshipped",
    ]
    gaps = operational_gaps(rows)
    if gaps.empty:
        return pd.DataFrame(columns=columns)
    lines = []
    for family in sorted(gaps["family"].unique()):
        table = gaps[gaps["family"] == family].reset_index(drop=True)
        joins = table["share_co_partitioned"].notna().sum() > 1  # else: stream-join-sticky's own claim only
        measured = [_measured(line, joins) for _, line in table.iterrows()]
        choice = choose(measured)
        if choice is None:
            continue
        best = table[table["assignor"] == choice.choose].iloc[0]
        chosen = next(m for m in measured if m.assignor == choice.choose)
        above = [m.assignor for m in measured if not configurable(m.assignor) and rank_key(m) < rank_key(chosen)]
        over, worst = best["busiest_over_ideal_pct"], best["busiest_over_ideal_worst_pct"]
        co = best["share_co_partitioned"] if joins else np.nan
        lines.append(
            {
                "family": family_in_words(family),
                "choose": choice.choose,
                "configure": choice.configuration.short(),
                "busiest_over_ideal": "-" if pd.isna(over) else f"+{over:.1f}% (worst +{worst:.1f}%)",
                "moved_per_rebalance": _cost(best["moved_pct"], best["optimal_moved_pct"]),
                "cross_rack_reads": _cost(best["cross_rack_pct"], best["optimal_cross_rack_pct"]),
                "why": choice.reason,
                "how": choice.configuration.text(),
                "reasoning": choice.why,
                "valid": f"{best['share_valid']:.0%}",
                "co_partitioned": "-" if pd.isna(co) else f"{co:.0%}",
                "runner_up": choice.runner_up or "-",
                "equally_good": ", ".join(choice.tied) or "-",
                "better_unshipped": ", ".join(above) or "-",
            }
        )
    return pd.DataFrame(lines, columns=columns)


#: The verdict's first screen: what to configure per family; the rest of :func:`verdict` is
#: :data:`VERDICT_DETAILS`.
VERDICT_FIRST = ["family", "configure", "busiest_over_ideal", "moved_per_rebalance", "cross_rack_reads", "why"]
VERDICT_DETAILS = [
    "family",
    "choose",
    "how",
    "reasoning",
    "valid",
    "co_partitioned",
    "runner_up",
    "equally_good",
    "better_unshipped",
]


def balance_gaps(rows: pd.DataFrame) -> pd.DataFrame:
    """Valid results with their balance gaps: ``assignor``, ``family``, ``kip54_gap``, ``balance_moves``."""
    results = _results(rows)
    valid = results[(results["status"] == "ok") & _true(results["valid"])]
    return _ordered(
        valid[["assignor", "family", "kip54_gap", "balance_moves"]].astype(
            {"kip54_gap": "int64", "balance_moves": "int64"}
        ),
        "family",
    )


def _as_local(rows: pd.DataFrame) -> pd.Series:
    """Results with as few cross-rack partitions as the optimum (sweeps before the rack tier: all)."""
    if "cross_rack" not in rows:
        return pd.Series(True, index=rows.index)
    return rows["cross_rack"].fillna(0) <= rows["optimal_cross_rack"].fillna(0)


def rack_gaps(rows: pd.DataFrame) -> pd.DataFrame:
    """Most-balanced valid results of scenarios with racks, and partitions placed outside their racks needlessly.

    Columns: ``assignor``, ``family``, ``cross_rack``, ``optimal_cross_rack``,
    ``rack_gap`` (``cross_rack - optimal_cross_rack``, never negative among
    most-balanced results).  Empty for a sweep without racks.
    """
    columns = ["assignor", "family", "cross_rack", "optimal_cross_rack"]
    if "racks" not in rows:
        return pd.DataFrame(columns=columns + ["rack_gap"])
    results = _results(rows)
    placed = results[
        (results["status"] == "ok")
        & _true(results["valid"])
        & _true(results["most_balanced"])
        & _true(results["racks"])
    ]
    table = placed[columns].astype({"cross_rack": "int64", "optimal_cross_rack": "int64"})
    table = table.assign(rack_gap=table["cross_rack"] - table["optimal_cross_rack"])
    return _ordered(table, "family")


def stickiness_gaps(rows: pd.DataFrame) -> pd.DataFrame:
    """Most-balanced (and as rack-local) valid results of rebalances with previous owners, and partitions moved needlessly.

    Columns: ``assignor``, ``family``, ``owned``, ``retained``,
    ``optimal_retained``, ``stickiness_gap`` (``optimal_retained -
    retained``, never negative among most-balanced results as local as the
    optimum).
    """
    results = _results(rows)
    kept = results[
        (results["status"] == "ok")
        & _true(results["valid"])
        & _true(results["most_balanced"])
        & _as_local(results)
        & (results["owned"].fillna(0) > 0)
    ]
    table = kept[["assignor", "family", "owned", "retained", "optimal_retained"]].astype("int64", errors="ignore")
    table = table.assign(stickiness_gap=table["optimal_retained"] - table["retained"])
    return _ordered(table, "family")


def co_partitioning(rows: pd.DataFrame) -> pd.DataFrame:
    """Results judged against the co-partitioned optimum (scenarios with join groups; stream-join-sticky's
    results everywhere), per assignor and family.

    Columns: ``assignor``, ``family``, ``results``, ``share_co_partitioned`` (no join-group partition
    number split, none left out, valid), ``share_most_balanced`` (co-partitioned, with the co-partitioned
    optimum's sorted loads: dec-min), ``share_optimal`` (and keeping as many partitions as it),
    ``stickiness_gap_mean`` (over the most balanced: partitions the co-partitioned optimum keeps more).
    The plain ``optimum`` row says how often the optimum without co-partitioning happens to be
    co-partitioned.  Empty for a sweep without such results.
    """
    columns = [
        "assignor",
        "family",
        "results",
        "share_co_partitioned",
        "share_most_balanced",
        "share_optimal",
        "stickiness_gap_mean",
    ]
    if "co_partitioned" not in rows:
        return pd.DataFrame(columns=columns)
    judged = rows[rows["co_partitioned"].notna() & rows["status"].isin(["ok", "invalid"])]
    if judged.empty:
        return pd.DataFrame(columns=columns)
    balanced = _true(judged["co_most_balanced"])
    gap = (judged["optimal_co_retained"] - judged["co_retained"]).where(balanced)
    optimal = balanced & (gap <= 0)
    frame = judged.assign(
        co=_true(judged["co_partitioned"]).astype(float),
        balanced=balanced.astype(float),
        optimal=optimal.astype(float),
        gap=gap,
    )
    table = (
        frame.groupby(["assignor", "family"], sort=False)
        .agg(
            results=("co", "size"),
            share_co_partitioned=("co", "mean"),
            share_most_balanced=("balanced", "mean"),
            share_optimal=("optimal", "mean"),
            stickiness_gap_mean=("gap", "mean"),
        )
        .reset_index()
    )
    return _ordered(table, "family")


def weighted_gaps(rows: pd.DataFrame) -> pd.DataFrame:
    """What counting partitions costs on weighted loads (scenarios with partition weights), per assignor:
    its valid results (one that leaves partitions out would look light).

    Columns: ``assignor``, ``results``, ``share_most_balanced`` (the weighted optimum's dec-min sorted
    loads), ``largest_ratio_mean``, ``largest_ratio_p90``, ``largest_ratio_max`` (the busiest member's
    weighted load over the weighted optimum's).  The plain ``optimum`` row is the partition-count
    optimum judged on weights.  Empty for a sweep without weights.
    """
    columns = [
        "assignor",
        "results",
        "share_most_balanced",
        "largest_ratio_mean",
        "largest_ratio_p90",
        "largest_ratio_max",
    ]
    if "weighted_largest_ratio" not in rows:
        return pd.DataFrame(columns=columns)
    judged = rows[rows["weighted_largest_ratio"].notna() & (rows["status"] == "ok") & _true(rows["valid"])]
    if judged.empty:
        return pd.DataFrame(columns=columns)
    frame = judged.assign(
        balanced=_true(judged["weighted_most_balanced"]).astype(float),
        ratio=judged["weighted_largest_ratio"].astype(float),
    )
    table = (
        frame.groupby("assignor", sort=False)
        .agg(
            results=("ratio", "size"),
            share_most_balanced=("balanced", "mean"),
            largest_ratio_mean=("ratio", "mean"),
            largest_ratio_p90=("ratio", lambda s: s.quantile(0.9)),
            largest_ratio_max=("ratio", "max"),
        )
        .reset_index()
    )
    return _ordered(table)


def churn_curves(rows: pd.DataFrame) -> pd.DataFrame:
    """Churn histories: mean cumulative partitions moved by round, per assignor, and the optimum's.

    Columns: ``assignor``, ``round``, ``histories`` (those the assignor
    played to the end: a simulation stops at a round the assignor failed),
    ``cumulative_moved`` (mean) and ``cumulative_oracle_moved``
    (mean over the same histories: the oracle following its own
    assignments, the trajectory an optimal assignor would take).  The
    oracle appears as assignor ``optimum``, with the oracle's trajectory as
    its ``cumulative_moved``.  Empty when the sweep has no churn family.
    """
    churn = rows[(rows["family"] == CHURN) & (rows["assignor"] != "optimum-cpsat")]
    churn = churn[churn["cumulative_moved"].notna() | (churn["assignor"] == "optimum")]
    # Only histories the assignor played to the end (a simulation stops at a round the assignor
    # failed): a mean over a shrinking set of histories would not be a running total.
    rounds = churn[churn["assignor"] == "optimum"].groupby("scenario_id")["round"].nunique()
    played = churn.groupby(["assignor", "scenario_id"])["round"].transform("nunique")
    churn = churn[played == churn["scenario_id"].map(rounds)]
    if churn.empty:
        return pd.DataFrame(columns=["assignor", "round", "histories", "cumulative_moved", "cumulative_oracle_moved"])
    churn = churn.assign(
        cumulative_moved=np.where(
            churn["assignor"] == "optimum", churn["cumulative_oracle_moved"], churn["cumulative_moved"]
        )
    )
    grouped = churn.groupby(["assignor", "round"], sort=False)
    table = pd.DataFrame(
        {
            "histories": grouped.size(),
            "cumulative_moved": grouped["cumulative_moved"].mean(),
            "cumulative_oracle_moved": grouped["cumulative_oracle_moved"].mean(),
        }
    ).reset_index()
    return _ordered(table, "round")


def run_times(rows: pd.DataFrame) -> pd.DataFrame:
    """Wall time against group size, for every assignor and the oracle (flow, CP-SAT).

    Columns: ``assignor``, ``family``, ``members``, ``partitions``,
    ``group_size`` (``members * partitions``: the (member, partition)
    pairs both an assignor and the flow model work through),
    ``wall_time_s``.  Results that raised have no meaningful time and are
    left out; timeouts stay (at the time limit).
    """
    timed = rows[(rows["status"] != "error") & rows["wall_time_s"].notna() & (rows["members"].fillna(0) > 0)]
    table = timed[["assignor", "family", "members", "partitions", "wall_time_s"]].copy()
    table["group_size"] = (table["members"] * table["partitions"].clip(lower=1)).astype("int64")
    return _ordered(table, "group_size")


def status_counts(rows: pd.DataFrame) -> pd.DataFrame:
    """Per assignor: results by status (``ok``, ``invalid``, ``timeout``, ``error``), oracle included, and
    ``not_played``: scenario-rounds the optimum has and the assignor has not (a churn history stops at
    its assignor's first failed round: what would follow depends on the assignment it did not return)."""
    table = rows.groupby(["assignor", "status"]).size().unstack(fill_value=0)
    for status in ("ok", "invalid", "timeout", "error"):
        if status not in table:
            table[status] = 0
    table = table[["ok", "invalid", "timeout", "error"]].reset_index()
    table.columns.name = None
    # A Streams assignor plays the Streams scenarios: its scenario-rounds are the Streams optimum's.
    streams = set(rows.loc[_streams(rows), "assignor"]) - set(ORACLE)
    share = set(rows.loc[_share(rows), "assignor"]) - set(ORACLE)  # likewise the share optimum's
    not_played = pd.Series(0, index=table.index, dtype="int64")
    for reference, mine in (
        ("optimum", ~table["assignor"].isin(streams | share)),
        (STREAMS_OPTIMUM, table["assignor"].isin(streams)),
        (SHARE_OPTIMUM, table["assignor"].isin(share)),
    ):
        rounds = rows.loc[rows["assignor"] == reference, ["scenario_id", "round"]].drop_duplicates()
        played = rows[["assignor", "scenario_id", "round"]].drop_duplicates().merge(rounds)
        counted = played.groupby("assignor").size()
        missing = len(rounds) - table["assignor"].map(counted).fillna(0)
        not_played = not_played.where(~mine, missing.astype("int64"))
    table["not_played"] = np.where(table["assignor"].isin(ORACLE), 0, not_played).astype("int64")
    return _ordered(table)


def oracle_checks(rows: pd.DataFrame) -> pd.DataFrame:
    """How the oracle was cross-checked: scenario-rounds per ``oracle_check`` outcome.

    ``flow`` (flow only), ``flow=brute-force``, ``flow=cpsat``,
    ``flow=cpsat-feasible`` (CP-SAT ran out of time; its bound agrees) and
    any ``DISAGREE: ...`` (a bug in the oracle); Streams groups'
    ``streams-cpsat optimal`` (every tier proven) or ``... feasible``; share groups' ``share-flow optimal`` or
    ``share-flow=brute-force``.
    """
    optimum = rows[rows["assignor"].isin(["optimum", STREAMS_OPTIMUM, SHARE_OPTIMUM])].drop_duplicates(
        ["scenario_id", "round"]
    )
    counts = optimum["oracle_check"].fillna("none").value_counts()
    table = counts.rename_axis("oracle_check").reset_index(name="scenario_rounds")
    return table.sort_values(["scenario_rounds", "oracle_check"], ascending=[False, True]).reset_index(drop=True)


def _zombies(params: str) -> int:
    try:
        return int(json.loads(params).get("zombies", 0) or 0)
    except (ValueError, TypeError, AttributeError):
        return 0


def kip341(rows: pd.DataFrame) -> pd.DataFrame:
    """KIP-341's before/after: every assignor on the scenarios with stale claims (``zombies > 0``).

    The pre-KIP-341 StickyAssignor (``sticky-kip54``) reads no generations:
    a zombie's stale claim and the current owner's both count, and the
    partition is assigned twice (KAFKA-7026).  Columns: ``assignor``,
    ``results``, ``share_valid``, ``share_most_balanced``,
    ``mean_violations`` (per result), ``share_guarantee_kept``.  Empty when
    the sweep has no such scenario.
    """
    stale = rows[rows["params"].map(_zombies) > 0]
    if stale.empty:
        return pd.DataFrame(
            columns=[
                "assignor",
                "results",
                "share_valid",
                "share_most_balanced",
                "mean_violations",
                "share_guarantee_kept",
            ]
        )
    table = shares(stale, by_family=False).drop(columns=["family", "guarantee_applies"])
    violations = _results(stale).assign(_v=lambda f: f["violations"].fillna(0)).groupby("assignor")["_v"].mean()
    table.insert(4, "mean_violations", table["assignor"].map(violations).astype(float))
    return table


def _command_line_names(out: str | Path):
    """``name -> what --assignor(s) takes`` for this sweep: an assignor the spec defines as a table
    (``{name, command, ...}``) is given to the command line as its ``external:`` command."""
    from assignment_oracle.compare.sweep.spec import spec_from_mapping
    from assignment_oracle.heuristics.external import ExternalCommand

    marker = Path(out) / "spec.json"
    definitions = {}
    try:
        definitions = spec_from_mapping(json.loads(marker.read_text(encoding="utf-8"))["spec"]).definitions
    except (OSError, ValueError, KeyError, TypeError, InputError):
        pass

    def name(assignor: str) -> str:
        runner = getattr(definitions.get(assignor), "assign", None)
        if isinstance(runner, ExternalCommand):
            return ("external-shell:" + runner.argv[0]) if runner.shell else "external:" + shlex.join(runner.argv)
        return assignor

    return name


def _severity(rows: pd.DataFrame) -> pd.DataFrame:
    gap = (rows["optimal_retained"] - rows["retained"]).where(_true(rows["most_balanced"]))
    return rows.assign(
        _invalid=~_true(rows["valid"]),
        _violations=rows["violations"].fillna(0),
        _kip54=rows["kip54_gap"].fillna(0),
        _moves=rows["balance_moves"].fillna(0),
        _sticky=gap.fillna(0),
    )


def _cause(row: pd.Series) -> str:
    """What a counterexample is an instance of: the violations' kinds of an invalid result, the exception
    type of one that raised, else the guarantee broken (module docstring of :func:`worst_counterexamples`)."""
    finding = json.loads(row["counterexample"]).get("finding", "")
    if row["status"] == "error":
        return f"raised {finding.split(':', 1)[0].strip() or 'an error'}"
    if pd.isna(row["valid"]) or not bool(row["valid"]):
        kinds = sorted({part.split(":", 1)[0].strip() for part in finding.split("; ") if ":" in part})
        return f"invalid: {', '.join(kinds) or 'violations'}"
    return f"broke its guarantee {row.get('guarantee') or ''}".strip()


def worst_counterexamples(rows: pd.DataFrame, out: str | Path, limit: int = 10) -> pd.DataFrame:
    """The worst counterexample of each cause, ``limit`` causes at most, each with how many share it and the
    commands that replay and explain it.

    A *cause* is an assignor and what its result is an instance of (:func:`_cause`): the kinds of
    violation of an invalid result (``invalid: duplicated``), the exception type of one that raised
    (``raised KeyError``), or the guarantee broken: one known defect found on many scenarios is one row,
    ``count`` beside it.  Worst first: invalid results (most violations first), then by KIP-54 gap,
    single-move distance and stickiness gap; among equals the smaller group (the easier one to read),
    then the scenario id; each cause shown by its worst instance.  Columns: ``assignor``, ``cause``,
    ``count``, ``family``, ``scenario_id``, ``round``, ``finding``, ``members``, ``partitions``, ``file``
    (the standalone scenario JSON the sweep wrote under ``out/counterexamples``), ``replay`` and
    ``explain`` (shell commands, quoted).
    """
    found = _results(rows)
    found = found[found["counterexample"].notna()]
    columns = [
        "assignor",
        "cause",
        "count",
        "family",
        "scenario_id",
        "round",
        "finding",
        "members",
        "partitions",
        "file",
        "replay",
        "explain",
    ]
    if found.empty:
        return pd.DataFrame(columns=columns)
    ranked = _severity(found).sort_values(
        [
            "_invalid",
            "_violations",
            "_kip54",
            "_moves",
            "_sticky",
            "partitions",
            "members",
            "scenario_id",
            "round",
            "assignor",
        ],
        ascending=[False, False, False, False, False, True, True, True, True, True],
        kind="stable",
    )
    ranked = ranked.assign(cause=[_cause(r) for _, r in ranked.iterrows()])
    counts = ranked.groupby(["assignor", "cause"], sort=False).size().rename("count")
    ranked = ranked.drop_duplicates(["assignor", "cause"]).head(limit)
    ranked = ranked.join(counts, on=["assignor", "cause"])
    table = ranked[["assignor", "cause", "count", "family", "scenario_id", "round", "members", "partitions"]].copy()
    findings = ranked["counterexample"].map(lambda text: json.loads(text).get("finding", ""))
    table.insert(6, "finding", findings.map(without_machine_paths))
    files = [  # relative to the sweep directory: the report travels without the machine's absolute paths
        counterexample_path(out, a, s, r).relative_to(Path(out))
        for a, s, r in zip(table["assignor"], table["scenario_id"], table["round"])
    ]
    table["file"] = [str(f) for f in files]
    names = _command_line_names(out)
    table["replay"] = [
        f"assignment-oracle compare {shlex.quote(str(f))} --assignors {shlex.quote(names(a))}"
        for f, a in zip(files, table["assignor"])
    ]
    table["explain"] = [
        f"assignment-oracle explain {shlex.quote(str(f))} --assignor {shlex.quote(names(a))}"
        for f, a in zip(files, table["assignor"])
    ]
    return table[columns].reset_index(drop=True)


def ensure_sweep(out: str | Path, spec: str | None = "quick", *, progress: bool = True) -> Path:
    """``out`` if it holds a sweep's rows; else, with ``spec``, run that sweep into it first.

    What the notebooks call, so that a fresh checkout shows a report: the
    default reuses ``sweep-quick`` (the README's main command writes it) or
    runs the bundled ``quick`` spec (about a minute on Spark in local mode).
    ``spec=None``: no sweep is run; a missing sweep is an
    :class:`~problem.scenario_json.InputError`.
    """
    out = Path(out)
    if partitions(out)[0]:
        return out
    if spec is None:
        raise InputError(str(out), "", NO_SWEEP)
    from assignment_oracle.compare.sweep.job import run_sweep
    from assignment_oracle.compare.sweep.spec import read_spec

    run_sweep(read_spec(spec), out, progress=progress)
    return out


def sweep_overview(out: str | Path, rows: pd.DataFrame) -> pd.DataFrame:
    """One row about the sweep: its spec, scenarios, rows, assignors, families, counterexample files."""
    marker = Path(out) / "spec.json"
    spec = json.loads(marker.read_text(encoding="utf-8")) if marker.exists() else {}
    document = spec.get("spec", {})
    counterexamples = Path(out) / "counterexamples"
    return pd.DataFrame(
        [
            {
                "spec": document.get("name", "?"),
                "hash": spec.get("hash", "?"),
                "scenarios": rows["scenario_id"].nunique(),
                "rows": len(rows),
                "families": ", ".join(sorted(rows["family"].unique())),
                "assignors": ", ".join(assignor_order(set(rows["assignor"]) - set(ORACLE))),
                "counterexample files": sum(1 for _ in counterexamples.rglob("*.json"))
                if counterexamples.is_dir()
                else 0,
            }
        ]
    )


def bug_rows(replay) -> pd.DataFrame:
    """A bug replay (:func:`compare.scenarios.bugs.replay`) as a table: one row per scenario and variant.

    Columns: ``scenario`` (its number in the entry), ``assignor``,
    ``status``, ``valid``, ``violations`` (how many), ``spread`` /
    ``optimal_spread``, ``kip54_gap``,
    ``retained`` / ``optimal_retained``, ``guarantee_kept``, ``message``.
    """
    records = []
    for number, variants in enumerate(replay.rows):
        for name, evaluation in variants.items():
            row = evaluation.to_mapping(timing=False)
            records.append(
                {
                    "scenario": number,
                    "assignor": name,
                    "status": row.get("status"),
                    "valid": row.get("valid"),
                    "violations": len(row.get("violations") or ()),
                    "spread": row.get("spread"),
                    "optimal_spread": row.get("optimal_spread"),
                    "kip54_gap": row.get("kip54_gap"),
                    "retained": row.get("retained"),
                    "optimal_retained": row.get("optimal_retained"),
                    "guarantee_kept": (row.get("guarantee") or {}).get("kept"),
                    "message": row.get("message") or "",
                }
            )
    return pd.DataFrame.from_records(records)


#: An absolute path inside a message (the file an external command's whole stderr was kept in, a source file
#: of a traceback): its folders are the machine's that ran the sweep, not the reader's.
_ABSOLUTE_PATH = re.compile(r"(?<![\w.~:/-])/(?:[^\s/'\"|;()<>]+/)+(?=[^\s/'\"|;()<>])")


def without_machine_paths(text):
    """``text`` with every absolute path cut to its file name (``/tmp/assignment-oracle/stderr-1a2b.txt``
    becomes ``stderr-1a2b.txt``): a report shows no folder of the machine that ran the sweep."""
    return _ABSOLUTE_PATH.sub("", text) if isinstance(text, str) else text


def failures(rows: pd.DataFrame, out: str | Path) -> pd.DataFrame:
    """Assignors that raised (a peer's exception, a failed external command): one row per (assignor, message).

    Columns: ``assignor``, ``message`` (the exception, one line),
    ``results`` (how many results failed so), ``smallest`` (members x
    partitions of the smallest failing scenario), ``file`` (its standalone
    scenario file under ``counterexamples/``, relative to ``out``) and ``replay`` (the command
    that reproduces it).  Most frequent first within an assignor.
    """
    failed = _results(rows)
    failed = failed[failed["status"] == "error"]
    failed = failed.assign(message=failed["message"].map(without_machine_paths))
    columns = ["assignor", "message", "results", "smallest", "file", "replay"]
    if failed.empty:
        return pd.DataFrame(columns=columns)
    records = []
    names = _command_line_names(out)
    for (assignor, message), group in failed.groupby(["assignor", "message"], sort=False):
        first = group.sort_values(["partitions", "members", "scenario_id", "round"], kind="stable").iloc[0]
        path = counterexample_path(out, assignor, first["scenario_id"], first["round"]).relative_to(Path(out))
        records.append(
            {
                "assignor": assignor,
                "message": message,
                "results": len(group),
                "smallest": f"{int(first['members'])} x {int(first['partitions'])}",
                "file": str(path),
                "replay": f"assignment-oracle compare {shlex.quote(str(path))} "
                f"--assignors {shlex.quote(names(assignor))}",
            }
        )
    table = pd.DataFrame.from_records(records, columns=columns)
    table = _ordered(table.assign(_n=-table["results"]), "_n", "message").drop(columns="_n")
    return table[columns]


def differential(rows: pd.DataFrame) -> pd.DataFrame:
    """Each peer against this project's port of the same Kafka assignor, on the same scenarios.

    One row per (peer, family) where both ran: ``peer``, ``port``,
    ``family``, ``results``; ``same_result`` (share where every judged
    metric agrees: status, validity, loads' spread and KIP-54 score,
    retained partitions, own guarantee); then for each side the share valid,
    most balanced and guarantee kept, the mean KIP-54 gap over its valid
    results and the mean stickiness gap (``optimal_retained - retained``)
    over its most-balanced valid results, as :func:`stickiness_gaps`.
    """
    from assignment_oracle.heuristics.registry import PORT_OF

    key = ["scenario_id", "round"]
    judged = ["status", "valid", "spread", "kip54_score", "retained", "guarantee_kept"]
    records = []
    for peer, port in PORT_OF.items():
        mine, theirs = rows[rows["assignor"] == port], rows[rows["assignor"] == peer]
        if mine.empty or theirs.empty:
            continue
        both = theirs.merge(mine, on=[*key, "family"], suffixes=("_peer", "_port"))
        for family, group in both.groupby("family", sort=True):
            same = pd.Series(True, index=group.index)
            for column in judged:
                a, b = group[f"{column}_peer"], group[f"{column}_port"]
                same &= (a == b) | (a.isna() & b.isna())
            record = {
                "peer": peer,
                "port": port,
                "family": family,
                "results": len(group),
                "same_result": float(same.mean()),
            }
            for side in ("peer", "port"):
                valid = _true(group[f"valid_{side}"])
                record[f"{side}_valid"] = float(valid.mean())
                record[f"{side}_most_balanced"] = float(_true(group[f"most_balanced_{side}"]).mean())
                applies = _true(group[f"guarantee_applies_{side}"])
                kept = _true(group[f"guarantee_kept_{side}"]) & applies
                record[f"{side}_guarantee_kept"] = float(kept.sum() / applies.sum()) if applies.any() else float("nan")
                record[f"{side}_kip54_gap"] = (
                    float(group.loc[valid, f"kip54_gap_{side}"].mean()) if valid.any() else float("nan")
                )
                balanced = valid & _true(group[f"most_balanced_{side}"])
                gap = group[f"optimal_retained_{side}"] - group[f"retained_{side}"]
                record[f"{side}_stickiness_gap"] = float(gap[balanced].mean()) if balanced.any() else float("nan")
            records.append(record)
    return pd.DataFrame.from_records(records)


def _library_version(versions: pd.Series, library: str) -> str:
    """The version of ``library`` its rows recorded (``...; aiokafka 0.14.0``): one, or several joined."""
    found: set[str] = set()
    for text in versions.dropna().unique():
        for part in str(text).split("; "):
            if part.startswith(f"{library} "):
                found.add(part[len(library) + 1 :])
    return ", ".join(sorted(found)) or "-"


def client_libraries(rows: pd.DataFrame) -> pd.DataFrame:
    """Every client library's assignor against the optimum: one row per peer (``library:strategy``) that ran.

    Columns: ``library``, ``strategy``, ``version`` (as its rows recorded
    it: the version judged), ``copies`` (this project's port of the Kafka
    class it claims to implement, whose guarantee it is judged on; ``-``
    for none), ``guarantee`` (the one it is judged on: that port's, or the
    one its own documentation claims), ``results``, and shares of its results: ``valid`` (a
    timeout or an error counts against it), ``most_balanced`` (the
    optimum's sorted loads), ``as_sticky_as_optimum`` (among rebalances
    with previous owners: valid, most balanced, as rack-local and keeping
    as many partitions as the optimum; ``-`` without such rebalances),
    ``co_partitioned`` (among results judged on join groups; ``-`` where
    none were), ``own_guarantee`` (among results where its guarantee
    applies) and ``same_as_kafka`` (the same judged result as the port it
    copies, on the same scenarios: :func:`differential`).
    """
    from assignment_oracle.heuristics.registry import CLIENT_PEERS, LIVE_PEERS, PORT_OF, get_assignor

    columns = [
        "library",
        "strategy",
        "version",
        "copies",
        "guarantee",
        "results",
        "valid",
        "most_balanced",
        "as_sticky_as_optimum",
        "co_partitioned",
        "own_guarantee",
        "same_as_kafka",
    ]
    clients = [*PEERS, *LIVE_PEERS, *CLIENT_PEERS]
    results = _results(rows)
    results = results[results["assignor"].isin(clients)]
    if results.empty:
        return pd.DataFrame(columns=columns)
    same = differential(rows)
    lines = []
    for name, group in results.groupby("assignor", sort=False):
        library, strategy = str(name).split(":", 1)
        valid = _true(group["valid"]) & group["status"].isin(["ok", "invalid"])
        balanced = valid & _true(group["most_balanced"])
        rebalance = group["owned"].fillna(0) > 0
        sticky = balanced & _as_local(group) & (group["retained"] >= group["optimal_retained"])
        applies = _true(group["guarantee_applies"])
        kept = applies & _true(group["guarantee_kept"])
        judged = group["co_partitioned"].notna() if "co_partitioned" in group else pd.Series(False, index=group.index)
        agree = same[same["peer"] == name] if not same.empty else same
        lines.append(
            {
                "assignor": name,
                "library": library,
                "strategy": strategy,
                "version": _library_version(group["version"], library),
                "copies": PORT_OF.get(str(name), "-"),
                "guarantee": get_assignor(str(name)).guarantee,
                "results": len(group),
                "valid": float(valid.mean()),
                "most_balanced": float(balanced.mean()),
                "as_sticky_as_optimum": float(sticky[rebalance].mean()) if rebalance.any() else np.nan,
                "co_partitioned": float(_true(group.loc[judged, "co_partitioned"]).mean()) if judged.any() else np.nan,
                "own_guarantee": float(kept.sum() / applies.sum()) if applies.any() else np.nan,
                "same_as_kafka": (
                    float((agree["same_result"] * agree["results"]).sum() / agree["results"].sum())
                    if len(agree)
                    else np.nan
                ),
            }
        )
    table = pd.DataFrame(lines)
    return _ordered(table, "library").drop(columns="assignor")[columns]


def _pct(mask: pd.Series, among: pd.Series | None = None) -> float:
    """Percentage of ``mask`` true among the rows where ``among`` is (every row when ``None``); NaN if none."""
    among = pd.Series(True, index=mask.index) if among is None else among
    return float(100 * mask[among].mean()) if among.any() else np.nan


def _per_assignor(rows, columns, kind, judged_by, orders, line) -> pd.DataFrame:
    """One row per assignor over one kind of group's judged rows, in report order.

    Judged rows are those where ``kind(rows)`` holds and column ``judged_by`` is present; each row of the
    table is ``assignor``, ``iteration_order`` (from ``orders``, else ``"-"``), ``scenarios`` (how many
    judged rows) and what ``line(its rows)`` adds, laid out as ``columns``.  No judged rows (or no
    ``judged_by`` column): an empty table with those columns.
    """
    if judged_by not in rows:
        return pd.DataFrame(columns=columns)
    judged = rows[kind(rows) & rows[judged_by].notna()]
    if judged.empty:
        return pd.DataFrame(columns=columns)
    lines = [
        {"assignor": name, "iteration_order": orders.get(str(name), "-"), "scenarios": len(group), **line(group)}
        for name, group in judged.groupby("assignor", sort=False)
    ]
    return _ordered(pd.DataFrame(lines, columns=columns))


#: The Streams assignors' iteration orders (``compare.scenarios.streams_churn.ASSIGNORS``).
STREAMS_ORDERS = {"streams-sticky": "sorted", "streams-sticky-java": "java"}


def streams_assignors(rows: pd.DataFrame) -> pd.DataFrame:
    """Streams groups (KIP-1071): Kafka's ``StickyTaskAssignor`` port per iteration order against the exact
    optimum, and the optimum's own rows (``optimum-streams``) last.

    One row per assignor: ``assignor``, ``iteration_order``, ``scenarios`` (scenario-steps judged: a single
    rebalance is one, a history one per step), and percentages of them: ``valid_pct``,
    ``no_avoidable_shortfall_pct`` (every standby that could be placed was), ``most_balanced_actives_pct``
    and ``most_balanced_tasks_pct`` (the ``active-balance``, ``task-balance`` tier equal to the optimum's),
    ``tag_diversity_at_optimum_pct`` (among scenario-steps with rack-aware tags: as many distinct tag values
    per task as the optimum; NaN without any), ``as_sticky_as_optimum_pct`` (among scenario-steps with
    previous tasks: valid, every tier before ``stickiness`` equal to the optimum's and ``stickiness`` no
    worse) and ``moved_optimum_kept_pct`` (among history steps after the first: the step moved a previous
    active or standby that the optimum kept on its member; NaN without histories).
    """
    columns = [
        "assignor",
        "iteration_order",
        "scenarios",
        "valid_pct",
        "no_avoidable_shortfall_pct",
        "most_balanced_actives_pct",
        "most_balanced_tasks_pct",
        "tag_diversity_at_optimum_pct",
        "as_sticky_as_optimum_pct",
        "moved_optimum_kept_pct",
    ]

    def line(group: pd.DataFrame) -> dict:
        valid = _true(group["valid"])
        actives = group["streams_active_balance"].eq("equal")
        tasks = group["streams_task_balance"].eq("equal")
        tagged = group["streams_tag_diversity"].notna()
        tags_equal = group["streams_tag_diversity"].eq("equal")
        previous = (group["streams_previous_actives"].fillna(0) + group["streams_previous_standbys"].fillna(0)) > 0
        sticky = (
            valid & actives & tasks & (tags_equal | ~tagged) & group["streams_stickiness"].isin(["equal", "better"])
        )
        churn = (group["family"] == STREAMS_CHURN) & (group["round"] > 0)
        return {
            "valid_pct": _pct(valid),
            "no_avoidable_shortfall_pct": _pct(group["streams_avoidable_shortfall"].fillna(1).eq(0)),
            "most_balanced_actives_pct": _pct(actives),
            "most_balanced_tasks_pct": _pct(tasks),
            "tag_diversity_at_optimum_pct": _pct(tags_equal, tagged),
            "as_sticky_as_optimum_pct": _pct(sticky, previous),
            "moved_optimum_kept_pct": _pct(group["streams_moved_optimum_kept"].fillna(0) > 0, churn),
        }

    return _per_assignor(rows, columns, _streams, "streams_verdict", STREAMS_ORDERS, line)


#: Kafka's share assignor's iteration orders (``compare.scenarios.share_churn.ASSIGNORS``).
SHARE_ORDERS = {"share-simple": "sorted", "share-simple-java": "java"}


def share_assignors(rows: pd.DataFrame) -> pd.DataFrame:
    """Share groups (KIP-932): Kafka's ``SimpleAssignor`` port per iteration order against the exact optimum,
    and the optimum's own rows (``optimum-share``) last.

    One row per assignor: ``assignor``, ``iteration_order``, ``scenarios`` (scenario-steps: a single rebalance
    is one, a history one per step), then percentages of them: ``failed_pct`` (Kafka's assignor threw),
    ``valid_pct``, ``covered_pct`` (every assignable partition of a subscribed topic held),
    ``under_shared_pct`` (some partition below Kafka's ``desiredSharing``), ``most_balanced_pct`` (the balance
    tier equal to the optimum's: decreasingly minimal member loads), ``unbalanced_pct`` (valid, coverage and
    sharing equal to the optimum's, the loads worse), ``moves_what_could_stay_pct`` (among scenario-steps
    where members held something and every tier before ``stickiness`` equals the optimum's: fewer pairs
    kept than the optimum) and ``promise_broken_pct`` (some promise of Kafka's javadoc broken: on the
    optimum's row, how often the best assignment itself breaks one).
    """
    columns = [
        "assignor",
        "iteration_order",
        "scenarios",
        "failed_pct",
        "valid_pct",
        "covered_pct",
        "under_shared_pct",
        "most_balanced_pct",
        "unbalanced_pct",
        "moves_what_could_stay_pct",
        "promise_broken_pct",
    ]

    def line(group: pd.DataFrame) -> dict:
        answered = group["status"].ne("error")
        valid = _true(group["valid"]) & answered
        masks = _share_findings(group)
        comparable = valid & (group["sharegroup_owned"].fillna(0) > 0) & _share_equal_before_stickiness(group)
        return {
            "failed_pct": _pct(masks["threw"]),
            "valid_pct": _pct(valid),
            "covered_pct": _pct(answered & group["sharegroup_uncovered"].fillna(1).eq(0)),
            "under_shared_pct": _pct(masks["under-shared"]),
            "most_balanced_pct": _pct(answered & group["sharegroup_balance"].eq("equal")),
            "unbalanced_pct": _pct(masks["unbalanced"]),
            "moves_what_could_stay_pct": _pct(masks["moves what could stay"], comparable),
            "promise_broken_pct": _pct(group["sharegroup_guarantees_broken"].notna() | ~answered),
        }

    return _per_assignor(rows, columns, _share, "sharegroup_event", SHARE_ORDERS, line)


def _share_equal_before_stickiness(rows: pd.DataFrame) -> pd.Series:
    return (
        rows["sharegroup_coverage"].eq("equal")
        & rows["sharegroup_sharing"].eq("equal")
        & rows["sharegroup_balance"].eq("equal")
    )


def _share_findings(rows: pd.DataFrame) -> dict[str, pd.Series]:
    """Per finding of :data:`SHARE_FINDINGS`, the share rows that show it."""
    answered = rows["status"].ne("error")
    valid = _true(rows["valid"]) & answered
    return {
        "threw": ~answered,
        "under-shared": answered & rows["sharegroup_under_shared"].fillna(0).gt(0),
        "unbalanced": valid
        & rows["sharegroup_coverage"].eq("equal")
        & rows["sharegroup_sharing"].eq("equal")
        & rows["sharegroup_balance"].eq("worse"),
        "moves what could stay": valid
        & _share_equal_before_stickiness(rows)
        & rows["sharegroup_stickiness"].eq("worse"),
    }


#: The findings :func:`share_counterexamples` shows the smallest case of.
SHARE_FINDINGS = {
    "threw": "Kafka's assignor threw",
    "under-shared": "a partition below desiredSharing",
    "unbalanced": "loads worse than the optimum's, coverage and sharing equal",
    "moves what could stay": "fewer pairs kept than the optimum, every tier before equal",
}


def share_counterexamples(rows: pd.DataFrame) -> pd.DataFrame:
    """For each finding of :data:`SHARE_FINDINGS`, the smallest share group where Kafka's assignor (either
    iteration order) shows it: fewest members, then assignable partitions, a single rebalance before a
    history's step, then scenario and step.

    Columns: ``finding``, ``assignor``, ``family``, ``seed``, ``round`` (the step), ``members``, ``partitions``,
    ``what`` (the assignor's value beside the optimum's), ``replay`` (for a single rebalance, the command that
    prints its scenario: ``assignment-oracle generate share --seed N ...``; for a history step, the history,
    its parameters and the step)."""
    columns = ["finding", "assignor", "family", "seed", "round", "members", "partitions", "what", "replay"]
    if "sharegroup_event" not in rows:
        return pd.DataFrame(columns=columns)
    mine = rows[_share(rows) & rows["assignor"].isin(list(SHARE_ORDERS))]
    if mine.empty:
        return pd.DataFrame(columns=columns)
    mine = mine.assign(_history=mine["family"].ne(SHARE))
    lines = []
    for finding, mask in _share_findings(mine).items():
        found = mine[mask]
        if found.empty:
            continue
        row = found.sort_values(["members", "partitions", "_history", "scenario_id", "round", "assignor"]).iloc[0]
        lines.append(
            {
                "finding": SHARE_FINDINGS[finding],
                "assignor": row["assignor"],
                "family": row["family"],
                "seed": int(row["seed"]),
                "round": int(row["round"]),
                "members": int(row["members"]),
                "partitions": int(row["partitions"]),
                "what": _share_what(finding, row),
                "replay": _share_replay(row),
            }
        )
    return pd.DataFrame(lines, columns=columns)


def _share_what(finding: str, row: pd.Series) -> str:
    if finding == "threw":
        return str(row["message"])
    tiers = json.loads(row["sharegroup_tiers"]) if isinstance(row["sharegroup_tiers"], str) else {}
    if finding == "under-shared":
        return f"{int(row['sharegroup_under_shared'])} partition(s) under-shared; deviations {tiers.get('sharing', {}).get('value')}"
    if finding == "unbalanced":
        balance = tiers.get("balance", {})
        return f"loads {balance.get('value')}, the optimum's {balance.get('optimum')}"
    return (
        f"kept {int(row['sharegroup_kept'])} of {int(row['sharegroup_owned'])} pairs, the optimum "
        f"{int(row['optimal_sharegroup_kept'])}; {int(row['sharegroup_moved_optimum_kept'])} it keeps moved"
    )


def _share_replay(row: pd.Series) -> str:
    params = json.loads(row["params"]) if isinstance(row["params"], str) else {}
    if row["family"] == SHARE:
        flags = " ".join(f"--param {k}={json.dumps(v)}" for k, v in sorted(params.items()))
        return f"assignment-oracle generate share --seed {int(row['seed'])} {flags}".strip()
    history = params.pop("history", "?")
    shown = "".join(f", {k}={v!r}" for k, v in sorted(params.items()))
    return f"share_churn.simulate({history!r}, {row['assignor']!r}, seed={int(row['seed'])}{shown}): step {int(row['round'])}"
