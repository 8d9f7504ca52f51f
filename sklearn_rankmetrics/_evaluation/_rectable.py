"""Recommendation tables: top-k lists evaluated against held-out interactions.

:func:`recommendation_table_report` takes the tables a recommender pipeline
writes -- the recommendations ``(user, item, rank or score)``, the held-out
interactions ``(user, item[, label])`` and optionally the training
interactions to exclude and the catalogue -- and builds the long form of the
ranking metrics directly, without a users x items matrix:

- one row per recommended (user, item) pair, scored by its score or by
  ``-rank``, relevant with the held-out label of that pair (0 without one);
- one row per held-out (user, item) pair that was not recommended, scored
  ``-inf``: relevant but not retrieved, so it counts in recall and in the
  ideal ranking of NDCG.

The queries are the users of the held-out table; a user without a list has
only ``-inf`` rows (an empty list).  The report engine
(:func:`~sklearn_rankmetrics._evaluation._per_query._per_query_report`) and the
beyond-accuracy sums
(:func:`~sklearn_rankmetrics._evaluation._beyond_report.report_values`) run on
these rows, so every registry metric, option and ``convention=`` applies,
and the memory is proportional to the rows of the tables.

The tables are read by the frames layer
(:func:`~sklearn_rankmetrics._io._dataframe.read_table`: pandas, polars,
pyarrow through narwhals, or a dict of arrays; text ids numbered by their
library; nulls named by column and row); here their ids are numbered
together, compared exactly as written, and the tables checked and joined.
"""

import numbers
import warnings
from typing import NamedTuple

import numpy as np

from .._engine._select import _relevant, exact_threshold
from .._io._dataframe import FactorizedIds, is_table, read_id_column, read_table
from .._registry import METRICS, metric_names
from .._utils._conventions import check_convention
from .._utils._tables import table_output
from .._utils._validation import check_query_id, check_real, user_stacklevel
from ._beyond_report import (
    refuse_beyond_options,
    refuse_beyond_request,
    report_values,
    split_report_metrics,
)
from ._coverage import coverage_counters, evaluated_queries, short_key
from ._per_query import (
    CATALOGUE_INPUTS,
    _check_cutoffs,
    _check_metrics,
    _check_report_options,
    _format,
    _means,
    _per_query_report,
    resolved_option,
)

__all__ = ["recommendation_table_report"]

_CALLER = "recommendation_table_report"

_ID_ROLES = ("user_col", "item_col")


# ---------------------------------------------------------------------------
# Ids: compared exactly as written, numbered once
# ---------------------------------------------------------------------------


