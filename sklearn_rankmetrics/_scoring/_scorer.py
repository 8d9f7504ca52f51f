"""Scorers: the ranking metrics in scikit-learn's ``scoring=`` parameter.

``get_scorer("ndcg@10")`` returns an object built like the ones
:func:`sklearn.metrics.make_scorer` returns, usable in ``GridSearchCV``,
``cross_validate``, ``permutation_importance`` and every other
model-selection tool, next to scikit-learn's own ``"roc_auc"``.

Two data layouts reach a scorer:

* **2-D** (one query per row of ``y``, one item per column): a multilabel
  estimator's ``predict_proba``/``decision_function`` gives the item
  scores.  Nothing extra to route.
* **Long form** (one (query, item) pair per row, 1-D ``y``, e.g. a
  click-through-rate classifier): the query ids travel to the scorer by
  scikit-learn's metadata routing.  The scorer requests ``query_id`` by
  default; ``set_score_request(query_id="groups")`` reuses the ``groups``
  array of a ``GroupKFold``.

The scorer turns whatever the estimator returns into the
``(y_true, y_score)`` the metric expects (see :class:`_RankingScorer`).
"""

import inspect
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn import config_context, get_config
from sklearn.base import is_classifier
from sklearn.metrics import get_scorer as _sklearn_get_scorer
from sklearn.metrics import get_scorer_names as _sklearn_get_scorer_names
from sklearn.metrics import make_scorer

from .._registry import (
    METRICS,
    UnknownMetricError,
    is_beyond,
    metric_names,
    parse_metric,
)
from .._utils import _sklearn_compat as _compat
from .._utils._validation import user_stacklevel

__all__ = ["get_scorer", "get_scorer_names", "make_scoring"]

# Tried in this order, as sklearn's "roc_auc" does, so that both share one
# cached prediction inside a multi-metric search.  "predict" comes last
# only for estimators that have neither (a regressor predicting relevance).
_RESPONSE_METHOD = ("decision_function", "predict_proba", "predict")

# Per-sample data: routed by scikit-learn, never fixed in the scorer
# (except ``query_id``, which may be bound for a single fixed data set).
_ROUTED = ("sample_weight",)
_SCORER_OPTIONS = ("pos_label", "query_id", "exclude_seen")

_SKLEARN_NAMES = (
    "Any name of sklearn.metrics.get_scorer_names() such as 'roc_auc' or "
    "'neg_log_loss' also works."
)


def _valid_forms():
    """The valid scorer names, for the messages.

    The scorer names are the registry's (``MetricSpec.scorer``), read when
    a scorer is asked for: every one but those without a cut-off takes an
    optional "@k".  Fall-out (lower is better) and the RBP residual (not a
    quality) have none.
    """
    return (
        "Ranking scorer names are "
        + ", ".join(map(repr, metric_names(scorer=True, cutoff=True)))
        + " followed by '@k' with an int k >= 1 such as 'ndcg@10' or "
        "'precision@5' (without '@k', no cut-off, except 'precision', 'recall' "
        "and 'f1', which are scikit-learn's classification scorers), and "
        + ", ".join(map(repr, metric_names(scorer=True, cutoff=False)))
        + "; "
        + _SKLEARN_NAMES[0].lower()
        + _SKLEARN_NAMES[1:]
    )


def _missing_query_id_message(name):
    """What to do when a long-form target reaches a scorer without query_id."""
    problem = (
        f"The {name!r} scorer got a 1-D target (the long form, one row per "
        "(query, item) pair) but no query_id, so it cannot tell which rows "
        "belong to the same query. "
    )
    pass_it = (
        "pass the query ids to the tool: search.fit(X, y, query_id=qid), "
        "cross_validate(..., params={'query_id': qid}), "
        "search.score(X, y, query_id=qid); or call "
        "scorer.set_score_request(query_id='groups') to reuse the groups of a "
        "GroupKFold."
    )
    if _routing_enabled():
        fix = "Metadata routing is enabled: " + pass_it
    else:
        fix = (
            "Enable metadata routing with "
            "sklearn.set_config(enable_metadata_routing=True) (or inside "
            "`with sklearn.config_context(enable_metadata_routing=True):`) and "
            + pass_it
        )
    return f"{problem}{fix} For a 2-D target (one query per row) no query_id is needed."


