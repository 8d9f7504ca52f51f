"""Ranking report of a factor model over the whole catalogue, block by block.

:func:`factor_ranking_report` runs in three steps over a small object:

1. :func:`_make_plan` checks the arguments once and fixes what every block
   shares in a :class:`_FactorPlan`: where the scores come from and what
   is excluded (:class:`~._tiling.ScoreBlocks`), the metrics and their
   options, the blocks of users and the threads.
2. :func:`_score_block` scores one block of users, tile by tile, and reads
   from each tile what the metrics need (:func:`_read_tile`): the
   candidates of the top-k metrics (:func:`_candidates`), GAUC's counts
   over the whole rows (:func:`_gauc`), the returned top-k table; then it
   ranks the block's candidates (:func:`_rank`) and selects the
   beyond-accuracy lists from them (:func:`_block_lists`).  Without
   candidates (a metric that reads whole rows, or a tile that cannot be
   packed) the whole rows are ranked (:func:`_whole_block`).
3. :func:`factor_ranking_report` concatenates the blocks in user order
   (:func:`_per_user_report`; their beyond-accuracy lists are streamed as
   they complete, :func:`_beyond_values`) and formats the report
   as :func:`ranking_report` does.
"""

import numbers
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from .._engine._select import exact_threshold
from .._metrics._auc import gauc_per_query
from .._registry import METRICS
from .._utils._config import _check_n_threads, config_context, effective_n_threads
from .._utils._config import get_config as get_package_config
from .._utils._conventions import check_convention
from .._utils._tables import table_output
from .._utils._validation import (
    check_y_true_dense,
    check_y_true_sparse,
    raise_nan_scores,
)
from ._beyond_report import (
    BeyondSums,
    ListStream,
    given_beyond_options,
    refuse_beyond_options,
    report_sums,
    split_report_metrics,
)
from ._per_query import (
    _GAUC,
    PerQueryReport,
    _check_cutoffs,
    _check_metrics,
    _check_report_options,
    _format,
    _means,
    _per_query_report,
    _plan,
    gauc_options,
    same_option,
    scorer_name,
)
from ._rectable import top_k_rows, warn_excluded_relevant
from ._report import _as_table
from ._tiling import ScoreBlocks, _canonical_csr, _rows, _stack_padded, block_bounds

__all__ = []  # private module


