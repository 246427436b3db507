"""compare.report.figures on the quick sweep: every figure drawn, titled, colored by assignor, without overlapping text."""

from __future__ import annotations

import itertools

import matplotlib.colors as mcolors
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.text import Text

from assignment_oracle.compare.report import figures, tables
from assignment_oracle.heuristics.registry import ASSIGNORS

pytestmark = pytest.mark.xdist_group("spark")  # one worker runs every test that uses Spark (tests/conftest.py)


@pytest.fixture(scope="module")
def rows(quick_sweep):
    return tables.load(quick_sweep.out)


def figure_tables(rows):
    """Figure id -> the table its function draws."""
    return {
        "guarantee_shares": tables.shares(rows, by_family=False),
        "family_shares": tables.shares(rows),
        "balance_gaps": tables.balance_gaps(rows),
        "rack_gaps": tables.rack_gaps(rows),
        "stickiness_gaps": tables.stickiness_gaps(rows),
        "churn": tables.churn_curves(rows),
        "run_times": tables.run_times(rows),
        "kip341": tables.kip341(rows),
    }


@pytest.fixture(scope="module")
def drawn(rows):
    return {name: getattr(figures, name)(table) for name, table in figure_tables(rows).items()}


def test_every_listed_figure_is_drawn_with_its_title(drawn):
    assert list(drawn) == list(figures.FIGURES)
    for name, fig in drawn.items():
        assert fig.get_suptitle() == figures.FIGURES[name]


def visible_texts(fig) -> list[Text]:
    """The texts drawn: visible, not empty, and not the label of a tick outside its axes' view (matplotlib
    keeps those, at positions beyond the axes, but never draws them; with panels side by side they would
    seem to overlap the next panel's labels)."""
    fig.canvas = FigureCanvasAgg(fig) if not isinstance(fig.canvas, FigureCanvasAgg) else fig.canvas
    fig.canvas.draw()
    undrawn = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            for tick in [*axis.get_major_ticks(), *axis.get_minor_ticks()]:
                if not low - 1e-9 <= tick.get_loc() <= high + 1e-9:
                    undrawn |= {id(tick.label1), id(tick.label2)}
    found = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip() and t.figure is fig]
    return [t for t in found if id(t) not in undrawn and t.get_window_extent().width > 0]


@pytest.mark.parametrize("name", list(figures.FIGURES))
def test_no_two_labels_overlap(drawn, name):
    fig = drawn[name]
    texts = visible_texts(fig)
    renderer = fig.canvas.get_renderer()
    boxes = [(t, t.get_window_extent(renderer)) for t in texts]
    clashes = [
        (a.get_text(), b.get_text())
        for (a, box_a), (b, box_b) in itertools.combinations(boxes, 2)
        if box_a.overlaps(box_b)
        and box_a.intersection(box_a, box_b).width > 1
        and box_a.intersection(box_a, box_b).height > 1
    ]
    assert clashes == []


def test_each_assignor_has_one_color_in_every_figure(drawn):
    """Lines and bars drawn for an assignor use its color, whichever figure they are in."""
    seen = 0
    for fig in drawn.values():
        for ax in fig.axes:
            for line in ax.get_lines():
                label = line.get_label()
                name = {"oracle: flow model": "optimum", "oracle: CP-SAT (sampled)": "optimum-cpsat"}.get(label, label)
                if label.startswith("optimum ("):
                    name = "optimum"
                name = name.split(" (")[0]  # the gap distributions say each one's share at 0: "sticky (95% at 0)"
                if name in ASSIGNORS or name in tables.ORACLE:
                    assert mcolors.to_hex(line.get_color()) == figures.color(name)
                    seen += 1
            ticks = [t.get_text().split("  (")[0] for t in ax.get_yticklabels()]
            bars = ax.patches
            if bars and len(bars) == len(ticks):
                # Bars and tick labels are both in table order (the first at the top).
                for bar, name in zip(bars, ticks):
                    assert mcolors.to_hex(bar.get_facecolor()) == figures.color(name)
                    seen += 1
    assert seen > 20


def test_colors_are_distinct_stable_and_pair_peers_with_their_port():
    ports = [figures.color(name) for name in ASSIGNORS]
    assert len(set(ports)) == len(ports)
    assert figures.color("optimum") == "#000000" and figures.color("optimum-cpsat") not in ports
    assert figures.color("kafka-python:sticky") not in ports
    assert figures.color("kafka-python:sticky") != figures.color("kafka-python:range")
    # Two clients' copies of one assignor never share a color, nor take their port's.
    peers = [figures.color(f"{library}:{port}") for library in ("kafka-python", "librdkafka") for port in ASSIGNORS]
    assert len(set(peers)) == len(peers) and not set(peers) & set(ports)
    assert figures.color("external:my-assignor") == figures.color("external:my-assignor")


def test_svg_keeps_text_and_is_the_same_bytes_each_time(rows):
    first = figures.svg(figures.guarantee_shares(tables.shares(rows, by_family=False)))
    again = figures.svg(figures.guarantee_shares(tables.shares(rows, by_family=False)))
    assert first == again
    assert figures.FIGURES["guarantee_shares"] in first  # text stays text
    assert "<dc:date>" not in first


