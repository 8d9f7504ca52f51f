"""Ranked item-id lists to the 2-D ``(y_true, y_score)`` form.

Recommender and search evaluations often start from lists: for each query
(user) the ids of the recommended items, best first, and the ids of the
items the user actually liked.  :func:`ranked_lists_to_arrays` turns them
into the relevance and score matrices every metric of this package takes.
"""

import math
import numbers
from collections.abc import Mapping, Set
from itertools import chain

import numpy as np
import scipy.sparse as sp

from .._utils._validation import _is_missing

__all__ = ["ranked_lists_to_arrays"]


def ranked_lists_to_arrays(ranked, relevant, *, items=None, sparse_output=False):
    """Turn ranked item-id lists and relevant-id collections into 2-D arrays.

    Builds, for ``n_queries`` queries (users, searches), the relevance
    matrix ``y_true`` and the score matrix ``y_score`` of shape
    ``(n_queries, n_items)`` that every metric of this package accepts: one
    row per query and one column per item id.  An item ranked at position
    ``p`` (0 = top) of a list of length ``L`` gets the score ``L - p``; an
    item absent from the list gets ``-inf`` (not retrieved, not a
    candidate), so a relevant item that was not recommended still counts in
    recall and in the ideal ranking of NDCG (and in GAUC, below every
    recommended item), while the other columns -- the other queries' items,
    the rest of ``items`` -- change no query's value (:ref:`candidates`).

    Read more in the :ref:`User Guide <input_forms>`.

    Parameters
    ----------
    ranked : sequence of n_queries sequences of hashable ids
        The ranked (recommended, retrieved) items of each query, best
        first.  Lists may have different lengths, including 0.  Ids may be
        any hashable (ints, strings, tuples, ...) but not None or NaN, and
        each id may appear only once in a list.

    relevant : sequence of n_queries collections or dicts
        The relevant items of each query, in the same query order as
        ``ranked``: a set, list, tuple or array of ids (each with grade 1),
        or a dict mapping id to a relevance grade >= 0 for graded
        relevance.  None or an empty collection means no relevant item.
        Relevant ids need not appear in ``ranked``.

    items : array-like of shape (n_items,), default=None
        The item id of each column, e.g. the whole catalogue.  Every id of
        ``ranked`` and ``relevant`` must be in it.  If None, the columns are
        every id seen in ``ranked`` or ``relevant``, sorted (in order of
        first appearance if the ids cannot be sorted together).

    sparse_output : bool, default=False
        If True, ``y_true`` is a ``scipy.sparse`` CSR matrix, which keeps
        large catalogues small; ``y_score`` stays dense.

    Returns
    -------
    y_true : ndarray or scipy.sparse.csr_matrix of shape (n_queries, n_items)
        Relevance grades: int when every grade is an int (sets, lists, int
        dict values), float otherwise; 0 for items that are not relevant.

    y_score : ndarray of shape (n_queries, n_items), dtype float64
        ``L - p`` for the item at position ``p`` of a list of length ``L``,
        ``-inf`` for the items a query did not rank.

    items : ndarray of shape (n_items,)
        The item id of each column.

    See Also
    --------
    ndcg_at_k, precision_at_k, recall_at_k : Metrics taking the result.

    Notes
    -----
    ``y_score`` is dense, ``n_queries * n_items`` floats.  For many queries
    over a large catalogue, convert and score the queries in chunks (pass
    the same ``items`` to every chunk), or build the long form (one row per
    ranked or relevant (query, item) pair, with ``query_id``) directly.

    Examples
    --------
    The example of the seed notes: three users, their top-5
    recommendations and the items each actually liked.

    >>> from sklearn_rankmetrics import (
    ...     ndcg_at_k, precision_at_k, ranked_lists_to_arrays, recall_at_k)
    >>> ranked = [[2, 5, 1, 3, 9], [6, 2, 0, 12, 8], [1, 6, 7, 11, 2]]
    >>> relevant = [[3, 10, 7, 21], [15, 0, 5, 2, 13], [19]]
    >>> y_true, y_score, items = ranked_lists_to_arrays(ranked, relevant)
    >>> items
    array([ 0,  1,  2,  3,  5,  6,  7,  8,  9, 10, 11, 12, 13, 15, 19, 21])
    >>> y_score[0]
    array([-inf,   3.,   5.,   2.,   4., -inf, -inf, -inf,   1., -inf, -inf,
           -inf, -inf, -inf, -inf, -inf])
    >>> y_true[0]
    array([0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1])
    >>> round(precision_at_k(y_true, y_score, k=5), 6)
    0.2
    >>> round(recall_at_k(y_true, y_score, k=5), 6)
    0.216667
    >>> round(recall_at_k(y_true, y_score, k=5, average="micro"), 6)
    0.3
    >>> round(ndcg_at_k(y_true, y_score, k=5), 6)
    0.183898

    Graded relevance with a dict per query, string ids, and a sparse
    ``y_true``:

    >>> y_true, y_score, items = ranked_lists_to_arrays(
    ...     [["b", "a"], ["c"]], [{"a": 3, "c": 1}, {"c": 2}],
    ...     sparse_output=True)
    >>> items
    array(['a', 'b', 'c'], dtype='<U1')
    >>> y_true.toarray()
    array([[3, 0, 1],
           [0, 0, 2]])
    >>> y_score
    array([[  1.,   2., -inf],
           [-inf, -inf,   1.]])
    """
    if not isinstance(sparse_output, (bool, np.bool_)):
        raise TypeError(f"sparse_output must be True or False; got {sparse_output!r}.")
    ranked = _outer_sequence("ranked", ranked)
    relevant = _outer_sequence("relevant", relevant)
    if len(ranked) != len(relevant):
        raise ValueError(
            f"ranked and relevant must have one entry per query; got "
            f"{len(ranked)} ranked lists and {len(relevant)} relevant "
            "collections."
        )
    n_queries = len(ranked)
    if n_queries == 0:
        raise ValueError("ranked is empty; pass at least one query.")

    ranked = [_ranked_list(i, lst) for i, lst in enumerate(ranked)]
    rel_ids, rel_grades = [], []
    for i, collection in enumerate(relevant):
        ids, grades = _relevant_entries(i, collection)
        rel_ids.append(ids)
        rel_grades.append(grades)

    len_ranked = np.fromiter(map(len, ranked), dtype=np.intp, count=n_queries)
    len_rel = np.fromiter(map(len, rel_ids), dtype=np.intp, count=n_queries)
    flat_ranked = list(chain.from_iterable(ranked))
    flat_rel = list(chain.from_iterable(rel_ids))

    try:
        seen = dict.fromkeys(chain(flat_ranked, flat_rel))
    except TypeError:
        raise TypeError(
            "ranked and relevant must hold hashable ids (ints, strings, "
            "tuples, ...); found an unhashable one such as a list."
        ) from None
    _check_no_missing(seen, ranked, rel_ids)
    if items is None:
        try:
            columns = sorted(seen)
        except TypeError:  # ids of types that do not compare: first seen
            columns = list(seen)
        items = _ids_array(columns)
    else:
        columns, items = _check_items(items)
    index = {item: j for j, item in enumerate(columns)}
    n_items = len(columns)
    cols_ranked = _lookup(index, flat_ranked, "ranked", ranked)
    cols_rel = _lookup(index, flat_rel, "relevant", rel_ids)

    rows = np.repeat(np.arange(n_queries, dtype=np.intp), len_ranked)
    starts = np.cumsum(len_ranked) - len_ranked
    position = np.arange(rows.shape[0]) - starts[rows]
    _check_unique_in_lists(rows, cols_ranked, n_items, position, ranked)

    y_score = np.full((n_queries, n_items), -np.inf)
    y_score[rows, cols_ranked] = len_ranked[rows] - position

    grades = _grades_array(list(chain.from_iterable(rel_grades)))
    rel_rows = np.repeat(np.arange(n_queries, dtype=np.intp), len_rel)
    keep = grades > 0
    rel_rows, cols_rel, grades = rel_rows[keep], cols_rel[keep], grades[keep]
    if sparse_output:
        y_true = sp.csr_matrix(
            (grades, (rel_rows, cols_rel)), shape=(n_queries, n_items)
        )
    else:
        y_true = np.zeros((n_queries, n_items), dtype=grades.dtype)
        y_true[rel_rows, cols_rel] = grades
    return y_true, y_score, items


