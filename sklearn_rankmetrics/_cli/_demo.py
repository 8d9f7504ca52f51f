"""Demo: tune a click-through-rate model by ranking metrics.

``python -m sklearn_rankmetrics`` draws a click log with
:func:`sklearn_rankmetrics.datasets.make_click_log`, holds out a fifth of
the users, and runs a ``GridSearchCV`` of a CTR classifier on the rest with
``GroupKFold`` over users, scored per user by NDCG@10, MAP@10, MRR@10 and
GAUC next to scikit-learn's pooled ``roc_auc`` and ``neg_log_loss``.  The
query (user) ids reach the ranking scorers through metadata routing.  It
prints each candidate as it is scored, the table of cross-validated
scores, the parameters each metric would choose, and the held-out scores
of the refitted model next to those of the true click model.

It ends with the ranking report of the chosen model and a comparison, paired
over held-out users, of each metric's choice against the default parameters.

Run ``python -m sklearn_rankmetrics --help`` for the options.
"""

import argparse
import time
from functools import partial

import numpy as np
import sklearn
from sklearn.base import clone
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss, roc_auc_score
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    GroupShuffleSplit,
    ParameterGrid,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import PolynomialFeatures, StandardScaler
from threadpoolctl import threadpool_limits

from .. import __version__
from .._evaluation._compare import compare_rankings
from .._evaluation._report import ranking_report
from .._metrics._auc import group_auc_score
from .._metrics._ranking import average_precision_at_k, ndcg_at_k, reciprocal_rank_at_k
from .._registry import UnknownMetricError, parse_metric
from .._scoring._scorer import get_scorer_names, make_scoring
from ..datasets import make_click_log

__all__ = []  # private module

METRICS = ["ndcg@10", "map@10", "mrr@10", "gauc", "roc_auc", "neg_log_loss"]


def _ranking_metrics():
    """The package's metrics among :data:`METRICS` (read by the registry's
    name parser; ``roc_auc`` and ``neg_log_loss`` are scikit-learn's), and
    their cut-offs: ``(names, cut-offs)``.  The held-out comparison tests
    each metric's choice on the metrics that made the choices."""
    names, ks = [], []
    for metric in METRICS:
        try:
            spec, k = parse_metric(metric)
        except UnknownMetricError:
            continue
        names.append(spec.name)
        if k is not None and k not in ks:
            ks.append(k)
    return names, ks


def _neg_log_loss(y, proba, query_id):
    return -log_loss(y, proba)


def _roc_auc(y, proba, query_id):
    return roc_auc_score(y, proba)


# the same metrics as functions of (y, click probability, user id), to score
# the true click model on the held-out users
_TRUE_MODEL_METRICS = {
    "ndcg@10": partial(ndcg_at_k, k=10),
    "map@10": partial(average_precision_at_k, k=10),
    "mrr@10": partial(reciprocal_rank_at_k, k=10),
    "gauc": group_auc_score,
    "roc_auc": _roc_auc,
    "neg_log_loss": _neg_log_loss,
}


def _model(name, seed):
    """The CTR classifier and its parameter grid."""
    if name == "hgb":
        estimator = HistGradientBoostingClassifier(
            max_iter=100, early_stopping=False, random_state=seed
        )
        grid = {"learning_rate": [0.03, 0.1, 0.3], "max_leaf_nodes": [3, 15, 63]}
        return estimator, grid
    # logistic regression on the features and their pairwise products
    estimator = make_pipeline(
        PolynomialFeatures(degree=2, interaction_only=True, include_bias=False),
        StandardScaler(),
        LogisticRegression(max_iter=1000),
    )
    return estimator, {"logisticregression__C": [1e-4, 1e-3, 1e-2, 1e-1, 1.0]}


