"""Beyond-accuracy metrics of recommendation lists: coverage, Gini, exposure
entropy, popularity, novelty, intra-list diversity and serendipity.

Input forms.  In the 2-D forms (dense ``y_true``, or sparse ``y_true`` with a
dense ``y_score``, as for the ranking metrics) rows are users and columns are
the catalogue's items.  A sparse ``y_score`` is refused, as by the ranking
metrics: its unstored entries would be scores 0.  In the long form
(``query_id=`` one user per row, ``item_id=`` one item per row) a user's
candidates are the rows of that user; an item without a row for a user is not
recommended to them, exactly as an item scored ``-inf`` in the 2-D form.
The catalogue of the long form is ``range(n_items)`` (``item_id`` are then
column numbers, integers ``0 <= id < n_items``), where ``n_items`` is given,
or else the length of ``item_popularity`` / the rows of ``item_features``;
without any of them, the catalogue is the set of distinct ``item_id`` (any
sortable ids).  A (user, item) pair may appear once.

Ties are exact.  In a user's list, let ``L = min(k, r)`` be the list length,
``r`` the number of retrieved items (score above ``-inf``), ``t`` the
``L``-th largest score, ``a`` the number of items scored above ``t`` and
``g`` the number scored exactly ``t``.  Over the ``g!`` equally likely
orderings of the tied group cut by ``k``, each of its items is in the list
with probability ``s / g`` where ``s = L - a`` (``s`` of the ``g``
positions are kept and every item is equally likely to occupy each), and two
of its items are both in the list with probability
``s (s - 1) / (g (g - 1))``.  Items above ``t`` are in the list with
probability 1, items below it (and ``-inf``) with probability 0.  An item
whose score is shared by ``m`` items, ``h`` of the user's items scoring
higher, is at each rank ``h + 1, ..., h + m`` with probability ``1 / m``
(serendipity depends on the rank).

Users.  The metrics that do not read relevance count every user: coverage,
Gini and entropy count every list; the per-user means (popularity, novelty,
diversity, serendipity) average over the users whose list is not empty (and,
for diversity, has two items), whatever their held-out relevance.
"""

import numbers
import warnings
from typing import NamedTuple

import numpy as np

from .._engine._rank import sorted_by_query
from .._engine._select import _csr_values, _dense_top, _map_chunks, _row_chunks
from .._utils._averaging import mean_of_totals, weighted_sum
from .._utils._validation import (
    _as_array,
    _check_ties,
    check_inputs,
    check_real,
    issparse,
    undefined_metric_warning,
    user_stacklevel,
)
from ._base import with_convention

__all__ = []  # private module

_BLOCK_BYTES = 1 << 24


def _check_k(k):
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be a positive integer, got {k!r}.")
    if k < 1:
        raise ValueError(f"k must be a positive integer (k >= 1), got {k}.")
    return int(k)


def _check_n_items(n_items):
    if n_items is None:
        return None
    if isinstance(n_items, (bool, np.bool_)) or not isinstance(
        n_items, numbers.Integral
    ):
        raise TypeError(f"n_items must be a positive integer, got {n_items!r}.")
    if n_items < 1:
        raise ValueError(f"n_items must be a positive integer, got {n_items}.")
    return int(n_items)


class _Lists(NamedTuple):
    """The top-``k`` lists of every user as entries, with inclusion
    probabilities.

    The entries are the items that may be in a list (scored at least the
    cut score ``t``), sorted by (user, item): ``user``, ``item``, ``score``,
    ``rel`` (held-out relevance, 0 when absent) and ``p`` (probability of
    being in the list).  Per user: ``L`` (list length), ``frac`` (``s / g``,
    inclusion probability of the tied group cut by ``k``, 0 without one) and
    ``a2`` (probability that two given items of that group are both in).
    """

    n_users: int
    n_items: int
    user: np.ndarray
    item: np.ndarray
    score: np.ndarray
    rel: np.ndarray
    p: np.ndarray
    tied: np.ndarray
    L: np.ndarray
    frac: np.ndarray
    a2: np.ndarray


def _finish(n_users, n_items, user, item, score, rel, L):
    """Inclusion probabilities of the entries (see the module notes)."""
    t = np.full(n_users, np.inf)
    np.minimum.at(t, user, score)
    above = score > t[user]
    tied = ~above
    a = np.bincount(user, weights=above, minlength=n_users)
    g = np.bincount(user, weights=tied, minlength=n_users)
    s = L - a
    gsafe = np.maximum(g, 1)
    frac = np.where(g > 0, s / gsafe, 0.0)
    a2 = np.where(g > 1, s * (s - 1) / (gsafe * np.maximum(g - 1, 1)), 0.0)
    p = np.where(above, 1.0, frac[user])
    return _Lists(n_users, n_items, user, item, score, rel, p, tied, L, frac, a2)


def _break_ties(n_users, user, item, score, rel, L, pos, ties):
    """The entries of one ordering of the tied items: ``ties="input_order"``
    ranks a tie group by position ``pos`` (the column in the 2-D forms, the
    row in the long form), ``"pessimistic"`` / ``"optimistic"`` by increasing
    / decreasing grade first (as the ranking metrics).  Returns the first
    ``L`` entries of each user, scored ``-rank`` (no two alike), sorted by
    (user, item)."""
    keys = [pos]
    if ties == "pessimistic":
        keys.append(rel)
    elif ties == "optimistic":
        keys.append(-rel)
    order = np.lexsort((*keys, -score, user))
    u = user[order]
    rank = np.arange(u.size) - np.searchsorted(u, np.arange(n_users))[u]
    keep = rank < L[u]
    sel = order[keep]
    by_item = np.lexsort((item[sel], user[sel]))
    sel = sel[by_item]
    new_score = -rank[keep][by_item].astype(np.float64)
    return user[sel], item[sel], new_score, rel[sel]


def _select(n_users, n_items, user, item, score, rel, L, pos, ties):
    """:func:`_finish` the entries, after :func:`_break_ties` unless the tie
    rule is the expected value over the orderings."""
    if ties != "expected":
        user, item, score, rel = _break_ties(
            n_users, user, item, score, rel, L, pos, ties
        )
    return _finish(n_users, n_items, user, item, score, rel, L)


