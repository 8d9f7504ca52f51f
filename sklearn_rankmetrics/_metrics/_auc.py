"""Group AUC (GAUC): ROC AUC within each query, averaged over queries."""

import numbers

import numpy as np

from .._engine._rank import query_run_orders
from .._engine._select import (
    _group_order,
    _relevant,
    _row_counts,
    exact_threshold,
    sort_order,
)
from .._utils._averaging import average_queries
from .._utils._validation import (
    _check_propensity,
    bytes_to_hash,
    check_average,
    check_inputs,
    check_option,
    check_query_id,
    check_real,
    distinct_ints_order,
    fixed_width_order,
    object_keys,
    packed_ids,
    pandas_factorize,
    row_hashes,
    rows_match,
    str_objects_order,
)
from ._base import with_convention
from ._ips import PARTS, _check_self_normalized, check_ips_average, ips_average

# private module: the package exports its metrics from the registry
__all__ = []


def _sorted_form(Y, S, form, threshold):
    """Every query's items sorted by score, 2-D forms: (query, score,
    is_relevant) in (query, ascending score) order.  The dense form sorts
    each row (one ``argsort`` along the items); the sparse form finds the
    relevant entries' places in the sorted rows.  The long form goes run
    by run of queries (:func:`_gauc_long`).
    """
    n, m = S.shape
    q = np.repeat(np.arange(n, dtype=np.intp), m)
    if form == "sparse":
        s, pos = _sparse_sorted(Y, S, threshold)
        return q, s, pos
    order = np.argsort(S, axis=1)
    s = np.take_along_axis(S, order, axis=1).ravel()
    pos = np.take_along_axis(_relevant(Y, threshold), order, axis=1)
    return q, s, pos.ravel()


def _sparse_sorted(Y, S, threshold):
    """Sorted rows of ``S`` and the relevance flags in that sorted layout.

    The stored relevant entries of the CSR ``Y`` find their place in their
    sorted row by binary search (no argsort, no dense copy of ``Y``).
    Relevant items with equal scores take consecutive slots of their tie
    run, which is all the AUC kernel reads.
    """
    n, m = S.shape
    s = np.sort(S, axis=1)
    keep = _relevant(Y.data, threshold)
    r = np.repeat(np.arange(n, dtype=np.intp), np.diff(Y.indptr))[keep]
    v = S[r, Y.indices[keep]]
    first = _row_searchsorted(s, r, v)
    order = np.lexsort((v, r))  # the relevant entries only
    rs, vs = r[order], v[order]
    new = np.ones(rs.shape[0], dtype=bool)
    new[1:] = (rs[1:] != rs[:-1]) | (vs[1:] != vs[:-1])
    idx = np.arange(rs.shape[0])
    within = np.empty_like(order)
    within[order] = idx - np.maximum.accumulate(np.where(new, idx, 0))
    pos = np.zeros(n * m, dtype=bool)
    pos[r * m + first + within] = True
    return s.ravel(), pos


def _row_searchsorted(A, rows, values):
    """For each pair, how many entries of the sorted row ``A[rows[i]]`` are
    smaller than ``values[i]``: a binary search run on all pairs at once,
    ``log2(n_columns)`` vectorised steps."""
    m = A.shape[1]
    flat, base = A.ravel(), rows * m
    lo = np.zeros(values.shape[0], dtype=np.intp)
    hi = np.full(values.shape[0], m, dtype=np.intp)
    for _ in range(m.bit_length()):
        active = lo < hi
        mid = (lo + hi) // 2
        below = flat[base + np.minimum(mid, m - 1)] < values
        lo = np.where(active & below, mid + 1, lo)
        hi = np.where(active & ~below, mid, hi)
    return lo


def _auc_per_query(q, s, pos, w, n_q, carry=None):
    """Weighted Mann-Whitney AUC of each query; ties count one half.

    ``q`` and ``s`` are sorted by (query, score).  Returns the AUC (nan for
    a query without a positive or without a candidate negative) and the
    per-query positive and candidate negative weights (their sum is the
    query's rows read by the AUC, :func:`_candidate_negatives`).  With
    ``carry`` (a one-item list, weighted rows only) the
    running sum of the negative weights starts at ``carry[0]`` and leaves
    its last value there: run after run of queries, the sums are those of
    one pass over all the rows, bit for bit (``np.cumsum`` adds in order).

    Each relevant row counts the negative weight below its run of equal
    scores within its query, plus half of the run's own: differences of
    one running sum of the negative weights, read at the relevant rows
    only.  On bench_forms.py (a tenth of the rows relevant, distinct
    scores) this takes half the memory of per-run sums.
    """
    n = s.shape[0]
    new_query = np.empty(n, dtype=bool)
    new_query[0] = True
    np.not_equal(q[1:], q[:-1], out=new_query[1:])
    new_run = np.empty(n, dtype=bool)
    new_run[0] = True
    np.not_equal(s[1:], s[:-1], out=new_run[1:])
    new_run |= new_query
    # The candidate rule (_candidate_negatives): a negative scored -inf is
    # left out of the pairs; a positive scored -inf stays, below every
    # candidate.  Each query's rows are sorted by score, so a -inf is the
    # first score of its query: n_q reads tell whether there is any.
    neg = ~pos
    dropped = n > 0 and s[new_query].min() == -np.inf
    if dropped:
        neg &= s != -np.inf
    if w is not None:
        neg = np.where(neg, w, 0.0)
    # negative weight before row i: neg_cum[i] - neg[i]
    if w is None or carry is None:
        neg_cum = np.cumsum(neg, dtype=np.intp if w is None else np.float64)
    else:
        neg_cum = np.empty(n + 1)
        neg_cum[0] = carry[0]
        neg_cum[1:] = neg
        np.cumsum(neg_cum, out=neg_cum)
        carry[0] = neg_cum[-1]
        neg_cum = neg_cum[1:]
    rows = np.flatnonzero(pos)
    run_starts = np.flatnonzero(new_run)
    del new_run
    run = np.searchsorted(run_starts, rows, side="right") - 1
    run_start = run_starts[run]
    run_end = np.append(run_starts[1:], n)[run] - 1  # the run's last row
    del run_starts
    query_starts = np.flatnonzero(new_query)
    query_start = query_starts[np.searchsorted(query_starts, rows, side="right") - 1]
    before_run = neg_cum[run_start] - neg[run_start]
    below = before_run - (neg_cum[query_start] - neg[query_start])
    tied = neg_cum[run_end] - before_run
    q_pos = q[rows]
    w_pos = None if w is None else w[rows]
    contribution = below + 0.5 * tied
    if w_pos is not None:
        contribution *= w_pos
    numerator = np.bincount(q_pos, weights=contribution, minlength=n_q)
    total_pos = np.bincount(q_pos, weights=w_pos, minlength=n_q)
    if w is None and not dropped:  # every other row is a negative
        total_neg = np.bincount(q, minlength=n_q) - total_pos
    else:
        total_neg = np.bincount(q, weights=neg, minlength=n_q)
    denominator = total_pos * total_neg
    auc = np.full(n_q, np.nan)
    np.divide(numerator, denominator, out=auc, where=denominator > 0)
    return auc, total_pos, total_neg