def _held_out_comparison(search, estimator, picks, args, X_tune, y_tune, Xh, yh, uh):
    """Report of the chosen model and comparison of every metric's pick
    with the default parameters, all refitted on the tuning users and
    scored on the held-out users."""
    chosen = f"chosen by {args.refit}"
    models = {"default parameters": clone(estimator)}
    for values, metrics in picks.values():
        if args.refit in metrics:
            models[chosen] = search.best_estimator_
        else:
            models[f"chosen by {', '.join(metrics)}"] = clone(estimator).set_params(
                **values
            )
    threads = None if args.n_jobs == 1 else 1
    with threadpool_limits(limits=threads, user_api="openmp"):
        for model in models.values():
            if model is not search.best_estimator_:
                model.fit(X_tune, y_tune)
    scores = {name: model.predict_proba(Xh)[:, 1] for name, model in models.items()}
    metrics, ks = _ranking_metrics()
    return _report_and_compare(
        yh,
        scores,
        best=chosen,
        baseline="default parameters",
        query_id=uh,
        compare_k=ks,
        metrics=metrics,
        random_state=args.seed,
    )


def _short(param):
    """``logisticregression__C`` -> ``C``."""
    return param.rsplit("__", 1)[-1]


def _format_params(params):
    return ", ".join(f"{_short(key)}={value:g}" for key, value in params.items())


class _ProgressGridSearchCV(GridSearchCV):
    """``GridSearchCV`` that prints each candidate's scores as they come.

    It scores one candidate at a time through the ``_run_search`` hook
    scikit-learn provides for custom searches; everything else, including
    ``cv_results_``, is plain ``GridSearchCV``.
    """

    def _run_search(self, evaluate_candidates):
        candidates = list(ParameterGrid(self.param_grid))
        width = len(str(len(candidates)))
        pad = max(len(_format_params(params)) for params in candidates) + 2
        for i, params in enumerate(candidates, 1):
            start = time.perf_counter()
            results = evaluate_candidates([params])
            scores = "  ".join(
                f"{name} {results[f'mean_test_{name}'][-1]:.4f}" for name in METRICS
            )
            print(
                f"  [{i:>{width}}/{len(candidates)}] {_format_params(params):<{pad}}"
                f"{scores}  ({time.perf_counter() - start:.1f} s)",
                flush=True,
            )


def _table(rows, header, align):
    """Plain-text table; ``align`` holds '<' or '>' per column."""
    widths = [
        max(len(str(row[j])) for row in [header, *rows]) for j in range(len(header))
    ]

    def line(row):
        return "  ".join(
            f"{str(cell):{a}{w}}" for cell, a, w in zip(row, align, widths, strict=True)
        ).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), rule, *(line(row) for row in rows)])


def _results_table(cv_results, refit):
    """Candidates sorted by the refit metric; '*' marks each metric's best."""
    params = list(cv_results["params"][0])
    order = np.argsort(cv_results[f"rank_test_{refit}"], kind="stable")
    best = {name: int(np.argmax(cv_results[f"mean_test_{name}"])) for name in METRICS}
    rows = []
    for i in order:
        row = [cv_results[f"rank_test_{refit}"][i]]
        row += [f"{cv_results['params'][i][p]:g}" for p in params]
        for name in METRICS:
            mark = "*" if best[name] == i else " "
            row.append(f"{cv_results[f'mean_test_{name}'][i]:.4f}{mark}")
        rows.append(row)
    header = [f"rank({refit})", *(_short(p) for p in params), *METRICS]
    align = [">"] + ["<"] * len(params) + [">"] * len(METRICS)
    return _table(rows, header, align)


def _int_option(low=None, high=None, *, hint=""):
    """An argparse ``type``: an int in [low, high] (None: unbounded)."""

    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
        if (low is not None and value < low) or (high is not None and value > high):
            bound = f">= {low}" if high is None else f"from {low} to {high}"
            raise argparse.ArgumentTypeError(
                f"must be an int {bound}{hint}; got {value}"
            )
        return value

    parse.__name__ = "int"  # argparse names the type in some messages
    return parse


def _n_jobs(text):
    """An argparse ``type`` for ``--n-jobs``: a non-zero int (-1: all cores)."""
    value = _int_option()(text)
    if value == 0:
        raise argparse.ArgumentTypeError(
            "must be a positive number of jobs, or -1 for all cores; got 0"
        )
    return value