def _dense_entries(Y, S, k, ties="expected", columns=None, n_items=None):
    """Entries of the 2-D forms (``Y`` dense or canonical CSR, ``S`` dense),
    from the engine's top-``k`` selection: each row's top ``k`` and every
    item of the tie group that ``k`` cuts.

    With ``columns`` (``factor_ranking_report``'s candidates), ``Y`` and
    ``S`` hold some of each user's items of a catalogue of ``n_items`` --
    at least its top ``k`` and the group ``k`` cuts, padded with ``-inf``
    -- and ``columns[i, j]`` is the item of ``S[i, j]``, increasing along
    each row: the same entries as from the whole rows."""
    n_users, width = S.shape
    if columns is None:
        n_items = width
    K = min(k, width)

    def chunk(a, b):
        idx, top, rows, (r, c), _ = _dense_top(S[a:b], K, False)
        keep = top > -np.inf
        L = np.count_nonzero(keep, axis=1)
        if rows.size:  # the cut groups are (r, c), all their items
            keep[rows] &= top[rows] != top[rows, K - 1][:, None]
        u, j = np.nonzero(keep)
        users = np.concatenate([u, r]) + a
        items = np.concatenate([idx[u, j], c])
        order = np.lexsort((items, users))
        return users[order], items[order], L

    parts = _map_chunks(chunk, _row_chunks(n_users, 8 * width))
    user = np.concatenate([p[0] for p in parts]).astype(np.intp, copy=False)
    item = np.concatenate([p[1] for p in parts]).astype(np.intp, copy=False)
    L = np.concatenate([p[2] for p in parts]).astype(np.float64)
    score = S[user, item]
    if issparse(Y):
        rel = _csr_values(Y, user, item)
    else:
        rel = np.asarray(Y[user, item], dtype=np.float64)
    if columns is not None:
        item = columns[user, item]
    return _select(n_users, n_items, user, item, score, rel, L, item, ties)


def _item_codes(item_id, n_rows, n_items, labels=False):
    """Column numbers of the long form's items, and the catalogue size.

    With ``n_items`` given, integer ids are column numbers; with
    ``labels=True`` (no per-item array to align them with) other ids are
    labels of some of the ``n_items`` items of the catalogue."""
    if item_id is None:
        raise ValueError(
            "query_id is given (the long form), so item_id= is required: one "
            "item id per row, telling which item each row scores."
        )
    if issparse(item_id):
        raise TypeError("item_id must be a dense 1-D array of ids, not sparse.")
    ids = _as_array("item_id", item_id)
    if ids.ndim != 1 or ids.shape[0] != n_rows:
        raise ValueError(
            f"item_id must be 1-D with one id per row of the long form "
            f"({n_rows}), got shape {ids.shape}."
        )
    integers = ids.dtype.kind in "iu" or (
        ids.dtype.kind == "f" and np.all(ids == np.floor(ids))
    )
    if n_items is None or (labels and not integers):
        if ids.dtype.kind == "f" and np.isnan(ids).any():
            raise ValueError("item_id contains NaN; every row needs an item id.")
        try:
            uniques, codes = np.unique(ids, return_inverse=True)
        except TypeError:
            raise TypeError(
                "item_id mixes types that cannot be sorted; use one type for every id."
            ) from None
        if n_items is not None and uniques.size > n_items:
            raise ValueError(
                f"item_id names {uniques.size} distinct items but n_items={n_items}; "
                "n_items is the catalogue size, at least the number of items seen."
            )
        return codes.reshape(-1).astype(np.intp), (
            uniques.size if n_items is None else n_items
        )
    if not integers:
        raise TypeError(
            "item_id must hold integer column numbers 0..n_items-1 when the "
            "catalogue is given (n_items=, item_popularity= or item_features=)."
        )
    if ids.size and (ids.min() < 0 or ids.max() >= n_items):
        raise ValueError(
            f"item_id must be column numbers in [0, {n_items}) (the catalogue "
            f"size from n_items=, item_popularity= or item_features=), got "
            f"values in [{ids.min()}, {ids.max()}]."
        )
    return ids.astype(np.intp), n_items


def _long_entries(y, s, user, n_users, item, n_items, k, ties="expected"):
    """Entries of the long form: each user's rows scored at least the cut."""
    order = sorted_by_query(user, n_users, item)
    u_sorted, i_sorted = user[order], item[order]
    dup = (u_sorted[1:] == u_sorted[:-1]) & (i_sorted[1:] == i_sorted[:-1])
    if dup.any():
        j = order[1:][dup][0]
        raise ValueError(
            f"item_id repeats an item within a query (row {j}); each (query, "
            "item) pair may appear once."
        )
    retrieved = s > -np.inf
    n_ret = np.bincount(user[retrieved], minlength=n_users)
    L = np.minimum(k, n_ret)
    # the L-th largest retrieved score of each user
    by_score = sorted_by_query(user, n_users, -s)
    starts = np.concatenate(([0], np.cumsum(np.bincount(user, minlength=n_users))))
    t = np.full(n_users, np.inf)
    has = L > 0
    t[has] = s[by_score[starts[:-1][has] + L[has] - 1]]
    keep = order[(s[order] >= t[u_sorted]) & retrieved[order]]
    return _select(
        n_users,
        n_items,
        user[keep],
        item[keep],
        s[keep],
        y[keep],
        L.astype(float),
        keep,  # the row: the position of the long form
        ties,
    )


def _catalogue_warning(names):
    warnings.warn(
        f"{', '.join(names)}: in the long form without n_items= the catalogue "
        "is taken to be the distinct item_id, and an item without any row "
        "(never a candidate) is left out of it, which raises these values (a "
        "table of recommendations alone covers its whole 'catalogue').  Pass "
        "n_items= the catalogue size (item_id then column numbers 0..n_items-1, "
        "or any labels of some of its items).",
        UserWarning,
        stacklevel=user_stacklevel(),
    )


def _lists(
    y_true,
    y_score,
    k,
    query_id,
    item_id,
    n_items,
    catalogue=None,
    ties="expected",
    warn_catalogue=(),
):
    """Validate the inputs of a beyond-accuracy metric and select its lists.

    ``catalogue`` is the catalogue size implied by ``item_popularity`` /
    ``item_features`` (None if neither is given); ``ties`` the tie rule
    (checked); ``warn_catalogue`` names the metrics that read the catalogue
    size, which warn in the long form when neither gives it.
    """
    k = _check_k(k)
    n_items = _check_n_items(n_items)
    if query_id is None:
        if item_id is not None:
            raise TypeError(
                "item_id= is for the long form (with query_id=); in the 2-D "
                "forms the columns are the items."
            )
        form, Y, S, _, _, _ = check_inputs(y_true, y_score, None, None)
        if n_items is not None and n_items != S.shape[1]:
            raise ValueError(
                f"n_items={n_items} but y_score has {S.shape[1]} columns (items); "
                "n_items is for the long form, drop it."
            )
        return _dense_entries(Y, np.asarray(S, dtype=np.float64), k, ties)
    _, y, s, codes, ids, _ = check_inputs(y_true, y_score, query_id, None)
    labels = catalogue is None
    if n_items is None:
        n_items = catalogue
        if n_items is None and warn_catalogue:
            _catalogue_warning(warn_catalogue)
    elif catalogue is not None and catalogue != n_items:
        raise ValueError(
            f"n_items={n_items} disagrees with the catalogue size {catalogue} of "
            "item_popularity / item_features."
        )
    item, n_items = _item_codes(item_id, s.shape[0], n_items, labels)
    y = np.asarray(y, dtype=np.float64)
    return _long_entries(y, s, codes, ids.shape[0], item, n_items, k, ties)


