r"""Sampled-candidate metrics, naive and corrected (Krichene & Rendle, KDD 2020).

The "1 held-out item + m sampled negatives" protocol ranks each held-out
item among ``m`` items drawn from the catalogue instead of all ``n``.  The
metric of that small list (the *naive* sampled metric) is not the
catalogue metric, not even in expectation; this module computes it next to
estimates of the catalogue metric corrected for the sampling.

Every estimator here is a table :math:`c(\tilde r)`, one value per sampled
rank :math:`\tilde r \in \{1, \dots, m + 1\}`; the estimate of the metric is
the (weighted) mean of :math:`c(\tilde r_i)` over the evaluation points.
"""

import math
import numbers
import warnings

import numpy as np
from sklearn import get_config
from sklearn.utils import check_random_state

from .._registry import METRICS
from .._utils._averaging import EVERY_QUERY, weighted_mean
from .._utils._validation import user_stacklevel

__all__ = ["sampled_metrics"]

# Metrics whose value for one relevant item depends on its rank only.
_RANK_METRICS = ("hit_rate", "recall", "precision", "ndcg", "mrr", "map")
_ESTIMATORS = ("naive", "rescaled", "minimal_bias", "bias_variance")


# ---------------------------------------------------------------------------
# The sampled-rank distribution
# ---------------------------------------------------------------------------
def _log_comb(a, b):
    """log C(a, b) elementwise, -inf where b < 0 or b > a."""
    from scipy.special import gammaln

    a, b = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float))
    out = np.full(a.shape, -np.inf)
    ok = (b >= 0) & (b <= a)
    out[ok] = gammaln(a[ok] + 1) - gammaln(b[ok] + 1) - gammaln(a[ok] - b[ok] + 1)
    return out


def sampled_rank_pmf(full_ranks, n_items, n_negatives):
    """P(sampled rank = j | full rank = r), for each r of ``full_ranks`` and
    j = 1..m+1: the number of sampled negatives above the held-out item
    is hypergeometric (m draws without replacement from the n - 1 other
    items, r - 1 of which are above it).

    Returns
    -------
    pmf : ndarray of shape (len(full_ranks), n_negatives + 1)
    """
    r = np.asarray(full_ranks, dtype=float)[:, None]
    j = np.arange(n_negatives + 1, dtype=float)[None, :]  # negatives above
    log = _log_comb(r - 1, j) + _log_comb(n_items - r, n_negatives - j)
    log -= _log_comb(n_items - 1, n_negatives)
    return np.exp(log)


def _metric_by_rank(name, k, n_items):
    """The metric of one relevant item at ranks 1..min(k, n) (0 below k),
    from the package's own metric function: query i holds its relevant item
    at rank i + 1 of min(k, n) items (by blocks of 1024 queries)."""
    size = min(k, n_items)
    scores = np.arange(size, 0, -1, dtype=float)
    function = METRICS[name].function
    values = []
    for start in range(0, size, 1024):
        stop = min(start + 1024, size)
        y_true = np.zeros((stop - start, size))
        y_true[np.arange(stop - start), np.arange(start, stop)] = 1
        y_score = np.broadcast_to(scores, y_true.shape)
        values.append(function(y_true, y_score, k=k, average=None))
    return np.concatenate(values)


def _rank_blocks(n_items, n_negatives):
    """Blocks of full ranks 1..n with a bounded (rows x (m + 1)) pmf."""
    budget = get_config()["working_memory"] * 2**20 / (8 * 4 * (n_negatives + 1))
    step = max(1024, int(budget))
    for start in range(1, n_items + 1, step):
        yield np.arange(start, min(start + step, n_items + 1))