@pytest.mark.parametrize("name", list(figures.FIGURES))
def test_an_empty_table_still_gives_the_titled_figure(rows, name):
    empty = figure_tables(rows)[name].iloc[0:0]
    fig = getattr(figures, name)(empty)
    assert fig.get_suptitle() == figures.FIGURES[name]
    assert any("this sweep" in t.get_text() for t in visible_texts(fig))


@pytest.mark.parametrize("name", list(figures.FIGURES))
def test_every_text_lies_inside_its_figure(drawn, name):
    """Titles, labels and legends are drawn whole: no text box crosses the figure's edge (a clipped title)."""
    fig = drawn[name]
    texts = visible_texts(fig)  # draws the figure on an Agg canvas
    renderer = fig.canvas.get_renderer()
    width, height = fig.bbox.width, fig.bbox.height
    undrawn = set()  # tick labels of ticks outside the axes' view: matplotlib keeps them but never draws them
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            for tick in [*axis.get_major_ticks(), *axis.get_minor_ticks()]:
                if not low - 1e-9 <= tick.get_loc() <= high + 1e-9:
                    undrawn |= {id(tick.label1), id(tick.label2)}
    outside = [
        t.get_text()
        for t in texts
        if id(t) not in undrawn
        for box in [t.get_window_extent(renderer)]
        if box.x0 < -1 or box.y0 < -1 or box.x1 > width + 1 or box.y1 > height + 1
    ]
    assert outside == []


@pytest.mark.parametrize("name, column", [("balance_gaps", "kip54_gap"), ("rack_gaps", "rack_gap")])
def test_an_assignor_without_any_gap_is_a_visible_line_at_full_height(rows, name, column):
    """An assignor whose gap is 0 on every result is drawn as a line at 100% from x = 0 to the right edge,
    with a dot at 0 inside the axes (not on the y axis's spine); its legend entry says 100% at 0."""
    table = figure_tables(rows)[name]
    never = sorted(set(table["assignor"]) - set(table.loc[table[column] > 0, "assignor"]))
    assert never, "the quick sweep has an assignor with no gap on any result"
    fig = getattr(figures, name)(table)
    for assignor in never:
        ((ax, line),) = [
            (ax, ln) for ax in fig.axes for ln in ax.get_lines() if ln.get_label() == f"{assignor} (100% at 0)"
        ][:1]
        left, right = ax.get_xlim()
        assert left < 0
        xs, ys = line.get_xdata(), line.get_ydata()
        assert min(ys) == 1.0 and min(xs) == 0 and max(xs) >= right * 0.99
        assert mcolors.to_hex(line.get_color()) == figures.color(assignor)


def test_heatmap_labels_are_legible_on_white(drawn):
    """Every assignor label of the per-family heatmaps has at least WCAG's 4.5:1 contrast on white (a
    peer's light shade is not used as text), and keeps its assignor's color wherever that is legible."""

    def contrast(hex_color: str) -> float:
        def linear(c: float) -> float:
            return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

        r, g, b = (linear(v) for v in mcolors.to_rgb(hex_color))
        return 1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05)

    labels = [t for ax in drawn["family_shares"].axes[:2] for t in ax.get_yticklabels() if t.get_text()]
    assert len(labels) >= 2 * len(ASSIGNORS)
    for label in labels:
        shown = mcolors.to_hex(label.get_color())
        assert contrast(shown) >= 4.5, (label.get_text(), shown)
        if contrast(figures.color(label.get_text())) >= 4.5:
            assert shown == figures.color(label.get_text())


@pytest.mark.parametrize("name", ["balance_gaps", "rack_gaps", "stickiness_gaps", "churn", "run_times"])
def test_small_multiples_at_most_eight_lines_a_panel(drawn, rows, name):
    """Every line figure draws each assignor in its family's panel (the balance gaps: in both measures' panels),
    never more than eight lines on one panel (the oracle's reference line counted)."""
    fig = drawn[name]
    counts = figures.lines_per_panel(fig)
    assert counts and max(counts) <= figures.MAX_LINES_PER_PANEL
    table = figure_tables(rows)[name]
    drawn_names = [line.get_label().split(" (")[0] for ax in fig.axes for line in ax.get_lines() if line.get_gid()]
    assignors = [n for n in table["assignor"].unique() if n not in tables.ORACLE]
    times = 2 if name == "balance_gaps" else 1
    assert sorted(n for n in drawn_names if n in assignors) == sorted(assignors * times)


def test_panels_group_families_and_split_what_does_not_fit():
    names = ["range", "uniform", "fair", *(f"kafka-python:{p}" for p in ("range", "sticky")), "optimum"]
    assert figures.panels(names) == [
        ("Kafka's consumer assignors", ["range"]),
        ("KIP-848 group coordinator", ["uniform"]),
        ("proposals and replaced releases", ["fair"]),
        ("kafka-python's assignors", ["kafka-python:range", "kafka-python:sticky"]),
    ]
    many = [f"external:a{k}" for k in range(11)]
    split = figures.panels(many, room=8)
    assert [title for title, _ in split] == ["other assignors (1/2)", "other assignors (2/2)"]
    assert sum(len(chunk) for _, chunk in split) == 11 and max(len(chunk) for _, chunk in split) == 8