# ---------------------------------------------------------------------------
# Checks and conversions
# ---------------------------------------------------------------------------
def _outer_sequence(name, value):
    """The per-query sequence ``ranked`` or ``relevant`` as a list."""
    if isinstance(value, (str, bytes, Mapping, Set)) or value is None:
        raise TypeError(
            f"{name} must be a sequence (list, tuple, array) with one entry "
            f"per query, got {type(value).__name__}. For a dict keyed by "
            f"query, pass [{name}[q] for q in queries] with one fixed query "
            "order for both arguments."
        )
    if sp.issparse(value):
        raise TypeError(f"{name} must be a sequence of id lists, not a sparse matrix.")
    try:
        return list(value)
    except TypeError:
        raise TypeError(
            f"{name} must be a sequence with one entry per query, got "
            f"{type(value).__name__}."
        ) from None


def _ranked_list(i, lst):
    """``ranked[i]`` as a list of ids (an ordered sequence, not a set)."""
    if isinstance(lst, (str, bytes)):
        raise TypeError(
            f"ranked[{i}] is a string; pass a list of ids such as "
            f"[{lst!r}] (a string is not split into characters)."
        )
    if isinstance(lst, (Set, Mapping)) or lst is None:
        raise TypeError(
            f"ranked[{i}] must be an ordered sequence of ids (best first), "
            f"got {type(lst).__name__}; pass [] for a query that ranked "
            "nothing."
        )
    try:
        return list(lst)
    except TypeError:
        raise TypeError(
            f"ranked[{i}] must be a sequence of ids, got {type(lst).__name__}."
        ) from None


