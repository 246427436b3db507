"""What the assignors are judged on.

``families`` (seeded scenario generators: uniform, random subsets, skewed
sizes, Zipf, KIP-49's rolling update, stream joins, racks), ``strategies``
(the same families and adversarial rebalances as public Hypothesis
strategies), ``churn`` (histories of joins, leaves, subscription changes,
zombies and bounces, played round by round against the optimum), ``bugs``
(the historical bug corpus, replayable).
"""
