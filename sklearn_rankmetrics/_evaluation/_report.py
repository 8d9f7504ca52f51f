"""Every metric at every cut-off from one ranking: :func:`ranking_report`.

The scores are ranked once, at the largest cut-off, and each cut-off reads
that ranking (:meth:`~sklearn_rankmetrics._engine._rank.Ranking.at`), so a report
of nine metrics at four cut-offs costs about one metric call.  The metrics
are those of the registry :data:`~sklearn_rankmetrics._registry.METRICS`
(a metric added there can be asked for here), and each value is
averaged by the same code as the metric function, so it is *equal* to it.
Each metric reads its function's options and ``convention=`` preset,
resolved as the function resolves them; metrics whose resolved options
give the same ranking share one (the whole list for R-precision and bpref,
exponential gains for ERR, one per tie rule, ...), so the metrics that need
another ranking than the default one are not in the default report.
"""

import numbers

import numpy as np

from .._metrics._propensity import diagnostics_from_totals
from .._utils._tables import table_output
from ._beyond_report import report_values, split_report_metrics
from ._coverage import evaluated_queries
from ._per_query import (
    DIAGNOSTICS_KEY,
    _check_cutoffs,
    _format,
    _means,
    _per_query_report,
    check_per_row_options,
    check_report_average,
)

__all__ = ["propensity_diagnostics", "ranking_report"]


def _as_table(per_query, output_dict):
    """Per-query values as a DataFrame (ids in column ``query_id``), or a
    dict of arrays without pandas or with ``output_dict``."""
    return table_output(
        {"query_id": per_query.query_id, **per_query.values}, output_dict
    )


