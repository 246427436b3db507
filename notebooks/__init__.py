"""The project's notebooks, installed with it (``compare.report.notebooks.notebook_path``).

``gap_report.ipynb``: a sweep's results as figures (``assignment-oracle report``).
``bug_corpus.ipynb``: the historical bug corpus replayed, with the oracle's explanations.
"""