class _RankingScorer:
    """A ranking metric as a scorer, built on public scikit-learn API only.

    Built by :func:`get_scorer`; see there for the user-facing description.
    scikit-learn calls it as ``scorer(estimator, X, y, **metadata)`` and
    routes metadata to it through :meth:`get_metadata_routing`.  Each call
    predicts on its own; :class:`_CachedRankingScorer` adds scikit-learn's
    shared prediction cache when this release allows it.

    Parameters
    ----------
    name : str
        The name it was built from, e.g. ``"ndcg@10"`` (used in messages).
    score_func : callable
        The metric, ``score_func(y_true, y_score, **kwargs)``.
    kwargs : dict
        Options passed to the metric (``k`` included).
    pos_label : object, default=None
        Class of a binary classifier's target counted as relevant; None
        means ``estimator.classes_[-1]`` when the classes are {0, 1},
        {-1, 1} or {False, True}, and an error otherwise.
    """

    def __init__(self, name, score_func, kwargs, pos_label=None):
        self._name = name
        self._metric = score_func
        self._options = kwargs
        self._relevant_class = pos_label
        self._methods = _RESPONSE_METHOD
        self._requests = {}

    # -- presentation --------------------------------------------------------
    def __repr__(self):
        items = [(key, value) for key, value in self._options.items() if key != "k"]
        if self._relevant_class is not None:
            items.append(("pos_label", self._relevant_class))
        options = "".join(f", {key}={_short_repr(value)}" for key, value in items)
        return f"get_scorer({self._name!r}{options})"

    def __call__(self, estimator, X, y_true, sample_weight=None, **metadata):
        """Score ``estimator`` on ``X`` against ``y_true``.

        Parameters
        ----------
        estimator : object
            A fitted estimator.
        X : array-like or sparse matrix
            Its input.
        y_true : array-like or sparse matrix
            2-D relevance (one query per row), or the 1-D long form.
        sample_weight : array-like, default=None
            Query weights, as the metric takes them.
        **metadata : dict
            Metadata such as ``query_id``.  Unlike scikit-learn's scorers,
            a direct call takes ``query_id`` with or without metadata
            routing enabled.

        Returns
        -------
        score : float
        """
        if sample_weight is not None:
            metadata["sample_weight"] = sample_weight
        return self._evaluate(None, estimator, X, y_true, **metadata)

    # -- metadata routing ----------------------------------------------------
    def set_score_request(self, **kwargs):
        """Set which metadata the scorer receives, and under which name.

        The scorer requests ``query_id`` by default (and leaves
        ``sample_weight`` unset, as scikit-learn's scorers do), so with
        routing enabled ``search.fit(X, y, query_id=qid)`` just works.
        Requests set here are merged into these defaults.

        Parameters
        ----------
        **kwargs : dict
            ``param=alias`` with alias True (request it under its own
            name), False (do not), None (unset: an error if passed) or a
            string: the name under which the tool receives it, e.g.
            ``query_id="groups"`` to reuse the ``groups`` of a
            ``GroupKFold``.

        Returns
        -------
        self : object
            The scorer.
        """
        if not _routing_enabled():
            raise RuntimeError(
                "This method is only available when metadata routing is "
                "enabled. You can enable it using "
                "sklearn.set_config(enable_metadata_routing=True)."
            )
        self._warn_overridden(kwargs)
        requests = {**self._requests, **kwargs}
        _public_score_request(self._metric, requests)  # validates the aliases
        self._requests = requests
        return self

    def get_metadata_routing(self):
        """Get the metadata this scorer requests (``query_id`` by default).

        Returns
        -------
        routing : MetadataRequest
            What scikit-learn's routing reads.
        """
        return _public_score_request(self._metric, self._score_requests())

    def _score_requests(self):
        defaults = {"query_id": True, "sample_weight": None}
        if "propensity" in inspect.signature(self._metric).parameters:
            defaults["propensity"] = True  # routed like query_id when given
        return {**defaults, **self._requests}

    def _warn_overridden(self, metadata):
        """Warn when routed metadata replace options fixed at construction."""
        overlap = set(metadata) & set(self._options)
        if overlap:
            warnings.warn(
                f"{self!r}: routed metadata {sorted(overlap)} override the "
                "values fixed when the scorer was built.",
                UserWarning,
                stacklevel=user_stacklevel(),
            )

    # -- scoring -------------------------------------------------------------
    def _evaluate(self, predict_fn, estimator, X, y_true, **metadata):
        """The score, predicting through ``predict_fn`` if not None.

        ``predict_fn(estimator, method, X, pos_label=...)`` reads the
        prediction cache of a multi-metric scoring (passed in by
        ``_sklearn_compat``); None means predicting directly.
        """
        self._warn_overridden(metadata)
        params = {**self._options, **metadata}
        method = _response_method_name(estimator, self._methods)
        if _is_2d(y_true):
            y_score = _multilabel_scores(
                estimator, X, method, predict_fn, _n_labels(y_true)
            )
        else:
            if params.get("query_id") is None:
                raise ValueError(_missing_query_id_message(self._name))
            y_true, y_score = _long_form(
                estimator,
                X,
                y_true,
                method,
                predict_fn or _call_response,
                self._relevant_class,
                self._name,
            )
        return self._metric(y_true, y_score, **params)