def _candidate_negatives(pos, s):
    """The rows that are negatives of the AUC pairs: not positive, and
    candidates (a score above ``-inf``).

    The candidate rule of every AUC in the package: an item scored ``-inf``
    is not a candidate (padding, an excluded item, an item the ranker never
    returned).  A non-candidate negative is left out of the pairs, so it
    changes neither the query's AUC nor its weight; a non-candidate positive
    stays a positive, ranked below every candidate (every candidate
    negative beats it).  So padding with grade 0 / score ``-inf`` changes
    nothing, and a query with no candidate negative has no AUC.
    """
    neg = ~pos
    if s.shape[0] and s.min() == -np.inf:
        neg &= s != -np.inf
    return neg


def _constant_scores(q, s, n_q, pos):
    """Per query, whether all its rows read by the AUC (positives and
    candidate negatives) have one score; ``q`` and ``s`` sorted by
    (query, score)."""
    kept = pos | _candidate_negatives(pos, s)
    if not kept.all():
        q, s = q[kept], s[kept]
    if s.shape[0] == 0:  # no row read: no AUC to skip
        return np.zeros(n_q, dtype=bool)
    new_run = np.empty(s.shape[0], dtype=bool)
    new_run[0] = True
    new_run[1:] = (s[1:] != s[:-1]) | (q[1:] != q[:-1])
    return np.bincount(q[new_run], minlength=n_q) == 1


def gauc_per_query(
    form, Y, S, codes, n_q, w, threshold, query_weighting, constant_scores="keep"
):
    """Per-query AUC (nan where undefined or skipped) and query weights of
    :func:`group_auc_score`, from validated inputs (:func:`check_inputs`
    with ``row_weights=True``): one sort, or in the 2-D forms, for the rows
    with few positives, counts of the candidates below each positive
    (:func:`_auc_2d`).

    Shared by :func:`group_auc_score` and the report, so the two agree
    exactly.
    """
    if form == "long":
        if w is None:  # the codes as ids: one path for every unweighted long form
            return _gauc_hashed(
                Y, S, codes, threshold, query_weighting, constant_scores, n_q
            )[:2]
        return _gauc_long(
            Y, S, codes, n_q, w, threshold, query_weighting, constant_scores
        )
    auc, total_pos, total_neg, constant = _auc_2d(
        Y, S, form, threshold, constant_scores == "skip"
    )
    if query_weighting == "impressions":  # the rows the AUC reads
        query_w = np.asarray(total_pos + total_neg, dtype=np.float64)
    elif query_weighting == "clicks":
        query_w = np.asarray(total_pos, dtype=np.float64)
    else:
        query_w = np.ones(n_q)
    if w is not None:
        query_w = query_w * w
    if constant_scores == "skip":
        auc = np.where(constant, np.nan, auc)
    return auc, query_w


def _sorted_rows(Y, S, form, threshold, constant=False):
    """The AUC of each row of the 2-D forms from the sorted rows:
    ``(auc, total_pos, total_neg, constant)`` (``constant`` None unless
    asked, see :func:`_constant_scores`)."""
    n = S.shape[0]
    q, s, pos = _sorted_form(Y, S, form, threshold)
    auc, total_pos, total_neg = _auc_per_query(q, s, pos, None, n)
    is_constant = _constant_scores(q, s, n, pos) if constant else None
    return auc, total_pos, total_neg, is_constant


def _positives_2d(Y, form, threshold):
    """``(rows, columns)`` of the relevant items of the 2-D forms, in row
    order (a canonical CSR's stored entries, or a dense grade array)."""
    if form == "sparse":
        keep = _relevant(Y.data, threshold)
        rows = np.repeat(np.arange(Y.shape[0], dtype=np.intp), np.diff(Y.indptr))
        return rows[keep], Y.indices[keep].astype(np.intp, copy=False)
    return np.nonzero(_relevant(np.asarray(Y), threshold))


def _auc_2d(Y, S, form, threshold, constant=False):
    """The AUC of each row of the 2-D forms: ``(auc, total_pos, total_neg,
    constant)`` as :func:`_sorted_rows`, counting the candidates below
    each positive (:func:`_counted_rows`) in the rows with at most
    ``2 log2(n_items)`` positives, from the sorted rows in the others."""
    n, m = S.shape
    rows, cols = _positives_2d(Y, form, threshold)
    n_pos = np.bincount(rows, minlength=n)
    # 2 passes over a row per positive against an argsort of it, m log m:
    # bench_factor.py (64 x 50,000) and 10,000 x 2,000 float64 scores, 5
    # positives per row: 5.7 ms against 98 ms, 108 ms against 833 ms
    heavy = n_pos > 2 * max(int(m).bit_length(), 2)
    if heavy.all() or S.dtype.kind != "f":
        return _sorted_rows(Y, S, form, threshold, constant)
    if heavy.any():  # counted without their positives, then replaced
        light = ~heavy[rows]
        rows, cols, n_pos = rows[light], cols[light], np.where(heavy, 0, n_pos)
    counted = _counted_rows(S, rows, cols, n_pos, constant)
    if not heavy.any():
        return counted
    idx = np.flatnonzero(heavy)
    Y_heavy = Y[idx] if form == "sparse" else np.asarray(Y)[idx]
    sorted_part = _sorted_rows(Y_heavy, S[idx], form, threshold, constant)
    out = []
    for values, heavy_values in zip(counted, sorted_part, strict=True):
        if values is not None:
            values = values.astype(np.result_type(values, heavy_values))
            values[idx] = heavy_values
        out.append(values)
    return tuple(out)


