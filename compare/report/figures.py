"""The gap report's figures: one function per figure, each drawing a table from :mod:`compare.report.tables`.

Conventions every figure keeps, so a reader learns them once:

* one color per assignor, the same in every figure and every report
  (:func:`color`): this project's ports in saturated colors, a peer
  implementation of the same assignor (``kafka-python:sticky``) in the
  light shade of its port's color; the oracle in black (flow) and grey
  (CP-SAT), dashed where it is a reference line;
* a title that says what is shown and on which results, axis labels with
  units (partitions, seconds, share of results);
* assignor names on the y axis of bar charts, never rotated; constrained
  layout, so labels do not overlap (``tests/compare/test_figures.py``
  checks every figure's text boxes);
* an empty table (a sweep without churn histories, say) still gives the
  figure, with a note saying what the sweep lacks, so a notebook never
  fails on a small sweep.

:func:`svg` renders a figure as SVG with text kept as text (searchable,
crisp at any zoom) and many-point layers rasterized; the same figure gives
the same bytes.  :func:`show` displays it in a notebook.
"""

from __future__ import annotations

import functools
import io
import math
import zlib
from typing import Mapping

import numpy as np
import pandas as pd

from assignment_oracle.compare.report.tables import KIP341_AFTER, KIP341_BEFORE, assignor_order

__all__ = [
    "FIGURES",
    "balance_gaps",
    "churn",
    "color",
    "label_color",
    "family_shares",
    "guarantee_shares",
    "kip341",
    "lines_per_panel",
    "MAX_LINES_PER_PANEL",
    "panels",
    "rack_gaps",
    "run_times",
    "show",
    "stickiness_gaps",
    "svg",
]

#: Figure id -> title, in report order (the HTML report is checked to hold every one).
FIGURES: Mapping[str, str] = {
    "guarantee_shares": "Valid, most balanced, own guarantee kept: share of results per assignor",
    "family_shares": "Most balanced and own guarantee kept, per scenario family",
    "balance_gaps": "How far from most balanced: valid results by balance gap",
    "rack_gaps": "Rack gap: most-balanced results by partitions read across racks needlessly",
    "stickiness_gaps": "Stickiness gap: most-balanced results by partitions moved needlessly",
    "churn": "Churn histories: partitions moved so far, against the optimum's own trajectory",
    "run_times": "Run time against group size (log-log), assignors and the oracle",
    "kip341": "KIP-341 before and after: stale claims from zombie members",
}

# Saturated colors for the registry's assignors, in its order; each has a light twin for peers.
_PORT_COLORS = {
    "range": ("#1f77b4", "#aec7e8"),
    "roundrobin": ("#ff7f0e", "#ffbb78"),
    "fair": ("#2ca02c", "#98df8a"),
    "sticky": ("#d62728", "#ff9896"),
    "sticky-kip54": ("#9467bd", "#c5b0d5"),
    "cooperative-sticky": ("#8c564b", "#c49c94"),
    "constrained-sticky": ("#e377c2", "#f7b6d2"),
    "stream-join-sticky": ("#bcbd22", "#dbdb8d"),
    "server-range": ("#17becf", "#9edae5"),
    "uniform": ("#393b79", "#9c9ede"),
    "uniform-4.0.0": ("#6b6ecf", "#cedbf0"),
    "kafka4-sticky": ("#637939", "#b5cf6b"),
    "kafka4-cooperative-sticky": ("#843c39", "#d6616b"),
    # Streams groups' task assignor (KIP-1071), in its two iteration orders
    "streams-sticky": ("#e6550d", "#fdae6b"),
    "streams-sticky-java": ("#31a354", "#a1d99b"),
    # Share groups' assignor (KIP-932), in its two iteration orders
    "share-simple": ("#756bb1", "#bcbddc"),
    "share-simple-java": ("#636363", "#bdbdbd"),
}
_ORACLE_COLORS = {
    "optimum": "#000000",
    "optimum-cpsat": "#7f7f7f",
    "optimum-co-partitioned": "#3f3f3f",
    "optimum-weighted": "#5f5f5f",
    "optimum-streams": "#2f2f2f",
    "optimum-share": "#1f1f1f",
}
# A peer's tone by its library (the same assignor in another client): kafka-python's is the port's
# light twin, librdkafka's a dark one, so two peers of one port never share a color.
_PEER_TONE = {"kafka-python": 1, "librdkafka": 2}
# Anything else (an external assignor): a stable pick by name.
_OTHER_COLORS = ("#8c6d31", "#7b4173", "#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363", "#e7ba52")


