"""Synthetic data for trying ranking metrics and scorers.

Like :mod:`sklearn.datasets`' ``make_*`` functions, the generators here draw
data from a known model, so that the best achievable scores are known too.
"""

import numbers

import numpy as np
from sklearn.utils import check_random_state

from ._utils._validation import check_real

__all__ = ["make_click_log", "make_interactions", "make_ranking_dataset"]


def _check_int(name, value, low):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {value!r}.")
    if value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}.")
    return int(value)


def _check_non_negative(name, value):
    value = check_real(name, value, low=-np.inf)  # a finite real number
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}.")
    return value


def make_click_log(
    n_users=1000,
    n_impressions=(5, 40),
    n_features=10,
    *,
    n_user_features=None,
    intercept=-2.0,
    user_bias=1.0,
    interaction=1.0,
    shuffle=True,
    return_proba=False,
    random_state=None,
):
    r"""Generate a click log: users, the items shown to them, and clicks.

    Each user sees a number of items (impressions); each impression is
    clicked with a probability given by a logistic model of user features,
    item features, their interaction and a hidden per-user bias.  One user
    is one query of the long form: rank a user's impressions by a
    click-through-rate (CTR) model's score and compare with the clicks.

    Because users differ in their overall click rate (through their
    features and the hidden bias), the pooled ROC AUC rewards a model for
    telling active users from passive ones, while the per-user metrics
    (GAUC, NDCG@k, ...) only measure how well it orders each user's items:
    the two disagree, as on real click logs.

    Read more in the :ref:`User Guide <scoring>`.

    Parameters
    ----------
    n_users : int, default=1000
        Number of users (queries).

    n_impressions : int or tuple of two ints (low, high), default=(5, 40)
        Impressions per user: that number, or drawn uniformly from
        ``low..high`` (inclusive) for each user.

    n_features : int >= 2, default=10
        Number of columns of ``X``: the user features, then the item
        features.

    n_user_features : int, default=None
        How many of the ``n_features`` describe the user (constant over
        a user's rows).  None means ``n_features // 2``.  The rest
        describe the item of the impression.

    intercept : float, default=-2.0
        Logit of the baseline click probability: -2 is about 12 %; the
        spread of the other terms raises the mean click rate (to about
        20 % with the defaults).

    user_bias : float >= 0, default=1.0
        Standard deviation of the hidden per-user bias added to the
        logit.  It changes the users' click rates, not the order of a
        user's items: it lowers the pooled AUC a model can reach, not its
        GAUC.

    interaction : float >= 0, default=1.0
        Scale of the user x item interaction term; 0 gives a purely
        additive (linear-logistic) model.

    shuffle : bool, default=True
        Shuffle the rows, so that a user's impressions are not contiguous
        (the metrics group them by ``query_id`` anyway).  If False the
        rows come user by user.

    return_proba : bool, default=False
        Also return the true click probability of each impression.

    random_state : int, RandomState instance or None, default=None
        Seed for the draws; an int gives the same log on every platform
        and NumPy version.

    Returns
    -------
    X : ndarray of shape (n_rows, n_features)
        Features of each impression: ``n_user_features`` user features
        followed by the item features.

    y : ndarray of shape (n_rows,), dtype int
        1 if the impression was clicked, else 0.

    query_id : ndarray of shape (n_rows,), dtype int
        User id (0 .. n_users - 1) of each impression.

    proba : ndarray of shape (n_rows,)
        The true click probabilities; only if ``return_proba=True``.

    Notes
    -----
    With user features :math:`u`, item features :math:`v`, a hidden user
    bias :math:`b_u \sim N(0, \sigma^2)` (``user_bias`` = :math:`\sigma`)
    and coefficients :math:`\alpha, \beta, M` drawn once per call,

    .. math::

        P(\text{click}) = \operatorname{expit}\left(c + \tfrac12 u^\top\alpha
            + b_u + v^\top\beta + \gamma\, u^\top M v\right),

    with :math:`c` the ``intercept`` and :math:`\gamma` the
    ``interaction``.  The coefficients are scaled so that each term has
    about unit variance.  A linear model can learn every term but the
    interaction; the hidden bias is unpredictable by design.

    Examples
    --------
    >>> from sklearn_rankmetrics.datasets import make_click_log
    >>> X, y, query_id = make_click_log(n_users=50, random_state=0)
    >>> X.shape, y.shape, query_id.shape
    ((1047, 10), (1047,), (1047,))
    >>> int(y.sum()), len(set(query_id))
    (234, 50)
    >>> X, y, query_id, proba = make_click_log(
    ...     n_users=3, n_impressions=2, n_features=4, shuffle=False,
    ...     return_proba=True, random_state=0)
    >>> query_id
    array([0, 0, 1, 1, 2, 2])
    >>> proba.round(2)
    array([0.27, 0.15, 0.52, 0.96, 0.21, 0.06])
    """
    n_users = _check_int("n_users", n_users, 1)
    n_features = _check_int("n_features", n_features, 2)
    if n_user_features is None:
        n_user_features = n_features // 2
    n_user_features = _check_int("n_user_features", n_user_features, 1)
    if n_user_features >= n_features:
        raise ValueError(
            f"n_user_features must be < n_features ({n_features}) so that "
            f"items have features too; got {n_user_features}."
        )
    if isinstance(n_impressions, (tuple, list)):
        if len(n_impressions) != 2:
            raise ValueError(
                f"n_impressions must be an int or a (low, high) pair; got "
                f"{n_impressions!r}."
            )
        low = _check_int("n_impressions[0]", n_impressions[0], 1)
        high = _check_int("n_impressions[1]", n_impressions[1], low)
    else:
        low = high = _check_int("n_impressions", n_impressions, 1)
    intercept = check_real("intercept", intercept, low=-np.inf)
    user_bias = _check_non_negative("user_bias", user_bias)
    interaction = _check_non_negative("interaction", interaction)
    rng = check_random_state(random_state)

    n_item_features = n_features - n_user_features
    counts = rng.randint(low, high + 1, size=n_users)
    query_id = np.repeat(np.arange(n_users), counts)
    n_rows = query_id.shape[0]

    users = rng.normal(size=(n_users, n_user_features))
    bias = user_bias * rng.normal(size=n_users)
    items = rng.normal(size=(n_rows, n_item_features))
    alpha = rng.normal(size=n_user_features) / np.sqrt(n_user_features)
    beta = rng.normal(size=n_item_features) / np.sqrt(n_item_features)
    M = rng.normal(size=(n_user_features, n_item_features))
    M /= np.sqrt(n_user_features * n_item_features)

    u = users[query_id]
    logit = (
        intercept
        + 0.5 * (u @ alpha)
        + bias[query_id]
        + items @ beta
        + interaction * np.einsum("ij,ij->i", u @ M, items)
    )
    with np.errstate(over="ignore"):  # exp(-logit) = inf: probability 0
        proba = 1.0 / (1.0 + np.exp(-logit))
    y = (rng.uniform(size=n_rows) < proba).astype(int)
    X = np.hstack([u, items])

    if shuffle:
        order = rng.permutation(n_rows)
        X, y, query_id, proba = X[order], y[order], query_id[order], proba[order]
    if return_proba:
        return X, y, query_id, proba
    return X, y, query_id


