"""LightFM's evaluation functions as anchors (issue 20, item 3).

``lightfm.evaluation`` ranks with ``LightFM.predict_rank``: the rank of a
held-out (test) item of a user is the number of *other* items of the
catalogue, training items of the user left out, whose float32 score is
``>=`` its own (0-based).  From it, per user with a test item:

- ``precision_at_k``: number of test items of rank ``< k``, divided by
  ``k`` (also when the user has fewer than ``k`` candidates) -- our
  ``precision_at_k``;
- ``recall_at_k``: the same count over the number of test items -- our
  ``recall_at_k``;
- ``reciprocal_rank``: ``1 / (1 + smallest rank)``, with no cut-off -- our
  ``reciprocal_rank_at_k`` with ``k`` the catalogue size;
- ``auc_score``: for each test item, the share of the user's negatives
  (items neither in training nor in test) scored ``>=`` it, one minus that,
  averaged over the test items -- our ``group_auc_score`` over the items
  that are not excluded (the long form of those (user, item) pairs), and
  the report's ``"gauc"`` with ``exclude=`` (an excluded item is not a
  candidate: issue 27), computed in float32 by LightFM.

``train_interactions=`` is our ``exclude=`` (those items take no rank).
Users without a test item are left out of LightFM's arrays (our
``no_relevant="skip"``); with ``preserve_rows=True`` they score 0 for
precision and reciprocal rank (our ``no_relevant=0.0``) and 0.5 for AUC.

Ties are where the definitions part: a test item's rank counts every
other item tied with it as ranked above it, other test items included.
When no two test items of a user tie with each other, that is our
``ties="pessimistic"`` (tied relevant items ranked last); when some do,
LightFM's ranks are not the ranks of any ordering (two test items tied
for the top both get rank 1) and no option reproduces them; our default
``ties="expected"`` gives the expected value over the orderings.  In the
AUC a tie with a negative counts 0 for LightFM, 1/2 here.

LightFM computes its scores in float32 with ``-ffast-math`` (the order of
the dot product's sums is the compiler's): the exact anchors round the
fitted parameters to a grid on which every float32 sum is exact, so both
sides rank the same numbers.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_rankmetrics import (
    factor_ranking_report,
    group_auc_score,
    precision_at_k,
    reciprocal_rank_at_k,
)

pytest.importorskip("lightfm")
from lightfm import LightFM  # noqa: E402
from lightfm import evaluation as lfm  # noqa: E402


def _interactions(seed, n_users=40, n_items=50):
    """Float32 CSR training and test interactions, disjoint, with long-tailed
    item popularity; users 0-2 have no test item, user 3 only 4 items
    outside training (2 test items: fewer candidates than k), and every user
    keeps a negative (neither training nor test) so that its AUC is defined."""
    rng = np.random.default_rng(seed)
    p = 0.6 * np.linspace(1.0, 0.05, n_items)
    seen = rng.random((n_users, n_items)) < p
    test = seen & (rng.random(seen.shape) < 0.3)
    train = seen & ~test
    test[:3] = False
    train[3] = True
    train[3, [5, 17, 30, 41]] = False
    test[3] = False
    test[3, [17, 41]] = True
    for u in range(n_users):  # a negative for every user
        free = np.flatnonzero(~train[u])
        if test[u, free].all():
            test[u, free[0]] = False
    return (
        sp.csr_matrix(train, dtype=np.float32),
        sp.csr_matrix(test, dtype=np.float32),
    )


def _fit(train, seed, no_components=6):
    model = LightFM(no_components=no_components, loss="warp", random_state=seed)
    return model.fit(train, epochs=3, num_threads=1)


def _round_parameters(model, step, offsets=True):
    """Round the model's embeddings to multiples of ``step`` in [-2, 2] and
    its biases to multiples of ``step**2``; with ``offsets``, add to the
    item biases distinct multiples of ``step**2 / 128`` below ``step**2``
    (at most 128 items), so that a user's scores are all distinct.  For
    ``step`` a power of two every product and partial sum of a score is a
    float32 number: both libraries compute the same scores exactly."""
    for emb in (model.user_embeddings, model.item_embeddings):
        emb[:] = np.round(np.clip(emb, -2, 2) / step) * step
    for bias in (model.user_biases, model.item_biases):
        bias[:] = np.round(np.clip(bias, -2, 2) / step**2) * step**2
    if offsets:
        n_items = model.item_biases.shape[0]
        rng = np.random.default_rng(n_items)
        model.item_biases += rng.permutation(n_items) * (step**2 / 128)


def _factors(model):
    """LightFM's score ``user_bias + item_bias + u . v`` as a product of two
    float32 factor matrices with two extra columns."""
    user_bias, U = model.get_user_representations()
    item_bias, V = model.get_item_representations()
    user_factors = np.column_stack([U, user_bias, np.ones_like(user_bias)])
    item_factors = np.column_stack([V, np.ones_like(item_bias), item_bias])
    return user_factors, item_factors


def _scores(model, n_users, n_items):
    """The dense float32 score matrix from LightFM's own ``predict``."""
    users = np.repeat(np.arange(n_users, dtype=np.int32), n_items)
    items = np.tile(np.arange(n_items, dtype=np.int32), n_users)
    return model.predict(users, items, num_threads=1).reshape(n_users, n_items)


