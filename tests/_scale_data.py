"""Long-form frames for the engine tests (Dask, Spark) and the in-memory
report they must equal."""

import numpy as np
from numpy.testing import assert_allclose

import sklearn_rankmetrics as srm

RTOL = 1e-12
K = (1, 3, 10)
COLS = dict(query_col="qid", label_col="rel", score_col="score")


def make_frame(seed=0, n_queries=40, max_rows=15, string_ids=False):
    """Rows in random order; coarse scores (ties), grades 0..3, some queries
    without a relevant item, query weights over a range of magnitudes."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_rows + 1, size=n_queries)
    qid = np.repeat(np.arange(n_queries) * 3 + 1, sizes)
    n = qid.size
    frame = pd.DataFrame(
        {
            "qid": [f"u{q:03d}" for q in qid] if string_ids else qid,
            "rel": rng.integers(0, 4, size=n) * (rng.random(n) < 0.4),
            "score": np.round(rng.random(n) * 5) / 5,
            "w": np.repeat(rng.random(n_queries) * 100 + 0.5, sizes),
            "other": "x",
        }
    )
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def in_memory(frame, weighted=True, **kwargs):
    return srm.ranking_report(
        frame["rel"],
        frame["score"],
        query_id=frame["qid"],
        sample_weight=frame["w"] if weighted else None,
        k=K,
        **kwargs,
    )


def assert_same(got, want):
    assert list(got) == list(want)
    assert_allclose(list(got.values()), list(want.values()), rtol=RTOL, atol=0)