class _CachedRankingScorer(_RankingScorer, _compat.CachedScorerMixin):
    """:class:`_RankingScorer` sharing scikit-learn's prediction cache.

    Within one multi-metric scoring, it and scikit-learn's own scorers
    (``"roc_auc"``, ``"neg_log_loss"``) predict once.  Everything that
    relies on scikit-learn's private scorer API is in ``_sklearn_compat``.
    """

    def __init__(self, name, score_func, kwargs, pos_label=None):
        super().__init__(name, score_func, kwargs, pos_label=pos_label)
        self._init_sklearn_scorer()

    # routing messages name the scorer by its repr (the public version
    # would name a placeholder make_scorer object)
    get_metadata_routing = _compat.CachedScorerMixin.get_metadata_routing


def _public_score_request(score_func, requests):
    """A ``MetadataRequest`` for ``score`` through public API only.

    scikit-learn's public ``make_scorer(...).set_score_request`` builds it.
    """
    holder = make_scorer(score_func, response_method=_RESPONSE_METHOD[:2])
    with config_context(enable_metadata_routing=True):
        holder.set_score_request(**requests)
    return holder.get_metadata_routing()


def _routing_enabled():
    return bool(get_config().get("enable_metadata_routing", False))


def _short_repr(value):
    if isinstance(value, np.ndarray) or hasattr(value, "shape"):
        return f"<array of shape {tuple(value.shape)}>"
    if isinstance(value, (list, tuple)) and len(value) > 6:
        return f"<{type(value).__name__} of length {len(value)}>"
    return repr(value)


# ---------------------------------------------------------------------------
# Turning estimator output into scores
# ---------------------------------------------------------------------------
def _response_method_name(estimator, methods):
    """The first of ``methods`` that ``estimator`` provides."""
    for name in methods:
        if hasattr(estimator, name):
            return name
    raise AttributeError(
        f"{type(estimator).__name__} has none of the methods {methods}; a "
        "ranking scorer needs scores to rank the items by."
    )


def _is_2d(y):
    if sp.issparse(y):
        return True
    return np.ndim(y) == 2 and np.shape(y)[1] > 1


def _n_labels(y):
    return y.shape[1] if sp.issparse(y) else np.shape(y)[1]


def _label_column(proba, classes):
    """One label's score from its class probabilities: the expected grade.

    For classes [0, 1] this is P(1); a label seen with a single class in
    the training fold gets that constant; graded labels (0, 1, 2, ...) get
    the expected grade.
    """
    proba = np.asarray(proba, dtype=np.float64)
    if proba.ndim == 1:
        return proba
    if classes is not None:
        c = np.asarray(classes)
        if c.ndim == 1 and c.dtype.kind in "biuf" and c.shape[0] == proba.shape[1]:
            return proba @ c.astype(np.float64)
    if proba.shape[1] == 2:
        return proba[:, 1]
    raise ValueError(
        f"Cannot turn per-label predictions of shape {proba.shape} with classes "
        f"{classes!r} into one score per item; the labels of a 2-D target "
        "must be numeric relevance grades (e.g. 0/1)."
    )


def _multilabel_scores(estimator, X, method, predict_fn, n_labels):
    """Scores of shape (n_samples, n_labels) for a 2-D (multilabel) target."""
    classes = getattr(estimator, "classes_", None)
    if predict_fn is not None and _compat.cached_output_is_exact(method, classes):
        y_score = predict_fn(estimator, method, X, pos_label=None)
        if np.ndim(y_score) == 2 and np.shape(y_score)[1] == n_labels:
            return y_score
    raw = getattr(estimator, method)(X)
    if isinstance(raw, (list, tuple)):
        per_label = (
            list(classes)
            if isinstance(classes, (list, tuple)) and len(classes) == len(raw)
            else [None] * len(raw)
        )
        y_score = np.column_stack(
            [_label_column(p, c) for p, c in zip(raw, per_label, strict=True)]
        )
    else:
        y_score = np.asarray(raw, dtype=np.float64)
        if y_score.ndim == 1:
            y_score = y_score[:, None]
    if y_score.shape[1] != n_labels:
        raise ValueError(
            f"{type(estimator).__name__}.{method} gave scores of shape "
            f"{y_score.shape}, but y has {n_labels} columns (items); a 2-D "
            "target needs one score per item, e.g. from a multilabel "
            "classifier fitted on the same 2-D y."
        )
    return y_score


