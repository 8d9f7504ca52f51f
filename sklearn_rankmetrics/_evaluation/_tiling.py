"""Blocks of a factor model's scores: aligned product tiles (the same scores
whatever the blocks and threads), the excluded items of a block of users
and the block size under a memory budget."""

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn import get_config

__all__ = []  # private module


def _rows(X, idx):
    """Rows ``idx`` of a dense array or sparse matrix, as a dense array."""
    if sp.issparse(X):
        return np.asarray(X[idx].toarray())
    return np.asarray(X[idx])


def _canonical_csr(X):
    """``X`` as CSR with sorted, summed duplicate entries (a copy if it has
    to change: the input is never modified)."""
    X = sp.csr_matrix(X)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


def _excluded(exclude, b):
    """Row and column indices of the excluded items of the users ``b``."""
    if sp.issparse(exclude):
        block = sp.csr_matrix(exclude[b])
        block.eliminate_zeros()
        rows = np.repeat(np.arange(block.shape[0]), np.diff(block.indptr))
        return rows, block.indices
    return np.nonzero(np.asarray(exclude[b]))


# The scores of the users are computed ``_TILE`` rows at a time (fewer when a
# row is long), always in a product of the same shape: BLAS computes a
# row's dot products in an order that depends on the number of rows of the
# product (numpy's 1-row product differs from a row of a 1000-row product
# by an ulp), so tiles aligned on multiples of ``_TILE`` users, the last
# one padded, give every user the same scores whatever the blocks and
# threads.  OpenBLAS on one thread, 50000 items, 64 factors, per 2048
# users: float32 0.27 s with 64-row tiles, 0.24 s with 128, 0.22 s with
# 256; float64 0.55, 0.49-0.52, 0.44-0.54 s (bench_factor.py's shape).
_TILE = 128
_TILE_BYTES = 16 << 20


def _tile_rows(row_bytes):
    """Rows per product tile: ``_TILE``, or a smaller power of two so that a
    tile of scores takes at most ``_TILE_BYTES``."""
    rows = _TILE
    while rows > 1 and rows * row_bytes > _TILE_BYTES:
        rows //= 2
    return rows


def _tiled_product(U, VT, start, stop, tile, out=None):
    """``U[start:stop] @ VT`` computed by aligned tiles of ``tile`` rows
    (``start`` is a multiple of ``tile``), the last one zero-padded; into
    ``out`` (at least ``stop - start`` rows) if given."""
    if out is None:
        out = np.empty((stop - start, VT.shape[1]), dtype=np.result_type(U, VT))
    S = out[: stop - start]
    for a in range(start, stop, tile):
        b = min(a + tile, stop)
        if b - a == tile:
            np.matmul(U[a:b], VT, out=S[a - start : b - start])
        else:  # the last, partial tile: pad it to the same shape
            part = np.zeros((tile, U.shape[1]), dtype=U.dtype)
            part[: b - a] = U[a:b]
            S[a - start : b - start] = (part @ VT)[: b - a]
    return S


def _stack_padded(parts):
    """Row-stack ``(scores, grades)`` pairs of different widths, padding
    with ``-inf`` scores and zero grades."""
    width = max(S.shape[1] for S, _ in parts)
    n = sum(S.shape[0] for S, _ in parts)
    S_all = np.full((n, width), -np.inf, dtype=parts[0][0].dtype)
    Y_all = np.zeros((n, width), dtype=np.result_type(*[Y for _, Y in parts]))
    a = 0
    for S, Y in parts:
        S_all[a : a + S.shape[0], : S.shape[1]] = S
        Y_all[a : a + S.shape[0], : S.shape[1]] = Y
        a += S.shape[0]
    return S_all, Y_all


def _chunk_rows(row_bytes, n_rows, working_memory):
    """Rows per block so that a block takes ``working_memory`` MiB (scikit-
    learn's config when None), at least 1 (as pairwise_distances_chunked)."""
    if working_memory is None:
        working_memory = get_config()["working_memory"]
    if (
        isinstance(working_memory, bool)
        or not isinstance(working_memory, numbers.Real)
        or not working_memory > 0
    ):
        raise ValueError(
            f"working_memory must be a positive number of MiB; got {working_memory!r}."
        )
    rows = int(working_memory * 2**20 // row_bytes)
    return max(1, min(rows, max(n_rows, 1)))
