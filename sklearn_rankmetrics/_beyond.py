"""Beyond-accuracy metrics of recommendation lists: coverage, Gini, popularity,
novelty and intra-list diversity.

All metrics read the top-``k`` lists of a 2-D ``y_score`` (users x items,
columns are items); ``y_true`` (dense or sparse, same shape) is validated but
not used, since none of these definitions needs relevance.

Ties are exact.  In a row, let ``L = min(k, r)`` be the list length, ``r`` the
number of retrieved items (score above ``-inf``), ``t`` the ``L``-th largest
score, ``a`` the number of items scored above ``t`` and ``g`` the number scored
exactly ``t``.  Over the ``g!`` equally likely orderings of the tied group cut
by ``k``, each of its items is in the list with probability ``s / g`` where
``s = L - a`` (``s`` of the ``g`` positions are kept and every item is equally
likely to occupy each), and two of its items are both in the list with
probability ``s (s - 1) / (g (g - 1))``.  Items above ``t`` are in the list
with probability 1, items below it (and ``-inf``) with probability 0.
"""

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.metrics import pairwise_distances
from sklearn.utils import gen_batches

from ._conventions import with_convention
from ._engine import check_inputs

_BLOCK_BYTES = 1 << 24


def _check_k(k, n_items):
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be a positive integer, got {k!r}.")
    if k < 1:
        raise ValueError(f"k must be a positive integer (k >= 1), got {k}.")
    return int(min(k, n_items))


def _scores(y_true, y_score, k):
    form, _, s, _, _, _ = check_inputs(y_true, y_score, None, None)
    if form == "long" or sp.issparse(s):
        raise TypeError(
            "y_score must be a dense 2-D array (users x items); the long form "
            "is not supported by the beyond-accuracy metrics yet."
        )
    s = np.asarray(s, dtype=np.float64)
    if s.ndim != 2 or s.shape[1] == 0:
        raise ValueError(
            f"y_score must be a 2-D array (users x items), got shape {s.shape}."
        )
    if np.isnan(s).any():
        raise ValueError("y_score contains NaN; scores must be numbers or -inf.")
    return s, _check_k(k, s.shape[1])


