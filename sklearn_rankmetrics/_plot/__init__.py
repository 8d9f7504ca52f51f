"""Layer 8: plots in scikit-learn's Display style, one Display per module.

A Display holds the computed values as attributes; ``from_predictions`` and
``from_estimator`` compute them and call ``plot``, which draws on a
matplotlib axes and stores ``line_``, ``ax_`` and ``figure_``.  matplotlib
is imported inside ``plot`` only.
"""
