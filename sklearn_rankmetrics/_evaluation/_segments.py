"""Reports by segment: ``ranking_report(..., groups=, item_groups=)``.

A segment is a set of *queries* (``groups``: one value per query -- per row
of the 2-D form, per row of the long form and constant within a query),
such as the user's country or device; a stratum is a set of *items*
(``item_groups``: one value per item -- per column of the 2-D form, per
row of the long form), such as the items' popularity tier
(:func:`popularity_strata`).

- A segment's value of a metric is the report on the segment's rows alone.
  The report ranks every query once; a segment's mean is the weighted mean
  of its queries' values, in the same order, so it is equal bit for bit to
  a report on those rows.  Two metrics are recomputed on each segment's
  rows instead: ERR without ``max_grade`` (grades scaled by the largest
  grade of the queries evaluated together) and GAUC with row weights.
- A stratum's value is the report with only the stratum's items counted as
  relevant: ``y_true`` is set to 0 outside the stratum, the ranking is
  unchanged (items of other strata still take ranks).  Recall@k of the
  stratum is then the share of the query's relevant items *of the stratum*
  found in the top k, its NDCG@k the DCG of those items over the ideal DCG
  of those items; a query without a relevant item of the stratum is
  undefined for it (skipped by ``no_relevant="skip"``).
- Intervals are percentile bootstrap intervals over the queries of each
  row, by :func:`~sklearn_rankmetrics._evaluation._compare._bootstrap_means` (that of
  :func:`compare_rankings`), weighted as the report's means are.
- Coverage counters per segment (:mod:`._coverage`): queries, queries
  evaluated (counted in the ranking metrics' means: with a relevant item
  under ``no_relevant="skip"``), queries skipped, and queries whose list is
  empty (no item retrieved: every score ``-inf``) or short (fewer items
  retrieved than a cut-off).
"""

import numbers
import textwrap
import warnings
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from .._io._dataframe import EncodedIds
from .._registry import METRICS
from .._utils._averaging import weighted_mean
from .._utils._tables import table_output
from .._utils._validation import (
    _as_array,
    _key,
    _query_groups,
    check_inputs,
    check_query_id,
    issparse,
    undefined_metric_warning,
    user_stacklevel,
)
from ._beyond_report import split_report_metrics
from ._coverage import (
    coverage_counters,
    coverage_lines,
    coverage_notes,
    evaluated_queries,
    retrieved_per_query,
)
from ._per_query import (
    _check_cutoffs,
    _means,
    _per_query_report,
    _whole_list,
    resolved_option,
    scorer_name,
)

__all__ = ["popularity_strata"]

_STRATA = ("head", "torso", "tail")