def _tables(names, ks, n_items, n_negatives, gamma):
    """The table of each estimator for each ``metric@k``.

    Minimal bias and bias-variance solve, with uniform weights over the full
    ranks r = 1..n and A[r, j] = P(sampled rank j | r), M[r] the metric,

        minimise  sum_r (E[c | r] - M[r])^2 + gamma * Var(c | r)
        <=>  ((1 - gamma) A'A + gamma diag(A'1)) c = A'M

    (gamma = 0: minimal bias; gamma = 1: minimal mean squared error, the
    posterior mean of M given the sampled rank under a uniform prior).
    """
    m = n_negatives
    j = np.arange(1, m + 2)
    M = {(name, k): _metric_by_rank(name, k, n_items) for name in names for k in ks}
    gram = np.zeros((m + 1, m + 1))
    mass = np.zeros(m + 1)
    rhs = {key: np.zeros(m + 1) for key in M}
    for r in _rank_blocks(n_items, m):
        A = sampled_rank_pmf(r, n_items, m)
        gram += A.T @ A
        mass += A.sum(axis=0)
        for key, values in M.items():  # M(r) = 0 below the cut-off
            top = r <= values.shape[0]
            if top.any():
                rhs[key] += A[top].T @ values[r[top] - 1]
    # the rescaled rank 1 + (j - 1)(n - 1)/m, rounded half up (at most n)
    rescaled_rank = np.floor(1 + (j - 1) * (n_items - 1) / m + 0.5).astype(np.intp)
    tables = {}
    for key, values in M.items():
        name, k = key
        at_rank = np.zeros(n_items + 1)
        at_rank[1 : values.shape[0] + 1] = values
        minimal_bias = _bounded_least_squares(gram, rhs[key], values.max())
        if gamma > 0:
            weighted = (1 - gamma) * gram + gamma * np.diag(mass)
            bias_variance = np.linalg.solve(weighted, rhs[key])
        else:
            bias_variance = minimal_bias
        tables[key] = {
            "naive": _naive_table(name, k, m),
            "rescaled": at_rank[rescaled_rank],
            "minimal_bias": minimal_bias,
            "bias_variance": bias_variance,
        }
    return tables


def _naive_table(name, k, n_negatives):
    """The metric of the sampled list (m + 1 items) at each sampled rank."""
    values = _metric_by_rank(name, k, n_negatives + 1)
    table = np.zeros(n_negatives + 1)
    table[: values.shape[0]] = values
    return table


def _bounded_least_squares(gram, rhs, high):
    """argmin ||A c - M||^2 subject to 0 <= c <= high, from the normal
    equations' ``gram = A'A`` and ``rhs = A'M``: with ``gram = Q diag(e) Q'``,
    ``||A c - M||^2 = ||diag(e)^1/2 Q' c - diag(e)^-1/2 Q' rhs||^2 + const``
    (directions of eigenvalue below 1e-13 of the largest are dropped)."""
    from scipy.optimize import lsq_linear

    e, Q = np.linalg.eigh(gram)
    keep = e > 1e-13 * e.max()
    root = np.sqrt(e[keep])
    design = root[:, None] * Q[:, keep].T
    target = (Q[:, keep].T @ rhs) / root
    solution = lsq_linear(design, target, bounds=(0.0, high), method="bvls").x
    return np.clip(solution, 0.0, high)  # bvls may step out by an ulp


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------
def _check_count(name, value, low):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int >= {low}, got {value!r}.")
    if value < low:
        raise ValueError(f"{name} must be an int >= {low}, got {value}.")
    return int(value)


def _check_ks(k):
    ks = [k] if isinstance(k, numbers.Integral) else k
    try:
        ks = list(ks)
    except TypeError:
        raise TypeError(
            f"k must be an int >= 1 or a list of them; got {k!r}."
        ) from None
    if not ks:
        raise ValueError("k is empty; give at least one cut-off.")
    return sorted(dict.fromkeys(_check_count("k", v, 1) for v in ks))


def _check_metrics(metrics):
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    for name in names:
        if name not in _RANK_METRICS:
            raise ValueError(
                f"{name!r} is not a metric of sampled_metrics; use "
                f"{', '.join(map(repr, _RANK_METRICS))} (a single held-out item "
                "per evaluation point)."
            )
    if not names:
        raise ValueError("metrics is empty; give at least one metric name.")
    return list(dict.fromkeys(names))


def _check_ranks(ranks, n_negatives):
    arr = np.asarray(ranks)
    if arr.ndim != 1 or arr.shape[0] == 0:
        raise ValueError(
            f"ranks must be a non-empty 1-D array (one sampled rank per held-out "
            f"item), got shape {arr.shape}."
        )
    if arr.dtype.kind not in "iuf" or arr.dtype.kind == "b":
        raise TypeError(f"ranks must be integers, got dtype {arr.dtype}.")
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all():
            at = np.flatnonzero(~np.isfinite(arr))[0]
            raise ValueError(f"ranks contains NaN or inf (at {at}).")
        if (arr != np.round(arr)).any():
            at = np.flatnonzero(arr != np.round(arr))[0]
            raise ValueError(
                f"ranks must be whole numbers (1-based ranks); ranks[{at}] = {arr[at]}."
            )
    arr = arr.astype(np.int64)
    bad = (arr < 1) | (arr > n_negatives + 1)
    if bad.any():
        at = np.flatnonzero(bad)[0]
        raise ValueError(
            f"ranks[{at}] = {arr[at]} is not a rank among n_negatives="
            f"{n_negatives} sampled negatives and the held-out item: ranks go "
            f"from 1 (above every negative) to {n_negatives + 1}."
        )
    return arr, arr