def _auc_over_candidates(test, S, train):
    """group_auc_score per user over the non-excluded items (long form)."""
    users, items = np.nonzero(train.toarray() == 0)
    return group_auc_score(
        test.toarray()[users, items], S[users, items], query_id=users, average=None
    )


def _theirs(model, test, train, k, preserve_rows=False):
    kw = dict(train_interactions=train, preserve_rows=preserve_rows, num_threads=1)
    theirs = {
        f"precision@{k}": lfm.precision_at_k(model, test, k=k, **kw),
        "mrr": lfm.reciprocal_rank(model, test, **kw),
        "auc": lfm.auc_score(model, test, **kw),
    }
    if not preserve_rows:  # (else 0 / 0 for the users without a test item)
        theirs[f"recall@{k}"] = lfm.recall_at_k(model, test, k=k, **kw)
    return theirs


def _ours(model, test, train, k, **options):
    U, V = _factors(model)
    n_items = test.shape[1]
    report = factor_ranking_report(
        test,
        U,
        V,
        exclude=train,
        k=(k, n_items),
        metrics=["precision", "recall", "mrr", "gauc"],
        per_query=True,
        output_dict=True,
        **options,
    )
    S = _scores(model, *test.shape)
    S[train.toarray() != 0] = -np.inf
    return {
        f"precision@{k}": report[f"precision@{k}"],
        f"recall@{k}": report[f"recall@{k}"],
        "mrr": report[f"mrr@{n_items}"],
        "auc": _auc_over_candidates(test, S, train),
        "report auc": report["gauc"],
    }


def _assert_no_ties(S, train):
    for s, t in zip(S, train.toarray(), strict=True):
        candidates = s[t == 0]
        assert np.unique(candidates).size == candidates.size


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("k", [1, 5, 10])
def test_lightfm_evaluation_without_ties(seed, k):
    """A fitted LightFM model, its parameters on an exact grid with distinct
    scores per user: our values are LightFM's, user by user."""
    train, test = _interactions(seed)
    model = _fit(train, seed)
    _round_parameters(model, step=2.0**-3)
    U, V = _factors(model)
    S = _scores(model, *test.shape)
    np.testing.assert_array_equal(U @ V.T, S)  # the same float32 scores
    _assert_no_ties(S, train)

    theirs = _theirs(model, test, train, k)
    ours = _ours(model, test, train, k)
    has_test = test.getnnz(axis=1) > 0
    for name in (f"precision@{k}", f"recall@{k}", "mrr"):
        # LightFM returns float32 (precision, mrr) or float64 (recall)
        # quotients of the same integers: equal once ours is cast
        mine = ours[name][has_test].astype(theirs[name].dtype)
        np.testing.assert_array_equal(mine, theirs[name], err_msg=name)
    # LightFM sums its AUC in float32 (a rounding of 1e-7 per test item)
    np.testing.assert_allclose(ours["auc"][has_test], theirs["auc"], rtol=1e-5)
    assert np.isnan(ours["auc"][~has_test]).all()
    # the report's GAUC with exclude= is that AUC: the excluded items are
    # not candidates (before issue 27 they were negatives ranked last)
    np.testing.assert_array_equal(ours["report auc"], ours["auc"])

    # preserve_rows=True: users without a test item score 0 (no_relevant=0.0)
    # for precision and reciprocal rank, 0.5 for AUC (undefined here)
    theirs = _theirs(model, test, train, k, preserve_rows=True)
    ours = _ours(model, test, train, k, no_relevant=0.0)
    for name in (f"precision@{k}", "mrr"):
        mine = ours[name].astype(theirs[name].dtype)
        np.testing.assert_array_equal(mine, theirs[name], err_msg=name)
    np.testing.assert_array_equal(theirs["auc"][~has_test], 0.5)


