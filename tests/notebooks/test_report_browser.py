"""The HTML gap report as a reader sees it: opened in a real headless Chromium (the system's package).

The report of the quick sweep is written into the sweep directory (``report.html``, with the executed
notebook ``report.ipynb``) and a full-page screenshot is kept next to it (``report.png``); under
``$ASSIGNMENT_ORACLE_TEST_ARTIFACTS`` (as ``.ci/run`` sets it) that directory is kept as CI's artifact.

The browser may fetch nothing from the network (every http(s) request is blocked), so what is checked
is what a reader offline sees, whether or not the machine running the tests has a network.

Without chromium, chromedriver or selenium the tests are skipped, except under ``CI`` (``.ci/run``
installs chromium): there they fail, so CI never skips them silently.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from assignment_oracle.compare.report import figures, tables
from assignment_oracle.compare.report.notebooks import write_gap_report

WINDOW_WIDTH = 1280
#: The screenshot's tallest page (pixels): a report that grows past this is cut off, not refused.
SCREENSHOT_MAX_HEIGHT = 20_000
PAGE_LOAD_TIMEOUT = 60
SCRIPT_TIMEOUT = 30


def _missing_browser() -> list[str]:
    missing = [name for name in ("chromium", "chromedriver") if shutil.which(name) is None]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium (pip install -e '.[test]')")
    return missing


MISSING = _missing_browser()
MISSING_MESSAGE = f"chromium is missing for the report's browser test: {', '.join(MISSING)} not found"
IN_CI = os.environ.get("CI", "").lower() not in ("", "0", "false")
# Skipped before any fixture runs (no sweep, no report); under CI the browser fixture fails instead.
pytestmark = [pytest.mark.skipif(bool(MISSING) and not IN_CI, reason=MISSING_MESSAGE), pytest.mark.xdist_group("spark")]


@pytest.fixture(scope="module")
def report(quick_sweep):
    """The quick sweep's report, written into the sweep directory with its executed notebook."""
    html, executed = quick_sweep.out / "report.html", quick_sweep.out / "report.ipynb"
    write_gap_report(quick_sweep.out, html, notebook=executed)
    return SimpleNamespace(html=html, executed=nbformat.read(executed, as_version=4), sweep=quick_sweep.out)


@pytest.fixture(scope="module")
def driver():
    """One headless Chromium session for the module: the system's chromium and chromedriver, nothing downloaded."""
    if MISSING:
        pytest.fail(
            f"{MISSING_MESSAGE} (CI=true: never skipped; .ci/run installs chromium and chromium-driver)", pytrace=False
        )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--window-size={WINDOW_WIDTH},1024",
        "--force-device-scale-factor=1",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    browser = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))
    try:
        browser.set_page_load_timeout(PAGE_LOAD_TIMEOUT)
        browser.set_script_timeout(SCRIPT_TIMEOUT)
        browser.execute_cdp_cmd("Network.enable", {})
        browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["http://*", "https://*"]})
        yield browser
    finally:
        browser.quit()


@pytest.fixture(scope="module")
def page(driver, report):
    """The report opened once; its console log and the addresses it asked the network for, read once."""
    driver.get(report.html.as_uri())
    console = driver.get_log("browser")
    requested = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            url = message["params"]["request"]["url"]
            if url.startswith(("http://", "https://")):
                requested.append(url)
    return SimpleNamespace(driver=driver, console=console, requested=requested, report=report)


def test_the_report_loads_without_a_console_error(page):
    """The page finishes loading, carries the report's title, and the browser logs no error (a request
    this test blocked is not the page's error, should the browser log it)."""
    driver = page.driver
    assert driver.execute_script("return document.readyState") == "complete"
    assert driver.title == f"Gap report: {page.report.sweep.name}"
    assert driver.find_element("css selector", "h1").text.startswith("Gap report")
    errors = [
        entry
        for entry in page.console
        if entry["level"] == "SEVERE"
        and not ("net::ERR_BLOCKED_BY_CLIENT" in entry["message"] and entry["message"].split(" ")[0] in page.requested)
    ]
    assert errors == []


def test_the_report_asks_the_network_for_nothing(page):
    """The report is one file, whole offline: no script, style or image is fetched (nbconvert's lab template
    would load require.js and MathJax from a CDN; the report's own template drops them), and the page
    carries no script at all."""
    assert page.requested == []
    assert page.driver.execute_script("return document.scripts.length") == 0