def make_ranking_dataset(
    n_queries=200,
    n_docs=(5, 30),
    n_features=10,
    *,
    n_informative=5,
    max_grade=4,
    relevant_fraction=0.3,
    noise=0.5,
    query_shift=1.0,
    shuffle=True,
    random_state=None,
):
    r"""Generate a learning-to-rank data set: queries, features, graded relevance.

    Each query has a number of candidate documents; each (query, document)
    row has ``n_features`` features and a relevance grade from 0 (not
    relevant) to ``max_grade``, drawn from a known non-linear model.  The
    long form, as search and recommendation logs come: ``X``, ``y`` and
    one ``query_id`` per row.

    Queries differ in how relevant their candidates are overall (a hidden
    per-query shift, partly visible in the last feature), so a model that
    predicts the grade row by row (pointwise) and one that orders each
    query's rows (a learning-to-rank objective) can differ.

    Read more in the :ref:`User Guide <learning_to_rank>`.

    Parameters
    ----------
    n_queries : int, default=200
        Number of queries.

    n_docs : int or tuple of two ints (low, high), default=(5, 30)
        Documents (rows) per query: that number, or drawn uniformly from
        ``low..high`` (inclusive) for each query.

    n_features : int, default=10
        Number of columns of ``X``; at least ``n_informative + 1``.

    n_informative : int >= 2, default=5
        How many of the first columns drive relevance; the others, but the
        last, are noise.  The last column is a noisy view of the query's
        shift (constant within a query).

    max_grade : int >= 1, default=4
        The highest grade; grades are ``0 .. max_grade``.

    relevant_fraction : float in (0, 1), default=0.3
        About the fraction of rows with a grade >= 1 (before the
        per-query shift spreads it across queries).

    noise : float >= 0, default=0.5
        Standard deviation of the noise added to the latent relevance.

    query_shift : float >= 0, default=1.0
        Standard deviation of the hidden per-query shift of the latent
        relevance.

    shuffle : bool, default=True
        Shuffle the rows, so that a query's rows are not contiguous; if
        False the rows come query by query.

    random_state : int, RandomState instance or None, default=None
        Seed for the draws.

    Returns
    -------
    X : ndarray of shape (n_rows, n_features)
        Features of each (query, document) row.

    y : ndarray of shape (n_rows,), dtype int
        Relevance grade of each row, in ``0 .. max_grade``.

    query_id : ndarray of shape (n_rows,), dtype int
        Query of each row (0 .. n_queries - 1).

    Notes
    -----
    With document features :math:`x`, a hidden query shift
    :math:`s_q \sim N(0, \sigma_q^2)` and noise :math:`\varepsilon \sim
    N(0, \sigma^2)`, the latent relevance is

    .. math::

        z = x_{1:m}^\top w + x_1 x_2 + \sin(2 x_3) + s_q + \varepsilon,

    with :math:`m` = ``n_informative`` and :math:`w` drawn once per call.
    The grade is the number of cut points below :math:`z`; the cut for
    grade :math:`g \geq 1` is the :math:`1 - f / 2^{g-1}` quantile of a
    centred normal with :math:`z`'s spread (:math:`f` =
    ``relevant_fraction``), so each grade is about half as frequent as the
    one below.

    Examples
    --------
    >>> from sklearn_rankmetrics.datasets import make_ranking_dataset
    >>> X, y, query_id = make_ranking_dataset(n_queries=20, random_state=0)
    >>> X.shape, y.shape, query_id.shape
    ((335, 10), (335,), (335,))
    >>> sorted(set(y.tolist())), len(set(query_id.tolist()))
    ([0, 1, 2, 3, 4], 20)
    """
    n_queries = _check_int("n_queries", n_queries, 1)
    n_informative = _check_int("n_informative", n_informative, 2)
    n_features = _check_int("n_features", n_features, n_informative + 1)
    max_grade = _check_int("max_grade", max_grade, 1)
    relevant_fraction = _check_non_negative("relevant_fraction", relevant_fraction)
    if not 0.0 < relevant_fraction < 1.0:
        raise ValueError(
            f"relevant_fraction must be in (0, 1), got {relevant_fraction}."
        )
    noise = _check_non_negative("noise", noise)
    query_shift = _check_non_negative("query_shift", query_shift)
    if isinstance(n_docs, (tuple, list)):
        if len(n_docs) != 2:
            raise ValueError(
                f"n_docs must be an int or a (low, high) pair; got {n_docs!r}."
            )
        low = _check_int("n_docs[0]", n_docs[0], 1)
        high = _check_int("n_docs[1]", n_docs[1], low)
    else:
        low = high = _check_int("n_docs", n_docs, 1)
    rng = check_random_state(random_state)
    from scipy.special import ndtri  # the standard normal quantile

    counts = rng.randint(low, high + 1, size=n_queries)
    query_id = np.repeat(np.arange(n_queries), counts)
    n_rows = query_id.shape[0]
    X = rng.normal(size=(n_rows, n_features))
    shift = query_shift * rng.normal(size=n_queries)
    X[:, -1] = shift[query_id] + rng.normal(size=n_queries)[query_id]
    w = rng.normal(size=n_informative)
    w /= np.sqrt(np.sum(w**2))
    latent = (
        X[:, :n_informative] @ w
        + X[:, 0] * X[:, 1]
        + np.sin(2.0 * X[:, 2])
        + shift[query_id]
        + noise * rng.normal(size=n_rows)
    )
    # Cut points at normal quantiles of z's spread without the query shift
    # (about sqrt(2.5 + noise**2 + query_shift**2)): grade g >= 1 where z
    # exceeds the 1 - relevant_fraction / 2**(g - 1) quantile.
    scale = np.sqrt(2.5 + noise**2 + query_shift**2)
    cuts = scale * ndtri(1.0 - relevant_fraction * 0.5 ** np.arange(max_grade))
    y = np.searchsorted(cuts, latent, side="right")

    if shuffle:
        order = rng.permutation(n_rows)
        X, y, query_id = X[order], y[order], query_id[order]
    return X, y, query_id


