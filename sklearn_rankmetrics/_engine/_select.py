"""Top-k selection: the ``K`` best-scored items of every query.

One builder per input form (dense 2-D rows, sparse ``y_true`` with dense
scores, the long form grouped by query), each returning a
:class:`Selection`: the top ``K`` scores and grades of every query, sorted by
decreasing score and padded with ``-inf``, and for the tie group cut by
``k`` its size, relevant count and gain sum over *all* the query's items.
Large 2-D inputs are selected in chunks of rows on threads.
"""

from typing import NamedTuple

import numpy as np

from .._utils._config import effective_n_threads
from .._utils._validation import _radix_order, check_grade_values, raise_nan_scores

__all__ = []  # private module


# ---------------------------------------------------------------------------
# Relevance and gain
# ---------------------------------------------------------------------------
def _relevant(rel, threshold):
    """Binary relevance: ``rel > 0`` or ``rel >= threshold``."""
    if threshold is None:
        return rel > 0
    return rel >= threshold


def exact_threshold(threshold, dtype):
    """``threshold`` for grades of ``dtype``: for a float type narrower than
    float64, the least value of that type >= ``threshold``, so that
    ``rel >= it`` means ``rel >= threshold`` exactly whether ``rel`` is
    compared in its own dtype (numpy rounds a Python float to it) or in
    float64."""
    if threshold is None or dtype.kind != "f" or dtype.itemsize >= 8:
        return threshold
    with np.errstate(over="ignore"):  # inf: above every finite grade
        t = np.asarray(threshold, dtype=dtype)
    if float(t) < threshold:
        t = np.nextafter(t, dtype.type(np.inf))
    return float(t)


def _gain(rel, gain):
    """Gains of the grades ``rel``: "linear", "exponential", or a callable
    (a gain table or the user's; checked in ``_utils._validation.check_gain``)."""
    rel = np.asarray(rel, dtype=np.float64)
    if callable(gain):
        out = np.asarray(gain(rel), dtype=np.float64)
        if out.shape != rel.shape:
            raise ValueError(
                f"gain(grades) must return one gain per grade: got shape "
                f"{out.shape} for grades of shape {rel.shape}."
            )
        if (out < 0).any():
            raise ValueError("gain(grades) returned a negative gain.")
        return out
    if gain == "linear":
        return rel
    with np.errstate(over="ignore"):  # inf for grades >= 1024: the DCG says so
        return np.expm1(rel * np.log(2.0))  # 2**rel - 1, exact at small grades


# ---------------------------------------------------------------------------
# Segmented top-K (ragged groups), used by the long form, sparse IDCG, ...
# ---------------------------------------------------------------------------
def _group_order(codes, n_groups, order=None):
    """Stable permutation that puts rows in ascending ``codes`` order.

    ``codes`` are ints in ``[0, n_groups)``.  Rows are read in the order
    ``order`` (default: as given), which rows of one group keep.  NumPy's
    stable sort of 16-bit keys is a radix sort, so one pass per 16 bits of
    ``n_groups`` groups the rows in O(n) instead of a comparison sort.
    """
    c = codes if order is None else codes[order]
    if n_groups <= 1 << 16:
        perm = np.argsort(c.astype(np.uint16), kind="stable")
    elif n_groups <= 1 << 32:
        # the cast to uint16 keeps the low 16 bits; in-place shifts spare
        # full-size temporaries (benchmarks/README.md, E1)
        perm = np.argsort(c.astype(np.uint16), kind="stable")
        high = c[perm]
        high >>= 16
        perm = perm[np.argsort(high.astype(np.uint16), kind="stable")]
    else:
        perm = np.argsort(c, kind="stable")
    return perm if order is None else order[perm]


# Keys of at least this many rows are sorted by radix passes (sort_order);
# fewer by one comparison sort (the passes' numpy calls would cost more).
_RADIX_MIN_ROWS = 1 << 11

_SIGN_BIT = np.uint64(1 << 63)


def _ordered_bits(key, descending):
    """The float64 or int64 array ``key`` as uint64 numbers in the same
    order (the reverse order with ``descending``), or None for other
    dtypes and for floats with a NaN.

    A float's bits order non-negative floats as numbers; a negative one
    has every bit flipped, a non-negative one its sign bit set, so that
    -inf < ... < -0.0 = 0.0 < ... < inf as unsigned numbers.  ``-0.0`` is
    made ``0.0`` first (``key + 0.0``): the two are equal, and equal keys
    must stay in their input order.
    """
    if key.dtype == np.int64:
        bits = key.view(np.uint64) ^ _SIGN_BIT
    elif key.dtype == np.float64:
        if np.isnan(key).any():
            return None
        u = (key + 0.0).view(np.uint64)
        bits = u >> np.uint64(63)  # 1 for a negative float
        np.negative(bits, out=bits)  # every bit set for a negative float
        bits |= _SIGN_BIT
        bits ^= u
    else:
        return None
    if descending:
        np.invert(bits, out=bits)
    return bits


