"""Layer 6: the evaluation surfaces built on the registry.

The report (``_per_query``: every metric at every cut-off from one
ranking; ``_report``: :func:`ranking_report`), the mergeable states
(``_state``), the comparison of rankers (``_compare``), reports by segment
(``_segments``), the factor-model report (``_factor``, its blocks in
``_tiling``), recommendation tables (``_rectable``), the beyond-accuracy
report plumbing (``_beyond_report``), the calibration report
(``_calibration_report``) and the per-partition work of the Dask and Spark
integrations (``_partitions``).
"""