_FORM_PARAMS = """y_score : array-like of shape (n_users, n_items) or (n_rows,)
        Scores; items scored ``-inf`` (or, in the long form, without a row)
        are never recommended.
    k : int, default=10
        List length; above the catalogue size, the whole catalogue.
    query_id : array-like of shape (n_rows,), default=None
        Long form: the user of each row.
    item_id : array-like of shape (n_rows,), default=None
        Long form (required there): the item of each row.
    n_items : int, default=None
        Long form: the catalogue size, integer ``item_id`` being column
        numbers ``0 <= id < n_items`` (other ids, without
        ``item_popularity`` / ``item_features``, are labels of some of the
        ``n_items`` items); by default the length of ``item_popularity``
        or rows of ``item_features`` when given, else the number of
        distinct ``item_id`` (coverage and the Gini index then warn: a
        catalogue item without any row would be left out).  The 2-D forms
        take the number of columns.
    ties : {"expected", "input_order", "pessimistic", "optimistic"}, \
default=None
        The tie rule, as for the ranking metrics: None is "expected" (or
        "input_order" with ``ignore_ties=True``), the exact expected value
        over the orderings of tied items; "input_order" ranks tied items by
        position (column, or row of the long form); "pessimistic" /
        "optimistic" rank them by increasing / decreasing grade first.
    ignore_ties : bool, default=False
        True is ``ties="input_order"``."""


def _check_beyond_ties(ties, ignore_ties):
    """The tie rule of a beyond-accuracy metric (the ranking metrics' rules
    but scikit-learn's AP-only "threshold")."""
    if isinstance(ties, str) and ties == "threshold":
        raise ValueError(
            "ties='threshold' is scikit-learn's rule for average precision; "
            "the beyond-accuracy metrics take 'expected', 'input_order', "
            "'pessimistic' or 'optimistic' (compute them in a separate report)."
        )
    return _check_ties(ties, ignore_ties)


def _fill_doc(func):
    if func.__doc__:  # None under python -OO
        func.__doc__ = func.__doc__.replace("{form_params}", _FORM_PARAMS)
    return func


def _item_mean(lists, values):
    """Per user with a list, the expected mean of ``values`` over the list
    (exact under ties: ``L`` does not depend on the ordering)."""
    per_user = np.bincount(
        lists.user, weights=lists.p * values[lists.item], minlength=lists.n_users
    )
    ok = lists.L > 0
    return per_user[ok] / lists.L[ok]


def _user_mean(lists, values):
    """Mean over users of the per-user values ``values(lists)``, every user
    counting once: the sums of the canonical chunks (:func:`_chunked_part`)
    over their count; nan without a user."""
    return mean_of_totals(*_chunked_part(lists, "users", lambda c: _sums(values(c))))


def _sums(values):
    """The ``"users"`` part of per-user values: ``(sum, count)``, every user
    counting once (the pairwise sum of :func:`weighted_mean`)."""
    return weighted_sum(None, values), values.size


# The canonical chunks of users.  Every surface computes a set metric's part
# (per-item products or counts, per-user sums) chunk by chunk, _CHUNK_USERS
# consecutive users at a time, merged in user order: the functions and
# ranking_report on the whole lists, factor_ranking_report streaming its
# blocks of users (holding one chunk's lists), so that they add the same
# numbers in the same order, bit for bit, whatever the blocks.  4096 users
# hold about 2 MiB of lists at k=10; each chunk's per-item part costs
# O(n_items), so much smaller chunks would cost time on large catalogues.
_CHUNK_USERS = 4096


def _user_range(lists, a, b):
    """The lists of the users ``a..b-1`` (numbered from ``a``)."""
    lo, hi = np.searchsorted(lists.user, [a, b])  # sorted by (user, item)
    cut = slice(lo, hi)
    return _Lists(
        b - a,
        lists.n_items,
        lists.user[cut] - a,
        *(getattr(lists, f)[cut] for f in ("item", "score", "rel", "p", "tied")),
        *(getattr(lists, f)[a:b] for f in ("L", "frac", "a2")),
    )


def _concat_lists(parts):
    """The lists of consecutive blocks of users as one: the same arrays as
    from all their rows at once (each block's entries are sorted by user
    and item, its users numbered from the block's first)."""
    if len(parts) == 1:
        return parts[0]
    offsets = np.cumsum([0] + [p.n_users for p in parts[:-1]])

    def cat(field):
        return np.concatenate([getattr(p, field) for p in parts])

    return _Lists(
        sum(p.n_users for p in parts),
        parts[0].n_items,
        np.concatenate([p.user + o for p, o in zip(parts, offsets, strict=True)]),
        *(cat(f) for f in ("item", "score", "rel", "p", "tied", "L", "frac", "a2")),
    )


def _merge_parts(kind, old, part):
    """Two parts of a set kernel of ``kind`` merged (``old`` first; None is
    no part yet): probabilities of no list multiply, counts and per-user
    ``(sum, count)`` add."""
    if old is None:
        return part
    if kind == "none":
        return old * part
    if kind == "counts":
        return old + part
    return (old[0] + part[0], old[1] + part[1])


def _chunked_part(lists, kind, part):
    """The part of ``kind`` of ``lists``: ``part`` of each canonical chunk
    of ``_CHUNK_USERS`` users, merged in user order (one chunk, possibly of
    no user, when there are at most ``_CHUNK_USERS`` users)."""
    n = lists.n_users
    if n <= _CHUNK_USERS:
        return part(lists)
    merged = None
    for a in range(0, n, _CHUNK_USERS):
        chunk = _user_range(lists, a, min(a + _CHUNK_USERS, n))
        merged = _merge_parts(kind, merged, part(chunk))
    return merged