def sort_order(key, descending=False):
    """``np.argsort(key, kind="stable")`` of a 1-D float64 or int64 array
    (decreasing with ``descending``; equal keys in input order either way).

    From ``_RADIX_MIN_ROWS`` rows, by four stable sorts of the key's 16-bit
    digits, lowest first (``_utils._validation._radix_order``, the passes
    that sort the distinct ids; numpy sorts 16-bit keys stably by radix,
    and skips a byte that every key shares): O(n), where a comparison sort of
    floats is O(n log n).  65,536 probabilities, then grouped by query:
    2.0-3.7 ms against 3.8-4.9 by ``np.argsort`` (the machine's noise);
    on 2,000,000 rows ``ndcg_at_k`` took 291 ms, was 345, and GAUC 161,
    was 223 (``benchmarks/bench_forms.py --part long``).  Other dtypes,
    NaN keys and short keys:
    ``np.argsort`` (of ``-key``, or of ``~key`` for integers, when
    ``descending``).
    """
    bits = _ordered_bits(key, descending) if key.size >= _RADIX_MIN_ROWS else None
    if bits is None:
        if descending:  # (~x reverses integers without overflow)
            key = -key if key.dtype.kind == "f" else ~key
        return np.argsort(key, kind="stable")
    return _radix_order([bits], [(0, 64)])


def _argsort_desc(key, stable):
    """Indices that sort ``key`` (float64) in decreasing order, equal keys
    in input order with ``stable`` (else in the order a comparison sort
    leaves them).

    Stable: by radix passes from ``_RADIX_MIN_ROWS`` keys
    (:func:`sort_order`; the same permutation).  Not stable: by one
    comparison sort (:func:`_argsort_desc_sorted`), whose order of equal
    keys the values were computed with: sums over tied rows in another
    order can differ in the last bits, so a caller asks for ``stable``
    where no value depends on the order of tied rows (:func:`_select_long`,
    :func:`_ideal_from_entries`).
    """
    if stable and key.size >= _RADIX_MIN_ROWS:
        return sort_order(key, descending=True)
    return _argsort_desc_sorted(key, stable)


def _argsort_desc_sorted(key, stable):
    """:func:`_argsort_desc` by one comparison sort.

    With ``stable``, equal keys keep their input order: the unstable (fast)
    sort is corrected inside the runs of equal keys only, so continuous
    scores pay nothing for it.
    """
    order = np.argsort(-key)
    if stable and key.size > 1:
        ks = key[order]
        tie = ks[1:] == ks[:-1]
        if tie.any():
            member = np.zeros(key.size, dtype=bool)
            member[1:] = tie
            member[:-1] |= tie
            at = np.flatnonzero(member)
            run = np.concatenate(([0], np.cumsum(~tie)))[at]
            base = run * key.size  # runs are in sorted position order
            order[at] = np.sort(base + order[at]) - base
    return order


def _segment_top(seg, key, n_seg, K, payloads, fills, stable=True):
    """For each segment, the ``K`` entries with the largest ``key``.

    ``seg`` holds segment numbers in ``[0, n_seg)``, in any order.  With
    ``stable``, ties in ``key`` keep their input order.  Returns the
    ``(n_seg, K)`` key array, sorted decreasingly and padded with
    ``fills[0]``, followed by one array per payload (padded with the
    matching fill).  Cost: one sort of ``key`` and a radix grouping by
    segment (see :func:`_group_order`), not a lexicographic sort.
    """
    order = _group_order(seg, n_seg, _argsort_desc(key, stable))
    # The grouped rows' segments and first positions are runs: np.repeat
    # writes them in sequence instead of gathering them at random
    # (benchmarks/README.md, E2).
    counts = np.bincount(seg, minlength=n_seg)
    seg_s = np.repeat(np.arange(n_seg), counts)
    pos = np.arange(seg_s.size)
    pos -= np.repeat(np.cumsum(counts) - counts, counts)
    keep = pos < K
    flat = seg_s[keep] * K + pos[keep]
    kept = order[keep]
    out = []
    for values, fill in zip((key, *payloads), fills, strict=True):
        arr = np.full(n_seg * K, fill, dtype=np.float64)
        arr[flat] = values[kept]
        out.append(arr.reshape(n_seg, K))
    return out


