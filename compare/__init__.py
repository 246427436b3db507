"""Judging assignors against the optimum, by concern; each sub-package opens with what it owns.

``judge``
    metrics against the optimum, balance notions, each assignor's guarantee,
    the ``check`` verdict, running an assignor and judging it (``evaluate``),
    explanations.
``scenarios``
    what to judge on: seeded scenario families, public Hypothesis strategies,
    churn histories and their simulation, the historical bug corpus.
``sweep``
    many scenarios at once: sweep specs, one row per (scenario, assignor),
    the Spark job (extra ``spark``).
``report``
    a sweep's rows as tables and figures, and the notebooks run headless
    (extra ``report``).

The arrows point one way: ``judge`` ← ``scenarios`` ← ``sweep`` ← ``report``,
and nothing below ``compare`` (``problem``, ``optimal``, ``heuristics``)
imports it.  Library code only (no printing): the CLI, notebooks and other
tools compose these.
"""