def _coverage_none(lists):
    """Per item, the probability that no list has it."""
    none = np.ones(lists.n_items)
    np.multiply.at(none, lists.item, 1.0 - lists.p)
    return none


def _expected_counts(lists):
    """Expected number of lists each item is in."""
    return np.bincount(lists.item, weights=lists.p, minlength=lists.n_items)


@with_convention
@_fill_doc
def catalog_coverage_at_k(
    y_true,
    y_score,
    *,
    k=10,
    query_id=None,
    item_id=None,
    n_items=None,
    padding_items=0,
    ties=None,
    ignore_ties=False,
):
    """Share of the catalogue recommended to at least one user.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_users, n_items) or (n_rows,)
        Held-out relevance; validated, not used.
    {form_params}
    padding_items : int >= 0, default=0
        Items counted in the catalogue that are never recommended: RecBole's
        ``num_items`` counts its padding item (``convention="recbole"``
        sets 1).

    Returns
    -------
    coverage : float
        Expected number of distinct recommended items over the catalogue
        size.

    See Also
    --------
    gini_index_at_k : How evenly recommendations spread over items.
    exposure_entropy_at_k : Entropy of the items' recommendation shares.

    Notes
    -----
    With ``p_u(i)`` the probability that item ``i`` is in user ``u``'s list
    (under ties, :ref:`beyond_accuracy`), users
    being independent,

    .. math::

        \\mathrm{coverage} = \\frac{1}{n} \\sum_i
        \\Big(1 - \\prod_u (1 - p_u(i))\\Big)

    is the exact expected value over orderings of tied items (``n``: the
    catalogue size plus ``padding_items``).  It is RecTools'
    ``CatalogCoverage(normalize=True)``, and RecBole's ``ItemCoverage``
    with ``padding_items=1``, on lists without ties.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics import catalog_coverage_at_k
    >>> y_score = np.array([[3, 2, 1, 0], [3, 1, 2, 0]])
    >>> float(catalog_coverage_at_k(np.zeros((2, 4)), y_score, k=2))
    0.75

    The long form names the items; ``n_items`` is the catalogue size (here
    8 items, 4 of them with a row):

    >>> float(catalog_coverage_at_k(
    ...     [0, 0, 0, 0, 1], [3, 2, 1, 0, 5], k=2,
    ...     query_id=["u", "u", "u", "u", "v"],
    ...     item_id=["a", "b", "c", "d", "c"], n_items=8))
    0.375
    """
    ties = _check_beyond_ties(ties, ignore_ties)
    padding_items = _check_padding(padding_items)
    lists = _lists(
        y_true,
        y_score,
        k,
        query_id,
        item_id,
        n_items,
        ties=ties,
        warn_catalogue=("catalog_coverage_at_k",),
    )
    return _coverage(_chunked_part(lists, "none", _coverage_none), padding_items)


def _check_padding(padding_items):
    if isinstance(padding_items, (bool, np.bool_)) or not isinstance(
        padding_items, numbers.Integral
    ):
        raise TypeError(
            f"padding_items must be an integer >= 0, got {padding_items!r}."
        )
    if padding_items < 0:
        raise ValueError(f"padding_items must be >= 0, got {padding_items}.")
    return int(padding_items)


def _coverage(none, padding_items=0):
    """Coverage from each item's probability of being in no list."""
    if padding_items == 0:
        return float(np.mean(1.0 - none))
    return float(np.sum(1.0 - none) / (none.size + padding_items))


def _gini(counts):
    c = np.sort(counts)
    n = c.size
    total = c.sum()
    if total == 0:
        return float("nan")
    j = np.arange(1, n + 1)
    return float(np.sum((2 * j - n - 1) * c) / (n * total))


@with_convention
@_fill_doc
def gini_index_at_k(
    y_true,
    y_score,
    *,
    k=10,
    query_id=None,
    item_id=None,
    n_items=None,
    padding_items=0,
    ties=None,
    ignore_ties=False,
):
    """Gini index of the items' recommendation counts.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_users, n_items) or (n_rows,)
        Held-out relevance; validated, not used.
    {form_params}
    padding_items : int >= 0, default=0
        Items counted in the catalogue (with count 0) that are never
        recommended: RecBole's ``num_items`` counts its padding item
        (``convention="recbole"`` sets 1).

    Returns
    -------
    gini : float
        0 when every item is recommended equally often, towards 1 when a few
        items take all recommendations; ``nan`` if nothing is recommended.

    See Also
    --------
    catalog_coverage_at_k : Share of items recommended at all.
    exposure_entropy_at_k : Entropy of the items' recommendation shares.

    Notes
    -----
    With the ``n`` items' counts sorted ascending ``c_{(1)} \\le \\dots \\le
    c_{(n)}`` (items never recommended count 0), as RecBole's ``GiniIndex``:

    .. math::

        G = \\frac{\\sum_{j=1}^{n} (2j - n - 1)\\, c_{(j)}}{n \\sum_j c_j}

    RecBole divides by ``n |U| k`` instead of ``n \\sum_j c_j``: the same
    when every list is full; its ``n`` counts its padding item
    (``padding_items=1``).  Ties: the Gini of random counts has no simple
    closed form, so the documented rule is the Gini of the *expected* counts
    ``E[c_i] = \\sum_u p_u(i)``; without ties it is the plain value.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics import gini_index_at_k
    >>> y_score = np.array([[3, 2, 1, 0], [3, 2, 0, 1]])
    >>> float(gini_index_at_k(np.zeros((2, 4)), y_score, k=2))
    0.5
    """
    ties = _check_beyond_ties(ties, ignore_ties)
    padding_items = _check_padding(padding_items)
    lists = _lists(
        y_true,
        y_score,
        k,
        query_id,
        item_id,
        n_items,
        ties=ties,
        warn_catalogue=("gini_index_at_k",),
    )
    counts = _chunked_part(lists, "counts", _expected_counts)
    return _gini(_padded(counts, padding_items))


def _padded(counts, padding_items):
    """Counts with ``padding_items`` zeros (items never recommended)."""
    if padding_items == 0:
        return counts
    return np.concatenate([counts, np.zeros(padding_items)])


_ENTROPY_NORMALIZATIONS = ("none", "max", "recbole")


def _check_normalization(normalization):
    if normalization not in _ENTROPY_NORMALIZATIONS:
        raise ValueError(
            f"normalization must be one of {_ENTROPY_NORMALIZATIONS}, got "
            f"{normalization!r}."
        )


def _check_base(base):
    return None if base is None else check_real("base", base, low=1.0)