# ---------------------------------------------------------------------------
# Popularity strata
# ---------------------------------------------------------------------------
def popularity_strata(item_popularity, *, head=0.2, tail=0.2):
    """Label items head, torso or tail by their popularity in training.

    The head is the most popular items that together hold the first
    ``head`` share of the interactions, the tail the least popular items
    that together hold the last ``tail`` share, the torso the rest
    (Abdollahpouri et al. [1]_ use 20 % and 20 %).  Precisely, with
    :math:`p_i` the popularity of item :math:`i` and :math:`P = \\sum_j p_j`:
    item :math:`i` is *head* if :math:`\\sum_{j: p_j > p_i} p_j < h P`
    (the items more popular than it hold less than the head share, so the
    item that crosses the line is head), otherwise *tail* if
    :math:`\\sum_{j: p_j \\le p_i} p_j \\le t P`, otherwise *torso*.
    Items of equal popularity always share a stratum, and items never seen
    in training (popularity 0) are tail.

    Pass the labels as ``item_groups=`` of :func:`ranking_report` to get
    every metric per stratum (only the stratum's items counted as
    relevant).

    Read more in the :ref:`User Guide <segments>`.

    Parameters
    ----------
    item_popularity : array-like of shape (n_items,) or dict
        Interactions (or users) per item in the training data, >= 0: an
        array (one per column of the 2-D form) or a mapping ``{item id:
        popularity}`` (e.g. ``train["item"].value_counts().to_dict()``).

    head : float in [0, 1], default=0.2
        Share of the interactions held by the head.

    tail : float in [0, 1], default=0.2
        Share of the interactions held by the tail; ``head + tail <= 1``.

    Returns
    -------
    strata : ndarray of str of shape (n_items,), or dict
        ``"head"``, ``"torso"`` or ``"tail"`` per item (a dict ``{item id:
        label}`` for a mapping).

    References
    ----------
    .. [1] H. Abdollahpouri, M. Mansoury, R. Burke, B. Mobasher, "The
       Unfairness of Popularity Bias in Recommendation", RMSE workshop at
       RecSys 2019, arXiv:1907.13286.

    Examples
    --------
    >>> from sklearn_rankmetrics import popularity_strata
    >>> popularity_strata([50, 20, 10, 10, 5, 3, 2, 0])
    array(['head', 'torso', 'torso', 'torso', 'tail', 'tail', 'tail', 'tail'],
          dtype='<U5')

    Of the 100 interactions the first item alone holds 50, past the head's
    20; the items at most as popular as the fifth hold 5 + 3 + 2 = 10 <= 20
    (tail), those at most as popular as the third 10 + 10 + 10 = 30 > 20
    (torso).  A mapping gives a mapping:

    >>> popularity_strata({"a": 50, "b": 20, "c": 10, "d": 10, "e": 5})
    {'a': 'head', 'b': 'torso', 'c': 'torso', 'd': 'torso', 'e': 'tail'}
    """
    for name, share in (("head", head), ("tail", tail)):
        if (
            isinstance(share, (bool, np.bool_))
            or not isinstance(share, numbers.Real)
            or not 0 <= share <= 1
        ):
            raise ValueError(f"{name} must be a share in [0, 1]; got {share!r}.")
    if head + tail > 1:
        raise ValueError(
            f"head + tail must be at most 1 (shares of the interactions); got "
            f"{head} + {tail}."
        )
    keys = None
    if isinstance(item_popularity, Mapping):
        keys = list(item_popularity)
        item_popularity = list(item_popularity.values())
    p = _as_array("item_popularity", item_popularity)
    if p.ndim != 1 or p.dtype.kind not in "biuf":
        raise ValueError(
            "item_popularity must be a 1-D array of numbers (one per item) or a "
            f"dict {{item: popularity}}; got shape {p.shape} and dtype {p.dtype}."
        )
    p = p.astype(np.float64)
    if not np.isfinite(p).all() or (p < 0).any():
        raise ValueError("item_popularity must hold finite numbers >= 0.")
    total = p.sum()
    # sums over the items more popular than each item, and at most as
    # popular: sorted once, ties grouped
    values, inverse = np.unique(p, return_inverse=True)
    per_value = np.bincount(inverse.reshape(-1), weights=p, minlength=values.shape[0])
    at_most = np.cumsum(per_value)  # sum over p_j <= value
    above = total - at_most  # sum over p_j > value
    inverse = inverse.reshape(-1)
    labels = np.full(p.shape[0], "torso", dtype="<U5")
    is_head = above[inverse] < head * total
    is_tail = ~is_head & (at_most[inverse] <= tail * total)
    labels[is_head] = "head"
    labels[is_tail] = "tail"
    if keys is not None:
        return dict(zip(keys, labels.tolist(), strict=True))
    return labels


# ---------------------------------------------------------------------------
# Reports by segment
# ---------------------------------------------------------------------------
def _factorize(name, values, n, what):
    """``(codes, labels)`` of a segment argument with ``n`` entries."""

    if isinstance(values, EncodedIds):  # a frame's column, numbered
        return values.codes, values.uniques
    if issparse(values):
        raise TypeError(f"{name} must be a 1-D array of labels, not sparse.")
    arr = _as_array(name, values)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(
            f"{name} must have one label per {what} ({n}); got shape {arr.shape}."
        )
    try:
        return check_query_id(arr, n)
    except (TypeError, ValueError) as exc:
        message = str(exc).replace("query_id", name).replace("query id", "label")
        raise type(exc)(message) from None


def _rows_of(mask_rows, y_true, y_score, query_id, sample_weight, per_row):
    """The arguments of a report on the rows ``mask_rows`` (2-D: query
    rows)."""
    take = np.flatnonzero(mask_rows)

    def sub(x):
        if x is None:
            return None
        if issparse(x):
            return x[take]
        return np.asarray(x)[take]

    return (
        sub(y_true),
        sub(y_score),
        None if query_id is None else sub(query_id),
        sub(sample_weight),
        {n: sub(v) for n, v in per_row.items()},
    )


def _restrict(y_true, item_mask, form):
    """``y_true`` with the grades outside ``item_mask`` set to 0 (2-D:
    ``item_mask`` per column; long form: per row)."""
    if issparse(y_true):
        import scipy.sparse as sp

        kept = sp.csr_matrix(y_true).multiply(item_mask[None, :].astype(np.int8))
        return sp.csr_matrix(kept, dtype=y_true.dtype)
    Y = np.asarray(_as_array("y_true", y_true))
    mask = item_mask if form == "long" else item_mask[None, :]
    return np.where(mask, Y, np.zeros((), dtype=Y.dtype))


