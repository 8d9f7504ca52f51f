"""Scorers in scikit-learn's model-selection tools, with real estimators.

Every tool runs with ``error_score="raise"``: with the default a scorer
error silently becomes NaN.  Metadata routing is a global setting, so it is
only ever enabled inside ``sklearn.config_context`` (the ``routing``
fixture).
"""

import inspect
import pickle

import numpy as np
import pytest
import sklearn
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import make_multilabel_classification
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.inspection import permutation_importance
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import get_scorer as sklearn_get_scorer
from sklearn.metrics import log_loss, roc_auc_score
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    HalvingGridSearchCV,
    KFold,
    RandomizedSearchCV,
    cross_val_score,
    cross_validate,
    validation_curve,
)
from sklearn.multiclass import OneVsRestClassifier
from sklearn.multioutput import MultiOutputClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier
from threadpoolctl import threadpool_limits

from sklearn_rankmetrics import (
    average_precision_at_k,
    dcg_at_k,
    f1_at_k,
    fbeta_at_k,
    get_scorer,
    get_scorer_names,
    group_auc_score,
    hit_rate_at_k,
    make_scoring,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank_at_k,
)
from sklearn_rankmetrics.datasets import make_click_log

pytestmark = [
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning"),
    # OneVsRestClassifier on a label constant in a training fold
    pytest.mark.filterwarnings("ignore:Label .*present in all training:UserWarning"),
]


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


@pytest.fixture(scope="module")
def clicks():
    """A small click log: ~40 users, 4-12 impressions each."""
    return make_click_log(
        n_users=40, n_impressions=(4, 12), n_features=6, random_state=0
    )


@pytest.fixture(scope="module")
def multilabel():
    """One query per row: 60 rows, 5 items (labels)."""
    X, Y = make_multilabel_classification(
        n_samples=60, n_features=6, n_classes=5, random_state=0
    )
    return X, Y


def _lr():
    return LogisticRegression(max_iter=200)


# ---------------------------------------------------------------------------
# get_scorer, get_scorer_names, make_scoring
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, func, k",
    [
        ("ndcg@10", ndcg_at_k, 10),
        ("map@10", average_precision_at_k, 10),
        ("mrr@10", reciprocal_rank_at_k, 10),
        ("precision@5", precision_at_k, 5),
        ("recall@100", recall_at_k, 100),
        ("hit_rate@10", hit_rate_at_k, 10),
        ("f1@10", f1_at_k, 10),
        ("fbeta@3", fbeta_at_k, 3),
        ("dcg@10", dcg_at_k, 10),
        ("ndcg", ndcg_at_k, None),
        ("map", average_precision_at_k, None),
    ],
)
def test_get_scorer_names_and_cutoffs(name, func, k):
    scorer = get_scorer(name)
    assert scorer._metric is func
    assert scorer._options == {"k": k}
    assert repr(scorer) == f"get_scorer({name!r})"


def test_gauc_has_no_cutoff():
    scorer = get_scorer("gauc")
    assert scorer._metric is group_auc_score
    assert scorer._options == {}
    with pytest.raises(ValueError, match="takes no cut-off"):
        get_scorer("gauc@10")


def test_get_scorer_falls_back_to_sklearn():
    for name in ["roc_auc", "neg_log_loss", "average_precision", "accuracy"]:
        assert repr(get_scorer(name)) == repr(sklearn_get_scorer(name))
    with pytest.raises(TypeError, match="only apply to the ranking scorers"):
        get_scorer("roc_auc", gain="exponential")


@pytest.mark.parametrize("name", ["foo@10", "", "roc", "ndcg10x"])
def test_unknown_name_lists_the_valid_forms(name):
    # every registry name (the beyond-accuracy ones too), then scikit-learn's
    pattern = r"'ndcg'.*'gauc'.*'serendipity'.*'ndcg@10'.*get_scorer_names"
    with pytest.raises(ValueError, match=pattern):
        get_scorer(name)


@pytest.mark.parametrize("name", ["ndcg@", "ndcg@k", "ndcg@1.5", "ndcg@-1"])
def test_malformed_cutoff_gives_the_form(name):
    with pytest.raises(ValueError, match=r"int >= 1 written plainly.*'ndcg@10'"):
        get_scorer(name)


@pytest.mark.parametrize("name", ["fallout@10", "rbp_residual@5", "novelty@10"])
def test_metrics_without_a_scorer_say_so(name):
    # registry metrics whose flag says no scorer: not "unknown"
    with pytest.raises(ValueError, match=f"'{name}' has no scorer"):
        get_scorer(name)


def test_bad_names_and_options():
    with pytest.raises(ValueError, match="must be an int >= 1"):
        get_scorer("ndcg@0")
    with pytest.raises(TypeError, match="must be a str"):
        get_scorer(10)
    with pytest.raises(TypeError, match="does not take the option 'beta'"):
        get_scorer("ndcg@10", beta=2.0)
    with pytest.raises(TypeError, match="in the name"):
        get_scorer("ndcg", k=10)
    with pytest.raises(TypeError, match="set_score_request"):
        get_scorer("ndcg@10", sample_weight=[1.0])
    with pytest.raises(ValueError, match="gain"):
        get_scorer("ndcg@10", gain="expo")
    with pytest.raises(ValueError, match="one number"):
        get_scorer("precision@5", average=None)


def test_options_pass_through(multilabel):
    X, Y = multilabel
    clf = KNeighborsClassifier().fit(X, Y)
    proba = np.column_stack([p[:, 1] for p in clf.predict_proba(X)])
    for name, func, options in [
        ("ndcg@3", ndcg_at_k, {"gain": "exponential"}),
        ("map@3", average_precision_at_k, {"ap_denominator": "min_k"}),
        ("precision@2", precision_at_k, {"average": "micro"}),
        ("fbeta@3", fbeta_at_k, {"beta": 2.0}),
        ("gauc", group_auc_score, {"query_weighting": "uniform"}),
    ]:
        scorer = get_scorer(name, **options)
        k = {} if name == "gauc" else {"k": int(name.split("@")[1])}
        assert scorer(clf, X, Y) == pytest.approx(func(Y, proba, **k, **options))


