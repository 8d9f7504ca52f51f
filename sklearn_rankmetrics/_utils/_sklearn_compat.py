"""The one place that relies on scikit-learn's private scorer machinery.

scikit-learn has no public scorer base class.  Its multi-metric scoring
(``scoring={...}`` in every search and in ``cross_validate``) computes each
prediction once and shares it between scorers, but only with scorers that
are instances of its private ``_BaseScorer``: it calls their private
``_score(method_caller, estimator, X, y_true, **kwargs)`` with a
``method_caller(estimator, response_method, X, pos_label=...)`` that reads
the shared cache.  Joining that cache needs, and this module alone uses:

* the class of the objects :func:`sklearn.metrics.make_scorer` returns
  (``_Scorer``), its ``__init__(score_func, sign, kwargs, response_method)``
  (which sets ``_score_func``, ``_sign``, ``_kwargs``, ``_response_method``)
  and the ``_score`` hook above;
* the private ``_get_metadata_request``, ``_routing_repr`` and
  ``_get_pos_label`` that scikit-learn calls on a scorer, and building a
  ``MetadataRequest`` by hand (``MetadataRequest(owner=...)``,
  ``.score.add_request(param=..., alias=...)``);
* what the cached predictions hold (:func:`cached_output_is_exact`, the
  behaviour of scikit-learn's ``_process_predict_proba``).

:data:`HAS_SCORER_HOOKS` says whether this release has them all (checked at
import, see :func:`missing_scorer_hooks`).  When it is False,
:func:`sklearn_rankmetrics.get_scorer` returns the plain scorer of
``_scoring/_scorer.py`` instead: public API only, the same values, but each
ranking scorer then predicts on its own.  A new scikit-learn release may thus cost
speed, never correctness.  ``tests/test_sklearn_compat.py`` pins every
assumption listed here.
"""

import importlib
import inspect

import numpy as np
from sklearn.metrics import make_scorer
from sklearn.utils.metadata_routing import MetadataRequest

__all__ = []  # private module


def _probe_metric(y_true, y_pred):  # pragma: no cover - never called
    return 0.0


SklearnScorer = type(make_scorer(_probe_metric, response_method="predict"))
"""Class of the objects ``make_scorer`` returns (``_Scorer`` in 1.4 to 1.9)."""

_INIT_PARAMS = ["score_func", "sign", "kwargs", "response_method"]
_SCORE_PARAMS = ["method_caller", "estimator", "X", "y_true"]
_CACHED_CALL_PARAMS = ["cache", "estimator", "response_method"]


def _positional(func, skip_self):
    params = list(inspect.signature(func).parameters.values())
    if skip_self:
        params = params[1:]
    return [
        p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]


def missing_scorer_hooks():
    """What the cached scorer needs and this scikit-learn lacks.

    Returns
    -------
    missing : list of str
        One sentence per missing or changed hook; empty when the cached
        scorer can be used.
    """
    missing = []
    try:
        base = importlib.import_module("sklearn.metrics._scorer")
    except ImportError:
        return ["the module sklearn.metrics._scorer is gone"]
    base_scorer = getattr(base, "_BaseScorer", None)
    if base_scorer is None or not issubclass(SklearnScorer, base_scorer):
        missing.append(
            "make_scorer no longer returns a subclass of "
            "sklearn.metrics._scorer._BaseScorer, the class whose _score "
            "hook _MultimetricScorer calls with its prediction cache"
        )
    init = _positional(SklearnScorer.__init__, skip_self=True)
    if init[:4] != _INIT_PARAMS:
        missing.append(
            f"{SklearnScorer.__name__}.__init__ takes {init}, not {_INIT_PARAMS} first"
        )
    score = getattr(SklearnScorer, "_score", None)
    if score is None:
        missing.append(f"{SklearnScorer.__name__} has no _score method")
    elif _positional(score, skip_self=True)[:4] != _SCORE_PARAMS:
        missing.append(
            f"{SklearnScorer.__name__}._score takes "
            f"{_positional(score, skip_self=True)}, not {_SCORE_PARAMS}"
        )
    cached_call = getattr(base, "_cached_call", None)
    if cached_call is None:
        missing.append(
            "sklearn.metrics._scorer._cached_call (the method_caller) is gone"
        )
    elif _positional(cached_call, skip_self=False)[:3] != _CACHED_CALL_PARAMS:
        missing.append(
            "sklearn.metrics._scorer._cached_call takes "
            f"{_positional(cached_call, skip_self=False)}, not "
            f"{_CACHED_CALL_PARAMS} first"
        )
    get_response_values = getattr(base, "_get_response_values", None)
    if get_response_values is None or (
        "pos_label" not in inspect.signature(get_response_values).parameters
    ):
        missing.append(
            "sklearn.metrics._scorer._get_response_values (called by the "
            "method_caller) is gone or takes no pos_label"
        )
    for hook in ("_get_metadata_request", "get_metadata_routing"):
        if not callable(getattr(SklearnScorer, hook, None)):
            missing.append(f"{SklearnScorer.__name__} has no {hook} method")
    try:
        score_request(owner="probe", requests={"query_id": True})
    except Exception as exc:  # noqa: BLE001 - any failure means "changed"
        missing.append(f"MetadataRequest can no longer be built by hand: {exc!r}")
    return missing


