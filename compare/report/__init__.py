"""A sweep's rows for people: tables, figures, and the notebooks run headless.

``tables`` (pandas summaries of a sweep's Parquet rows and of bug replays),
``figures`` (matplotlib, one color per assignor), ``notebooks`` (execute the
bundled notebooks and render them as HTML).  Needs the ``report`` extra.
"""
