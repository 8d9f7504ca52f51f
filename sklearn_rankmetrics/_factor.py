"""Ranking report of a factor model over the whole catalogue, block by block."""

import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn import get_config
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils import gen_batches

from ._ranking import KERNELS
from ._report import (
    PerQueryReport,
    _as_table,
    _check_cutoffs,
    _check_metrics,
    _format,
    _means,
    _per_query_report,
)


def _rows(X, idx):
    """Rows ``idx`` of a dense array or sparse matrix, as a dense array."""
    if sp.issparse(X):
        return np.asarray(X[idx].toarray())
    return np.asarray(X[idx])


def _chunk_rows(row_bytes, n_rows, working_memory):
    """Rows per block so that a block takes ``working_memory`` MiB (scikit-
    learn's config when None), at least 1 (as pairwise_distances_chunked)."""
    if working_memory is None:
        working_memory = get_config()["working_memory"]
    if not isinstance(working_memory, numbers.Real) or not working_memory > 0:
        raise ValueError(
            f"working_memory must be a positive number of MiB; got {working_memory!r}."
        )
    rows = int(working_memory * 2**20 // row_bytes)
    return max(1, min(rows, max(n_rows, 1)))


def factor_ranking_report(
    y_true,
    user_factors,
    item_factors=None,
    *,
    exclude=None,
    k=10,
    metrics=None,
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
    working_memory=None,
):
    """Ranking report of a factor model, scoring the catalogue by blocks.

    Equals :func:`ranking_report` on the dense score matrix
    ``user_factors @ item_factors.T`` with the ``exclude``-d items at
    ``-inf``, bit for bit, without ever holding that matrix: the scores are
    computed for a block of users at a time.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_users, n_items)
        Held-out relevance grades.
    user_factors : array-like of shape (n_users, n_factors) or callable
        User factors, or a callable taking an index array of users and
        returning their ``(len(users), n_items)`` scores (then
        ``item_factors=None``).
    item_factors : array-like of shape (n_items, n_factors), default=None
        Item factors.
    exclude : sparse matrix or bool array of shape (n_users, n_items), default=None
        Items not to recommend (typically the training interactions): their
        scores are set to ``-inf``.  Excluding a held-out relevant item is
        allowed, with a warning giving the count.
    k, metrics, relevance_threshold, gain, ignore_ties, no_relevant, \
sample_weight, output_dict, per_query, digits, beta, log_base, ap_denominator
        As in :func:`ranking_report`.
    working_memory : float, default=None
        Size in MiB of a block of scores; None takes scikit-learn's
        ``working_memory`` configuration.

    Returns
    -------
    report : str, dict or DataFrame
        As :func:`ranking_report`.

    See Also
    --------
    ranking_report : The same report from a score matrix.

    Notes
    -----
    Each block's per-user values come from the same ranking code as
    :func:`ranking_report`; they are concatenated and averaged with the
    report's weighted mean.  ERR scales by the largest grade of all users:
    each block is ranked together with one extra row carrying that grade,
    whose value is dropped.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics import factor_ranking_report
    >>> U = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> V = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    >>> y_true = np.array([[0, 1, 0], [0, 0, 1]])
    >>> factor_ranking_report(y_true, U, V, k=1, metrics=["precision"],
    ...                       output_dict=True)
    {'precision@1': 0.5}
    """
    if not isinstance(digits, numbers.Integral) or digits < 0:
        raise ValueError(f"digits must be an int >= 0; got {digits!r}.")
    if not (sp.issparse(y_true) or np.ndim(y_true) == 2):
        raise ValueError(
            "y_true must be a 2-D array or sparse matrix (users x items) of "
            f"held-out relevance, got {np.ndim(y_true)} dimensions."
        )
    if not sp.issparse(y_true):
        y_true = np.asarray(y_true)
    n_users, n_items = y_true.shape
    if callable(user_factors):
        if item_factors is not None:
            raise TypeError(
                "user_factors is a callable returning score blocks, so "
                "item_factors must be None."
            )
        score_block = user_factors
    else:
        U = np.asarray(user_factors, dtype=np.float64)
        V = np.asarray(item_factors, dtype=np.float64)
        if U.ndim != 2 or V.ndim != 2:
            raise ValueError(
                "user_factors and item_factors must be 2-D (n_users x "
                "n_factors and n_items x n_factors)."
            )
        if U.shape[1] != V.shape[1]:
            raise ValueError(
                f"user_factors has {U.shape[1]} factors but item_factors has "
                f"{V.shape[1]}; both need the same inner dimension."
            )
        if U.shape[0] != n_users or V.shape[0] != n_items:
            raise ValueError(
                f"y_true has shape {y_true.shape} but the factors give "
                f"{U.shape[0]} users x {V.shape[0]} items."
            )
        if not (np.isfinite(U).all() and np.isfinite(V).all()):
            raise ValueError("user_factors and item_factors contain NaN or inf.")

        def score_block(idx):
            return U[idx] @ V.T

    if exclude is not None:
        if not sp.issparse(exclude):
            exclude = np.asarray(exclude)
        if exclude.shape != (n_users, n_items):
            raise ValueError(
                f"exclude must have the shape of y_true {y_true.shape}, got "
                f"{exclude.shape}."
            )
    w = None
    if sample_weight is not None:
        w = np.asarray(sample_weight, dtype=np.float64)
        if w.shape != (n_users,):
            raise ValueError(
                f"sample_weight must have one weight per user ({n_users}), got "
                f"shape {w.shape}."
            )
        if not np.isfinite(w).all() or (w < 0).any():
            raise ValueError("sample_weight must be finite and non-negative.")
    ks = _check_cutoffs(k)
    names = _check_metrics(metrics, False)
    if w is not None and "gauc" in names:
        raise ValueError(
            "factor_ranking_report does not take sample_weight with gauc yet; "
            "drop one of them."
        )
    # ERR: every block is ranked with one extra row holding the largest grade.
    err = any("exponential_gain" in KERNELS[m].requires for m in names if m in KERNELS)
    top_grade = y_true.max() if n_users and n_items else 0
    chunk = _chunk_rows(8 * 3 * max(n_items, 1), n_users, working_memory)
    options = dict(
        k=k,
        metrics=metrics,
        query_id=None,
        relevance_threshold=relevance_threshold,
        gain=gain,
        ignore_ties=ignore_ties,
        no_relevant=no_relevant,
        beta=beta,
        log_base=log_base,
        ap_denominator=ap_denominator,
    )
    values, weights, n_removed = {}, {}, 0
    for b in gen_batches(n_users, chunk):
        idx = np.arange(b.start, b.stop)
        S = np.asarray(score_block(idx), dtype=np.float64)
        if S.shape != (idx.size, n_items):
            raise ValueError(
                f"the score callable returned shape {S.shape} for "
                f"{idx.size} users; expected ({idx.size}, {n_items})."
            )
        Y = _rows(y_true, b)
        if exclude is not None:
            mask = _rows(exclude, b) != 0
            n_removed += int(np.count_nonzero(mask & (Y > 0)))
            S[mask] = -np.inf
        wb = None if w is None else w[b]
        if err:
            extra = np.zeros((1, n_items), dtype=Y.dtype)
            extra[0, 0] = top_grade
            Y = np.vstack([Y, extra])
            S = np.vstack([S, np.zeros((1, n_items))])
            wb = None if wb is None else np.append(wb, 1.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            # the user weights are applied here, not passed down: a 1-row
            # 2-D block would read a 1-element sample_weight differently
            rep = _per_query_report(Y, S, sample_weight=None, **options)
        n = idx.size
        for name, v in rep.values.items():
            values.setdefault(name, []).append(v[:n])
            wq = rep.weights[name][:n] if wb is None else wb[:n]
            weights.setdefault(name, []).append(wq)
    if n_removed:
        warnings.warn(
            f"exclude removes {n_removed} held-out relevant (user, item) "
            "pairs; they stay relevant but can never be recommended.",
            UserWarning,
            stacklevel=2,
        )
    report = PerQueryReport(
        np.arange(n_users),
        {n: np.concatenate(v) for n, v in values.items()},
        {n: np.concatenate(v) for n, v in weights.items()},
    )
    if per_query:
        return _as_table(report, output_dict)
    means = _means(report)
    if output_dict:
        return means
    shown = list(dict.fromkeys(n.partition("@")[0] for n in report.values))
    first = next(iter(report.values.values()))
    n_scored = int(np.count_nonzero(~np.isnan(first)))
    return _format(means, shown, ks, digits, n_users, n_scored)
