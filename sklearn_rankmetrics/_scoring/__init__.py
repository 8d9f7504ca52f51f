"""Layer 7: scikit-learn's side: scorers (``_scorer``: :func:`get_scorer`,
the ``exclude_seen`` scorers) and the learning-to-rank meta-estimator
(``_ltr``: :class:`QueryRanker`)."""