def _call_response(estimator, method, X, pos_label=None):
    """``method``'s output as scikit-learn's scorers process it, uncached.

    The public-API stand-in for the cached ``predict_fn``, for the
    long form: a binary classifier gives the score of ``pos_label``
    (default ``classes_[-1]``), anything else its raw output.
    """
    y_pred = getattr(estimator, method)(X)
    classes = getattr(estimator, "classes_", None)
    if not (
        is_classifier(estimator)
        and isinstance(classes, np.ndarray)
        and classes.shape == (2,)
    ):
        return y_pred
    pos_label = classes[-1] if pos_label is None else pos_label
    if method == "predict_proba":
        return np.asarray(y_pred)[:, classes.tolist().index(pos_label)]
    if method == "decision_function" and pos_label == classes[0]:
        return -np.asarray(y_pred)
    return y_pred


def _score_of_first_class(estimator, X, method, predict_fn):
    """Scores of ``classes_[0]`` of a binary classifier.

    scikit-learn's prediction cache is keyed by method name only and
    holds the scores of ``classes_[-1]`` for its default scorers
    (``"roc_auc"``, ``"neg_log_loss"``), so it is never filled with the
    other class: the decision function is negated, the probability of
    ``classes_[0]`` is read directly (``1 - p`` would merge nearly equal
    scores into ties).
    """
    if method == "decision_function":
        return -predict_fn(estimator, method, X, pos_label=estimator.classes_[-1])
    y_pred = getattr(estimator, method)(X)
    if method == "predict_proba":
        return np.asarray(y_pred, dtype=np.float64)[:, 0]
    return (np.asarray(y_pred) == estimator.classes_[0]).astype(np.float64)


def _default_pos_label(estimator, classes, name):
    """``classes_[-1]`` for {0, 1}, {-1, 1} or {False, True}; else an error.

    As in scikit-learn's non-symmetric metrics: for other labels (strings,
    {1, 2}) which class is relevant is the user's call.
    """
    if classes.dtype.kind in "biuf" and (
        np.array_equal(classes, [0, 1]) or np.array_equal(classes, [-1, 1])
    ):
        return classes[-1]
    labels = classes.tolist()
    raise ValueError(
        f"{type(estimator).__name__} was fitted on the classes {labels}, so "
        f"the {name!r} scorer cannot tell which one is relevant (only {{0, 1}}, "
        "{-1, 1} and {False, True} default to the last class). Pass "
        f"pos_label=, e.g. get_scorer({name!r}, pos_label={labels[-1]!r}) or "
        f"make_scoring([...], pos_label={labels[-1]!r})."
    )


def _long_form(estimator, X, y_true, method, predict_fn, pos_label, name):
    """Relevance and scores of the long form (1-D target)."""
    y = np.asarray(y_true)
    if y.ndim == 2:  # a single column
        y = y[:, 0]
    if not is_classifier(estimator):  # a regressor predicting relevance
        return y, predict_fn(estimator, method, X, pos_label=None)
    classes = np.asarray(estimator.classes_)
    if classes.ndim != 1 or classes.shape[0] < 2:
        raise ValueError(
            f"{type(estimator).__name__} was fitted on classes {classes!r}; "
            "a ranking scorer needs a binary classifier (clicked or not), a "
            "classifier of numeric relevance grades, or a regressor."
        )
    if pos_label is not None and pos_label not in classes.tolist():
        raise ValueError(
            f"pos_label={pos_label!r} is not a class of the estimator; its "
            f"classes are {classes.tolist()}."
        )
    if classes.shape[0] == 2:
        if pos_label is None:
            pos_label = _default_pos_label(estimator, classes, name)
        if pos_label == classes[-1]:
            y_score = predict_fn(estimator, method, X, pos_label=pos_label)
            if method == "predict":  # a classifier with neither score method
                y_score = (np.asarray(y_score) == pos_label).astype(np.float64)
        else:
            y_score = _score_of_first_class(estimator, X, method, predict_fn)
        return y == pos_label, y_score
    # Several classes: rank by P(pos_label), or by the expected grade.
    if not hasattr(estimator, "predict_proba"):
        raise ValueError(
            f"{type(estimator).__name__} has {classes.shape[0]} classes but no "
            "predict_proba; a ranking scorer cannot rank by its output."
        )
    proba = predict_fn(estimator, "predict_proba", X, pos_label=None)
    if pos_label is not None:
        return y == pos_label, proba[:, classes.tolist().index(pos_label)]
    if classes.dtype.kind not in "biuf":
        raise ValueError(
            f"{type(estimator).__name__} has the {classes.shape[0]} classes "
            f"{classes.tolist()}; pass pos_label= to say which one is "
            "relevant, or use numeric relevance grades."
        )
    return y, proba @ classes.astype(np.float64)