def test_get_scorer_names():
    names = get_scorer_names()
    assert names == [
        "bpref",
        "dcg",
        "err",
        "fbeta",
        "gauc",
        "hit_rate",
        "map",
        "mrr",
        "ndcg",
        "neg_expected_calibration_error",
        "neg_normalized_entropy",
        "r_precision",
        "rbp",
        "success",
    ]
    for name in names:  # every name listed is ours
        scorer = get_scorer(name)
        if name.startswith("neg_"):  # calibration: read probabilities
            assert repr(scorer) == (
                f"make_scorer({name[4:]}, greater_is_better=False, "
                "response_method='predict_proba')"
            )
        else:
            assert scorer._metric is not None and repr(scorer).startswith("get_")
    # precision, recall and f1 are ours only with @k, so not listed
    for name in ["precision", "recall", "f1"]:
        assert name not in names
        assert repr(get_scorer(f"{name}@5")) == f"get_scorer('{name}@5')"


@pytest.mark.parametrize(
    "name, canonical",
    [
        ("NDCG@10 ", "ndcg@10"),
        ("gAUC", "gauc"),
        (" map@5", "map@5"),
        ("Precision@3", "precision@3"),
        ("ndcg @ 10", "ndcg@10"),
        ("ndcg@010", "ndcg@10"),
        ("MRR", "mrr"),
    ],
)
def test_non_canonical_names_are_rejected_with_the_canonical_one(name, canonical):
    # they used to be accepted, and the user's spelling became the key of
    # make_scoring's dict, so refit="ndcg@10" failed with a generic error
    with pytest.raises(ValueError, match=f"did you mean '{canonical}'"):
        get_scorer(name)
    with pytest.raises(ValueError, match=f"did you mean '{canonical}'"):
        make_scoring([name, "roc_auc"])
    assert repr(get_scorer(canonical)) == f"get_scorer('{canonical}')"


def test_make_scoring_mixes_ours_and_sklearns():
    names = ["ndcg@10", "map@10", "gauc", "roc_auc", "neg_log_loss"]
    scoring = make_scoring(names, gain="exponential", ignore_ties=True)
    assert list(scoring) == names
    assert scoring["ndcg@10"]._options == {
        "k": 10,
        "gain": "exponential",
        "ignore_ties": True,
    }
    assert scoring["map@10"]._options == {"k": 10, "ignore_ties": True}
    assert scoring["gauc"]._options == {}  # GAUC has no ignore_ties
    assert repr(scoring["roc_auc"]) == repr(sklearn_get_scorer("roc_auc"))
    scoring = make_scoring(["ndcg@3", "gauc"], pos_label="click")
    assert all(s._relevant_class == "click" for s in scoring.values())


def test_make_scoring_errors():
    with pytest.raises(TypeError, match="apply to none"):
        make_scoring(["map@10", "gauc"], gain="exponential")
    with pytest.raises(ValueError, match="Duplicated"):
        make_scoring(["map@10", "map@10"])
    with pytest.raises(ValueError, match="empty"):
        make_scoring([])
    with pytest.raises(ValueError, match="unknown metric 'nope'.*get_scorer_names"):
        make_scoring(["ndcg@10", "nope"])
    assert list(make_scoring("gauc")) == ["gauc"]


# ---------------------------------------------------------------------------
# Metadata routing requests
# ---------------------------------------------------------------------------
def test_requests_query_id_by_default(routing):
    scorer = get_scorer("ndcg@10")  # ndcg_at_k takes propensity= too
    assert scorer.get_metadata_routing().score.requests == {
        "query_id": True,
        "sample_weight": None,
        "propensity": True,
    }
    scorer.set_score_request(query_id="groups")
    scorer.set_score_request(sample_weight=True)  # merged, not replacing
    assert scorer.get_metadata_routing().score.requests == {
        "query_id": "groups",
        "sample_weight": True,
        "propensity": True,
    }


def test_set_score_request_needs_routing():
    with pytest.raises(RuntimeError, match="enable_metadata_routing"):
        get_scorer("ndcg@10").set_score_request(query_id=True)


def test_direct_call_takes_query_id_without_routing(clicks):
    X, y, qid = clicks
    clf = _lr().fit(X, y)
    scorer = get_scorer("ndcg@5")
    expected = ndcg_at_k(y, clf.decision_function(X), k=5, query_id=qid)
    assert scorer(clf, X, y, query_id=qid) == pytest.approx(expected)
    assert not sklearn.get_config()["enable_metadata_routing"]
    with sklearn.config_context(enable_metadata_routing=True):
        assert scorer(clf, X, y, query_id=qid) == pytest.approx(expected)


def test_long_form_without_query_id_explains_routing(clicks):
    X, y, qid = clicks
    clf = _lr().fit(X, y)
    # routing off: the fix starts with enabling it
    with pytest.raises(ValueError, match=r"no query_id.*\. Enable metadata routing"):
        get_scorer("ndcg@10")(clf, X, y)
    with pytest.raises(ValueError, match=r"\. Enable metadata routing"):
        cross_validate(
            _lr(), X, y, groups=qid, cv=GroupKFold(3),
            scoring=make_scoring(["ndcg@10", "roc_auc"]), error_score="raise",
        )  # fmt: skip


