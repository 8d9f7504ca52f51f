"""Layer 4: the metrics.

Per-query kernels (``_kernels``) and the public ranking metric functions
over them (``_ranking``), the inverse-propensity helpers (``_ips``), GAUC
(``_auc``), the beyond-accuracy metrics (``_beyond``), the calibration
metrics (``_calibration``), propensity estimation and its diagnostics
(``_propensity``), and the decorator every public metric function wears
(``_base``).  Imports ``_utils``, ``_io`` and ``_engine``; the registry
(``sklearn_rankmetrics._registry``) sits above and reads these modules.
"""
