"""The ranking engine shared by every metric.

Every input form (dense 2-D, sparse ``y_true``, long form with ``query_id``)
is reduced to the same padded, per-rank description of each query's top-k:

1. **selection** (one builder per input form): the ``K`` best-scored items of
   every query, sorted by decreasing score, padded with ``-inf``; their
   relevance grades; and, for the tie group cut by ``k``, that group's size,
   relevant count and gain sum over *all* the query's items (the only group
   that can extend past the cut).
2. **tie groups** (:func:`_tie_groups`): for every rank ``i`` the group of
   tied items it belongs to -- its first rank (``a`` in the SPEC appendix),
   size (``g``), relevant count (``r``), relevant items in earlier groups
   (``h``) and mean gain.  Each ordering of a group being equally likely,
   rank ``i`` holds a relevant item with probability ``r / g``; all metrics
   are closed-form sums over ranks of these quantities, so ties cost O(k)
   per query.  The result is an immutable :class:`Ranking`.

With ``ignore_ties=True`` every item is its own group, ordered by position.

No step loops over queries in Python.
"""

import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from ._config import effective_n_threads
from ._validation import (
    _as_array,
    check_grade_values,
    check_k,
    check_query_id,
    check_sample_weight,
    check_y_score,
    check_y_true_dense,
    check_y_true_sparse,
    issparse,
    raise_nan_scores,
    undefined_metric_warning,
)

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
    (a gain table or the user's; checked in ``_ranking.check_gain``)."""
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


def _argsort_desc(key, stable):
    """Indices that sort ``key`` (float64) in decreasing order.

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
    (ideal,) = _segment_top(seg, grades, n_seg, K, (), (0.0,), stable=False)
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
        c_r, s_r, n_q, K, (y_r,), (-np.inf, 0.0), stable=ignore_ties
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


# ---------------------------------------------------------------------------
# Input dispatch
# ---------------------------------------------------------------------------
def check_inputs(
    y_true,
    y_score,
    query_id,
    sample_weight,
    row_weights=False,
    defer=False,
    factorize=True,
):
    """Validate the data arguments and tell which input form they are.

    Returns ``(form, y_true, y_score, codes, query_ids, weights)`` where
    ``form`` is "dense", "sparse" or "long"; for the long form ``codes``
    numbers the queries 0..n_queries-1 in the order of ``query_ids``
    (``np.unique`` order) and ``weights`` are per query, unless
    ``row_weights`` keeps the long form's weights per row.

    With ``defer``, the dense 2-D form's grade values (sign, finiteness) and
    NaN scores are left to the caller, which checks them chunk by chunk
    (:func:`_select_dense`).  With ``factorize=False`` and integer or
    object query ids (and no ``sample_weight``), ``codes`` is None and
    ``query_ids`` are the ids as given, one per row (:func:`check_query_id`).
    """
    if query_id is not None:
        for name, x in (("y_true", y_true), ("y_score", y_score)):
            if issparse(x):
                raise TypeError(
                    f"query_id is given, so {name} must be a dense 1-D array "
                    "(the long form, one row per (query, item) pair), not a "
                    "sparse matrix. Drop query_id to pass a sparse 2-D y_true "
                    "with a dense 2-D y_score."
                )
        y = _long_array("y_true", y_true)
        s = _long_array("y_score", y_score)
        y = check_y_true_dense(y, ndim=1)
        s = check_y_score(s, ndim=1)
        if y.shape != s.shape:
            raise ValueError(
                f"y_true and y_score must have the same length, got "
                f"{y.shape[0]} and {s.shape[0]}."
            )
        codes, ids = check_query_id(
            query_id, s.shape[0], factorize=factorize or sample_weight is not None
        )
        w = check_sample_weight(sample_weight, s.shape[0], "row")
        if w is not None and not row_weights:
            w = query_weights(w, codes, ids)
        return "long", y, s, codes, ids, w

    if issparse(y_true):
        s = check_y_score(y_score, ndim=2)
        Y = check_y_true_sparse(y_true)
        form = "sparse"
    else:
        Y = check_y_true_dense(y_true, ndim=None, check_values=False)
        if Y.ndim == 1:
            raise ValueError(
                "y_true is 1-D: pass query_id=... (one id per row) for the "
                "long form, or 2-D arrays with one query per row."
            )
        if Y.ndim != 2:
            raise ValueError(f"y_true must be 2-D, got shape {Y.shape}.")
        if not defer:
            check_grade_values(Y)
        s = check_y_score(y_score, ndim=2, check_nan=not defer)
        form = "dense"
    if Y.shape != s.shape:
        raise ValueError(
            f"y_true and y_score must have the same shape (n_queries, "
            f"n_items), got {Y.shape} and {s.shape}."
        )
    w = check_sample_weight(sample_weight, s.shape[0], "query (row)")
    return form, Y, s, None, None, w


def query_weights(row_w, codes, ids, hint=""):
    """One weight per query from the long form's row weights, which must be
    constant within each query (ValueError naming the first query that is
    not; ``hint`` is added to the message)."""
    w_q = np.zeros(ids.shape[0])
    w_q[codes] = row_w
    differ = np.flatnonzero(w_q[codes] != row_w)
    if differ.size:
        bad = ids[codes[differ[0]]]
        bad = bad.item() if isinstance(bad, np.generic) else bad
        raise ValueError(
            "sample_weight must be constant within each query in the long form "
            "(it is that query's weight); found different weights for rows of "
            f"query_id={bad!r}.{hint}"
        )
    return w_q


def _long_array(name, x):
    arr = _as_array(name, x)
    if arr.ndim != 1:
        raise ValueError(
            f"query_id is given, so {name} must be 1-D (the long form, one "
            f"row per (query, item) pair); got shape {arr.shape}. "
            + (
                "If it is predict_proba's output, pass the positive class's "
                "column, y_score[:, 1]. "
                if name == "y_score" and arr.shape[1:] == (2,)
                else ""
            )
            + "Drop query_id to pass 2-D arrays with one query per row."
        )
    return arr


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
    """``retrieved`` and the :class:`TieGroups` of a selection."""
    top, rel = sel.top_score, sel.top_rel
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
    if ignore_ties or sel.maybe_ties is False or _no_ties(top, sel.cut):
        # Every item is its own group.  Without ties (continuous scores)
        # this is also exact, and the group counts become broadcast
        # views: 3 arrays of the size of y_score less than the run
        # numbering below.
        def before():
            out = np.cumsum(relevant(), axis=1)
            out -= relevant()  # in place: one full-size array less
            return out

        return retrieved, TieGroups(
            dict(
                group_start=lambda: np.broadcast_to(np.arange(1.0, K + 1), (n, K)),
                group_size=lambda: np.broadcast_to(1.0, (n, K)),
                group_relevant=relevant,
                relevant_before=before,
                p_relevant=relevant,
                mean_gain=gains,
            )
        )
    # The runs of equal scores are contiguous in the flattened (n, K) array
    # (a new query always starts a new run): their sums are segment sums
    # and their per-rank values repetitions, no run number per rank,
    # bincounts or gathers (benchmarks/README.md, E13).
    new = np.empty((n, K), dtype=bool)
    new[:, 0] = True
    np.not_equal(top[:, 1:], top[:, :-1], out=new[:, 1:])
    start = np.flatnonzero(new.ravel())
    length = np.empty_like(start)  # ranks of each run in the top K
    np.subtract(start[1:], start[:-1], out=length[:-1])
    length[-1:] = n * K - start[-1:]
    cut = sel.cut
    # the groups cut by k: use their full counts
    last = np.searchsorted(start, cut.rows * K + (K - 1), side="right") - 1

    def with_cut(per_run, full):
        per_run[last] = full
        return per_run

    size = _once(lambda: with_cut(length.astype(np.float64), cut.size))
    if sel.graded is None:
        n_relevant = _once(
            lambda: with_cut(np.add.reduceat(relevant().ravel(), start), cut.relevant)
        )
        gain_sum = _once(
            lambda: with_cut(np.add.reduceat(gains().ravel(), start), cut.gain)
        )
    else:
        # Every other rank holds a grade 0: the runs' sums over the graded
        # items only, exact in any order (placed ties: _sums_exact)
        at, grade = sel.graded
        run_of = _once(lambda: np.searchsorted(start, at, side="right") - 1)
        kept = _once(lambda: np.take(top.reshape(-1), at) > -np.inf)

        def graded_sum(values):
            values = np.where(kept(), values, 0.0)
            return np.bincount(run_of(), weights=values, minlength=start.size)

        n_relevant = _once(
            lambda: with_cut(graded_sum(_relevant(grade, threshold)), cut.relevant)
        )
        gain_sum = _once(lambda: with_cut(graded_sum(_gain(grade, gain)), cut.gain))
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

    return retrieved, TieGroups(
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


# ---------------------------------------------------------------------------
# Averaging over queries
# ---------------------------------------------------------------------------
def _undefined(what):
    warnings.warn(
        f"{what}: no query could be scored (every query was skipped or had "
        "zero weight); returning nan.",
        undefined_metric_warning(),
        stacklevel=3,
    )
    return float("nan")


def weighted_sum(w, values):
    """``sum(w * values)`` for 1-D arrays, the same bit for bit whatever the
    machine's BLAS threads.

    ``np.dot`` splits vectors of more than 10,000 items over OpenBLAS's
    threads, whose partial sums change the last bit with their number
    (1 in a joblib worker or under threadpoolctl, the CPUs elsewhere), and
    its idle threads spin: a long-form ``ndcg_at_k`` of 12,500 queries took
    twice its wall time in CPU.  numpy's own pairwise sum does neither.
    """
    return float(np.add.reduce(w * values))


def average_queries(
    values, defined, weights, average, no_relevant, name, lacking="no relevant item"
):
    """Combine per-query values under ``no_relevant`` and ``average``.

    ``defined`` marks the queries where the metric is defined (most have a
    relevant item; ``lacking`` says what the others lack, see
    ``_ranking.UNDEFINED_WHEN``).
    """
    if no_relevant == "raise" and not defined.all():
        raise ValueError(
            f"{np.count_nonzero(~defined)} queries have {lacking}, so "
            f"{name} is undefined for them. Pass no_relevant='skip' to leave "
            "them out, or a number (e.g. 0.0) to score them."
        )
    if isinstance(no_relevant, float):
        values = np.where(defined, values, no_relevant)
        keep = np.ones_like(defined)
    else:
        values = np.where(defined, values, np.nan)
        keep = defined
    if average is None:
        return values
    mean = weighted_mean(values, weights, keep)
    return _undefined(name) if np.isnan(mean) else mean


def weighted_mean(values, weights=None, keep=None):
    """The one mean over queries of every surface (the metric functions,
    the report, the mergeable state, the comparison, the Displays, the
    command line): ``sum(w * v) / sum(w)`` over the queries in ``keep``
    (default: those whose value is not nan); nan, without a warning, if
    their weights sum to 0.

    Both sums are numpy's pairwise sums (:func:`weighted_sum`), so the
    result is the same bit for bit wherever it is computed.  The mergeable
    state keeps the two sums (:func:`weighted_totals`) and divides them
    when asked (:func:`mean_of_totals`): the same two steps.
    """
    return mean_of_totals(*weighted_totals(values, weights, keep))


def weighted_totals(values, weights=None, keep=None):
    """``(sum(w * v), sum(w))`` over the queries in ``keep`` (default: the
    non-nan values): the two sums of :func:`weighted_mean`."""
    values = np.asarray(values, dtype=np.float64)
    if keep is None:
        keep = ~np.isnan(values)
    w = np.ones(values.shape[0]) if weights is None else np.asarray(weights)
    w = w[keep]
    return weighted_sum(w, values[keep]), float(w.sum())


def mean_of_totals(total, weight):
    """``total / weight``, nan if the weight is 0 (no query scored)."""
    return float(total) / float(weight) if weight != 0 else float("nan")


def pooled_ratio(num, den, keep, weights, name):
    """Micro average: sum of weighted numerators over weighted denominators."""
    w = np.ones(num.shape[0]) if weights is None else weights
    w = w[keep]
    den = weighted_sum(w, den[keep])
    if w.sum() == 0:
        return _undefined(name)
    if den == 0:
        return 0.0
    return weighted_sum(w, num[keep]) / den
