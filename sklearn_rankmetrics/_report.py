"""Every metric at every cut-off from one ranking: :func:`ranking_report`.

The scores are ranked once, at the largest cut-off, and each cut-off reads
that ranking (:meth:`~sklearn_rankmetrics._engine.Ranking.at`), so a report
of nine metrics at four cut-offs costs about one metric call.  The metrics
are those of the registry :data:`~sklearn_rankmetrics._registry.METRICS`
(a metric added there can be asked for here), and each value is
averaged by the same code as the metric function, so it is *equal* to it.
Metrics that read the whole list (R-precision, bpref) take a second ranking
without a cut-off, and ERR one with exponential gains, so they are not in
the default report.
"""

import numbers
import warnings
from typing import NamedTuple

import numpy as np

from ._auc import gauc_per_query
from ._engine import (
    average_queries,
    check_inputs,
    exact_threshold,
    query_weights,
    weighted_mean,
)
from ._ranking import items_per_query, rank_per_query
from ._registry import METRICS, metric_names
from ._validation import check_no_relevant, check_option, check_real

__all__ = ["ranking_report"]

_GAUC = "gauc"


def available_metrics():
    """Names ``ranking_report`` and ``compare_rankings`` accept, in order:
    every metric of the registry."""
    return list(METRICS)


def default_metrics(long_form):
    """The metrics of a report when ``metrics=None``.

    GAUC needs a full sort of every query's items: in the long form a
    second sort of the rows (the report then costs about 2.1 ndcg_at_k
    calls instead of 1.2), on a wide 2-D matrix 10 to 20 times the top-k
    selection the other metrics need.  So GAUC is in the default for the
    long form (CTR logs, where it is the usual metric) only;
    ``metrics=[..., "gauc"]`` adds it for 2-D input.
    """
    # the registry's default metrics: those read from the one ranking at
    # the largest cut-off
    names = metric_names(default=True)
    return [*names, _GAUC] if long_form else names


def _whole_list(metric):
    """Metrics without a cut-off: GAUC and the kernels of the whole list."""
    return not METRICS[metric].cutoff


class PerQueryReport(NamedTuple):
    """Per-query values of a report, and the weights that average them.

    ``np.average`` of ``values[name]`` over its non-nan entries with
    ``weights[name]`` (as ``sum(w * v) / w.sum()``) is the report's, and
    the metric function's, value of ``name``.
    """

    query_id: np.ndarray  # long form: np.unique(query_id); 2-D: 0..n-1
    values: dict  # scorer name -> float64 (n_queries,), nan = skipped
    weights: dict  # scorer name -> float64 (n_queries,) query weights


def _check_cutoffs(k):
    """``k`` as a tuple of distinct ints >= 1, in the order given."""
    ks = (k,) if isinstance(k, numbers.Integral) else k
    try:
        ks = list(ks)
    except TypeError:
        raise TypeError(
            f"k must be an int >= 1 or a list of them such as (1, 5, 10, 20); "
            f"got {k!r}."
        ) from None
    if not ks:
        raise ValueError("k is empty; pass at least one cut-off such as k=(10,).")
    out = []
    for kk in ks:
        if isinstance(kk, (bool, np.bool_)) or not isinstance(kk, numbers.Integral):
            raise TypeError(
                f"k must hold ints >= 1 (the cut-offs), got {kk!r} of type "
                f"{type(kk).__name__}; k=None (the whole list) is not "
                "supported in a report: pass the largest list length instead."
            )
        if kk < 1:
            raise ValueError(f"k must hold ints >= 1; got {kk}.")
        if int(kk) not in out:
            out.append(int(kk))
    return tuple(out)


def _check_metrics(metrics, long_form):
    if metrics is None:
        return default_metrics(long_form)
    if isinstance(metrics, str):
        metrics = [metrics]
    known = available_metrics()
    out = []
    for m in metrics:
        if not isinstance(m, str) or m not in known:
            raise ValueError(
                f"unknown metric {m!r} in metrics; choose among "
                f"{', '.join(map(repr, known))} (without '@k': the cut-offs "
                "come from k)."
            )
        if m not in out:
            out.append(m)
    if not out:
        raise ValueError("metrics is empty; pass at least one metric name.")
    return out


def _ranking_kind(requires):
    """The ranking a kernel reads: cut at max(k) (most metrics), the
    whole list, or exponential gains without a threshold (ERR)."""
    for kind in ("whole_list", "exponential_gain"):
        if kind in requires:
            return kind
    return "cut"


def scorer_name(metric, k):
    """``"ndcg@10"``; ``"gauc"``, ``"r_precision"`` and ``"bpref"`` have
    no cut-off."""
    return metric if _whole_list(metric) else f"{metric}@{k}"