def _show(value):
    """``repr`` of a value as the user wrote it (numpy scalars as Python's)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _id_kind(values, text, where):
    """``"str"``, ``"int"``, ``"float"`` or ``"bytes"`` (None for an empty
    column); a TypeError for booleans, other types or a column mixing them."""
    kind = values.dtype.kind
    if values.size == 0:
        return None
    if text or kind == "U":
        return "str"
    if kind in "iu":
        return "int"
    if kind == "f":
        return "float"
    if kind == "S":
        return "bytes"
    if kind == "O":
        types = set(map(type, values))
        if all(issubclass(t, str) for t in types):
            return "str"
        if all(
            issubclass(t, (numbers.Integral, np.integer))
            and not issubclass(t, (bool, np.bool_))
            for t in types
        ):
            return "int"
        names = sorted(t.__name__ for t in types)
        raise TypeError(
            f"{_CALLER}: {where} mixes ids of types {', '.join(names)}; ids "
            "are compared exactly as written ('7' is not 7): use one type."
        )
    raise TypeError(
        f"{_CALLER}: {where} must hold ids (ints or strings); got dtype {values.dtype}."
    )


def _as_int_ids(values, where):
    """Integer ids as int64 (floats only when every value is integral)."""
    if values.dtype.kind == "f":
        if not np.all(np.isfinite(values) & (values == np.floor(values))):
            raise TypeError(
                f"{_CALLER}: {where} holds non-integer float ids while another "
                "table holds integer ids; ids are compared exactly: cast them."
            )
    if values.dtype.kind == "u" and values.size and values.max() > np.iinfo("i8").max:
        raise ValueError(f"{_CALLER}: {where} holds ids above 2**63 - 1.")
    try:
        return values.astype(np.int64)
    except (OverflowError, TypeError):
        raise ValueError(
            f"{_CALLER}: {where} holds ids outside the int64 range."
        ) from None


def _encode(parts, what):
    """Number the ids of several columns together.

    ``parts``: ``(where, column, text)`` per column holding ``what`` ids
    (``where`` names the column in errors; ``column`` an ndarray or the
    :class:`~sklearn_rankmetrics._io._dataframe.FactorizedIds` of
    :func:`read_table`).  Returns the codes of each column (in the order of
    the sorted distinct ids, as ``np.unique``) and the sorted distinct ids.
    Strings never meet numbers: ``"007"``, ``"7"`` and ``7`` are three ids,
    and a column of strings beside a column of numbers is an error (nothing
    would match).
    """
    values = [c.uniques if isinstance(c, FactorizedIds) else c for _, c, _ in parts]
    kinds = [
        (where, _id_kind(v, text, where))
        for (where, _, text), v in zip(parts, values, strict=True)
    ]
    family = {"int": "numbers", "float": "numbers", "str": "strings", "bytes": "bytes"}
    seen = {}
    for where, kind in kinds:
        if kind is None:
            continue
        seen.setdefault(family[kind], where)
        if len(seen) > 1:
            (fa, wa), (fb, wb) = list(seen.items())[:2]
            raise TypeError(
                f"{_CALLER}: {what} ids are {fa} in {wa} but {fb} in {wb}; ids "
                "are compared exactly as written ('7' is not 7), so nothing "
                "would match: convert one of the columns."
            )
    present = {kind for _, kind in kinds if kind is not None}
    wheres = [where for where, _, _ in parts]
    if present == {"int", "float"}:
        values = [_as_int_ids(v, w) for w, v in zip(wheres, values, strict=True)]
    elif present == {"int"}:
        values = [
            v if v.dtype.kind == "i" else _as_int_ids(v, w)
            for w, v in zip(wheres, values, strict=True)
        ]
    elif present == {"str"}:
        values = [v if v.dtype.kind in "UO" else v.astype(object) for v in values]
    sizes = [v.shape[0] for v in values]
    n = sum(sizes)
    if n == 0:
        return [np.zeros(0, dtype=np.intp) for _ in parts], np.zeros(0)
    codes, uniques = check_query_id(np.concatenate(values), n)
    codes = np.split(np.asarray(codes, dtype=np.intp), np.cumsum(sizes)[:-1])
    # a library-numbered column: its rows' codes through its distinct ids'
    out = [
        part_codes[c.codes] if isinstance(c, FactorizedIds) else part_codes
        for (_, c, _), part_codes in zip(parts, codes, strict=True)
    ]
    return out, uniques


# ---------------------------------------------------------------------------
# Checks of the recommendations and interactions
# ---------------------------------------------------------------------------


def _numeric(values, where):
    if values.dtype.kind not in "biuf":
        raise TypeError(
            f"{_CALLER}: {where} must be numeric; got dtype {values.dtype}. "
            "Cast it, e.g. with .astype('float64')."
        )
    return values


def _check_ranks(rank, user, n_users, where):
    """Check that each user's n rows are ranked 1..n; return each row's
    position in the (user, rank) order."""
    _numeric(rank, where)
    r = rank.astype(np.float64)
    bad = ~np.isfinite(r) | (r != np.floor(r)) | (r < 1)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{_CALLER}: {where} must hold ranks 1, 2, ... (integers >= 1); "
            f"row {row} has {_show(rank[row])}."
        )
    counts = np.bincount(user, minlength=n_users)
    over = r > counts[user]
    start = np.cumsum(counts) - counts
    slot = np.where(over, 0, start[user] + r.astype(np.intp) - 1)
    filled = np.bincount(slot[~over], minlength=user.shape[0])
    if over.any() or (filled > 1).any():
        if over.any():
            row = int(np.flatnonzero(over)[0])
        else:  # a rank given twice to one user: the second row holding it
            twice = np.flatnonzero(filled > 1)[0]
            row = int(np.flatnonzero(slot == twice)[1])
        raise ValueError(
            f"{_CALLER}: {where} must number each user's rows 1..n without "
            f"gaps or repeats; row {row} (rank {_show(rank[row])}) breaks that for "
            f"a user with {counts[user[row]]} row(s)."
        )
    return slot


def _check_labels(label, where):
    _numeric(label, where)
    y = label.astype(np.float64)
    bad = ~np.isfinite(y) | (y < 0)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{_CALLER}: {where} must hold finite relevance grades >= 0; row "
            f"{row} has {_show(label[row])}."
        )
    return y


def _refuse_duplicates(keys, arg, user_ids, item_ids, user, item, rows=None):
    """ValueError naming the first repeated (user, item) pair of ``arg``
    (``rows``: the table row of each entry, if they were reordered);
    returns the order that sorts ``keys``."""
    order = np.argsort(keys, kind="stable")  # timsort: fast on runs of a user
    sorted_keys = keys[order]
    if (sorted_keys[1:] == sorted_keys[:-1]).any():
        rows = np.arange(keys.shape[0]) if rows is None else rows
        order = np.lexsort((rows, keys))  # a pair's rows in table order
        same = keys[order][1:] == keys[order][:-1]
        j = int(np.flatnonzero(same)[0])
        first, again = int(order[j]), int(order[j + 1])
        user, item = user[again], item[again]
        first, again = int(rows[first]), int(rows[again])
        raise ValueError(
            f"{_CALLER}: {arg} has the pair (user {_show(user_ids[user])}, "
            f"item {_show(item_ids[item])}) twice, at rows {first} and "
            f"{again}; each (user, item) pair may appear once (aggregate or "
            "drop the repeats)."
        )
    return order


def _lookup(sorted_keys, keys):
    """Position in ``sorted_keys`` of each of ``keys``, -1 where absent."""
    if sorted_keys.shape[0] == 0:
        return np.full(keys.shape[0], -1, dtype=np.intp)
    at = np.searchsorted(sorted_keys, keys)
    at_safe = np.minimum(at, sorted_keys.shape[0] - 1)
    return np.where(sorted_keys[at_safe] == keys, at_safe, -1)


# The beyond-accuracy metrics whose value depends on the catalogue (its
# size, or an item's place in it): they need ``catalog=``.
_NEED_CATALOG = (
    "catalog_coverage",
    "gini_index",
    "exposure_entropy",
    "intra_list_diversity",
    "serendipity",
)


def recommendation_table_report(
    recommendations,
    interactions,
    *,
    user_col="user_id",
    item_col="item_id",
    rank_col=None,
    score_col=None,
    label_col=None,
    exclude=None,
    catalog=None,
    k=10,
    metrics=None,
    convention=None,
    output_dict=False,
    per_query=False,
    digits=4,
    item_popularity=None,
    item_features=None,
    metric="cosine",
    normalization="none",
    share="auto",
    **options,
):
    """Evaluate a table of top-k recommendations against held-out interactions.

    The tables of a recommender pipeline, as RecTools' ``calc_metrics``
    takes them: the recommendations ``(user, item, rank)`` or ``(user,
    item, score)``, the held-out interactions ``(user, item)`` (with a
    grade in ``label_col``, or each row relevant), optionally the training
    interactions to ``exclude`` and the ``catalog``.  No users x items
    matrix is built: the rows are the recommended pairs and the held-out
    pairs that were not recommended (scored ``-inf``: relevant, not
    retrieved), and every metric of :func:`ranking_report` is read from
    them, with its options and ``convention=``.  Memory is proportional to
    the rows of the tables.

    Read more in the :ref:`User Guide <recommendation_tables>`.

    Parameters
    ----------
    recommendations : DataFrame, Table or dict of columns
        One row per recommended (user, item) pair: a pandas, polars (eager,
        or lazy: collected once) or pyarrow table, or a dict of equal-length
        1-D arrays.  A (user, item) pair may appear once.  Users that are
        not in ``interactions`` count for the beyond-accuracy metrics only.
    interactions : DataFrame, Table or dict of columns
        The held-out interactions: one row per (user, item) pair, each
        relevant with grade 1, or with the grade in ``label_col``.  Its
        users are the queries of the ranking metrics; a user without
        recommendations has an empty list.  A pair may appear once.
    user_col, item_col : str, default="user_id", "item_id"
        The user and item columns of every table (RecTools' names by
        default).  Ids are compared exactly as written: ``"007"``, ``"7"``
        and ``7`` are three ids, and a column of strings beside a column of
        numbers is an error.
    rank_col : str, default=None
        The recommendations' rank column: each user's rows ranked 1, 2,
        ..., n (no gap, no repeat).  Exactly one of ``rank_col`` and
        ``score_col``.
    score_col : str, default=None
        The recommendations' score column, higher first; equal scores are
        ties (by default their exact expected value, see ``ties``), and
        ``-inf`` is not retrieved.
    label_col : str, default=None
        The held-out grade column (numbers >= 0; 0: judged not relevant).
        None: every held-out row is relevant with grade 1.
    exclude : DataFrame, Table or dict of columns, default=None
        (user, item) pairs to remove from the candidates of every metric,
        typically the training interactions (:ref:`candidates`): an
        excluded pair's recommendation row is dropped, the list closing up.
        An excluded held-out pair stays relevant and is never found (with
        one warning giving the count of relevant ones), as in
        :func:`factor_ranking_report`.
    catalog : array-like of item ids, default=None
        The items that could be recommended.  Every recommended item must
        be in it.  Needed by the metrics that depend on the catalogue:
        ``"catalog_coverage"``, ``"gini_index"``, ``"exposure_entropy"``,
        ``"serendipity"``, ``"intra_list_diversity"`` (``item_features``
        rows follow its order), ``"fallout"`` and ``"bpref"`` (a user's
        items are the catalogue and its held-out items, less the excluded).
    k : int or sequence of int >= 1, default=10
        The cut-offs.
    metrics : sequence of str, default=None
        Any metric name of :func:`ranking_report` (without ``@k``),
        beyond-accuracy metrics included.  None: the default metrics of
        :func:`ranking_report` for 2-D input (precision, recall, F1, hit
        rate, MRR, MAP, DCG, NDCG).
    convention : str or None, default=None
        A preset of options (see the presets page), as in
        :func:`ranking_report`.
    output_dict : bool, default=False
        Return a dict of the values and counters instead of the text table.
    per_query : bool, default=False
        Return one row per user of ``interactions`` (ids in the column
        ``user_col``, in sorted order; nan where skipped) instead of the
        means, as :func:`ranking_report`.
    digits : int, default=4
        Digits of the text table.
    item_popularity : DataFrame, Table, dict of columns or array-like, \