def _entropy(counts, normalization, base=None):
    total = counts.sum()
    if total == 0:
        return float("nan")
    share = counts[counts > 0] / total
    h = float(-np.sum(share * np.log(share)))
    if normalization == "max":
        return h / np.log(counts.size) if counts.size > 1 else 0.0
    if base is not None:  # nats to the unit of the base (2: bits)
        h = h / np.log(base)
    if normalization == "recbole":
        return h / share.size
    return h


@with_convention
@_fill_doc
def exposure_entropy_at_k(
    y_true,
    y_score,
    *,
    k=10,
    normalization="none",
    base=None,
    query_id=None,
    item_id=None,
    n_items=None,
    ties=None,
    ignore_ties=False,
):
    """Shannon entropy of the items' shares of all recommendations.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_users, n_items) or (n_rows,)
        Held-out relevance; validated, not used.
    {form_params}
    normalization : {"none", "max", "recbole"}, default="none"
        ``"none"``: the entropy in nats, from 0 (one item takes every
        recommendation) to ``log(n_items)`` (all items equally).  ``"max"``:
        divided by ``log(n_items)``, in [0, 1].  ``"recbole"``: divided by
        the number of items recommended at least once, as RecBole's
        ``ShannonEntropy``.
    base : float > 1, default=None
        Base of the logarithm (as :func:`scipy.stats.entropy`): None is
        ``e`` (nats), 2 gives bits -- Microsoft recommenders'
        ``distributional_coverage`` (``convention="recommenders"`` sets it).
        ``normalization="max"`` does not depend on it.

    Returns
    -------
    entropy : float
        ``nan`` if nothing is recommended.

    See Also
    --------
    gini_index_at_k : Inequality of the same counts.
    catalog_coverage_at_k : Share of items recommended at all.

    Notes
    -----
    With ``c_i`` the number of lists item ``i`` is in and
    ``q_i = c_i / \\sum_j c_j`` its share of the recommendations,

    .. math::

        H = -\\sum_{i : c_i > 0} q_i \\ln q_i

    (divided by ``ln(base)`` for another unit: ``base=2`` is Microsoft
    recommenders' ``distributional_coverage``, in bits).

    RecBole's ``ShannonEntropy@k`` takes ``q_i = c_i / (|U| k)`` (the same
    when every list is full), natural logarithms, and divides the sum by the
    number of distinct recommended items: ``normalization="recbole"``.
    Ties: as for :func:`gini_index_at_k`, the documented rule is the entropy
    of the *expected* counts ``E[c_i] = \\sum_u p_u(i)``.

    References
    ----------
    .. [1] C. E. Shannon, "A Mathematical Theory of Communication", Bell
       System Technical Journal 27, 1948.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics import exposure_entropy_at_k
    >>> y_score = np.array([[3, 2, 1, 0], [1, 0, 3, 2]])
    >>> h = exposure_entropy_at_k(np.zeros((2, 4)), y_score, k=2)
    >>> bool(np.isclose(h, np.log(4)))  # 4 items, equal shares
    True
    >>> float(exposure_entropy_at_k(np.zeros((2, 4)), y_score, k=2,
    ...                             normalization="max"))
    1.0
    """
    _check_normalization(normalization)
    base = _check_base(base)
    ties = _check_beyond_ties(ties, ignore_ties)
    lists = _lists(
        y_true,
        y_score,
        k,
        query_id,
        item_id,
        n_items,
        ties=ties,
        warn_catalogue=("exposure_entropy_at_k",) if normalization == "max" else (),
    )
    counts = _chunked_part(lists, "counts", _expected_counts)
    return _entropy(counts, normalization, base)


_SHARES = ("auto", "users", "active_users", "interactions")


def _popularity(item_popularity, share="auto"):
    """Counts per item and the share ``p(item)`` of novelty, as counts over
    its denominator: ``(counts, denominator)``."""
    if share not in _SHARES:
        raise ValueError(f"share must be one of {_SHARES}, got {share!r}.")
    if item_popularity is None:
        raise ValueError(
            "item_popularity is required: interaction counts per item (1-D) "
            "or a users x items training matrix."
        )
    if issparse(item_popularity) or np.ndim(item_popularity) == 2:
        import scipy.sparse as sp

        X = sp.csc_matrix(item_popularity)
        X.eliminate_zeros()
        counts = np.diff(X.indptr).astype(np.float64)
        if share in ("auto", "users"):
            return counts, max(X.shape[0], 1)
        if share == "active_users":  # rows with an interaction
            return counts, max(np.unique(X.indices).size, 1)
    else:
        counts = _counts_1d(item_popularity)
        if share in ("users", "active_users"):
            raise ValueError(
                f"share={share!r} needs the users x items training matrix as "
                "item_popularity (counts per item do not tell the number of "
                "users); pass the matrix or share='interactions'."
            )
    total = counts.sum()
    return counts, (total if total > 0 else 1.0)


def _counts_1d(item_popularity):
    counts = np.asarray(item_popularity, dtype=np.float64)
    if counts.ndim != 1:
        raise ValueError(
            f"item_popularity must be 1-D (one count per item) or a 2-D "
            f"training matrix, got shape {counts.shape}."
        )
    if not np.all(np.isfinite(counts)) or (counts < 0).any():
        raise ValueError("item_popularity must be finite and non-negative.")
    return counts


def _check_catalogue(name, size, lists):
    if size != lists.n_items:
        raise ValueError(
            f"{name} describes {size} items but the catalogue has "
            f"{lists.n_items} (columns of y_score, or n_items=); pass one "
            "entry per item."
        )


@with_convention
@_fill_doc
def average_popularity_at_k(
    y_true,
    y_score,
    *,
    k=10,
    item_popularity=None,
    query_id=None,
    item_id=None,
    n_items=None,
    ties=None,
    ignore_ties=False,
):
    """Mean popularity of recommended items.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_users, n_items) or (n_rows,)
        Held-out relevance; validated, not used.
    {form_params}
    item_popularity : array-like of shape (n_items,) or (n_train_users, n_items)
        Interaction counts per item, or a training matrix whose number of
        non-zero entries per column (users who interacted) is the count.

    Returns
    -------
    popularity : float
        Mean over users of the mean count of the items in their list; users
        with an empty list are skipped (``nan`` if all are).

    See Also
    --------
    novelty_at_k : Mean self-information of recommended items.

    Notes
    -----
    Exact under ties: the list length ``L_u`` is fixed, so the expected value
    is :math:`\\frac{1}{|U|}\\sum_u \\frac{1}{L_u}\\sum_i p_u(i)\\, c_i`.
    RecTools' ``AvgRecPopularity`` (``normalize=False``) and RecBole's
    ``AveragePopularity`` on lists without ties, with the training
    interactions as counts.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics import average_popularity_at_k
    >>> y_score = np.array([[3, 2, 1, 0]])
    >>> float(average_popularity_at_k(np.zeros((1, 4)), y_score, k=2,
    ...                               item_popularity=[10, 4, 1, 0]))
    7.0
    """
    ties = _check_beyond_ties(ties, ignore_ties)
    counts, _ = _popularity(item_popularity)
    lists = _lists(
        y_true, y_score, k, query_id, item_id, n_items, counts.size, ties=ties
    )
    _check_catalogue("item_popularity", counts.size, lists)
    return _user_mean(lists, lambda c: _item_mean(c, counts))