def make_interactions(
    n_users=1000,
    n_items=500,
    *,
    n_factors=8,
    interactions_per_user=(5, 40),
    popularity=1.0,
    taste=2.0,
    test_size=0.2,
    random_state=None,
):
    r"""Generate implicit feedback: who interacted with which item, split in two.

    A MovieLens-like users x items matrix of interactions (0/1) for trying a
    recommender: a long-tailed item popularity (a few blockbusters, many
    niche items) and user tastes from hidden factors.  Each user interacts
    with ``n_u`` distinct items, drawn without replacement with
    probabilities proportional to :math:`\exp(t\, p_u \cdot q_i / \sqrt{f}
    + b_i)`, where :math:`p_u, q_i` are standard normal vectors of
    ``n_factors`` = :math:`f` components and :math:`b_i = -` ``popularity``
    :math:`\cdot \log(\text{rank}_i)` for items of random popularity ranks
    (a Zipf law), and :math:`t` is ``taste``.  Each interaction goes to the
    test part with probability ``test_size``.

    Read more in the :ref:`User Guide <recommenders>`.

    Parameters
    ----------
    n_users : int, default=1000
        Number of users (rows).

    n_items : int, default=500
        Number of items (columns).

    n_factors : int, default=8
        Dimension of the hidden tastes.

    interactions_per_user : int or tuple of two ints (low, high), default=(5, 40)
        Interactions per user: that number, or drawn uniformly from
        ``low..high`` (inclusive) for each user; at most ``n_items``.

    popularity : float >= 0, default=1.0
        Exponent of the Zipf law of item popularity; 0 makes items equally
        popular a priori.

    taste : float >= 0, default=2.0
        Weight of the hidden tastes against popularity; 0 makes users
        differ by chance only.

    test_size : float in [0, 1], default=0.2
        Probability of an interaction to be held out.

    random_state : int, RandomState instance or None, default=None
        Seed of the draws.

    Returns
    -------
    train : scipy.sparse.csr_matrix of shape (n_users, n_items)
        Training interactions (float 0/1).

    test : scipy.sparse.csr_matrix of shape (n_users, n_items)
        Held-out interactions, disjoint from ``train``; some users have
        none.

    Examples
    --------
    >>> from sklearn_rankmetrics.datasets import make_interactions
    >>> train, test = make_interactions(n_users=100, n_items=50, random_state=0)
    >>> train.shape, test.shape
    ((100, 50), (100, 50))
    >>> int(train.multiply(test).nnz)
    0
    """
    import scipy.sparse as sp

    n_users = _check_int("n_users", n_users, 1)
    n_items = _check_int("n_items", n_items, 1)
    n_factors = _check_int("n_factors", n_factors, 1)
    if isinstance(interactions_per_user, (tuple, list)):
        if len(interactions_per_user) != 2:
            raise ValueError(
                "interactions_per_user must be an int or a (low, high) pair; "
                f"got {interactions_per_user!r}."
            )
        low = _check_int("interactions_per_user[0]", interactions_per_user[0], 1)
        high = _check_int("interactions_per_user[1]", interactions_per_user[1], low)
    else:
        low = high = _check_int("interactions_per_user", interactions_per_user, 1)
    if high > n_items:
        raise ValueError(
            f"interactions_per_user allows up to {high} distinct items per user "
            f"but there are only n_items={n_items}; lower it."
        )
    popularity = _check_non_negative("popularity", popularity)
    taste = _check_non_negative("taste", taste)
    test_size = _check_non_negative("test_size", test_size)
    if test_size > 1:
        raise ValueError(f"test_size must be in [0, 1], got {test_size}.")
    rng = check_random_state(random_state)

    P = rng.normal(size=(n_users, n_factors))
    Q = rng.normal(size=(n_items, n_factors))
    bias = -popularity * np.log1p(rng.permutation(n_items))
    logit = taste * (P @ Q.T) / np.sqrt(n_factors) + bias
    # Gumbel top-n: the n largest of logit + Gumbel noise are a draw of n
    # distinct items with probabilities proportional to exp(logit)
    keys = logit + rng.gumbel(size=logit.shape)
    counts = rng.randint(low, high + 1, size=n_users)
    order = np.argsort(-keys, axis=1, kind="stable")
    chosen = np.arange(n_items) < counts[:, None]
    rows = np.repeat(np.arange(n_users), counts)
    cols = order[chosen]
    held = rng.uniform(size=rows.shape[0]) < test_size

    def part(mask):
        data = np.ones(np.count_nonzero(mask))
        return sp.csr_matrix((data, (rows[mask], cols[mask])), shape=(n_users, n_items))

    return part(~held), part(held)