def _recomputed(metrics, options, convention, weighted):
    """Metrics whose per-query values depend on the other queries of the
    report, recomputed on each segment's rows: ERR without ``max_grade``
    (grades scaled by the largest of all), and GAUC with row weights (its
    per-query values computed with other queries equal those of the
    segment's rows alone to rounding only, ~1e-15)."""

    opts = dict(options)
    if convention is not None:
        opts["convention"] = convention
    return [
        m
        for m in metrics
        if (
            "exponential_gain" in METRICS[m].requires
            and resolved_option(m, "max_grade", opts) is None
        )
        or (weighted and METRICS[m].kernel is None)
    ]


def _intervals(values, weights, confidence_level, n_bootstrap, seed):
    """Bootstrap intervals of the weighted means of each name's values
    (nan: skipped query): ``{name: (low, high)}``, nan with fewer than two
    scored queries."""
    # (the comparison's module, with scipy.stats, loads with the first interval)
    from ._compare import _bootstrap_means

    names = list(values)
    V = np.column_stack([values[n] for n in names])
    W = np.column_stack([weights[n] for n in names])
    valid = ~np.isnan(V)
    out = dict.fromkeys(names, (np.nan, np.nan))
    groups = {}
    for j in range(len(names)):  # names sharing the skipped queries
        groups.setdefault(valid[:, j].tobytes(), []).append(j)
    for cols in groups.values():
        rows = valid[:, cols[0]]
        if rows.sum() < 2:
            continue
        v, w = V[rows][:, cols], W[rows][:, cols]
        uniform = bool((w == w[:1]).all())
        low, high = _bootstrap_means(
            v, confidence_level, n_bootstrap, seed, W=None if uniform else w
        )
        for i, j in enumerate(cols):
            out[names[j]] = (float(low[i]), float(high[i]))
    return out


def segment_report(
    y_true,
    y_score,
    *,
    groups,
    item_groups,
    k,
    metrics,
    query_id,
    sample_weight,
    convention,
    per_row,
    options,
    confidence_level,
    n_bootstrap,
    random_state,
    output_dict,
    per_query,
    digits,
    names=("groups", "item_groups"),
):
    """:func:`ranking_report` by segment of queries and stratum of items.

    ``names``: how to call ``groups`` and ``item_groups`` in messages (the
    frame form's column names).  The parts: the checks
    (:func:`_check_segment_call`), the report of every query, the rows of
    the report (:func:`_segment_rows`), their per-query values
    (:func:`_segment_values`, :func:`_stratum_values`), their means and
    intervals (:func:`_summaries`) and the counters (:func:`_coverage`).
    """
    metrics, ks, seed = _check_segment_call(
        metrics, k, confidence_level, n_bootstrap, random_state
    )
    form, _, S, q_codes, ids, _ = check_inputs(y_true, y_score, query_id, None)
    call = _SegmentCall(
        y_true,
        y_score,
        query_id,
        sample_weight,
        per_row,
        form,
        q_codes,
        dict(
            k=k,
            metrics=metrics,
            sample_weight=sample_weight,
            convention=convention,
            **per_row,
            **options,
        ),
    )
    overall = _per_query_report(y_true, y_score, query_id=query_id, **call.report_args)
    n_queries = ids.shape[0] if call.long_form else S.shape[0]
    rows, segment_of_query, labels = _segment_rows(
        groups, names[0], call, S.shape[0], n_queries, ids
    )
    if per_query:
        if item_groups is not None:
            raise ValueError(
                f"per_query=True gives one row per query; {names[1]} splits "
                "every query by item stratum. Drop one of them."
            )
        table = {"query_id": overall.query_id}
        if segment_of_query is not None:
            table["group"] = labels[segment_of_query]
        table.update(overall.values)
        return table_output(table, output_dict)
    recompute = _recomputed(
        _metric_names(overall.values), options, convention, sample_weight is not None
    )
    results = _segment_values(rows, overall, recompute, call)
    if item_groups is not None:
        n_items = S.shape[0] if call.long_form else S.shape[1]
        results += _stratum_values(item_groups, names[1], n_items, call)
    table = _summaries(results, overall, confidence_level, n_bootstrap, seed)
    score_names = list(overall.values)
    _warn_undefined(table, score_names)
    coverage = _coverage(S, q_codes, n_queries, ks, rows, overall)
    if output_dict:
        return _as_dict(table, coverage)
    return _format(
        table,
        coverage,
        _metric_names(score_names),
        ks,
        digits,
        confidence_level,
        names,
    )