def score_request(owner, requests):
    """A ``MetadataRequest`` whose ``score`` method requests ``requests``.

    Parameters
    ----------
    owner : str
        Name shown in scikit-learn's routing messages.
    requests : dict
        ``{param: alias}``; alias True, False, None or a string.

    Returns
    -------
    request : MetadataRequest
    """
    request = MetadataRequest(owner=owner)
    for param, alias in requests.items():
        request.score.add_request(param=param, alias=alias)
    return request


class CachedScorerMixin(SklearnScorer):
    """Make a ranking scorer a scikit-learn scorer that shares predictions.

    Mixed in after the plain scorer class (whose methods take precedence),
    it plugs the scorer's ``_evaluate(predict_fn, estimator, X, y_true,
    **metadata)`` into scikit-learn's private ``_score`` hook (whose
    ``method_caller`` becomes ``predict_fn``), and answers scikit-learn's
    other private calls on a scorer.  The host class sets ``_metric``,
    ``_options``, ``_methods`` and ``_relevant_class`` (our names; the
    private ``_score_func``, ``_kwargs``, ``_response_method`` are set here,
    by scikit-learn's ``__init__``) and provides ``_score_requests()``.
    """

    def _init_sklearn_scorer(self):
        SklearnScorer.__init__(self, self._metric, 1, self._options, self._methods)

    def _score(self, method_caller, estimator, X, y_true, **kwargs):
        return self._evaluate(method_caller, estimator, X, y_true, **kwargs)

    def _get_metadata_request(self):
        return score_request(repr(self), self._score_requests())

    def get_metadata_routing(self):
        """The scorer's ``MetadataRequest`` (named by its repr in messages)."""
        return self._get_metadata_request()

    def _routing_repr(self):  # in scikit-learn's routing messages (>= 1.8)
        return repr(self)

    def _get_pos_label(self):
        return self._relevant_class


def cached_output_is_exact(method, classes):
    """Whether scikit-learn's cached ``method`` output keeps every label.

    ``method_caller(estimator, method, X, pos_label=None)`` returns
    predictions processed by scikit-learn (``_process_predict_proba``,
    ``_process_decision_function``), shared with e.g. ``"roc_auc"``.  For a
    multilabel estimator they are the per-label scores, except in two
    cases: exactly two labels whose ``classes_`` look binary (the
    probabilities collapse to one column), and per-label class lists other
    than [0, 1] (a label constant in the training fold has one class: a
    ragged list that scikit-learn cannot stack, or stacks wrongly).

    Parameters
    ----------
    method : str
        ``"decision_function"``, ``"predict_proba"`` or ``"predict"``.
    classes : object
        The estimator's ``classes_`` (None if it has none).

    Returns
    -------
    exact : bool
    """
    if isinstance(classes, np.ndarray) and classes.ndim == 1:
        if method == "decision_function":
            return True  # never collapsed; binary classes_: no sign flip
        return classes.shape[0] > 2 and classes.dtype != object
    if isinstance(classes, (list, tuple)) and len(classes) > 0:
        return method == "predict_proba" and all(_is_zero_one(c) for c in classes)
    return False


def _is_zero_one(classes):
    c = np.asarray(classes)
    return c.shape == (2,) and c.dtype.kind in "biuf" and c[0] == 0 and c[1] == 1


MISSING_SCORER_HOOKS = missing_scorer_hooks()
HAS_SCORER_HOOKS = not MISSING_SCORER_HOOKS
"""Whether :class:`CachedScorerMixin` can be used with this scikit-learn."""