def _parser():
    parser = argparse.ArgumentParser(
        prog="python -m sklearn_rankmetrics",
        description=(
            "Tune a click-through-rate classifier with GridSearchCV and "
            "GroupKFold over users on a synthetic click log, scored by "
            "per-user ranking metrics (NDCG@10, MAP@10, MRR@10, GAUC) next to "
            "scikit-learn's roc_auc and neg_log_loss, and report the "
            "held-out scores of the chosen model."
        ),
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__}"
    )
    parser.add_argument(
        "--n-users",
        type=_int_option(4),
        default=1000,
        help="number of users in the click log (default: %(default)s)",
    )
    parser.add_argument(
        "--seed",
        type=_int_option(0, 2**32 - 1),
        default=0,
        help="random seed of the click log, split and model (default: %(default)s)",
    )
    parser.add_argument(
        "--refit",
        choices=METRICS,
        default="ndcg@10",
        help="metric that picks the best parameters (default: %(default)s)",
    )
    parser.add_argument(
        "--model",
        choices=["hgb", "logreg"],
        default="hgb",
        help=(
            "hgb: HistGradientBoostingClassifier, learning_rate x "
            "max_leaf_nodes grid; logreg: LogisticRegression on pairwise "
            "feature products, C grid (default: %(default)s)"
        ),
    )
    parser.add_argument(
        "--folds",
        type=_int_option(2, hint=" (GroupKFold needs two folds at least)"),
        default=5,
        help="number of GroupKFold folds (default: %(default)s)",
    )
    parser.add_argument(
        "--n-jobs",
        type=_n_jobs,
        default=2,
        help="parallel jobs of the search, -1 for all cores (default: %(default)s)",
    )
    return parser


def main(argv=None):
    """Run the demo; ``argv`` as for ``argparse`` (None: ``sys.argv[1:]``)."""
    args = _parse_args(argv)
    t0 = time.perf_counter()
    X, y, users, proba, tune, held_out = _click_log(args)
    estimator, scoring, search = _tune(args, X[tune], y[tune], users[tune])
    picks = _print_choices(search, args.refit)
    Xh, yh, uh = X[held_out], y[held_out], users[held_out]
    _print_held_out_scores(search, scoring, Xh, yh, uh, proba[held_out])
    print(
        "\nOn the held-out users: the report of the chosen model, and each "
        "metric's choice against the\ndefault parameters, paired over users "
        "(95 % bootstrap intervals, permutation tests, Holm):\n"
    )
    print(
        _held_out_comparison(
            search, estimator, picks, args, X[tune], y[tune], Xh, yh, uh
        )
    )
    print(f"\nDone in {time.perf_counter() - t0:.1f} s.")
    return 0


def _parse_args(argv):
    parser = _parser()
    args = parser.parse_args(argv)
    if args.n_users < 2 * args.folds:
        parser.error(
            f"argument --n-users: must be at least twice --folds "
            f"({2 * args.folds}); got {args.n_users}"
        )
    return args


def _click_log(args):
    """The click log (features, clicks, users, click probabilities) and the
    rows of the tuning and held-out users; prints what they are."""
    X, y, users, proba = make_click_log(
        n_users=args.n_users, random_state=args.seed, return_proba=True
    )
    tune, held_out = next(
        GroupShuffleSplit(n_splits=1, test_size=0.2, random_state=args.seed).split(
            X, y, users
        )
    )
    print(
        f"Click log: {args.n_users:,} users, {X.shape[0]:,} impressions, "
        f"{X.shape[1]} features, click rate {y.mean():.1%} "
        f"(make_click_log, seed {args.seed})."
    )
    print(
        f"Tuning on {np.unique(users[tune]).size:,} users with "
        f"GroupKFold({args.folds}) over users; "
        f"{np.unique(users[held_out]).size:,} users held out."
    )
    return X, y, users, proba, tune, held_out


