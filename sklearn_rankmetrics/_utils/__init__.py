"""Layer 1, the bottom: what every other layer may use.

Input validation (``_validation``), the one mean over queries and its
weighted and pooled variants (``_averaging``), table output (``_tables``),
the package's configuration (``_config``), the convention presets
(``_conventions``), docstring templates (``_docstrings``) and the adapter
to scikit-learn's private scorer API (``_sklearn_compat``).  Nothing here
imports another layer of the package (see ``doc/developers.rst``).
"""
