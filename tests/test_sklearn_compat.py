"""The private scikit-learn API the scorers rely on, pinned; and the fallback.

Each test of the first part fails with a message saying which private
scikit-learn hook changed.  If one fails after a scikit-learn release,
``_sklearn_compat.HAS_SCORER_HOOKS`` is (or should be made) False for it,
and the scorers fall back to the public-API ``_RankingScorer`` tested in the
second part: slower (no shared predictions), with the same values.
"""

import importlib
import inspect
import pickle

import numpy as np
import pytest
import sklearn
from sklearn.datasets import make_multilabel_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, GroupKFold, KFold, cross_validate
from sklearn.multiclass import OneVsRestClassifier
from sklearn.neighbors import KNeighborsClassifier

from sklearn_rankmetrics import average_precision_at_k, get_scorer, make_scoring
from sklearn_rankmetrics._scoring import _scorer
from sklearn_rankmetrics._utils import _sklearn_compat
from sklearn_rankmetrics.datasets import make_click_log

pytestmark = pytest.mark.filterwarnings(
    "ignore:Label .*present in all training:UserWarning"
)

_PRIVATE = importlib.import_module("sklearn.metrics._scorer")


def _params(func):
    return list(inspect.signature(func).parameters)


# ---------------------------------------------------------------------------
# The pinned private API
# ---------------------------------------------------------------------------
def test_every_scorer_hook_is_available():
    missing = _sklearn_compat.MISSING_SCORER_HOOKS
    assert not missing, (
        f"scikit-learn {sklearn.__version__} changed private scorer API that "
        "sklearn_rankmetrics uses for its prediction cache; the scorers fall "
        "back to the uncached public path. Changed: " + "; ".join(missing)
    )
    assert _sklearn_compat.HAS_SCORER_HOOKS
    assert isinstance(get_scorer("ndcg@5"), _scorer._CachedRankingScorer)


@pytest.mark.parametrize(
    "change, reported",
    [
        (lambda mp: mp.delattr(_PRIVATE._Scorer, "_score"), "has no _score method"),
        (
            lambda mp: mp.setattr(_PRIVATE, "_cached_call", lambda estimator: None),
            "_cached_call takes ['estimator']",
        ),
        (
            lambda mp: mp.setattr(_PRIVATE, "_get_response_values", lambda X: None),
            "takes no pos_label",
        ),
        (
            lambda mp: mp.setattr(
                _sklearn_compat.SklearnScorer,
                "__init__",
                lambda self, score_func, kwargs: None,
            ),
            "__init__ takes ['score_func', 'kwargs']",
        ),
    ],
    ids=["no-_score", "_cached_call", "_get_response_values", "__init__"],
)
def test_a_changed_hook_is_reported(monkeypatch, change, reported):
    assert _sklearn_compat.missing_scorer_hooks() == []
    change(monkeypatch)
    missing = _sklearn_compat.missing_scorer_hooks()
    assert len(missing) == 1 and reported in missing[0], missing


def test_scorer_class_init_takes_score_func_sign_kwargs_response_method():
    params = _params(_sklearn_compat.SklearnScorer.__init__)
    assert params[1:5] == ["score_func", "sign", "kwargs", "response_method"], (
        "make_scorer's class changed its __init__ positional arguments to "
        f"{params[1:]}; CachedScorerMixin._init_sklearn_scorer passes "
        "(score_func, 1, kwargs, response_method)"
    )
    scorer = get_scorer("map@3", ap_denominator="min_k")
    assert scorer._score_func is average_precision_at_k
    assert scorer._sign == 1
    assert scorer._kwargs == {"k": 3, "ap_denominator": "min_k"}
    assert scorer._response_method == ("decision_function", "predict_proba", "predict")


def test_score_hook_signature():
    params = _params(_sklearn_compat.SklearnScorer._score)
    assert params[1:5] == ["method_caller", "estimator", "X", "y_true"], (
        f"_Scorer._score now takes {params[1:]}; CachedScorerMixin._score "
        "overrides _score(method_caller, estimator, X, y_true, **kwargs)"
    )


def test_method_caller_signature():
    # _MultimetricScorer passes partial(_cached_call, cache) as method_caller;
    # the scorer calls method_caller(estimator, method, X, pos_label=...)
    assert _params(_PRIVATE._cached_call)[:3] == [
        "cache",
        "estimator",
        "response_method",
    ], f"_cached_call is now {inspect.signature(_PRIVATE._cached_call)}"
    # _cached_call forwards pos_label to _get_response_values
    assert "pos_label" in _params(_PRIVATE._get_response_values), (
        "_get_response_values no longer takes pos_label"
    )