def _candidates(S, Yb, k):
    """Each user's items worth ranking for a cut-off ``k``, packed into
    narrow ``(scores, grades, columns)`` rows padded with ``-inf`` scores
    (and column ``-1``), or None when that saves nothing.

    An item is kept if its user has a grade for it, or if it scores at least
    a lower bound of the user's ``c``-th best score, ``c = 2k + 17`` (the
    engine's candidates for the top ``k``, plus one): the ``c``-th largest
    of the maxima of ``g`` groups of ``s`` columns (``c`` groups hold a score >=
    it).  Every item left out scores below the bound, so the engine selects
    from the same items (its candidates and the tie group cut at ``k`` score
    at least the bound), and the user's relevant items, hence the ideal
    ranking, are all there.  Columns keep their order: ``columns[i, j]`` is
    the catalogue column of ``S_c[i, j]``, increasing along each row.
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
    # a NaN score (factors whose products overflow: inf - inf) propagates
    # to its group's maximum; the last m - g * s < s columns are read alone
    if np.isnan(heads).any() or np.isnan(S[:, g * s :]).any():
        raise ValueError(
            "the scores contain NaN: a product of the factors overflows "
            "(inf - inf); scale the factors down, or pass them as float64."
        )
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
    C_c = np.full((n, width), -1, dtype=np.intp)
    C_c[r, pos] = col
    return S_c, Y_c, C_c


def _beyond_values(stream):
    """``{"catalog_coverage@10": float, ...}`` of the blocks' lists pushed
    to ``stream`` (a :class:`ListStream`, in user order as they completed).

    The stream computes the parts in the canonical chunks of users that
    :func:`ranking_report` and the metric functions read (not block by
    block, as ``BeyondSums.merge`` would): the coverage products, exposure
    counts and per-user sums add in the same order, so the values are
    :func:`ranking_report`'s bit for bit whatever the blocks, holding one
    chunk's lists rather than every block's."""
    return stream.values()


# The ranking options factor_ranking_report names, at their defaults: the
# ones given (not at their default) are passed on, the others left to the
# convention, as in ranking_report where they are not named.
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


# ---------------------------------------------------------------------------
# Step 1: the arguments, checked once
# ---------------------------------------------------------------------------


def _check_y_true(y_true):
    if not (sp.issparse(y_true) or np.ndim(y_true) == 2):
        raise ValueError(
            "y_true must be a 2-D array or sparse matrix (users x items) of "
            f"held-out relevance, got {np.ndim(y_true)} dimensions."
        )
    if 0 in np.shape(y_true):
        raise ValueError(
            f"y_true has shape {np.shape(y_true)}; it needs at least one user "
            "and one item."
        )
    if sp.issparse(y_true):
        return check_y_true_sparse(y_true)  # canonical CSR
    return check_y_true_dense(y_true, ndim=2)


def _check_factors(user_factors, item_factors, shape):
    """``(U, V.T)`` in their common float dtype, or None for a callable."""
    if callable(user_factors):
        if item_factors is not None:
            raise TypeError(
                "user_factors is a callable returning score blocks, so "
                "item_factors must be None."
            )
        return None
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
    if U.shape[0] != shape[0] or V.shape[0] != shape[1]:
        raise ValueError(
            f"y_true has shape {shape} but the factors give "
            f"{U.shape[0]} users x {V.shape[0]} items."
        )
    if not (np.isfinite(U).all() and np.isfinite(V).all()):
        bad = "user_factors" if not np.isfinite(U).all() else "item_factors"
        raise ValueError(
            f"{bad} contains NaN or inf; every factor must be finite (fit "
            "the model again, or replace those rows)."
        )
    dtype = np.float32 if U.dtype == V.dtype == np.float32 else np.float64
    return np.asarray(U, dtype=dtype), np.asarray(V, dtype=dtype).T


def _check_exclude(exclude, shape):
    if exclude is None:
        return None
    if not sp.issparse(exclude):
        exclude = np.asarray(exclude)
    if exclude.shape != shape:
        raise ValueError(
            f"exclude must have the shape of y_true {shape}, got {exclude.shape}."
        )
    return _canonical_csr(exclude) if sp.issparse(exclude) else exclude


def _check_user_weights(sample_weight, n_users):
    if sample_weight is None:
        return None
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.shape != (n_users,):
        raise ValueError(
            f"sample_weight must have one weight per user ({n_users}), got "
            f"shape {w.shape}."
        )
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("sample_weight must be finite and non-negative.")
    return w


@dataclass(frozen=True)
class _FactorPlan:
    """What every block of a factor report shares, fixed once.

    ``names`` are the ranking metrics (GAUC included), ``beyond`` the
    beyond-accuracy ones with their empty ``sums``.  With ``by_tile``,
    every ranking metric reads the top ``k`` or GAUC's pairs: a block is
    scored tile by tile, the top-``k`` metrics and the beyond-accuracy
    lists read each user's candidates (:func:`_candidates` for the largest
    cut-off) and GAUC each tile's whole rows; otherwise every metric reads
    the whole rows of the block.  ``options`` are those
    :func:`_per_query_report` runs with, ``gauc`` GAUC's checked options
    (:func:`gauc_per_query`'s threshold, query weighting and constant-score
    rule).  ``top_grade`` (ERR: every block is ranked with an extra row
    holding the largest grade) is None when no metric needs it.
    """

    y_true: object  # canonical CSR or 2-D array, checked
    source: ScoreBlocks
    weights: np.ndarray | None
    ks: tuple
    names: list
    beyond: list
    sums: BeyondSums | None
    options: dict
    gauc: tuple | None
    by_tile: bool
    top_grade: object
    return_top_k: bool
    bounds: list
    n_threads: int  # threads over the blocks
    package_n_threads: object  # the n_threads setting the report runs under
    limit_blas: bool  # one BLAS thread per block

    @property
    def n_users(self):
        return self.source.n_users

    @property
    def k_max(self):
        return max(self.ks)

    @property
    def top_k_names(self):
        """The ranking metrics read from the top k (the candidates)."""
        return [m for m in self.names if METRICS[m].reads == "top_k"]

    @property
    def needs_candidates(self):
        return bool(self.beyond or self.top_k_names)

    def engine_threads(self):
        """The engine runs on one thread inside a block's thread."""
        return config_context(n_threads=1) if self.n_threads > 1 else nullcontext()