def _ideal_from_entries(seg, grades, n_seg, K, gain):
    """(n_seg, K) gains of each segment's best grades, descending."""
    positive = grades > 0
    seg, grades = seg[positive], np.asarray(grades[positive], dtype=np.float64)
    # stable: the sorted grades are the same in any order of the tied ones,
    # and the radix passes sort faster
    (ideal,) = _segment_top(seg, grades, n_seg, K, (), (0.0,), stable=True)
    return _gain(ideal, gain)


# ---------------------------------------------------------------------------
# Selections: one builder per input form
# ---------------------------------------------------------------------------
class CutGroups(NamedTuple):
    """The tie groups cut by rank ``K``, counted over *all* their items.

    Only these groups can continue past the top ``K``; every other group
    lies wholly inside it and is counted from the top ``K`` itself.
    """

    rows: np.ndarray  # queries whose group at rank K continues past it
    size: np.ndarray  # the group's number of items
    relevant: np.ndarray  # ... of relevant items
    gain: np.ndarray  # ... and sum of gains


_NO_CUT = CutGroups(np.zeros(0, dtype=np.intp), np.zeros(0), np.zeros(0), np.zeros(0))


class Selection(NamedTuple):
    """What a builder extracts from one input form: the sorted top ``K`` of
    every query and the per-query counts the metrics need."""

    top_score: np.ndarray  # (n_queries, K), decreasing; -inf = no item
    top_rel: np.ndarray  # (n_queries, K) grades of those items
    cut: CutGroups
    n_rel: np.ndarray  # R: relevant items per query, retrieved or not
    n_pos: np.ndarray  # items with a grade > 0 (is DCG/NDCG defined?)
    n_retrieved: np.ndarray  # items with a finite score
    ideal: np.ndarray | None  # (n_queries, K) ideal gains, if asked for
    maybe_ties: bool = True  # False: no two scores of a query's top are equal
    # (flat positions in (n_queries, K), grades) of every item of grade
    # != 0, when known; top_rel is 0 elsewhere (see _tie_groups)
    graded: tuple | None = None


# Rows of a 2-D input are processed in chunks of about this many bytes of
# y_score, spread over threads (numpy releases the GIL in partition, sort
# and reductions).  A chunk and its temporaries stay in the CPU caches, and
# the per-chunk Python overhead stays small next to its work.  The chunks
# do not depend on the thread count, and no result depends on the chunks
# (figures: benchmarks/README.md, E3).
_CHUNK_BYTES = 4 << 20

# ... and, when the per-rank arrays are wide (k=None, or a large k), of at
# most this many bytes per (n_rows, K) float64 array.  A dozen such
# temporaries are made per chunk; at 4 MiB each, the allocator hands their
# pages back to the system and takes them again for every chunk; at
# 512 KiB they are reused (benchmarks/README.md, E4).
_RANK_CHUNK_BYTES = 512 << 10