def test_missing_query_id_with_routing_on_says_pass_it(clicks, routing):
    # the message used to start with "enable metadata routing" when it was on
    X, y, qid = clicks
    with pytest.raises(ValueError) as info:
        cross_validate(
            _lr(),
            X,
            y,
            cv=GroupKFold(3),
            params={"groups": qid},
            scoring=make_scoring(["ndcg@10", "roc_auc"]),
            error_score="raise",
        )
    message = str(info.value)
    assert "Metadata routing is enabled: pass the query ids" in message
    assert "params={'query_id': qid}" in message
    assert "Enable metadata routing" not in message


def test_direct_call_long_form(clicks, routing):
    X, y, qid = clicks
    clf = _lr().fit(X, y)
    score = clf.decision_function(X)
    for name, func, k in [
        ("ndcg@5", ndcg_at_k, {"k": 5}),
        ("mrr@3", reciprocal_rank_at_k, {"k": 3}),
        ("gauc", group_auc_score, {}),
    ]:
        got = get_scorer(name)(clf, X, y, query_id=qid)
        assert got == pytest.approx(func(y, score, query_id=qid, **k), abs=1e-12)


# ---------------------------------------------------------------------------
# The long form (CTR classifiers) in the model-selection tools
# ---------------------------------------------------------------------------
CTR_SCORING = ["ndcg@5", "map@5", "mrr@5", "gauc", "roc_auc", "neg_log_loss"]


# Each CTR scorer computed by hand from a fitted binary classifier: ranking
# and roc_auc by decision_function when there is one (sklearn's order),
# neg_log_loss by P(click).
_CTR_BY_HAND = {
    "ndcg@5": lambda y, s, p, q: ndcg_at_k(y, s, k=5, query_id=q),
    "map@5": lambda y, s, p, q: average_precision_at_k(y, s, k=5, query_id=q),
    "mrr@5": lambda y, s, p, q: reciprocal_rank_at_k(y, s, k=5, query_id=q),
    "gauc": lambda y, s, p, q: group_auc_score(y, s, query_id=q),
    "roc_auc": lambda y, s, p, q: roc_auc_score(y, s),
    "neg_log_loss": lambda y, s, p, q: -log_loss(y, p),
}


def _ctr_folds_by_hand(est, X, y, qid, cv, names, rows="test"):
    """``{name: per-fold scores}``, refitting ``est`` on each fold by hand."""
    scores = {name: [] for name in names}
    for train, test in cv.split(X, y, qid):
        fitted = clone(est).fit(X[train], y[train])
        part = train if rows == "train" else test
        proba = fitted.predict_proba(X[part])[:, 1]
        score = (
            fitted.decision_function(X[part])
            if hasattr(fitted, "decision_function")
            else proba
        )
        for name in names:
            scores[name].append(_CTR_BY_HAND[name](y[part], score, proba, qid[part]))
    return {name: np.array(values) for name, values in scores.items()}


def test_grid_search_ctr_hand_recomputed_fold(clicks, routing):
    X, y, qid = clicks
    cv = GroupKFold(n_splits=3)
    search = GridSearchCV(
        _lr(), {"C": [0.01, 1.0]}, cv=cv, scoring=make_scoring(CTR_SCORING),
        refit="ndcg@5", error_score="raise",
    )  # fmt: skip
    search.fit(X, y, groups=qid, query_id=qid)
    for i, C in enumerate([0.01, 1.0]):
        by_hand = _ctr_folds_by_hand(_lr().set_params(C=C), X, y, qid, cv, CTR_SCORING)
        for name in CTR_SCORING:
            np.testing.assert_allclose(
                search.cv_results_[f"mean_test_{name}"][i],
                by_hand[name].mean(),
                rtol=1e-10,
                err_msg=name,
            )

    # recompute fold 0 of candidate C=1 by hand
    train, test = next(cv.split(X, y, qid))
    clf = LogisticRegression(max_iter=200, C=1.0).fit(X[train], y[train])
    score = clf.decision_function(X[test])
    expected = {
        "ndcg@5": ndcg_at_k(y[test], score, k=5, query_id=qid[test]),
        "mrr@5": reciprocal_rank_at_k(y[test], score, k=5, query_id=qid[test]),
        "gauc": group_auc_score(y[test], score, query_id=qid[test]),
        "roc_auc": roc_auc_score(y[test], score),
    }
    for name, value in expected.items():
        got = search.cv_results_[f"split0_test_{name}"][1]
        assert got == pytest.approx(value, abs=1e-12), name
    # ranking metrics are not the pooled AUC on a click log
    assert expected["gauc"] != pytest.approx(expected["roc_auc"])


def test_one_groups_array_feeds_splitter_and_metric(clicks, routing):
    X, y, qid = clicks
    scoring = {
        name: get_scorer(name).set_score_request(query_id="groups")
        for name in ["ndcg@5", "gauc"]
    }
    scoring["roc_auc"] = "roc_auc"
    search = GridSearchCV(
        _lr(), {"C": [0.1, 1.0]}, cv=GroupKFold(3), scoring=scoring,
        refit="gauc", error_score="raise",
    ).fit(X, y, groups=qid)  # fmt: skip
    reference = GridSearchCV(
        _lr(), {"C": [0.1, 1.0]}, cv=GroupKFold(3),
        scoring=make_scoring(["ndcg@5", "gauc", "roc_auc"]), refit="gauc",
        error_score="raise",
    ).fit(X, y, groups=qid, query_id=qid)  # fmt: skip
    for name in scoring:
        np.testing.assert_allclose(
            search.cv_results_[f"mean_test_{name}"],
            reference.cv_results_[f"mean_test_{name}"],
        )


def test_hist_gradient_boosting_cross_validate(clicks, routing):
    X, y, qid = clicks
    with threadpool_limits(limits=1, user_api="openmp"):  # tiny fits
        results = cross_validate(
            HistGradientBoostingClassifier(max_iter=10, random_state=0), X, y,
            cv=GroupKFold(3), scoring=make_scoring(CTR_SCORING),
            params={"groups": qid, "query_id": qid}, error_score="raise",
            return_train_score=True,
        )  # fmt: skip
        hgb = HistGradientBoostingClassifier(max_iter=10, random_state=0)
        for rows in ["test", "train"]:
            by_hand = _ctr_folds_by_hand(
                hgb, X, y, qid, GroupKFold(3), CTR_SCORING, rows=rows
            )
            for name in CTR_SCORING:
                np.testing.assert_allclose(
                    results[f"{rows}_{name}"], by_hand[name], rtol=1e-10, err_msg=name
                )