def test_every_figure_of_the_notebook_is_drawn(page):
    """As many figures as the executed notebook shows (its sections show one only when they have one), each
    an inline SVG of real size with its title as text, and every raster layer inside it decodes to an image."""
    outputs = [output for cell in page.report.executed.cells if cell.cell_type == "code" for output in cell.outputs]
    expected = sum(output.get("data", {}).get("text/html", "").count("assignment-oracle-figure") for output in outputs)
    assert expected > 0
    drawn = page.driver.execute_script(
        """
        return Array.from(document.querySelectorAll('figure.assignment-oracle-figure')).map(figure => {
            const svg = figure.querySelector('svg');
            const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
            return {title: figure.getAttribute('aria-label'), width: box.width, height: box.height,
                    marks: svg ? svg.querySelectorAll('path, use, image, rect').length : 0,
                    text: figure.textContent};
        });
        """
    )
    assert len(drawn) == expected
    for figure in drawn:
        assert figure["title"] and figure["title"] in figure["text"], figure["title"]
        assert figure["width"] > 200 and figure["height"] > 100, figure
        assert figure["marks"] > 10, figure["title"]
    # Raster layers (many-point scatters) and any <img>: each one decodes to a picture of real size.
    images = page.driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        const sources = [
            ...Array.from(document.querySelectorAll('svg image')).map(
                image => image.getAttribute('href') || image.getAttribute('xlink:href')),
            ...Array.from(document.querySelectorAll('img')).map(image => image.currentSrc || image.src),
        ];
        Promise.all(sources.map(source => {
            const image = new Image();
            image.src = source;
            return image.decode().then(() => image.naturalWidth, () => 0);
        })).then(done);
        """
    )
    assert images and all(width > 0 for width in images), images


def test_every_table_of_the_notebook_is_shown(page):
    """As many tables as the executed notebook displays, each with a header and at least one row, on screen."""
    outputs = [output for cell in page.report.executed.cells if cell.cell_type == "code" for output in cell.outputs]
    expected = sum(output.get("data", {}).get("text/html", "").count("<table") for output in outputs)
    assert expected > 0
    shown = page.driver.execute_script(
        """
        return Array.from(document.querySelectorAll('table')).map(table => ({
            headers: table.querySelectorAll('thead th').length,
            rows: table.querySelectorAll('tbody tr').length,
            width: table.getBoundingClientRect().width,
            height: table.getBoundingClientRect().height,
        }));
        """
    )
    assert len(shown) == expected
    for table in shown:
        assert table["headers"] > 0 and table["rows"] > 0 and table["width"] > 0 and table["height"] > 0, table


def test_the_first_screen_holds_the_verdict_table(page):
    """At 1280 px the whole verdict table -- what to configure per kind of group -- is in the first screen,
    every family of the sweep a row of it, each naming a setting (partition.assignment.strategy or
    group.protocol=consumer) and its protocol."""
    driver = page.driver
    driver.execute_script("window.scrollTo(0, 0)")
    box = driver.execute_script(
        """
        const table = document.getElementById('T_verdict');
        if (!table) return null;
        const r = table.getBoundingClientRect();
        return {top: r.top, bottom: r.bottom, screen: window.innerHeight,
                rows: Array.from(table.querySelectorAll('tbody tr')).map(tr => tr.innerText)};
        """
    )
    assert box is not None, "no verdict table (id T_verdict) in the report"
    assert 0 <= box["top"] and box["bottom"] <= box["screen"], box
    verdict = tables.verdict(tables.load(page.report.sweep))
    assert len(box["rows"]) == len(verdict) > 0
    for row in box["rows"]:
        assert "partition.assignment.strategy=" in row or "group.protocol=consumer" in row, row
        assert any(p in row for p in ("(eager", "(cooperative", "(KIP-848")), row


def test_every_panel_draws_at_most_eight_lines(page):
    """Every figure's panels (SVG axes) draw at most eight lines (the assignors' series; a figure with more is
    small multiples), and the line figures do draw some."""
    panels = page.driver.execute_script(
        """
        return Array.from(document.querySelectorAll('figure.assignment-oracle-figure')).map(figure => ({
            title: figure.getAttribute('aria-label'),
            lines: Array.from(figure.querySelectorAll('g[id^="axes_"]')).map(
                axes => axes.querySelectorAll('g[id^="series-"]').length),
        }));
        """
    )
    counts = [n for figure in panels for n in figure["lines"]]
    assert counts and max(counts) <= figures.MAX_LINES_PER_PANEL, panels
    drawn = {figure["title"] for figure in panels if sum(figure["lines"]) > 0}
    for figure_id in ("balance_gaps", "churn", "run_times"):
        assert figures.FIGURES[figure_id] in drawn


def test_shares_are_percent_everywhere(page):
    """Every cell of a table column headed as a share is a percentage (or a dash), never a fraction."""
    cells = page.driver.execute_script(
        """
        const found = [];
        for (const table of document.querySelectorAll('table')) {
            const heads = Array.from(table.querySelectorAll('thead th')).map(th => th.innerText.trim());
            for (const tr of table.querySelectorAll('tbody tr')) {
                Array.from(tr.children).forEach((td, i) => {
                    if ((heads[i] || '').startsWith('share ')) found.push(td.innerText.trim());
                });
            }
        }
        return found;
        """
    )
    assert cells and all(c.endswith("%") or c == "–" for c in cells), [c for c in cells if not c.endswith("%")][:5]


def test_a_section_with_nothing_to_show_is_left_out(quick_sweep, tmp_path):
    """A report on the uniform family alone (no previous owners, no racks, no churn, no weights, no stale
    claims) holds none of those sections, nor any 'nothing in this sweep' note or empty figure frame (its
    co-partitioning section stays: KIP-315's assignor is judged on every scenario)."""
    html = write_gap_report(quick_sweep.out, tmp_path / "uniform.html", families=["uniform"])
    text = html.read_text(encoding="utf-8")
    for heading in ("Rack gap:", "Stickiness gap:", "Churn:", "Weighted partitions:", "KIP-341: stale claims"):
        assert f">{heading}" not in text, heading  # the section's heading
    assert "in this sweep" not in text.replace("kind of group in this sweep", "")
    assert "What to configure" in text and "T_verdict" in text


def test_every_table_and_figure_fits_the_page_width(page):
    """At the test's window width nothing is cut off at the right edge: every table and every figure is
    no wider than the column the report's text runs in (a wide table would hide its last columns, the
    replay commands among them, behind a scroll bar)."""
    overflow = page.driver.execute_script(
        """
        return Array.from(document.querySelectorAll('table, figure.assignment-oracle-figure svg'))
            .map(element => {
                const column = element.closest('.jp-OutputArea-output') || document.body;
                return {what: element.tagName + ' ' + (element.querySelector('th')?.textContent ?? ''),
                        right: element.getBoundingClientRect().right,
                        page: column.getBoundingClientRect().right};
            })
            .filter(element => element.right > element.page + 1)
            .map(element => `${element.what} ends at ${Math.round(element.right)} px, its column at ${Math.round(element.page)} px`);
        """
    )
    assert overflow == []


def test_no_error_is_shown_to_the_reader(page):
    """No Python traceback in the page's text and no output box of a cell's standard error or exception
    (the failures table's exception messages, the peers' findings, are the report's content)."""
    text = page.driver.execute_script("return document.body.innerText")
    assert "Traceback" not in text
    stderr = page.driver.find_elements("css selector", '[data-mime-type="application/vnd.jupyter.stderr"]')
    assert [element.text for element in stderr] == []


def test_a_full_page_screenshot_is_kept_next_to_the_report(page):
    """The whole page (up to the height cap) is saved as report.png in the sweep directory, as tall as the page."""
    from selenium.webdriver.support.wait import WebDriverWait

    driver = page.driver
    height = min(
        driver.execute_script("return Math.max(document.body.scrollHeight, document.documentElement.scrollHeight)"),
        SCREENSHOT_MAX_HEIGHT,
    )
    # The window's own bars take some height: size the window so the viewport is the page.
    bars = driver.get_window_size()["height"] - driver.execute_script("return window.innerHeight")
    driver.set_window_size(WINDOW_WIDTH, height + bars)
    WebDriverWait(driver, 5).until(
        lambda browser: browser.execute_script("return window.innerHeight") >= height,
        message=f"the viewport did not grow to the page's {height} px",
    )
    viewport = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    screenshot = page.report.sweep / "report.png"
    assert driver.save_screenshot(str(screenshot))
    data = Path(screenshot).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    width, tall = struct.unpack(">II", data[16:24])  # the IHDR chunk: width, height
    assert [width, tall] == viewport
    assert tall >= height