@with_convention
@_fill_doc
def novelty_at_k(
    y_true,
    y_score,
    *,
    k=10,
    item_popularity=None,
    share="auto",
    unseen="warn",
    query_id=None,
    item_id=None,
    n_items=None,
    ties=None,
    ignore_ties=False,
):
    """Mean self-information ``-log2 p(item)`` of recommended items.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_users, n_items) or (n_rows,)
        Held-out relevance; validated, not used.
    {form_params}
    item_popularity : array-like of shape (n_items,) or (n_train_users, n_items)
        A training matrix (its non-zero entries per column are the item's
        count), or counts per item.
    share : {"auto", "users", "active_users", "interactions"}, default="auto"
        ``p(item)``: ``"users"``, the share of the training matrix's users
        (rows) who interacted with the item; ``"active_users"``, the same
        over the rows with at least one interaction (RecTools'
        ``MeanInvUserFreq``, whose users are those of its interactions
        table); ``"interactions"``, the item's count over the sum of counts
        (Microsoft recommenders' ``novelty``); ``"auto"``, users for a
        matrix, interactions for counts.
    unseen : {"warn", "raise", "one", "zero"}, default="warn"
        An item never seen in training has ``p(item) = 0``: infinite
        self-information.  ``"warn"`` returns ``inf`` with an
        :class:`~sklearn.exceptions.UndefinedMetricWarning` when such an
        item may be recommended; ``"raise"`` raises a ``ValueError``;
        ``"one"`` counts it as seen once (RecTools: one user);
        ``"zero"`` gives it self-information 0 (Microsoft recommenders,
        whose merge drops it from the sum but not from the count).

    Returns
    -------
    novelty : float
        Mean over users of the mean self-information of their list (users
        with an empty list are skipped); ``inf`` if an item never seen in
        training may be recommended and ``unseen="warn"``.

    See Also
    --------
    average_popularity_at_k : Mean popularity of recommended items.

    Notes
    -----
    :math:`\\frac{1}{|U|}\\sum_u \\frac{1}{L_u}\\sum_i p_u(i)\\,(-\\log_2 p(i))`,
    exact under ties as the list length is fixed.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics import novelty_at_k
    >>> train = np.array([[1, 1, 0], [1, 0, 1], [1, 0, 0], [1, 0, 0]])
    >>> y_score = np.array([[3, 2, 1]])
    >>> float(novelty_at_k(np.zeros((1, 3)), y_score, k=2, item_popularity=train))
    1.0
    """
    unseen = _check_unseen(unseen)
    ties = _check_beyond_ties(ties, ignore_ties)
    counts, denominator = _popularity(item_popularity, share)
    lists = _lists(
        y_true, y_score, k, query_id, item_id, n_items, counts.size, ties=ties
    )
    _check_catalogue("item_popularity", counts.size, lists)
    _unseen_recommended(lists, counts, unseen)
    info = _information(counts, denominator, unseen)
    return _user_mean(lists, lambda c: _item_mean(c, info))


_UNSEEN = ("warn", "raise", "one", "zero")


def _check_unseen(unseen):
    if not isinstance(unseen, str) or unseen not in _UNSEEN:
        raise ValueError(f"unseen must be one of {_UNSEEN}, got {unseen!r}.")
    return unseen


def _information(counts, denominator, unseen="warn"):
    """Self-information ``-log2(count / denominator)`` of each item, under
    the ``unseen`` rule for the items of count 0."""
    if unseen == "one":
        counts = np.where(counts > 0, counts, 1.0)
    with np.errstate(divide="ignore"):
        info = -np.log2(counts / denominator)
    if unseen == "zero":
        info[counts == 0] = 0.0
    return info


def _unseen_items(lists, counts):
    """The items never seen in training (count 0) that may be in a list."""
    return np.unique(lists.item[(lists.p > 0) & (counts[lists.item] == 0)])


def _unseen_recommended(lists, counts, unseen):
    """Refuse or warn when an item never seen in training may be in a
    list (its self-information is infinite)."""
    if unseen not in ("warn", "raise"):
        return
    refuse_unseen(_unseen_items(lists, counts).size, unseen)


def refuse_unseen(n_unseen, unseen):
    """Novelty's ``unseen`` rule ("warn" or "raise") for ``n_unseen`` items
    never seen in training that may be in a list (nothing if none)."""
    if n_unseen == 0 or unseen not in ("warn", "raise"):
        return
    message = (
        f"novelty: {n_unseen} item(s) never seen in training (count 0 in "
        "item_popularity) may be recommended; their self-information "
        "-log2(0) is infinite, so novelty is inf.  Pass unseen='one' (count "
        "them as seen once, as RecTools), unseen='zero' (as Microsoft "
        "recommenders), or leave them out of the lists (score -inf)."
    )
    if unseen == "raise":
        raise ValueError(message)
    warnings.warn(message, undefined_metric_warning(), stacklevel=user_stacklevel())