def test_multimetric_scoring_calls_the_score_hook_with_a_shared_cache(monkeypatch):
    # the cache exists only for _BaseScorer instances, reached via _score
    assert issubclass(_scorer._CachedRankingScorer, _PRIVATE._BaseScorer)
    calls = []
    original = _scorer._CachedRankingScorer._score

    def spy(self, method_caller, *args, **kwargs):
        calls.append(method_caller)
        return original(self, method_caller, *args, **kwargs)

    monkeypatch.setattr(_scorer._CachedRankingScorer, "_score", spy)
    X, y, qid = make_click_log(n_users=20, n_impressions=(4, 8), random_state=0)
    with sklearn.config_context(enable_metadata_routing=True):
        cross_validate(
            LogisticRegression(),
            X,
            y,
            cv=GroupKFold(2),
            scoring=make_scoring(["ndcg@5", "gauc", "roc_auc"]),
            params={"groups": qid, "query_id": qid},
            error_score="raise",
        )
    assert len(calls) == 4, "_MultimetricScorer no longer calls scorer._score"
    cache = calls[0].args[0]
    assert isinstance(cache, dict) and "decision_function" in cache, (
        "the method_caller's first bound argument is no longer the shared cache"
    )


def test_metadata_request_built_by_hand():
    request = _sklearn_compat.score_request("owner", {"query_id": "groups"})
    assert request.score.requests == {"query_id": "groups"}, (
        "MetadataRequest(owner=...).score.add_request(param=, alias=) changed"
    )
    with sklearn.config_context(enable_metadata_routing=True):
        routing = get_scorer("ndcg@5").get_metadata_routing()
    assert routing.score.requests == {
        "query_id": True,
        "sample_weight": None,
        "propensity": True,  # ndcg_at_k takes propensity=
    }


def test_routing_messages_name_the_scorer():
    # _routing_repr (>= 1.8) or the owner string (older) names the scorer
    X, y, qid = make_click_log(n_users=12, n_impressions=(4, 8), random_state=0)
    with sklearn.config_context(enable_metadata_routing=True):
        with pytest.raises(ValueError, match=r"get_scorer\('ndcg@5'\)"):
            cross_validate(
                LogisticRegression().set_fit_request(sample_weight=False),
                X,
                y,
                cv=GroupKFold(2),
                scoring=make_scoring(["ndcg@5", "roc_auc"]),
                params={"groups": qid, "query_id": qid, "sample_weight": qid},
                error_score="raise",
            )


@pytest.mark.parametrize(
    "est",
    [
        RandomForestClassifier(n_estimators=3, random_state=0),
        KNeighborsClassifier(n_neighbors=3),
        OneVsRestClassifier(LogisticRegression()),
    ],
    ids=["forest", "knn", "ovr"],
)
@pytest.mark.parametrize("n_labels", [2, 4])
def test_cached_output_is_exact_means_what_it_says(est, n_labels):
    # when cached_output_is_exact says so, scikit-learn's processed
    # (cached) predictions are the per-label scores the raw path computes
    X, Y = make_multilabel_classification(
        n_samples=40, n_features=5, n_classes=n_labels, random_state=0
    )
    fitted = est.fit(X, Y)
    for method in ("decision_function", "predict_proba"):
        if not hasattr(fitted, method):
            continue
        raw = _scorer._multilabel_scores(fitted, X, method, None, n_labels)
        if _sklearn_compat.cached_output_is_exact(method, fitted.classes_):
            cached = _PRIVATE._cached_call(None, fitted, method, X, pos_label=None)
            np.testing.assert_allclose(
                cached, raw, err_msg=f"scikit-learn's processed {method} changed"
            )


# ---------------------------------------------------------------------------
# The public-API fallback, forced
# ---------------------------------------------------------------------------
@pytest.fixture
def no_hooks(monkeypatch):
    monkeypatch.setattr(_sklearn_compat, "HAS_SCORER_HOOKS", False)


@pytest.fixture(scope="module")
def clicks():
    return make_click_log(n_users=40, n_impressions=(4, 12), random_state=0)