def _check_kernel_options(beta, log_base, ap_denominator):
    return {
        "beta": check_real("beta", beta, low=0.0),
        "log_base": check_real("log_base", log_base, low=1.0),
        "ap_denominator": check_option(
            "ap_denominator", ap_denominator, ("relevant", "min_k")
        ),
    }


def _per_query_report(
    y_true,
    y_score,
    *,
    k,
    metrics,
    query_id,
    sample_weight,
    relevance_threshold=None,
    gain="linear",
    ignore_ties=False,
    no_relevant="skip",
    beta=1.0,
    log_base=2,
    ap_denominator="relevant",
    query_weighting="impressions",
):
    """Per-query values of every metric at every cut-off, from one ranking.

    Returns a :class:`PerQueryReport`: the query ids (long form: the order
    of ``np.unique(query_id)``; 2-D: the row numbers), and per scorer name
    (``"ndcg@10"``, ..., ``"gauc"``) the per-query values (nan where the
    query is skipped) and the query weights (ones without
    ``sample_weight``; for GAUC the weights :func:`group_auc_score` uses,
    e.g. the number of rows of each query).  The weighted mean of the
    non-nan values is the metric function's value, bit for bit.
    """
    if not isinstance(ignore_ties, (bool, np.bool_)):
        raise TypeError(f"ignore_ties must be True or False; got {ignore_ties!r}.")
    ks = _check_cutoffs(k)
    no_relevant = check_no_relevant(no_relevant)
    threshold = check_real(
        "relevance_threshold", relevance_threshold, low=0.0, allow_none=True
    )
    gain = check_option("gain", gain, ("linear", "exponential"))
    query_weighting = check_option(
        "query_weighting", query_weighting, ("impressions", "uniform")
    )
    kernel_options = _check_kernel_options(beta, log_base, ap_denominator)
    metrics = _check_metrics(metrics, query_id is not None)
    if query_id is None and _GAUC not in metrics:
        # 2-D, ranking metrics only: rank() validates; no second pass.
        form, Y, S, codes, ids, row_w = "2-D", y_true, y_score, None, None, None
        sample_w = sample_weight
    else:
        # Validate once; the ranking and GAUC then read the checked arrays.
        form, Y, S, codes, ids, row_w = check_inputs(
            y_true, y_score, query_id, sample_weight, row_weights=True
        )
        sample_w = row_w
    values, weights = {}, {}
    ranked = [m for m in metrics if METRICS[m].kernel is not None]
    if ranked:
        if form == "long" and row_w is not None:
            only_gauc = " Only GAUC (metrics=['gauc']) takes row weights."
            query_weights(row_w, codes, ids, hint=only_gauc)
        rank_args = dict(
            query_id=codes,  # 0..n_q-1: ranks the queries in the order of ids
            sample_weight=sample_w,
            ignore_ties=bool(ignore_ties),
        )
        n_items = None
        if any("n_items" in METRICS[m].kernel.requires for m in ranked):
            # one number for 2-D inputs: the kernels may read it on chunks
            n_items = items_per_query(S, codes) if form == "long" else None
            n_items = float(np.shape(S)[1]) if n_items is None else n_items
        # One ranking per kind of metric: cut at max(k) (all the default
        # metrics), the whole list, and exponential gains without a
        # threshold (ERR).
        kinds = {"cut": [], "whole_list": [], "exponential_gain": []}
        for m in ranked:
            kinds[_ranking_kind(METRICS[m].kernel.requires)].append(m)
        for kind, names in kinds.items():
            if not names:
                continue
            cutoffs = [None] if kind == "whole_list" else ks

            def per_query(rk, names=names, cutoffs=cutoffs):
                out = {}
                for kk in cutoffs:
                    at_k = rk if kk is None else rk.at(kk)
                    for m in names:
                        kernel = METRICS[m].kernel
                        # options this report does not know keep the
                        # kernel's default
                        opts = {
                            o: kernel_options[o]
                            for o in kernel.options
                            if o in kernel_options
                        }
                        if "n_items" in kernel.requires:
                            opts["n_items"] = n_items
                        name = scorer_name(m, kk)
                        out[name] = kernel.values(at_k, **opts)
                        out[name + " defined"] = getattr(at_k, kernel.defined_by) > 0
                return out

            # Large 2-D inputs are ranked in chunks of rows, as by the
            # metric functions (ERR scales by the largest grade of all
            # queries: one ranking).
            q = rank_per_query(
                Y,
                S,
                per_query,
                k=None if kind == "whole_list" else max(ks),
                chunks=kind != "exponential_gain",
                threshold=None if kind == "exponential_gain" else threshold,
                gain="exponential" if kind == "exponential_gain" else gain,
                need_ideal=any(METRICS[m].kernel.needs_ideal for m in names),
                **rank_args,
            )
            n_q = q["n_rel"].shape[0]
            w = np.ones(n_q) if q["weights"] is None else q["weights"]
            for kk in cutoffs:
                for m in names:
                    name = scorer_name(m, kk)
                    values[name] = average_queries(
                        q[name], q[name + " defined"], w, None, no_relevant, name
                    )
                    weights[name] = w
    if _GAUC in metrics:
        n_q = ids.shape[0] if form == "long" else S.shape[0]
        t = exact_threshold(threshold, Y.dtype)
        values[_GAUC], weights[_GAUC] = gauc_per_query(
            form, Y, S, codes, n_q, row_w, t, query_weighting
        )
    # Order the keys as the report prints them: metric by metric.
    order = [scorer_name(m, kk) for m in metrics for kk in ks]
    order = list(dict.fromkeys(order))
    query_ids = ids if form == "long" else np.arange(n_q)
    return PerQueryReport(
        query_ids,
        {n: values[n] for n in order},
        {n: weights[n] for n in order},
    )