class _SegmentCall(NamedTuple):
    """The inputs of a report by segment, as given, and what its parts read
    of them."""

    y_true: object
    y_score: object
    query_id: object
    sample_weight: object
    per_row: dict  # "propensity" / "item_weight" -> the array given
    form: str  # "long", "dense" or "sparse" (check_inputs)
    q_codes: np.ndarray  # the query code of each row (2-D: None)
    report_args: dict  # the report engine's arguments but the inputs

    @property
    def long_form(self):
        return self.form == "long"


def _metric_names(score_names):
    """The metric names of scorer names (``"ndcg@10"`` -> ``"ndcg"``), in
    order, once each."""
    return list(dict.fromkeys(n.partition("@")[0] for n in score_names))


def _check_segment_call(metrics, k, confidence_level, n_bootstrap, random_state):
    """``(metrics, ks, seed)``: the ranking metrics (a beyond-accuracy
    metric is refused), the cut-offs and the bootstrap's seed (None without
    intervals)."""
    metrics, beyond = split_report_metrics(metrics)
    if beyond:
        raise ValueError(
            f"{', '.join(map(repr, beyond))}: the beyond-accuracy metrics "
            "describe a set of lists and are not reported by segment yet; "
            "call ranking_report on each segment's rows for them."
        )
    ks = _check_cutoffs(k)
    seed = None
    if confidence_level is not None:
        from ._compare import _check_settings, _seed  # (scipy.stats: see there)

        _check_settings(
            ["a", "b"],
            None,
            "permutation",
            None,
            1,
            n_bootstrap,
            confidence_level,
            0.05,
        )
        seed = _seed(random_state)
    return metrics, ks, seed


def _segment_rows(groups, name, call, n_rows, n_queries, ids):
    """``(rows, segment_of_query, labels)``: the rows of the report --
    ``(kind, label, mask over the queries)``, ``"overall"`` then one
    ``"group"`` per segment --, the segment code of each query and the
    segments' labels (None without ``groups``)."""
    rows = [("overall", None, np.ones(n_queries, dtype=bool))]
    if groups is None:
        return rows, None, None
    g_codes, labels = _factorize(
        name, groups, n_rows, "row of the long form" if call.long_form else "query"
    )
    if call.long_form:
        segment_of_query = _query_groups(g_codes, call.q_codes, n_queries, ids, name)
    else:
        segment_of_query = g_codes
    for j, label in enumerate(labels):
        rows.append(("group", label, segment_of_query == j))
    return rows, segment_of_query, labels


def _segment_values(rows, overall, recompute, call):
    """Per row of the report, ``(kind, label, values, weights)``: its
    queries' per-query values and weights by scorer name, those of the
    metrics in ``recompute`` computed again on the segment's rows."""
    results = []
    for kind, label, keep in rows:
        values = {n: v[keep] for n, v in overall.values.items()}
        weights = {n: w[keep] for n, w in overall.weights.items()}
        if recompute and kind == "group" and keep.any():
            row_mask = keep[call.q_codes] if call.long_form else keep
            y, s, q, w, pr = _rows_of(
                row_mask,
                call.y_true,
                call.y_score,
                call.query_id,
                call.sample_weight,
                call.per_row,
            )
            sub = _per_query_report(
                y,
                s,
                query_id=q,
                **{**call.report_args, "metrics": recompute, "sample_weight": w, **pr},
            )
            for n in sub.values:
                values[n], weights[n] = sub.values[n], sub.weights[n]
        results.append((kind, label, values, weights))
    return results


def _stratum_values(item_groups, name, n_items, call):
    """Per stratum of items, ``(kind, label, values, weights)``: the report
    with only the stratum's items relevant (popularity strata in the order
    head, torso, tail)."""
    what = "row of the long form" if call.long_form else "item (column)"
    i_codes, strata = _factorize(name, item_groups, n_items, what)
    order = range(len(strata))
    if set(strata.tolist()) <= set(_STRATA):  # popularity_strata's order
        order = sorted(order, key=lambda j: _STRATA.index(strata[j]))
    results = []
    for j in order:
        restricted = _restrict(call.y_true, i_codes == j, call.form)
        rep = _per_query_report(
            restricted, call.y_score, query_id=call.query_id, **call.report_args
        )
        results.append(("items", strata[j], rep.values, rep.weights))
    return results


