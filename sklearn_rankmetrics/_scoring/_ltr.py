"""Learning-to-rank estimators in scikit-learn's model-selection tools.

LightGBM's ``LGBMRanker``, XGBoost's ``XGBRanker`` and CatBoost's
``CatBoostRanker`` need the rows of a query together and described their
own way in ``fit``: group sizes in row order (``group``), a query id per
row sorted non-decreasing (``qid``), or a group id per row with the
groups contiguous (``group_id``).  Every cross-validation split and
shuffle breaks that.  :class:`QueryRanker` takes one query id per row, in
any order, regroups the rows (stably: the rows of a query keep their
order) and calls the wrapped estimator the way it wants them; prediction
is row by row and needs no ids.

No learning-to-rank library is imported here: what an estimator takes is
read from the parameters of its ``fit``.
"""

import importlib
import inspect
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn import get_config
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    process_routing,
)
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._engine._select import _group_order
from .._utils._validation import _as_array, check_query_id, check_weight_vector
from ._scorer import get_scorer

__all__ = ["QueryRanker"]

# How the query structure is given to each kind of ``fit``: the name of
# the parameter that carries it, what it holds, and the names QueryRanker
# sets itself (so that they cannot also come in ``fit_params``).
_FORMATS = {
    "qid": "XGBoost: a query id per row, rows sorted by it",
    "group_id": "CatBoost: a group id per row, each group's rows contiguous",
    "group": "LightGBM: the size of each group, in row order",
}
_SET_BY_US = {
    "qid": ("qid", "group", "eval_qid", "eval_group"),
    "group_id": ("group_id", "group_weight"),
    "group": ("group", "eval_group"),
    None: (),
}
# Per-row data of those libraries that would not follow the regrouped rows.
_PER_ROW = (
    "init_score",
    "eval_init_score",
    "eval_sample_weight",
    "base_margin",
    "base_margin_eval_set",
    "sample_weight_eval_set",
    "baseline",
    "subgroup_id",
    "pairs",
    "pairs_weight",
)


class _Grouping(NamedTuple):
    """Rows of a long-form data set grouped by query.

    Attributes
    ----------
    order : ndarray of int or None
        Stable permutation that makes each query's rows contiguous, queries
        in the order of ``np.unique(query_id)``; None when they already are.
    codes : ndarray of int
        Query number (0 .. n_queries - 1) of each row, in grouped order
        (non-decreasing).
    sizes : ndarray of int
        Rows per query, in the same order.
    uniques : ndarray
        The query ids, sorted (``uniques[codes]`` are the grouped ids).
    """

    order: object
    codes: np.ndarray
    sizes: np.ndarray
    uniques: np.ndarray


def _n_rows(X, name):
    if hasattr(X, "shape") and len(X.shape) >= 1:
        return int(X.shape[0])
    try:
        return len(X)
    except TypeError:
        raise TypeError(
            f"{name} must be array-like (an array, a DataFrame, a sparse "
            f"matrix or a list of rows), got {type(X).__name__}."
        ) from None


def _group_rows(query_id, n, name, where):
    """Validate ``query_id`` (one id per row) and group the rows by it.

    Reuses the metrics' validation and factorisation of query ids and the
    engine's radix grouping: O(n) for integer ids, with no comparison
    sort unless the ids are sparse integers or strings.
    """
    if query_id is None:
        raise ValueError(_missing_query_id(name, where))
    qid = _as_array(name, query_id) if not sp.issparse(query_id) else query_id
    if getattr(qid, "ndim", 1) == 1 and qid.shape[0] != n:
        raise ValueError(
            f"{where}: {name} has {qid.shape[0]} entries but X has {n} rows; "
            "pass one query id per row of X."
        )
    try:
        codes, uniques = check_query_id(qid, n)
    except (TypeError, ValueError) as exc:
        message = str(exc).replace("query_id", name)
        raise type(exc)(f"{where}: {message}") from None
    sizes = np.bincount(codes, minlength=uniques.shape[0])
    if n < 2 or bool((codes[1:] >= codes[:-1]).all()):
        return _Grouping(None, codes, sizes, uniques)
    order = _group_order(codes, uniques.shape[0])
    return _Grouping(order, codes[order], sizes, uniques)