# ---------------------------------------------------------------------------
# Public helpers
# ---------------------------------------------------------------------------
def _parse(name):
    """``"ndcg@10"`` -> ("ndcg", ndcg_at_k, 10); None for scikit-learn's
    names and the calibration scorers.

    Our names are read by the registry's one parser
    (:func:`~sklearn_rankmetrics._registry.parse_metric`), as on every
    surface: exact, as in :func:`sklearn.metrics.get_scorer`.  A spelling
    that differs only by case, spaces or leading zeros is an error that
    gives the canonical name (which is also the key of
    :func:`make_scoring`'s dict and the ``refit=`` value); a name that is
    neither ours nor scikit-learn's is an error listing both.
    """
    if not isinstance(name, str):
        return None  # get_scorer says a name is a str
    if name in _CALIBRATION_SCORERS or name in _sklearn_get_scorer_names():
        return None  # "precision", "recall", "f1": scikit-learn's scorers
    try:
        spec, k = parse_metric(name)
    except UnknownMetricError as exc:
        raise ValueError(f"{exc} {_SKLEARN_NAMES}") from None
    if not spec.scorer:
        if is_beyond(spec):
            why = (
                "it is a beyond-accuracy metric of the set of lists, reported "
                f"(ranking_report, {spec.function.__name__}) rather than "
                "optimised; sklearn.metrics.make_scorer can wrap it if a "
                "search must select by it"
            )
        else:
            why = (
                f"{spec.name} is not a quality to maximise (greater is not "
                f"better); compute it with {spec.function.__name__} or "
                "ranking_report"
            )
        raise ValueError(f"{name!r} has no scorer: {why}. {_valid_forms()}")
    return spec.name, spec.function, k


def _metric_options(func):
    """Keyword options of a metric (everything but the data arguments)."""
    params = inspect.signature(func).parameters
    return [p for p in params if p not in ("y_true", "y_score", "k", "sample_weight")]


# CTR calibration scorers (lower-is-better metrics, negated) on a binary
# classifier's predict_proba: scikit-learn's own make_scorer, as for
# "neg_log_loss".  A separate table, consulted first by get_scorer.
_CALIBRATION_SCORERS = ("neg_expected_calibration_error", "neg_normalized_entropy")


def _calibration_scorer(name, options):
    """``make_scorer`` of the calibration metric behind ``name``."""
    from .._metrics import _calibration

    func = getattr(_calibration, name[len("neg_") :])
    allowed = [
        p
        for p in inspect.signature(func).parameters
        if p not in ("y_true", "y_prob", "sample_weight")
    ]
    for key in options:
        if key not in allowed:
            raise TypeError(
                f"{name!r} does not take the option {key!r}; its options are "
                f"{allowed} (sample_weight is routed by scikit-learn)."
            )
    func([0, 1], [0.25, 0.75], **options)  # bad option values fail now
    return make_scorer(
        func, response_method="predict_proba", greater_is_better=False, **options
    )