def _check_weights(sample_weight, n):
    if sample_weight is None:
        return np.ones(n)
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(
            f"sample_weight must have one weight per held-out item ({n}), got "
            f"shape {w.shape}."
        )
    if not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
        raise ValueError("sample_weight must be finite, >= 0 and not all 0.")
    return w


def _draw_negatives(positives, n_items, n_negatives, random_state):
    """``n_negatives`` distinct items per row, uniformly among the items other
    than the row's positive, by blocks of rows (the same draws whatever the
    blocks)."""
    rng = check_random_state(random_state)
    n_users = positives.shape[0]
    out = np.empty((n_users, n_negatives), dtype=np.intp)
    budget = get_config()["working_memory"] * 2**20 / (8 * 2 * max(n_items - 1, 1))
    step = max(1, int(budget))
    for a in range(0, n_users, step):
        b = min(a + step, n_users)
        keys = rng.random_sample((b - a, n_items - 1))
        picked = np.argpartition(keys, n_negatives - 1, axis=1)[:, :n_negatives]
        picked = np.sort(picked, axis=1)
        # the items other than the positive are 0..n-2; shift those at or
        # above the positive by one
        out[a:b] = picked + (picked >= positives[a:b, None])
    return out


def _check_negatives(negatives, positives, n_items):
    neg = np.asarray(negatives)
    n_users = positives.shape[0]
    if neg.ndim != 2 or neg.shape[0] != n_users:
        raise ValueError(
            f"negatives must be a 2-D array of item indices, one row per user "
            f"({n_users}); got shape {neg.shape}."
        )
    if neg.dtype.kind not in "iu":
        raise TypeError(f"negatives must hold item indices (ints), got {neg.dtype}.")
    if neg.shape[1] == 0:
        raise ValueError("negatives has no column; sample at least one negative.")
    if ((neg < 0) | (neg >= n_items)).any():
        raise ValueError(
            f"negatives holds indices outside the catalogue 0..{n_items - 1}."
        )
    hit = neg == positives[:, None]
    if hit.any():
        user = np.flatnonzero(hit.any(axis=1))[0]
        raise ValueError(
            f"negatives contains the held-out item of user {user} (item "
            f"{positives[user]}); a negative sample must leave the positive out."
        )
    ordered = np.sort(neg, axis=1)
    repeated = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
    if repeated.any():
        raise ValueError(
            f"negatives repeats an item for user {np.flatnonzero(repeated)[0]}; "
            "negatives are drawn without replacement."
        )
    return neg.astype(np.intp)


def _ranks_from_scores(y_score, positives, negatives):
    """The lowest and highest sampled rank of each positive (ties: every
    order of the tied items is equally likely); a positive scored -inf is
    last."""
    rows = np.arange(y_score.shape[0])
    pos = y_score[rows, positives][:, None]
    neg = y_score[rows[:, None], negatives]
    low = 1 + np.count_nonzero(neg > pos, axis=1)
    high = low + np.count_nonzero(neg == pos, axis=1)
    last = np.isneginf(pos[:, 0])
    low[last] = high[last] = negatives.shape[1] + 1
    return low, high