default=None
        For ``"average_popularity"``, ``"novelty"``, ``"serendipity"``: the
        training interactions as a table with ``user_col`` and ``item_col``
        (an item's popularity is its number of distinct users; novelty's
        share divides it by the number of distinct users of the table), or
        counts per item in the order of ``catalog``.  Its items must be in
        the catalogue.
    item_features : array-like of shape (n_items, n_features), default=None
        For ``"intra_list_diversity"``: one row per item of ``catalog``, in
        its order.
    metric, normalization, share
        Options of the beyond-accuracy metrics, as in
        :func:`intra_list_diversity_at_k`, :func:`exposure_entropy_at_k`,
        :func:`novelty_at_k`.
    **options
        Options of the ranking metric functions, as in
        :func:`ranking_report` (``relevance_threshold``, ``gain``, ``ties``,
        ``ignore_ties`` -- with ``score_col``, tied rows keep the order of
        the table --, ``no_relevant``, ``ap_denominator``, ...).

    Returns
    -------
    report : str, dict or DataFrame
        The text table with the counters in its footer; or, with
        ``output_dict=True``, ``{"ndcg@10": float, ...}`` followed by the
        coverage counters of the reports (see :ref:`coverage_counters`)
        over the users of ``interactions`` after ``exclude``:
        ``"n_queries"`` (those users), ``"n_evaluated"`` (of them, those
        in the means: with a relevant item), ``"n_skipped"`` (the others),
        ``"n_empty"`` (users without a recommended item),
        ``"n_short@10"`` per cut-off (users with at least one but fewer
        than ``k`` recommended items), and the table's own
        ``"n_lists_without_held_out"`` (lists of users without held-out
        interactions: read by the beyond-accuracy metrics only); or the
        per-user table.

    See Also
    --------
    ranking_report : The same report from arrays.
    factor_ranking_report : A factor model's report, which returns its
        top-k lists in this table form with ``return_top_k=True``.

    Notes
    -----
    Users: the ranking metrics average over the users of ``interactions``
    (a user whose held-out rows all have grade 0 is a query without a
    relevant item: ``no_relevant`` decides); the beyond-accuracy metrics
    read every list of ``recommendations``, as RecTools does.  With
    ``rank_col``, a user's items are ranked by their ranks, as if scored
    ``-rank``.  The values equal :func:`ranking_report` on the long form
    these rows make (``query_id`` the user, ``y_score`` the scores, ``-inf`` for the
    held-out pairs not recommended), and, for a small table, on the dense
    matrices of :func:`ranked_lists_to_arrays`.

    Examples
    --------
    >>> from sklearn_rankmetrics import recommendation_table_report
    >>> reco = {"user_id": ["u1", "u1", "u1", "u2", "u2"],
    ...         "item_id": ["a", "b", "c", "a", "d"],
    ...         "rank": [1, 2, 3, 1, 2]}
    >>> held_out = {"user_id": ["u1", "u2", "u2", "u3"],
    ...             "item_id": ["b", "d", "e", "a"]}
    >>> print(recommendation_table_report(reco, held_out, rank_col="rank",
    ...                                   k=2, metrics=["precision", "recall"]))
                   @2
    precision  0.3333
    recall     0.5000
    <BLANKLINE>
    3 users: 3 evaluated, 0 skipped (no relevant item).
    Lists: 1 empty, 0 shorter than 2 items.
    <BLANKLINE>

    User ``u1`` finds ``b`` at rank 2 (P@2 = 1/2, R@2 = 1), ``u2`` finds
    ``d`` of ``{d, e}`` (1/2, 1/2) and ``u3`` has no list (0, 0): P@2 =
    (1/2 + 1/2 + 0) / 3 and R@2 = (1 + 1/2 + 0) / 3.  The counters come
    with the values:

    >>> recommendation_table_report(reco, held_out, rank_col="rank", k=2,
    ...                             metrics=["recall"], output_dict=True)
    {'recall@2': 0.5, 'n_queries': 3, 'n_evaluated': 3, 'n_skipped': 0,
     'n_empty': 1, 'n_short@2': 0, 'n_lists_without_held_out': 0}
    """
    if not isinstance(digits, numbers.Integral) or digits < 0:
        raise ValueError(f"digits must be an int >= 0; got {digits!r}.")
    _check_column_names(user_col, item_col, rank_col, score_col, label_col)
    ks = _check_cutoffs(k)
    beyond_options = dict(
        item_popularity=item_popularity,
        item_features=item_features,
        metric=metric,
        normalization=normalization,
        share=share,
    )
    names, beyond = _check_table_metrics(
        metrics, convention, options, beyond_options, per_query, catalog
    )
    t = _read_inputs(
        recommendations,
        interactions,
        exclude,
        item_popularity,
        catalog,
        user_col=user_col,
        item_col=item_col,
        rank_col=rank_col,
        score_col=score_col,
        label_col=label_col,
    )
    j = _join(t)
    held_out, length = _users(t, j)
    values, report = {}, None
    if names:
        report = _ranking_values(t, j, held_out, names, ks, convention, options)
        if per_query:
            table = {user_col: t.user_ids[report.query_id], **report.values}
            return table_output(table, output_dict)
        values = _means(report)
    if beyond:
        values.update(
            _beyond_values(
                t,
                j,
                beyond,
                ks,
                beyond_options=beyond_options,
                convention=convention,
                options=options,
                alone=not names,
            )
        )
    counters = _counters(t, j, held_out, length, report, ks)
    if output_dict:
        return {**values, **counters}
    return _text(values, counters, ks, digits)


def _check_column_names(user_col, item_col, rank_col, score_col, label_col):
    """TypeError for a column name that is not a string; ValueError unless
    exactly one of ``rank_col`` and ``score_col`` is given, or for one
    column as both users and items."""
    for name, value in (("user_col", user_col), ("item_col", item_col)):
        if not isinstance(value, str):
            raise TypeError(
                f"{_CALLER}: {name} must be a column name (str); got {value!r}."
            )
    if (rank_col is None) == (score_col is None):
        raise ValueError(
            f"{_CALLER}: pass exactly one of rank_col= (ranks 1, 2, ... per "
            "user) and score_col= (scores, higher first); got "
            f"rank_col={rank_col!r}, score_col={score_col!r}."
        )
    for name, value in (
        ("rank_col", rank_col),
        ("score_col", score_col),
        ("label_col", label_col),
    ):
        if value is not None and not isinstance(value, str):
            raise TypeError(
                f"{_CALLER}: {name} must be a column name (str) or None; got {value!r}."
            )
    if user_col == item_col:
        raise ValueError(f"{_CALLER}: user_col and item_col are both {user_col!r}.")


def _check_table_metrics(
    metrics, convention, options, beyond_options, per_query, catalog
):
    """``(names, beyond)``: the ranking metrics (the default set for None)
    and the beyond-accuracy metrics asked for, after the checks of the
    options, of the beyond-accuracy options given without such a metric,
    of ``per_query`` (the beyond-accuracy metrics have no per-user value)
    and of the metrics that need the catalogue."""
    names, beyond = split_report_metrics(metrics)
    if names is None:
        names = metric_names(default=True)
    elif names or not beyond:
        names = _check_metrics(names, True)
    _check_report_options(options, _CALLER)
    if convention is not None:
        check_convention(convention)
    if beyond:
        refuse_beyond_request(beyond, per_query=per_query)
    else:
        refuse_beyond_options(beyond_options, caller=_CALLER)
    if catalog is None:
        needs = [m for m in beyond if m in _NEED_CATALOG]
        needs += [m for m in names if CATALOGUE_INPUTS & set(METRICS[m].requires)]
        if needs:
            raise ValueError(
                f"{_CALLER}: {', '.join(needs)} depend on the catalogue; pass "
                "catalog= (the ids of the items that could be recommended)."
            )
    return names, beyond


def _ranking_values(t, j, held_out, names, ks, convention, options):
    """The report engine's :class:`PerQueryReport` of the ranking metrics
    ``names`` on the long form of the held-out users' rows (their items
    counted from the catalogue for fall-out and bpref)."""
    if not held_out.any():
        raise ValueError(
            f"{_CALLER}: no user has a held-out interaction; there is "
            "nothing to evaluate."
        )
    y, s, q = _long_form(t, j, held_out)
    extra = {}
    if any(CATALOGUE_INPUTS & set(METRICS[m].requires) for m in names):
        extra["n_items_per_query"] = _items_per_user(
            t, j, held_out, _threshold(names, dict(options, convention=convention))
        )
    return _per_query_report(
        y,
        s,
        k=ks,
        metrics=names,
        query_id=q,
        sample_weight=None,
        convention=convention,
        caller=_CALLER,
        **extra,
        **options,
    )


def _text(values, counters, ks, digits):
    """The text table of the values, with the counters in its footer."""
    shown = list(dict.fromkeys(n.partition("@")[0] for n in values))
    n_users, n_evaluated = counters["n_queries"], counters["n_evaluated"]
    text = _format(values, shown, ks, digits, n_users, n_evaluated)
    text = text.rstrip("\n").rsplit("\n", 1)[0]  # the footer is ours
    return text + _footer(counters, ks)


class _Tables(NamedTuple):
    """The tables read, checked and numbered.

    Users and items are codes into ``user_ids`` / ``item_ids`` (the sorted
    distinct ids of every table).  The recommendations come in table order,
    or in (user, rank) order with ``reco_row`` giving each one's table row
    (None when not reordered).  Pairs are keyed ``user * n_items + item``.
    """

    user_ids: np.ndarray
    item_ids: np.ndarray
    reco_user: np.ndarray
    reco_item: np.ndarray
    reco_score: np.ndarray  # -position with rank_col (see _read_inputs)
    reco_row: np.ndarray | None
    held_user: np.ndarray
    held_item: np.ndarray
    held_label: np.ndarray
    excluded: np.ndarray | None  # sorted unique keys of the excluded pairs
    position: np.ndarray | None  # item code -> place in catalog (-1: outside)
    pop_user: np.ndarray | None  # item_popularity's users (codes of its own)
    pop_item: np.ndarray | None  # item_popularity's item codes

    def keys(self, user, item):
        return user.astype(np.int64) * np.int64(self.item_ids.shape[0]) + item


def _read_inputs(
    recommendations,
    interactions,
    exclude,
    item_popularity,
    catalog,
    *,
    user_col,
    item_col,
    rank_col,
    score_col,
    label_col,
):
    """Read the tables (through :func:`read_table`), number their ids
    together (:func:`_number_ids`) and check them: :class:`_Tables`."""
    pairs = {"user_col": user_col, "item_col": item_col}
    order = ("rank_col", rank_col) if rank_col is not None else ("score_col", score_col)
    held_cols = dict(pairs) if label_col is None else {**pairs, "label_col": label_col}
    tables = [
        (
            "recommendations",
            _read(recommendations, "recommendations", dict([*pairs.items(), order])),
        ),
        ("interactions", _read(interactions, "interactions", held_cols)),
    ]
    if exclude is not None:
        tables.append(("exclude", _read(exclude, "exclude", pairs)))
    pop = None
    if item_popularity is not None and is_table(item_popularity):
        pop = _read(item_popularity, "item_popularity", pairs)
    cat = None
    if catalog is not None:
        cat = read_id_column(catalog, caller=_CALLER, arg="catalog")
    ids = _number_ids(tables, pop, cat, user_col, item_col)
    reco_user, reco_item, reco_score, reco_row = _recommended(
        tables[0][1].columns, ids, rank_col, score_col
    )
    if label_col is not None:
        where_label = f"column {label_col!r} (label_col) of interactions"
        held_label = _check_labels(tables[1][1].columns["label_col"], where_label)
    else:
        held_label = np.ones(ids.users[1].shape[0])
    excluded = None
    if exclude is not None:
        n_items = np.int64(ids.item_ids.shape[0])
        excluded = np.unique(ids.users[2].astype(np.int64) * n_items + ids.items[2])
    return _Tables(
        ids.user_ids,
        ids.item_ids,
        reco_user,
        reco_item,
        reco_score,
        reco_row,
        ids.users[1],
        ids.items[1],
        held_label,
        excluded,
        ids.position,
        ids.pop_user,
        ids.pop_item,
    )


def _read(table, arg, columns):
    """The columns of one table (:func:`read_table`), its user and item ids
    numbered by their library where it can."""
    return read_table(table, columns, caller=_CALLER, arg=arg, ids=_ID_ROLES)


class _Ids(NamedTuple):
    """The ids of every table numbered together (:func:`_number_ids`)."""

    users: list  # per table read (recommendations, interactions[, exclude])
    user_ids: np.ndarray  # the distinct user ids, sorted
    items: list  # per table read, then item_popularity's and the catalog's
    item_ids: np.ndarray  # the distinct item ids, sorted
    pop_user: np.ndarray | None  # item_popularity's users (codes of its own)
    pop_item: np.ndarray | None  # item_popularity's item codes
    position: np.ndarray | None  # item code -> place in catalog (-1: outside)


def _number_ids(tables, pop, cat, user_col, item_col):
    """Number the user ids of the tables together, and their item ids with
    those of the popularity table and the catalogue (:func:`_encode`):
    :class:`_Ids`."""

    def part(arg, table, role):
        col = user_col if role == "user_col" else item_col
        where = f"column {col!r} ({role}) of {arg}"
        return where, table.columns[role], role in table.text

    users, user_ids = _encode([part(a, t, "user_col") for a, t in tables], "user")
    item_parts = [part(a, t, "item_col") for a, t in tables]
    pop_user = None
    if pop is not None:
        # its users are counted only: numbered alone
        (pop_user,), _ = _encode([part("item_popularity", pop, "user_col")], "user")
        item_parts.append(part("item_popularity", pop, "item_col"))
    if cat is not None:
        item_parts.append(("catalog", cat, False))
    items, item_ids = _encode(item_parts, "item")
    n_users, n_items = user_ids.shape[0], item_ids.shape[0]
    if n_users * n_items >= 2**62:
        raise ValueError(
            f"{_CALLER}: {n_users} users x {n_items} items is beyond the pair "
            "numbering (2**62 pairs)."
        )
    pop_item = items[len(tables)] if pop is not None else None
    position = None
    if cat is not None:
        position = _catalog_positions(items[-1], item_ids, items[0], pop_item)
    return _Ids(users, user_ids, items, item_ids, pop_user, pop_item, position)


def _recommended(reco, ids, rank_col, score_col):
    """``(user, item, score, row)`` of the recommendations: with
    ``rank_col``, checked ranks, the rows in (user, rank) order, each scored
    minus its position, and the table row of each; with ``score_col``, the
    rows as given (row None) and their checked scores."""
    reco_user, reco_item = ids.users[0], ids.items[0]
    if rank_col is None:
        where_score = f"column {score_col!r} (score_col) of recommendations"
        reco_score = _numeric(reco["score_col"], where_score)
        return reco_user, reco_item, reco_score.astype(np.float64, copy=False), None
    slot = _check_ranks(
        reco["rank_col"],
        reco_user,
        ids.user_ids.shape[0],
        f"column {rank_col!r} (rank_col) of recommendations",
    )
    # The rows in (user, rank) order, each scored minus its position:
    # every user's ranking is that of its ranks (no ties), and the
    # engine's sorts find the scores in order (bench_rectable.py, 1M
    # rows: 0.15 s for the ranking against 0.20 s with -rank scores in
    # the table's order).
    reco_row = np.empty_like(slot)
    reco_row[slot] = np.arange(slot.shape[0])
    reco_score = -np.arange(slot.shape[0], dtype=np.float64)
    return reco_user[reco_row], reco_item[reco_row], reco_score, reco_row


def _catalog_positions(cat_codes, item_ids, reco_item, pop_item):
    """Each item code's place in the catalogue as given (-1 outside it);
    errors for a repeated catalogue item and for a recommended or popularity
    item outside it."""
    n_items = item_ids.shape[0]
    seen = np.bincount(cat_codes, minlength=n_items)
    if (seen > 1).any():
        raise ValueError(
            f"{_CALLER}: catalog has the item "
            f"{_show(item_ids[np.flatnonzero(seen > 1)[0]])} more than once; "
            "pass each item id once."
        )
    position = np.full(n_items, -1, dtype=np.intp)
    position[cat_codes] = np.arange(cat_codes.shape[0])
    for arg, codes, fix in (
        (
            "recommendations",
            reco_item,
            "every recommended item must be in the catalogue",
        ),
        (
            "item_popularity",
            pop_item,
            "filter the training table to the "
            "catalogue (items outside it would shift the popularity ranks)",
        ),
    ):
        if codes is None:
            continue
        outside = position[codes] < 0
        if outside.any():
            row = int(np.flatnonzero(outside)[0])
            raise ValueError(
                f"{_CALLER}: {arg} has {int(outside.sum())} row(s) whose item is "
                f"not in catalog, the first at row {row} (item "
                f"{_show(item_ids[codes[row]])}); {fix}."
            )
    return position


class _Joined(NamedTuple):
    """The recommendations matched with the held-out pairs, after
    ``exclude``: which recommendations are kept (not excluded), which
    held-out rows are excluded (they stay relevant, never found), each
    recommendation's held-out grade (0 without one) and which held-out rows
    were recommended."""

    reco_kept: np.ndarray
    held_excluded: np.ndarray
    reco_label: np.ndarray
    found: np.ndarray


def warn_excluded_relevant(n_removed):
    """The one warning of the reports whose ``exclude=`` removes held-out
    relevant pairs from the candidates."""
    warnings.warn(
        f"exclude removes {n_removed} held-out relevant (user, item) "
        "pairs; they stay relevant but can never be recommended.",
        UserWarning,
        stacklevel=user_stacklevel(),
    )


def _join(t):
    rkey = t.keys(t.reco_user, t.reco_item)
    hkey = t.keys(t.held_user, t.held_item)
    _refuse_duplicates(
        rkey,
        "recommendations",
        t.user_ids,
        t.item_ids,
        t.reco_user,
        t.reco_item,
        t.reco_row,
    )
    order = _refuse_duplicates(
        hkey, "interactions", t.user_ids, t.item_ids, t.held_user, t.held_item
    )
    reco_kept = np.ones(rkey.shape[0], dtype=bool)
    held_excluded = np.zeros(hkey.shape[0], dtype=bool)
    if t.excluded is not None:  # not candidates: relevant held-out pairs stay
        reco_kept = _lookup(t.excluded, rkey) < 0
        held_excluded = _lookup(t.excluded, hkey) >= 0
        n_removed = int(np.count_nonzero(held_excluded & (t.held_label > 0)))
        if n_removed:
            warn_excluded_relevant(n_removed)
    match = _lookup(hkey[order], rkey)
    matched = (match >= 0) & reco_kept
    reco_label = np.zeros(rkey.shape[0])
    reco_label[matched] = t.held_label[order[match[matched]]]
    found = np.zeros(hkey.shape[0], dtype=bool)
    found[order[match[matched]]] = True
    return _Joined(reco_kept, held_excluded, reco_label, found)


def _users(t, j):
    """``(held_out, length)`` over the user codes: the users with held-out
    interactions after ``exclude`` (the queries of the ranking metrics) and
    the number of items each one's list retrieves."""
    n_users = t.user_ids.shape[0]
    held_out = np.zeros(n_users, dtype=bool)
    held_out[t.held_user] = True
    retrieved = j.reco_kept & (t.reco_score > -np.inf)
    length = np.bincount(t.reco_user[retrieved], minlength=n_users)
    return held_out, length