def _row_chunks(n_rows, row_bytes, rank_width=0):
    """``(start, stop)`` row ranges of about ``_CHUNK_BYTES`` of scores
    each, fewer rows if their per-rank arrays of ``rank_width`` columns
    would exceed ``_RANK_CHUNK_BYTES``."""
    step = _CHUNK_BYTES // max(row_bytes, 1)
    if rank_width:
        step = min(step, _RANK_CHUNK_BYTES // (8 * rank_width))
    step = max(1, step)
    return [(a, min(a + step, n_rows)) for a in range(0, n_rows, step)]


def _map_chunks(func, chunks):
    """``[func(start, stop) for each chunk]``, on several threads if the
    configuration allows (see :func:`~sklearn_rankmetrics.set_config`)."""
    n_threads = effective_n_threads(len(chunks))
    if n_threads == 1:
        return [func(a, b) for a, b in chunks]
    # imported when first used: the command line's start-up does not pay
    # for concurrent.futures (and logging)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(n_threads) as pool:
        return list(pool.map(func, *zip(*chunks, strict=True)))


def _dense_top(S, K, ignore_ties, canonical=True):
    """Each row's K best items, sorted by decreasing score, and its cut group.

    Returns ``idx, top, rows, (r, c), ties``: the (n, K) column indices and
    scores of the top K (equal scores ordered by column), the rows whose tie
    group at rank K continues past it, the (row, column) positions of every
    item of those groups, and False if no two of those scores are equal.
    With ``ignore_ties`` the top K takes the earliest columns of that group.
    Raises on NaN scores.  ``canonical=False`` (see :func:`_sums_exact`)
    lets a whole-row sort (K >= the row length) leave equal scores in the
    sort's order.

    ``argpartition`` keeps a few more candidates than K, so the group cut by
    K is almost always among them: every other item scores at most the
    smallest candidate, so only the rows whose K-th score equals it are
    counted over the full row, and only the rows where the group is larger
    than the candidates are redone on their full rows.
    """
    n, m = S.shape
    empty = np.zeros(0, dtype=np.intp)
    C = min(m, 2 * K + 16)  # candidates
    if C >= m:  # every item is a candidate
        idx, cand, ties = _sort_rows(S, canonical or ignore_ties or K < m)
        if K >= m:
            return idx, cand, empty, (empty, empty), ties
    else:
        idx = np.argpartition(S, m - C, axis=1)[:, m - C :]
        cand = _take_rows(S, idx)
        if np.isnan(cand).any():  # partitions rank NaN above every number
            raise_nan_scores()
        # The candidates in decreasing order, equal scores by column: a
        # default sort, then the rare runs of equal scores put in column
        # order (cheaper than a stable sort of -cand after a sort of the
        # columns: benchmarks/README.md, E5).
        order = np.argsort(cand, axis=1)[:, ::-1]
        idx = _take_rows(np.ascontiguousarray(idx), order)
        cand = _take_rows(cand, order)
        ties = _columns_in_runs(idx, cand, m)
    floor = cand[:, -1]  # the smallest candidate: every other item <= it

    t = cand[:, K - 1]
    tied = cand == t[:, None]
    n_eq_cand = np.count_nonzero(tied, axis=1)
    n_eq = n_eq_cand
    edge = np.flatnonzero(t == floor) if C < m else empty
    if edge.size:  # the K-th score is the smallest candidate's
        n_eq = n_eq_cand.copy()
        n_eq[edge] = np.count_nonzero(S[edge] == t[edge, None], axis=1)
    crossing = (n_eq > np.count_nonzero(tied[:, :K], axis=1)) & (t > -np.inf)
    overflow = crossing & (n_eq > n_eq_cand)
    tied &= (crossing & ~overflow)[:, None]
    r, j = np.nonzero(tied)
    c = idx[r, j]
    for_rows = np.flatnonzero(overflow)
    if for_rows.size:  # the cut group spills out of the candidates
        r_o, c_o = np.nonzero(S[for_rows] == t[for_rows, None])
        r, c = np.concatenate([r, for_rows[r_o]]), np.concatenate([c, c_o])
        if ignore_ties:
            full = np.argsort(-S[for_rows], axis=1, kind="stable")[:, :K]
            idx[for_rows, :K] = full
            cand[for_rows, :K] = np.take_along_axis(S[for_rows], full, axis=1)
    return idx[:, :K], cand[:, :K], np.flatnonzero(crossing), (r, c), ties


def _take_rows(A, idx):
    """``np.take_along_axis(A, idx, axis=1)`` for 2-D arrays, C-ordered.

    One gather at flat indices, cheaper than take_along_axis, which builds
    a two-array fancy index (benchmarks/README.md, E6).
    """
    if not A.flags.c_contiguous:
        return np.take_along_axis(A, idx, axis=1)
    n, m = A.shape
    flat = idx + np.arange(0, n * m, m)[:, None]
    return np.take(A.reshape(-1), flat)


def _columns_in_runs(idx, top, n_columns):
    """Put the columns ``idx`` (C-ordered, in ``[0, n_columns)``) in
    increasing order, in place, within each run of equal values of ``top``
    along its rows, ``top`` being sorted decreasingly.  Returns whether
    there was any such run.

    Numpy's default sort is not stable (a stable one is 3x slower on
    float64): this makes its order canonical -- equal scores by column,
    whatever the input form -- at the cost of the tied items only.
    """
    n, m = top.shape
    if m < 2:
        return False
    tie = top[:, 1:] == top[:, :-1]
    n_tied = np.count_nonzero(tie)
    if not n_tied:
        return False
    assert idx.flags.c_contiguous  # so that the views below write to idx
    if 4 * n_tied > tie.size:
        # Ties everywhere (scores of few distinct values): one sort of
        # every row by (run within the row, column), in place: cheaper
        # than the runs alone below (benchmarks/README.md, E7).
        run = np.empty((n, m), dtype=np.int64)
        run[:, 0] = 0
        np.cumsum(~tie, axis=1, out=run[:, 1:])
        run *= n_columns
        idx += run
        idx.sort(axis=1)
        idx -= run
        return True
    member = np.zeros((n, m), dtype=bool)
    member[:, 1:] = tie
    member[:, :-1] |= tie
    at = np.flatnonzero(member)
    new_run = np.ones((n, m), dtype=bool)
    new_run[:, 1:] = ~tie
    run = (np.cumsum(new_run.ravel()) - 1)[at]
    flat = idx.reshape(-1)
    base = run * n_columns  # runs are consecutive
    flat[at] = np.sort(base + flat[at]) - base  # sorts within each run
    return True


def _sort_rows(S, canonical=True):
    """Column indices and scores of each row sorted by decreasing score,
    equal scores by column (or, if not ``canonical``, in the sort's own
    order), and whether two scores of a row are equal.

    The whole-row sort (k=None) is numpy's default sort, not a stable one
    (3x slower on float64), ascending and read backwards (no negated copy
    of ``y_score``); only the runs of equal scores it finds are then put
    in column order (figures: benchmarks/README.md, E8).
    """
    n, m = S.shape
    S = np.ascontiguousarray(S)
    offsets = np.arange(0, n * m, m)[:, None]
    idx = np.argsort(S, axis=1)[:, ::-1] + offsets  # flat positions
    top = np.take(S.reshape(-1), idx)
    if np.isnan(top[:, 0]).any():  # the sort puts NaN last, read first
        raise_nan_scores()
    idx -= offsets  # columns
    if canonical:
        ties = _columns_in_runs(idx, top, m)
    else:
        ties = m > 1 and bool((top[:, 1:] == top[:, :-1]).any())
    return idx, top, ties


def _dense_top_chunked(S, K, ignore_ties):
    """:func:`_dense_top` over row chunks, on threads."""
    chunks = _row_chunks(S.shape[0], S.shape[1] * S.itemsize, K)
    parts = _map_chunks(lambda a, b: _dense_top(S[a:b], K, ignore_ties), chunks)
    if len(parts) == 1:
        return parts[0]
    starts = [a for a, _ in chunks]
    return (
        np.concatenate([p[0] for p in parts]),
        np.concatenate([p[1] for p in parts]),
        np.concatenate([p[2] + a for p, a in zip(parts, starts, strict=True)]),
        (
            np.concatenate([p[3][0] + a for p, a in zip(parts, starts, strict=True)]),
            np.concatenate([p[3][1] for p in parts]),
        ),
        any(p[4] for p in parts),
    )


def _record_cut(n, rows, item_query, item_grade, threshold, gain):
    """:class:`CutGroups` of the queries ``rows`` (of ``n``), from the query
    and grade of every item of their groups cut by rank K."""
    if rows.size == 0:
        return _NO_CUT
    relevant = _relevant(item_grade, threshold)
    gains = _gain(item_grade, gain)
    return CutGroups(
        rows=rows,
        size=np.bincount(item_query, minlength=n)[rows].astype(np.float64),
        relevant=np.bincount(item_query, weights=relevant, minlength=n)[rows],
        gain=np.bincount(item_query, weights=gains, minlength=n)[rows],
    )


def _select_dense(Y, S, K, threshold, gain, ignore_ties, need_ideal):
    """Selection of the dense 2-D form, built on row chunks (on threads).

    The grades' values are checked here, chunk by chunk, while the chunk is
    in cache (:func:`rank` asks :func:`check_inputs` to leave them).  Each
    chunk writes its rows of the result, so that k=None needs no
    concatenation of full-size arrays.
    """
    n = S.shape[0]
    chunks = _row_chunks(n, S.shape[1] * S.itemsize, min(K, S.shape[1]))
    if len(chunks) == 1:
        return _select_dense_rows(Y, S, K, threshold, gain, ignore_ties, need_ideal)
    K = min(K, S.shape[1])
    out = {
        "top_score": np.empty((n, K)),
        "top_rel": np.empty((n, K)),
        "n_rel": np.empty(n, dtype=np.intp),
        "n_pos": np.empty(n, dtype=np.intp),
        "n_retrieved": np.empty(n, dtype=np.intp),
        "ideal": np.empty((n, K)) if need_ideal else None,
    }

    def select_rows(a, b):
        part = _select_dense_rows(
            Y[a:b], S[a:b], K, threshold, gain, ignore_ties, need_ideal
        )
        for name, array in out.items():
            if array is not None:
                array[a:b] = getattr(part, name)
        return part.cut, part.maybe_ties

    cuts, ties = zip(*_map_chunks(select_rows, chunks), strict=True)
    starts = [a for a, _ in chunks]
    cut = CutGroups(
        rows=np.concatenate([c.rows + a for c, a in zip(cuts, starts, strict=True)]),
        size=np.concatenate([c.size for c in cuts]),
        relevant=np.concatenate([c.relevant for c in cuts]),
        gain=np.concatenate([c.gain for c in cuts]),
    )
    return Selection(cut=cut, maybe_ties=any(ties), **out)


def _select_dense_rows(Y, S, K, threshold, gain, ignore_ties, need_ideal):
    n, m = S.shape
    positive = Y != 0  # NaN too: negative and NaN grades are refused below
    n_pos = _row_counts(positive)
    graded = None
    if need_ideal and Y.dtype.kind != "b" and 4 * int(n_pos.max(initial=0)) <= m:
        # Few graded items per row (the usual case): the ideal ranking sorts
        # those only, and they alone need checking (every negative, NaN or
        # infinite grade is among them): a pass over y_true less.  A take
        # at the flat positions is faster than the boolean index
        # Y[positive] (benchmarks/README.md, E9).
        graded = np.take(Y.reshape(-1), np.flatnonzero(positive))
    check_grade_values(Y if graded is None else graded)
    canonical = not _sums_exact(Y, graded, gain)
    placed = None
    if K >= m and 4 * int(n_pos.max(initial=0)) <= m:
        placed = _sort_values_place_graded(Y, S, positive, canonical or ignore_ties)
    graded_at = None
    if placed is not None:  # k=None: the scores sorted, the graded items placed
        top, top_rel, ties, graded_at = placed
        cut = _NO_CUT
    else:
        idx, top, rows, (r, c), ties = _dense_top(S, K, ignore_ties, canonical)
        cut = (
            _NO_CUT
            if ignore_ties
            else _record_cut(n, rows, r, Y[r, c], threshold, gain)
        )
        top_rel = _take_rows(Y, idx).astype(np.float64)
    if threshold is None:
        n_rel = n_pos
    else:
        n_rel = _row_counts(_relevant(Y, threshold))
    if K == 0 or (top[:, -1] > -np.inf).all():  # sorted: -inf scores last
        n_retrieved = np.full(n, K, dtype=np.intp)
    else:
        n_retrieved = np.count_nonzero(top > -np.inf, axis=1)
    return Selection(
        top_score=top,
        top_rel=top_rel,
        cut=cut,
        n_rel=n_rel,
        n_pos=n_pos,
        # Only read with k=None, where the top "K" is every item of the row.
        n_retrieved=n_retrieved,
        ideal=_dense_ideal(Y, positive, n_pos, graded, K, gain) if need_ideal else None,
        maybe_ties=ties,
        graded=graded_at,
    )


def _sort_values_place_graded(Y, S, positive, in_column_order):
    """The whole-row ranking (k=None) of few graded items: ``(top,
    top_rel, ties)`` as :func:`_sort_rows` and a gather of ``Y`` would
    give, from a sort of the scores' values (numpy's vectorised sort, 3x
    faster than ``argsort``) and each graded item's place among them.

    An item of score ``v`` is placed at the first free rank of the run of
    ``v`` in its row (rank ``1 +`` the items scored above ``v``, found by a
    binary search of the sorted row); every other rank holds a grade 0.
    Equal scores then hold their items in another order than by column:
    returns None if some row has equal scores and ``in_column_order``
    (``ignore_ties``, or sums of gains that depend on their order; see
    :func:`_sums_exact`); the tie groups' statistics do not depend on that
    order otherwise.  Without equal scores every rank is determined.
    """
    n, m = S.shape
    # -S sorted in place, then negated back in place: the scores in
    # decreasing order in one array (NaN last)
    top = np.negative(S, order="C")
    top.sort(axis=1)
    np.negative(top, out=top)
    if m and np.isnan(top[:, -1]).any():
        raise_nan_scores()
    ties = m > 1 and bool((top[:, 1:] == top[:, :-1]).any())
    if ties and in_column_order:
        return None
    flat = np.flatnonzero(positive)
    grades = np.take(Y.reshape(-1), flat)
    if S.flags.c_contiguous:
        v = np.take(S.reshape(-1), flat)
    else:
        v = S[flat // m, flat % m]
    row_start = flat - flat % m
    # Vectorised binary search, in every graded item's row at once, of
    # the items scored above v: the first rank (0-based) of v's run.
    # Every row has m items, so the search interval [base, base + width]
    # has the same width for all: no bounds to check, four operations per
    # halving.
    sorted_flat = top.reshape(-1)
    base = row_start.copy()
    probe = np.empty_like(base)
    probed = np.empty(base.size)
    gt = np.empty(base.size, dtype=bool)
    width = m
    while width > 1:
        half = width // 2
        np.add(base, half, out=probe)
        sorted_flat.take(probe, out=probed)
        np.greater(probed, v, out=gt)
        base += gt * half
        width -= half
    base += np.take(sorted_flat, base) > v
    pos = base - row_start
    if ties:  # items of one run take its first ranks, one each
        key = row_start + pos
        order = np.argsort(key, kind="stable")
        k = key[order]
        new = np.empty(k.size, dtype=bool)
        new[:1] = True
        np.not_equal(k[1:], k[:-1], out=new[1:])
        first = np.flatnonzero(new)
        within = np.arange(k.size) - np.repeat(first, np.diff(first, append=k.size))
        pos[order] += within
    at = row_start + pos
    top_rel = np.zeros((n, m))
    top_rel.reshape(-1)[at] = grades
    return top, top_rel, ties, (at, top_rel.reshape(-1)[at])


def _sums_exact(Y, graded, gain):
    """Whether every sum of a row's gains (and relevance flags) is exact in
    any order of its terms: integer grades whose gains, times the row
    length, stay below 2**53.

    Then the order of tied items within a run of equal scores changes no
    tie-group statistic, and a whole-row sort (k=None) may leave them in
    the sort's own order instead of column order (a second sort of every
    tied run; benchmarks/bench_full_ranking.py's scores with ties).
    """
    if Y.dtype.kind == "b":
        return True
    if Y.dtype.kind not in "iu" or Y.size == 0:
        return Y.size == 0
    top = float((Y if graded is None else graded).max(initial=0))
    if top >= 53.0:  # 2**top - 1 is not exact (and may overflow)
        return gain != "exponential" and top * Y.shape[1] < 2.0**53
    largest = 2.0**top - 1.0 if gain == "exponential" else top
    return largest * Y.shape[1] < 2.0**53


def _row_counts(mask):
    """``np.count_nonzero(mask, axis=1)`` for a 2-D boolean ``mask``.

    Summing its bytes into 16-bit counters is 5x faster than
    ``count_nonzero`` (a cast to bool, then a sum into int64).
    """
    acc = np.uint16 if mask.shape[1] < 1 << 16 else np.intp
    return np.add.reduce(mask.view(np.uint8), axis=1, dtype=acc).astype(np.intp)


def _dense_ideal(Y, positive, n_pos, graded, K, gain):
    """(n, K) gains of each row's K best grades, descending, without a sort
    of the whole matrix where the grades allow it; ``positive`` marks the
    grades > 0, ``n_pos`` counts them per row, and ``graded`` holds them
    (``Y[positive]``) when they are few (at most a quarter of a row)."""
    n, m = Y.shape
    if Y.dtype.kind == "b":  # binary relevance: n_pos ones, then zeros
        return _gain(np.arange(K) < n_pos[:, None], gain)
    if graded is not None:
        # Sort the graded items only, not a partition of Y.  Binary
        # integer grades are told from the graded items, not by a pass
        # over Y (benchmarks/README.md, E10).
        if Y.dtype.kind in "iu" and graded.max(initial=0) <= 1:
            return _gain(np.arange(K) < n_pos[:, None], gain)
        width = int(n_pos.max())
        first = np.cumsum(n_pos) - n_pos
        rows = np.repeat(np.arange(n), n_pos)
        best = np.zeros((n, width), dtype=Y.dtype)
        best[rows, np.arange(rows.size) - first[rows]] = graded
    elif Y.dtype.kind in "iu" and Y.max() <= 1:
        return _gain(np.arange(K) < n_pos[:, None], gain)
    else:
        best = Y
    w = best.shape[1]
    if K < w:
        best = np.partition(best, w - K, axis=1)[:, w - K :]
    # A C-ordered copy: the metrics' sums along rows must not depend on the
    # memory layout of Y.
    ideal = np.zeros((n, K), dtype=np.float64)
    ideal[:, : best.shape[1]] = np.sort(best, axis=1)[:, ::-1]
    return _gain(ideal, gain)


def _csr_values(Y, rows, cols):
    """``Y[rows, cols]`` as float64 for a canonical CSR ``Y`` (broadcasting
    ``rows`` against ``cols``), found by binary search in its structure."""
    n, m = Y.shape
    keys = np.repeat(np.arange(n, dtype=np.int64), np.diff(Y.indptr)) * m
    keys += Y.indices
    wanted = rows.astype(np.int64) * m + cols
    out = np.zeros(wanted.shape, dtype=np.float64)
    if keys.size:
        pos = np.minimum(np.searchsorted(keys, wanted), keys.size - 1)
        found = keys[pos] == wanted
        out[found] = Y.data[pos[found]]
    return out


def _select_sparse(Y, S, K, threshold, gain, ignore_ties, need_ideal):
    n = S.shape[0]
    idx, top, rows, (r, c), ties = _dense_top_chunked(S, K, ignore_ties)
    nz_row = np.repeat(np.arange(n, dtype=np.intp), np.diff(Y.indptr))
    data = Y.data
    if ignore_ties:
        cut = _NO_CUT
    else:
        cut = _record_cut(n, rows, r, _csr_values(Y, r, c), threshold, gain)
    n_rel = np.bincount(nz_row, weights=_relevant(data, threshold), minlength=n)
    return Selection(
        top_score=top,
        top_rel=_csr_values(Y, np.arange(n, dtype=np.intp)[:, None], idx),
        cut=cut,
        n_rel=n_rel.astype(np.intp),
        n_pos=np.bincount(nz_row, weights=data > 0, minlength=n).astype(np.intp),
        # Only read with k=None, where the top "K" is every item of the row.
        n_retrieved=np.count_nonzero(top > -np.inf, axis=1),
        ideal=_ideal_from_entries(nz_row, data, n, K, gain) if need_ideal else None,
        maybe_ties=ties,
    )


def _tie_order_free(grades, gain):
    """Whether no value of the long form depends on the order of its tied
    rows: linear gain and integer grades whose sums over all these rows
    stay below 2**53 (binary clicks, graded judgments), so that every sum
    of them is exact in any order.  Then the tied rows are sorted stably,
    by radix passes (:func:`_argsort_desc`).  Fractional grades (IPS
    weights), gain tables and the exponential gain (``expm1`` does not
    always give an integer) keep the comparison sort's order, with which
    their values were first computed, bit for bit (as :func:`_sums_exact`
    decides the same for a whole row of the 2-D form)."""
    if not (isinstance(gain, str) and gain == "linear") or grades.size == 0:
        return False
    g = np.asarray(grades, dtype=np.float64)
    top = float(np.abs(g).max())  # nan or inf: False below
    return top * g.size < 2.0**53 and bool(np.all(g == np.floor(g)))


def _select_long(y, s, codes, n_q, k, threshold, gain, ignore_ties, need_ideal, K=None):
    """Selection of the long form: ``codes`` numbers each row's query.

    Rows of a query may be anywhere.  The retrieved rows are sorted once by
    decreasing score (stable only with ``ignore_ties``, where row order
    breaks ties) and grouped by query with a radix pass; every other count
    is a ``bincount`` over the rows.  ``K`` is ``min(k, largest query)``
    unless given (a part of the queries, see :func:`rank_parts`), so that
    the ideal ranking (IDCG) sees every relevant row.
    """
    if K is None:
        largest = int(np.bincount(codes, minlength=n_q).max())
        K = largest if k is None else min(k, largest)
    retrieved = s > -np.inf
    if retrieved.all():
        c_r, s_r, y_r = codes, s, y
    else:  # unretrieved rows take no rank: leave them out of the sort
        rows_r = np.flatnonzero(retrieved)
        c_r, s_r, y_r = codes[rows_r], s[rows_r], y[rows_r]
    top, top_rel = _segment_top(
        c_r,
        s_r,
        n_q,
        K,
        (y_r,),
        (-np.inf, 0.0),
        stable=ignore_ties or _tie_order_free(y_r, gain),
    )
    # With ignore_ties the stable sort already kept the earliest rows of the
    # cut group; otherwise record the group's full counts.
    cut = _NO_CUT
    if not ignore_ties:
        t = top[:, K - 1]
        at_cut = s_r == t[c_r]
        c_cut = c_r[at_cut]
        n_eq = np.bincount(c_cut, minlength=n_q)
        n_eq_top = np.count_nonzero(top == t[:, None], axis=1)
        rows = np.flatnonzero((n_eq > n_eq_top) & (t > -np.inf))
        cut = _record_cut(n_q, rows, c_cut, y_r[at_cut], threshold, gain)
    positive = y > 0
    c_pos, y_pos = codes[positive], y[positive]
    n_pos = np.bincount(c_pos, minlength=n_q)
    if threshold is None:
        n_rel = n_pos
    else:
        n_rel = np.bincount(c_pos[_relevant(y_pos, threshold)], minlength=n_q)
    return Selection(
        top_score=top,
        top_rel=top_rel,
        cut=cut,
        n_rel=n_rel,
        n_pos=n_pos,
        n_retrieved=np.bincount(c_r, minlength=n_q),
        ideal=_ideal_from_entries(c_pos, y_pos, n_q, K, gain) if need_ideal else None,
    )