# ---------------------------------------------------------------------------
# Public function
# ---------------------------------------------------------------------------
def sampled_metrics(
    ranks=None,
    *,
    n_items=None,
    n_negatives=None,
    k=10,
    metrics=("hit_rate", "recall", "ndcg"),
    gamma=0.1,
    y_score=None,
    positives=None,
    negatives=None,
    random_state=None,
    return_negatives=False,
    sample_weight=None,
):
    r"""Sampled-candidate metrics, naive and corrected for the sampling.

    In the "held-out item + ``n_negatives`` sampled negatives" protocol each
    held-out item is ranked among a few items drawn from the catalogue.
    From the rank of each held-out item among its sampled negatives (or
    from full score rows and a seeded negative sample drawn here), this
    function gives, for each metric and cut-off:

    - ``"naive"``: the metric of the sampled list (the "HR@10 with 99
      negatives" of many papers), which is *not* an estimate of the
      catalogue metric;
    - ``"rescaled"``: the catalogue metric at the sampled rank rescaled to
      the catalogue, :math:`\hat r = 1 + (\tilde r - 1)(n - 1)/m`;
    - ``"minimal_bias"``: Krichene & Rendle's minimal-bias correction
      (their least-squares, "CLS", estimator);
    - ``"bias_variance"``: their bias-variance trade-off (``gamma``).

    Read more in the :ref:`User Guide <evaluation_protocol>`.

    Parameters
    ----------
    ranks : array-like of shape (n_points,), default=None
        1-based rank of each held-out item among itself and its
        ``n_negatives`` sampled negatives: 1 means above every sampled
        negative, ``n_negatives + 1`` below all of them.  Give ``ranks``
        (with ``n_items`` and ``n_negatives``) or ``y_score`` and
        ``positives``.
    n_items : int, default=None
        Number of items the catalogue metric ranks each held-out item among,
        itself included (``n``).  Taken from ``y_score`` when it is given.
    n_negatives : int, default=None
        Number of sampled negatives per held-out item (``m``), at most
        ``n_items - 1``.  With ``y_score``: the number to draw (or that of
        ``negatives``).
    k : int or list of int, default=10
        Cut-off(s).
    metrics : str or list of str, default=("hit_rate", "recall", "ndcg")
        Among ``"hit_rate"``, ``"recall"``, ``"precision"``, ``"ndcg"``,
        ``"mrr"``, ``"map"``: with one held-out item per point, recall@k
        and hit rate@k are both :math:`[r \le k]`, MAP@k is MRR@k, and
        NDCG@k is :math:`[r \le k] / \log_2(r + 1)`; each is computed by
        the package's metric function.
    gamma : float in [0, 1], default=0.1
        Weight of the variance in the bias-variance estimator: 0 is the
        minimal-bias estimator, 1 the one of minimal mean squared error.
    y_score : array-like of shape (n_users, n_items), default=None
        Scores of every item for each user (one held-out item per user);
        items not to be recommended scored ``-inf`` rank below every item
        (as in the catalogue metric).
    positives : array-like of shape (n_users,), default=None
        The column of each user's held-out item in ``y_score``.
    negatives : array-like of shape (n_users, n_negatives), default=None
        Fixed negatives (item columns) per user, to reuse one sample across
        models; None draws ``n_negatives`` distinct items per user,
        uniformly among the items other than the positive, from
        ``random_state``.
    random_state : int, RandomState instance or None, default=None
        Seed of the negatives drawn here: an int draws the same negatives at
        every call (the same catalogue and positives), so that every model
        is ranked against the same sample.
    return_negatives : bool, default=False
        Also return the negatives used (to pass as ``negatives=`` later).
    sample_weight : array-like of shape (n_points,), default=None
        Weight of each held-out item in the mean.

    Returns
    -------
    estimates : dict
        ``{"naive": {"ndcg@10": ..., ...}, "rescaled": {...},
        "minimal_bias": {...}, "bias_variance": {...}}``.
    negatives : ndarray of shape (n_users, n_negatives)
        With ``return_negatives=True``.

    Warns
    -----
    UserWarning
        When the sample is too small for a cut-off ``k``: each sampled rank
        stands for :math:`(n - 1)/m` catalogue ranks, and when that is more
        than ``k`` the sample cannot tell the catalogue's top ``k`` apart
        (the corrected values then rest on the uniform weighting of ranks
        below).

    See Also
    --------
    sklearn_rankmetrics.factor_ranking_report : The exact catalogue metrics
        of a factor model, block by block, when scoring every item is
        affordable.

    Notes
    -----
    Let :math:`n` be the catalogue size, :math:`m` the number of sampled
    negatives, :math:`r` the rank of a held-out item in the catalogue and
    :math:`\tilde r` its rank among itself and the sample.  The negatives
    are :math:`m` of the :math:`n - 1` other items drawn uniformly without
    replacement, and :math:`r - 1` of those are above the held-out item,
    so :math:`\tilde r - 1` is hypergeometric:

    .. math::

        A_{r\tilde r} = P(\tilde r \mid r) =
        \binom{r - 1}{\tilde r - 1}\binom{n - r}{m - \tilde r + 1}
        \Big/ \binom{n - 1}{m},
        \qquad E[\tilde r - 1 \mid r] = \frac{m (r - 1)}{n - 1}.

    (Krichene & Rendle use the binomial of sampling with replacement; for
    :math:`m \ll n` both agree.)  A metric of one held-out item is a
    function :math:`M(r)`; every estimator is a table :math:`c` over the
    sampled ranks, and the estimate is the mean of :math:`c(\tilde r_i)`:

    - naive: :math:`c(\tilde r) = M_{m+1}(\tilde r)`, the metric of the
      list of :math:`m + 1` items; its expectation
      :math:`\sum_{\tilde r} A_{r\tilde r} M(\tilde r)` is far above
      :math:`M(r)` (an item at catalogue rank 50 is in the sampled top 10
      almost always for :math:`n = 5000, m = 99`);
    - rescaled: :math:`c(\tilde r) = M(\hat r)`, :math:`\hat r` the
      unbiased estimate of :math:`r` above, rounded;
    - minimal bias: the :math:`c` minimising the squared bias summed over
      the catalogue ranks, :math:`\sum_{r=1}^n (E[c(\tilde r) \mid r] -
      M(r))^2 = \lVert A c - M \rVert^2`;
    - bias-variance: the :math:`c` minimising :math:`\sum_r
      (E[c \mid r] - M(r))^2 + \gamma\, \mathrm{Var}(c \mid r)`, whose
      normal equations are

      .. math::

          \big((1 - \gamma) A^\top A + \gamma\, \mathrm{diag}(A^\top
          \mathbf 1)\big)\, c = A^\top M;

      at :math:`\gamma = 1` it minimises the mean squared error and is the
      mean of :math:`M(r)` given :math:`\tilde r` for uniformly distributed
      ranks.

    The sum over all :math:`n` ranks weighs them uniformly (as the paper);
    it is accumulated block by block (:math:`A` has :math:`n \times (m + 1)`
    entries: the cost grows as :math:`n m`, about a second for
    :math:`n = 5000, m = 99`).  With ties in ``y_score`` the value of a
    point is the mean of :math:`c` over the sampled ranks its ties span
    (every order of the tied items equally likely).  When :math:`m = n - 1`
    every estimator is the exact metric.

    References
    ----------
    .. [1] W. Krichene and S. Rendle. "On Sampled Metrics for Item
       Recommendation". KDD 2020.

    Examples
    --------
    Ranks of 5 held-out items among 199 sampled negatives from a catalogue
    of 1,000 items (a sampled rank stands for about 5 catalogue ranks):

    >>> from sklearn_rankmetrics.model_selection import sampled_metrics
    >>> result = sampled_metrics([1, 1, 3, 12, 40], n_items=1000,
    ...                          n_negatives=199, k=10, metrics=["hit_rate"])
    >>> result["naive"]["hit_rate@10"]  # 3 of 5 in the sampled top 10
    0.6
    >>> {name: round(v["hit_rate@10"], 3) for name, v in result.items()}
    {'naive': 0.6, 'rescaled': 0.4, 'minimal_bias': 0.41, 'bias_variance': 0.487}

    Drawing the negatives from every item's scores, with a seed so that
    every model meets the same sample:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> scores = rng.normal(size=(50, 400))
    >>> held_out = rng.integers(0, 400, size=50)
    >>> result, negatives = sampled_metrics(
    ...     y_score=scores, positives=held_out, n_negatives=99, k=10,
    ...     metrics=["ndcg"], random_state=0, return_negatives=True)
    >>> negatives.shape
    (50, 99)
    """
    ks = _check_ks(k)
    names = _check_metrics(metrics)
    if (
        isinstance(gamma, (bool, np.bool_))
        or not isinstance(gamma, numbers.Real)
        or not 0 <= gamma <= 1
    ):
        raise ValueError(f"gamma must be a number in [0, 1]; got {gamma!r}.")
    gamma = float(gamma)
    if ranks is not None:
        if y_score is not None or positives is not None or negatives is not None:
            raise ValueError(
                "Give ranks (with n_items and n_negatives) or y_score and "
                "positives (with negatives or n_negatives), not both."
            )
        if n_items is None or n_negatives is None:
            raise ValueError(
                "ranks needs n_items (the catalogue size) and n_negatives (the "
                "number of sampled negatives per held-out item)."
            )
        n_items = _check_count("n_items", n_items, 2)
        n_negatives = _check_sample_size(n_negatives, n_items)
        low, high = _check_ranks(ranks, n_negatives)
        drawn = None
    else:
        if y_score is None or positives is None:
            raise ValueError(
                "Give ranks (1-based ranks among the sampled negatives) or "
                "y_score (every item's score) and positives (the held-out item "
                "of each row)."
            )
        S = np.asarray(y_score)
        if S.ndim != 2:
            raise ValueError(
                f"y_score must be 2-D (users x items), got shape {S.shape}."
            )
        if S.dtype.kind not in "biuf":
            raise TypeError(f"y_score must be numeric, got dtype {S.dtype}.")
        if S.dtype.kind == "f" and np.isnan(S).any():
            raise ValueError("y_score contains NaN; scores must be numbers or -inf.")
        if n_items is not None and _check_count("n_items", n_items, 2) != S.shape[1]:
            raise ValueError(
                f"n_items={n_items} but y_score has {S.shape[1]} items (columns)."
            )
        n_items = _check_count("n_items", S.shape[1], 2)
        pos = np.asarray(positives)
        if pos.shape != (S.shape[0],) or pos.dtype.kind not in "iu":
            raise ValueError(
                f"positives must hold one item column (int) per row of y_score "
                f"({S.shape[0]}), got shape {pos.shape} and dtype {pos.dtype}."
            )
        if ((pos < 0) | (pos >= n_items)).any():
            raise ValueError(f"positives must be columns 0..{n_items - 1}.")
        pos = pos.astype(np.intp)
        if negatives is None:
            if n_negatives is None:
                raise ValueError(
                    "Give n_negatives (how many negatives to draw per user) or "
                    "negatives (a fixed sample)."
                )
            n_negatives = _check_sample_size(n_negatives, n_items)
            drawn = _draw_negatives(pos, n_items, n_negatives, random_state)
        else:
            drawn = _check_negatives(negatives, pos, n_items)
            if n_negatives is not None and n_negatives != drawn.shape[1]:
                raise ValueError(
                    f"n_negatives={n_negatives} but negatives has "
                    f"{drawn.shape[1]} columns."
                )
            n_negatives = _check_sample_size(drawn.shape[1], n_items)
        low, high = _ranks_from_scores(S, pos, drawn)
    w = _check_weights(sample_weight, low.shape[0])
    _warn_small_sample(ks, n_items, n_negatives)
    tables = _tables(names, ks, n_items, n_negatives, gamma)
    result = {name: {} for name in _ESTIMATORS}
    for (name, kk), per_estimator in tables.items():
        for estimator, table in per_estimator.items():
            value = _mean_over_ties(table, low, high)
            result[estimator][f"{name}@{kk}"] = weighted_mean(
                value, w, keep=EVERY_QUERY
            )
    if return_negatives:
        return result, drawn
    return result