@with_convention
@_fill_doc
def intra_list_diversity_at_k(
    y_true,
    y_score,
    *,
    k=10,
    item_features=None,
    metric="cosine",
    single_item="skip",
    query_id=None,
    item_id=None,
    n_items=None,
    ties=None,
    ignore_ties=False,
):
    """Mean pairwise distance between the items of each list.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_users, n_items) or (n_rows,)
        Held-out relevance; validated, not used.
    {form_params}
    item_features : array-like of shape (n_items, n_features)
        Item representations.
    metric : str or callable, default="cosine"
        Any metric of :func:`sklearn.metrics.pairwise_distances`, or
        ``"hamming_count"``: the number of features in which two items
        differ (RecTools' ``PairwiseHammingDistanceCalculator``;
        scikit-learn's ``"hamming"`` is that count over the number of
        features).
    single_item : "skip" or float, default="skip"
        The value of a list of one item (no pair): ``"skip"`` leaves the
        user out of the mean; a number scores it (RecTools scores it 0:
        ``single_item=0.0``).

    Returns
    -------
    ild : float
        Mean over users (with at least 2 items in their list, or 1 with a
        numeric ``single_item``) of the mean distance over the
        ``L (L - 1) / 2`` pairs of their list; ``nan`` if no user is scored.

    See Also
    --------
    novelty_at_k : Mean self-information of recommended items.

    Notes
    -----
    Exact under ties: with ``q_u(i, j)`` the probability that both items are
    in the list (under ties, :ref:`beyond_accuracy`),
    :math:`\\mathrm{ILD}_u = \\sum_{i<j} q_u(i, j)\\, d(i, j) / \\binom{L_u}{2}`.
    The ``n_items x n_items`` distance matrix is computed once.  RecTools'
    ``IntraListDiversity`` with its Hamming distance calculator is
    ``metric="hamming_count", single_item=0.0`` on lists without ties
    (``convention="rectools"``); Microsoft recommenders' ``diversity`` with
    ``item_sim_measure="item_feature_vector"`` is ``metric="cosine"`` (one
    minus the mean cosine similarity of the pairs).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics import intra_list_diversity_at_k
    >>> features = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    >>> y_score = np.array([[3, 2, 1], [3, 1, 2]])
    >>> float(intra_list_diversity_at_k(np.zeros((2, 3)), y_score, k=2,
    ...                                 item_features=features))
    0.5
    """
    single_item = _check_single_item(single_item)
    ties = _check_beyond_ties(ties, ignore_ties)
    D = _distances(item_features, metric)
    lists = _lists(
        y_true, y_score, k, query_id, item_id, n_items, D.shape[0], ties=ties
    )
    _check_catalogue("item_features", D.shape[0], lists)
    return _user_mean(lists, lambda c: _ild_values(c, D, single_item))


def _check_single_item(single_item):
    if isinstance(single_item, str) and single_item == "skip":
        return single_item
    if isinstance(single_item, (bool, np.bool_)) or not isinstance(
        single_item, numbers.Real
    ):
        raise TypeError(f"single_item must be 'skip' or a number, got {single_item!r}.")
    if not np.isfinite(single_item):
        raise ValueError(f"single_item must be finite, got {single_item}.")
    return float(single_item)


def _distances(item_features, metric):
    if item_features is None:
        raise ValueError("item_features (n_items x n_features) is required.")
    F = item_features if issparse(item_features) else np.asarray(item_features)
    if F.ndim != 2:
        raise ValueError("item_features must be 2-D (n_items x n_features).")
    from sklearn.metrics import pairwise_distances  # scikit-learn, when used

    if isinstance(metric, str) and metric == "hamming_count":
        # scikit-learn's (scipy's) "hamming" is the share of differing
        # features: times their number, rounded, the exact count
        dense = F.toarray() if issparse(F) else F
        D = np.rint(pairwise_distances(dense, metric="hamming") * F.shape[1])
    else:
        D = pairwise_distances(F, metric=metric)
    np.fill_diagonal(D, 0.0)
    return D


