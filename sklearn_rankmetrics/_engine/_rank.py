"""Tie groups and the per-rank description every metric reads:
:class:`Ranking`, built by :func:`rank` (or, for a large long form, by
:func:`rank_parts` in parts of its queries)."""

from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from .._utils._validation import check_inputs, check_k
from ._select import (
    _gain,
    _group_order,
    _relevant,
    _select_dense,
    _select_long,
    _select_sparse,
    exact_threshold,
)

__all__ = []  # private module


# ---------------------------------------------------------------------------
# Sums over ranks that do not depend on the padded width
# ---------------------------------------------------------------------------
# numpy sums a float64 row pairwise: up to 128 items with 8 interleaved
# partial sums (item j into sum j % 8) combined by a fixed tree, longer rows
# split in two halves at a multiple of 8 near the middle.  So a row's sum
# depends on its width: the same values followed by zeros can differ in the
# last bit.  row_sum keeps numpy's sums of 128-item blocks (and of rows of
# at most 128 items padded to a multiple of 8), whose 8 partial sums zeros
# do not change, then sums the block sums the same way.
_SUM_BLOCK = 128


def _pad8(x):
    """``x`` (2-D) with zero columns up to a multiple of 8, at least 8."""
    n, w = x.shape
    w8 = max(8, -(-w // 8) * 8)
    if w8 == w:
        return x
    out = np.zeros((n, w8))
    out[:, :w] = x
    return out


def row_sum(x):
    """Sums of the rows of the 2-D float64 array ``x``, the same bit for
    bit whatever zero columns follow (see ``_SUM_BLOCK``).

    As accurate as numpy's pairwise sum, at a small cost over
    ``x.sum(axis=1)`` (benchmarks/README.md, E11); a width of at most 128
    that is not a multiple of 8 costs a padded copy.
    """
    x = np.ascontiguousarray(x, dtype=np.float64)
    n, w = x.shape
    if w <= _SUM_BLOCK:
        return _pad8(x).sum(axis=1)
    full = w // _SUM_BLOCK * _SUM_BLOCK
    blocks = x[:, :full].reshape(n, full // _SUM_BLOCK, _SUM_BLOCK).sum(axis=2)
    if full < w:  # the last block: its values then zeros, as numpy sums it
        last = _pad8(x[:, full:]).sum(axis=1)
        blocks = np.concatenate([blocks, last[:, None]], axis=1)
    return row_sum(blocks)


# ---------------------------------------------------------------------------
# Tie groups and the per-rank description every metric reads
# ---------------------------------------------------------------------------
class TieGroups:
    """The tie-group fields of a ranking's ranks, each built when first read.

    ``make`` maps the name of every tie-group field of :class:`Ranking`
    (``group_start`` ... ``mean_gain``) to a function returning that
    field's (n_queries, K) array.  A metric reads two or three of the
    six fields (NDCG only ``mean_gain``), and the others are never built:
    that spares the running count of relevant items before each rank with
    continuous scores, and four of the six full-size gathers with ties
    (benchmarks/README.md, E12).

    ``head(K)`` reads the first ``K`` ranks and shares the built arrays;
    ``replaced(...)`` substitutes some fields.
    """

    __slots__ = ("_make", "_built", "_width", "_given")

    def __init__(self, make, *, built=None, width=None, given=None):
        self._make = make
        self._built = {} if built is None else built
        self._width = width
        self._given = {} if given is None else given

    def __getitem__(self, name):
        if name in self._given:
            return self._given[name]
        if name not in self._built:
            self._built[name] = self._make[name]()
        array = self._built[name]
        return array if self._width is None else array[:, : self._width]

    def head(self, width):
        """These fields at the first ``width`` ranks."""
        if self._width is not None:
            width = min(width, self._width)
        given = {name: a[:, :width] for name, a in self._given.items()}
        return TieGroups(self._make, built=self._built, width=width, given=given)

    def replaced(self, **arrays):
        """These fields with ``arrays`` (of this view's shape) for some."""
        given = {**self._given, **arrays}
        return TieGroups(self._make, built=self._built, width=self._width, given=given)

    def runs(self):
        """The :class:`Runs` these fields repeat over their ranks, when they
        describe whole rows unchanged (not a :meth:`head` or
        :meth:`replaced` view) of a ranking with ties; else None."""
        if self._width is not None or self._given or "runs" not in self._make:
            return None
        if "runs" not in self._built:
            self._built["runs"] = self._make["runs"]()
        return self._built["runs"]


class Runs(NamedTuple):
    """The runs of equal scores of a ranking of width ``K`` (see
    :func:`_tie_groups`): one entry per run, in the order of the flattened
    (n_queries, K) ranks.  A kernel whose terms vanish at the ranks of
    runs without a relevant item reads the others' ranks only."""

    K: int
    start: np.ndarray  # flat position of the run's first rank
    length: np.ndarray  # its ranks in the top K
    size: np.ndarray  # g, its items (float64)
    relevant: np.ndarray  # r, its relevant items (float64)
    before: object  # () -> h, relevant items in the query's earlier runs
    retrieved: np.ndarray  # bool: its scores are finite


def _once(func):
    """``func()``, computed on the first call only."""
    value = []

    def get():
        if not value:
            value.append(func())
        return value[0]

    return get


@dataclass(frozen=True)
class Ranking:
    """Every query's top-k, described rank by rank for the metrics.

    Built by :func:`rank`.  The per-rank arrays have shape
    ``(n_queries, K)``, column ``j`` being rank ``i = j + 1``; entries past
    a query's retrieved items are 0 (``retrieved`` is False there).  In the
    SPEC appendix's symbols a rank's tie group starts at rank
    ``a = group_start``, has ``g = group_size`` items of which
    ``r = group_relevant`` are relevant, and ``h = relevant_before``
    relevant items rank in earlier groups.

    Attributes
    ----------
    k : int or None
        The cut-off (None: the whole retrieved list).
    gain : {"linear", "exponential"}
        How grades became the gains below.
    weights : ndarray of shape (n_queries,) or None
        Query weights.
    n_rel, n_pos, n_retrieved : ndarray of shape (n_queries,)
        Relevant items (R, retrieved or not), items with a grade > 0, and
        retrieved items (finite score) of each query.
    ideal_gain : ndarray of shape (n_queries, K) or None
        Gains of each query's best grades, descending (the IDCG ranking);
        None unless asked for.
    retrieved : ndarray of bool
        Whether a retrieved item holds the rank.
    groups : TieGroups
        The fields below, built when first read.
    group_start, group_size, group_relevant, relevant_before : ndarray
        The tie group of the rank: first rank, items, relevant items, and
        relevant items in the query's earlier groups (float64).
    p_relevant : ndarray
        Probability that the item at the rank is relevant,
        ``group_relevant / group_size``.
    mean_gain : ndarray
        Expected gain at the rank, the group's mean gain.
    queries : ndarray of shape (n_queries,) or None
        The positions of this ranking's queries among the input's (a part
        of the long form ranked by :func:`rank_parts`); None: all of them,
        in order.
    max_gain : float or None
        The largest ideal gain of *every* query of the input, when this
        ranking holds only some of them (ERR's scale); None: read
        :attr:`ideal_gain`.
    """

    k: int | None
    gain: str
    weights: np.ndarray | None
    n_rel: np.ndarray
    n_pos: np.ndarray
    n_retrieved: np.ndarray
    ideal_gain: np.ndarray | None
    retrieved: np.ndarray
    groups: TieGroups
    queries: np.ndarray | None = None
    max_gain: float | None = None

    group_start = property(lambda self: self.groups["group_start"])
    group_size = property(lambda self: self.groups["group_size"])
    group_relevant = property(lambda self: self.groups["group_relevant"])
    relevant_before = property(lambda self: self.groups["relevant_before"])
    p_relevant = property(lambda self: self.groups["p_relevant"])
    mean_gain = property(lambda self: self.groups["mean_gain"])

    @property
    def n_queries(self):
        return self.retrieved.shape[0]

    def sum_ranks(self, x):
        """Each query's sum over the ranks of ``x``, of shape (n_queries, K).

        With ``k=None`` the width ``K`` depends on the input form (2-D: the
        row length; long form: the part's largest query), so the sum is
        :func:`row_sum`, which trailing zero ranks do not change: the
        forms agree bit for bit.  With ``k``, ``K = min(k, ...)`` is the
        same for every form and numpy's own sum is faster.
        """
        if self.k is None:
            return row_sum(x)
        return x.sum(axis=1)

    def of_queries(self, values):
        """``values``, one per query of the input (or one number), for
        this ranking's queries (see :attr:`queries`)."""
        if self.queries is None or np.ndim(values) == 0:
            return values
        return np.asarray(values)[self.queries]

    @property
    def rank(self):
        """The ranks ``1..K`` as float64."""
        return np.arange(1, self.retrieved.shape[1] + 1, dtype=np.float64)

    @property
    def hits(self):
        """Expected number of relevant items in the top k."""
        return self.sum_ranks(self.p_relevant)

    @property
    def cutoff(self):
        """The precision denominator: k, or the retrieved count if k is None."""
        if self.k is None:
            return self.n_retrieved
        return np.full(self.n_queries, float(self.k))

    def no_hit_factors(self):
        """Per rank, P(rank i is not relevant | no relevant item before it
        in its tie group); 1 past the retrieved items."""
        # in place on two full-size arrays; the counts are small integers,
        # exact in float64, so (g - j) - r is g - r - j bit for bit
        left = self.rank - self.group_start  # j: ranks of the group before
        np.subtract(self.group_size, left, out=left)  # g - j
        q = left - self.group_relevant  # misses left: g - r - j
        np.maximum(left, 1.0, out=left)
        np.divide(q, left, out=q)
        retrieved = self.retrieved
        every = retrieved.size == 0 or (  # _tie_groups' broadcast True
            retrieved.strides == (0,) * retrieved.ndim and retrieved.flat[0]
        )
        if not every:
            np.copyto(q, 1.0, where=~retrieved)
        return np.clip(q, 0.0, 1.0, out=q)

    def at(self, k):
        """This ranking read at the cut-off ``k`` (an int no larger than
        :attr:`k`): the first ``min(k, K)`` ranks.

        The statistics of a rank do not depend on the cut-off (the group
        cut by ``K`` is counted over all its items), so a ranking built once
        for the largest cut-off serves every smaller one.
        """
        if self.k is not None and k > self.k:
            raise ValueError(f"cannot read a ranking built for k={self.k} at k={k}")
        K = min(k, self.retrieved.shape[1])
        return replace(
            self,
            k=k,
            retrieved=self.retrieved[:, :K],
            ideal_gain=None if self.ideal_gain is None else self.ideal_gain[:, :K],
            groups=self.groups.head(K),
        )


def _no_ties(top, cut):
    """Whether no two retrieved items of a query's top share a score and
    no tie group is cut by rank K."""
    if cut.rows.size:
        return False
    tie = top[:, 1:] == top[:, :-1]
    tie &= top[:, 1:] > -np.inf
    return not tie.any()


def _tie_groups(sel, threshold, gain, ignore_ties):
    """``retrieved`` and the :class:`TieGroups` of a selection: every item
    its own group when no two of its scores can tie
    (:func:`_untied_groups`), else the runs of equal scores
    (:func:`_run_groups`)."""
    top = sel.top_score
    retrieved, relevant, gains = _retrieved_values(top, sel.top_rel, threshold, gain)
    if ignore_ties or sel.maybe_ties is False or _no_ties(top, sel.cut):
        return retrieved, _untied_groups(top.shape, relevant, gains)
    return retrieved, _run_groups(sel, threshold, gain, relevant, gains)


def _retrieved_values(top, rel, threshold, gain):
    """``(retrieved, relevant, gains)`` of the ranks of a selection: which
    ranks hold an item (its score above ``-inf``), and, computed when first
    read, the relevance (0/1) and the gain of the item at each rank, 0 at a
    rank without one."""
    n, K = top.shape
    # top is sorted decreasingly, -inf last: its last column tells
    if K == 0 or (top[:, -1] > -np.inf).all():
        # Every rank holds an item (k=None without -inf scores, or k at
        # most every query's size): no masking, and ``retrieved`` is a
        # view: one full-size array less (benchmarks/README.md, E13).
        retrieved = np.broadcast_to(True, (n, K))
        relevant = _once(lambda: _relevant(rel, threshold).astype(np.float64))
        gains = _once(lambda: _gain(rel, gain))
    else:
        retrieved = top > -np.inf
        relevant = _once(
            lambda: (_relevant(rel, threshold) & retrieved).astype(np.float64)
        )
        gains = _once(lambda: np.where(retrieved, _gain(rel, gain), 0.0))
    return retrieved, relevant, gains


def _untied_groups(shape, relevant, gains):
    """The :class:`TieGroups` of ranks of ``shape`` where every item is its
    own group.  Without ties (continuous scores) this is also exact, and
    the group counts become broadcast views: 3 arrays of the size of
    y_score less than the run numbering of :func:`_run_groups`."""
    n, K = shape

    def before():
        out = np.cumsum(relevant(), axis=1)
        out -= relevant()  # in place: one full-size array less
        return out

    return TieGroups(
        dict(
            group_start=lambda: np.broadcast_to(np.arange(1.0, K + 1), (n, K)),
            group_size=lambda: np.broadcast_to(1.0, (n, K)),
            group_relevant=relevant,
            relevant_before=before,
            p_relevant=relevant,
            mean_gain=gains,
        )
    )


def _run_groups(sel, threshold, gain, relevant, gains):
    """The :class:`TieGroups` of a selection whose scores may tie: its runs
    of equal scores, the groups cut by k counted in full (``sel.cut``).

    The runs are contiguous in the flattened (n, K) array (a new query
    always starts a new run): their sums are segment sums and their
    per-rank values repetitions, no run number per rank, bincounts or
    gathers (benchmarks/README.md, E13)."""
    top = sel.top_score
    n, K = top.shape
    start, length = _runs(top)
    cut = sel.cut
    # the groups cut by k: use their full counts
    last = np.searchsorted(start, cut.rows * K + (K - 1), side="right") - 1

    def with_cut(per_run, full):
        per_run[last] = full
        return per_run

    size = _once(lambda: with_cut(length.astype(np.float64), cut.size))
    run_relevant, run_gain = _run_sums(sel, start, relevant, gains, threshold, gain)
    n_relevant = _once(lambda: with_cut(run_relevant(), cut.relevant))
    gain_sum = _once(lambda: with_cut(run_gain(), cut.gain))
    # a run is retrieved or not as a whole
    run_retrieved = top.ravel()[start] > -np.inf

    # A field is its runs' values repeated over their ranks.  The first
    # field read is one np.repeat; from the second on, a gather at each
    # rank's run number (built once) is 3x faster than np.repeat over
    # many short runs (MAP reads five fields, NDCG one).
    repeated = []
    run_index = _once(lambda: np.repeat(np.arange(start.size), length))

    def per_rank(values):
        if not repeated:
            repeated.append(True)
            return np.repeat(values, length).reshape(n, K)
        return values.take(run_index()).reshape(n, K)

    @_once
    def run_before():  # relevant items in earlier groups of the same query
        out = np.cumsum(n_relevant()) - n_relevant()
        query_first = np.flatnonzero(start % K == 0)  # the run at each rank 1
        out -= out[query_first][start // K]
        return out

    def before():
        return per_rank(run_before())

    return TieGroups(
        dict(
            group_start=lambda: per_rank((start % K + 1).astype(np.float64)),
            group_size=lambda: per_rank(size()),
            group_relevant=lambda: per_rank(n_relevant()),
            relevant_before=before,
            p_relevant=lambda: per_rank(
                np.where(run_retrieved, n_relevant() / size(), 0.0)
            ),
            mean_gain=lambda: per_rank(
                np.where(run_retrieved, gain_sum() / size(), 0.0)
            ),
            runs=lambda: Runs(
                K, start, length, size(), n_relevant(), run_before, run_retrieved
            ),
        )
    )


def _runs(top):
    """``(start, length)`` of the runs of equal scores of the sorted top
    scores ``top`` (n, K), as positions in the flattened array: a new
    query always starts a new run."""
    n, K = top.shape
    new = np.empty((n, K), dtype=bool)
    new[:, 0] = True
    np.not_equal(top[:, 1:], top[:, :-1], out=new[:, 1:])
    start = np.flatnonzero(new.ravel())
    length = np.empty_like(start)  # ranks of each run in the top K
    np.subtract(start[1:], start[:-1], out=length[:-1])
    length[-1:] = n * K - start[-1:]
    return start, length


def _run_sums(sel, start, relevant, gains, threshold, gain):
    """The relevant items and the gains of each run (``start``) within the
    top K, each computed when first read: segment sums of the ranks'
    values, or, when the selection keeps its graded items apart
    (``sel.graded``: every other rank holds a grade 0), sums over those
    items only, exact in any order (placed ties: ``_sums_exact``)."""
    if sel.graded is None:
        n_relevant = _once(lambda: np.add.reduceat(relevant().ravel(), start))
        gain_sum = _once(lambda: np.add.reduceat(gains().ravel(), start))
        return n_relevant, gain_sum
    at, grade = sel.graded
    run_of = _once(lambda: np.searchsorted(start, at, side="right") - 1)
    kept = _once(lambda: np.take(sel.top_score.reshape(-1), at) > -np.inf)

    def graded_sum(values):
        values = np.where(kept(), values, 0.0)
        return np.bincount(run_of(), weights=values, minlength=start.size)

    n_relevant = _once(lambda: graded_sum(_relevant(grade, threshold)))
    gain_sum = _once(lambda: graded_sum(_gain(grade, gain)))
    return n_relevant, gain_sum


def rank(
    y_true,
    y_score,
    *,
    k,
    query_id,
    sample_weight,
    threshold=None,
    gain="linear",
    ignore_ties=False,
    need_ideal=False,
):
    """Validate the inputs of any form and return their :class:`Ranking`
    (with the ideal gains if ``need_ideal``).

    A long form with ``k=None`` is one ranking padded to its largest query
    here; :func:`rank_parts` ranks it in parts instead.
    """
    k = check_k(k)
    form, Y, S, codes, ids, w = check_inputs(
        y_true, y_score, query_id, sample_weight, defer=True
    )
    threshold = exact_threshold(threshold, Y.dtype)
    if form == "long":
        sel = _select_long(
            Y, S, codes, ids.shape[0], k, threshold, gain, ignore_ties, need_ideal
        )
    else:
        K = S.shape[1] if k is None else min(k, S.shape[1])
        build = _select_dense if form == "dense" else _select_sparse
        sel = build(Y, S, K, threshold, gain, ignore_ties, need_ideal)
    return _ranking(sel, k, gain, w, threshold, ignore_ties)


def _ranking(sel, k, gain, weights, threshold, ignore_ties, queries=None):
    retrieved, groups = _tie_groups(sel, threshold, gain, ignore_ties)
    return Ranking(
        k=k,
        gain=gain,
        weights=weights,
        n_rel=sel.n_rel.astype(np.float64),
        n_pos=sel.n_pos,
        n_retrieved=sel.n_retrieved.astype(np.float64),
        ideal_gain=sel.ideal,
        queries=queries,
        retrieved=retrieved,
        groups=groups,
    )


# A long form larger than _PART_CELLS is ranked in parts of its queries
# (rank_parts), each part sorted and scored alone:
# - k=None ranks every query's whole list.  One ranking pads every query
#   to the largest (n_queries x largest cells: a log with one
#   1,000,000-row query among 100,000 small ones would need 1e11), so the
#   queries are grouped by size class (at most 1, 2, 4, 8, ... rows), each
#   part padded to its own largest query (less than twice any of its
#   queries) and holding at most _PART_CELLS cells or one query.
# - With k, parts of consecutive queries of about _PART_CELLS rows, all at
#   the same width min(k, largest query): each part's sort and gathers stay
#   in cache, so the cost per row and the peak memory stay flat as the
#   rows grow (benchmarks/README.md, E14); a small input takes one part.
# The per-query values do not depend on the parts (Ranking.sum_ranks; the
# same width with k).  group_auc_score runs the same way
# (query_run_orders).
_PART_CELLS = 1 << 18


def query_runs(sizes):
    """Ends of runs of consecutive queries of about ``_PART_CELLS`` rows
    (``sizes`` rows per query), or None if all fit in one."""
    n_rows = int(sizes.sum())
    if n_rows <= _PART_CELLS:
        return None
    # a run ends after the query whose rows reach j x _PART_CELLS
    marks = np.arange(_PART_CELLS, n_rows, _PART_CELLS)
    last = np.searchsorted(np.cumsum(sizes), marks)
    return np.unique(np.append(last + 1, sizes.shape[0]))


def sorted_by_query(codes, n_q, key):
    """The rows in (query, ascending ``key``) order, ``codes`` numbering
    each row's query: one sort of ``key`` and a radix grouping by query,
    on runs of queries of about ``_PART_CELLS`` rows (see there) when the
    rows are more."""
    runs = list(query_run_orders(codes, n_q, key))
    if len(runs) == 1:
        return runs[0][2]
    return np.concatenate([order for _, _, order in runs])


def query_run_orders(codes, n_q, key):
    """Yield ``(first_query, end_query, rows)`` for runs of consecutive
    queries of about ``_PART_CELLS`` rows (one run if the rows are fewer):
    ``rows`` are the run's rows in (query, ascending ``key``) order, each
    run sorted alone, so a caller can score it while it is in cache and
    hold no full-length sorted copy of the inputs."""
    sizes = np.bincount(codes, minlength=n_q)
    ends = query_runs(sizes)
    if ends is None:
        yield 0, n_q, _group_order(codes, n_q, np.argsort(key))
        return
    run_of = np.repeat(np.arange(ends.size), np.diff(ends, prepend=0))
    by_run = _group_order(run_of[codes], ends.size)  # runs in query order
    del run_of
    row_ends = np.cumsum(sizes)[ends - 1]
    start = 0
    for first_q, end_q, end in zip([0, *ends[:-1]], ends, row_ends, strict=True):
        rows = by_run[start:end]
        local = _group_order(
            codes[rows] - first_q, end_q - first_q, np.argsort(key[rows])
        )
        yield int(first_q), int(end_q), rows[local]
        start = end


def _long_parts(sizes, k):
    """The queries (ascending positions) of each part of a long form with
    ``sizes`` rows per query, ranked at ``k``; None for a single part."""
    n_q = sizes.shape[0]
    if k is not None:
        ends = query_runs(sizes)
        if ends is None:
            return None
        return [np.arange(a, b) for a, b in zip([0, *ends[:-1]], ends, strict=True)]
    if n_q * int(sizes.max(initial=0)) <= _PART_CELLS:
        return None
    size_class = np.frexp(sizes - 1.0)[1]  # ceil(log2(size)), exact
    by_class = np.argsort(size_class, kind="stable")
    starts = np.flatnonzero(np.diff(size_class[by_class])) + 1
    parts = []
    for group in np.split(by_class, starts):
        step = max(1, _PART_CELLS >> int(size_class[group[0]]))
        parts.extend(group[i : i + step] for i in range(0, group.size, step))
    return parts


def rank_parts(
    y_true,
    y_score,
    *,
    k,
    query_id,
    sample_weight,
    threshold=None,
    gain="linear",
    ignore_ties=False,
    need_ideal=False,
):
    """The ranking of a long form at ``k``, in parts (see ``_PART_CELLS``).

    Validates the inputs and returns ``(n_queries, weights, parts)``:
    ``parts`` yields, one at a time, a :class:`Ranking` of some of the
    queries, which :attr:`Ranking.queries` names (None: all of them).
    """
    k = check_k(k)
    form, Y, S, codes, ids, w = check_inputs(
        y_true, y_score, query_id, sample_weight, defer=True
    )
    threshold = exact_threshold(threshold, Y.dtype)
    n_q = ids.shape[0]
    options = (threshold, gain, ignore_ties, need_ideal)
    sizes = np.bincount(codes, minlength=n_q)
    parts = _long_parts(sizes, k)
    # with k, every part at the width of one ranking of all the queries
    K = None if k is None else min(k, int(sizes.max()))

    def generate():
        if parts is None:
            sel = _select_long(Y, S, codes, n_q, k, *options)
            yield _ranking(sel, k, gain, w, threshold, ignore_ties)
            return
        part_of = np.empty(n_q, dtype=np.intp)
        local = np.empty(n_q, dtype=np.intp)  # a query's position in its part
        for i, queries in enumerate(parts):
            part_of[queries] = i
            local[queries] = np.arange(queries.size)
        row_part = part_of[codes]
        # rows grouped by part, each part's rows in input order (the order
        # ignore_ties reads)
        order = _group_order(row_part, len(parts))
        ends = np.cumsum(np.bincount(row_part, minlength=len(parts)))
        del row_part
        start = 0
        for queries, end in zip(parts, ends, strict=True):
            rows = order[start:end]
            start = end
            sel = _select_long(
                Y[rows], S[rows], local[codes[rows]], queries.size, k, *options, K=K
            )
            weights = None if w is None else w[queries]
            yield _ranking(sel, k, gain, weights, threshold, ignore_ties, queries)

    return n_q, w, generate()
