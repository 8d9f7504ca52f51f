"""Benchmark: the long form and the sparse form (a benchmark, not a test).

Part (a), long form: 2,000,000 rows over 100,000 queries (1-40 rows each,
rows shuffled, graded relevance on ~10 % of the rows).  Times ``ndcg_at_k``
(k=10, ties averaged) and ``group_auc_score`` against the time of
``np.lexsort((-y_score, query_id))`` alone on the same arrays, measured in
the same run, with query ids spread over the int64 range (issue 9 targets:
<= 0.8x, <= 1.5x with string ids), and the peak memory each call allocates
beyond its inputs (tracemalloc; target <= 3x the three input arrays).
Then the text-id calls against the int64-id calls of the same queries,
interleaved (issue 31: <= 1.3x), with the ids as an object array of str
(what pandas' ``to_numpy`` gives) and as a numpy ``U`` array (``user123``:
ids that differ in few bits, packed into exact integer keys), and as a
``U`` array of random 32-character hex ids (UUIDs: hashed, every row
checked).  ``--part text-ids`` runs this comparison alone.

With ``k=None`` each query is ranked whole; the last line makes one
query of about 100,000 rows out of 5 % of the queries, which a ranking
padded to the largest query could not hold (issue 9).

Part (b), sparse relevance: 20,000 users x 200,000 items with 0.05 % of the
items relevant (a CSR ``y_true``), dense ``y_score`` generated chunk by
chunk of users.  Reports the peak traced memory of the whole loop against
the size of one chunk's scores (it must stay O(chunk), whatever the number
of users), and the time per user of the sparse path against the dense path
(``y_true`` chunk densified beforehand) on the same chunks (target: <= 2x).

Timings are the best of ``--repeat`` runs.  Run from the repository root::

    python benchmarks/bench_forms.py [--part long|sparse|both|text-ids]
        [--rows 2000000] [--queries 100000] [--users 20000]
        [--items 200000] [--chunk 500] [--dense-chunks 4]
"""

import argparse
import os
import resource
import time
import tracemalloc
from functools import partial

import numpy as np
import scipy.sparse as sp
from _timing import best_time, paired_times, peak_bytes  # benchmarks/ on sys.path

import sklearn_rankmetrics as rm


# ---------------------------------------------------------------------------
# (a) the long form
# ---------------------------------------------------------------------------
def long_form_data(n_rows, n_queries, rng):
    """Shuffled long form: 1-40 rows per query, exactly ``n_rows`` rows."""
    if not n_queries <= n_rows <= 40 * n_queries:
        raise SystemExit("--rows must be between --queries and 40 x --queries")
    sizes = rng.integers(1, 41, n_queries)
    excess = int(sizes.sum()) - n_rows
    while excess > 0:  # trim one row from random queries that have several
        can = np.flatnonzero(sizes > 1)
        take = min(excess, can.shape[0])
        sizes[rng.choice(can, take, replace=False)] -= 1
        excess -= take
    while excess < 0:
        can = np.flatnonzero(sizes < 40)
        take = min(-excess, can.shape[0])
        sizes[rng.choice(can, take, replace=False)] += 1
        excess += take
    ids = rng.permutation(n_queries)  # small int ids, not in row order
    query_id = np.repeat(ids, sizes)
    perm = rng.permutation(query_id.shape[0])
    query_id = query_id[perm]
    relevant = rng.random(n_rows) < 0.1
    y_true = np.where(relevant, rng.integers(1, 4, n_rows), 0)
    y_score = rng.random(n_rows)
    return y_true, y_score, query_id