def test_sample_weight_request_per_query(clicks, routing):
    X, y, qid = clicks
    weight = 1.0 + qid % 3  # one weight per user
    scorer = get_scorer("ndcg@5").set_score_request(sample_weight=True)
    cv = GroupKFold(3)
    results = cross_validate(
        _lr().set_fit_request(sample_weight=False), X, y, cv=cv, scoring=scorer,
        params={"groups": qid, "query_id": qid, "sample_weight": weight},
        error_score="raise",
    )  # fmt: skip
    train, test = next(cv.split(X, y, qid))
    score = _lr().fit(X[train], y[train]).decision_function(X[test])
    expected = ndcg_at_k(
        y[test], score, k=5, query_id=qid[test], sample_weight=weight[test]
    )
    assert results["test_score"][0] == pytest.approx(expected)
    assert expected != pytest.approx(ndcg_at_k(y[test], score, k=5, query_id=qid[test]))


def test_cross_val_score(clicks, routing):
    X, y, qid = clicks
    scores = cross_val_score(
        _lr(), X, y, cv=GroupKFold(3), scoring=get_scorer("map@5"),
        params={"groups": qid, "query_id": qid}, error_score="raise",
    )  # fmt: skip
    by_hand = _ctr_folds_by_hand(_lr(), X, y, qid, GroupKFold(3), ["map@5"])
    np.testing.assert_allclose(scores, by_hand["map@5"], rtol=1e-10)


def test_randomized_search(clicks, routing):
    X, y, qid = clicks
    search = RandomizedSearchCV(
        make_pipeline(StandardScaler(), _lr()),
        {"logisticregression__C": [0.001, 0.01, 0.1, 1.0, 10.0]},
        n_iter=3, cv=GroupKFold(3), scoring=make_scoring(["ndcg@5", "gauc"]),
        refit="ndcg@5", random_state=0, error_score="raise",
    ).fit(X, y, groups=qid, query_id=qid)  # fmt: skip
    for i, params in enumerate(search.cv_results_["params"]):
        est = make_pipeline(StandardScaler(), _lr()).set_params(**params)
        by_hand = _ctr_folds_by_hand(est, X, y, qid, GroupKFold(3), ["ndcg@5", "gauc"])
        for name in ["ndcg@5", "gauc"]:
            assert search.cv_results_[f"mean_test_{name}"][i] == pytest.approx(
                by_hand[name].mean(), rel=1e-10
            )
    assert search.score(X, y, query_id=qid) == pytest.approx(
        ndcg_at_k(y, search.decision_function(X), k=5, query_id=qid)
    )


def test_halving_grid_search(clicks, routing):
    X, y, qid = clicks
    search = HalvingGridSearchCV(
        _lr(), {"C": [0.001, 0.1, 1.0, 10.0]}, factor=2, cv=GroupKFold(3),
        scoring=get_scorer("ndcg@5"), random_state=0, error_score="raise",
    ).fit(X, y, groups=qid, query_id=qid)  # fmt: skip
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
    assert search.n_iterations_ >= 2


def test_n_jobs_2_matches_sequential(clicks, routing):
    X, y, qid = clicks
    kwargs = dict(
        param_grid={"C": [0.1, 1.0]}, cv=GroupKFold(3), refit="ndcg@5",
        scoring=make_scoring(["ndcg@5", "gauc", "roc_auc"]), error_score="raise",
    )  # fmt: skip
    parallel = GridSearchCV(_lr(), n_jobs=2, **kwargs)
    parallel.fit(X, y, groups=qid, query_id=qid)
    sequential = GridSearchCV(_lr(), n_jobs=1, **kwargs)
    sequential.fit(X, y, groups=qid, query_id=qid)
    for name in ["ndcg@5", "gauc", "roc_auc"]:
        np.testing.assert_allclose(
            parallel.cv_results_[f"mean_test_{name}"],
            sequential.cv_results_[f"mean_test_{name}"],
        )


def test_fitted_search_pickles(clicks, routing):
    X, y, qid = clicks
    search = GridSearchCV(
        _lr(), {"C": [0.1, 1.0]}, cv=GroupKFold(3),
        scoring=make_scoring(["ndcg@5", "gauc", "roc_auc"], gain="exponential"),
        refit="ndcg@5", error_score="raise",
    ).fit(X, y, groups=qid, query_id=qid)  # fmt: skip
    before = search.score(X, y, query_id=qid)
    restored = pickle.loads(pickle.dumps(search))
    assert restored.score(X, y, query_id=qid) == before
    assert before == pytest.approx(
        ndcg_at_k(y, search.decision_function(X), k=5, query_id=qid, gain="exponential")
    )


def test_scorer_pickles_with_its_requests(routing):
    scorer = get_scorer("map@10", ap_denominator="min_k", pos_label="yes")
    scorer.set_score_request(query_id="groups")
    restored = pickle.loads(pickle.dumps(scorer))
    assert repr(restored) == repr(scorer)
    assert restored.get_metadata_routing().score.requests["query_id"] == "groups"