def color(assignor: str) -> str:
    """The assignor's color in every figure (hex).  Deterministic: by name, never by position in a sweep."""
    if assignor in _ORACLE_COLORS:
        return _ORACLE_COLORS[assignor]
    if assignor in _PORT_COLORS:
        return _PORT_COLORS[assignor][0]
    library, _, base = assignor.partition(":")
    if base in _PORT_COLORS and library in _PEER_TONE:  # a peer implementation, e.g. kafka-python:sticky
        return _tone(_PORT_COLORS[base], _PEER_TONE[library])
    return _OTHER_COLORS[zlib.crc32(assignor.encode()) % len(_OTHER_COLORS)]


def _tone(colors: tuple[str, str], tone: int) -> str:
    """Tone 0: the port's color; 1: its light twin; 2: a darker shade of it."""
    if tone < 2:
        return colors[tone]
    red, green, blue = (int(colors[0][i : i + 2], 16) for i in (1, 3, 5))
    return "#{:02x}{:02x}{:02x}".format(*(round(c * 0.55) for c in (red, green, blue)))


def label_color(assignor: str) -> str:
    """The assignor's color for text on white where it is legible there (WCAG's 4.5:1 contrast for
    small text), else near-black: a peer's light shade or a pale hue would not read as a label."""
    hex_color = color(assignor)

    def linear(channel: int) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    red, green, blue = (linear(int(hex_color[i : i + 2], 16)) for i in (1, 3, 5))
    luminance = 0.2126 * red + 0.7152 * green + 0.0722 * blue
    return hex_color if 1.05 / (luminance + 0.05) >= 4.5 else "#262626"


# -- rendering -------------------------------------------------------------------

_STYLE = {
    "svg.fonttype": "none",  # text stays text in the SVG: searchable, selectable
    "svg.hashsalt": "assignment-oracle",  # stable element ids: same figure, same bytes
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "figure.titlesize": 11,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.frameon": False,
    "legend.fontsize": 8,
}


def _drawing(function):
    """Run a figure function under the report's style (rcParams are read when artists are made)."""

    @functools.wraps(function)
    def draw(*args, **kwargs):
        import matplotlib

        with matplotlib.rc_context(_STYLE):
            return function(*args, **kwargs)

    return draw


def _figure(figure_id: str, panels: int = 1, *, width: float = 9.0, height: float = 3.6, rows: int = 1):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(rows, panels, squeeze=False).ravel()
    fig.suptitle(FIGURES[figure_id], fontweight="bold")
    return fig, list(axes)


def _empty(fig, axes, note: str):
    """The figure with ``note`` in place of its panels: the sweep has nothing to draw here."""
    for ax in axes:
        ax.set_axis_off()
        ax.text(
            0.5, 0.5, note, ha="center", va="center", transform=ax.transAxes, fontsize=9, color="#555555", wrap=True
        )
    return fig


#: At most this many lines on one panel: a figure with more assignors is drawn as small multiples, one panel
#: per family of assignors (the report's browser test checks every panel of every figure).
MAX_LINES_PER_PANEL = 8

#: The families of assignors that get a panel each, in this order; client libraries' peers get a panel per
#: library; anything else (a user's external assignor) goes to "other assignors".
PANEL_FAMILIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "Kafka's consumer assignors",
        ("range", "roundrobin", "sticky", "cooperative-sticky", "kafka4-sticky", "kafka4-cooperative-sticky"),
    ),
    ("KIP-848 group coordinator", ("server-range", "uniform", "uniform-4.0.0")),
    ("proposals and replaced releases", ("fair", "sticky-kip54", "constrained-sticky", "stream-join-sticky")),
    ("Streams groups' task assignor", ("streams-sticky", "streams-sticky-java")),
    ("share groups' assignor", ("share-simple", "share-simple-java")),
)
_ORACLE = frozenset(
    {"optimum", "optimum-cpsat", "optimum-co-partitioned", "optimum-weighted", "optimum-streams", "optimum-share"}
)