def bench_long(args):
    rng = np.random.default_rng(0)
    y, s, qid = long_form_data(args.rows, args.queries, rng)
    r = args.repeat
    big_ids = rng.choice(2**62, size=args.queries, replace=False)[
        np.searchsorted(np.unique(qid), qid)
    ]  # the same queries under int64 ids spread over the whole range
    inputs = y.nbytes + s.nbytes + big_ids.nbytes
    print(
        f"(a) long form: {y.shape[0]:,} rows, {np.unique(qid).shape[0]:,} queries "
        f"(1-40 rows each, shuffled), k=10, best of {r}; load average "
        f"{os.getloadavg()[0]:.1f}; memory: peak traced beyond the inputs, "
        f"/ the three inputs ({inputs / 2**20:.0f} MiB)"
    )
    text_ids_only = args.part == "text-ids"
    if not text_ids_only:
        t_lex = best_time(lambda: np.lexsort((-s, big_ids)), r)
        print(f"  np.lexsort((-y_score, query_id)) alone   {t_lex * 1e3:8.1f} ms")
    s_tied = np.round(s, 2)  # ~100 distinct scores: many ties
    sid = np.array([f"user{i}" for i in range(args.queries)], dtype=object)[qid]
    # The rows of the first 5 % of the queries as one query (~100,000 rows):
    # padded to it, k=None would need n_queries x 100,000 cells.
    qid_skewed = np.where(qid < args.queries // 20, 0, qid)
    cases = [
        ("ndcg_at_k(k=10), spread int64 ids", 0.8, big_ids, "ndcg", s),
        ("group_auc_score, spread int64 ids", 0.8, big_ids, "gauc", s),
        ("ndcg_at_k(k=10), string ids", 1.5, sid, "ndcg", s),
        ("group_auc_score, string ids", 1.5, sid, "gauc", s),
        ("ndcg_at_k(k=10), small int ids", None, qid, "ndcg", s),
        ("ndcg_at_k(k=10, ignore_ties=True)", None, qid, "ndcg_it", s),
        ("ndcg_at_k(k=10), scores with ties", None, qid, "ndcg", s_tied),
        ("average_precision_at_k(k=10)", None, qid, "map", s),
        ("group_auc_score, scores with ties", None, qid, "gauc", s_tied),
        ("ndcg_at_k(k=None)", None, qid, "ndcg_all", s),
        ("ndcg_at_k(k=None), one ~100k-row query", None, qid_skewed, "ndcg_all", s),
    ]
    calls = {
        "ndcg": lambda ids, sc: rm.ndcg_at_k(y, sc, k=10, query_id=ids),
        "ndcg_it": lambda ids, sc: rm.ndcg_at_k(
            y, sc, k=10, query_id=ids, ignore_ties=True
        ),
        "ndcg_all": lambda ids, sc: rm.ndcg_at_k(y, sc, query_id=ids),
        "map": lambda ids, sc: rm.average_precision_at_k(y, sc, k=10, query_id=ids),
        "gauc": lambda ids, sc: rm.group_auc_score(y, sc, query_id=ids),
    }
    if not text_ids_only:
        print(f"  {'':40s} {'time':>11s}   {'/ lexsort':>9s}   {'memory':>16s}")
    for label, target, ids, name, scores in [] if text_ids_only else cases:
        func = partial(calls[name], ids, scores)
        t = best_time(func, r)
        peak = peak_bytes(func)
        goal = "" if target is None else f"  (target <= {target})"
        print(
            f"  {label:40s} {t * 1e3:8.1f} ms   {t / t_lex:9.2f}   "
            f"{peak / 2**20:7.0f} MiB {peak / inputs:5.2f}x{goal}"
        )
    # Issue 31: text ids against the int64 ids of the same queries, the two
    # calls interleaved round by round (median of the rounds' ratios).
    uid = sid.astype(str)  # a numpy "U" array (np.asarray of a list of str)
    # random 32-character hex ids (UUIDs): they differ in far more than 64
    # bits, so they are hashed and checked, not packed
    hid = np.array([rng.bytes(16).hex() for _ in range(args.queries)])[qid]
    print(
        f"  text ids / spread int64 ids, interleaved, {r} rounds "
        "(median ratio; goal of issue 31 <= 1.3):"
    )
    for name, label in (("ndcg", "ndcg_at_k(k=10)"), ("gauc", "group_auc_score")):
        for kind, ids in (("object str", sid), ("U", uid), ("U, hex", hid)):
            t_int, t_str, ratio = paired_times(
                partial(calls[name], big_ids, s), partial(calls[name], ids, s), r
            )
            print(
                f"  {label + ', ' + kind:40s} {t_str * 1e3:8.1f} ms / "
                f"{t_int * 1e3:6.1f} ms = {ratio:5.2f}"
            )


# ---------------------------------------------------------------------------
# (b) sparse relevance, dense scores in chunks of users
# ---------------------------------------------------------------------------
def sparse_relevance(n_users, n_items, density, rng):
    per_user = max(1, round(n_items * density))
    cols = np.concatenate(
        [rng.choice(n_items, per_user, replace=False) for _ in range(n_users)]
    )
    rows = np.repeat(np.arange(n_users), per_user)
    grades = rng.integers(1, 4, rows.shape[0]).astype(np.int8)
    return sp.csr_matrix((grades, (rows, cols)), shape=(n_users, n_items))


def sparse_and_dense_times(y_chunk, s_chunk, values):
    """Best-of-2 times of the sparse and the dense path on one chunk."""
    dense = y_chunk.toarray()
    assert np.array_equal(rm.ndcg_at_k(dense, s_chunk, k=10, average=None), values)
    t_s = best_time(lambda: rm.ndcg_at_k(y_chunk, s_chunk, k=10, average=None), 2)
    t_d = best_time(lambda: rm.ndcg_at_k(dense, s_chunk, k=10, average=None), 2)
    return t_s, t_d


def bench_sparse(args):
    rng = np.random.default_rng(1)
    n, m, c = args.users, args.items, args.chunk
    Y = sparse_relevance(n, m, 0.0005, rng)
    chunk_bytes = c * m * 8
    print(
        f"\n(b) sparse y_true: {n:,} users x {m:,} items, {Y.nnz:,} relevant "
        f"({Y.nnz / (n * m):.2%}), CSR {(Y.data.nbytes + Y.indices.nbytes) / 2**20:.0f}"
        f" MiB; y_score in chunks of {c} users ({chunk_bytes / 2**20:.0f} MiB "
        "float64 each); ndcg_at_k(k=10)"
    )
    values, t_sparse, t_dense_sample, t_sparse_sample, n_sample = [], 0.0, 0.0, 0.0, 0
    score_rng = np.random.default_rng(2)
    tracemalloc.start()
    base, _ = tracemalloc.get_traced_memory()
    peaks = []
    for k, start in enumerate(range(0, n, c)):
        tracemalloc.reset_peak()
        y_chunk = Y[start : start + c]
        s_chunk = score_rng.random((y_chunk.shape[0], m))
        t0 = time.perf_counter()
        values.append(rm.ndcg_at_k(y_chunk, s_chunk, k=10, average=None))
        t1 = time.perf_counter()
        t_sparse += t1 - t0
        peaks.append(tracemalloc.get_traced_memory()[1] - base)
        if k < args.dense_chunks:  # the dense path on the same chunk
            tracemalloc.stop()
            t_s, t_d = sparse_and_dense_times(y_chunk, s_chunk, values[-1])
            t_sparse_sample += t_s
            t_dense_sample += t_d
            n_sample += y_chunk.shape[0]
            tracemalloc.start()
            base, _ = tracemalloc.get_traced_memory()
        s_chunk = None  # free the chunk before the next one is drawn
    tracemalloc.stop()
    per_query = np.concatenate(values)
    mean = np.nanmean(per_query)
    print(
        f"  NDCG@10 over {per_query.shape[0]:,} users = {mean:.6f} (per-chunk "
        "average=None values, concatenated)"
    )
    print(
        f"  sparse path, whole loop: {t_sparse:.1f} s = "
        f"{t_sparse / n * 1e6:.0f} us per user"
    )
    if n_sample:
        ratio = t_sparse_sample / t_dense_sample
        print(
            f"  on {n_sample} users, best of 2 per chunk: sparse "
            f"{t_sparse_sample / n_sample * 1e6:.0f} us/user, dense "
            f"{t_dense_sample / n_sample * 1e6:.0f} us/user, "
            f"sparse / dense = {ratio:.2f}  (target <= 2)"
        )
    peak = max(peaks)
    print(
        f"  peak traced memory per chunk (scores + the call): first chunk "
        f"{peaks[0] / 2**20:.0f} MiB, max over {len(peaks)} chunks "
        f"{peak / 2**20:.0f} MiB = {peak / chunk_bytes:.2f} x one chunk of "
        "scores (flat in the number of users: O(chunk))"
    )
    max_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
    print(f"  process max RSS {max_rss:.0f} MiB (includes the dense comparison)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # text-ids: the long form's text ids against int64 ids alone (issue 31)
    parser.add_argument(
        "--part", choices=["long", "sparse", "both", "text-ids"], default="both"
    )
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--users", type=int, default=20_000)
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--chunk", type=int, default=500)
    parser.add_argument("--dense-chunks", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if args.part in ("long", "both", "text-ids"):
        bench_long(args)
    if args.part in ("sparse", "both"):
        bench_sparse(args)


if __name__ == "__main__":
    main()