def _counters(t, j, held_out, length, report, ks):
    """The coverage counters of the users with held-out interactions
    (:func:`coverage_counters`: evaluated, those in the means of
    ``report``, or with only beyond-accuracy metrics those with a relevant
    held-out item), and ``n_lists_without_held_out``: the lists of the
    other users, which only the beyond-accuracy metrics read."""
    if report is not None:
        evaluated = evaluated_queries(report)
    else:
        relevant = np.zeros(t.user_ids.shape[0], dtype=bool)
        relevant[t.held_user[t.held_label > 0]] = True
        evaluated = relevant[held_out]
    counters = coverage_counters(length[held_out], evaluated, ks)
    counters["n_lists_without_held_out"] = int(
        np.count_nonzero(~held_out & (length > 0))
    )
    return counters


def _long_form(t, j, held_out):
    """``(y_true, y_score, query_id)``: the recommendations of the users
    with held-out interactions, then the held-out pairs not recommended
    (excluded ones included: relevant, never found), at ``-inf``."""
    reco = j.reco_kept & held_out[t.reco_user]
    missed = ~j.found
    y = np.concatenate([j.reco_label[reco], t.held_label[missed]])
    s = np.concatenate([t.reco_score[reco], np.full(int(missed.sum()), -np.inf)])
    q = np.concatenate([t.reco_user[reco], t.held_user[missed]])
    return y, s, q