def _settings(n_threads):
    return config_context(n_threads=n_threads) if n_threads else nullcontext()


def _beyond_sums(beyond, ks, named, beyond_named, options, **refused):
    """The empty :class:`BeyondSums` of the beyond-accuracy metrics, with
    the options given (not at their default) and the tie rule of the
    ranking metrics; the convention fills in the others."""
    given = given_beyond_options(beyond_named)
    given.update((o, options[o]) for o in ("ties",) if o in options)
    given.update({"ignore_ties": True} if named["ignore_ties"] else {})
    return report_sums(
        beyond,
        ks,
        relevance_threshold=named["relevance_threshold"],
        ranking_options=[  # the tie rule is the beyond metrics' too
            n for n in _changed(named, _RANKING_DEFAULTS) if n != "ignore_ties"
        ],
        **refused,
        **given,
    )


def _make_plan(
    y_true,
    user_factors,
    item_factors,
    *,
    exclude,
    k,
    metrics,
    sample_weight,
    per_query,
    named,
    beyond_named,
    working_memory,
    n_threads,
    convention,
    return_top_k,
    options,
):
    """Check every argument and fix the blocks: a :class:`_FactorPlan`."""
    y_true = _check_y_true(y_true)
    n_users, n_items = y_true.shape
    factors = _check_factors(user_factors, item_factors, y_true.shape)
    exclude = _check_exclude(exclude, y_true.shape)
    if factors is None:
        source = ScoreBlocks.of_callable(user_factors, n_users, n_items, exclude)
    else:
        source = ScoreBlocks.of_factors(*factors, exclude)
    w = _check_user_weights(sample_weight, n_users)
    ks = _check_cutoffs(k)
    _check_report_options(options, "factor_ranking_report")
    if convention is not None:
        check_convention(convention)
    metrics, beyond = split_report_metrics(metrics)
    sums = None
    if beyond:
        sums = _beyond_sums(
            beyond,
            ks,
            named,
            beyond_named,
            options,
            convention=convention,
            alone=not metrics,
            per_query=per_query,
            sample_weight=sample_weight,
        )
    else:
        refuse_beyond_options(beyond_named)
    names = _check_metrics(metrics, False) if metrics or not beyond else []
    if w is not None and _GAUC in names:
        raise ValueError(
            "factor_ranking_report does not take sample_weight with gauc yet; "
            "drop one of them."
        )
    if n_threads is not None:
        n_threads = _check_n_threads(n_threads)
    top_grade = None
    if any("exponential_gain" in METRICS[m].requires for m in names):
        top_grade = y_true.max()
    # A block holds its scores, grades and the engine's selection (about 3
    # float64 arrays of its shape); working_memory bounds the blocks of all
    # threads together.  Blocks of the factor form are whole product tiles.
    with _settings(n_threads):
        threads = effective_n_threads(-(-n_users // source.tile))
        one_thread = get_package_config()["n_threads"] == 1
    bounds = block_bounds(
        n_users, source.tile, 8 * 3 * n_items, threads, working_memory
    )
    threads = min(threads, len(bounds))
    options = dict(options, convention=convention, caller="factor_ranking_report", k=ks)
    options.update((n, named[n]) for n in _changed(named, _RANKING_DEFAULTS))
    gauc = None
    if _GAUC in names:
        gauc_plan = _plan(_GAUC, None, convention, options)
        threshold, weighting, constant = gauc_options(gauc_plan, options["caller"])
        gauc = (exact_threshold(threshold, y_true.dtype), weighting, constant)
    return _FactorPlan(
        y_true=y_true,
        source=source,
        weights=w,
        ks=ks,
        names=names,
        beyond=beyond,
        sums=sums,
        options=options,
        gauc=gauc,
        by_tile=all(METRICS[m].reads in ("top_k", "pairs") for m in names),
        top_grade=top_grade,
        return_top_k=bool(return_top_k),
        bounds=bounds,
        n_threads=threads,
        package_n_threads=n_threads,
        # one BLAS thread per block: the blocks are the parallel part (and
        # n_threads=1 means one thread)
        limit_blas=threads > 1 or one_thread,
    )


# ---------------------------------------------------------------------------
# Step 2: one block of users
# ---------------------------------------------------------------------------


class _Block(NamedTuple):
    """What one block of users gives the report."""

    values: dict  # scorer name -> per-user values
    weights: dict  # scorer name -> per-user weights
    n_removed: int  # held-out relevant items excluded
    lists: dict | None  # cut-off -> the beyond-accuracy lists (until streamed)
    top: list | None  # the top-k table columns (return_top_k)


class _Tile(NamedTuple):
    """What a tile of a block keeps once its scores are dropped."""

    candidates: tuple | None  # (S_c, Y_c, columns) of _candidates
    gauc: tuple | None  # GAUC's per-user values and weights
    top: list | None  # the top-k table columns (return_top_k)
    n_removed: int


def _n_removed(Yb, excluded):
    """How many held-out relevant items of the block are excluded."""
    if not excluded[0].size:
        return 0
    held = np.asarray(Yb[excluded]).ravel()
    return int(np.count_nonzero(held > 0))


def _rank(plan, S, Y, names, start):
    """Per-user values and weights of the ranking metrics ``names`` for the
    users ``start..`` of ``(S, Y)`` (whole rows or candidates)."""
    n = S.shape[0]
    if plan.top_grade is not None:
        # ERR scales by the largest grade of all users: one extra row
        extra = np.zeros((1, S.shape[1]), dtype=Y.dtype)
        extra[0, 0] = plan.top_grade
        Y = np.vstack([Y, extra])
        S = np.vstack([S, np.zeros((1, S.shape[1]), dtype=S.dtype)])
    with plan.engine_threads():
        rep = _per_query_report(
            Y, S, metrics=names, query_id=None, sample_weight=None, **plan.options
        )
    # the user weights are applied here, not passed down: a 1-row 2-D block
    # would read a 1-element sample_weight differently
    values = {name: v[:n] for name, v in rep.values.items()}
    wb = None if plan.weights is None else plan.weights[start : start + n]
    weights = {name: rep.weights[name][:n] if wb is None else wb for name in rep.values}
    return values, weights


def _gauc(plan, S, Yb):
    """GAUC's per-user values and weights from whole rows of scores (in
    their own dtype: no float64 copy) and the held-out grades, with the
    counting of :func:`gauc_per_query` (the positives' places among the
    candidates, no sort)."""
    form = "sparse" if sp.issparse(Yb) else "dense"
    threshold, weighting, constant = plan.gauc
    auc, weights = gauc_per_query(
        form, Yb, S, None, S.shape[0], None, threshold, weighting, constant
    )
    return {_GAUC: auc}, {_GAUC: weights}


def _read_tile(plan, start, S, excluded):
    """What the block keeps of the tile of users ``start..`` (scores ``S``,
    excluded items at ``-inf``), or None if its candidates cannot be
    packed."""
    Yb = plan.y_true[start : start + S.shape[0]]
    candidates = None
    if plan.needs_candidates:
        candidates = _candidates(S, Yb, plan.k_max)  # (refuses NaN scores)
        if candidates is None:
            return None
    elif np.isnan(S).any():  # GAUC's counts would miss a NaN score
        raise_nan_scores()
    return _Tile(
        candidates,
        _gauc(plan, S, Yb) if plan.gauc else None,
        top_k_rows(S, plan.k_max, start) if plan.return_top_k else None,
        _n_removed(Yb, excluded),
    )


def _block_lists(plan, Y, S, columns=None):
    """The beyond-accuracy metrics' top-k lists of the users of ``S``
    (whole rows with the excluded items at ``-inf``, or candidates with
    their ``columns``), per cut-off."""
    with plan.engine_threads():
        if columns is None:
            return {kk: plan.sums.lists(Y, S, kk) for kk in plan.ks}
        n_items = plan.source.n_items
        return {
            kk: plan.sums.packed_lists(Y, S, columns, n_items, kk) for kk in plan.ks
        }


def _ordered(plan, parts):
    """The per-user values (or weights) of ``parts`` merged, in the
    report's order: metric by metric, cut-off by cut-off."""
    merged = {}
    for part in parts:
        merged.update(part)
    order = dict.fromkeys(scorer_name(m, kk) for m in plan.names for kk in plan.ks)
    return {name: merged[name] for name in order}


def _tiled_block(plan, start, tiles):
    """The block of users ``start..`` from its tiles (:class:`_Tile`)."""
    values, weights = [], []
    lists = None
    if plan.needs_candidates:
        S_c, Y_c, C_c = _stack_padded([t.candidates for t in tiles])
        if plan.top_k_names:
            part = _rank(plan, S_c, Y_c, plan.top_k_names, start)
            values.append(part[0])
            weights.append(part[1])
        if plan.beyond:
            lists = _block_lists(plan, Y_c, S_c, C_c)
    if plan.gauc:
        values.append({_GAUC: np.concatenate([t.gauc[0][_GAUC] for t in tiles])})
        weights.append({_GAUC: np.concatenate([t.gauc[1][_GAUC] for t in tiles])})
    top = None
    if plan.return_top_k:
        top = [np.concatenate(c) for c in zip(*(t.top for t in tiles), strict=True)]
    n_removed = sum(t.n_removed for t in tiles)
    return _Block(
        _ordered(plan, values), _ordered(plan, weights), n_removed, lists, top
    )


def _whole_block(plan, start, stop, scored=None):
    """The block of users ``start..stop-1`` with every metric reading whole
    rows (``scored``: its scores and excluded items, if already computed)."""
    S, excluded = plan.source.scores(start, stop) if scored is None else scored
    Yb = plan.y_true[start:stop]
    top = top_k_rows(S, plan.k_max, start) if plan.return_top_k else None
    lists = _block_lists(plan, Yb, S) if plan.beyond else None
    values, weights = {}, {}
    if plan.names:
        values, weights = _rank(plan, S, _rows(Yb, slice(None)), plan.names, start)
    return _Block(values, weights, _n_removed(Yb, excluded), lists, top)


def _score_block(plan, start, stop):
    """One block of users: tile by tile, through one buffer of scores, when
    the metrics read candidates and GAUC's counts (a callable's block is
    one tile); the whole rows otherwise, or if a tile cannot be packed."""
    if not plan.by_tile:
        return _whole_block(plan, start, stop)
    out = plan.source.buffer()
    tiles = []
    for a, b in plan.source.tiles(start, stop):
        S, excluded = plan.source.scores(a, b, out)
        tile = _read_tile(plan, a, S, excluded)
        if tile is None:  # a callable's block is not scored twice
            scored = None if plan.source.tiled else (S, excluded)
            return _whole_block(plan, start, stop, scored)
        tiles.append(tile)
    return _tiled_block(plan, start, tiles)


def _run_blocks(plan, stream=None):
    """Every block's :class:`_Block`, in user order, on ``plan.n_threads``
    threads (each multiplying with one BLAS thread); each block's
    beyond-accuracy lists go to ``stream`` as it completes, and are not
    kept."""

    def consume(blocks):
        kept = []
        for block in blocks:
            if stream is not None:
                stream.push(block.lists)
                block = block._replace(lists=None)
            kept.append(block)
        return kept

    # (threadpool_limits applies its limits when created)
    with _settings(plan.package_n_threads):
        with threadpool_limits(1, "blas") if plan.limit_blas else nullcontext():
            if plan.n_threads == 1:
                return consume(_score_block(plan, a, b) for a, b in plan.bounds)
            with ThreadPoolExecutor(plan.n_threads) as pool:
                return consume(
                    pool.map(lambda bounds: _score_block(plan, *bounds), plan.bounds)
                )


# ---------------------------------------------------------------------------
# Step 3: the report
# ---------------------------------------------------------------------------


def _per_user_report(plan, blocks):
    """The ranking metrics' per-user values of all blocks, in user order
    (None without ranking metrics)."""
    if not plan.names:
        return None
    names = blocks[0].values
    return PerQueryReport(
        np.arange(plan.n_users),
        {n: np.concatenate([b.values[n] for b in blocks]) for n in names},
        {n: np.concatenate([b.weights[n] for b in blocks]) for n in names},
    )


def _users_with_relevant(y_true):
    if sp.issparse(y_true):
        return int(np.count_nonzero(np.diff((y_true > 0).tocsr().indptr)))
    return int(np.count_nonzero((y_true > 0).any(axis=1)))


def _top_k_table(blocks):
    """The returned lists: the blocks' top-k table columns, in user order."""
    labels = ("user_id", "item_id", "rank", "score")
    columns = zip(*(b.top for b in blocks), strict=True)
    table = {n: np.concatenate(c) for n, c in zip(labels, columns, strict=True)}
    return table_output(table, False)


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
        warning giving the count: the rule of
        :func:`recommendation_table_report`'s ``exclude=`` too.
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
    do not depend on the other users of the block).  When every metric is
    read from the top :math:`k` (precision, recall, F, hit rate, MRR, MAP,
    DCG, NDCG, ERR, RBP, success, the beyond-accuracy metrics) or from the
    pairs of items (GAUC), only a user's candidates are ranked: its items
    scoring at least :math:`b_u`, a lower bound of its :math:`c`-th best
    score (:math:`c = 2k + 17`, one more than the ranking engine keeps), and
    its relevant items.  :math:`b_u` is the :math:`c`-th largest of the
    maxima of :math:`g` groups of columns, since :math:`c` groups hold a
    score at least :math:`b_u`.  The items left out score below every item
    of the top :math:`k` and of the tie group it cuts, and are not relevant,
    so the values are unchanged, and the memory is one tile of scores per
    thread.

    The beyond-accuracy metrics select every user's list from the same
    candidates, with their item numbers: each block's top-:math:`k` entries
    (the items of each list, with their inclusion probabilities under ties)
    are kept, about :math:`k` per user, and concatenated in user order
    before the per-item products and counts and the per-user sums: the
    values are the same bits as from the whole score matrix, for little
    more than the top-:math:`k` metrics cost.  GAUC reads each tile's whole
    rows before their candidates are packed: a positive scored :math:`x`
    counts the candidate negatives scored below :math:`x` and half of those
    scored :math:`x`, two passes over the row per positive instead of a sort
    of the row (the rows of users with more positives than twice the bits
    of the number of items are sorted).  scikit-learn is not imported (its
    ``working_memory`` setting is read if it is loaded), except by
    ``intra_list_diversity``'s distances and by a warning.

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
    plan = _make_plan(
        y_true,
        user_factors,
        item_factors,
        exclude=exclude,
        k=k,
        metrics=metrics,
        sample_weight=sample_weight,
        per_query=per_query,
        named=dict(  # the ranking options this function names
            relevance_threshold=relevance_threshold,
            gain=gain,
            ignore_ties=ignore_ties,
            no_relevant=no_relevant,
            beta=beta,
            log_base=log_base,
            ap_denominator=ap_denominator,
        ),
        beyond_named=dict(
            item_popularity=item_popularity,
            item_features=item_features,
            metric=metric,
            normalization=normalization,
            share=share,
        ),
        working_memory=working_memory,
        n_threads=n_threads,
        convention=convention,
        return_top_k=return_top_k,
        options=options,
    )
    stream = ListStream(plan.sums) if plan.beyond else None
    blocks = _run_blocks(plan, stream)
    n_removed = sum(b.n_removed for b in blocks)
    if n_removed:
        warn_excluded_relevant(n_removed)
    beyond_means = {}
    if plan.beyond:
        beyond_means = _beyond_values(stream)
    report = _per_user_report(plan, blocks)
    if report is None:  # only beyond-accuracy metrics
        result = beyond_means
        if not output_dict:
            n_rel = _users_with_relevant(plan.y_true)
            result = _format(
                beyond_means, plan.beyond, plan.ks, digits, plan.n_users, n_rel
            )
    elif per_query:
        result = _as_table(report, output_dict)
    else:
        result = _means(report)
        result.update(beyond_means)
        if not output_dict:
            shown = list(dict.fromkeys(n.partition("@")[0] for n in report.values))
            first = next(iter(report.values.values()))
            n_scored = int(np.count_nonzero(~np.isnan(first)))
            result = _format(
                result, shown + plan.beyond, plan.ks, digits, plan.n_users, n_scored
            )
    if plan.return_top_k:
        return result, _top_k_table(blocks)
    return result