def _relevant_entries(i, collection):
    """Ids and grades of ``relevant[i]``: a collection (grade 1) or a dict."""
    if collection is None:
        return [], []
    if isinstance(collection, (str, bytes)):
        raise TypeError(
            f"relevant[{i}] is a string; pass a collection of ids such as "
            f"[{collection!r}], or a dict id -> grade."
        )
    if isinstance(collection, Mapping):
        ids = list(collection.keys())
        grades = list(collection.values())
        for item, grade in zip(ids, grades, strict=True):
            _check_grade(i, item, grade)
        return ids, grades
    try:
        ids = list(dict.fromkeys(collection))  # a relevant id counts once
    except TypeError:
        raise TypeError(
            f"relevant[{i}] must be a collection of hashable ids or a dict "
            f"id -> grade, got {type(collection).__name__} (or an unhashable "
            "id in it)."
        ) from None
    return ids, [1] * len(ids)


def _check_grade(i, item, grade):
    if isinstance(grade, (bool, np.bool_)):
        return
    if not isinstance(grade, numbers.Real):
        raise TypeError(
            f"relevant[{i}][{item!r}] must be a number (a relevance grade "
            f">= 0), got {grade!r}."
        )
    try:
        finite = math.isfinite(grade)
    except OverflowError:  # an int too large for a float
        finite = False
    if not (finite and grade >= 0):
        raise ValueError(
            f"relevant[{i}][{item!r}] = {grade!r}; relevance grades must be "
            "finite and >= 0."
        )


def _grades_array(grades):
    """Int64 when every grade is an int (or bool), float64 otherwise."""
    arr = np.asarray(grades) if grades else np.zeros(0, dtype=np.int64)
    if arr.dtype.kind in "bi" or (arr.dtype.kind == "u" and arr.max() < 2**63):
        return arr.astype(np.int64)
    return arr.astype(np.float64)


def _ids_array(ids):
    """A 1-D array of ids: a plain dtype for ints or strings, else object."""
    if len({type(v) for v in ids}) == 1:
        arr = np.asarray(ids)
        if arr.ndim == 1 and arr.dtype.kind in "biufUS":
            return arr
    arr = np.empty(len(ids), dtype=object)
    for j, v in enumerate(ids):
        arr[j] = v
    return arr


def _check_items(items):
    """The column ids as a list (for the index) and as a 1-D array."""
    if isinstance(items, (str, bytes)) or sp.issparse(items):
        raise TypeError("items must be a 1-D sequence of item ids.")
    try:
        columns = list(items.to_numpy() if hasattr(items, "to_numpy") else items)
    except TypeError:
        raise TypeError(
            f"items must be a 1-D sequence of item ids, got {type(items).__name__}."
        ) from None
    arr = np.asarray(items) if isinstance(items, np.ndarray) else _ids_array(columns)
    if arr.ndim != 1:
        raise ValueError(f"items must be 1-D, got shape {arr.shape}.")
    if not columns:
        raise ValueError("items is empty; pass at least one item id.")
    for j, v in enumerate(columns):
        if _is_missing(v):
            raise ValueError(f"items[{j}] is None or NaN; every column needs an id.")
    try:
        unique = dict.fromkeys(columns)
    except TypeError:
        raise TypeError("items must hold hashable ids.") from None
    if len(unique) != len(columns):
        dup = next(v for v, c in _counts(columns).items() if c > 1)
        raise ValueError(f"items lists the id {dup!r} more than once.")
    return columns, arr


def _counts(values):
    counts = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return counts


def _check_no_missing(seen, ranked, rel_ids):
    """Raise if None or NaN is used as an id, naming where."""
    if not any(_is_missing(v) for v in seen):
        return
    for name, lists in (("ranked", ranked), ("relevant", rel_ids)):
        for i, lst in enumerate(lists):
            for p, v in enumerate(lst):
                if _is_missing(v):
                    where = f"{name}[{i}][{p}]" if name == "ranked" else f"{name}[{i}]"
                    raise ValueError(
                        f"{where} is a missing id ({v!r}); None and NaN "
                        "cannot identify an item."
                    )


def _lookup(index, flat, name, lists):
    """Column of every id of ``flat``; ValueError for an id not in items."""
    try:
        return np.fromiter((index[v] for v in flat), dtype=np.intp, count=len(flat))
    except KeyError as exc:
        (item,) = exc.args
        i = next(i for i, lst in enumerate(lists) if item in lst)
        raise ValueError(
            f"{name}[{i}] contains the id {item!r}, which is not in items; "
            "add it to items or pass items=None."
        ) from None
    except TypeError:
        raise TypeError(f"{name} contains an unhashable id.") from None


def _check_unique_in_lists(rows, cols, n_items, position, ranked):
    """Each id may be ranked once per query."""
    if rows.size < 2:
        return
    key = rows * n_items + cols
    order = np.argsort(key, kind="stable")
    same = np.flatnonzero(key[order][1:] == key[order][:-1])
    if same.size:
        first, second = order[same[0]], order[same[0] + 1]
        i = int(rows[first])
        item = ranked[i][position[first]]
        raise ValueError(
            f"ranked[{i}] lists the id {item!r} twice (positions "
            f"{position[first]} and {position[second]}); an item can be "
            "ranked only once per query."
        )
