"""The calibration report of CTR predictions per group:
:func:`calibration_report`."""

import numpy as np

from .._metrics._calibration import (
    _STATISTICS,
    _check_binary,
    _check_groups,
    _field_rce,
    _grouped_statistics,
)
from .._utils._tables import table_output

__all__ = ["calibration_report"]


def _format_report(names, table, overall, field_rce, digits):
    """The text table: one row per group, then the overall row.  Its
    column headers and the footer's name are the keys of ``output_dict``
    and of ``per_group`` (one name per statistic everywhere)."""
    headers = ("group",) + _STATISTICS

    def cell(stat, value):
        if stat in ("impressions", "clicks") and float(value).is_integer():
            return f"{value:.0f}"
        return f"{value:.{digits}f}"

    rows = [
        [str(name)] + [cell(s, table[s][i]) for s in _STATISTICS]
        for i, name in enumerate(names)
    ]
    rows.append(["overall"] + [cell(s, overall[s]) for s in _STATISTICS])
    head = list(headers)
    widths = [max(len(r[j]) for r in rows + [head]) for j in range(len(head))]
    lines = [
        head[0].ljust(widths[0])
        + "".join(h.rjust(wd + 2) for h, wd in zip(head[1:], widths[1:], strict=True))
    ]
    for r in rows:
        if r[0] == "overall" and r is rows[-1]:
            lines.append("")
        lines.append(
            r[0].ljust(widths[0])
            + "".join(c.rjust(wd + 2) for c, wd in zip(r[1:], widths[1:], strict=True))
        )
    lines.append("")
    lines.append(f"field_rce: {field_rce:.{digits}f}")
    return "\n".join(lines) + "\n"