def _footer(counters, ks):
    """The counters as text: users, lists, lists of the other users."""
    parts = [f"{counters['n_empty']} empty"]
    parts += [
        f"{counters[short_key(kk)]} shorter than {kk} items" for kk in ks if kk > 1
    ]
    lines = [
        f"{counters['n_queries']} users: {counters['n_evaluated']} evaluated, "
        f"{counters['n_skipped']} skipped (no relevant item).",
        f"Lists: {', '.join(parts)}.",
    ]
    other = counters["n_lists_without_held_out"]
    if other:
        lines.append(
            f"{other} list{'' if other == 1 else 's'} of users without held-out "
            "interactions (read by the beyond-accuracy metrics only)."
        )
    return "\n" + "\n".join(lines) + "\n"


def _threshold(names, options):
    """The relevance threshold the catalogue metrics among ``names`` read
    (the same for all: no convention sets one), checked."""
    metric = next(m for m in names if CATALOGUE_INPUTS & set(METRICS[m].requires))
    value = resolved_option(metric, "relevance_threshold", options)
    return check_real("relevance_threshold", value, low=0.0, allow_none=True)


def _items_per_user(t, j, held_out, threshold=None):
    """Items of each held-out user (in code order) for fall-out and bpref:
    the catalogue and the user's held-out items outside it, less the
    excluded pairs of those items (not candidates), plus the excluded
    held-out pairs relevant at ``threshold``: they are rows of the user,
    relevant and never retrieved, so that items less relevant rows is the
    user's non-relevant candidates."""
    n_users, n_items = t.user_ids.shape[0], t.item_ids.shape[0]
    in_catalog = t.position >= 0
    held_outside = ~in_catalog[t.held_item]
    outside = np.bincount(t.held_user[held_outside], minlength=n_users)
    excluded = np.zeros(n_users)
    if t.excluded is not None:
        users, items = np.divmod(t.excluded, n_items)
        excluded = np.bincount(users[in_catalog[items]], minlength=n_users)
        gone = held_outside & j.held_excluded
        relevant = j.held_excluded & _relevant(
            t.held_label, exact_threshold(threshold, t.held_label.dtype)
        )
        excluded = (
            excluded
            + np.bincount(t.held_user[gone], minlength=n_users)
            - np.bincount(t.held_user[relevant], minlength=n_users)
        )
    total = np.count_nonzero(in_catalog) + outside - excluded
    return total[held_out].astype(np.float64)