def test_fallback_is_a_plain_callable(no_hooks):
    scorer = get_scorer("ndcg@5", gain="exponential")
    assert type(scorer) is _scorer._RankingScorer
    assert not isinstance(scorer, _PRIVATE._BaseScorer)
    assert repr(scorer) == "get_scorer('ndcg@5', gain='exponential')"
    with sklearn.config_context(enable_metadata_routing=True):
        scorer.set_score_request(query_id="groups")
        requests = scorer.get_metadata_routing().score.requests
    assert requests == {
        "query_id": "groups",
        "sample_weight": None,
        "propensity": True,  # ndcg_at_k takes propensity=
    }
    assert repr(pickle.loads(pickle.dumps(scorer))) == repr(scorer)


def _search(X, y, qid, names, **options):
    return GridSearchCV(
        LogisticRegression(),
        {"C": [0.01, 1.0]},
        cv=GroupKFold(3),
        scoring=make_scoring(names, **options),
        refit=names[0],
        error_score="raise",
    ).fit(X, y, groups=qid, query_id=qid)


def test_fallback_grid_search_with_routing_gives_equal_results(clicks, monkeypatch):
    X, y, qid = clicks
    labels = np.where(y == 1, "click", "skip")
    names = ["ndcg@5", "map@5", "gauc", "roc_auc", "neg_log_loss"]
    with sklearn.config_context(enable_metadata_routing=True):
        cached = _search(X, y, qid, names)
        cached_labels = _search(X, labels, qid, names, pos_label="click")
        monkeypatch.setattr(_sklearn_compat, "HAS_SCORER_HOOKS", False)
        assert type(make_scoring(names)["ndcg@5"]) is _scorer._RankingScorer
        plain = _search(X, y, qid, names)
        plain_labels = _search(X, labels, qid, names, pos_label="click")
        assert plain.score(X, y, query_id=qid) == cached.score(X, y, query_id=qid)
    for name in names:
        key = f"mean_test_{name}"
        np.testing.assert_allclose(plain.cv_results_[key], cached.cv_results_[key])
        np.testing.assert_allclose(
            plain_labels.cv_results_[key], cached_labels.cv_results_[key]
        )


def test_fallback_multilabel_search_gives_equal_results(monkeypatch):
    X, Y = make_multilabel_classification(
        n_samples=60, n_features=6, n_classes=4, random_state=0
    )
    kwargs = dict(
        cv=KFold(3),
        scoring=make_scoring(["ndcg@3", "gauc"]),
        refit="ndcg@3",
        error_score="raise",
    )
    grid = {"n_neighbors": [3, 5]}
    cached = GridSearchCV(KNeighborsClassifier(), grid, **kwargs).fit(X, Y)
    monkeypatch.setattr(_sklearn_compat, "HAS_SCORER_HOOKS", False)
    kwargs["scoring"] = make_scoring(["ndcg@3", "gauc"])
    with sklearn.config_context(enable_metadata_routing=True):
        plain = GridSearchCV(KNeighborsClassifier(), grid, **kwargs).fit(X, Y)
    for name in ["ndcg@3", "gauc"]:
        key = f"mean_test_{name}"
        np.testing.assert_allclose(plain.cv_results_[key], cached.cv_results_[key])


class _CountingLR(LogisticRegression):
    calls = []

    def decision_function(self, X):
        _CountingLR.calls.append(len(X))
        return super().decision_function(X)


def test_fallback_costs_predictions_not_correctness(clicks, no_hooks):
    X, y, qid = clicks
    _CountingLR.calls.clear()
    with sklearn.config_context(enable_metadata_routing=True):
        cross_validate(
            _CountingLR(),
            X,
            y,
            cv=GroupKFold(2),
            scoring=make_scoring(["ndcg@5", "gauc", "roc_auc"]),
            params={"groups": qid, "query_id": qid},
            error_score="raise",
        )
    # each ranking scorer predicts on its own; roc_auc alone has no cache
    assert len(_CountingLR.calls) == 2 * 3


def test_fallback_for_real_when_the_private_module_is_gone(clicks, monkeypatch):
    # Not a flipped flag: the private module cannot be imported, the hook
    # check reports it, the flag is what the check derives, and a routed
    # grid search still gives the cached scorers' results.
    X, y, qid = clicks
    names = ["ndcg@5", "gauc"]
    with sklearn.config_context(enable_metadata_routing=True):
        cached = _search(X, y, qid, names)
    real_import = _sklearn_compat.importlib.import_module

    def no_private_scorer(name, *args, **kwargs):
        if name == "sklearn.metrics._scorer":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(_sklearn_compat.importlib, "import_module", no_private_scorer)
    missing = _sklearn_compat.missing_scorer_hooks()
    assert missing == ["the module sklearn.metrics._scorer is gone"]
    monkeypatch.setattr(_sklearn_compat, "HAS_SCORER_HOOKS", not missing)
    scoring = make_scoring(names)
    assert type(scoring["ndcg@5"]) is _scorer._RankingScorer
    with sklearn.config_context(enable_metadata_routing=True):
        plain = _search(X, y, qid, names)
    for name in names:
        key = f"mean_test_{name}"
        np.testing.assert_allclose(plain.cv_results_[key], cached.cv_results_[key])


