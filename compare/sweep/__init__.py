"""Many scenarios at once, on Spark.

``spec`` (the validated sweep spec; bundled specs in ``specs/``), ``rows``
(one row per scenario and assignor, the unit a worker computes; no Spark),
``job`` (the Spark job: chunks, Parquet output, resume, counterexamples;
needs the ``spark`` extra).
"""