def get_scorer(name, **options):
    """Get a scorer for a ranking metric, or one of scikit-learn's.

    The scorer ranks the items of each query by the estimator's
    ``decision_function`` (or ``predict_proba``) and evaluates the metric.
    Pass it (or a :func:`make_scoring` dict) as ``scoring=`` to any
    scikit-learn model-selection tool.

    Read more in the :ref:`User Guide <scoring>`.

    Parameters
    ----------
    name : str
        ``"ndcg@10"``, ``"map@10"``, ``"mrr@10"``, ``"precision@5"``,
        ``"recall@100"``, ``"hit_rate@10"``, ``"f1@10"``, ``"fbeta@10"``,
        ``"dcg@10"`` (any k >= 1), the same names without ``@k`` (no
        cut-off), or ``"gauc"``.  Any other name goes to
        :func:`sklearn.metrics.get_scorer` (``"roc_auc"``,
        ``"neg_log_loss"``, ...); so do ``"precision"``, ``"recall"`` and
        ``"f1"`` without ``@k``, which are scikit-learn's classification
        scorers.

    **options : dict
        Options of the metric, e.g. ``gain="exponential"`` for DCG/NDCG,
        ``ap_denominator="min_k"`` for MAP, ``no_relevant=0.0``,
        ``relevance_threshold=2``, ``ignore_ties=True``; checked now.
        Also ``pos_label``: the class of a binary classifier counted as
        relevant (default ``classes_[-1]``, as in scikit-learn), and
        ``query_id``: fixed query ids, only for a tool that scores one
        fixed data set without routing (``permutation_importance``).
        ``exclude_seen=True``: for a users x items ``X`` (the items each
        user has seen) and ``y`` (held-out items), rank the estimator's
        scores without the items of ``X``, block by block as
        :func:`factor_ranking_report` (strong generalisation, see
        :class:`~sklearn_rankmetrics.model_selection.UserKFold`).
        Not allowed with scikit-learn's names.

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y, **metadata)`` -> float, greater is
        better.  Picklable.  With metadata routing enabled it requests
        ``query_id``; change it with ``set_score_request``, e.g.
        ``set_score_request(query_id="groups")``.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the valid forms) or an
        invalid option value.
    TypeError
        For an option the metric does not take.

    See Also
    --------
    make_scoring : A ``scoring`` dict from several names.
    get_scorer_names : The ranking scorer names.

    Notes
    -----
    Prediction to scores:

    - 2-D target (one query per row): the per-item scores of a
      multilabel estimator, whatever its output layout: an
      ``(n_samples, n_labels)`` array, a list of per-label
      ``predict_proba`` arrays (each reduced to its expected grade, so a
      label constant in the training fold becomes a constant column),
      and exactly two labels, which scikit-learn's own scorers collapse
      to one column, are all brought to ``(n_samples, n_labels)``.
    - 1-D target with ``query_id`` (the long form): a binary
      classifier's score of ``pos_label``, and relevance
      ``y == pos_label`` (so string classes work); a classifier of
      numeric grades is ranked by its expected grade; a regressor by
      ``predict``.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.multiclass import OneVsRestClassifier
    >>> from sklearn_rankmetrics import get_scorer
    >>> X = [[0.0], [1.0], [2.0], [3.0]]
    >>> Y = [[1, 0, 0], [1, 1, 0], [0, 1, 1], [0, 0, 1]]
    >>> clf = OneVsRestClassifier(LogisticRegression()).fit(X, Y)
    >>> scorer = get_scorer("ndcg@2")
    >>> scorer
    get_scorer('ndcg@2')
    >>> scorer(clf, X, Y)
    1.0
    >>> get_scorer("ndcg@2", gain="exponential")
    get_scorer('ndcg@2', gain='exponential')
    """
    if isinstance(name, str) and name in _CALIBRATION_SCORERS:
        return _calibration_scorer(name, options)
    parsed = _parse(name)
    if parsed is None:
        if not isinstance(name, str):
            raise TypeError(f"name must be a str such as 'ndcg@10'; got {name!r}.")
        if name not in _sklearn_get_scorer_names():
            raise ValueError(f"{name!r} is not a valid scorer name. {_valid_forms()}")
        if options:
            raise TypeError(
                f"Options {sorted(options)} only apply to the ranking scorers; "
                f"{name!r} is scikit-learn's: build a custom one with "
                "sklearn.metrics.make_scorer."
            )
        return _sklearn_get_scorer(name)
    base, func, k = parsed
    options = dict(options)
    pos_label = options.pop("pos_label", None)
    exclude_seen = options.pop("exclude_seen", False)
    allowed = _metric_options(func)
    for key in options:
        if key in _ROUTED:
            raise TypeError(
                f"{key} is per-sample data and cannot be fixed in a scorer; "
                "enable metadata routing and call "
                f"scorer.set_score_request({key}=True)."
            )
        if key == "k":
            raise TypeError(f"Give k in the name, e.g. '{base}@{options['k']}'.")
        if key not in allowed:
            raise TypeError(
                f"{name!r} does not take the option {key!r}; its options are "
                f"{sorted(set(allowed) | set(_SCORER_OPTIONS))}."
            )
    if options.get("average", "queries") is None:
        raise ValueError(
            "average=None gives per-query values, but a scorer must return "
            "one number; use average='queries' (default) or 'micro'."
        )
    kwargs = {"k": k} if METRICS[base].cutoff else {}
    kwargs.update(options)
    _check_options(name, func, kwargs)
    if not isinstance(exclude_seen, (bool, np.bool_)):
        raise TypeError(f"exclude_seen must be True or False, got {exclude_seen!r}.")
    if exclude_seen:  # users x items: rank without the items of X
        return exclude_seen_scorer(name, base, func, kwargs, pos_label)
    # scikit-learn's prediction cache when its private hooks are there
    cls = _CachedRankingScorer if _compat.HAS_SCORER_HOOKS else _RankingScorer
    return cls(name, func, kwargs, pos_label=pos_label)