# Rows and columns of a block of scores that _count_below_equal compares
# 2 w + 1 times while it is in the cache (bench_factor.py's 64 x 50,000
# float32 scores, 5 positives per row: 5.7 ms against 15 ms for passes over
# whole rows; blocks of 32-128 rows and 4,096-16,384 columns within 20 %).
_COUNT_ROWS = 64
_COUNT_COLUMNS = 8192


def _count_below_equal(S, X, width):
    """For each row ``i`` of ``S`` and slot ``p < width[i // _COUNT_ROWS]``:
    the items scored below ``X[i, p]`` and equal to it; and the items
    scored ``-inf`` of each row."""
    n, m = S.shape
    below = np.zeros(X.shape, dtype=np.intp)
    equal = np.zeros(X.shape, dtype=np.intp)
    n_inf = np.zeros(n, dtype=np.intp)
    mask = np.empty((min(n, _COUNT_ROWS), min(m, _COUNT_COLUMNS)), dtype=bool)
    for b, r in enumerate(range(0, n, _COUNT_ROWS)):
        rows = slice(r, r + _COUNT_ROWS)
        for c in range(0, m, _COUNT_COLUMNS):
            block = S[rows, c : c + _COUNT_COLUMNS]
            out = mask[: block.shape[0], : block.shape[1]]
            for p in range(width[b]):
                np.less(block, X[rows, p : p + 1], out=out)
                below[rows, p] += _row_counts(out)
                np.equal(block, X[rows, p : p + 1], out=out)
                equal[rows, p] += _row_counts(out)
            np.equal(block, -np.inf, out=out)
            n_inf[rows] += _row_counts(out)
    return below, equal, n_inf


def _counted_rows(S, rows, cols, n_pos, constant=False):
    """The AUC of each row of ``S`` without a sort, from its positives
    ``(rows, cols)`` (in row order, ``n_pos`` per row): ``(auc, total_pos,
    total_neg, constant)`` as :func:`_sorted_rows`.

    A positive scored ``x`` counts the candidate negatives scored below
    ``x`` and half of those scored ``x``: the items below or equal to ``x``
    (:func:`_count_below_equal`: two passes over its row) less the
    ``-inf`` items (not candidates) and the positives below or equal to
    ``x``.  A positive scored ``-inf`` counts nothing (it ranks below every
    candidate).  Every term is a multiple of one half, so the sums are
    exact and the values those of the sorted rows, bit for bit.
    """
    n, m = S.shape
    x = S[rows, cols]
    first = np.cumsum(n_pos) - n_pos
    slot = np.arange(rows.shape[0]) - first[rows]
    width = n_pos.max(initial=0)
    X = np.full((n, width), np.nan, dtype=S.dtype)  # NaN: equal to nothing
    X[rows, slot] = x
    block_width = [
        int(n_pos[r : r + _COUNT_ROWS].max()) for r in range(0, n, _COUNT_ROWS)
    ]
    below, equal, n_inf = _count_below_equal(S, X, block_width)
    finite = x > -np.inf
    # the positives below and equal to each positive, within its row: the
    # row's positives sorted by score, in runs of equal scores
    order = np.lexsort((x, rows))
    xs, rs = x[order], rows[order]
    new_run = np.ones(xs.shape[0], dtype=bool)
    new_run[1:] = (xs[1:] != xs[:-1]) | (rs[1:] != rs[:-1])
    run_start = np.flatnonzero(new_run)
    run_len = np.diff(np.append(run_start, xs.shape[0]))
    run = np.cumsum(new_run) - 1
    pos_below = np.empty(x.shape[0], dtype=np.intp)
    pos_below[order] = run_start[run] - first[rs]
    pos_equal = np.empty(x.shape[0], dtype=np.intp)
    pos_equal[order] = run_len[run]
    pos_inf = np.bincount(rows[~finite], minlength=n)
    # the candidate negatives below x (the -inf items, and the -inf
    # positives among them, are below any finite x) and equal to it
    neg_below = below[rows, slot] - n_inf[rows] - (pos_below - pos_inf[rows])
    neg_equal = equal[rows, slot] - pos_equal
    contribution = np.where(finite, neg_below + 0.5 * neg_equal, 0.0)
    numerator = np.bincount(rows, weights=contribution, minlength=n)
    total_pos = n_pos
    total_neg = (m - n_pos) - (n_inf - pos_inf)
    denominator = total_pos * total_neg
    auc = np.full(n, np.nan)
    np.divide(numerator, denominator, out=auc, where=denominator > 0)
    is_constant = None
    if constant:  # one distinct score among the positives and candidates
        high = S.max(axis=1)
        low = np.where(S > -np.inf, S, np.inf).min(axis=1)
        is_constant = np.where(m > n_inf, (low == high) & (pos_inf == 0), pos_inf > 0)
    return auc, total_pos, total_neg, is_constant