def _beyond_values(t, j, names, ks, *, beyond_options, convention, options, alone):
    """The beyond-accuracy metrics of every list of the recommendations
    (excluded pairs dropped), through the report's beyond-accuracy path (its
    refusals and presets); items numbered by their place in the catalogue
    (or by code without one)."""
    import scipy.sparse as sp

    kept = j.reco_kept
    if not kept.any():
        raise ValueError(
            f"{_CALLER}: {', '.join(names)} read the recommended lists, and "
            "recommendations has no row"
            + (" left after exclude" if t.excluded is not None else "")
            + "."
        )
    items = t.reco_item[kept]
    n_items = t.item_ids.shape[0]
    if t.position is not None:
        items = t.position[items]
        n_items = int(np.count_nonzero(t.position >= 0))
    own = {o: v for o, v in beyond_options.items() if v is not None}
    if t.pop_user is not None:
        # the training table as a users x items matrix: an item's count is
        # its number of distinct users, novelty's share that over the users
        cols = t.pop_item if t.position is None else t.position[t.pop_item]
        n_pop_users = int(t.pop_user.max()) + 1 if t.pop_user.shape[0] else 0
        own["item_popularity"] = sp.csr_matrix(
            (np.ones(t.pop_user.shape[0]), (t.pop_user, cols)),
            shape=(n_pop_users, n_items),
        )
    elif "item_popularity" in own and t.position is None:
        raise ValueError(
            f"{_CALLER}: item_popularity given as counts per item needs "
            "catalog= (the counts follow its order); or pass the training "
            "interactions as a table with user_col and item_col."
        )
    if "item_features" in own and t.position is None:
        raise ValueError(
            f"{_CALLER}: item_features needs catalog= (one row per item of "
            "the catalogue, in its order)."
        )
    # the ranking metrics' options: refused when no ranking metric reads
    # them (alone), checked against serendipity's relevance
    call = {**options, **own, "item_id": items, "n_items": n_items}
    values, _, _ = report_values(
        j.reco_label[kept],
        t.reco_score[kept],
        ks,
        names,
        query_id=t.reco_user[kept],
        per_query=False,
        sample_weight=None,
        convention=convention,
        options=call,
        alone=alone,
    )
    return values