def test_validation_curve_long_form(clicks, routing):
    X, y, qid = clicks
    if "params" not in inspect.signature(validation_curve).parameters:
        # scikit-learn < 1.6: validation_curve cannot route query ids, so the
        # scorer must say so instead of scoring the pooled rows.
        with pytest.raises(ValueError, match="query_id"):
            validation_curve(
                _lr(), X, y, param_name="C", param_range=[1.0], cv=GroupKFold(3),
                groups=qid, scoring=get_scorer("gauc"), error_score="raise",
            )  # fmt: skip
        return
    train, test = validation_curve(
        _lr(), X, y, param_name="C", param_range=[0.1, 1.0], cv=GroupKFold(3),
        scoring=get_scorer("gauc"), params={"groups": qid, "query_id": qid},
        error_score="raise",
    )  # fmt: skip
    assert train.shape == test.shape == (2, 3)
    for i, C in enumerate([0.1, 1.0]):
        est = _lr().set_params(C=C)
        for rows, got in [("test", test), ("train", train)]:
            by_hand = _ctr_folds_by_hand(
                est, X, y, qid, GroupKFold(3), ["gauc"], rows=rows
            )
            np.testing.assert_allclose(got[i], by_hand["gauc"], rtol=1e-10)


def test_permutation_importance_long_form(clicks):
    # no routing in permutation_importance: bind the query ids of this X
    X, y, qid = clicks
    clf = _lr().fit(X, y)
    scorer = get_scorer("gauc", query_id=qid)
    assert scorer(clf, X, y) == pytest.approx(
        group_auc_score(y, clf.decision_function(X), query_id=qid)
    )
    result = permutation_importance(
        clf, X, y, scoring=scorer, n_repeats=2, random_state=0
    )
    assert result.importances.shape == (X.shape[1], 2)
    assert np.isfinite(result.importances).all()


def test_string_classes_and_pos_label(clicks, routing):
    X, y, qid = clicks
    labels = np.where(y == 1, "click", "skip")  # classes_ = ["click", "skip"]
    clf = _lr().fit(X, labels)
    numeric = _lr().fit(X, y)
    with_pos = get_scorer("ndcg@5", pos_label="click")(clf, X, labels, query_id=qid)
    assert with_pos == pytest.approx(get_scorer("ndcg@5")(numeric, X, y, query_id=qid))
    # "skip" is relevant only when asked for
    skip = get_scorer("ndcg@5", pos_label="skip")(clf, X, labels, query_id=qid)
    assert skip == pytest.approx(
        ndcg_at_k(labels == "skip", clf.decision_function(X), k=5, query_id=qid)
    )
    assert skip != pytest.approx(with_pos)
    with pytest.raises(ValueError, match="pos_label='buy' is not a class"):
        get_scorer("ndcg@5", pos_label="buy")(clf, X, labels, query_id=qid)
    # and in a search, with pandas inputs
    pd = pytest.importorskip("pandas")
    search = GridSearchCV(
        _lr(),
        {"C": [0.1, 1.0]},
        cv=GroupKFold(3),
        refit="ndcg@5",
        scoring=make_scoring(["ndcg@5", "gauc", "roc_auc"], pos_label="click"),
        error_score="raise",
    ).fit(pd.DataFrame(X), pd.Series(labels), groups=qid, query_id=pd.Series(qid))
    reference = GridSearchCV(
        _lr(),
        {"C": [0.1, 1.0]},
        cv=GroupKFold(3),
        refit="ndcg@5",
        scoring=make_scoring(["ndcg@5", "gauc", "roc_auc"]),
        error_score="raise",
    ).fit(X, y, groups=qid, query_id=qid)
    for name in ["ndcg@5", "gauc", "roc_auc"]:
        np.testing.assert_allclose(
            search.cv_results_[f"mean_test_{name}"],
            reference.cv_results_[f"mean_test_{name}"],
            rtol=1e-6,
        )


def _categorical(values):
    pd = pytest.importorskip("pandas")
    return pd.Series(pd.Categorical(values))


@pytest.mark.parametrize(
    "make_labels, pos",
    [
        (lambda y: np.where(y == 1, "click", "skip"), "click"),
        (lambda y: np.where(y == 1, "yes", "no"), "yes"),
        (lambda y: y + 1, 2),  # {1, 2}
        (lambda y: 2 * y, 2),  # {0, 2}
        (lambda y: _categorical(np.where(y == 1, "click", "skip")), "click"),
    ],
    ids=["click-skip", "no-yes", "1-2", "0-2", "categorical"],
)
@pytest.mark.parametrize("name", ["ndcg@5", "gauc"])
def test_binary_labels_without_pos_label_raise(clicks, routing, make_labels, pos, name):
    # classes_[-1] used to be taken as relevant whatever the labels: with
    # "click"/"skip", "skip" was scored as the relevant class, silently
    X, y, qid = clicks
    labels = make_labels(y)
    clf = _lr().fit(X, labels)
    scorer = get_scorer(name)
    with pytest.raises(ValueError, match=r"fitted on the classes .*Pass pos_label="):
        scorer(clf, X, labels, query_id=qid)
    # the same in a search, where the message reaches the user too
    with pytest.raises(ValueError, match="pos_label="):
        GridSearchCV(
            _lr(),
            {"C": [1.0]},
            cv=GroupKFold(3),
            scoring=make_scoring([name, "roc_auc"]),
            refit=name,
            error_score="raise",
        ).fit(X, labels, groups=qid, query_id=qid)
    # with pos_label: the score of the 0/1 problem (pos is y == 1)
    got = get_scorer(name, pos_label=pos)(clf, X, labels, query_id=qid)
    expected = get_scorer(name)(_lr().fit(X, y), X, y, query_id=qid)
    assert got == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("classes", [(0, 1), (-1, 1), (False, True), (0.0, 1.0)])
def test_symmetric_binary_labels_default_to_the_last_class(clicks, classes):
    X, y, qid = clicks
    labels = np.where(y == 1, classes[1], classes[0])
    clf = _lr().fit(X, labels)
    expected = ndcg_at_k(y, clf.decision_function(X), k=5, query_id=qid)
    assert get_scorer("ndcg@5")(clf, X, labels, query_id=qid) == pytest.approx(
        expected, abs=1e-12
    )