def _gauc_long(y, s, codes, n_q, w, threshold, query_weighting, constant_scores):
    """:func:`gauc_per_query` of the long form, run after run of queries of
    about ``_PART_CELLS`` rows (:func:`~sklearn_rankmetrics._engine.
    query_run_orders`): each run is sorted and scored alone, so the cost
    per row and the temporaries stay those of one run's size whatever the
    number of rows.  A query's AUC reads only its own rows, and the
    weighted running sum carries over from run to run, so the values are
    those of one pass over all the rows, bit for bit.
    """
    sizes = np.bincount(codes, minlength=n_q)
    auc = np.empty(n_q)
    total_pos = np.empty(n_q)
    total_neg = np.empty(n_q)
    constant = np.zeros(n_q, dtype=bool)
    if w is not None:
        # An AUC does not change when its query's row weights are scaled:
        # scale each query's to sum to 1, so that the running sums over all
        # rows in _auc_per_query stay O(n_queries) and a query's AUC keeps
        # its precision next to queries weighted 2**40 times more.
        sums = np.bincount(codes, weights=w, minlength=n_q)  # sum of weights
        # ... and of the rows the AUC reads (its positives and candidate
        # negatives), summed in the rows' order as _ips_gauc sums them
        pos = _relevant(y, threshold)
        read = np.bincount(
            codes, weights=w * (pos | _candidate_negatives(pos, s)), minlength=n_q
        )
        del pos
    carry = [0.0]
    for first, end, order in query_run_orders(codes, n_q, s):
        m = end - first
        if order.size == 0:  # only queries without rows (empty groups)
            auc[first:end], total_pos[first:end], total_neg[first:end] = np.nan, 0, 0
            continue
        q = np.repeat(np.arange(m), sizes[first:end])
        s_run = s[order]
        pos = _relevant(y[order], threshold)
        if w is None:
            row_w = None
        else:
            scale = sums[first:end][q]
            row_w = np.zeros(q.shape[0])
            np.divide(w[order], scale, out=row_w, where=scale > 0)
        part = _auc_per_query(q, s_run, pos, row_w, m, carry)
        auc[first:end], total_pos[first:end], total_neg[first:end] = part
        if constant_scores == "skip":
            constant[first:end] = _constant_scores(q, s_run, m, pos)
    if w is None:  # the rows the AUC reads (positives, candidate negatives)
        rows = total_pos + total_neg
    else:
        rows = read
        total_pos = total_pos * sums
    if query_weighting == "impressions":
        query_w = rows
    elif query_weighting == "clicks":
        query_w = total_pos
    else:
        # each query counts once: row weights weigh the rows inside its AUC,
        # not the query (a query whose weights are all 0 has no AUC)
        query_w = np.ones(n_q)
    if constant_scores == "skip":
        auc = np.where(constant, np.nan, auc)
    return auc, query_w


# Rows per bucket of _gauc_hashed: each bucket is factorised, sorted and
# scored while it is in cache (benchmarks/README.md, goal 4).
_BUCKET_ROWS = 1 << 16
# Rows per block of _gauc_hashed's split of the rows by bucket.
_SPLIT_ROWS = 1 << 18
# Fibonacci hashing: the high bits of id x this odd constant (mod 2**64)
# spread any set of ids, consecutive ones included, over the buckets.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _local_codes(x):
    """Codes 0..m-1 of the ids ``x`` in any order, and the m ids: a hash
    table with pandas, else a sort."""
    if x.shape[0] >= 1 << 12:
        try:
            import pandas as pd  # lazily: importing this package never does
        except ImportError:
            pass
        else:
            codes, uniques = pandas_factorize(pd, x)
            return codes, np.asarray(uniques)
    uniques, codes = np.unique(x, return_inverse=True)
    return codes.reshape(-1), uniques


def _bucket_rows(arrays, a, b, c):
    """Rows ``[a[i], b[i])`` of every block's ``arrays[i]``, then rows
    ``[b[i], c[i])`` of every block (a bucket's negatives, then its
    positives); a view when there is one block."""
    if len(arrays) == 1:
        return arrays[0][a[0] : c[0]]
    return np.concatenate(
        [v[p:q] for v, p, q in zip(arrays, a, b, strict=True)]
        + [v[p:q] for v, p, q in zip(arrays, b, c, strict=True)]
    )