def _means(per_query):
    """Scorer name -> mean; one warning naming every undefined metric."""
    out = {
        name: weighted_mean(v, per_query.weights[name])
        for name, v in per_query.values.items()
    }
    undefined = [name for name, v in out.items() if np.isnan(v)]
    if undefined:
        from sklearn.exceptions import UndefinedMetricWarning

        warnings.warn(
            f"{', '.join(undefined)}: no query could be scored (every query "
            "was skipped -- no relevant item, or for gauc a single class -- "
            "or had zero weight); reporting nan.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
    return out


def _as_table(per_query, output_dict):
    """Per-query values as a DataFrame (ids in column ``query_id``), or a
    dict of arrays without pandas or with ``output_dict``."""
    return table_output(
        {"query_id": per_query.query_id, **per_query.values}, output_dict
    )


def table_output(table, output_dict):
    """The dict of columns ``table`` as a DataFrame, or as it is without
    pandas or with ``output_dict``."""
    if output_dict:
        return table
    try:
        import pandas as pd
    except ImportError:
        return table
    return pd.DataFrame(table)


def _format(means, metrics, ks, digits, n_queries, n_scored):
    """The text table: one row per metric, one column per cut-off."""
    width = max(len(m) for m in metrics)
    col = max(digits + 4, max(len(f"@{kk}") for kk in ks) + 2)
    lines = [" " * width + "".join(f"@{kk}".rjust(col) for kk in ks)]
    for m in metrics:
        if _whole_list(m):
            cells = [f"{means[m]:.{digits}f}".rjust(col)]
            cells.append("  (whole list)")
        else:
            cells = [f"{means[scorer_name(m, kk)]:.{digits}f}".rjust(col) for kk in ks]
        lines.append(m.ljust(width) + "".join(cells))
    lines.append("")
    lines.append(f"{n_queries} queries, {n_scored} with a relevant item.")
    return "\n".join(lines) + "\n"


def ranking_report(
    y_true,
    y_score,
    *,
    k=(1, 5, 10, 20),
    metrics=None,
    query_id=None,
    relevance_threshold=None,
    gain="linear",
    ignore_ties=False,
    no_relevant="skip",
    sample_weight=None,
    output_dict=False,
    per_query=False,
    digits=4,
    beta=1.0,
    log_base=2,
    ap_denominator="relevant",
    query_weighting="impressions",
):
    """Report every ranking metric at every cut-off, from one ranking.

    The ranking counterpart of :func:`sklearn.metrics.classification_report`:
    the scores are ranked once, at the largest cut-off, and every metric at
    every cut-off is read from that ranking.  Each value equals what the
    metric function returns with the same options (for example
    ``ranking_report(..., output_dict=True)["ndcg@10"] ==
    ndcg_at_k(..., k=10)``).

    Read more in the :ref:`User Guide <reports>`.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_queries, n_items), or \
array-like of shape (n_rows,) with ``query_id``
        Relevance grades, non-negative; any input form of the metrics.

    y_score : array-like of shape (n_queries, n_items), or (n_rows,)
        Predicted scores, higher ranks first; ``-np.inf``: not retrieved.

    k : int or sequence of int >= 1, default=(1, 5, 10, 20)
        The cut-offs.

    metrics : sequence of str, default=None
        Metric names without ``@k``: ``"precision"``, ``"recall"``,
        ``"f1"``, ``"fbeta"``, ``"hit_rate"``, ``"mrr"``, ``"map"``,
        ``"dcg"``, ``"ndcg"`` (and any metric added to the package's kernel
        table) and ``"gauc"``.  None means all of them but ``"fbeta"``;
        ``"gauc"`` is included for the long form only, because on a wide
        2-D matrix its full sort of every row costs several times the rest
        of the report.

    query_id : array-like of shape (n_rows,), default=None
        Query of each row of the long form; None for 2-D input.

    relevance_threshold : float > 0 or None, default=None
        Binary metrics and GAUC: relevant when ``y_true >= threshold``.

    gain : {"linear", "exponential"}, default="linear"
        DCG and NDCG gain of a grade.

    ignore_ties : bool, default=False
        If False, tied scores give the exact expected value over the
        orderings of tied items; if True, position breaks ties.

    no_relevant : {"skip", "raise"} or float, default="skip"
        Queries without a relevant item: left out of every ranking metric
        alike, scored with the given number, or an error.  GAUC always
        skips queries with a single class.

    sample_weight : array-like of shape (n_queries,) or (n_rows,), \
default=None
        Query weights (long form: one per row, constant within a query;
        with ``metrics=["gauc"]`` only, row weights as in
        :func:`group_auc_score`).

    output_dict : bool, default=False
        Return a dict instead of the text table.

    per_query : bool, default=False
        Return one row per query instead of the means: a
        :class:`pandas.DataFrame` with the query ids in the column
        ``"query_id"`` (or a dict of arrays if pandas is not installed or
        ``output_dict=True``).  Rows come in the order of
        ``np.unique(query_id)`` for the long form (sorted ids, as with
        ``average=None``) and of the rows for 2-D input (ids 0..n-1);
        skipped queries are nan.

    digits : int, default=4
        Digits of the text table.

    beta, log_base, ap_denominator, query_weighting
        Options of :func:`fbeta_at_k`, :func:`dcg_at_k` and
        :func:`ndcg_at_k`, :func:`average_precision_at_k` and
        :func:`group_auc_score`.

    Returns
    -------
    report : str, dict, DataFrame
        Text table (metrics by cut-off), or a dict ``{"ndcg@10": float,
        ..., "gauc": float}``, or the per-query table.  A metric no query
        can be scored for is nan, with one
        :class:`~sklearn.exceptions.UndefinedMetricWarning` naming them.

    See Also
    --------
    compare_rankings : Several models, with confidence intervals and
        paired tests.
    MetricAtKDisplay : Plot of a metric against the cut-off.

    Examples
    --------
    >>> from sklearn_rankmetrics import ranking_report
    >>> y_true = [[0, 1, 0, 1], [1, 0, 0, 0]]
    >>> y_score = [[0.9, 0.8, 0.1, 0.7], [0.3, 0.9, 0.5, 0.1]]
    >>> print(ranking_report(y_true, y_score, k=(1, 3), metrics=["ndcg", "map"]))
              @1      @3
    ndcg  0.0000  0.5967
    map   0.0000  0.4583
    <BLANKLINE>
    2 queries, 2 with a relevant item.
    <BLANKLINE>
    >>> ranking_report(y_true, y_score, k=3, metrics=["mrr"], output_dict=True)
    {'mrr@3': 0.41666666666666663}
    >>> ranking_report(y_true, y_score, k=3, metrics=["mrr"], per_query=True,
    ...                output_dict=True)
    {'query_id': array([0, 1]), 'mrr@3': array([0.5       , 0.33333333])}
    """
    if not isinstance(digits, numbers.Integral) or digits < 0:
        raise ValueError(f"digits must be an int >= 0; got {digits!r}.")
    report = _per_query_report(
        y_true,
        y_score,
        k=k,
        metrics=metrics,
        query_id=query_id,
        sample_weight=sample_weight,
        relevance_threshold=relevance_threshold,
        gain=gain,
        ignore_ties=ignore_ties,
        no_relevant=no_relevant,
        beta=beta,
        log_base=log_base,
        ap_denominator=ap_denominator,
        query_weighting=query_weighting,
    )
    if per_query:
        return _as_table(report, output_dict)
    means = _means(report)
    if output_dict:
        return means
    ks = _check_cutoffs(k)
    names = list(dict.fromkeys(n.partition("@")[0] for n in report.values))
    ranked = [n for n in report.values if n != _GAUC]
    scored = report.values[ranked[0]] if ranked else report.values[_GAUC]
    n_scored = int(np.count_nonzero(~np.isnan(scored)))
    return _format(means, names, ks, digits, report.query_id.shape[0], n_scored)
