"""Ranking report of a factor model over the whole catalogue, block by block."""

import numbers
import warnings
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import UndefinedMetricWarning
from threadpoolctl import threadpool_limits

from .._metrics._beyond import _Lists
from .._registry import METRICS
from .._utils._config import _check_n_threads, config_context, effective_n_threads
from .._utils._config import get_config as get_package_config
from .._utils._conventions import check_convention
from .._utils._tables import table_output
from ._beyond_report import report_sums, split_report_metrics
from ._per_query import (
    PerQueryReport,
    _check_cutoffs,
    _check_metrics,
    _check_report_options,
    _format,
    _means,
    _per_query_report,
    same_option,
)
from ._rectable import top_k_rows
from ._report import _as_table
from ._tiling import (
    _canonical_csr,
    _chunk_rows,
    _excluded,
    _rows,
    _stack_padded,
    _tile_rows,
    _tiled_product,
)

__all__ = []  # private module


def _candidates(S, Yb, k):
    """Each user's items worth ranking for a cut-off ``k``, packed into
    narrow ``(scores, grades)`` rows padded with ``-inf`` scores, or None
    when that saves nothing.

    An item is kept if its user has a grade for it, or if it scores at least
    a lower bound of the user's ``c``-th best score, ``c = 2k + 17`` (the
    engine's candidates for the top ``k``, plus one): the ``c``-th largest
    of the maxima of ``g`` groups of ``s`` columns (``c`` groups hold a score >=
    it).  Every item left out scores below the bound, so the engine selects
    from the same items (its candidates and the tie group cut at ``k`` score
    at least the bound), and the user's relevant items, hence the ideal
    ranking, are all there.  Columns keep their order.
    bench_factor.py (50000 items, k=10): about 60 items per user.
    """
    n, m = S.shape
    c = 2 * k + 17
    s = min(64, m // (4 * c))
    if s < 2:
        return None
    g = m // s
    # groups of columns j, j + g, j + 2g, ...: an elementwise max of s
    # contiguous slices, 3x faster than groups of adjacent columns
    heads = S[:, : g * s].reshape(n, s, g).max(axis=1)
    bound = np.partition(heads, g - c, axis=1)[:, g - c]
    if not (bound > -np.inf).all():  # fewer than c groups with a finite score
        return None
    keep = S >= bound[:, None]
    if sp.issparse(Yb):
        yr = np.repeat(np.arange(n), np.diff(Yb.indptr))
        yc, yv = Yb.indices, Yb.data
    else:
        yr, yc = np.nonzero(Yb)
        yv = Yb[yr, yc]
    keep[yr, yc] = True
    flat = np.flatnonzero(keep)  # 1-D: 3x faster than a 2-D nonzero
    r, col = np.divmod(flat, m)
    counts = np.bincount(r, minlength=n)
    width = int(counts.max(initial=0))
    if 2 * width > m:
        return None
    starts = np.cumsum(counts) - counts
    pos = np.arange(r.size) - starts[r]
    S_c = np.full((n, width), -np.inf, dtype=S.dtype)
    S_c[r, pos] = S[r, col]
    Y_c = np.zeros((n, width), dtype=yv.dtype)
    if yv.size:
        at = np.searchsorted(flat, yr * m + yc)  # flat is increasing
        Y_c[r[at], pos[at]] = yv
    return S_c, Y_c


def _concat_lists(parts):
    """The top-``k`` lists of consecutive blocks of users as one: the same
    arrays as from the whole score matrix (each block's entries are sorted
    by user and item, its users numbered from the block's first)."""
    offsets = np.cumsum([0] + [p.n_users for p in parts[:-1]])

    def cat(field):
        return np.concatenate([getattr(p, field) for p in parts])

    return _Lists(
        sum(p.n_users for p in parts),
        parts[0].n_items,
        np.concatenate([p.user + o for p, o in zip(parts, offsets, strict=True)]),
        *(cat(f) for f in ("item", "score", "rel", "p", "tied", "L", "frac", "a2")),
    )


def _beyond_values(sums, blocks):
    """``{"catalog_coverage@10": float, ...}`` from each block's lists per
    cut-off (``blocks``: ``{k: _Lists}`` per block, in user order).

    The lists of all blocks are concatenated before the sums, rather than
    merging each block's sums (``BeyondSums.merge``): the coverage products,
    exposure counts and per-user sums then add in the same order as on the
    whole score matrix, so the values are :func:`ranking_report`'s bit for
    bit whatever the blocks."""
    for k in sums.ks:
        lists = _concat_lists([b[k] for b in blocks])
        for name in sums.names:
            sums._merge_part(name, k, sums._part(name, lists))
    sums.n_users = sum(b[sums.ks[0]].n_users for b in blocks)
    return sums.values()


_BEYOND_DEFAULTS = dict(
    item_popularity=None,
    item_features=None,
    metric="cosine",
    normalization="none",
    share="auto",
)
_RANKING_DEFAULTS = dict(
    relevance_threshold=None,
    gain="linear",
    ignore_ties=False,
    no_relevant="skip",
    beta=1.0,
    log_base=2,
    ap_denominator="relevant",
)


def _changed(options, defaults):
    """Names of ``options`` not at their default (:func:`same_option`)."""
    return [
        name
        for name, value in options.items()
        if not same_option(value, defaults[name])
    ]


def _refuse_beyond_options(**options):
    """TypeError when beyond-accuracy options come without those metrics."""
    given = _changed(options, _BEYOND_DEFAULTS)
    if given:
        raise TypeError(
            f"{', '.join(given)}: options of the beyond-accuracy metrics "
            "(catalog_coverage, gini_index, ...), and metrics has none of them; "
            "add them to metrics or drop the options."
        )


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
    item_popularity=None,
    item_features=None,
    metric="cosine",
    normalization="none",
    share="auto",
    working_memory=None,
    n_threads=None,
    convention=None,
    return_top_k=False,
    **options,
):
    """Ranking report of a factor model, scoring the catalogue by blocks.

    Equals :func:`ranking_report` on the dense score matrix
    ``user_factors @ item_factors.T`` with the ``exclude``-d items at
    ``-inf``, bit for bit, without ever holding that matrix: the scores are
    computed for a block of users at a time, blocks on several threads.

    Read more in the :ref:`User Guide <recommenders>`.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_users, n_items)
        Held-out relevance grades.
    user_factors : array-like of shape (n_users, n_factors) or callable
        User factors, or a callable taking an index array of users and
        returning their dense ``(len(users), n_items)`` scores (then
        ``item_factors=None``; a sparse matrix is refused with a
        TypeError; the returned array is copied, never modified, even when
        it is a view of the caller's matrix).  Factors must be finite;
        float32 factors (both) are multiplied in float32, others in
        float64.
    item_factors : array-like of shape (n_items, n_factors), default=None
        Item factors.
    exclude : sparse matrix or bool array of shape (n_users, n_items), default=None
        Items not to recommend (typically the training interactions): their
        scores are set to ``-inf``, so they are not candidates for any
        metric (:ref:`candidates`): never retrieved, left out of fall-out's
        non-relevant items and of GAUC's pairs.  A sparse matrix excludes
        its stored non-zero entries (explicit zeros exclude nothing).
        Excluding a held-out relevant item is allowed (it stays relevant and
        is never found; GAUC ranks it below every candidate), with one
        warning giving the count.
    k, metrics, relevance_threshold, gain, ignore_ties, no_relevant, \
sample_weight, output_dict, per_query, digits, beta, log_base, ap_denominator
        As in :func:`ranking_report`.  A ``k`` above the catalogue size
        ranks the whole catalogue, and ``precision@k`` still divides by
        ``k``, as everywhere (so precision@20 of an 8-item catalogue is at
        most 8/20).  ``metrics`` may name the
        beyond-accuracy metrics (``"catalog_coverage"``, ``"gini_index"``,
        ``"exposure_entropy"``, ``"average_popularity"``, ``"novelty"``,
        ``"intra_list_diversity"``, ``"serendipity"``), which
        :func:`ranking_report` accepts with the same refusals (no
        ``per_query=True``, no ``sample_weight``, no
        ``relevance_threshold`` with serendipity).
    item_popularity, item_features, metric, normalization, share
        Options of the beyond-accuracy metrics, as in their functions
        (e.g. :func:`novelty_at_k`, :func:`intra_list_diversity_at_k`,
        :func:`exposure_entropy_at_k`); refused without those metrics.
    working_memory : float, default=None
        MiB that the blocks being ranked take together (all threads); None
        takes scikit-learn's ``working_memory`` configuration.  A block is
        at least one tile of scores (128 users, fewer on large catalogues:
        at most 16 MiB).
    n_threads : int >= 1 or "auto", default=None
        Threads over the blocks of users (each multiplies with one BLAS
        thread).  None takes the package setting
        (:func:`~sklearn_rankmetrics.set_config`, ``"auto"``: the CPUs of
        the process).  Results do not depend on it.
    convention : str or None, default=None
        A preset of the ranking metrics' options, as in
        :func:`ranking_report` (``"trec_eval"``, ``"lightgbm"``, ...).
    return_top_k : bool, default=False
        Also return each user's top ``max(k)`` items, in the table form of
        :func:`recommendation_table_report`: columns ``"user_id"`` and
        ``"item_id"`` (row and column numbers), ``"rank"`` (1, 2, ...) and
        ``"score"``; excluded and ``-inf`` items left out, tied scores
        ordered by item number (the order ``ignore_ties=True`` ranks).  A
        :class:`pandas.DataFrame`, or a dict of arrays without pandas.
    **options
        The other options of the ranking metric functions, as in
        :func:`ranking_report` (``ties``, ``precision_denominator``,
        ``persistence``, ``rbp_gain``, ``discount``, ...).

    Returns
    -------
    report : str, dict or DataFrame
        As :func:`ranking_report`.
    top_k : DataFrame or dict
        With ``return_top_k=True`` only (then ``(report, top_k)`` is
        returned): the lists.  :func:`recommendation_table_report` on them
        (``rank_col="rank"``) gives this report's values under
        ``ignore_ties=True``, and the default's when no two scores tie at
        the cut.

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

    The scores are products of aligned tiles of users of a fixed shape, so
    a user's scores, and every value, are the same bits for any
    ``working_memory`` and ``n_threads`` (with a callable, if its scores
    do not depend on the other users of the block).  When every metric is read from
    the top :math:`k` (precision, recall, F, hit rate, MRR, MAP, DCG, NDCG,
    ERR, RBP, success) only a user's candidates are ranked: its items
    scoring at least :math:`b_u`, a lower bound of its :math:`c`-th best
    score (:math:`c = 2k + 17`, one more than the ranking engine keeps), and its
    relevant items.  :math:`b_u` is the :math:`c`-th largest of the maxima
    of :math:`g` groups of columns, since :math:`c` groups hold a score
    at least :math:`b_u`.  The items left out score below every item of the
    top :math:`k` and of the tie group it cuts, and are not relevant, so
    the values are unchanged, and the memory is one tile of scores per
    thread.

    The beyond-accuracy metrics need every user's list of item numbers, so
    they select from whole rows (each tile's scores before its candidates
    are packed for the other metrics).  Each block's top-:math:`k` entries
    (the items of each list, with their inclusion probabilities under ties)
    are kept, about :math:`k` per user, and concatenated in user order
    before the per-item products and counts and the per-user sums: the
    values are the same bits as from the whole score matrix.

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

    Any model that scores blocks of users, here a non-negative matrix
    factorisation of the training interactions:

    >>> from sklearn.decomposition import NMF
    >>> rng = np.random.default_rng(0)
    >>> train = (rng.random((30, 12)) < 0.3).astype(float)
    >>> held_out = (rng.random((30, 12)) < 0.1) & (train == 0)
    >>> nmf = NMF(n_components=3, init="nndsvda", max_iter=500).fit(train)
    >>> W = nmf.transform(train)
    >>> report = factor_ranking_report(
    ...     held_out, lambda users: W[users] @ nmf.components_,
    ...     exclude=train, k=3, metrics=["recall"], output_dict=True)
    >>> sorted(report)
    ['recall@3']

    Beyond accuracy: how much of the catalogue the lists cover, and how
    novel their items are for the training popularity:

    >>> report = factor_ranking_report(
    ...     held_out, lambda users: W[users] @ nmf.components_, exclude=train,
    ...     k=3, metrics=["recall", "catalog_coverage", "novelty"],
    ...     item_popularity=train, output_dict=True)
    >>> list(report)
    ['recall@3', 'catalog_coverage@3', 'novelty@3']

    With an `implicit <https://github.com/benfred/implicit>`_ ALS model
    (``implicit`` is not a dependency: not run here; ``model.to_cpu()``
    first for a GPU model):

    .. code-block:: python

        from implicit.als import AlternatingLeastSquares

        model = AlternatingLeastSquares(factors=64)
        model.fit(train_csr)  # fit returns None in implicit
        factor_ranking_report(
            test_csr, model.user_factors, model.item_factors,
            exclude=train_csr, k=10, ap_denominator="min_k")
    """
    if not isinstance(digits, numbers.Integral) or digits < 0:
        raise ValueError(f"digits must be an int >= 0; got {digits!r}.")
    if not isinstance(return_top_k, (bool, np.bool_)):
        raise TypeError(f"return_top_k must be True or False; got {return_top_k!r}.")
    if not (sp.issparse(y_true) or np.ndim(y_true) == 2):
        raise ValueError(
            "y_true must be a 2-D array or sparse matrix (users x items) of "
            f"held-out relevance, got {np.ndim(y_true)} dimensions."
        )
    if not sp.issparse(y_true):
        y_true = np.asarray(y_true)
    n_users, n_items = y_true.shape
    if n_users == 0 or n_items == 0:
        raise ValueError(
            f"y_true has shape {y_true.shape}; it needs at least one user and one item."
        )
    if callable(user_factors):
        if item_factors is not None:
            raise TypeError(
                "user_factors is a callable returning score blocks, so "
                "item_factors must be None."
            )
    else:
        if item_factors is None:
            raise TypeError(
                "item_factors is required with a user_factors matrix (or pass "
                "a callable returning score blocks as user_factors)."
            )
        U, V = np.asarray(user_factors), np.asarray(item_factors)
        for name, X in (("user_factors", U), ("item_factors", V)):
            if X.dtype.kind not in "biuf":
                raise TypeError(f"{name} must hold real numbers; got dtype {X.dtype}.")
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
            bad = "user_factors" if not np.isfinite(U).all() else "item_factors"
            raise ValueError(
                f"{bad} contains NaN or inf; every factor must be finite (fit "
                "the model again, or replace those rows)."
            )

        dtype = np.float32 if U.dtype == V.dtype == np.float32 else np.float64
        U = np.asarray(U, dtype=dtype)
        VT = np.asarray(V, dtype=dtype).T

    if exclude is not None:
        if not sp.issparse(exclude):
            exclude = np.asarray(exclude)
        if exclude.shape != (n_users, n_items):
            raise ValueError(
                f"exclude must have the shape of y_true {y_true.shape}, got "
                f"{exclude.shape}."
            )
        if sp.issparse(exclude):
            exclude = _canonical_csr(exclude)
    if sp.issparse(y_true):
        y_true = _canonical_csr(y_true)
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
    named = dict(  # the ranking options this function names
        relevance_threshold=relevance_threshold,
        gain=gain,
        ignore_ties=ignore_ties,
        no_relevant=no_relevant,
        beta=beta,
        log_base=log_base,
        ap_denominator=ap_denominator,
    )
    _check_report_options(options, "factor_ranking_report")
    if convention is not None:
        check_convention(convention)
    metrics, beyond = split_report_metrics(metrics)
    sums = None
    beyond_named = dict(
        item_popularity=item_popularity,
        item_features=item_features,
        metric=metric,
        normalization=normalization,
        share=share,
    )
    if beyond:
        # the options given (not at their default) and the tie rule, as for
        # the ranking metrics below: the convention fills in the others
        given = {n: beyond_named[n] for n in _changed(beyond_named, _BEYOND_DEFAULTS)}
        given.update((o, options[o]) for o in ("ties",) if o in options)
        given.update({"ignore_ties": True} if ignore_ties else {})
        sums = report_sums(
            beyond,
            ks,
            convention=convention,
            alone=not metrics,
            per_query=per_query,
            sample_weight=sample_weight,
            relevance_threshold=relevance_threshold,
            ranking_options=[  # the tie rule is the beyond metrics' too
                n for n in _changed(named, _RANKING_DEFAULTS) if n != "ignore_ties"
            ],
            **given,
        )
    else:
        _refuse_beyond_options(**beyond_named)
    names = _check_metrics(metrics, False) if metrics or not beyond else []
    if w is not None and "gauc" in names:
        raise ValueError(
            "factor_ranking_report does not take sample_weight with gauc yet; "
            "drop one of them."
        )
    if n_threads is not None:
        n_threads = _check_n_threads(n_threads)
    # ERR: every block is ranked with one extra row holding the largest grade.
    err = any("exponential_gain" in METRICS[m].requires for m in names)
    top_grade = y_true.max() if n_users and n_items else 0
    # A block holds its scores, grades and the engine's selection (about 3
    # float64 arrays of its shape); working_memory bounds the blocks of all
    # threads together.  Blocks of the factor form are whole product tiles.
    row_bytes = 8 * 3 * max(n_items, 1)
    if callable(user_factors):
        tile = 1
    else:
        tile = _tile_rows(VT.dtype.itemsize * max(n_items, 1))

    def settings():
        return config_context(n_threads=n_threads) if n_threads else nullcontext()

    with settings():
        threads = effective_n_threads(-(-n_users // tile))
        one_thread = get_package_config()["n_threads"] == 1
    chunk = _chunk_rows(row_bytes * threads, n_users, working_memory)
    chunk = max(tile, chunk // tile * tile)
    bounds = [(a, min(a + chunk, n_users)) for a in range(0, n_users, chunk)]
    threads = min(threads, len(bounds))
    options = dict(
        options,
        convention=convention,
        caller="factor_ranking_report",
        k=k,
        metrics=metrics,
        query_id=None,
    )
    # The named options at their default leave the choice to the
    # convention (and else to each function's own default), as in
    # ranking_report, where they are not named.
    options.update((n, named[n]) for n in _changed(named, _RANKING_DEFAULTS))

    # Only the best-scored items of a block, and its relevant ones, reach the
    # ranking, for the metrics read from the top k alone.
    k_max = None if None in ks else max(ks)
    reduce_columns = k_max is not None and all(
        METRICS[m].reads == "top_k" for m in names
    )
    # (the beyond-accuracy metrics read the whole rows before that)
    reduce_columns = reduce_columns and bool(names)

    def scores(start, stop, out=None):
        """The scores of the users start..stop-1, excluded items at -inf,
        their grades (CSR rows or a dense view) and the count of held-out
        relevant items excluded."""
        if callable(user_factors):
            idx = np.arange(start, stop)
            block = user_factors(idx)
            if sp.issparse(block):
                raise TypeError(
                    f"the score callable returned a sparse matrix for users "
                    f"{start}..{stop - 1}; return a dense array of every "
                    "item's score (e.g. .toarray()): an entry a sparse matrix "
                    "leaves out would be a score of 0, not an item left out "
                    "(use -inf, or exclude=, for that)."
                )
            # a copy, always: the excluded items are set to -inf below, and
            # the callable may return a view of the caller's own matrix
            S = np.array(block, dtype=np.float64, copy=True)
            if S.shape != (idx.size, n_items):
                raise ValueError(
                    f"the score callable returned shape {S.shape} for "
                    f"{idx.size} users; expected ({idx.size}, {n_items})."
                )
            if np.isnan(S).any():
                raise ValueError(
                    "the score callable returned NaN scores (for users "
                    f"{start}..{stop - 1}); scores must be numbers or -inf."
                )
        else:
            S = _tiled_product(U, VT, start, stop, tile, out)
        b = slice(start, stop)
        Yb = y_true[b]
        removed = 0
        if exclude is not None:
            r, c = _excluded(exclude, b)
            if r.size:
                held = np.asarray(Yb[r, c]).ravel()
                removed = int(np.count_nonzero(held > 0))
                S[r, c] = -np.inf
        return S, Yb, removed

    def block_lists(S, Yb):
        """The beyond-accuracy metrics' top-k lists of the users of ``S``
        (whole rows, excluded items at -inf), per cut-off."""
        lists = {}
        with config_context(n_threads=1) if threads > 1 else nullcontext():
            for kk in ks:
                lists[kk] = sums.lists(Yb, S, kk)
        return lists

    def packed_block(start, stop):
        """The block's candidates, tile by tile through one buffer of
        scores (None if some tile cannot be packed), the count of relevant
        items excluded and the beyond-accuracy lists (None without them)."""
        out = np.empty((tile, n_items), dtype=VT.dtype)
        parts, tiles, removed, top = [], [], 0, []
        for a in range(start, stop, tile):
            S, Yb, n_out = scores(a, min(a + tile, stop), out)
            if return_top_k:  # before the buffer is reused
                top.append(top_k_rows(S, max(ks), a))
            packed = _candidates(S, Yb, k_max)
            if packed is None:
                return None, 0, None
            if beyond:  # from the tile's whole rows, before the buffer is reused
                tiles.append(block_lists(S, Yb))
            parts.append(packed)
            removed += n_out
        lists = None
        if beyond:
            lists = {kk: _concat_lists([t[kk] for t in tiles]) for kk in ks}
        if return_top_k:
            tops[start] = [np.concatenate(c) for c in zip(*top, strict=True)]
        return _stack_padded(parts), removed, lists

    def one_block(start, stop):
        packed, lists = None, None
        if reduce_columns and not callable(user_factors):
            packed, removed, lists = packed_block(start, stop)
        if packed is None:
            S, Yb, removed = scores(start, stop)
            if return_top_k:
                tops[start] = top_k_rows(S, max(ks), start)
            if beyond:
                lists = block_lists(S, Yb)
                if not names:
                    return {}, {}, removed, lists
            if reduce_columns:
                packed = _candidates(S, Yb, k_max)
        if packed is None:
            Y = _rows(Yb, slice(None))
        else:  # the other items score below every user's k-th best
            S, Y = packed
        b = slice(start, stop)
        wb = None if w is None else w[b]
        n = stop - start
        if err:
            extra = np.zeros((1, S.shape[1]), dtype=Y.dtype)
            extra[0, 0] = top_grade
            Y = np.vstack([Y, extra])
            S = np.vstack([S, np.zeros((1, S.shape[1]), dtype=S.dtype)])
        # the engine runs on one thread inside a block's thread; the user
        # weights are applied here, not passed down: a 1-row 2-D block would
        # read a 1-element sample_weight differently
        with config_context(n_threads=1) if threads > 1 else nullcontext():
            rep = _per_query_report(Y, S, sample_weight=None, **options)
        values = {name: v[:n] for name, v in rep.values.items()}
        weights = {
            name: rep.weights[name][:n] if wb is None else wb for name in rep.values
        }
        return values, weights, removed, lists

    tops = {}  # first user of a block -> its top-k table columns

    def returned(report):
        if not return_top_k:
            return report
        columns = zip(*(tops[a] for a, _ in bounds), strict=True)
        labels = ("user_id", "item_id", "rank", "score")
        table = {n: np.concatenate(c) for n, c in zip(labels, columns, strict=True)}
        return report, table_output(table, False)

    values, weights, n_removed = {}, {}, 0
    with warnings.catch_warnings():
        # per block: the report's own warning about users without held-out
        # items would come once per block
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        # one BLAS thread per block: the blocks are the parallel part (and
        # n_threads=1 means one thread)
        # (threadpool_limits applies its limits when created)
        limit_blas = threads > 1 or one_thread
        with settings(), threadpool_limits(1, "blas") if limit_blas else nullcontext():
            if threads == 1:
                results = [one_block(a, b) for a, b in bounds]
            else:
                with ThreadPoolExecutor(threads) as pool:
                    results = list(pool.map(one_block, *zip(*bounds, strict=True)))
    for vals, wts, removed, _ in results:
        n_removed += removed
        for name in vals:
            values.setdefault(name, []).append(vals[name])
            weights.setdefault(name, []).append(wts[name])
    if n_removed:
        warnings.warn(
            f"exclude removes {n_removed} held-out relevant (user, item) "
            "pairs; they stay relevant but can never be recommended.",
            UserWarning,
            stacklevel=2,
        )
    beyond_means = {}
    if beyond:
        beyond_means = _beyond_values(sums, [r[3] for r in results])
    if not names:  # only beyond-accuracy metrics
        if output_dict:
            return returned(beyond_means)
        if sp.issparse(y_true):
            n_rel = np.count_nonzero(np.diff((y_true > 0).tocsr().indptr))
        else:
            n_rel = np.count_nonzero((y_true > 0).any(axis=1))
        return returned(_format(beyond_means, beyond, ks, digits, n_users, int(n_rel)))
    report = PerQueryReport(
        np.arange(n_users),
        {n: np.concatenate(v) for n, v in values.items()},
        {n: np.concatenate(v) for n, v in weights.items()},
    )
    if per_query:
        return returned(_as_table(report, output_dict))
    means = _means(report)
    means.update(beyond_means)
    if output_dict:
        return returned(means)
    shown = list(dict.fromkeys(n.partition("@")[0] for n in report.values))
    shown += beyond
    first = next(iter(report.values.values()))
    n_scored = int(np.count_nonzero(~np.isnan(first)))
    return returned(_format(means, shown, ks, digits, n_users, n_scored))