def _gauc_hashed(
    y,
    s,
    qid,
    threshold,
    query_weighting,
    constant_scores,
    n_q=None,
    rows=False,
    groups=False,
):
    """:func:`gauc_per_query` of the unweighted long form with integer
    query ids, without numbering the ids over all the rows; returns
    ``(auc, query_weights, sorted_unique_ids)``, and with ``rows`` one row
    of each id (in the same order) as a fourth element.  With ``n_q``,
    ``qid`` are codes in ``[0, n_q)`` and the values are indexed by code
    (a code without rows: nan, weight 0, or 1 with
    ``query_weighting="uniform"``, as in :func:`_gauc_long`).  With
    ``groups``, ``(auc, query_weights, group)``: the queries in the order
    of the buckets (not sorted by id) and the query of each row in that
    order (a caller whose ``qid`` are hashes checks its rows against one
    row of each group, :func:`_gauc_fixed_width`); each block's queries
    are placed back in the block's rows by a scatter within the block.

    The rows are split by a hash of their query id into buckets of about
    ``_BUCKET_ROWS`` rows (whole queries, the positive rows after the
    negative ones): block by block of ``_SPLIT_ROWS`` rows, a stable radix
    sort of the small bucket keys and a gather of the ids and of the
    scores, all in cache; a bucket is the concatenation of its rows from
    every block.  Each bucket is then numbered, sorted and scored alone,
    in cache; the buckets' ids are sorted once at the end.  So no step
    reads a table or an array of the size of the input at random (a
    gather over the whole input, one cache miss per row, grew from 5 to
    27 ns per row from 200,000 to 20,000,000 rows), and the cost per row
    stays that of one bucket as the rows grow (a hash table of every id,
    as ``np.unique`` or ``pandas.factorize`` build, outgrows the caches).
    The AUC sums are integer counts, exact in any order, so the values are
    those of :func:`_gauc_long`, bit for bit.
    """
    n = s.shape[0]
    signed = qid.dtype.kind != "u"
    x = qid.astype(np.int64 if signed else np.uint64, copy=False).view(np.uint64)
    bits = max(0, int(np.ceil(np.log2(max(n / _BUCKET_ROWS, 1.0)))))
    bits = min(bits, 15)  # the key (bucket, positive) fits 16 bits
    n_keys = 2 << bits
    # The rows are laid out by key block by block of _SPLIT_ROWS rows, so the
    # sort and the gathers stay in cache; bucket j is then the concatenation
    # of every block's negative rows of j, then of its positive rows.
    blocks = []
    for b0 in range(0, max(n, 1), _SPLIT_ROWS):
        xb, sb = x[b0 : b0 + _SPLIT_ROWS], s[b0 : b0 + _SPLIT_ROWS]
        pos = _relevant(y[b0 : b0 + _SPLIT_ROWS], threshold)
        if bits == 0:
            key = pos.view(np.uint8)
        else:
            h = xb * _GOLDEN
            h >>= np.uint64(64 - bits)
            h <<= np.uint64(1)
            h |= pos
            key = h.astype(np.uint8 if bits < 8 else np.uint16)
            del h
        # stable sorts of 8- and 16-bit keys are radix sorts in numpy: O(n)
        perm = np.argsort(key, kind="stable")
        ends = np.zeros(n_keys + 1, dtype=np.intp)
        np.cumsum(np.bincount(key, minlength=n_keys), out=ends[1:])
        keep = perm + b0 if rows else perm if groups else None
        blocks.append((xb[perm], sb[perm], ends, keep))
        del pos, key, perm
    xgs, sgs, cut, row_blocks = zip(*blocks, strict=True)
    cut = np.array(cut).T.copy()  # (n_keys + 1, blocks): each block's key ends
    if groups:  # each block's queries, in the block's key order
        group_blocks = [np.empty(v.shape[0], dtype=np.intp) for v in sgs]
        n_done = 0
    aucs, weights, uniques, constant, firsts = [], [], [], [], []
    for j in range(1 << bits):
        a, b, c = cut[2 * j : 2 * j + 3].tolist()  # positives in [b, c)
        mid = sum(b) - sum(a)
        xj, ss = _bucket_rows(xgs, a, b, c), _bucket_rows(sgs, a, b, c)
        if xj.shape[0] == 0:
            continue
        codes, u = _local_codes(xj)
        m = u.shape[0]
        if rows:  # one row of each id (any will do)
            firsts.append(np.empty(m, dtype=np.intp))
            firsts[-1][codes] = _bucket_rows(row_blocks, a, b, c)
        if groups:  # the bucket's rows are its blocks' [a, b), then [b, c)
            g, n_done = codes + n_done, n_done + m
            segments = list(zip(a, b, strict=True)) + list(zip(b, c, strict=True))
            at = np.cumsum([0] + [q - p for p, q in segments]).tolist()
            for i, (p, q) in enumerate(segments):
                group_blocks[i % len(a)][p:q] = g[at[i] : at[i + 1]]
        sizes = np.bincount(codes, minlength=m)
        order = _group_order(codes, m, sort_order(ss))
        del codes
        q = np.repeat(np.arange(m), sizes)
        s_run = ss[order]
        pos = order >= mid
        auc, total_pos, total_neg = _auc_per_query(q, s_run, pos, None, m)
        if query_weighting == "impressions":  # the rows the AUC reads
            weights.append(np.asarray(total_pos + total_neg, dtype=np.float64))
        elif query_weighting == "clicks":
            weights.append(np.asarray(total_pos, dtype=np.float64))
        if constant_scores == "skip":
            constant.append(_constant_scores(q, s_run, m, pos))
        aucs.append(auc)
        uniques.append(u)
    ids = np.concatenate(uniques).view(np.int64 if signed else np.uint64)
    auc = np.concatenate(aucs)
    if constant_scores == "skip":
        auc[np.concatenate(constant)] = np.nan
    if query_weighting == "uniform":
        query_w = np.ones(ids.shape[0])
    else:
        query_w = np.concatenate(weights)
    if n_q is not None:  # codes: place each query at its code
        out_auc = np.full(n_q, np.nan)
        out_auc[ids] = auc
        out_w = np.ones(n_q) if query_weighting == "uniform" else np.zeros(n_q)
        out_w[ids] = query_w
        return out_auc, out_w, np.arange(n_q)
    if groups:  # back in the rows' order, block by block (in cache)
        group = np.empty(n, dtype=np.intp)
        for b0, perm, gb in zip(
            range(0, max(n, 1), _SPLIT_ROWS), row_blocks, group_blocks, strict=True
        ):
            group[b0 : b0 + perm.shape[0]][perm] = gb
        return auc, query_w, group
    order = distinct_ints_order(ids)
    out = auc[order], query_w[order], ids[order].astype(qid.dtype, copy=False)
    return (*out, np.concatenate(firsts)[order]) if rows else out


def _gauc_fixed_width(y, s, ids, threshold, query_weighting, constant_scores):
    """``(auc, query_weights)`` of :func:`_gauc_unnumbered` for a ``U`` or
    ``S`` array of ids: when they differ in at most 64 bits, by
    :func:`_gauc_hashed` over their packed keys (:func:`packed_ids`),
    exact and in the ids' order.  Else the rows are grouped by
    :func:`_gauc_hashed` over a 64-bit hash of their bytes
    (:func:`row_hashes`; ``U`` ids of Latin-1 characters narrowed to one
    byte per character first, :func:`narrow_text`), every row is then
    compared with one row of its group (two ids of one fixed-width array
    are equal exactly when their bytes are), and only the distinct ids are
    sorted; no numbering pass over the rows.  Should two ids share a hash,
    the ids are numbered first (:func:`check_query_id`).
    """
    args = (threshold, query_weighting, constant_scores)
    if ids.shape[0] == 0:  # no rows, no hash: the numbered path says why
        codes, ids = check_query_id(ids, 0)
        return gauc_per_query("long", y, s, codes, ids.shape[0], None, *args)
    keys = packed_ids(ids)
    if keys is not None:  # exact keys in the ids' order: int ids
        return _gauc_hashed(y, s, keys, *args)[:2]
    data = bytes_to_hash(ids)
    auc, query_w, group = _gauc_hashed(y, s, row_hashes(data), *args, groups=True)
    first = np.empty(auc.shape[0], dtype=np.intp)
    first[group] = np.arange(group.shape[0])  # one row of each group
    distinct = data[first]
    if rows_match(data, distinct, group):
        order = fixed_width_order(distinct)
        return auc[order], query_w[order]
    codes, ids = check_query_id(ids, ids.shape[0])
    return gauc_per_query("long", y, s, codes, ids.shape[0], None, *args)