def _check_sample_size(n_negatives, n_items):
    n_negatives = _check_count("n_negatives", n_negatives, 1)
    if n_negatives > n_items - 1:
        raise ValueError(
            f"n_negatives={n_negatives} is more than the {n_items - 1} items "
            f"other than the held-out one in a catalogue of n_items={n_items}."
        )
    return n_negatives


def _mean_over_ties(table, low, high):
    """The mean of ``table`` over sampled ranks low..high (1-based) per point."""
    value = table[low - 1]
    tied = high > low
    if tied.any():
        cum = np.concatenate([[0.0], np.cumsum(table)])
        span = cum[high[tied]] - cum[low[tied] - 1]
        value[tied] = span / (high[tied] - low[tied] + 1)
    return value


def _warn_small_sample(ks, n_items, n_negatives):
    span = (n_items - 1) / n_negatives
    small = [kk for kk in ks if span > kk]
    if small:
        needed = math.ceil((n_items - 1) / min(small))
        warnings.warn(
            f"n_negatives={n_negatives} is too small for k={small}: each sampled "
            f"rank stands for about {span:.3g} ranks of the catalogue of "
            f"{n_items} items, more than k, so the sample cannot tell the "
            "catalogue's top k apart; the corrected values rest on weighting "
            "every catalogue rank alike. n_negatives >= "
            f"{needed} resolves k={min(small)}.",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