def panels(names, *, room: int = MAX_LINES_PER_PANEL) -> list[tuple[str, list[str]]]:
    """``names`` (assignors, the oracle's rows left out) as small-multiple panels: (title, names), each
    family of :data:`PANEL_FAMILIES` and each client library its own panel, at most ``room`` names a panel
    (a larger family is split: ``title (1/2)``); empty families left out; names in report order."""
    ordered = [n for n in assignor_order(names) if n not in _ORACLE]
    groups: dict[str, list[str]] = {title: [] for title, _ in PANEL_FAMILIES}
    family_of = {n: title for title, members in PANEL_FAMILIES for n in members}
    for name in ordered:
        library, sep, _ = name.partition(":")
        title = family_of.get(name) or (
            f"{library}'s assignors" if sep and library != "external" else "other assignors"
        )
        groups.setdefault(title, []).append(name)
    out = []
    for title, members in groups.items():
        chunks = [members[i : i + room] for i in range(0, len(members), room)]
        for k, chunk in enumerate(chunks, start=1):
            out.append((title if len(chunks) == 1 else f"{title} ({k}/{len(chunks)})", chunk))
    return out


def _series(line, name: str) -> None:
    """Mark a drawn line as one assignor's series (its SVG group's id, unique in a report and the same on
    every run): what the browser test counts per panel."""
    ax = line.axes
    figure, panel = ax.figure, ax.figure.axes.index(ax)
    crc = zlib.crc32(figure.get_suptitle().encode())
    line.set_gid(f"series-{crc:08x}-{panel}-{zlib.crc32(name.encode()):08x}")


def lines_per_panel(fig) -> list[int]:
    """How many series (:func:`_series`) each panel of ``fig`` draws (panels drawing none left out)."""
    counts = [sum(1 for line in ax.get_lines() if (line.get_gid() or "").startswith("series-")) for ax in fig.axes]
    return [c for c in counts if c]