def _gauc_unnumbered(y, s, ids, threshold, query_weighting, constant_scores):
    """``(auc, query_weights)`` of :func:`group_auc_score`'s unweighted
    long form with the ids that :func:`check_query_id` left unnumbered
    (``factorize=False``): ints, by :func:`_gauc_hashed`; an object array
    of ``str`` ids, one object per id (as ``names[codes]`` or pandas'
    ``to_numpy`` make them), by :func:`_gauc_hashed` over the objects'
    keys (:func:`object_keys`), its queries then sorted by id; other ids
    numbered first.  The per-query values are the numbered path's, in the
    order of ``np.unique(ids)``, bit for bit (integer counts).
    """
    args = (threshold, query_weighting, constant_scores)
    if ids.dtype.kind in "US":
        return _gauc_fixed_width(y, s, ids, *args)
    if ids.dtype.kind != "O":
        return _gauc_hashed(y, s, ids, *args)[:2]
    keys = object_keys(ids)
    if keys is not None:
        auc, query_w, _, first = _gauc_hashed(y, s, keys, *args, rows=True)
        order = str_objects_order(ids[first])
        if order is not None:  # every id a str, one object per id
            return auc[order], query_w[order]
    codes, ids = check_query_id(ids, ids.shape[0])
    return gauc_per_query("long", y, s, codes, ids.shape[0], None, *args)


def _ips_gauc(
    form,
    Y,
    S,
    codes,
    n_q,
    w,
    threshold,
    query_weighting,
    constant_scores,
    propensity,
    min_propensity,
):
    """The IPS estimate of :func:`group_auc_score` (see its Notes): each row
    has a positive weight :math:`c/p` and a negative weight :math:`1 - c/p`
    (times its row weight), ``c`` = observed positive; per query the
    pairs of distinct items, a non-candidate (``-inf``) negative left out,
    ties counting one half.  Returns the per-query AUCs (nan where
    undefined) and ``(query_weights, estimated_pairs)``: the query weights
    of :func:`gauc_per_query` and each query's estimated number of
    (positive, candidate negative) pairs, the denominator of its AUC and
    its weight in the pooled form.  Every form goes through the long-form
    runs of queries, the 2-D forms flattened row by row."""

    if form == "sparse":
        Y = Y.toarray()
    p = _check_propensity(propensity, Y, min_propensity, codes)
    q_w = None
    if form != "long":
        m = S.shape[1]
        q_w = w  # one weight per query in the 2-D forms
        codes = np.repeat(np.arange(n_q, dtype=np.intp), m)
        Y, S, p = Y.ravel(), S.ravel(), p.ravel()
        w = None
    pos = _relevant(Y, threshold)
    row_w = np.ones(Y.shape[0]) if w is None else np.asarray(w, dtype=np.float64)
    w_pos = np.where(pos, row_w / p, 0.0)
    # an observed positive is also 1 - 1/p of a negative (E[c/p] = relevance);
    # a row scored -inf is no candidate: not a negative (spec, candidates)
    w_neg = np.where(pos, row_w - w_pos, row_w)
    w_neg[np.isneginf(S)] = 0.0
    num, den = np.zeros(n_q), np.zeros(n_q)
    constant = np.zeros(n_q, dtype=bool)
    for first, end, order in query_run_orders(codes, n_q, S):
        if order.size == 0:
            continue
        m = end - first
        q = codes[order] - first
        s, wp, wn, ps = S[order], w_pos[order], w_neg[order], pos[order]
        new_query = np.empty(q.shape[0], dtype=bool)
        new_query[0] = True
        np.not_equal(q[1:], q[:-1], out=new_query[1:])
        new_run = new_query.copy()
        new_run[1:] |= s[1:] != s[:-1]
        idx = np.arange(q.shape[0])
        run_start = np.maximum.accumulate(np.where(new_run, idx, 0))
        query_start = np.maximum.accumulate(np.where(new_query, idx, 0))
        cum = np.cumsum(wn)  # within the run of queries: a short sum
        before = cum - wn  # negative weight before each row
        run_end = np.append(np.flatnonzero(new_run)[1:], q.shape[0]) - 1
        run_end = run_end[np.cumsum(new_run) - 1]
        below = before[run_start] - before[query_start]
        tied = cum[run_end] - before[run_start] - wn  # the row itself left out
        num[first:end] = np.bincount(q, weights=wp * (below + 0.5 * tied), minlength=m)
        pairs = np.bincount(q, weights=wp, minlength=m) * np.bincount(
            q, weights=wn, minlength=m
        )
        den[first:end] = pairs - np.bincount(q, weights=wp * wn, minlength=m)
        if constant_scores == "skip":
            constant[first:end] = _constant_scores(q, s, m, ps)
    defined = (den > 0) & ~constant
    auc = np.zeros(n_q)
    np.divide(num, den, out=auc, where=defined)
    if query_weighting == "impressions":  # the rows the AUC reads
        read = pos | _candidate_negatives(pos, S)
        query_w = np.bincount(codes, weights=row_w * read, minlength=n_q)
    elif query_weighting == "clicks":
        query_w = np.bincount(codes, weights=row_w * pos, minlength=n_q)
    else:
        query_w = np.ones(n_q)
    if q_w is not None:
        query_w = query_w * q_w
    # nan where undefined; the query weights and, for the pooled form, the
    # estimated pairs
    return np.where(defined, auc, np.nan), (query_w, den)