def _tune(args, X, y, users):
    """The fitted search over the tuning users: returns the estimator, the
    scoring and the search."""
    estimator, grid = _model(args.model, args.seed)
    n_candidates = len(ParameterGrid(grid))
    scoring = make_scoring(METRICS)
    search = _ProgressGridSearchCV(
        estimator,
        grid,
        scoring=scoring,
        cv=GroupKFold(n_splits=args.folds),
        refit=args.refit,
        n_jobs=args.n_jobs,
        error_score="raise",
    )
    name = type(estimator[-1] if hasattr(estimator, "steps") else estimator).__name__
    print(
        f"\nGridSearchCV of {name}: {n_candidates} candidates x {args.folds} "
        f"folds = {n_candidates * args.folds} fits, n_jobs={args.n_jobs}, "
        f"refit={args.refit!r}."
    )
    # Routing is a global setting: enable it only for the search, so the
    # caller's configuration is restored afterwards.  With parallel folds,
    # the refit in this process gets one OpenMP thread too (as the workers
    # do): on a busy machine a thread pool competing for the cores costs
    # more than it gains on these small fits.
    threads = None if args.n_jobs == 1 else 1
    with (
        sklearn.config_context(enable_metadata_routing=True),
        threadpool_limits(limits=threads, user_api="openmp"),
    ):
        search.fit(X, y, groups=users, query_id=users)
    return estimator, scoring, search


def _print_choices(search, refit):
    """Prints the cross-validated scores and what each metric would choose;
    returns ``{formatted parameters: (parameters, metrics choosing them)}``."""
    print(
        "\nMean cross-validated scores, best first by "
        f"{refit} (* = each metric's best; higher is better):\n"
    )
    print(_results_table(search.cv_results_, refit))
    print(f"\nChosen by {refit}: {_format_params(search.best_params_)}")
    picks = {}
    for metric in METRICS:
        i = int(np.argmax(search.cv_results_[f"mean_test_{metric}"]))
        params = search.cv_results_["params"][i]
        picks.setdefault(_format_params(params), (params, []))[1].append(metric)
    if len(picks) > 1:
        print("The metrics disagree; each would choose:")
        for params, (_, metrics) in picks.items():
            print(f"  {', '.join(metrics)}: {params}")
    else:
        print("Every metric chooses the same parameters.")
    return picks


def _print_held_out_scores(search, scoring, Xh, yh, uh, ph):
    """The refitted model's held-out scores next to the true click model's."""
    rows = []
    ours = set(get_scorer_names())
    with sklearn.config_context(enable_metadata_routing=True):
        for metric, scorer in scoring.items():
            is_ranking = metric.split("@")[0] in ours
            extra = {"query_id": uh} if is_ranking else {}
            model_score = scorer(search.best_estimator_, Xh, yh, **extra)
            true_score = _TRUE_MODEL_METRICS[metric](yh, ph, query_id=uh)
            rows.append([metric, f"{model_score:.4f}", f"{true_score:.4f}"])
    print(
        f"\nHeld-out users ({np.unique(uh).size:,} users, {Xh.shape[0]:,} "
        "impressions); the model refitted on all tuning users, next to the "
        "true click probabilities:\n"
    )
    print(_table(rows, ["metric", "chosen model", "true click model"], "<>>"))
    print(
        "\nroc_auc and neg_log_loss pool all users: they also reward telling "
        "active users from passive ones.\nThe per-user metrics judge only the "
        "order of each user's items, which is what a feed shows."
    )


def _report_and_compare(
    y_true,
    y_scores,
    *,
    best,
    baseline,
    query_id=None,
    k=(1, 5, 10, 20),
    compare_k=10,
    metrics=None,
    random_state=0,
    **options,
):
    """Text for the demo: the report of the model ``best`` and the
    comparison of every model of ``y_scores`` against ``baseline`` (e.g.
    the candidates of a search against the default parameters).

    ``y_scores`` maps model names to scores on the same rows; ``options``
    go to both :func:`ranking_report` and :func:`compare_rankings`.  The
    report has the registry's default metrics at ``k``; the comparison
    ``metrics`` at ``compare_k`` (None: the registry's default metrics, as
    :func:`compare_rankings`; the demo passes the metrics of its search).
    """

    for role, name in (("best", best), ("baseline", baseline)):
        if name not in y_scores:
            raise ValueError(
                f"{role}={name!r} is not a model of y_scores; choose among "
                f"{', '.join(map(repr, y_scores))}."
            )
    report = ranking_report(y_true, y_scores[best], k=k, query_id=query_id, **options)
    comparison = compare_rankings(
        y_true,
        y_scores,
        k=compare_k,
        metrics=metrics,
        query_id=query_id,
        baseline=baseline,
        random_state=random_state,
        **options,
    )
    return (
        f"Ranking report of {best!r}\n\n{report}\n"
        f"Every model against {baseline!r}\n\n{comparison}\n"
    )