def _check_options(name, func, kwargs):
    """Call the metric once on a tiny query so bad option values fail now."""
    trial = {key: value for key, value in kwargs.items() if key != "query_id"}
    if isinstance(trial.get("no_relevant"), str) and trial["no_relevant"] == "raise":
        # valid, but the trial query may have no item above the threshold
        trial["no_relevant"] = "skip"
    if (
        trial.get("average") == "micro"
        and "propensity" in inspect.signature(func).parameters
    ):
        # the pooled IPS ratio: its propensities are routed at scoring time
        trial.setdefault("propensity", [[1.0, 1.0, 1.0]])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            func([[2, 1, 0]], [[0.3, 0.2, 0.1]], **trial)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"get_scorer({name!r}): {exc}") from None


def get_scorer_names():
    """Names of the package's scorers, the ranking ones without a cut-off.

    Every name listed returns a scorer: the ranking scorers and the two
    calibration scorers of CTR models, ``"neg_expected_calibration_error"``
    and ``"neg_normalized_entropy"`` (greater is better, as scikit-learn's
    ``"neg_log_loss"``).  Each ranking name but ``"gauc"``,
    ``"r_precision"`` and ``"bpref"`` may be followed by ``"@k"`` with an int
    ``k >= 1`` (``"ndcg@10"``); so may ``"precision"``, ``"recall"`` and
    ``"f1"``, which are not listed because without ``@k`` they are
    scikit-learn's classification scorers (``"precision@5"`` is ours).
    :func:`get_scorer` also accepts every name of
    :func:`sklearn.metrics.get_scorer_names`.

    Returns
    -------
    names : list of str
        Sorted names.

    Examples
    --------
    >>> from sklearn_rankmetrics import get_scorer_names
    >>> get_scorer_names()
    ['bpref', 'dcg', 'err', 'fbeta', 'gauc', 'hit_rate', 'map', 'mrr',
     'ndcg', 'neg_expected_calibration_error', 'neg_normalized_entropy',
     'r_precision', 'rbp', 'success']
    """
    sklearn_names = set(_sklearn_get_scorer_names())
    ranking = [n for n in metric_names(scorer=True) if n not in sklearn_names]
    return sorted([*ranking, *_CALIBRATION_SCORERS])


def make_scoring(names, **options):
    """Build a ``scoring`` dict from scorer names, ours and scikit-learn's.

    Read more in the :ref:`User Guide <scoring>`.

    Parameters
    ----------
    names : list of str
        Names for :func:`get_scorer`, e.g.
        ``["ndcg@10", "map@10", "gauc", "roc_auc", "neg_log_loss"]``.
        They become the keys of the dict (and of ``cv_results_``, as
        ``mean_test_<name>``), and valid values of ``refit=``.

    **options : dict
        Options for the ranking scorers.  Each goes to the ranking
        scorers whose metric takes it (``gain="exponential"`` only to
        DCG/NDCG, ``pos_label`` and ``exclude_seen`` to all); an option no
        scorer takes is an error.

    Returns
    -------
    scoring : dict
        ``{name: scorer}`` in the order of ``names``.

    Examples
    --------
    >>> from sklearn_rankmetrics import make_scoring
    >>> scoring = make_scoring(["ndcg@10", "gauc", "roc_auc"], gain="exponential")
    >>> list(scoring)
    ['ndcg@10', 'gauc', 'roc_auc']
    >>> scoring["ndcg@10"]
    get_scorer('ndcg@10', gain='exponential')
    >>> scoring["gauc"]
    get_scorer('gauc')
    """
    if isinstance(names, str):
        names = [names]
    try:
        names = list(names)
    except TypeError:
        raise TypeError(
            f"names must be a list of scorer names such as ['ndcg@10', "
            f"'roc_auc'], got {names!r}."
        ) from None
    if not names:
        raise ValueError("names is empty; pass at least one scorer name.")
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise ValueError(f"Duplicated scorer names: {duplicated}.")
    used = set()
    scoring = {}
    for name in names:
        parsed = _parse(name)
        if parsed is None:
            scoring[name] = get_scorer(name)
            continue
        accepted = set(_metric_options(parsed[1])) | set(_SCORER_OPTIONS)
        mine = {key: value for key, value in options.items() if key in accepted}
        used.update(mine)
        scoring[name] = get_scorer(name, **mine)
    unused = sorted(set(options) - used)
    if unused:
        raise TypeError(
            f"Option(s) {unused} apply to none of the ranking scorers {names}."
        )
    return scoring