def _missing_query_id(name, where):
    return (
        f"{where} needs {name}=, one query id per row, to group the rows by "
        "query. Pass it directly (ranker.fit(X, y, query_id=qid)), or in a "
        "search or cross_validate with metadata routing enabled "
        "(sklearn.set_config(enable_metadata_routing=True)): "
        "search.fit(X, y, query_id=qid) or cross_validate(..., "
        "params={'query_id': qid}); QueryRanker requests query_id for fit "
        "by default."
    )


def _take(X, order):
    """Rows ``order`` of ``X``, keeping its type (array, frame, sparse)."""
    if order is None:
        return X
    if hasattr(X, "iloc"):  # pandas
        return X.iloc[order]
    if sp.issparse(X):
        return X.tocsr()[order] if X.format not in ("csr", "csc") else X[order]
    if isinstance(X, (list, tuple)):
        return np.asarray(X)[order]
    return X[order]  # numpy, polars and other array-likes


def _fit_parameters(estimator):
    try:
        return inspect.signature(estimator.fit).parameters
    except (TypeError, ValueError):  # a builtin or C-implemented fit
        return {}


def _group_format(estimator):
    """'qid' (XGBoost), 'group_id' (CatBoost), 'group' (LightGBM) or None.

    Read from the parameters of ``estimator.fit``; for a ``fit(**kwargs)``
    signature, from the class name (``XGBRanker``, ``CatBoostRanker``,
    ``LGBMRanker``).
    """
    params = _fit_parameters(estimator)
    for fmt in ("qid", "group_id", "group"):  # XGBRanker.fit takes group too
        if fmt in params:
            return fmt
    name = type(estimator).__name__
    by_name = {"XGBRanker": "qid", "CatBoostRanker": "group_id", "LGBMRanker": "group"}
    return by_name.get(name)


def _check_weights(sample_weight, n, where):
    return check_weight_vector(
        sample_weight,
        n,
        "row of X",
        where=f"{where}: ",
        hint=" For a weight per query, repeat it on each row of the query.",
    )


def _per_query_weights(w_grouped, grouping, library, where):
    """One weight per query from per-row weights constant within queries."""
    starts = np.cumsum(grouping.sizes) - grouping.sizes
    per_query = w_grouped[starts]
    differs = w_grouped != per_query[grouping.codes]
    if differs.any():
        query = grouping.uniques[grouping.codes[np.flatnonzero(differs)[0]]]
        query = query.item() if isinstance(query, np.generic) else query
        raise ValueError(
            f"{where}: {library} ranking takes one weight per query, but the "
            f"rows of query {query!r} have different sample_weight values. "
            "Give every row of a query the same weight (the query's weight), "
            "e.g. sample_weight = query_weight[query_id]."
        )
    return per_query


def _check_estimator(estimator):
    missing = [
        m for m in ("fit", "predict") if not callable(getattr(estimator, m, None))
    ]
    if missing or isinstance(estimator, type):
        what = (
            "a class; pass an instance such as LGBMRanker()"
            if isinstance(estimator, type)
            else f"{type(estimator).__name__}, which has no {' or '.join(missing)}"
        )
        raise TypeError(
            "QueryRanker's estimator must be an estimator instance with fit "
            "and predict (e.g. lightgbm.LGBMRanker(), xgboost.XGBRanker(), "
            f"catboost.CatBoostRanker() or a regressor); got {what}."
        )


def _routing_enabled():
    return bool(get_config().get("enable_metadata_routing", False))


def _inner_has(method):
    """For ``available_if``: the wrapped (or fitted) estimator has ``method``."""

    def check(self):
        inner = getattr(self, "estimator_", self.estimator)
        getattr(inner, method)  # raises AttributeError, as available_if wants
        return True

    return check