@pytest.mark.parametrize(
    "est",
    [  # decision_function (negated for classes_[0]) and predict_proba only
        LogisticRegression(max_iter=200),
        RandomForestClassifier(n_estimators=5, max_depth=3, random_state=0),
    ],
    ids=["logistic", "forest"],
)
def test_pos_label_keeps_sklearns_cached_scores_right(clicks, routing, est):
    # pos_label="click" is classes_[0]: the shared prediction cache must
    # still hold classes_[-1]'s scores for "roc_auc" and "neg_log_loss"
    X, y, qid = clicks
    labels = np.where(y == 1, "click", "skip")
    cv = GroupKFold(3)
    names = ["ndcg@5", "roc_auc", "gauc", "neg_log_loss"]
    mixed = cross_validate(
        est, X, labels, cv=cv, scoring=make_scoring(names, pos_label="click"),
        params={"groups": qid, "query_id": qid}, error_score="raise",
    )  # fmt: skip
    alone = cross_validate(
        est, X, labels, cv=cv, scoring=["roc_auc", "neg_log_loss"],
        params={"groups": qid}, error_score="raise",
    )  # fmt: skip
    numeric = cross_validate(
        est, X, y, cv=cv, scoring=make_scoring(["ndcg@5", "gauc"]),
        params={"groups": qid, "query_id": qid}, error_score="raise",
    )  # fmt: skip
    for name in ["roc_auc", "neg_log_loss"]:
        np.testing.assert_allclose(mixed[f"test_{name}"], alone[f"test_{name}"])
    for name in ["ndcg@5", "gauc"]:
        np.testing.assert_allclose(
            mixed[f"test_{name}"], numeric[f"test_{name}"], rtol=1e-6
        )


def test_regressor_and_graded_classifier_long_form(routing):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(120, 3))
    grade = np.clip(np.round(X[:, 0] + 1 + 0.5 * rng.normal(size=120)), 0, 2)
    qid = np.repeat(np.arange(12), 10)
    ridge = Ridge().fit(X, grade)
    assert get_scorer("ndcg@5")(ridge, X, grade, query_id=qid) == pytest.approx(
        ndcg_at_k(grade, ridge.predict(X), k=5, query_id=qid)
    )
    clf = _lr().fit(X, grade.astype(int))  # classes 0, 1, 2: expected grade
    expected_grade = clf.predict_proba(X) @ np.array([0.0, 1.0, 2.0])
    assert get_scorer("ndcg@5")(clf, X, grade, query_id=qid) == pytest.approx(
        ndcg_at_k(grade, expected_grade, k=5, query_id=qid)
    )
    results = cross_validate(
        Ridge(), X, grade, cv=GroupKFold(3), scoring=make_scoring(["ndcg@5", "r2"]),
        params={"groups": qid, "query_id": qid}, error_score="raise",
    )  # fmt: skip
    assert np.isfinite(results["test_ndcg@5"]).all()


class _CountingLR(LogisticRegression):
    calls = []

    def decision_function(self, X):
        _CountingLR.calls.append(len(X))
        return super().decision_function(X)


def test_shares_sklearns_prediction_cache(clicks, routing):
    X, y, qid = clicks
    _CountingLR.calls.clear()
    cross_validate(
        _CountingLR(max_iter=200), X, y, cv=GroupKFold(2),
        scoring=make_scoring(["ndcg@5", "gauc", "roc_auc"]),
        params={"groups": qid, "query_id": qid}, error_score="raise",
    )  # fmt: skip
    assert len(_CountingLR.calls) == 2  # one call per fold for three scorers


# ---------------------------------------------------------------------------
# The 2-D form (one query per row) with multilabel estimators
# ---------------------------------------------------------------------------
MULTILABEL_ESTIMATORS = {
    "forest": RandomForestClassifier(n_estimators=5, random_state=0),
    "knn": KNeighborsClassifier(n_neighbors=3),
    "ovr": OneVsRestClassifier(LogisticRegression(max_iter=200)),
    # LogisticRegression cannot fit a label constant in a fold; a tree can
    "multioutput": MultiOutputClassifier(
        DecisionTreeClassifier(max_depth=3, random_state=0)
    ),
    "mlp": MLPClassifier(hidden_layer_sizes=(8,), max_iter=100, random_state=0),
}
ML_SCORING = ["ndcg@3", "map@3", "mrr@3", "precision@2", "recall@2", "gauc"]
_ML_BY_HAND = {
    "ndcg@3": lambda Y, S: ndcg_at_k(Y, S, k=3),
    "map@3": lambda Y, S: average_precision_at_k(Y, S, k=3),
    "mrr@3": lambda Y, S: reciprocal_rank_at_k(Y, S, k=3),
    "precision@2": lambda Y, S: precision_at_k(Y, S, k=2),
    "recall@2": lambda Y, S: recall_at_k(Y, S, k=2),
    "gauc": lambda Y, S: group_auc_score(Y, S),
}


def _label_scores(est, X):
    """What a 2-D ranking should be ranked by, computed the obvious way."""
    method = (
        est.decision_function
        if hasattr(est, "decision_function")
        else est.predict_proba
    )
    out = method(X)
    if isinstance(out, list):  # per-label (n, n_classes_j); classes are 0/1
        return np.column_stack(
            [
                p[:, list(c).index(1)] if 1 in c else np.zeros(len(X))
                for p, c in zip(out, est.classes_, strict=True)
            ]
        )
    return out