def ranking_report(
    y_true,
    y_score=None,
    *,
    k=(1, 5, 10, 20),
    metrics=None,
    query_id=None,
    sample_weight=None,
    convention=None,
    output_dict=False,
    per_query=False,
    digits=4,
    propensity=None,
    min_propensity=None,
    self_normalized=None,
    item_weight=None,
    average="queries",
    groups=None,
    item_groups=None,
    confidence_level=None,
    n_bootstrap=1999,
    random_state=None,
    query_col=None,
    label_col=None,
    score_col=None,
    weight_col=None,
    propensity_col=None,
    item_weight_col=None,
    item_col=None,
    group_col=None,
    item_group_col=None,
    tie_break_col=None,
    tie_break_ascending=True,
    **options,
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
        Metric names without ``@k``: any name of the metric registry
        (``"precision"``, ``"recall"``, ``"f1"``, ``"fbeta"``,
        ``"hit_rate"``, ``"mrr"``, ``"map"``, ``"dcg"``, ``"ndcg"``,
        ``"r_precision"``, ``"fallout"``, ``"err"``, ``"rbp"``,
        ``"bpref"``, ``"success"``, ``"gauc"``, ...).  None means
        ``"precision"``, ``"recall"``, ``"f1"``, ``"hit_rate"``, ``"mrr"``,
        ``"map"``, ``"dcg"`` and ``"ndcg"``, and ``"gauc"`` for the long
        form only, because on a wide 2-D matrix its full sort of every row
        costs several times the rest of the report.

    query_id : array-like of shape (n_rows,), default=None
        Query of each row of the long form; None for 2-D input.

    sample_weight : array-like of shape (n_queries,) or (n_rows,), \
default=None
        Query weights (long form: one per row, constant within a query;
        with ``metrics=["gauc"]`` only, row weights as in
        :func:`group_auc_score`).

    convention : str or None, default=None
        A preset of options reproducing another library's numbers
        (``"trec_eval"``, ``"sklearn"``, ``"lightgbm"``, ...; see the
        presets page).  Each metric takes the preset's options as its
        function does with ``convention=``, including the preset's rules for
        that metric alone; options given explicitly win.

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

    propensity : array-like or sparse matrix of the shape of ``y_true``, \
default=None
        Probability in (0, 1] that each row's (long form) or cell's (2-D,
        sparse) relevance was observed; given, every metric is its
        inverse-propensity-scored (IPS) estimate, computed by its function
        with the same ``propensity`` (see :ref:`logged_feedback`).  Only
        the metrics whose function takes ``propensity=`` have an estimator
        (``"precision"``, ``"recall"``, ``"dcg"``, ...); asking for another
        raises a ``ValueError`` naming it, and ``metrics=None`` then means
        the default metrics that have one.  The values follow the rows: in
        the long form, in any order, one per row.  The footer of the text
        table (and the key ``"propensity_diagnostics"`` of ``output_dict``)
        then holds the figures of :func:`propensity_diagnostics`.

    min_propensity : float in (0, 1], default=None
        With ``propensity``: clip propensities below it, as the functions
        do.

    self_normalized : bool, default=None
        With ``propensity``: True picks the self-normalised (SNIPS)
        estimate, False the IPS sum, for the metrics that have both
        (``"dcg"``); the others have one estimator each (precision the IPS
        sum; recall, NDCG and GAUC a ratio) and take it whatever this
        option.  None: each function's default.

    average : {"queries", "micro"}, default="queries"
        "queries": each metric is the weighted mean of its per-query
        values.  "micro" (with ``propensity``): each estimator's pooled
        form, as ``metric(..., average="micro")`` -- the sum over queries
        of its numerators over the sum of its denominators, which orders
        models correctly where the per-query ratios may not (see
        :ref:`logged_feedback`).  The per-query table is the same under
        both.

    item_weight : array-like of the shape of ``y_true``, default=None
        Per-item weights (one per row or cell), passed with the rows to
        the metric functions that take ``item_weight=``; the same rules as
        ``propensity``.

    groups : array-like of shape (n_queries,) or (n_rows,), default=None
        A segment of queries (a user's country, device, activity level,
        ...): one label per query of the 2-D form, one per row of the long
        form (the same for every row of a query; a label that varies
        within a query is an error naming it).  The report then gives
        every metric for all queries ("overall", equal to the report
        without ``groups``) and for each segment (equal, bit for bit, to
        the report on the segment's rows alone), with coverage counters
        per segment.  See :ref:`segments`.

    item_groups : array-like of shape (n_items,) or (n_rows,), default=None
        A stratum of items (e.g. :func:`popularity_strata`: head, torso,
        tail): one label per item (column) of the 2-D form, per row of the
        long form.  Each stratum's row is the report with only the
        stratum's items counted as relevant (the ranking unchanged): its
        recall@k is the share of the query's relevant items of the
        stratum found in the top k; a query without one is undefined.

    confidence_level : float in (0, 1), default=None
        Add percentile bootstrap intervals (over the queries of each row of
        the report, weighted as its means) at this level, computed by
        :func:`compare_rankings`' bootstrap.  None: no intervals.  Given
        without ``groups`` or ``item_groups``, the overall row alone.

    n_bootstrap : int >= 1, default=1999
        Bootstrap resamples of the intervals.

    random_state : int, numpy Generator or RandomState, default=None
        Seed of the bootstrap.

    query_col, label_col, score_col, weight_col : str, default=None
        The data-frame form: pass a pandas, polars (eager or lazy, which is
        collected once) or pyarrow table as ``y_true``, no ``y_score``,
        and name its columns of query ids, grades, scores and query
        weights -- the keywords of :func:`sklearn_rankmetrics.dask.ranking_report`
        and :func:`sklearn_rankmetrics.spark.ranking_report`, so a Dask or
        a Spark DataFrame given here runs that engine's report.  The values
        are those of the arrays of those columns, bit for bit.  Text,
        categorical and integer ids are read as they are (``"007"`` is not
        ``"7"``); a null cell is an error naming the column and the row.
        See :ref:`frames`.

    propensity_col, item_weight_col, item_col : str, default=None
        Columns of ``propensity``, ``item_weight`` and of the item ids
        (``item_id`` of the beyond-accuracy metrics).

    group_col, item_group_col : str, default=None
        Columns of ``groups`` and ``item_groups``.

    tie_break_col : str, default=None
        A column identifying the rows of each query (e.g. the document
        id): each query's rows are sorted by it before ranking, so that a
        tie rule reading the row order (``ignore_ties=True``, the
        trec_eval preset, ...) gives the numbers of the Dask and Spark
        reports.  A value repeated within a query is an error.

    tie_break_ascending : bool, default=True
        Sort order of ``tie_break_col``.

    **options
        Options of the metric functions, each read by the metrics whose
        function takes it, with that function's default otherwise:
        ``relevance_threshold`` (binary metrics and GAUC: relevant when
        ``y_true >= threshold``), ``gain`` (DCG, NDCG), ``ties`` and
        ``ignore_ties`` (the tie rule; default: the exact expected value
        over the orderings of tied items), ``no_relevant`` (queries without
        a relevant item: ``"skip"``, ``"raise"`` or a number; GAUC always
        skips queries with a single class), ``precision_denominator``,
        ``beta``, ``ap_denominator``, ``log_base``, ``discount``,
        ``max_grade``, ``persistence``, ``rbp_gain``, ``judged``,
        ``query_weighting``, ``constant_scores``.  A name no metric function
        takes raises a ``TypeError``.  Metrics whose options give the same
        ranking share it; a tie rule or option that no shared ranking
        serves (``ties="pessimistic"``, ``"optimistic"``, ``"threshold"``,
        ``judged``) computes that metric by its function.  The
        beyond-accuracy metrics (``"catalog_coverage"``, ``"gini_index"``,
        ``"exposure_entropy"``, ``"average_popularity"``, ``"novelty"``,
        ``"intra_list_diversity"``, ``"serendipity"``) take the options of
        their functions (``item_popularity``, ``item_features``, ``metric``,
        ``normalization``, ``share``, and ``item_id``, ``n_items`` for the
        long form); they have no per-query value (``per_query=True``
        refuses them); see :ref:`beyond_accuracy`.

    Returns
    -------
    report : str, dict, DataFrame
        Text table (metrics by cut-off), or a dict ``{"ndcg@10": float,
        ..., "gauc": float}`` (with ``propensity``, and the key
        ``"propensity_diagnostics"``: the dict of
        :func:`propensity_diagnostics`), or the per-query table.  By segment
        (``groups``, ``item_groups`` or ``confidence_level`` given): per
        metric one line per segment and stratum, then the coverage
        counters; ``output_dict=True`` gives ``{"overall": {...},
        "groups": {label: {...}}, "item_groups": {label: {...}},
        "intervals": {...}, "coverage": {"overall": {...}, "groups":
        {label: {...}}}}``, each counter dict holding the
        :ref:`coverage counters <coverage_counters>` ``n_queries``,
        ``n_evaluated`` (in the means: with a relevant item),
        ``n_skipped``, ``n_empty`` (no item retrieved) and ``n_short@k``
        per cut-off (1 to ``k - 1`` items retrieved).  A metric no query
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

    By segment of queries, and from a data frame by column name:

    >>> report = ranking_report(y_true, y_score, k=3, metrics=["mrr"],
    ...                         groups=["web", "app"], output_dict=True)
    >>> report["groups"]
    {'app': {'mrr@3': 0.3333333333333333}, 'web': {'mrr@3': 0.5}}
    >>> import pandas as pd
    >>> df = pd.DataFrame({"user": ["b", "a", "a", "b"], "clicked": [1, 0, 1, 0],
    ...                    "score": [0.2, 0.9, 0.4, 0.8]})
    >>> ranking_report(df, query_col="user", label_col="clicked",
    ...                score_col="score", k=1, metrics=["mrr"], output_dict=True)
    {'mrr@1': 0.0}
    """
    columns = {
        "query_col": query_col,
        "label_col": label_col,
        "score_col": score_col,
        "weight_col": weight_col,
        "propensity_col": propensity_col,
        "item_weight_col": item_weight_col,
        "item_col": item_col,
        "group_col": group_col,
        "item_group_col": item_group_col,
        "tie_break_col": tie_break_col,
    }
    if y_score is None or any(col is not None for col in columns.values()):
        arguments = dict(locals())  # the arguments given, for the array form
        del arguments["columns"]
        from .._io._dataframe import frame_report  # a data frame by column name

        return frame_report(ranking_report, arguments, columns)
    per_row = _check_report_arguments(
        digits,
        propensity,
        item_weight,
        min_propensity,
        self_normalized,
        average,
        options,
        segments=(groups, item_groups, confidence_level),
    )
    if groups is not None or item_groups is not None or confidence_level is not None:
        from ._segments import segment_report  # a report by segment

        return segment_report(
            y_true,
            y_score,
            groups=groups,
            item_groups=item_groups,
            k=k,
            metrics=metrics,
            query_id=query_id,
            sample_weight=sample_weight,
            convention=convention,
            per_row=per_row,
            options=options,
            confidence_level=confidence_level,
            n_bootstrap=n_bootstrap,
            random_state=random_state,
            output_dict=output_dict,
            per_query=per_query,
            digits=digits,
        )
    return _report(
        y_true,
        y_score,
        k=k,
        metrics=metrics,
        query_id=query_id,
        sample_weight=sample_weight,
        convention=convention,
        average=average,
        per_row=per_row,
        options=options,
        output_dict=output_dict,
        per_query=per_query,
        digits=digits,
    )


def _report(
    y_true,
    y_score,
    *,
    k,
    metrics,
    query_id,
    sample_weight,
    convention,
    average,
    per_row,
    options,
    output_dict,
    per_query,
    digits,
):
    """:func:`ranking_report` without segments, on arrays: the means (or
    the per-query table) of the ranking metrics, from the report engine, and
    of the beyond-accuracy metrics, from their sums; as a dict or a text."""
    metrics, beyond = split_report_metrics(metrics)
    beyond_values = None
    if beyond:  # takes its options out of ``options``
        beyond_values = _beyond_values(
            y_true,
            y_score,
            k,
            metrics,
            beyond,
            per_row,
            query_id=query_id,
            per_query=per_query,
            sample_weight=sample_weight,
            convention=convention,
            options=options,
        )
        if not metrics:
            beyond_means, n_users, n_rel = beyond_values
            if output_dict:
                return beyond_means
            return _format(
                beyond_means, beyond, _check_cutoffs(k), digits, n_users, n_rel
            )
    report = _per_query_report(
        y_true,
        y_score,
        k=k,
        metrics=metrics,
        query_id=query_id,
        sample_weight=sample_weight,
        convention=convention,
        average=average,
        **per_row,
        **options,
    )
    if per_query:
        return _as_table(report, output_dict)
    means = _means(report)
    if beyond:
        means.update(beyond_values[0])
    diagnostics = None
    if report.propensity is not None:
        diagnostics = diagnostics_from_totals(*report.propensity)
    if output_dict:
        if diagnostics is not None:
            means[DIAGNOSTICS_KEY] = diagnostics
        return means
    return _report_text(report, means, beyond, k, digits, diagnostics)


def _check_report_arguments(
    digits,
    propensity,
    item_weight,
    min_propensity,
    self_normalized,
    average,
    options,
    segments,
):
    """The per-row arrays given (by argument name), after the checks of the
    arguments :func:`ranking_report` reads itself; ``min_propensity`` and
    ``self_normalized``, when given, join ``options`` (modified).
    ``segments``: ``(groups, item_groups, confidence_level)``."""
    if not isinstance(digits, numbers.Integral) or digits < 0:
        raise ValueError(f"digits must be an int >= 0; got {digits!r}.")
    per_row = {
        name: array
        for name, array in (("propensity", propensity), ("item_weight", item_weight))
        if array is not None
    }
    options.update(
        (name, value)
        for name, value in (
            ("min_propensity", min_propensity),
            ("self_normalized", self_normalized),
        )
        if value is not None
    )
    check_per_row_options(
        {**options, "average": check_report_average(average)}, per_row
    )
    if average != "queries" and any(x is not None for x in segments):
        raise ValueError(
            "ranking_report by segment averages over queries; average="
            f"{average!r} is not supported with groups=, item_groups= or "
            "confidence_level=."
        )
    return per_row


def _beyond_values(
    y_true,
    y_score,
    k,
    metrics,
    beyond,
    per_row,
    *,
    query_id,
    per_query,
    sample_weight,
    convention,
    options,
):
    """``(means, n_users, n_relevant)`` of the beyond-accuracy metrics
    ``beyond`` (:func:`report_values`, which takes their options out of
    ``options``); an error with a per-row array, which they have no
    estimator for."""
    if per_row:
        raise ValueError(
            f"{', '.join(map(repr, beyond))}: the beyond-accuracy metrics have "
            f"no {' or '.join(per_row)}= estimator; leave them out of metrics."
        )
    return report_values(
        y_true,
        y_score,
        _check_cutoffs(k),
        beyond,
        query_id=query_id,
        per_query=per_query,
        sample_weight=sample_weight,
        convention=convention,
        options=options,
        alone=not metrics,
    )


def _report_text(report, means, beyond, k, digits, diagnostics):
    """The text table of a report: its metrics (the beyond-accuracy metrics
    last) by cut-off, and the footer of the queries (and, with
    ``propensity=``, of the diagnostics)."""
    ks = _check_cutoffs(k)
    names = list(dict.fromkeys(n.partition("@")[0] for n in report.values))
    names += beyond
    n_scored = int(np.count_nonzero(evaluated_queries(report)))
    if diagnostics is not None:
        n_scored = diagnostics["n_queries"] - int(report.propensity[0][1])
    n_queries = report.query_id.shape[0]
    return _format(means, names, ks, digits, n_queries, n_scored, diagnostics)


def propensity_diagnostics(
    y_true,
    y_score,
    *,
    propensity,
    k=(1, 5, 10, 20),
    metrics=None,
    query_id=None,
    sample_weight=None,
    min_propensity=None,
    **options,
):
    r"""Diagnostics of inverse-propensity (IPS) estimates on a log.

    The figures that say whether the IPS estimates of a report can be
    trusted: how much the weights :math:`1/p` concentrate the estimate on
    a few items, how many queries the ratio estimators skip, how many
    weights ``min_propensity`` clipped, and how often a per-query estimate
    of a metric bounded by 1 came out above 1.  ``ranking_report(...,
    propensity=p)`` prints the same figures under its table and returns
    them under the key ``"propensity_diagnostics"`` of ``output_dict``.

    Read more in the :ref:`User Guide <logged_feedback>`.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_queries, n_items) or (n_rows,)
        Observed relevance (0 where not observed as relevant); 1-D: the rows
        of the long form, with ``query_id``.

    y_score : array-like of shape (n_queries, n_items), or (n_rows,)
        Scores of the ranking whose estimates are diagnosed.

    propensity : array-like of the shape of ``y_true``, or (n_items,) for 2-D
        Probability in (0, 1] that each cell's (row's) relevance was
        observed.

    k, metrics, query_id, sample_weight
        As in :func:`ranking_report`: the estimates whose share above 1
        is reported (None: the report's default metrics that have an
        estimator).

    min_propensity : float in (0, 1], default=None
        The clip of the estimates: a propensity below it counts as clipped.

    **options
        The other options of :func:`ranking_report` (``self_normalized``,
        ``relevance_threshold``, ``convention``, ``average``, ...).

    Returns
    -------
    diagnostics : dict
        ``"n_queries"``; ``"n_observed"``, the observed relevant items
        (``y_true > 0``, or ``>= relevance_threshold``);
        ``"effective_sample_size"``, Kish's :math:`(\sum_i w_i)^2 / \sum_i
        w_i^2` of their weights :math:`w_i = 1/p_i` (clipped), and
        ``"effective_sample_share"``, that size over ``n_observed`` (1 when
        every weight is equal, small when a few weights dominate);
        ``"max_weight"``; ``"skipped_share"``, the share of queries without
        an observed relevant item (the ratio estimators skip them, the sum
        estimators score them 0); ``"clipped_share"``, the share of the
        weights ``min_propensity`` clipped; ``"above_one"``, per scorer
        name of a metric whose full-information value lies in [0, 1], the
        share of its defined per-query estimates above 1.

    See Also
    --------
    ranking_report : The estimates themselves, with these figures.

    Notes
    -----
    The effective sample size counts the observed relevant items as if
    unweighted: the weights' variance costs as much as losing
    :math:`n - ESS` of them.  A per-query estimate above 1 (NDCG, precision,
    GAUC) is not an error of the estimator -- its expectation is right --
    but many of them mean that single items with large weights drive the
    per-query values; the pooled form (``average="micro"``) then orders
    models more reliably (see :ref:`logged_feedback`).  The sample weights
    of the queries do not enter these figures.

    Examples
    --------
    >>> from sklearn_rankmetrics import propensity_diagnostics
    >>> y_true = [[1, 0, 1, 0], [0, 0, 0, 0], [0, 1, 0, 0]]
    >>> y_score = [[0.9, 0.5, 0.1, 0.3], [0.3, 0.2, 0.1, 0.4], [0.2, 0.9, 0.1, 0.4]]
    >>> p = [[0.5, 1, 0.1, 1], [1, 1, 1, 1], [1, 0.25, 1, 1]]
    >>> d = propensity_diagnostics(y_true, y_score, propensity=p, k=2,
    ...                            metrics=["ndcg"])
    >>> d["n_observed"], round(d["effective_sample_size"], 3), d["max_weight"]
    (3, 2.133, 10.0)
    >>> round(d["skipped_share"], 3), d["above_one"]
    (0.333, {'ndcg@2': 1.0})

    The weights are 2, 10 and 4: :math:`16^2 / (4 + 100 + 16) = 2.13`
    effective items of 3.  The second query has no observed relevant item;
    the two others' NDCG@2 estimates are above 1 (the first, for one:
    :math:`2 / 1` over the ideal DCG@2 of :math:`2 + 10` estimated relevant
    items, :math:`1 + 1/\log_2 3`).
    """

    report = ranking_report(
        y_true,
        y_score,
        k=k,
        metrics=metrics,
        query_id=query_id,
        sample_weight=sample_weight,
        propensity=propensity,
        min_propensity=min_propensity,
        output_dict=True,
        **options,
    )
    return report["propensity_diagnostics"]
