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

The users evaluated are those of the held-out table; a user without a list
has only ``-inf`` rows (an empty list).  The report engine
(:func:`~sklearn_rankmetrics._report._per_query_report`) and the
beyond-accuracy sums (:func:`~sklearn_rankmetrics._beyond.report_values`) run
on these rows, so every registry metric, option and ``convention=`` applies,
and the memory is proportional to the rows of the tables.

The column accessor (:func:`_read_table`: pandas, polars, pyarrow or a dict
of arrays, imported lazily, nulls named by column and row) is small and
private on purpose: the frames layer of the column-name API can replace it.
"""

import numbers
import warnings
from collections.abc import Mapping

import numpy as np

from ._beyond import report_values, split_report_metrics
from ._conventions import check_convention
from ._registry import METRICS, metric_names
from ._report import (
    _check_cutoffs,
    _check_metrics,
    _check_report_options,
    _format,
    _means,
    _per_query_report,
    table_output,
)
from ._validation import _is_missing, check_query_id

__all__ = ["recommendation_table_report"]

_CALLER = "recommendation_table_report"

# ---------------------------------------------------------------------------
# Column accessor: pandas, polars (eager or lazy), pyarrow, dict of arrays
# ---------------------------------------------------------------------------


def _table_kind(table, arg):
    """``"pandas"``, ``"polars"``, ``"polars-lazy"``, ``"pyarrow"`` or
    ``"dict"``, found without importing any frame library."""
    module = type(table).__module__.partition(".")[0]
    name = type(table).__name__
    if module == "pandas" and name == "DataFrame":
        return "pandas"
    if module == "polars" and name == "DataFrame":
        return "polars"
    if module == "polars" and name == "LazyFrame":
        return "polars-lazy"
    if module == "pyarrow" and name in ("Table", "RecordBatch"):
        return "pyarrow"
    if isinstance(table, Mapping):
        return "dict"
    raise TypeError(
        f"{_CALLER}: {arg} must be a table: a pandas, polars or pyarrow "
        f"DataFrame/Table, or a dict of equal-length columns; got "
        f"{type(table).__name__}."
    )


def _column_names(table, kind):
    if kind == "polars-lazy":
        return list(table.collect_schema().names())
    if kind == "pyarrow":
        return list(table.column_names)
    if kind == "dict":
        return list(table.keys())
    return list(table.columns)


def _pandas_column(table, col, arg):
    import pandas as pd  # the table is a pandas DataFrame: already imported

    s = table[col]
    if not isinstance(s, pd.Series):
        raise ValueError(
            f"{_CALLER}: {arg} has several columns named {col!r}; rename them."
        )
    dtype = s.dtype
    text = isinstance(dtype, pd.StringDtype) or (
        isinstance(dtype, pd.CategoricalDtype)
        and isinstance(dtype.categories.dtype, pd.StringDtype)
    )
    return s.to_numpy(), s.isna().to_numpy(), text


def _polars_column(table, col):
    import polars as pl  # the table is a polars DataFrame: already imported

    s = table.get_column(col)
    text = s.dtype == pl.String or isinstance(s.dtype, (pl.Categorical, pl.Enum))
    return s.to_numpy(), s.is_null().to_numpy(), text


def _arrow_column(table, col):
    import pyarrow as pa  # the table is a pyarrow Table: already imported
    import pyarrow.compute as pc

    c = table.column(col)
    kind = c.type.value_type if pa.types.is_dictionary(c.type) else c.type
    text = pa.types.is_string(kind) or pa.types.is_large_string(kind)
    null = None
    if c.null_count:
        null = np.asarray(pc.is_null(c).to_numpy(zero_copy_only=False))
    return c.to_numpy(), null, text


def _dict_column(table, col, arg):
    values = table[col]
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        values = values.to_numpy()
    values = np.asarray(values)
    if values.ndim != 1:
        raise ValueError(
            f"{_CALLER}: column {col!r} of {arg} must be 1-D; got shape {values.shape}."
        )
    return values, None, False


def _null_rows(values, null):
    """Rows holding a missing value: the library's nulls, NaN and None."""
    missing = np.zeros(values.shape[0], dtype=bool) if null is None else null
    if values.dtype.kind == "f":
        missing = missing | np.isnan(values)
    elif values.dtype.kind == "O" and null is None:
        missing = np.fromiter(map(_is_missing, values), bool, values.shape[0])
    return missing


