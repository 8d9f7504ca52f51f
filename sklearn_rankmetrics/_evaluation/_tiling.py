"""Blocks of a factor model's scores: aligned product tiles (the same scores
whatever the blocks and threads), the excluded items of a block of users
(:class:`ScoreBlocks`) and the blocks of users under a memory budget
(:func:`block_bounds`).

scikit-learn is not imported here: its ``working_memory`` setting is read
from scikit-learn only when it is already loaded (:func:`_working_memory`).
"""

import numbers
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

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
    """Row-stack ``(scores, grades, columns)`` triples of different widths,
    padding with ``-inf`` scores, zero grades and column ``-1``."""
    width = max(S.shape[1] for S, _, _ in parts)
    n = sum(S.shape[0] for S, _, _ in parts)
    S_all = np.full((n, width), -np.inf, dtype=parts[0][0].dtype)
    Y_all = np.zeros((n, width), dtype=np.result_type(*[Y for _, Y, _ in parts]))
    C_all = np.full((n, width), -1, dtype=np.intp)
    a = 0
    for S, Y, C in parts:
        b = a + S.shape[0]
        S_all[a:b, : S.shape[1]] = S
        Y_all[a:b, : S.shape[1]] = Y
        C_all[a:b, : S.shape[1]] = C
        a = b
    return S_all, Y_all, C_all


def _working_memory():
    """scikit-learn's ``working_memory`` setting (MiB), without importing
    scikit-learn: if it is not loaded, nothing can have changed the
    setting but the environment variable it starts from (importing it
    costs about 80 MiB and a second, more than a factor report's blocks)."""
    sklearn = sys.modules.get("sklearn")
    if sklearn is not None and hasattr(sklearn, "get_config"):
        return sklearn.get_config()["working_memory"]
    return int(os.environ.get("SKLEARN_WORKING_MEMORY", 1024))


def _chunk_rows(row_bytes, n_rows, working_memory):
    """Rows per block so that a block takes ``working_memory`` MiB (scikit-
    learn's config when None), at least 1 (as pairwise_distances_chunked)."""
    if working_memory is None:
        working_memory = _working_memory()
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


def block_bounds(n_users, tile, row_bytes, n_threads, working_memory):
    """``(start, stop)`` of the blocks of users: whole tiles of ``tile``
    users, as many as ``working_memory`` MiB allow for ``n_threads`` blocks
    of ``row_bytes`` per user at once."""
    chunk = _chunk_rows(row_bytes * n_threads, n_users, working_memory)
    chunk = max(tile, chunk // tile * tile)
    return [(a, min(a + chunk, n_users)) for a in range(0, n_users, chunk)]


@dataclass(frozen=True)
class ScoreBlocks:
    """The score matrix of a model, a block of users at a time, with the
    excluded items at ``-inf``.

    Either factors -- ``U @ VT`` computed by aligned tiles of ``tile`` users
    (:func:`_tiled_product`) -- or ``func``, a callable returning the dense
    scores of an index array of users (then ``tile`` is 1).  ``exclude``
    is None, a canonical CSR matrix or a boolean array (users x items).
    """

    n_users: int
    n_items: int
    tile: int
    U: np.ndarray | None = None
    VT: np.ndarray | None = None
    func: Callable | None = None
    exclude: object = None

    @classmethod
    def of_factors(cls, U, VT, exclude=None):
        return cls(
            U.shape[0],
            VT.shape[1],
            _tile_rows(VT.dtype.itemsize * max(VT.shape[1], 1)),
            U=U,
            VT=VT,
            exclude=exclude,
        )

    @classmethod
    def of_callable(cls, func, n_users, n_items, exclude=None):
        return cls(n_users, n_items, 1, func=func, exclude=exclude)

    @property
    def tiled(self):
        """True for factors: a block is scored tile by tile."""
        return self.func is None

    def tiles(self, start, stop):
        """``(start, stop)`` of the tiles of a block: the product tiles of
        factors, the whole block for a callable."""
        if not self.tiled:
            return [(start, stop)]
        return [(a, min(a + self.tile, stop)) for a in range(start, stop, self.tile)]

    def buffer(self):
        """A buffer for the scores of one tile (:meth:`scores`' ``out``)."""
        if not self.tiled:
            return None
        return np.empty((self.tile, self.n_items), dtype=self.VT.dtype)

    def scores(self, start, stop, out=None):
        """The scores of the users ``start..stop-1``, excluded items at
        ``-inf`` (into ``out`` for factors, if given), and the ``(rows,
        columns)`` of the excluded items within the block."""
        if self.tiled:
            S = _tiled_product(self.U, self.VT, start, stop, self.tile, out)
        else:
            S = self._called(start, stop)
        empty = np.zeros(0, dtype=np.intp)
        excluded = (empty, empty)
        if self.exclude is not None:
            excluded = _excluded(self.exclude, slice(start, stop))
            if excluded[0].size:
                S[excluded] = -np.inf
        return S, excluded

    def _called(self, start, stop):
        idx = np.arange(start, stop)
        block = self.func(idx)
        if sp.issparse(block):
            raise TypeError(
                f"the score callable returned a sparse matrix for users "
                f"{start}..{stop - 1}; return a dense array of every "
                "item's score (e.g. .toarray()): an entry a sparse matrix "
                "leaves out would be a score of 0, not an item left out "
                "(use -inf, or exclude=, for that)."
            )
        # a copy, always: the excluded items are set to -inf, and the
        # callable may return a view of the caller's own matrix
        S = np.array(block, dtype=np.float64, copy=True)
        if S.shape != (idx.size, self.n_items):
            raise ValueError(
                f"the score callable returned shape {S.shape} for "
                f"{idx.size} users; expected ({idx.size}, {self.n_items})."
            )
        if np.isnan(S).any():
            raise ValueError(
                "the score callable returned NaN scores (for users "
                f"{start}..{stop - 1}); scores must be numbers or -inf."
            )
        return S
