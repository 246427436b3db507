"""A section of the gap report, shown only when it has something to show.

Guarantee: :func:`section` displays its heading, its text and its content together, or nothing at all: a
sweep without churn histories, racks or counterexamples gives a report without those sections, not empty
figure frames or "nothing here" notes.  The notebooks call it; the analysis stays in
:mod:`compare.report.tables` and the drawing in :mod:`compare.report.figures`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["section"]


def section(heading: str, text: str, *shown: Any, when: bool = True) -> bool:
    """Display ``heading`` (markdown, e.g. ``## Churn``), ``text`` (markdown) and each of ``shown`` -- a table
    (a pandas ``Styler`` or ``DataFrame``), a figure (drawn by :func:`compare.report.figures.show`), or
    markdown text -- when ``when`` holds and ``shown`` has something; return whether it was shown."""
    from IPython.display import Markdown, display
    from matplotlib.figure import Figure

    from assignment_oracle.compare.report import figures

    items = [item for item in shown if item is not None]
    if not when or not items:
        return False
    display(Markdown(f"{heading}\n\n{text}" if text else heading))
    for item in items:
        if isinstance(item, Figure):
            figures.show(item)
        elif isinstance(item, str):
            display(Markdown(item))
        else:
            display(item)
    return True