def _ips_pooled(auc, query_w, den, average, undefined_value):
    """The pooled IPS GAUC (``average="micro"``: the estimated correctly
    ordered pairs over the estimated pairs, each query's weighted by its
    query weight) or its per-query parts."""

    defined = ~np.isnan(auc)
    if average is not PARTS and not np.isnan(undefined_value):
        if (query_w * den)[defined].sum() == 0:
            return float(undefined_value)
    return ips_average(auc, defined, query_w, den, average, "skip", "group_auc_score")


@with_convention
def group_auc_score(
    y_true,
    y_score,
    *,
    query_id=None,
    relevance_threshold=None,
    query_weighting="impressions",
    constant_scores="keep",
    undefined_value=np.nan,
    sample_weight=None,
    average="queries",
    propensity=None,
    min_propensity=None,
    self_normalized=None,
):
    r"""Group AUC (GAUC): ROC AUC within each query, averaged over queries.

    The AUC of the scores of each query (user, session, ...) taken alone,
    weighted over the queries that have both relevant and irrelevant items
    (Zhou et al. [1]_).  Ties count one half, as in
    :func:`sklearn.metrics.roc_auc_score`.

    An item scored ``-inf`` is not a candidate (padding, an item excluded
    from the recommendations, an item the ranker did not return): a
    non-candidate negative is left out of the pairs, a non-candidate
    positive counts as ranked below every candidate.  So padding never
    changes a value, and a query without a positive or without a candidate
    negative has no AUC (it is skipped, never scored 0.5).

    Read more in the :ref:`User Guide <metrics>`.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_queries, n_items), or \
array-like of shape (n_rows,) with ``query_id``
        Relevance (clicks); an item is positive when ``y_true > 0`` (or
        ``>= relevance_threshold``).

    y_score : array-like of shape (n_queries, n_items), or (n_rows,)
        Predicted scores.

    query_id : array-like of shape (n_rows,), default=None
        Query of each row of the long form.

    relevance_threshold : float > 0 or None, default=None
        An item is positive when ``y_true >= relevance_threshold``.

    query_weighting : {"impressions", "uniform", "clicks"}, default="impressions"
        Weight of a query in the mean: its number of rows read by the AUC
        (impressions, the DIN paper: its positives and its candidate
        negatives; the sum of their row weights in the long form), 1 (each
        query counts once, whatever its row weights), or its number of
        positive rows (clicks; summed row weights).  In the 2-D form the
        query's ``sample_weight`` multiplies it.

    constant_scores : {"keep", "skip"}, default="keep"
        "skip" leaves out the queries whose items all have the same score
        (their AUC is 0.5 but carries no ranking information), as several
        CTR teams report.

    undefined_value : float, default=nan
        The value returned when no query can be scored (every query has a
        single class, or is skipped, or weighs 0).  With nan an
        ``UndefinedMetricWarning`` is raised too.

    sample_weight : array-like of shape (n_queries,) or (n_rows,), default=None
        2-D form: one weight per query.  Long form: one per row, weighting
        the rows inside each AUC.

    average : {"queries", "micro"} or None, default="queries"
        None returns the per-query AUCs (nan where undefined or skipped).
        "micro" (with ``propensity`` only): the pooled estimate, the
        estimated correctly ordered pairs of all queries over their
        estimated pairs, each query's weighted by its query weight (see
        Notes).

    propensity : array-like of the shape of ``y_true``, default=None
        Probability in (0, 1] that each cell's (long form: row's) relevance
        was observed.  Given, each query's AUC is the inverse-propensity
        estimate of its full-information AUC: an observed positive of
        propensity :math:`p` counts :math:`1/p` as a positive and
        :math:`1 - 1/p` as a negative, every other item 1 as a negative
        (times its ``sample_weight`` in the long form), over the pairs of
        distinct items (see Notes).  Per query it is consistent (its error
        vanishes as the query's items grow), not unbiased, and may fall
        outside [0, 1]; at a few observed positives per query it can order
        models wrongly, the pooled ``average="micro"`` does not.  A query
        whose estimated pairs are not positive is undefined (skipped).
        ``query_weighting`` is unchanged: the query weights are the plain
        (unweighted by :math:`1/p`) counts.  See :ref:`logged_feedback`.

    min_propensity : float in (0, 1], default=None
        With ``propensity``: clip propensities below it (less variance,
        some bias).

    self_normalized : None or True, default=None
        The estimate with ``propensity`` is self-normalised by
        construction: None and True are the same; False raises.

    Returns
    -------
    score : float or ndarray of shape (n_queries,)

    See Also
    --------
    sklearn.metrics.roc_auc_score : The AUC of one query.

    Notes
    -----
    .. math::

        GAUC = \frac{\sum_q v_q AUC_q}{\sum_q v_q}

    over the queries with a positive and a candidate negative (and, with
    ``constant_scores="skip"``, more than one distinct score among the rows
    the AUC reads), :math:`v_q` being the query weight.  With :math:`P_q`
    the query's positives (candidates or not) and :math:`N_q` its candidate
    negatives (score above ``-inf``),

    .. math::

        AUC_q = \frac{1}{|P_q| |N_q|} \sum_{i \in P_q} \sum_{j \in N_q}
        \left( [s_i > s_j] + \tfrac{1}{2} [s_i = s_j] \right),

    so a positive scored ``-inf`` beats no candidate negative.  A query
    whose positives are all scored ``-inf`` (and that has a candidate
    negative) scores 0.  See :ref:`candidates`.

    With ``propensity``, let :math:`c_i` be 1 for an observed positive of
    the query, :math:`y_i` its unknown full-information relevance,
    observed with probability :math:`p_i` (:math:`E[c_i] = p_i y_i`), and
    :math:`\omega_i` its row weight.  Each item gets a positive and a
    negative weight,

    .. math::

        w^+_i = \omega_i \frac{c_i}{p_i}, \qquad
        w^-_i = \omega_i \Big(1 - \frac{c_i}{p_i}\Big)
        \quad (0 \text{ for an item scored } -\infty),

    unbiased for :math:`\omega_i y_i` and :math:`\omega_i (1 - y_i)`.  For
    two distinct items the observations are independent, so
    :math:`E[w^+_i w^-_j] = \omega_i \omega_j y_i (1 - y_j)` and

    .. math::

        \widehat{AUC}_q = \frac{\sum_{i \ne j} w^+_i w^-_j\,
        K(s_i, s_j)}{\sum_{i \ne j} w^+_i w^-_j}, \qquad
        K = 1, \tfrac12, 0 \text{ for } s_i >, =, < s_j,

    is a ratio of two unbiased estimates of the query's weighted correctly
    ordered pairs and pairs (Saito et al. [2]_ weigh an observed item the
    same way, :math:`c/p` as a positive and :math:`1 - c/p` as a negative).
    The pair :math:`i = j` is left out: its weight :math:`w^+_i w^-_i =
    \omega_i^2 (c_i/p_i)(1 - 1/p_i)` has expectation :math:`\omega_i^2
    y_i (1 - 1/p_i) \ne 0`.  Weighting positives only (Yang et al. [3]_)
    keeps the unobserved relevant items among the negatives: its bias does
    not vanish however many items a query has.  The pooled form is
    :math:`\sum_q v_q\, num_q / \sum_q v_q\, den_q`, consistent as the
    queries grow at any number of items per query.

    References
    ----------
    .. [1] Zhou, G. et al. (2018). Deep Interest Network for Click-Through
           Rate Prediction. KDD 2018.
    .. [2] Saito, Y. et al. (2020). Unbiased Recommender Learning from
           Missing-Not-At-Random Implicit Feedback. WSDM 2020.
    .. [3] Yang, L. et al. (2018). Unbiased Offline Recommender Evaluation
           for Missing-Not-At-Random Implicit Feedback. RecSys 2018.

    Examples
    --------
    >>> from sklearn_rankmetrics import group_auc_score
    >>> y_true = [1, 0, 0, 0, 1, 1, 0]
    >>> y_score = [0.9, 0.5, 0.6, 0.5, 0.5, 0.5, 0.4]
    >>> query_id = ["u1", "u1", "u1", "u2", "u2", "u2", "u3"]
    >>> group_auc_score(y_true, y_score, query_id=query_id)
    0.75
    >>> group_auc_score(y_true, y_score, query_id=query_id, constant_scores="skip")
    1.0
    >>> group_auc_score(y_true, y_score, query_id=query_id, query_weighting="clicks")
    0.666...

    Padding (grade 0, score ``-inf``) is not a candidate and changes
    nothing; a relevant item scored ``-inf`` ranks below every candidate:

    >>> import numpy as np
    >>> group_auc_score([[1, 0, 0, 0]], [[0.9, 0.5, 0.6, -np.inf]])
    1.0
    >>> group_auc_score([[1, 1, 0, 0]], [[0.9, -np.inf, 0.6, -np.inf]])
    0.5

    With propensities: the observed positives a and c, each observed half
    the time, count 2 as positives and 1 - 2 = -1 as negatives.  a is above
    b, c and d: 2 x (1 - 1 + 1) = 2 correctly ordered pairs, c above none,
    out of (2 + 2) x (-1 + 1 - 1 + 1) - (2 x -1 + 2 x -1) = 4 pairs:

    >>> y_true, y_score = [[1, 0, 1, 0]], [[0.9, 0.5, 0.1, 0.3]]
    >>> group_auc_score(y_true, y_score, propensity=[[0.5, 1, 0.5, 1]])
    0.5
    """

    _check_self_normalized(
        self_normalized, "group_auc_score", propensity, min_propensity
    )
    threshold = check_real(
        "relevance_threshold", relevance_threshold, low=0.0, allow_none=True
    )
    query_weighting = check_option(
        "query_weighting", query_weighting, ("impressions", "uniform", "clicks")
    )
    constant_scores = check_option("constant_scores", constant_scores, ("keep", "skip"))
    if isinstance(undefined_value, (bool, np.bool_)) or not isinstance(
        undefined_value, numbers.Real
    ):
        raise TypeError(
            f"undefined_value must be a number (or nan); got {undefined_value!r}."
        )
    if propensity is None and not (isinstance(average, str) and average == "micro"):
        average = check_average(average, ("queries",))
    else:  # the pooled pairs, an IPS estimator's
        average = check_ips_average(average, "group_auc_score", propensity)
    form, Y, S, codes, ids, w = check_inputs(
        y_true,
        y_score,
        query_id,
        sample_weight,
        row_weights=True,
        factorize=propensity is not None,
    )
    threshold = exact_threshold(threshold, Y.dtype)
    if form == "long" and codes is None:  # ints or objects as given, unweighted
        auc, query_w = _gauc_unnumbered(
            Y, S, ids, threshold, query_weighting, constant_scores
        )
    elif propensity is None:
        n_q = ids.shape[0] if form == "long" else S.shape[0]
        auc, query_w = gauc_per_query(
            form, Y, S, codes, n_q, w, threshold, query_weighting, constant_scores
        )
    else:
        n_q = ids.shape[0] if form == "long" else S.shape[0]
        auc, (query_w, pairs) = _ips_gauc(
            form,
            Y,
            S,
            codes,
            n_q,
            w,
            threshold,
            query_weighting,
            constant_scores,
            propensity,
            min_propensity,
        )
        if average not in ("queries", None):  # pooled: sum num / sum den
            return _ips_pooled(auc, query_w, pairs, average, undefined_value)
    defined = ~np.isnan(auc)
    if average is None or np.isnan(undefined_value):
        return average_queries(
            auc, defined, query_w, average, "skip", "group_auc_score"
        )
    if query_w[defined].sum() == 0:
        return float(undefined_value)
    return average_queries(auc, defined, query_w, average, "skip", "group_auc_score")