class QueryRanker(MetaEstimatorMixin, BaseEstimator):
    """Fit a learning-to-rank model on rows given with query ids, in any order.

    ``fit(X, y, query_id=qid)`` groups the rows by query (stably: the rows
    of a query keep their order) and calls the wrapped estimator's ``fit``
    the way it takes queries:

    - LightGBM (``LGBMRanker``, a ``fit`` with ``group``): the rows sorted
      by query and ``group=`` the size of each query;
    - XGBoost (``XGBRanker``, a ``fit`` with ``qid``): the rows sorted by
      query and ``qid=`` a non-decreasing query number per row;
    - CatBoost (``CatBoostRanker``, a ``fit`` with ``group_id``): the rows
      sorted by query and ``group_id=`` per row;
    - any other estimator (a pointwise regressor or classifier of the
      relevance grade): the rows as given, the ids unused.

    So the ranker works inside every scikit-learn model-selection tool
    (``GridSearchCV``, ``cross_validate``, ``permutation_importance``, ...),
    whose splits and shuffles break the libraries' own group formats.
    ``predict`` scores rows one by one, in the caller's order, and needs no
    query ids.  With metadata routing enabled, QueryRanker requests
    ``query_id`` for ``fit`` and ``score`` by default, so that one
    ``search.fit(X, y, query_id=qid)`` reaches the ranker and every ranking
    scorer.

    Read more in the :ref:`User Guide <learning_to_rank>`.

    Parameters
    ----------
    estimator : estimator instance
        The model, e.g. ``lightgbm.LGBMRanker()``, ``xgboost.XGBRanker()``,
        ``catboost.CatBoostRanker()`` or a regressor.  Cloned in ``fit``;
        its parameters are reachable as ``estimator__<name>`` in
        ``get_params``, ``set_params`` and parameter grids.

    scoring : str or callable, default="ndcg@10"
        What :meth:`score` returns: a name for
        :func:`~sklearn_rankmetrics.get_scorer` (``"map@10"``,
        ``"mrr@10"``, ...), or a callable
        ``scoring(estimator, X, y, query_id=..., **kwargs)`` returning a
        float.  Also what ``GridSearchCV(QueryRanker(...))`` optimises
        when its own ``scoring`` is None.

    Attributes
    ----------
    estimator_ : estimator instance
        The fitted clone of ``estimator``.

    n_features_in_ : int
        Number of features seen by ``estimator_`` in ``fit`` (when it
        records it).

    feature_names_in_ : ndarray of str
        Names of the features, when ``X`` had them and ``estimator_``
        records them.

    classes_ : ndarray
        The classes of a wrapped classifier.

    See Also
    --------
    get_scorer : Ranking scorers (``"ndcg@10"``, ...) for the same searches.
    sklearn_rankmetrics.datasets.make_ranking_dataset : Queries with graded
        relevance to try it on.

    Notes
    -----
    Weights: ``sample_weight`` has one entry per row, like every
    scikit-learn estimator (so that cross-validation splits it).  LightGBM
    gets it per row, in grouped order.  XGBoost ranking takes one weight
    per query and CatBoost a ``group_weight`` constant within a query:
    for them the rows of a query must share one weight (a ``ValueError``
    says which query does not); QueryRanker passes it the library's way.
    A pointwise estimator gets the per-row weights as given.

    Early stopping: ``eval_set`` is a list of ``(X_val, y_val,
    query_id_val)`` triples; each is grouped like the training data and
    passed as ``eval_set`` plus ``eval_group`` (LightGBM), ``eval_qid``
    (XGBoost) or a ``Pool`` with ``group_id`` (CatBoost); a pointwise
    estimator whose ``fit`` takes ``eval_set`` gets the ``(X_val, y_val)``
    pairs.

    Examples
    --------
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn_rankmetrics import QueryRanker
    >>> from sklearn_rankmetrics.datasets import make_ranking_dataset
    >>> X, y, qid = make_ranking_dataset(n_queries=50, random_state=0)
    >>> ranker = QueryRanker(Ridge()).fit(X, y, query_id=qid)
    >>> ranker.predict(X[:3]).round(2)
    array([0.54, 0.6 , 0.45])
    >>> round(ranker.score(X, y, query_id=qid), 3)  # NDCG@10
    0.837

    With LightGBM (``pip install lightgbm``), in a grid search whose folds
    keep queries whole::

        import sklearn
        from lightgbm import LGBMRanker
        from sklearn.model_selection import GridSearchCV, GroupKFold

        sklearn.set_config(enable_metadata_routing=True)
        search = GridSearchCV(
            QueryRanker(LGBMRanker(n_estimators=50)),
            {"estimator__num_leaves": [7, 31]},
            cv=GroupKFold(5).set_split_request(groups="query_id"),
        )
        search.fit(X, y, query_id=qid)  # scored by QueryRanker.score: NDCG@10
    """

    # Metadata routing: request query_id for fit and score by default (the
    # class attributes scikit-learn documents for default requests; the
    # ``set_{method}_request`` methods change them per instance).
    __metadata_request__fit = {"query_id": True}
    __metadata_request__score = {"query_id": True}

    def __init__(self, estimator, *, scoring="ndcg@10"):
        self.estimator = estimator
        self.scoring = scoring

    # -- fitting -------------------------------------------------------------
    def fit(
        self, X, y, *, query_id=None, sample_weight=None, eval_set=None, **fit_params
    ):
        """Group the rows by query and fit a clone of the estimator.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            One row per (query, item) pair, in any order.  Arrays, pandas
            and polars frames and scipy sparse matrices are passed on (in
            grouped row order) in their own type.

        y : array-like of shape (n_samples,)
            Relevance grade of each row (ints >= 0 for LightGBM's and
            XGBoost's NDCG objectives).

        query_id : array-like of shape (n_samples,)
            Query of each row: ints or strings, a pandas or polars Series.
            Required.

        sample_weight : array-like of shape (n_samples,), default=None
            Per-row weights; see the Notes of the class for how each
            library takes them.  With metadata routing enabled, request it
            with ``set_fit_request(sample_weight=True)``.

        eval_set : list of (X_val, y_val, query_id_val) tuples, default=None
            Validation sets, with their own query ids, for the wrapped
            estimator's evaluation and early stopping; grouped like the
            training data.

        **fit_params : dict
            Other parameters of the wrapped estimator's ``fit``
            (``callbacks``, ``eval_at``, ``verbose``, ...).  With metadata
            routing enabled they are routed to it as it requests them.
            ``group``, ``qid``, ``group_id`` and per-row data that would
            not follow the regrouped rows (``init_score``,
            ``base_margin``, ...) are refused.

        Returns
        -------
        self : QueryRanker
            Fitted.
        """
        where = "QueryRanker.fit"
        _check_estimator(self.estimator)
        fmt = _group_format(self.estimator)
        self._check_fit_params(fit_params, fmt)
        if _routing_enabled() and fit_params:
            fit_params = dict(process_routing(self, "fit", **fit_params).estimator.fit)

        n = _n_rows(X, "X")
        grouping = _group_rows(query_id, n, "query_id", where)
        y = _as_array("y", y)
        if y.ndim != 1 or y.shape[0] != n:
            raise ValueError(
                f"{where}: y must be 1-D with one relevance grade per row of X "
                f"({n}), got shape {y.shape}."
            )
        weights = _check_weights(sample_weight, n, where)
        params = dict(fit_params)
        if fmt is None:
            X_fit, y_fit = X, y
            if weights is not None:
                params["sample_weight"] = weights
        else:
            X_fit, y_fit = _take(X, grouping.order), _take(y, grouping.order)
            params.update(_query_params(fmt, grouping))
            if weights is not None:
                params.update(
                    _weight_params(fmt, _take(weights, grouping.order), grouping, where)
                )
        if eval_set is not None:
            params.update(self._eval_params(eval_set, fmt))
        self.estimator_ = clone(self.estimator).fit(X_fit, y_fit, **params)
        return self

    def _check_fit_params(self, fit_params, fmt):
        for name in fit_params:
            if name in _SET_BY_US[fmt] or name in ("group", "qid", "group_id"):
                how = _FORMATS.get(fmt, "unused by a pointwise estimator")
                raise TypeError(
                    f"QueryRanker.fit: {name} is computed by QueryRanker from "
                    f"query_id ({how}); "
                    "pass one query id per row as query_id=... (and validation "
                    "sets as (X, y, query_id) triples in eval_set=) instead of "
                    f"{name}=."
                )
            if fmt is not None and name in _PER_ROW:
                raise TypeError(
                    f"QueryRanker.fit: {name} holds per-row data, which would "
                    "not follow the rows regrouped by query; QueryRanker does "
                    f"not support it. Fit {type(self.estimator).__name__} "
                    "directly on rows sorted by query to use it."
                )

    def _eval_params(self, eval_set, fmt):
        where = "QueryRanker.fit"
        if isinstance(eval_set, tuple):
            eval_set = [eval_set]
        try:
            sets = list(eval_set)
        except TypeError:
            sets = None
        if sets is None or any(
            not isinstance(s, (tuple, list)) or len(s) != 3 for s in sets
        ):
            raise ValueError(
                f"{where}: eval_set must be a list of (X_val, y_val, "
                "query_id_val) triples, one per validation set; got "
                f"{eval_set!r:.80}."
            )
        if fmt is None and "eval_set" not in _fit_parameters(self.estimator):
            raise TypeError(
                f"{where}: {type(self.estimator).__name__}.fit takes no "
                "eval_set; drop eval_set=."
            )
        pairs, queries = [], []
        for i, (X_val, y_val, qid_val) in enumerate(sets):
            n = _n_rows(X_val, f"eval_set[{i}][0]")
            grouping = _group_rows(qid_val, n, f"eval_set[{i}][2]", where)
            y_val = _as_array(f"eval_set[{i}][1]", y_val)
            if y_val.ndim != 1 or y_val.shape[0] != n:
                raise ValueError(
                    f"{where}: eval_set[{i}][1] (y_val) must be 1-D with one "
                    f"grade per row of eval_set[{i}][0] ({n}), got shape "
                    f"{y_val.shape}."
                )
            if fmt is None:
                pairs.append((X_val, y_val))
            else:
                order = grouping.order
                pairs.append((_take(X_val, order), _take(y_val, order)))
            queries.append(grouping)
        params = _fit_parameters(self.estimator)
        if "eval_X" in params and "eval_y" in params:  # LightGBM >= 4.7
            data = {
                "eval_X": tuple(p[0] for p in pairs),
                "eval_y": tuple(p[1] for p in pairs),
            }
        else:
            data = {"eval_set": pairs}
        if fmt is None:
            return data
        if fmt == "group":
            return {**data, "eval_group": [g.sizes for g in queries]}
        if fmt == "qid":
            return {"eval_set": pairs, "eval_qid": [g.codes for g in queries]}
        pool = importlib.import_module(
            type(self.estimator).__module__.split(".")[0]
        ).Pool
        return {
            "eval_set": [
                pool(Xv, yv, group_id=g.codes)
                for (Xv, yv), g in zip(pairs, queries, strict=True)
            ]
        }

    # -- prediction ----------------------------------------------------------
    def predict(self, X, **predict_params):
        """Predict with the fitted estimator, row by row.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Rows in any order; no query ids are needed.

        **predict_params : dict
            Passed to the estimator's ``predict`` (routed when metadata
            routing is enabled).

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The estimator's prediction for each row, in the order of ``X``:
            ranking scores for a ranker or regressor (higher ranks first),
            classes for a classifier.
        """
        check_is_fitted(self)
        if _routing_enabled() and predict_params:
            predict_params = process_routing(
                self, "predict", **predict_params
            ).estimator.predict
        return self.estimator_.predict(X, **predict_params)

    @available_if(_inner_has("decision_function"))
    def decision_function(self, X):
        """The fitted classifier's decision function, in the order of ``X``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Rows in any order.

        Returns
        -------
        scores : ndarray
            ``estimator_.decision_function(X)``.
        """
        check_is_fitted(self)
        return self.estimator_.decision_function(X)

    @available_if(_inner_has("predict_proba"))
    def predict_proba(self, X):
        """The fitted classifier's class probabilities, in the order of ``X``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Rows in any order.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            ``estimator_.predict_proba(X)``.
        """
        check_is_fitted(self)
        return self.estimator_.predict_proba(X)

    def score(self, X, y, query_id=None, sample_weight=None):
        """NDCG@10 (or ``scoring``) of the fitted model on a long-form set.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Rows in any order.

        y : array-like of shape (n_samples,)
            Relevance grades.

        query_id : array-like of shape (n_samples,)
            Query of each row.  Required (requested by default with
            metadata routing enabled).

        sample_weight : array-like of shape (n_samples,), default=None
            Per-row weights, constant within a query (the query's weight).

        Returns
        -------
        score : float
            ``get_scorer("ndcg@10")``: for a ranker or a regressor,
            ``ndcg_at_k(y, self.predict(X), k=10, query_id=query_id)``
            with the package's defaults (linear gain, ties averaged,
            queries without a relevant row skipped); a classifier is
            ranked by its ``decision_function`` or ``predict_proba``.  Or
            the value of ``scoring``.
        """
        check_is_fitted(self)
        if query_id is None:
            raise ValueError(_missing_query_id("query_id", "QueryRanker.score"))
        scorer = self._scorer()
        kwargs = {"query_id": query_id}
        if sample_weight is not None:
            kwargs["sample_weight"] = sample_weight
        return float(scorer(self, X, y, **kwargs))

    def _scorer(self):
        if callable(self.scoring):
            return self.scoring
        if isinstance(self.scoring, str):
            return get_scorer(self.scoring)
        raise TypeError(
            "QueryRanker's scoring must be a scorer name such as 'ndcg@10' or "
            f"'map@10', or a callable scorer; got {self.scoring!r}."
        )

    # -- delegated attributes ------------------------------------------------
    def __sklearn_is_fitted__(self):
        return hasattr(self, "estimator_")

    @property
    def n_features_in_(self):
        """Number of features seen in ``fit``."""
        return self.estimator_.n_features_in_

    @property
    def feature_names_in_(self):
        """Names of the features seen in ``fit``."""
        return self.estimator_.feature_names_in_

    @property
    def classes_(self):
        """The classes of a wrapped classifier."""
        return self.estimator_.classes_

    @property
    def _estimator_type(self):  # scikit-learn < 1.6 reads this
        return getattr(self.estimator, "_estimator_type", None)

    def __sklearn_tags__(self):  # scikit-learn >= 1.6
        tags = super().__sklearn_tags__()
        try:
            from sklearn.utils import get_tags

            inner = get_tags(self.estimator)
        except Exception:  # an estimator without tags: keep the defaults
            return tags
        if inner.estimator_type in ("classifier", "regressor"):
            tags.estimator_type = inner.estimator_type
            tags.classifier_tags = inner.classifier_tags
            tags.regressor_tags = inner.regressor_tags
        tags.input_tags.sparse = inner.input_tags.sparse
        tags.input_tags.allow_nan = inner.input_tags.allow_nan
        return tags

    # -- metadata routing ----------------------------------------------------
    def get_metadata_routing(self):
        """Metadata routing of this object: its own requests and the estimator's.

        QueryRanker consumes ``query_id`` (requested by default),
        ``sample_weight`` and ``eval_set`` in ``fit`` and ``query_id``
        (requested by default) and ``sample_weight`` in ``score``; other
        ``fit`` and ``predict`` parameters go to the wrapped estimator as
        it requests them.

        Returns
        -------
        routing : MetadataRouter
            A :class:`~sklearn.utils.metadata_routing.MetadataRouter`.
        """
        router = MetadataRouter(owner=type(self).__name__).add_self_request(self)
        return router.add(
            estimator=self.estimator,
            method_mapping=MethodMapping()
            .add(caller="fit", callee="fit")
            .add(caller="predict", callee="predict"),
        )


def _query_params(fmt, grouping):
    if fmt == "group":
        return {"group": grouping.sizes}
    return {fmt: grouping.codes}  # qid / group_id: non-decreasing ints


def _weight_params(fmt, w, grouping, where):
    if fmt == "group":  # LightGBM weights rows (its metrics average per query)
        return {"sample_weight": w}
    if fmt == "qid":
        return {"sample_weight": _per_query_weights(w, grouping, "XGBoost", where)}
    _per_query_weights(w, grouping, "CatBoost", where)
    return {"group_weight": w}