def svg(fig) -> str:
    """The figure as an SVG document: text as text, no timestamp, stable ids."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context(_STYLE):
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": "assignment-oracle"})
    return buffer.getvalue()


def show(fig) -> None:
    """Display the figure in a notebook: :func:`svg`, also as inline HTML.

    The HTML form puts the SVG itself into an exported page (nbconvert
    otherwise embeds SVG as a base64 image, and the titles stop being
    text); Jupyter shows either.
    """
    import html

    from IPython.display import display

    document = svg(fig)
    markup = document[document.index("<svg") :]
    title = fig.get_suptitle()
    display(
        {
            "image/svg+xml": document,
            "text/html": f'<figure class="assignment-oracle-figure" aria-label="{html.escape(title)}">{markup}</figure>',
        },
        raw=True,
    )


# -- the figures -------------------------------------------------------------------


def _bars(ax, table: pd.DataFrame, column: str, label: str) -> None:
    names = list(table["assignor"])
    values = table[column].to_numpy(dtype=float)
    y = np.arange(len(names))[::-1]
    ax.barh(y, np.nan_to_num(values), color=[color(n) for n in names], height=0.7)
    for yi, value in zip(y, values):
        text = "n/a" if math.isnan(value) else f"{value:.0%}"
        ax.text(min(np.nan_to_num(value), 1.0) + 0.02, yi, text, va="center", fontsize=8)
    ax.set_yticks(y, names)
    ax.set_xlim(0, 1.25)
    ax.set_xticks([0, 0.25, 0.5, 0.75, 1.0], ["0%", "25%", "50%", "75%", "100%"])
    ax.set_xlabel(label)


@_drawing
def guarantee_shares(table: pd.DataFrame):
    """Three panels of bars, one bar per assignor: share valid, most balanced, own guarantee kept.

    ``table``: :func:`compare.report.tables.shares` with ``by_family=False``.
    """
    fig, axes = _figure("guarantee_shares", 3, width=10.5, height=0.45 * max(4, len(table)) + 1.2)
    if table.empty:
        return _empty(fig, axes, "no assignor results in this sweep")
    _bars(axes[0], table, "share_valid", "valid (share of results)")
    _bars(axes[1], table, "share_most_balanced", "most balanced (share of results)")
    _bars(axes[2], table, "share_guarantee_kept", "own guarantee kept\n(share of results where it applies)")
    for ax in axes[1:]:
        ax.tick_params(labelleft=False)
    return fig


@_drawing
def family_shares(table: pd.DataFrame):
    """Two heatmaps, assignor x family: share most balanced, share own guarantee kept (annotated).

    ``table``: :func:`compare.report.tables.shares` (by family).
    """
    families = sorted(table["family"].unique()) if not table.empty else []
    assignors = assignor_order(table["assignor"].unique()) if not table.empty else []
    fig, axes = _figure(
        "family_shares",
        1,
        rows=2,
        width=max(7.5, 0.85 * len(families) + 3.5),
        height=2 * (0.3 * max(4, len(assignors)) + 0.9) + 1.0,
    )
    if table.empty:
        return _empty(fig, axes, "no assignor results in this sweep")
    for ax, column, label in (
        (axes[0], "share_most_balanced", "most balanced"),
        (axes[1], "share_guarantee_kept", "own guarantee kept (where it applies)"),
    ):
        grid = table.pivot(index="assignor", columns="family", values=column).reindex(index=assignors, columns=families)
        values = grid.to_numpy(dtype=float)
        image = ax.imshow(np.ma.masked_invalid(values), cmap="RdYlGn", vmin=0, vmax=1, aspect="auto")
        for (i, j), value in np.ndenumerate(values):
            text = "–" if math.isnan(value) else f"{value:.0%}"
            shade = "black" if math.isnan(value) or 0.25 < value < 0.85 else "white"
            ax.text(j, i, text, ha="center", va="center", fontsize=7.5, color=shade)
        # Horizontal labels, broken at hyphens, fit a cell: no rotated labels running into each other.
        ax.set_xticks(range(len(families)), [f.replace("-", "-\n") for f in families])
        ax.set_yticks(range(len(assignors)), assignors)
        for tick, name in zip(ax.get_yticklabels(), assignors):
            tick.set_color(label_color(name))
        ax.set_title(f"{label} (share of results)", loc="left")
        ax.grid(False)
    axes[0].tick_params(labelbottom=False)
    axes[1].set_xlabel("scenario family")
    fig.colorbar(image, ax=axes, shrink=0.6, label="share of results", format=lambda x, _: f"{x:.0%}")
    return fig


def _ecdf(ax, table: pd.DataFrame, column: str, xlabel: str, names=None, right: float | None = None) -> None:
    """Share of results with ``column`` <= x, one step line per assignor of ``names`` (default: all); x on a
    symlog scale (0 is common) up to ``right`` (default: the table's largest gap, and half again).

    Every curve runs to the right edge and starts with a dot at x = 0 (its share of results with no gap),
    and the x axis starts left of 0, so an assignor whose gap is always 0 is a visible dot and line at
    100%, not a point hidden in the corner; the legend says each one's share at 0.
    """
    if names is None:
        names = [n for n in assignor_order(table["assignor"].unique()) if (table["assignor"] == n).any()]
    if right is None:
        right = _right_edge(table, column)
    for name in names:
        values = np.sort(table.loc[table["assignor"] == name, column].to_numpy(dtype=float))
        at_zero = float(np.mean(values <= 0))
        xs = np.concatenate(([0.0], values, [right]))
        below = np.searchsorted(values, values, side="right") / values.size  # share <= each value, ties at once
        ys = np.concatenate(([at_zero], below, [1.0]))
        (line,) = ax.step(xs, ys, where="post", color=color(name), label=f"{name} ({at_zero:.0%} at 0)", linewidth=1.6)
        _series(line, name)
        ax.plot([0.0], [at_zero], marker="o", markersize=4, color=color(name), linestyle="", label="_dot")
    ax.set_xscale("symlog", linthresh=1)
    ax.set_xlim(-0.5, right)
    ax.set_ylim(0, 1.04)
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0], ["0%", "20%", "40%", "60%", "80%", "100%"])
    ax.set_xlabel(xlabel)
    ax.set_ylabel("share of results with gap ≤ x")


def _right_edge(table: pd.DataFrame, column: str) -> float:
    return 1.5 * max(1.0, float(table[column].max()) if len(table) else 1.0)


def _grid(figure_id: str, count: int, columns: int, *, width: float = 10.5, row_height: float = 3.2):
    """A figure of ``count`` panels in rows of ``columns`` (unused cells hidden)."""
    rows = max(1, math.ceil(count / columns))
    fig, axes = _figure(figure_id, columns, rows=rows, width=width, height=row_height * rows + 0.6)
    for ax in axes[count:]:
        ax.set_visible(False)
    return fig, axes[: max(count, 1)]


def _names(table: pd.DataFrame) -> list[str]:
    return [n for n in assignor_order(table["assignor"].unique()) if (table["assignor"] == n).any()]


@_drawing
def balance_gaps(table: pd.DataFrame):
    """Cumulative distributions of the KIP-54 score gap and of the single-move distance to the optimum, one
    row of two panels per family of assignors (:func:`panels`).

    ``table``: :func:`compare.report.tables.balance_gaps`.  A curve reaching 100%
    at x = 0 is an assignor that was always most balanced.
    """
    groups = panels(table["assignor"].unique()) if not table.empty else []
    fig, axes = _grid("balance_gaps", 2 * max(1, len(groups)), 2, row_height=3.0)
    if table.empty:
        return _empty(fig, axes, "no valid results in this sweep")
    right_kip54, right_moves = _right_edge(table, "kip54_gap"), _right_edge(table, "balance_moves")
    for k, (title, names) in enumerate(groups):
        left, right = axes[2 * k], axes[2 * k + 1]
        _ecdf(left, table, "kip54_gap", "KIP-54 score above the optimum's (symlog)", names, right_kip54)
        _ecdf(right, table, "balance_moves", "partitions to move to the optimum's loads (symlog)", names, right_moves)
        left.set_title(f"{title}: KIP-54 score gap", loc="left")
        right.set_title("single-move distance", loc="left")
        right.set_ylabel("")
        right.legend(loc="lower right", fontsize=7)
        if k < len(groups) - 1:
            left.set_xlabel("")
            right.set_xlabel("")
    return fig


def _gap_distribution(figure_id: str, table: pd.DataFrame, column: str, empty: str, label: str):
    """One cumulative distribution of a per-result gap, a panel per family of assignors (the rack and
    stickiness figures)."""
    groups = panels(table["assignor"].unique()) if not table.empty else []
    fig, axes = _grid(figure_id, max(1, len(groups)), 2, row_height=3.2)
    if table.empty:
        return _empty(fig, axes, empty)
    right = _right_edge(table, column)
    bottom = len(groups) - min(2, len(groups))  # the panels of the last row carry the x label
    for k, (ax, (title, names)) in enumerate(zip(axes, groups)):
        _ecdf(ax, table, column, label if k >= bottom else "", names, right)
        ax.set_title(title, loc="left")
        ax.legend(loc="lower right", fontsize=7)
    return fig


@_drawing
def rack_gaps(table: pd.DataFrame):
    """Cumulative distribution of partitions outside their replicas' racks beyond the most-balanced optimum's.

    ``table``: :func:`compare.report.tables.rack_gaps`.
    """
    return _gap_distribution(
        "rack_gaps",
        table,
        "rack_gap",
        "no most-balanced results of scenarios with racks in this sweep",
        "cross-rack partitions beyond the most rack-local\nmost-balanced optimum's (symlog)",
    )


@_drawing
def stickiness_gaps(table: pd.DataFrame):
    """Cumulative distribution of partitions moved although a most-balanced assignment kept them.

    ``table``: :func:`compare.report.tables.stickiness_gaps`.
    """
    return _gap_distribution(
        "stickiness_gaps",
        table,
        "stickiness_gap",
        "no most-balanced results of rebalances with previous owners in this sweep",
        "partitions moved beyond the stickiest\nmost-balanced optimum's (symlog)",
    )


@_drawing
def churn(table: pd.DataFrame):
    """Mean cumulative partitions moved by round, a panel per family of assignors, each with the oracle's
    own trajectory as its reference.

    ``table``: :func:`compare.report.tables.churn_curves`.
    """
    groups = panels(table["assignor"].unique(), room=MAX_LINES_PER_PANEL - 1) if not table.empty else []
    fig, axes = _grid("churn", max(1, len(groups)), 2, row_height=3.2)
    if table.empty:
        return _empty(fig, axes, "no churn histories in this sweep (family 'churn')")
    top = float(table["cumulative_moved"].max()) * 1.05 or 1.0
    reference = table[table["assignor"] == "optimum"]
    for ax, (title, names) in zip(axes, groups):
        for name in [*names, *(["optimum"] if not reference.empty else [])]:
            part = table[table["assignor"] == name]
            oracle = name == "optimum"
            (line,) = ax.plot(
                part["round"],
                part["cumulative_moved"],
                color=color(name),
                marker="" if oracle else "o",
                markersize=3.5,
                linewidth=2.2 if oracle else 1.4,
                linestyle="--" if oracle else "-",
                label="optimum (its own assignments)" if oracle else name,
                zorder=3 if oracle else 2,
            )
            _series(line, name)
        ax.set_title(title, loc="left")
        ax.set_ylim(0, top)
        ax.set_xlabel("rebalance round")
        ax.set_ylabel("partitions moved so far (mean)")
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.legend(loc="upper left", fontsize=7)
    return fig


def _log_bins(values: np.ndarray, per_decade: int = 3) -> np.ndarray:
    low, high = math.floor(math.log10(values.min())), math.ceil(math.log10(values.max()) + 1e-9)
    return np.logspace(low, max(high, low + 1), (max(high, low + 1) - low) * per_decade + 1)


_ORACLE_LABELS = {
    "optimum": "oracle: flow model",
    "optimum-cpsat": "oracle: CP-SAT (sampled)",
    "optimum-co-partitioned": "oracle: co-partitioned (join groups)",
    "optimum-weighted": "oracle: weighted loads",
    "optimum-streams": "oracle: Streams groups",
    "optimum-share": "oracle: share groups",
}


@_drawing
def run_times(table: pd.DataFrame):
    """Wall time against group size, log-log, a panel per family of assignors and one for the oracle's
    engines: every result as a faint point, the median per size bin as a line.

    ``table``: :func:`compare.report.tables.run_times`.  Group size is members x
    partitions.  The oracle: flow (black) on every scenario, CP-SAT (grey)
    on the sampled ones.
    """
    groups = panels(table["assignor"].unique()) if not table.empty else []
    oracle = [n for n in _ORACLE_LABELS if not table.empty and (table["assignor"] == n).any()]
    if oracle:
        groups.append(("the oracle's engines", oracle))
    fig, axes = _grid("run_times", max(1, len(groups)), 2, row_height=3.2)
    if table.empty:
        return _empty(fig, axes, "no timed results in this sweep")
    sizes = table["group_size"].to_numpy(dtype=float)
    bins = _log_bins(sizes)
    times = np.maximum(table["wall_time_s"].to_numpy(dtype=float), 1e-6)
    for ax, (title, names) in zip(axes, groups):
        for name in names:
            part = table[table["assignor"] == name]
            x, y = part["group_size"].to_numpy(dtype=float), np.maximum(part["wall_time_s"].to_numpy(dtype=float), 1e-6)
            ax.scatter(x, y, s=6, color=color(name), alpha=0.25, linewidths=0, rasterized=True)
            which = np.digitize(x, bins)
            centers, medians = [], []
            for b in np.unique(which):
                inside = which == b
                centers.append(float(np.exp(np.mean(np.log(x[inside])))))
                medians.append(float(np.median(y[inside])))
            (line,) = ax.plot(
                centers,
                medians,
                color=color(name),
                linewidth=2.0 if name in _ORACLE_LABELS else 1.4,
                linestyle="--" if name in _ORACLE_LABELS else "-",
                marker="o",
                markersize=3,
                label=_ORACLE_LABELS.get(name, name),
            )
            _series(line, name)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(sizes.min() / 1.5, sizes.max() * 1.5)
        ax.set_ylim(times.min() / 1.5, times.max() * 1.5)
        ax.set_title(title, loc="left")
        ax.set_xlabel("members × partitions (log)")
        ax.set_ylabel("seconds per rebalance (log)")
        ax.legend(loc="upper left", fontsize=7)
    return fig


@_drawing
def kip341(table: pd.DataFrame):
    """Share valid and share most balanced on the stale-claim scenarios, per assignor.

    ``table``: :func:`compare.report.tables.kip341`.  The pre-KIP-341 sticky
    assignor and today's are labelled "before" and "after".
    """
    fig, axes = _figure("kip341", 2, width=10.0, height=0.45 * max(4, len(table)) + 1.4)
    if table.empty:
        return _empty(fig, axes, "no scenarios with stale claims in this sweep (parameter zombies)")
    _bars(axes[0], table, "share_valid", "valid (share of results)")
    _bars(axes[1], table, "share_most_balanced", "most balanced (share of results)")
    axes[1].tick_params(labelleft=False)
    names = list(table["assignor"])
    marks = {KIP341_BEFORE: "before KIP-341", KIP341_AFTER: "after KIP-341"}
    ticks = [f"{n}  ({marks[n]})" if n in marks else n for n in names]
    axes[0].set_yticks(np.arange(len(names))[::-1], ticks)
    axes[0].set_title(f"{int(table['results'].max())} rebalances with zombies' stale claims per assignor", loc="left")
    return fig