@pytest.mark.parametrize("est_name", list(MULTILABEL_ESTIMATORS))
@pytest.mark.parametrize("n_labels", [5, 2])
def test_multilabel_cross_validate_no_routing(multilabel, est_name, n_labels):
    X, Y = multilabel
    Y = Y[:, :n_labels].copy()
    Y[:40, 1] = 0  # label 1 is constant in the training rows of fold 2
    Y[40:, 1] = np.arange(20) % 2
    est = MULTILABEL_ESTIMATORS[est_name]
    cv = KFold(3)
    results = cross_validate(
        est, X, Y, cv=cv, scoring=make_scoring(ML_SCORING), error_score="raise"
    )
    # recompute each fold by hand
    for i, (train, test) in enumerate(cv.split(X, Y)):
        fitted = clone(est).fit(X[train], Y[train])
        scores = _label_scores(fitted, X[test])
        assert scores.shape == (len(test), n_labels)
        for name in ML_SCORING:
            expected = _ML_BY_HAND[name](Y[test], scores)
            assert results[f"test_{name}"][i] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("est_name", ["forest", "knn", "multioutput"])
def test_multilabel_label_constant_in_training_fold(multilabel, est_name):
    X, Y = multilabel
    Y = Y[:, :4].copy()
    Y[:40, 2] = 0  # constant in the training rows below; ragged predict_proba
    Y[40:, 2] = 1
    est = clone(MULTILABEL_ESTIMATORS[est_name]).fit(X[:40], Y[:40])
    proba = est.predict_proba(X[40:])
    assert {p.shape[1] for p in proba} == {1, 2}  # the ragged list
    expected = np.column_stack([p[:, 1] if p.shape[1] == 2 else 0 * p[:, 0]
                                for p in proba])  # fmt: skip
    for name, func in [("ndcg@2", ndcg_at_k), ("map@2", average_precision_at_k)]:
        assert get_scorer(name)(est, X[40:], Y[40:]) == pytest.approx(
            func(Y[40:], expected, k=2)
        )


@pytest.mark.parametrize("est_name", ["ovr", "mlp"])
def test_two_labels_do_not_collapse(multilabel, est_name):
    X, Y = multilabel
    Y = Y[:, :2]
    est = clone(MULTILABEL_ESTIMATORS[est_name]).fit(X, Y)
    # classes_ == [0, 1] looks binary to scikit-learn, whose processing of
    # predict_proba keeps only the second label
    assert list(est.classes_) == [0, 1]
    scores = _label_scores(est, X)
    assert scores.shape == (60, 2)
    assert get_scorer("ndcg@1")(est, X, Y) == pytest.approx(ndcg_at_k(Y, scores, k=1))


@pytest.mark.parametrize(
    "est_name, param_grid",
    [
        ("forest", {"max_depth": [2, None]}),
        ("knn", {"n_neighbors": [3, 5]}),
        ("ovr", {"estimator__C": [0.1, 1.0]}),
        ("multioutput", {"estimator__max_depth": [2, 4]}),
        ("mlp", {"alpha": [1e-4, 1e-2]}),
    ],
)
def test_multilabel_grid_search_with_and_without_routing(
    multilabel, est_name, param_grid
):
    X, Y = multilabel
    kwargs = dict(
        cv=KFold(3), scoring=make_scoring(["ndcg@3", "gauc"]), refit="ndcg@3",
        error_score="raise",
    )  # fmt: skip
    est = MULTILABEL_ESTIMATORS[est_name]
    plain = GridSearchCV(est, param_grid, **kwargs).fit(X, Y)
    with sklearn.config_context(enable_metadata_routing=True):
        routed = GridSearchCV(est, param_grid, **kwargs).fit(X, Y)
    for name in ["ndcg@3", "gauc"]:
        np.testing.assert_allclose(
            plain.cv_results_[f"mean_test_{name}"],
            routed.cv_results_[f"mean_test_{name}"],
        )
    # the best candidate's folds by hand
    best = plain.best_index_
    for i, (train, test) in enumerate(KFold(3).split(X, Y)):
        fitted = clone(est).set_params(**plain.best_params_).fit(X[train], Y[train])
        scores = _label_scores(fitted, X[test])
        for name in ["ndcg@3", "gauc"]:
            assert plain.cv_results_[f"split{i}_test_{name}"][best] == pytest.approx(
                _ML_BY_HAND[name](Y[test], scores), abs=1e-12
            )


def test_multilabel_validation_curve_and_halving(multilabel):
    X, Y = multilabel
    train, test = validation_curve(
        KNeighborsClassifier(), X, Y, param_name="n_neighbors",
        param_range=[1, 3, 5], cv=KFold(3), scoring=get_scorer("ndcg@3"),
        error_score="raise",
    )  # fmt: skip
    assert test.shape == (3, 3) and np.isfinite(test).all()
    assert (train[0] == 1.0).all()  # 1-NN reproduces its training rows
    # Halving's n_samples resource resamples stratified by y, which
    # scikit-learn cannot do for a 2-D y: spend trees instead.
    search = HalvingGridSearchCV(
        RandomForestClassifier(random_state=0), {"max_depth": [1, 2, 4, None]},
        resource="n_estimators", min_resources=3, max_resources=12, factor=2,
        cv=KFold(3), scoring=get_scorer("map@3"), random_state=0,
        error_score="raise",
    ).fit(X, Y)  # fmt: skip
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
    assert search.n_iterations_ >= 2


def test_multilabel_permutation_importance(multilabel):
    X, Y = multilabel
    forest = RandomForestClassifier(n_estimators=10, random_state=0).fit(X, Y)
    result = permutation_importance(
        forest, X, Y, scoring=make_scoring(["ndcg@3", "gauc"]), n_repeats=2,
        random_state=0,
    )  # fmt: skip
    assert set(result) == {"ndcg@3", "gauc"}
    assert np.isfinite(result["ndcg@3"].importances).all()
    assert result["ndcg@3"].importances_mean.max() > 0


def test_multilabel_scores_shape_mismatch(multilabel):
    X, Y = multilabel
    clf = OneVsRestClassifier(LogisticRegression(max_iter=200)).fit(X, Y)
    with pytest.raises(ValueError, match="columns"):
        get_scorer("ndcg@3")(clf, X, Y[:, :3])