def calibration_report(
    y_true,
    y_prob=None,
    *,
    groups=None,
    sample_weight=None,
    output_dict=False,
    per_group=False,
    digits=4,
    label_col=None,
    score_col=None,
    weight_col=None,
    group_col=None,
):
    r"""Calibration of CTR predictions per value of a field, and overall.

    For each value of ``groups`` (a field such as the ad position, the
    country or the device) and for all rows together: impressions, clicks,
    observed CTR, mean prediction, calibration ratio, log loss, normalized
    entropy and ROC AUC; plus the field-level relative calibration error
    (Pan et al. [1]_).  Every statistic is computed for all groups at once
    (sums by group), without a loop over the groups.

    Read more in the :ref:`User Guide <calibration>`.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary outcomes (clicks), 0/1 or booleans.

    y_prob : array-like of shape (n_samples,)
        Predicted probabilities of a click, in [0, 1].

    groups : array-like of shape (n_samples,), default=None
        The field value of each row (ints or strings).  None puts every
        row in one group.

    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative row weights: impressions and clicks are weighted
        sums, and every mean is weighted.

    output_dict : bool, default=False
        Return a dict instead of the text table (see Returns).

    per_group : bool, default=False
        Return the per-group table: a :class:`pandas.DataFrame` with the
        field values in the column ``"group"`` (or a dict of arrays if
        pandas is not installed or with ``output_dict=True``).

    digits : int, default=4
        Digits of the text table.

    label_col, score_col, weight_col, group_col : str, default=None
        The data-frame form: pass a pandas, polars (eager or lazy) or
        pyarrow table as ``y_true``, no ``y_prob``, and name its columns
        of outcomes, predicted probabilities, row weights and field values
        (the keywords of :func:`ranking_report`).  The values are those of
        the arrays of the columns; a null cell is an error naming the
        column and the row.  See :ref:`frames`.

    Returns
    -------
    report : str, dict, DataFrame or dict of arrays
        The text table (one row per group, then ``overall``, then the
        field RCE) by default; with ``output_dict=True`` the dict
        ``{"overall": {statistic: value}, "groups": {field value:
        {statistic: value}}, "field_rce": value}``; with ``per_group=True``
        the per-group table.  Statistics: ``"impressions"``, ``"clicks"``,
        ``"ctr"``, ``"mean_prediction"``, ``"calibration_ratio"``,
        ``"log_loss"``, ``"normalized_entropy"``, ``"auc"``.

    See Also
    --------
    normalized_entropy : The overall normalized entropy.
    calibration_ratio : The overall calibration ratio.
    group_auc_score : AUC within each group, averaged.

    Notes
    -----
    With :math:`D_z` the rows of field value :math:`z`,
    :math:`N_z = \sum_{i \in D_z} w_i` its impressions,
    :math:`C_z = \sum_{i \in D_z} w_i y_i` its clicks and
    :math:`P_z = \sum_{i \in D_z} w_i p_i` its summed predictions, the
    field-level relative calibration error is

    .. math::

        \text{Field-RCE} = \frac{1}{\sum_{z : C_z > 0} N_z}
            \sum_{z : C_z > 0} N_z \frac{|C_z - P_z|}{C_z}.

    Rules for undefined values (nan in the table, no warning): a group
    without clicks has no calibration ratio and is left out of the
    field RCE (Pan et al. add a small constant to :math:`C_z` instead);
    a group whose clicks are all 0 or all 1 (a group with one impression,
    for instance) has no normalized entropy and no AUC; the field RCE is
    nan when no group has a click.  Without ``groups`` the field RCE is
    :math:`|C - P| / C` of all rows.

    References
    ----------
    .. [1] F. Pan, X. Ao, P. Tang, M. Lu, D. Liu, L. Xiao, Q. He,
       "Field-aware Calibration: A Simple and Empirically Strong Method for
       Reliable Probabilistic Predictions", The Web Conference (WWW) 2020,
       arXiv:1905.10713.

    Examples
    --------
    >>> from sklearn_rankmetrics import calibration_report
    >>> y_true = [1, 0, 0, 1, 0, 0]
    >>> y_prob = [0.5, 0.5, 0.2, 0.4, 0.2, 0.2]
    >>> report = calibration_report(
    ...     y_true, y_prob, groups=["a", "a", "a", "b", "b", "b"], output_dict=True
    ... )
    >>> report["groups"]["a"]["calibration_ratio"]
    1.2
    >>> report["groups"]["b"]["calibration_ratio"]
    0.8
    >>> round(report["field_rce"], 4)
    0.2
    """
    if y_prob is None or any(
        col is not None for col in (label_col, score_col, weight_col, group_col)
    ):
        arguments = dict(locals())  # the arguments given, for the array form
        from .._io._dataframe import frame_calibration  # a data frame by column name

        return frame_calibration(calibration_report, arguments)
    y, p, w = _check_binary(y_true, y_prob, sample_weight)
    if groups is None:
        codes, names = np.zeros(y.shape[0], dtype=np.intp), np.array(["all"])
    else:
        codes, names = _check_groups(groups, y.shape[0])
    if (
        isinstance(digits, bool)
        or not isinstance(digits, (int, np.integer))
        or digits < 0
    ):
        raise ValueError(f"digits must be an int >= 0; got {digits!r}.")
    n_groups = len(names)
    table, pred = _grouped_statistics(y, p, w, codes, n_groups)
    whole, _ = _grouped_statistics(y, p, w, np.zeros(y.shape[0], dtype=np.intp), 1)
    overall = {s: float(whole[s][0]) for s in _STATISTICS}
    field_rce = _field_rce(table["impressions"], table["clicks"], pred)
    if per_group:
        return table_output({"group": names, **table}, output_dict)
    if output_dict:
        keys = names.tolist()
        return {
            "overall": overall,
            "groups": {
                key: {s: float(table[s][i]) for s in _STATISTICS}
                for i, key in enumerate(keys)
            },
            "field_rce": field_rce,
        }
    return _format_report(names, table, overall, field_rce, digits)