# ---------------------------------------------------------------------------
# Top-k lists of a score block, as a table (factor_ranking_report)
# ---------------------------------------------------------------------------


def top_k_rows(S, k, first_user=0):
    """The top-``k`` items of each row of the score block ``S`` as table
    columns ``(user, item, rank, score)``: ``-inf`` scores left out, ties
    broken by the lower column (the order ``ignore_ties=True`` ranks), rows
    numbered from ``first_user``."""
    n, m = S.shape
    K = min(k, m)
    if n == 0 or K == 0:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty, empty, np.zeros(0, dtype=S.dtype)
    cut = np.partition(S, m - K, axis=1)[:, m - K]  # the K-th largest score
    above = S > cut[:, None]
    tied = S == cut[:, None]
    room = K - np.count_nonzero(above, axis=1)
    keep = above | (tied & (np.cumsum(tied, axis=1) <= room[:, None]))
    keep &= S > -np.inf
    r, c = np.nonzero(keep)
    v = S[r, c]
    order = np.lexsort((c, -v, r))
    r, c, v = r[order], c[order], v[order]
    counts = np.bincount(r, minlength=n)
    rank = np.arange(r.shape[0]) - np.repeat(np.cumsum(counts) - counts, counts) + 1
    return r + first_user, c, rank, v