@pytest.mark.parametrize("seed", range(2))
def test_lightfm_evaluation_fitted_factors(seed):
    """The fitted float32 parameters as they are: the factor matrices'
    BLAS product and LightFM's own sums differ by an ulp or two, which does
    not change the ranks when every test item's score is farther than that
    from every other candidate's (checked: the test data are so)."""
    train, test = _interactions(seed)
    model = _fit(train, seed, no_components=8)
    U, V = _factors(model)
    S = _scores(model, *test.shape)
    rounding = np.abs(U @ V.T - S).max()
    assert rounding < 1e-5
    for s, y, t in zip(S, test.toarray(), train.toarray(), strict=True):
        for i in np.flatnonzero((y != 0) & (t == 0)):
            others = s[(t == 0) & (np.arange(s.size) != i)]
            assert np.abs(others - s[i]).min() > 10 * rounding
    k = 5
    theirs = _theirs(model, test, train, k)
    ours = _ours(model, test, train, k)
    has_test = test.getnnz(axis=1) > 0
    for name in (f"precision@{k}", f"recall@{k}", "mrr"):
        mine = ours[name][has_test].astype(theirs[name].dtype)
        np.testing.assert_array_equal(mine, theirs[name], err_msg=name)
    np.testing.assert_allclose(ours["auc"][has_test], theirs["auc"], rtol=1e-5)
    np.testing.assert_allclose(ours["report auc"][has_test], theirs["auc"], rtol=1e-5)
    # the averages LightFM's users report: their mean over users with a test
    # item is the report's mean (no_relevant="skip")
    report = factor_ranking_report(
        test, U, V, exclude=train, k=k, metrics=["precision"], output_dict=True
    )
    np.testing.assert_allclose(
        report[f"precision@{k}"], theirs[f"precision@{k}"].mean(), rtol=1e-6
    )


def _tied_positives(S, test, train):
    """Per user, whether two of its test items have the same score."""
    out = []
    for s, y, t in zip(S, test.toarray(), train.toarray(), strict=True):
        pos = s[(y != 0) & (t == 0)]
        out.append(np.unique(pos).size < pos.size)
    return np.array(out)


