"""factor_ranking_report equals ranking_report on the dense scores, bit for bit."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_rankmetrics import factor_ranking_report, ranking_report
from sklearn_rankmetrics._report import available_metrics


def _data(seed, n_users=23, n_items=9, d=3, grades=4):
    rng = np.random.default_rng(seed)
    U = rng.normal(size=(n_users, d))
    V = rng.normal(size=(n_items, d))
    # round the factors so that ties occur in the scores
    U = np.round(U)
    V = np.round(V)
    Y = rng.integers(0, grades, size=(n_users, n_items)) * (
        rng.random((n_users, n_items)) < 0.3
    )
    Y[:3] = 0  # users without held-out items
    train = rng.random((n_users, n_items)) < 0.25
    return U, V, Y, train


def _dense(U, V, train):
    S = U @ V.T
    if train is not None:
        S = S.copy()
        S[train] = -np.inf
    return S


def _metrics():
    return [m for m in available_metrics() if m != "gauc"]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"ignore_ties": True},
        {"gain": "exponential", "no_relevant": 0.0},
        {"relevance_threshold": 2, "ap_denominator": "min_k"},
        {"beta": 2.0, "log_base": 10},
    ],
)
@pytest.mark.parametrize("wm", [None, 0.0005])
def test_bit_for_bit(seed, options, wm):
    U, V, Y, train = _data(seed)
    k = (1, 3, 20)
    S = _dense(U, V, train)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = ranking_report(Y, S, k=k, metrics=_metrics(), output_dict=True, **options)
        ref_q = ranking_report(
            Y, S, k=k, metrics=_metrics(), output_dict=True, per_query=True, **options
        )
        for y, excl in ((Y, train), (sp.csr_matrix(Y), sp.csr_matrix(train))):
            got = factor_ranking_report(
                y,
                U,
                V,
                exclude=excl,
                k=k,
                metrics=_metrics(),
                output_dict=True,
                working_memory=wm,
                **options,
            )
            assert list(got) == list(ref)
            for name in ref:
                assert np.array_equal(got[name], ref[name], equal_nan=True), name
            got_q = factor_ranking_report(
                y,
                U,
                V,
                exclude=excl,
                k=k,
                metrics=_metrics(),
                output_dict=True,
                per_query=True,
                working_memory=wm,
                **options,
            )
            for name in ref_q:
                np.testing.assert_array_equal(got_q[name], ref_q[name])


def test_sample_weight_callable_and_text():
    U, V, Y, train = _data(7, n_users=40)
    w = np.random.default_rng(0).random(40)
    S = _dense(U, V, None)
    ref = ranking_report(Y, S, k=5, sample_weight=w, output_dict=True)
    got = factor_ranking_report(
        Y, U, V, k=5, sample_weight=w, output_dict=True, working_memory=0.0002
    )
    assert got == ref
    got = factor_ranking_report(
        Y,
        lambda idx: U[idx] @ V.T,
        k=5,
        sample_weight=w,
        output_dict=True,
        working_memory=0.0002,
    )
    assert got == ref
    assert factor_ranking_report(Y, U, V, k=(1, 5)) == ranking_report(Y, S, k=(1, 5))


def test_exclude_relevant_warns_once():
    U, V, Y, _ = _data(1)
    excl = Y > 0
    n = int(excl.sum())
    with pytest.warns(UserWarning, match=f"removes {n} held-out") as rec:
        factor_ranking_report(
            Y, U, V, exclude=excl, k=3, output_dict=True, working_memory=0.0002
        )
    assert sum("held-out" in str(r.message) for r in rec) == 1


def test_bad_input():
    U, V, Y, train = _data(2)
    with pytest.raises(ValueError, match="inner dimension"):
        factor_ranking_report(Y, U, V[:, :2])
    with pytest.raises(ValueError, match="exclude"):
        factor_ranking_report(Y, U, V, exclude=train[:, :3])
    with pytest.raises(ValueError, match="y_true"):
        factor_ranking_report(Y[:4], U, V)
    bad = U.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        factor_ranking_report(Y, bad, V)
    with pytest.raises(TypeError, match="item_factors"):
        factor_ranking_report(Y, lambda idx: U[idx] @ V.T, V)
    U0, V0 = U.copy(), V.copy()
    with pytest.warns(UserWarning, match="held-out"):
        factor_ranking_report(Y, U, V, exclude=train)
    np.testing.assert_array_equal(U, U0)
    np.testing.assert_array_equal(V, V0)


def test_bad_weights_and_memory():
    U, V, Y, _ = _data(3)
    with pytest.raises(ValueError, match="sample_weight"):
        factor_ranking_report(Y, U, V, sample_weight=-np.ones(Y.shape[0]))
    with pytest.raises(ValueError, match="sample_weight"):
        factor_ranking_report(Y, U, V, sample_weight=np.ones(2))
    with pytest.raises(ValueError, match="working_memory"):
        factor_ranking_report(Y, U, V, working_memory=0)
