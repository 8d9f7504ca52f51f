"""Evaluation protocols inside scikit-learn's model selection.

Leakage-safe splitters of interaction logs (:class:`GlobalTemporalSplit`,
:class:`TimeRangeSplit`, :class:`LeaveLastNOut`, :class:`PerUserHoldout`),
strong generalisation for recommenders (:class:`UserKFold`,
:class:`DecompositionRecommender`, and the scorers' ``exclude_seen=True``)
and corrected sampled metrics (:func:`sampled_metrics`).

Read more in the :ref:`User Guide <evaluation_protocol>`.
"""

from ._sampled import sampled_metrics
from ._split import GlobalTemporalSplit, LeaveLastNOut, PerUserHoldout, TimeRangeSplit
from ._strong import DecompositionRecommender, UserKFold

__all__ = [
    "DecompositionRecommender",
    "GlobalTemporalSplit",
    "LeaveLastNOut",
    "PerUserHoldout",
    "TimeRangeSplit",
    "UserKFold",
    "sampled_metrics",
]
