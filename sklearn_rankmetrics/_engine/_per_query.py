"""Per-query values of a metric read off rankings of chunks or parts.

:func:`rank_per_query` ranks the inputs and calls a function of a
:class:`~._rank.Ranking` (a metric's kernels) on it: a large 2-D input in
chunks of rows, a large long form in parts of its queries, the values put
back in query order; optionally at a cut-off per query.
"""

from dataclasses import dataclass, fields, replace

import numpy as np

from .._utils._validation import _check_k_count, check_inputs
from ._rank import Ranking, rank, rank_parts
from ._select import _map_chunks, _row_chunks

__all__ = []  # private module


# A 2-D input whose per-rank arrays (n_queries x K float64) would exceed
# this many bytes is ranked and reduced in chunks of rows, each chunk
# keeping only its per-query arrays: the Ranking's up to six full-size
# arrays and the kernels' same-size temporaries never coexist for every
# row.  bench_full_ranking.py (2000 x 5000, k=None, load 1.7 on 2 CPUs):
# extra peak memory from 5.0x to 0.52x y_score (continuous scores) and
# from 12.5x to 1.25x (ties); the chunks run on threads, 2.9x -> 2.0x
# np.argsort with continuous scores (4.7x with ties either way).  The
# chunks have as many rows as the engine's own (``_engine._select._row_chunks``),
# so rank() never splits a chunk again (no threads within
# threads).  Every operation is row by row on rows of one width K, so the
# per-query values are the same bit for bit whatever the chunks (tests
# force tiny ones).  Smaller inputs (bench_threads.py's 10000 x 10 at
# k=10) take one call, as before.
_CHUNK_RANKING_ABOVE = 32 << 20


def rank_per_query(
    y_true,
    y_score,
    per_query,
    *,
    k,
    query_id,
    sample_weight,
    per_query_k=None,
    chunks=True,
    **rank_options,
):
    """``per_query(rk)`` (a dict of per-query arrays) for the :class:`Ranking`
    ``rk`` of the inputs, with ``n_rel``, ``n_pos`` and ``weights``.

    ``rk`` is read at the cut-off ``per_query_k[q]`` of each query if
    given.  A large 2-D input is ranked in chunks of rows (see
    ``_CHUNK_RANKING_ABOVE``), ``per_query`` being called on each and its
    arrays concatenated; ``chunks=False`` ranks every query at once.
    """

    if query_id is not None:
        return _per_query_of_parts(
            y_true,
            y_score,
            per_query,
            k,
            query_id,
            sample_weight,
            per_query_k,
            chunks,
            rank_options,
        )

    def evaluate(y_true, y_score, sample_weight, ks, rows=None):
        rk = rank(
            y_true,
            y_score,
            k=k,
            query_id=query_id,
            sample_weight=sample_weight,
            **rank_options,
        )
        if rows is not None:  # a chunk: Ranking.of_queries reads its rows
            rk = replace(rk, queries=np.arange(*rows))
        if ks is not None:
            _check_k_count(ks, rk.n_queries)
            rk = _cut_per_query(rk, ks)
        return {
            "n_rel": rk.n_rel,
            "n_pos": rk.n_pos,
            "weights": rk.weights,
            **per_query(rk),
        }

    shape = getattr(y_score, "shape", None)
    if chunks and query_id is None and shape is not None and len(shape) == 2:
        n, m = shape
        K = m if k is None else min(k, m)
        if n * K * 8 > _CHUNK_RANKING_ABOVE:
            form, Y, S, _, _, w = check_inputs(
                y_true, y_score, None, sample_weight, defer=True
            )
            if per_query_k is not None:
                _check_k_count(per_query_k, n)
            parts = _map_chunks(
                lambda a, b: evaluate(
                    Y[a:b],
                    S[a:b],
                    None,  # scaled as a whole below (check_sample_weight)
                    None if per_query_k is None else per_query_k[a:b],
                    (a, b),
                ),
                _row_chunks(n, m * S.itemsize, K),
            )
            q = {
                name: None
                if parts[0][name] is None
                else np.concatenate([p[name] for p in parts])
                for name in parts[0]
            }
            q["weights"] = w
            return q
    return evaluate(y_true, y_score, sample_weight, per_query_k)


def _per_query_of_parts(
    y_true,
    y_score,
    per_query,
    k,
    query_id,
    sample_weight,
    per_query_k,
    chunks,
    rank_options,
):
    """:func:`rank_per_query` of a long form, from the parts
    :func:`rank_parts` ranks, put back in query order."""
    n_q, weights, parts = rank_parts(
        y_true,
        y_score,
        k=k,
        query_id=query_id,
        sample_weight=sample_weight,
        **rank_options,
    )
    if per_query_k is not None:
        _check_k_count(per_query_k, n_q)
    if not chunks:
        # One scale for every query (ERR's largest gain): read every part
        # first.  Exact, as the largest of the parts' largest gains.
        parts = list(parts)
        if parts[0].ideal_gain is not None:
            top = max(float(rk.ideal_gain.max(initial=0.0)) for rk in parts)
            parts = [replace(rk, max_gain=top) for rk in parts]
    q = {}
    for rk in parts:
        if per_query_k is not None:
            rk = _cut_per_query(rk, rk.of_queries(per_query_k))
        out = {"n_rel": rk.n_rel, "n_pos": rk.n_pos, **per_query(rk)}
        if rk.queries is None:
            q = out
            break
        for name, values in out.items():
            values = np.asarray(values)
            if name not in q:
                q[name] = np.empty(n_q, dtype=values.dtype)
            q[name][rk.queries] = values
    q["weights"] = weights
    return q


@dataclass(frozen=True)
class _PerQueryCut(Ranking):
    """A :class:`Ranking` read at a cut-off per query: the per-rank arrays
    are zero (not retrieved) past each query's cut-off, and the precision
    denominator is that cut-off."""

    k_per_query: np.ndarray = None

    @property
    def cutoff(self):
        return self.k_per_query


def _cut_per_query(rk, ks):
    """``rk`` (built at ``max(ks)``) read at the cut-off ``ks[q]`` of each
    query.  The statistics of a rank do not depend on the cut-off, so
    masking the ranks past it is exact, ties included."""
    _check_k_count(ks, rk.n_queries)
    inside = rk.rank <= ks[:, None]
    masked = {
        "retrieved": rk.retrieved & inside,
        "groups": rk.groups.replaced(
            p_relevant=np.where(inside, rk.p_relevant, 0.0),
            mean_gain=np.where(inside, rk.mean_gain, 0.0),
        ),
    }
    if rk.ideal_gain is not None:
        width = rk.ideal_gain.shape[1]
        masked["ideal_gain"] = np.where(inside[:, :width], rk.ideal_gain, 0.0)
    base = {f.name: getattr(rk, f.name) for f in fields(rk)}
    return _PerQueryCut(**{**base, **masked, "k_per_query": ks})