def _read_table(table, arg, columns):
    """``{argument: 1-D ndarray}`` of the columns ``columns`` names
    (``{"user_col": "user_id", ...}``), and which of them the table types
    as text, with a clear error for a missing column or a null cell."""
    kind = _table_kind(table, arg)
    available = _column_names(table, kind)
    for role, col in columns.items():
        if col not in available:
            raise ValueError(
                f"{_CALLER}: {role}={col!r} is not a column of {arg}; available "
                f"columns: {', '.join(map(repr, available))}."
            )
    if kind == "polars-lazy":  # collected once, its needed columns only
        table = table.select(list(dict.fromkeys(columns.values()))).collect()
        kind = "polars"
    out, text, n_rows = {}, set(), None
    for role, col in columns.items():
        if kind == "pandas":
            values, null, is_text = _pandas_column(table, col, arg)
        elif kind == "polars":
            values, null, is_text = _polars_column(table, col)
        elif kind == "pyarrow":
            values, null, is_text = _arrow_column(table, col)
        else:
            values, null, is_text = _dict_column(table, col, arg)
        if n_rows is not None and values.shape[0] != n_rows:
            raise ValueError(
                f"{_CALLER}: the columns of {arg} have different lengths "
                f"({n_rows} and {values.shape[0]} for {col!r})."
            )
        n_rows = values.shape[0]
        missing = _null_rows(values, null)
        if missing.any():
            rows = np.flatnonzero(missing)
            raise ValueError(
                f"{_CALLER}: column {col!r} ({role}) of {arg} has "
                f"{rows.size} null value(s), the first at row {rows[0]}; every "
                "row needs a value (drop or fill those rows)."
            )
        out[role] = values
        if is_text:
            text.add(role)
    return out, text