@pytest.mark.parametrize("seed", range(3))
def test_lightfm_ties(seed):
    """Coarse parameters (many ties): LightFM's ranks count tied items as
    ranked above.  Where no two test items of a user tie, that is
    ties="pessimistic"; elsewhere LightFM is lower still, and below our
    expected value over orderings.  Its AUC counts a tie 0 (ours 1/2)."""
    train, test = _interactions(seed)
    model = _fit(train, seed, no_components=3)
    _round_parameters(model, step=1.0, offsets=False)
    S = _scores(model, *test.shape)
    U, V = _factors(model)
    np.testing.assert_array_equal(U @ V.T, S)
    k = 5
    theirs = _theirs(model, test, train, k)
    pessimistic = _ours(model, test, train, k, ties="pessimistic")
    expected = _ours(model, test, train, k)
    has_test = test.getnnz(axis=1) > 0
    tied = _tied_positives(S, test, train)[has_test]
    assert tied.any() and not tied.all()  # both cases occur in the data
    for name in (f"precision@{k}", f"recall@{k}", "mrr"):
        mine = pessimistic[name][has_test].astype(theirs[name].dtype)
        np.testing.assert_array_equal(mine[~tied], theirs[name][~tied], err_msg=name)
        assert (theirs[name][tied] <= mine[tied]).all(), name
        worst = pessimistic[name][has_test]
        assert (worst <= expected[name][has_test] + 1e-12).all(), name
    assert (theirs["mrr"][tied] < pessimistic["mrr"][has_test][tied]).any()
    assert (theirs[f"precision@{k}"] < expected[f"precision@{k}"][has_test]).any()
    # AUC: LightFM's equals ours once each positive is lowered below the
    # items tied with it (ties counted 0), where no two positives tie
    auc = expected["auc"][has_test]
    assert (theirs["auc"] <= auc + 1e-6).all()
    assert (theirs["auc"] < auc - 1e-3).any()
    S_low = S.astype(np.float64) - 0.5 * (test.toarray() != 0)
    S_low[train.toarray() != 0] = -np.inf
    auc_low = _auc_over_candidates(test, S_low, train)[has_test]
    np.testing.assert_allclose(auc_low[~tied], theirs["auc"][~tied], rtol=1e-5)


def test_lightfm_ties_hand_worked():
    # one factor; user 0 scores items 0, 1, 2 at 1, 1, 0, item 3 is a
    # training item (left out).  User 0's test items are 0 and 1 (tied),
    # user 1's is item 0 (tied with the negative item 1).
    train = sp.csr_matrix(np.array([[0, 0, 0, 1], [0, 0, 0, 1]], dtype=np.float32))
    test = sp.csr_matrix(np.array([[1, 1, 0, 0], [1, 0, 0, 0]], dtype=np.float32))
    model = LightFM(no_components=1, random_state=0).fit(train, epochs=1)
    model.user_embeddings[:] = 1.0
    model.item_embeddings[:] = [[1.0], [1.0], [0.0], [5.0]]
    model.user_biases[:] = 0.0
    model.item_biases[:] = 0.0
    # LightFM: every test item has one other item >= it: rank 1 (0-based)
    ranks = model.predict_rank(test, train_interactions=train).toarray()
    np.testing.assert_array_equal(ranks, [[1, 1, 0, 0], [1, 0, 0, 0]])
    kw = dict(train_interactions=train)
    np.testing.assert_array_equal(lfm.precision_at_k(model, test, k=1, **kw), [0, 0])
    np.testing.assert_array_equal(lfm.reciprocal_rank(model, test, **kw), [0.5, 0.5])
    # AUC, user 0: sorted ranks 1, 1 minus 0, 1 previous positives -> 1 and 0
    # negatives above, of 1: (0 + 1) / 2; user 1: 1 of 2 negatives >= it
    np.testing.assert_array_equal(lfm.auc_score(model, test, **kw), [0.5, 0.5])
    S = np.array([[1.0, 1.0, 0.0, -np.inf], [1.0, 1.0, 0.0, -np.inf]])
    y = test.toarray()
    # ours, ties="pessimistic": user 0's two tied relevant items fill ranks
    # 1 and 2 (P@1 = 1, RR = 1); user 1's relevant item goes after the tied
    # negative (P@1 = 0, RR = 1/2) -- LightFM's value for user 1 only
    worst = dict(ties="pessimistic", average=None)
    assert precision_at_k(y, S, k=1, **worst).tolist() == [1, 0]
    assert reciprocal_rank_at_k(y, S, **worst).tolist() == [1, 0.5]
    # expected over the orderings: user 1's item is first half the time
    assert precision_at_k(y, S, k=1, average=None).tolist() == [1, 0.5]
    # AUC over the candidates (items 0-2): user 0 has 1.0, user 1 (1/2 for
    # the tie + 1 for item 2) / 2 = 0.75
    auc = group_auc_score(y[:, :3], S[:, :3], average=None)
    assert auc.tolist() == [1.0, 0.75]