@pytest.mark.parametrize("name", ["precision", "recall", "f1"])
def test_sklearn_names_are_not_shadowed(name):
    # without "@k" these are scikit-learn's classification scorers
    from sklearn.metrics import get_scorer as sklearn_get_scorer

    assert repr(get_scorer(name)) == repr(sklearn_get_scorer(name))
    assert (
        type(get_scorer(f"{name}@5")).__module__
        == "sklearn_rankmetrics._scoring._scorer"
    )


# ---------------------------------------------------------------------------
# Branches of the scorer that a changed line would break silently
# ---------------------------------------------------------------------------
def test_routed_metadata_override_fixed_options_and_warn(clicks, routing):
    X, y, qid = clicks
    clf = _lr().fit(X, y)
    score = clf.decision_function(X)
    fixed = np.zeros_like(qid)  # one big query: the pooled AUC
    scorer = get_scorer("gauc", query_id=fixed)
    assert scorer(clf, X, y) == pytest.approx(roc_auc_score(y, score))
    with pytest.warns(UserWarning, match=r"routed metadata \['query_id'\] override"):
        got = scorer(clf, X, y, query_id=qid)
    expected = group_auc_score(y, score, query_id=qid)
    assert got == pytest.approx(expected, abs=1e-12)
    assert expected != pytest.approx(roc_auc_score(y, score))
    # setting a request for a fixed option warns too
    with pytest.warns(UserWarning, match="override the values fixed"):
        get_scorer("gauc", query_id=fixed).set_score_request(query_id="groups")


def test_routed_metadata_override_in_a_multimetric_search(clicks, routing):
    # the same through scikit-learn's multi-metric scoring (the cached path)
    X, y, qid = clicks
    cv = GroupKFold(3)
    scoring = {
        "gauc": get_scorer("gauc", query_id=np.zeros_like(qid)),
        "roc_auc": "roc_auc",
    }
    with pytest.warns(UserWarning, match="override"):
        results = cross_validate(
            _lr(),
            X,
            y,
            cv=cv,
            scoring=scoring,
            params={"groups": qid, "query_id": qid},
            error_score="raise",
        )
    by_hand = _ctr_folds_by_hand(_lr(), X, y, qid, cv, ["gauc"])
    np.testing.assert_allclose(results["test_gauc"], by_hand["gauc"], rtol=1e-10)


def test_column_vector_target_is_the_long_form(clicks, routing):
    # y of shape (n, 1) (a one-column DataFrame, or y[:, None]) is 1-D data
    X, y, qid = clicks
    clf = _lr().fit(X, y)
    expected = ndcg_at_k(y, clf.decision_function(X), k=5, query_id=qid)
    scorer = get_scorer("ndcg@5")
    assert scorer(clf, X, y[:, None], query_id=qid) == pytest.approx(expected)
    labels = np.where(y == 1, "click", "skip")
    labelled = _lr().fit(X, labels)
    got = get_scorer("ndcg@5", pos_label="click")(
        labelled, X, labels[:, None], query_id=qid
    )
    assert got == pytest.approx(expected, rel=1e-6)
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"clicked": y})
    assert scorer(clf, X, frame, query_id=qid) == pytest.approx(expected)


class _FixedProba(ClassifierMixin, BaseEstimator):
    """A classifier whose P(classes_[0]) is tiny: 1 - P(classes_[1]) is 0."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        first = np.asarray(X, dtype=np.float64)[:, 0] * 1e-20
        return np.column_stack([first, 1.0 - first])


def test_pos_label_first_class_reads_its_own_probability():
    # P("click") = 1e-20 * x differ, but P("skip") = 1 - P("click") rounds to
    # 1.0 for all: scores computed as 1 - P("skip") would be all 0, one tie
    X = np.array([[1.0], [2.0], [3.0], [4.0]])
    labels = np.array(["skip", "skip", "skip", "click"])
    qid = np.zeros(4, dtype=int)
    clf = _FixedProba().fit(X, labels)
    assert (1.0 - clf.predict_proba(X)[:, 1] == 0.0).all()
    scorer = get_scorer("mrr@4", pos_label="click")
    # the click has the largest P("click"): rank 1 (a 4-way tie would give
    # (1 + 1/2 + 1/3 + 1/4) / 4 = 0.52)
    assert scorer(clf, X, labels, query_id=qid) == 1.0
    with sklearn.config_context(enable_metadata_routing=True):
        results = cross_validate(
            clf,
            np.tile(X, (3, 1)),
            np.tile(labels, 3),
            cv=GroupKFold(3),
            scoring=make_scoring(["mrr@4", "roc_auc"], pos_label="click"),
            params={
                "groups": np.repeat([0, 1, 2], 4),
                "query_id": np.repeat([0, 1, 2], 4),
            },
            error_score="raise",
        )
    np.testing.assert_array_equal(results["test_mrr@4"], [1.0, 1.0, 1.0])


def test_lightgbm_ap_denominator_worked_case_runs_everywhere():
    # One query, items in score order: relevance 1 0 1 1 0 1, so R = 4
    # relevant items, more than k = 3.  In the top 3 the hits are at ranks 1
    # and 3: precisions 1/1 and 2/3, their sum 5/3.
    #   lightgbm divides by min(R, k) = 3:  5/3 / 3 = 5/9
    #   the default divides by R = 4:       5/3 / 4 = 5/12
    from sklearn_rankmetrics import average_precision_at_k as ap

    y = [[1, 0, 1, 1, 0, 1]]
    s = [[6, 5, 4, 3, 2, 1]]
    lgb = ap(y, s, k=3, convention="lightgbm")
    assert lgb == pytest.approx(5 / 9, rel=1e-14)
    assert ap(y, s, k=3) == pytest.approx(5 / 12, rel=1e-14)