def _read_ids(values, arg):
    """A 1-D array of ids (``catalog``): list, ndarray, or a pandas, polars
    or pyarrow column; nulls refused."""
    null = None
    module = type(values).__module__.partition(".")[0]
    if module == "pyarrow" and hasattr(values, "null_count"):
        if values.null_count:
            import pyarrow.compute as pc

            null = np.asarray(pc.is_null(values).to_numpy(zero_copy_only=False))
        values = values.to_numpy(zero_copy_only=False)
    elif module == "polars" and hasattr(values, "is_null"):
        null = values.is_null().to_numpy()
        values = values.to_numpy()
    elif module == "pandas" and hasattr(values, "isna"):
        null = np.asarray(values.isna())
        values = values.to_numpy()
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(
            f"{_CALLER}: {arg} must be 1-D (one id per item); got shape {arr.shape}."
        )
    missing = _null_rows(arr, null)
    if missing.any():
        raise ValueError(
            f"{_CALLER}: {arg} has {int(missing.sum())} null value(s), the first "
            f"at position {np.flatnonzero(missing)[0]}; every item needs an id."
        )
    return arr


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

    ``parts``: ``(where, values, text)`` per column holding ``what`` ids
    (``where`` names the column in errors).  Returns the codes of each
    column (in the order of the sorted distinct ids, as ``np.unique``) and
    the sorted distinct ids.  Strings never meet numbers: ``"007"``, ``"7"``
    and ``7`` are three ids, and a column of strings beside a column of
    numbers is an error (nothing would match).
    """
    kinds = [(where, _id_kind(v, text, where)) for where, v, text in parts]
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
    arrays = [v for _, v, _ in parts]
    if present == {"int", "float"}:
        arrays = [_as_int_ids(v, w) for (w, v, _) in parts]
    elif present == {"int"}:
        arrays = [v if v.dtype.kind == "i" else _as_int_ids(v, w) for w, v, _ in parts]
    elif present == {"str"}:
        arrays = [v if v.dtype.kind in "UO" else v.astype(object) for v in arrays]
    sizes = [a.shape[0] for a in arrays]
    n = sum(sizes)
    if n == 0:
        return [np.zeros(0, dtype=np.intp) for _ in parts], np.zeros(0)
    allv = np.concatenate(arrays)
    codes, uniques = check_query_id(allv, n)
    codes = np.asarray(codes, dtype=np.intp)
    return np.split(codes, np.cumsum(sizes)[:-1]), uniques


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


def _pair_keys(user, item, n_items):
    return user.astype(np.int64) * np.int64(n_items) + item


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
_BEYOND_DEFAULTS = dict(
    item_popularity=None,
    item_features=None,
    metric="cosine",
    normalization="none",
    share="auto",
)


def _is_table(x):
    if isinstance(x, Mapping):
        return True
    module = type(x).__module__.partition(".")[0]
    return module in ("pandas", "polars", "pyarrow") and type(x).__name__ in (
        "DataFrame",
        "LazyFrame",
        "Table",
        "RecordBatch",
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
        users are the users evaluated; a user without recommendations has
        an empty list.  A pair may appear once.
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
        (user, item) pairs to remove, typically the training interactions:
        an excluded pair is neither a candidate (its recommendation row is
        dropped, the list closing up) nor relevant (its held-out row is
        dropped, with one warning giving the count).
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
        Return one row per evaluated user (ids in the column ``user_col``,
        in sorted order) instead of the means, as :func:`ranking_report`.
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
        counters: ``"n_users"`` (users with held-out interactions, after
        ``exclude``), ``"n_users_without_list"`` (of them, users without a
        recommended item), ``"n_short_lists@10"`` per cut-off (users with
        at least one but fewer than ``k`` recommended items) and
        ``"n_lists_without_held_out"`` (lists of users that are not
        evaluated: read by the beyond-accuracy metrics only); or the
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
    ``-rank``.  The values equal :func:`ranking_report` on the long form these rows make
    (``query_id`` the user, ``y_score`` the scores, ``-inf`` for the
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
    3 users evaluated, 3 with a relevant item.
    Lists: 1 empty, 0 shorter than 2 items.
    <BLANKLINE>

    User ``u1`` finds ``b`` at rank 2 (P@2 = 1/2, R@2 = 1), ``u2`` finds
    ``d`` of ``{d, e}`` (1/2, 1/2) and ``u3`` has no list (0, 0): P@2 =
    (1/2 + 1/2 + 0) / 3 and R@2 = (1 + 1/2 + 0) / 3.  The counters come
    with the values:

    >>> recommendation_table_report(reco, held_out, rank_col="rank", k=2,
    ...                             metrics=["recall"], output_dict=True)
    {'recall@2': 0.5, 'n_users': 3, 'n_users_without_list': 1,
     'n_short_lists@2': 0, 'n_lists_without_held_out': 0}
    """
    if not isinstance(digits, numbers.Integral) or digits < 0:
        raise ValueError(f"digits must be an int >= 0; got {digits!r}.")
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
    ks = _check_cutoffs(k)
    names, beyond = split_report_metrics(metrics)
    if names is None:
        names = metric_names(default=True)
    elif names or not beyond:
        names = _check_metrics(names, True)
    _check_report_options(options, _CALLER)
    if convention is not None:
        check_convention(convention)
    beyond_options = dict(
        item_popularity=item_popularity,
        item_features=item_features,
        metric=metric,
        normalization=normalization,
        share=share,
    )
    if not beyond:
        given = [
            o
            for o, v in beyond_options.items()
            if not (v is None or isinstance(v, str) and v == _BEYOND_DEFAULTS[o])
        ]
        if given:
            raise TypeError(
                f"{_CALLER}: {', '.join(given)}: options of the beyond-accuracy "
                "metrics (catalog_coverage, novelty, ...), and metrics has none "
                "of them; add them to metrics or drop the options."
            )
    if per_query and beyond:
        raise ValueError(
            f"{', '.join(beyond)}: these beyond-accuracy metrics describe the "
            "set of every user's list and have no per-user value; drop them "
            "from metrics or use per_query=False."
        )
    if catalog is None:
        needs = [m for m in beyond if m in _NEED_CATALOG]
        needs += [m for m in names if "n_items" in METRICS[m].requires]
        if needs:
            raise ValueError(
                f"{_CALLER}: {', '.join(needs)} depend on the catalogue; pass "
                "catalog= (the ids of the items that could be recommended)."
            )

    # -- the tables ------------------------------------------------------------
    order_col = (
        ("rank_col", rank_col) if rank_col is not None else ("score_col", score_col)
    )
    reco, reco_text = _read_table(
        recommendations,
        "recommendations",
        {"user_col": user_col, "item_col": item_col, order_col[0]: order_col[1]},
    )
    inter_cols = {"user_col": user_col, "item_col": item_col}
    if label_col is not None:
        inter_cols["label_col"] = label_col
    inter, inter_text = _read_table(interactions, "interactions", inter_cols)
    pairs = {"user_col": user_col, "item_col": item_col}
    excl, excl_text = (
        ({}, set()) if exclude is None else _read_table(exclude, "exclude", pairs)
    )
    pop, pop_text = {}, set()
    if item_popularity is not None and _is_table(item_popularity):
        pop, pop_text = _read_table(item_popularity, "item_popularity", pairs)
    cat = None if catalog is None else _read_ids(catalog, "catalog")

    def where(arg, role):
        col = user_col if role == "user_col" else item_col
        return f"column {col!r} ({role}) of {arg}"

    tables = [("recommendations", reco, reco_text), ("interactions", inter, inter_text)]
    if excl:
        tables.append(("exclude", excl, excl_text))
    (ru, iu, *eu), user_ids = _encode(
        [
            (where(a, "user_col"), t["user_col"], "user_col" in tx)
            for a, t, tx in tables
        ],
        "user",
    )
    eu = eu[0] if eu else np.zeros(0, dtype=np.intp)
    item_parts = [
        (where(a, "item_col"), t["item_col"], "item_col" in tx) for a, t, tx in tables
    ]
    if pop:
        item_parts.append(
            (
                where("item_popularity", "item_col"),
                pop["item_col"],
                "item_col" in pop_text,
            )
        )
    if cat is not None:
        item_parts.append(("catalog", cat, False))
    item_codes, item_ids = _encode(item_parts, "item")
    ri, ii = item_codes[0], item_codes[1]
    ei = item_codes[2] if excl else np.zeros(0, dtype=np.intp)
    n_users, n_items = user_ids.shape[0], item_ids.shape[0]

    # catalogue: item codes -> positions in the catalogue as given
    in_catalog = None
    if cat is not None:
        cat_codes = item_codes[-1]
        position = np.full(n_items, -1, dtype=np.intp)
        position[cat_codes] = np.arange(cat_codes.shape[0])
        if np.unique(cat_codes).shape[0] != cat_codes.shape[0]:
            seen = np.bincount(cat_codes, minlength=n_items)
            twice = cat_codes[seen[cat_codes] > 1][0]
            raise ValueError(
                f"{_CALLER}: catalog has the item {_show(item_ids[twice])} more than "
                "once; pass each item id once."
            )
        in_catalog = position >= 0
        outside = ~in_catalog[ri]
        if outside.any():
            row = int(np.flatnonzero(outside)[0])
            raise ValueError(
                f"{_CALLER}: recommendations has {int(outside.sum())} row(s) "
                f"whose item is not in catalog, the first at row {row} (item "
                f"{_show(item_ids[ri[row]])}); every recommended item must be in "
                "the catalogue."
            )
        if pop:
            pi = item_codes[3 if excl else 2]
            outside = ~in_catalog[pi]
            if outside.any():
                row = int(np.flatnonzero(outside)[0])
                raise ValueError(
                    f"{_CALLER}: item_popularity has {int(outside.sum())} row(s) "
                    f"whose item is not in catalog, the first at row {row} (item "
                    f"{_show(item_ids[pi[row]])}); filter the training table to the "
                    "catalogue (items outside it would shift the popularity "
                    "ranks)."
                )

    # -- scores, labels, pairs ----------------------------------------------------
    rows = None  # the table row of each recommendation, if reordered
    if rank_col is not None:
        slot = _check_ranks(
            reco["rank_col"],
            ru,
            n_users,
            f"column {rank_col!r} (rank_col) of recommendations",
        )
        # The rows in (user, rank) order, each scored minus its position:
        # every user's ranking is that of its ranks (no ties), and the
        # engine's sorts find the scores in order (bench_rectable.py, 1M
        # rows: 0.15 s for the ranking against 0.20 s with -rank scores in
        # the table's order).
        rows = np.empty_like(slot)
        rows[slot] = np.arange(slot.shape[0])
        ru, ri = ru[rows], ri[rows]
        score = -np.arange(slot.shape[0], dtype=np.float64)
    else:
        score = _numeric(
            reco["score_col"], f"column {score_col!r} (score_col) of recommendations"
        ).astype(np.float64, copy=False)
    if label_col is not None:
        label = _check_labels(
            inter["label_col"], f"column {label_col!r} (label_col) of interactions"
        )
    else:
        label = np.ones(iu.shape[0])
    if n_users * n_items >= 2**62:
        raise ValueError(
            f"{_CALLER}: {n_users} users x {n_items} items is beyond the pair "
            "numbering (2**62 pairs)."
        )
    rkey = _pair_keys(ru, ri, n_items)
    ikey = _pair_keys(iu, ii, n_items)
    _refuse_duplicates(rkey, "recommendations", user_ids, item_ids, ru, ri, rows)
    i_order = _refuse_duplicates(ikey, "interactions", user_ids, item_ids, iu, ii)

    # -- exclusion -------------------------------------------------------------
    r_keep = np.ones(rkey.shape[0], dtype=bool)
    i_keep = np.ones(ikey.shape[0], dtype=bool)
    ekey_sorted = np.zeros(0, dtype=np.int64)
    if excl:
        ekey_sorted = np.unique(_pair_keys(eu, ei, n_items))
        r_keep = _lookup(ekey_sorted, rkey) < 0
        i_keep = _lookup(ekey_sorted, ikey) < 0
        n_removed = int(np.count_nonzero(~i_keep))
        if n_removed:
            warnings.warn(
                f"exclude removes {n_removed} held-out (user, item) pair(s): "
                "they are neither candidates nor relevant.",
                UserWarning,
                stacklevel=2,
            )

    # -- users, lists, counters ------------------------------------------------
    evaluated = np.zeros(n_users, dtype=bool)
    evaluated[iu[i_keep]] = True
    retrieved = r_keep & (score > -np.inf)
    length = np.bincount(ru[retrieved], minlength=n_users)
    n_eval = int(np.count_nonzero(evaluated))
    counters = {
        "n_users": n_eval,
        "n_users_without_list": int(np.count_nonzero(evaluated & (length == 0))),
    }
    for kk in ks:
        short = evaluated & (length > 0) & (length < kk)
        counters[f"n_short_lists@{kk}"] = int(np.count_nonzero(short))
    counters["n_lists_without_held_out"] = int(
        np.count_nonzero(~evaluated & (length > 0))
    )

    # held-out label of each recommended pair (0 without one)
    ikey_sorted = ikey[i_order]
    match = _lookup(ikey_sorted, rkey)
    matched = match >= 0
    reco_label = np.zeros(rkey.shape[0])
    reco_label[matched] = label[i_order[match[matched]]]
    reco_label[~r_keep] = 0.0

    values, report = {}, None
    if names:
        if n_eval == 0:
            raise ValueError(
                f"{_CALLER}: no user has a held-out interaction"
                + (" left after exclude" if excl else "")
                + "; there is nothing to evaluate."
            )
        found = np.zeros(ikey.shape[0], dtype=bool)
        found[i_order[match[matched & r_keep]]] = True
        rows = r_keep & evaluated[ru]
        missed = i_keep & ~found
        y = np.concatenate([reco_label[rows], label[missed]])
        s = np.concatenate([score[rows], np.full(int(missed.sum()), -np.inf)])
        q = np.concatenate([ru[rows], iu[missed]])
        extra = {}
        if any("n_items" in METRICS[m].requires for m in names):
            extra["n_items_per_query"] = _items_per_user(
                in_catalog, iu, ii, i_keep, eu, ei, ekey_sorted, n_items, evaluated
            )
        report = _per_query_report(
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
        if per_query:
            table = {user_col: user_ids[report.query_id], **report.values}
            return table_output(table, output_dict)
        values = _means(report)

    if beyond:
        values.update(
            _beyond_values(
                beyond,
                ks,
                score[r_keep],
                reco_label[r_keep],
                ru[r_keep],
                ri[r_keep] if cat is None else position[ri[r_keep]],
                n_items=n_items if cat is None else cat.shape[0],
                catalog_given=cat is not None,
                pop_users=pop.get("user_col"),
                pop_items=None if not pop else item_codes[3 if excl else 2],
                position=None if cat is None else position,
                beyond_options=beyond_options,
                convention=convention,
                options=options,
                alone=not names,
            )
        )

    if output_dict:
        return {**values, **counters}
    shown = list(dict.fromkeys(n.partition("@")[0] for n in values))
    if report is not None:
        first = next(iter(report.values.values()))
        n_scored = int(np.count_nonzero(~np.isnan(first)))
    else:
        relevant = np.zeros(n_users, dtype=bool)
        relevant[iu[i_keep & (label > 0)]] = True
        n_scored = int(np.count_nonzero(relevant))
    table = _format(values, shown, ks, digits, n_eval, n_scored)
    table = table.rstrip("\n").rsplit("\n", 1)[0]  # the footer is ours
    return table + _footer(counters, ks, n_eval, n_scored)


def _footer(counters, ks, n_eval, n_scored):
    parts = [f"{counters['n_users_without_list']} empty"]
    parts += [
        f"{counters[f'n_short_lists@{kk}']} shorter than {kk} items"
        for kk in ks
        if kk > 1
    ]
    lines = [
        f"{n_eval} users evaluated, {n_scored} with a relevant item.",
        f"Lists: {', '.join(parts)}.",
    ]
    other = counters["n_lists_without_held_out"]
    if other:
        lines.append(
            f"{other} list{'' if other == 1 else 's'} of users without held-out "
            "interactions (read by the beyond-accuracy metrics only)."
        )
    return "\n" + "\n".join(lines) + "\n"


def _items_per_user(
    in_catalog, iu, ii, i_keep, eu, ei, ekey_sorted, n_items, evaluated
):
    """Items of each evaluated user (sorted by code) for fall-out and bpref:
    the catalogue and the user's held-out items outside it, less the
    excluded pairs of those items."""
    n_users = evaluated.shape[0]
    n_cat = int(np.count_nonzero(in_catalog))
    outside = np.bincount(iu[i_keep & ~in_catalog[ii]], minlength=n_users)
    excluded = np.zeros(n_users)
    if ekey_sorted.shape[0]:
        users = ekey_sorted // n_items
        items = ekey_sorted % n_items
        excluded = np.bincount(users[in_catalog[items]], minlength=n_users)
    total = n_cat + outside - excluded
    return total[evaluated].astype(np.float64)


def _beyond_values(
    names,
    ks,
    score,
    label,
    user,
    item,
    *,
    n_items,
    catalog_given,
    pop_users,
    pop_items,
    position,
    beyond_options,
    convention,
    options,
    alone,
):
    """The beyond-accuracy metrics of the recommended lists (rows of every
    user, excluded pairs dropped; ``item``: column numbers < ``n_items``),
    through the report's beyond-accuracy path (its refusals and presets)."""
    import scipy.sparse as sp

    own = {o: v for o, v in beyond_options.items() if v is not None}
    if pop_users is not None:
        # the training table as a users x items matrix: an item's count is
        # its number of distinct users, novelty's share that over the users
        if pop_users.shape[0]:
            codes, ids = check_query_id(pop_users, pop_users.shape[0])
        else:
            codes, ids = np.zeros(0, dtype=np.intp), np.zeros(0)
        cols = pop_items if position is None else position[pop_items]
        own["item_popularity"] = sp.csr_matrix(
            (np.ones(codes.shape[0]), (codes, cols)), shape=(ids.shape[0], n_items)
        )
    elif "item_popularity" in own and not catalog_given:
        raise ValueError(
            f"{_CALLER}: item_popularity given as counts per item needs "
            "catalog= (the counts follow its order); or pass the training "
            "interactions as a table with user_col and item_col."
        )
    if "item_features" in own and not catalog_given:
        raise ValueError(
            f"{_CALLER}: item_features needs catalog= (one row per item of "
            "the catalogue, in its order)."
        )
    if user.shape[0] == 0:
        raise ValueError(
            f"{_CALLER}: {', '.join(names)} read the recommended lists, and "
            "recommendations has no row (left after exclude)."
        )
    # the ranking metrics' options: refused when no ranking metric reads
    # them (alone), checked against serendipity's relevance
    call = {**options, **own, "item_id": item, "n_items": n_items}
    values, _, _ = report_values(
        label,
        score,
        ks,
        names,
        query_id=user,
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