def _blocks(n_rows, n_cols):
    rows = max(1, _BLOCK_BYTES // (8 * max(n_cols, 1)))
    return gen_batches(n_rows, rows)


def _inclusion(S, k):
    """Inclusion probabilities of a block of rows (see the module notes).

    Returns ``(P, tied, a2)``: ``P`` (rows x items) the probability that each
    item is in the top-``k`` list, ``tied`` the mask of the tied group cut by
    ``k`` and ``a2`` the per-row probability that two given items of it are
    both in the list.
    """
    retrieved = S > -np.inf
    n_ret = retrieved.sum(axis=1)
    L = np.minimum(k, n_ret)
    t = -np.partition(-S, k - 1, axis=1)[:, k - 1]
    above = S > t[:, None]
    tied = (S == t[:, None]) & retrieved
    a = above.sum(axis=1)
    g = tied.sum(axis=1)
    s = L - a
    gsafe = np.maximum(g, 1)
    frac = np.where(g > 0, s / gsafe, 0.0)
    a2 = np.where(g > 1, s * (s - 1) / (gsafe * np.maximum(g - 1, 1)), 0.0)
    P = above + tied * frac[:, None]
    return P, tied, a2, L


@with_convention
def catalog_coverage_at_k(y_true, y_score, *, k=10):
    """Share of the catalogue recommended to at least one user.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_users, n_items)
        Held-out relevance; validated, not used.
    y_score : array-like of shape (n_users, n_items)
        Scores; items scored ``-inf`` are never recommended.
    k : int, default=10
        List length; above the catalogue size, the whole catalogue.

    Returns
    -------
    coverage : float
        Expected number of distinct recommended items over the number of
        items (columns).

    See Also
    --------
    gini_index_at_k : How evenly recommendations spread over items.

    Notes
    -----
    With ``p_u(i)`` the probability that item ``i`` is in user ``u``'s list
    (ties, see the module notes), users being independent,

    .. math::

        \\mathrm{coverage} = \\frac{1}{n} \\sum_i
        \\Big(1 - \\prod_u (1 - p_u(i))\\Big)

    is the exact expected value over orderings of tied items.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics import catalog_coverage_at_k
    >>> y_score = np.array([[3, 2, 1, 0], [3, 1, 2, 0]])
    >>> float(catalog_coverage_at_k(np.zeros((2, 4)), y_score, k=2))
    0.75
    """
    S, k = _scores(y_true, y_score, k)
    none = np.ones(S.shape[1])
    for b in _blocks(*S.shape):
        P, _, _, _ = _inclusion(S[b], k)
        none *= np.prod(1.0 - P, axis=0)
    return float(np.mean(1.0 - none))


def _expected_counts(S, k):
    counts = np.zeros(S.shape[1])
    for b in _blocks(*S.shape):
        counts += _inclusion(S[b], k)[0].sum(axis=0)
    return counts


@with_convention
def gini_index_at_k(y_true, y_score, *, k=10):
    """Gini index of the items' recommendation counts.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_users, n_items)
        Held-out relevance; validated, not used.
    y_score : array-like of shape (n_users, n_items)
        Scores; items scored ``-inf`` are never recommended.
    k : int, default=10
        List length; above the catalogue size, the whole catalogue.

    Returns
    -------
    gini : float
        0 when every item is recommended equally often, towards 1 when a few
        items take all recommendations; ``nan`` if nothing is recommended.

    See Also
    --------
    catalog_coverage_at_k : Share of items recommended at all.

    Notes
    -----
    With the ``n`` items' counts sorted ascending ``c_{(1)} \\le \\dots \\le
    c_{(n)}`` (items never recommended count 0), as RecBole's ``GiniIndex``:

    .. math::

        G = \\frac{\\sum_{j=1}^{n} (2j - n - 1)\\, c_{(j)}}{n \\sum_j c_j}

    Ties: the Gini of random counts has no simple closed form, so the
    documented rule is the Gini of the *expected* counts
    ``E[c_i] = \\sum_u p_u(i)``; without ties it is the plain value.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics import gini_index_at_k
    >>> y_score = np.array([[3, 2, 1, 0], [3, 2, 0, 1]])
    >>> float(gini_index_at_k(np.zeros((2, 4)), y_score, k=2))
    0.5
    """
    S, k = _scores(y_true, y_score, k)
    c = np.sort(_expected_counts(S, k))
    n = c.size
    total = c.sum()
    if total == 0:
        return float("nan")
    j = np.arange(1, n + 1)
    return float(np.sum((2 * j - n - 1) * c) / (n * total))


def _popularity(item_popularity, n_items):
    if item_popularity is None:
        raise ValueError(
            "item_popularity is required: interaction counts per item (1-D) "
            "or a users x items training matrix."
        )
    if sp.issparse(item_popularity) or np.ndim(item_popularity) == 2:
        X = sp.csc_matrix(item_popularity)
        if X.shape[1] != n_items:
            raise ValueError(
                f"item_popularity has {X.shape[1]} columns but y_score has "
                f"{n_items} items; pass the users x items training matrix."
            )
        X.eliminate_zeros()
        counts = np.diff(X.indptr).astype(np.float64)
        return counts, counts / max(X.shape[0], 1)
    counts = np.asarray(item_popularity, dtype=np.float64)
    if counts.ndim != 1 or counts.size != n_items:
        raise ValueError(
            f"item_popularity must have one count per item ({n_items}), got "
            f"shape {counts.shape}."
        )
    if not np.all(np.isfinite(counts)) or (counts < 0).any():
        raise ValueError("item_popularity must be finite and non-negative.")
    total = counts.sum()
    share = counts / total if total > 0 else np.zeros_like(counts)
    return counts, share


def _list_mean(S, k, values):
    """Mean over users of the expected mean of ``values`` over each list."""
    sums, n = 0.0, 0
    for b in _blocks(*S.shape):
        P, _, _, L = _inclusion(S[b], k)
        ok = L > 0
        with np.errstate(invalid="ignore"):
            contrib = np.where(P > 0, P * values[None, :], 0.0).sum(axis=1)
        sums += np.sum(contrib[ok] / L[ok])
        n += int(ok.sum())
    return float(sums / n) if n else float("nan")


@with_convention
def average_popularity_at_k(y_true, y_score, *, k=10, item_popularity=None):
    """Mean popularity of recommended items.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_users, n_items)
        Held-out relevance; validated, not used.
    y_score : array-like of shape (n_users, n_items)
        Scores; items scored ``-inf`` are never recommended.
    k : int, default=10
        List length; above the catalogue size, the whole catalogue.
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

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics import average_popularity_at_k
    >>> y_score = np.array([[3, 2, 1, 0]])
    >>> float(average_popularity_at_k(np.zeros((1, 4)), y_score, k=2,
    ...                               item_popularity=[10, 4, 1, 0]))
    7.0
    """
    S, k = _scores(y_true, y_score, k)
    counts, _ = _popularity(item_popularity, S.shape[1])
    return _list_mean(S, k, counts)


@with_convention
def novelty_at_k(y_true, y_score, *, k=10, item_popularity=None):
    """Mean self-information ``-log2 p(item)`` of recommended items.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_users, n_items)
        Held-out relevance; validated, not used.
    y_score : array-like of shape (n_users, n_items)
        Scores; items scored ``-inf`` are never recommended.
    k : int, default=10
        List length; above the catalogue size, the whole catalogue.
    item_popularity : array-like of shape (n_items,) or (n_train_users, n_items)
        A training matrix (``p(item)`` = share of its users who interacted with
        the item, as RecTools' ``MeanInvUserFreq``), or counts per item
        (``p(item)`` = count over the sum of counts).

    Returns
    -------
    novelty : float
        Mean over users of the mean self-information of their list; ``inf``
        if an item never seen in training may be recommended; users with an
        empty list are skipped.

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
    S, k = _scores(y_true, y_score, k)
    _, share = _popularity(item_popularity, S.shape[1])
    with np.errstate(divide="ignore"):
        info = -np.log2(share)
    return _list_mean(S, k, info)


@with_convention
def intra_list_diversity_at_k(
    y_true, y_score, *, k=10, item_features=None, metric="cosine"
):
    """Mean pairwise distance between the items of each list.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_users, n_items)
        Held-out relevance; validated, not used.
    y_score : array-like of shape (n_users, n_items)
        Scores; items scored ``-inf`` are never recommended.
    k : int, default=10
        List length; above the catalogue size, the whole catalogue.
    item_features : array-like of shape (n_items, n_features)
        Item representations.
    metric : str or callable, default="cosine"
        Any metric of :func:`sklearn.metrics.pairwise_distances`.

    Returns
    -------
    ild : float
        Mean over users (with at least 2 items in their list) of the mean
        distance over the ``L (L - 1) / 2`` pairs of their list; ``nan`` if no
        user has 2 items.

    See Also
    --------
    novelty_at_k : Mean self-information of recommended items.

    Notes
    -----
    Exact under ties: with ``q_u(i, j)`` the probability that both items are
    in the list (module notes),
    :math:`\\mathrm{ILD}_u = \\sum_{i<j} q_u(i, j)\\, d(i, j) / \\binom{L_u}{2}`.
    The ``n_items x n_items`` distance matrix is computed once.

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
    S, k = _scores(y_true, y_score, k)
    if item_features is None:
        raise ValueError("item_features (n_items x n_features) is required.")
    F = item_features if sp.issparse(item_features) else np.asarray(item_features)
    if F.ndim != 2:
        raise ValueError("item_features must be 2-D (n_items x n_features).")
    if F.shape[0] != S.shape[1]:
        raise ValueError(
            f"item_features has {F.shape[0]} rows but y_score has {S.shape[1]} items."
        )
    D = pairwise_distances(F, metric=metric)
    np.fill_diagonal(D, 0.0)
    total, n = 0.0, 0
    for b in _blocks(*S.shape):
        P, tied, a2, L = _inclusion(S[b], k)
        T = tied.astype(np.float64)
        PD = P @ D
        TD = T @ D
        # sum over ordered pairs i != j of P(i and j in list) d(i, j)
        pairs = np.einsum("ij,ij->i", P, PD)
        tt = np.einsum("ij,ij->i", T, TD)
        p_t = np.where(T.any(axis=1), (P * T).max(axis=1), 0.0)
        pairs = pairs - (p_t**2 - a2) * tt
        ok = L > 1
        total += np.sum(pairs[ok] / (L[ok] * (L[ok] - 1)))
        n += int(ok.sum())
    return float(total / n) if n else float("nan")