# ---------------------------------------------------------------------------
# The exclude_seen scorers
# ---------------------------------------------------------------------------
class _ExcludeSeenScorer(_RankingScorer):
    """A ranking scorer for the users x items form that removes the items of
    ``X`` (the input, what the user has already seen) from the ranking.

    ``scorer(estimator, X, y)`` is :func:`factor_ranking_report`'s value of
    the metric on the estimator's scores for ``X``, with ``exclude=X``:
    through ``estimator.user_factors(X)`` and ``estimator.item_factors_``
    when it has them (:class:`DecompositionRecommender`), else through its
    ``decision_function``/``predict_proba``/``predict`` on blocks of users.
    """

    def __init__(self, name, score_func, kwargs, metric, pos_label=None):
        super().__init__(name, score_func, kwargs, pos_label=pos_label)
        self._report_metric = metric

    def __repr__(self):
        return super().__repr__()[:-1] + ", exclude_seen=True)"

    def _evaluate(self, predict_fn, estimator, X, y_true, **metadata):
        self._warn_overridden(metadata)
        sample_weight = metadata.pop("sample_weight", None)
        metadata.pop("query_id", None)  # no queries in the 2-D form
        if not (sp.issparse(y_true) or np.ndim(y_true) == 2):
            raise ValueError(
                f"{self!r} scores the 2-D form (users x items): X holds what each "
                "user has seen (excluded from the ranking), y the held-out "
                "items; got a 1-D y. Drop exclude_seen for the long form."
            )
        if np.shape(X) != np.shape(y_true):
            raise ValueError(
                f"{self!r}: X has shape {np.shape(X)} but y has "
                f"{np.shape(y_true)}; with exclude_seen=True X is the users x "
                "items input whose non-zero entries are excluded from the "
                "ranking, so both must have the same shape."
            )
        options = {k: v for k, v in self._options.items() if k != "k"}
        options.update(metadata)
        k = self._options.get("k") or 1  # whole-list metrics ignore it
        seen = sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X) != 0
        if hasattr(estimator, "user_factors") and hasattr(estimator, "item_factors_"):
            scores = (estimator.user_factors(X), estimator.item_factors_)
        else:
            method = _response_method_name(estimator, self._methods)
            n_items = np.shape(y_true)[1]
            rows = sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X)

            def block(users):
                return _multilabel_scores(estimator, rows[users], method, None, n_items)

            scores = (block, None)
        # (the factor report is loaded with the first exclude_seen scorer)
        from .._evaluation._factor import factor_ranking_report

        report = factor_ranking_report(
            y_true,
            *scores,
            exclude=seen,
            k=k,
            metrics=[self._report_metric],
            sample_weight=sample_weight,
            output_dict=True,
            **options,
        )
        (value,) = report.values()
        return value


def exclude_seen_scorer(name, metric, score_func, kwargs, pos_label):
    """The scorer :func:`~sklearn_rankmetrics.get_scorer` returns for
    ``exclude_seen=True`` (``kwargs`` checked there already).

    Parameters
    ----------
    name : str
        The scorer name, e.g. ``"ndcg@10"``.
    metric : str
        The registry name of its metric (``"ndcg"``).
    score_func : callable
        The metric function.
    kwargs : dict
        Its options, ``k`` included (absent for whole-list metrics).
    pos_label : object
        As in ``get_scorer``.

    Returns
    -------
    scorer : callable
    """
    from .._evaluation._per_query import report_options

    unknown = sorted(set(kwargs) - {"k"} - set(report_options()))
    if unknown:
        raise TypeError(
            f"get_scorer({name!r}, exclude_seen=True) ranks the catalogue block by "
            "block as factor_ranking_report, which does not take "
            f"{', '.join(unknown)}; drop them."
        )
    if "k" in kwargs and kwargs["k"] is None:
        raise ValueError(
            f"get_scorer({name!r}, exclude_seen=True) needs a cut-off, e.g. "
            f"'{name}@10': the catalogue is ranked block by block to the k best "
            "items."
        )
    return _ExcludeSeenScorer(name, score_func, kwargs, metric, pos_label=pos_label)
