"""Regression tests for bugs found by QA, one test per bug.

Each test says in a comment what used to go wrong.
"""

import numpy as np
import scipy.sparse as sp

import sklearn_rankmetrics as srm


def test_uint64_grades_above_four_in_dense_ndcg():
    # A dense uint64 y_true with grades 5..64 crashed in the ideal ranking
    # (uint64 + int64 offsets gave float64 bincount keys: numpy TypeError).
    y = np.array([[5, 0, 3, 0], [0, 7, 0, 1]])
    s = np.array([[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]])
    expected = srm.ndcg_at_k(y, s, k=2)
    assert srm.ndcg_at_k(y.astype(np.uint64), s, k=2) == expected
    assert srm.ndcg_at_k(sp.csr_matrix(y.astype(np.uint64)), s, k=2) == expected