def _ild_values(lists, D, single_item="skip"):
    """Per user with two items or more (or one, with a numeric
    ``single_item``), the expected mean pairwise distance."""
    import scipy.sparse as sp

    n_users, user, item, p = lists.n_users, lists.user, lists.item, lists.p
    tied = lists.tied & (lists.frac[user] < 1)
    # sum over ordered pairs i != j of P(i and j in the list) d(i, j): the
    # product p_i p_j is right unless both are in the tied group cut by k
    pairs = np.zeros(n_users)
    tt = np.zeros(n_users)
    rows = max(1, _BLOCK_BYTES // (8 * max(lists.n_items, 1)))
    bounds = np.searchsorted(user, np.arange(0, n_users + rows, rows))
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        if lo == hi:
            continue
        u, i, pb, tb = user[lo:hi], item[lo:hi], p[lo:hi], tied[lo:hi]
        first = u[0]
        local = u - first
        nb = local[-1] + 1
        P = sp.csr_matrix((pb, (local, i)), shape=(nb, lists.n_items))
        PD = P @ D
        pairs[first : first + nb] = np.bincount(
            local, weights=pb * PD[local, i], minlength=nb
        )
        if tb.any():
            T = sp.csr_matrix(
                (np.ones(tb.sum()), (local[tb], i[tb])), shape=(nb, lists.n_items)
            )
            TD = T @ D
            tt[first : first + nb] = np.bincount(
                local[tb], weights=TD[local[tb], i[tb]], minlength=nb
            )
    pairs = pairs - (lists.frac**2 - lists.a2) * tt
    L = lists.L
    ok = L > 1
    values = pairs[ok] / (L[ok] * (L[ok] - 1))
    if single_item == "skip":
        return values
    single = np.full(np.count_nonzero(L == 1), single_item)
    return np.concatenate([values, single])


def _popularity_ranks(counts):
    """Dense rank of each item's count, most popular first (1); items never
    interacted with rank ``n_items + 1`` (RecTools' zero probability)."""
    seen = counts > 0
    levels = np.unique(counts[seen])
    rank = np.full(counts.size, counts.size + 1, dtype=np.float64)
    rank[seen] = levels.size - np.searchsorted(levels, counts[seen])
    return rank


@with_convention
@_fill_doc
def serendipity_at_k(
    y_true,
    y_score,
    *,
    k=10,
    item_popularity=None,
    query_id=None,
    item_id=None,
    n_items=None,
    ties=None,
    ignore_ties=False,
):
    """Relevant and unexpected: relevance times how much higher the model
    ranks an item than popularity would.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_users, n_items) or (n_rows,)
        Held-out relevance; an item is relevant if its grade is above 0.
    {form_params}
    item_popularity : array-like of shape (n_items,) or (n_train_users, n_items)
        Training interaction counts per item, or a training matrix (its
        non-zero entries per column are the counts).

    Returns
    -------
    serendipity : float
        Mean over the users with a non-empty list (whether they have
        relevant items or not) of their list's mean serendipity; ``nan`` if
        no user has a list.

    See Also
    --------
    novelty_at_k : Unexpectedness without relevance.

    Notes
    -----
    For the item at rank ``r`` of a list over a catalogue of ``n`` items,
    the probability that the model recommends it is taken as
    ``(n + 1 - r) / n`` and the probability that a popularity ranking does as
    ``(n + 1 - \\pi_i) / n``, where ``\\pi_i`` is the dense rank of the
    item's training count (1 for the most popular count, equal counts share
    a rank; items never seen in training have probability 0, i.e.
    ``\\pi_i = n + 1``).  The serendipity of a list of length ``L`` is

    .. math::

        \\mathrm{Ser}_u = \\frac{1}{L} \\sum_{r=1}^{L}
        \\mathrm{rel}(i_r) \\max\\Big(0, \\frac{\\pi_{i_r} - r}{n}\\Big),

    the difference of probabilities of Murakami et al. [1]_ (a model's
    recommendation probability minus a primitive, popularity-based one,
    counted for relevant items), in the rank form of RecTools'
    ``Serendipity`` metric, which this reproduces exactly on lists without
    ties (its ``catalog`` is our catalogue, its ``prev_interactions`` the
    training counts, its ``interactions`` the held-out relevance).  Ties:
    an item sharing its score with ``m`` items, ``h`` of the user's items
    scoring higher, is at each rank ``h + 1..h + m`` with probability
    ``1 / m`` (and out of the list beyond ``L``): the exact expected value.

    Microsoft recommenders' ``serendipity`` is a different measure (one
    minus the mean similarity of an item to the user's training items,
    times relevance) and is not reproduced.

    References
    ----------
    .. [1] T. Murakami, K. Mori, R. Orihara, "Metrics for Evaluating the
       Serendipity of Recommendation Lists", New Frontiers in Artificial
       Intelligence (JSAI 2007), LNCS 4914, Springer, 2008.

    Examples
    --------
    RecTools' documented example: 4 users, catalogue ``i1..i4``, training
    counts ``i1: 3, i2: 2`` (ranks 1 and 2; ``i3``, ``i4`` unseen):

    >>> import numpy as np
    >>> from sklearn_rankmetrics import serendipity_at_k
    >>> y_score = np.array([[2, 1, -np.inf, -np.inf],   # u1: i1, i2
    ...                     [-np.inf, 2, 1, -np.inf],   # u2: i2, i3
    ...                     [-np.inf, -np.inf, 1, -np.inf],  # u3: i3
    ...                     [-np.inf, 2, 1, -np.inf]])  # u4: i2, i3
    >>> y_true = np.array([[1, 1, 0, 0], [0, 1, 1, 0], [0, 1, 0, 0],
    ...                    [0, 1, 0, 0]])
    >>> float(serendipity_at_k(y_true, y_score, k=2,
    ...                        item_popularity=[3, 2, 0, 0]))
    0.15625
    """
    ties = _check_beyond_ties(ties, ignore_ties)
    counts, _ = _popularity(item_popularity)
    lists = _lists(
        y_true, y_score, k, query_id, item_id, n_items, counts.size, ties=ties
    )
    _check_catalogue("item_popularity", counts.size, lists)
    ranks = _popularity_ranks(counts)
    return _user_mean(lists, lambda c: _serendipity_values(c, ranks))


def _serendipity_values(lists, ranks):
    """Per user with a list, the expected serendipity (``ranks``: the
    items' popularity ranks)."""
    n = lists.n_items
    user, score = lists.user, lists.score
    # h (items scoring higher in the same list) and m (items with the score)
    order = np.lexsort((-score, user))
    u_s, s_s = user[order], score[order]
    new = np.ones(order.size, dtype=bool)
    new[1:] = (u_s[1:] != u_s[:-1]) | (s_s[1:] != s_s[:-1])
    group = np.cumsum(new) - 1
    group_start = np.flatnonzero(new)
    m_sorted = np.diff(np.append(group_start, order.size))[group]
    user_start = np.searchsorted(u_s, np.arange(lists.n_users))
    h_sorted = group_start[group] - user_start[u_s]
    h = np.empty(order.size)
    m = np.empty(order.size)
    h[order] = h_sorted
    m[order] = m_sorted
    # sum over ranks r = h+1 .. min(h+m, L, pi-1) of (pi - r)
    pi = ranks[lists.item]
    last = np.minimum(np.minimum(h + m, lists.L[user]), pi - 1)
    cnt = np.maximum(last - h, 0)
    total = cnt * pi - cnt * (2 * h + 1 + cnt) / 2
    term = np.where(lists.rel > 0, total / (m * n), 0.0)
    per_user = np.bincount(user, weights=term, minlength=lists.n_users)
    ok = lists.L > 0
    return per_user[ok] / lists.L[ok]


# ---------------------------------------------------------------------------
# Set kernels: how a report reads each metric, block by block (the mergeable
# sums are _evaluation/_beyond_report.BeyondSums)
# ---------------------------------------------------------------------------


class SetKernel(NamedTuple):
    """How a report computes one beyond-accuracy metric from a block of users.

    ``part`` is what a block contributes and how blocks merge: ``"none"``
    (per item, the probability that no list has it: blocks multiply),
    ``"counts"`` (per item, its expected number of lists: blocks add) or
    ``"users"`` (per-user values: sums and counts add).  ``requires`` names
    the report option the metric needs (``"item_popularity"``,
    ``"item_features"``), if any; ``options`` the metric's own options;
    ``catalogue`` whether it reads the catalogue size (and so warns in
    the long form without it; exposure entropy only with
    ``normalization="max"``).  These metrics describe the set of lists,
    so a report has no per-query value for them.
    """

    part: str
    requires: tuple = ()
    options: tuple = ()
    catalogue: bool = False


def _finish_value(name, part, options):
    """The metric's value from its merged ``part``."""
    if name == "catalog_coverage":
        return _coverage(part, options["padding_items"])
    if name == "gini_index":
        return _gini(_padded(part, options["padding_items"]))
    if name == "exposure_entropy":
        return _entropy(part, options["normalization"], options["base"])
    total, n = part
    return mean_of_totals(total, n)


# The set kernel of each metric, read by its MetricSpec in the registry.
CATALOG_COVERAGE_KERNEL = SetKernel("none", options=("padding_items",), catalogue=True)
GINI_INDEX_KERNEL = SetKernel("counts", options=("padding_items",), catalogue=True)
EXPOSURE_ENTROPY_KERNEL = SetKernel("counts", options=("normalization", "base"))
AVERAGE_POPULARITY_KERNEL = SetKernel("users", ("item_popularity",))
NOVELTY_KERNEL = SetKernel("users", ("item_popularity",), ("share", "unseen"))
INTRA_LIST_DIVERSITY_KERNEL = SetKernel(
    "users", ("item_features",), ("metric", "single_item")
)
SERENDIPITY_KERNEL = SetKernel("users", ("item_popularity",))