def _summaries(results, overall, confidence_level, n_bootstrap, seed):
    """Per row of the report, ``(kind, label, means, intervals)`` (None
    without ``confidence_level``); the overall means are the report's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", undefined_metric_warning())
        overall_means = _means(overall)
    table = []
    for kind, label, values, weights in results:
        if kind == "overall":
            means = overall_means
        else:
            means = {n: weighted_mean(values[n], weights[n]) for n in overall.values}
        interval = None
        if confidence_level is not None:
            interval = _intervals(values, weights, confidence_level, n_bootstrap, seed)
        table.append((kind, label, means, interval))
    return table


def _warn_undefined(table, score_names):
    """One UndefinedMetricWarning naming the rows with an undefined mean."""
    bad = []
    for kind, label, means, _ in table:
        undefined = [n for n in score_names if np.isnan(means[n])]
        if undefined:
            bad.append(f"{_row_label(kind, label)} ({', '.join(undefined)})")
    if bad:
        warnings.warn(
            f"no query could be scored for: {'; '.join(bad)} (every query of "
            "the row was skipped -- no relevant item, or for gauc a single "
            "class); reporting nan.",
            undefined_metric_warning(),
            stacklevel=user_stacklevel(),
        )


def _coverage(S, q_codes, n_queries, ks, rows, overall):
    """Per segment, ``(kind, label, counters)``: the coverage counters
    (:func:`coverage_counters`) of its queries."""
    retrieved = retrieved_per_query(S, q_codes, n_queries)
    evaluated = evaluated_queries(overall)
    return [
        (kind, label, coverage_counters(retrieved[keep], evaluated[keep], ks))
        for kind, label, keep in rows
    ]


def _as_dict(table, coverage):
    out = {"overall": None}
    intervals = {}
    for kind, label, means, interval in table:
        if kind == "overall":
            out["overall"] = means
            if interval is not None:
                intervals["overall"] = interval
            continue
        section = "groups" if kind == "group" else "item_groups"
        out.setdefault(section, {})[_key(label)] = means
        if interval is not None:
            intervals.setdefault(section, {})[_key(label)] = interval
    if intervals:
        out["intervals"] = intervals
    counts = {}
    for kind, label, c in coverage:
        if kind == "overall":
            counts["overall"] = c
        else:
            counts.setdefault("groups", {})[_key(label)] = c
    out["coverage"] = counts
    return out


def _row_label(kind, label):
    if kind == "overall":
        return "overall"
    if kind == "items":
        return f"items: {label}"
    return str(label)


def _format(table, coverage, metrics, ks, digits, confidence_level, names):
    """The text: per metric, one line per segment and stratum (cut-offs as
    columns), then the coverage counters."""

    def cell(means, interval, name):
        text = f"{means[name]:.{digits}f}"
        if interval is not None:
            low, high = interval[name]
            text += f" [{low:.{digits}f}, {high:.{digits}f}]"
        return text

    lines = []
    labels = [_row_label(kind, label) for kind, label, *_ in table]
    label_w = max(len(x) for x in labels)
    metric_w = max(len(m) for m in metrics)
    body = []
    for m in metrics:
        cols = [None] if _whole_list(m) else list(ks)
        for i, (_, _, means, interval) in enumerate(table):
            cells = [cell(means, interval, scorer_name(m, kk)) for kk in cols]
            body.append((m if i == 0 else "", labels[i], cells, _whole_list(m)))
    col_w = (
        max(
            max(len(c) for _, _, cells, _ in body for c in cells),
            max(len(f"@{kk}") for kk in ks),
        )
        + 2
    )
    head = " " * (metric_w + 2 + label_w) + "".join(f"@{kk}".rjust(col_w) for kk in ks)
    lines.append(head.rstrip())
    for m, label, cells, whole in body:
        text = m.ljust(metric_w) + "  " + label.ljust(label_w)
        text += "".join(c.rjust(col_w) for c in cells)
        if whole:
            text += "  (whole list)"
        lines.append(text.rstrip())
    lines.append("")
    if confidence_level is not None:
        lines.append(
            f"[low, high]: {100 * confidence_level:g}% bootstrap interval over "
            "the queries of the row."
        )
        lines.append("")
    labelled = [(_row_label(kind, label), c) for kind, label, c in coverage]
    lines += coverage_lines(labelled, ks)
    notes = coverage_notes(ks)
    if any(kind == "items" for kind, *_ in table):
        notes += " items: <stratum>: only the stratum's items count as relevant."
    lines += ["", *textwrap.wrap(notes, 79)]
    return "\n".join(lines) + "\n"