_WITHOUT_PRIVATE_SCORER = """
import importlib, json, sys
import numpy as np, sklearn
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, GroupKFold

real_import = importlib.import_module


def no_private_scorer(name, *args, **kwargs):
    # the adapter's view of a scikit-learn without its private scorer module
    if name == "sklearn.metrics._scorer":
        raise ImportError(name)
    return real_import(name, *args, **kwargs)


importlib.import_module = no_private_scorer
from sklearn_rankmetrics import make_scoring
from sklearn_rankmetrics._scoring import _scorer
from sklearn_rankmetrics._utils import _sklearn_compat
from sklearn_rankmetrics.datasets import make_click_log

importlib.import_module = real_import
X, y, qid = make_click_log(n_users=40, n_impressions=(4, 12), random_state=0)
names = sys.argv[1].split(",")
scoring = make_scoring(names)
with sklearn.config_context(enable_metadata_routing=True):
    search = GridSearchCV(
        LogisticRegression(), {"C": [0.01, 1.0]}, cv=GroupKFold(3),
        scoring=scoring, refit=names[0], error_score="raise",
    ).fit(X, y, groups=qid, query_id=qid)
print(json.dumps({
    "missing": _sklearn_compat.MISSING_SCORER_HOOKS,
    "has_hooks": _sklearn_compat.HAS_SCORER_HOOKS,
    "types": sorted({type(scoring[n]).__name__ for n in names if "@" in n}),
    "results": {n: search.cv_results_[f"mean_test_{n}"].tolist() for n in names},
}))
"""


def test_fallback_runs_for_real_when_the_private_scorer_module_is_missing(clicks):
    # Not a flipped flag: a fresh interpreter where the adapter cannot
    # import sklearn.metrics._scorer, so the check at import finds the
    # hooks missing; the search then runs the public-API scorers, with
    # metadata routing, and gives the values of the cached scorers here.
    import json
    import os
    import subprocess
    import sys

    names = ["ndcg@5", "map@5", "gauc", "roc_auc"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run(
        [sys.executable, "-c", _WITHOUT_PRIVATE_SCORER, ",".join(names)],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["has_hooks"] is False
    assert got["missing"] == ["the module sklearn.metrics._scorer is gone"]
    assert got["types"] == ["_RankingScorer"]
    assert _sklearn_compat.HAS_SCORER_HOOKS  # here: the cached scorers
    X, y, qid = clicks
    with sklearn.config_context(enable_metadata_routing=True):
        cached = _search(X, y, qid, names)
    for name in names:
        np.testing.assert_allclose(
            got["results"][name], cached.cv_results_[f"mean_test_{name}"]
        )


def test_private_scikit_learn_names_stay_in_the_adapter():
    # _scoring/_scorer.py speaks its own protocol (_metric, _options, _methods,
    # _relevant_class, predict_fn); only _utils/_sklearn_compat.py names
    # scikit-learn's private scorer API.
    import re
    from pathlib import Path

    private = [
        "_score_func", "_kwargs", "_response_method", "_pos_label",
        "method_caller", "_BaseScorer", "_cached_call", "_get_pos_label",
        "_routing_repr", "_get_metadata_request", "sklearn.metrics._",
    ]  # fmt: skip
    source = Path(_scorer.__file__).read_text()
    found = [
        name
        for name in private
        if re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", source)
        or (name.endswith(".") or name.endswith("_"))
        and name in source
    ]
    assert found == []
    # the cached scorer still carries what scikit-learn reads, set by the
    # adapter from ours
    scorer = get_scorer("ndcg@5", pos_label="click")
    if _sklearn_compat.HAS_SCORER_HOOKS:
        assert scorer._score_func is scorer._metric
        assert scorer._kwargs is scorer._options
        assert scorer._response_method == scorer._methods
        assert scorer._get_pos_label() == "click"
