"""Snapshot every public function's output on fixed random inputs.

Used to prove that a refactor that moves code changes no value, bit for bit::

    python tests/public_values.py dump before.pkl      # on the old tree
    python tests/public_values.py dump after.pkl       # on the new tree
    python tests/public_values.py compare before.pkl after.pkl

Every call is recorded as its result (floats and arrays exactly, text
verbatim) or as the exception it raised (type and message), so errors must
match too.  The inputs cover the three input forms (2-D dense, sparse, long
with out-of-order string and integer ids), ties, ``-inf`` scores, queries
without relevant items, weights, propensities and every registry metric at
several cut-offs with each preset.
"""

import io
import os
import pickle
import sys
import warnings
from contextlib import redirect_stdout

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin


def _cases():
    rng = np.random.default_rng(20261126)
    n_q, n_i = 23, 17
    y = rng.integers(0, 4, size=(n_q, n_i)) * (rng.random((n_q, n_i)) < 0.35)
    y[3] = 0  # a query without relevant items
    y[5] = 2  # every item relevant
    s = np.round(rng.normal(size=(n_q, n_i)), 1)  # ties
    s[rng.random((n_q, n_i)) < 0.1] = -np.inf
    s[7] = 0.5  # a constant query
    w = rng.uniform(0.5, 2.0, size=n_q)
    p = rng.uniform(0.05, 1.0, size=(n_q, n_i))
    # long form: rows shuffled, string ids that look alike
    q, i = np.nonzero(np.ones_like(y))
    keep = rng.random(q.size) < 0.8
    q, i = q[keep], i[keep]
    order = rng.permutation(q.size)
    q, i = q[order], i[order]
    ids = np.array([f"{x:03d}" if x % 2 else str(x) for x in q])
    long = dict(
        y_true=y[q, i],
        y_score=s[q, i],
        query_id=ids,
        int_ids=q * 7 + 1,
        item_id=i,
        propensity=p[q, i],
        weight=w[q],
    )
    return dict(
        y=y,
        s=s,
        sparse=sp.csr_matrix(y),
        w=w,
        p=p,
        long=long,
        n_items=n_i,
    )


def _record(out, key, fn, *args, **kwargs):
    buf = io.StringIO()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with redirect_stdout(buf):
                value = fn(*args, **kwargs)
        out[key] = ("ok", _plain(value), buf.getvalue())
    except Exception as exc:  # noqa: BLE001 -- errors are part of the snapshot
        out[key] = ("error", type(exc).__name__, str(exc))


def _plain(value):
    """Something picklable and comparable bit for bit."""
    if isinstance(value, np.ndarray) and value.dtype.kind == "O":
        # (the bytes of an object array are pointers: compare the objects)
        return ("ndarray", "O", value.shape, [repr(v) for v in value.ravel()])
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, dict):
        return ("dict", [(str(k), _plain(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_plain(v) for v in value])
    if isinstance(value, (float, np.floating)):
        return ("float", float(value).hex())
    if isinstance(value, (int, str, bool, type(None), np.integer, np.bool_)):
        return ("scalar", repr(value))
    if type(value).__module__.startswith("pandas"):
        return ("frame", _plain({str(k): np.asarray(v) for k, v in value.items()}))
    if hasattr(value, "__dict__"):
        return (type(value).__name__, _plain(dict(vars(value))))
    return ("repr", repr(value))


def dump(path):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _peer  # tests/_peer.py: the one way to the peers' data

    import sklearn_rankmetrics as srm
    from sklearn_rankmetrics import _registry

    c = _cases()
    long = c["long"]
    out = {}
    conventions = [None]
    try:
        from sklearn_rankmetrics._utils._conventions import CONVENTIONS

        conventions += sorted(CONVENTIONS)
    except Exception:  # noqa: BLE001
        pass
    for name, spec in _registry.METRICS.items():
        fn = spec.function
        for conv in conventions:
            for k in (1, 3, 10, None) if spec.cutoff else (None,):
                kw = {} if not spec.cutoff else {"k": k}
                if conv is not None:
                    kw["convention"] = conv
                tag = (name, conv, k)
                _record(out, ("2d",) + tag, fn, c["y"], c["s"], **kw)
                _record(out, ("2d-none",) + tag, fn, c["y"], c["s"], average=None, **kw)
                _record(
                    out, ("2d-w",) + tag, fn, c["y"], c["s"], sample_weight=c["w"], **kw
                )
                _record(out, ("sparse",) + tag, fn, c["sparse"], c["s"], **kw)
                _record(
                    out,
                    ("long",) + tag,
                    fn,
                    long["y_true"],
                    long["y_score"],
                    query_id=long["query_id"],
                    **kw,
                )
                _record(
                    out,
                    ("long-int",) + tag,
                    fn,
                    long["y_true"],
                    long["y_score"],
                    query_id=long["int_ids"],
                    average=None,
                    **kw,
                )
                for opt in (
                    {"ignore_ties": True},
                    {"no_relevant": 0.0},
                    {"relevance_threshold": 2},
                ):
                    _record(
                        out,
                        ("2d",) + tag + (str(opt),),
                        fn,
                        c["y"],
                        c["s"],
                        **opt,
                        **kw,
                    )
            if spec.propensity:
                k = 5 if spec.cutoff else None
                kw = {} if k is None else {"k": k}
                _record(
                    out,
                    ("ips-2d", name, conv),
                    fn,
                    c["y"],
                    c["s"],
                    propensity=c["p"],
                    **kw,
                )
                _record(
                    out,
                    ("ips-long", name, conv),
                    fn,
                    long["y_true"],
                    long["y_score"],
                    query_id=long["query_id"],
                    propensity=long["propensity"],
                    **kw,
                )
    for name, spec in getattr(_registry, "BEYOND_METRICS", {}).items():
        for k in (1, 5):
            extra = {
                "item_popularity": np.arange(1, c["n_items"] + 1),
                "item_features": np.eye(c["n_items"])[:, :5],
            }
            params = _registry.function_parameters(spec.function)
            extra = {key: v for key, v in extra.items() if key in params}
            _record(
                out, ("beyond", name, k), spec.function, c["y"], c["s"], k=k, **extra
            )
            _record(out, ("beyond-plain", name, k), spec.function, c["y"], c["s"], k=k)
    for form, args, kw in (
        ("2d", (c["y"], c["s"]), {}),
        ("long", (long["y_true"], long["y_score"]), {"query_id": long["query_id"]}),
    ):
        _record(
            out, ("report", form), srm.ranking_report, *args, output_dict=True, **kw
        )
        _record(out, ("report-text", form), srm.ranking_report, *args, **kw)
        _record(
            out,
            ("report-all", form),
            srm.ranking_report,
            *args,
            k=(1, 4, 9),
            metrics=list(_registry.METRICS),
            output_dict=True,
            **kw,
        )
        _record(
            out,
            ("report-perq", form),
            srm.ranking_report,
            *args,
            per_query=True,
            output_dict=True,
            **kw,
        )
        for conv in conventions[1:]:
            _record(
                out,
                ("report-conv", form, conv),
                srm.ranking_report,
                *args,
                convention=conv,
                output_dict=True,
                **kw,
            )
        ev = srm.RankingEvaluator(k=(1, 5), metrics=["ndcg", "map", "precision"])
        if form == "long":
            _record(
                out,
                ("state", form),
                lambda ev=ev, args=args, kw=kw: ev.update(*args, **kw).result(
                    output_dict=True
                ),
            )
        _record(
            out,
            ("compare", form),
            srm.compare_rankings,
            args[0],
            {"a": args[1], "b": np.where(np.isinf(args[1]), args[1], -args[1])},
            random_state=0,
            n_bootstrap=199,
            n_resamples=199,
            **kw,
        )
    rng = np.random.default_rng(1)
    U, V = rng.normal(size=(c["y"].shape[0], 4)), rng.normal(size=(c["n_items"], 4))
    _record(
        out,
        ("factor",),
        srm.factor_ranking_report,
        c["sparse"],
        U,
        V,
        k=5,
        exclude=sp.csr_matrix(c["y"] == 1),
        output_dict=True,
    )
    _record(
        out,
        ("factor-beyond",),
        srm.factor_ranking_report,
        c["sparse"],
        U,
        V,
        k=5,
        metrics=["ndcg", "catalog_coverage", "gini_index"],
        output_dict=True,
    )
    yb = (long["y_true"] > 0).astype(int)
    pr = 1 / (1 + np.exp(-long["y_score"].clip(-5, 5)))
    for fname in (
        "normalized_entropy",
        "calibration_ratio",
        "expected_calibration_error",
    ):
        _record(out, ("calib", fname), getattr(srm, fname), yb, pr)
    _record(
        out,
        ("calib-report",),
        srm.calibration_report,
        yb,
        pr,
        groups=long["int_ids"] % 3,
        output_dict=True,
    )
    _record(
        out,
        ("gauc-variants",),
        srm.group_auc_score,
        long["y_true"],
        long["y_score"],
        query_id=long["query_id"],
        query_weighting="uniform",
    )
    _record(
        out,
        ("idlists",),
        srm.ranked_lists_to_arrays,
        [[2, 5, 1], [3, 10]],
        [[3, 10, 7], [3]],
    )
    import subprocess

    peer = _peer.peer_path("trec_eval")  # the one way to the peers' data
    if peer is not None:
        for args in (
            [],
            ["-q", "-m", "all_trec"],
            ["-m", "ndcg_cut.10", "-m", "map", "-m", "P.5"],
        ):
            cmd = [
                sys.executable,
                "-m",
                "sklearn_rankmetrics",
                "evaluate",
                *args,
                os.path.join(peer, "qrels.test"),
                os.path.join(peer, "results.test"),
            ]
            r = subprocess.run(cmd, capture_output=True, text=True)
            out[("cli",) + tuple(args)] = (
                "ok",
                ("scalar", r.returncode),
                r.stdout + r.stderr,
            )
    groups = np.array(["web", "app", "tv"])[long["int_ids"] % 3]
    _record(
        out,
        ("segments",),
        srm.ranking_report,
        long["y_true"],
        long["y_score"],
        query_id=long["query_id"],
        groups=groups,
        k=(1, 5),
        output_dict=True,
    )
    _record(
        out,
        ("segments-ci",),
        srm.ranking_report,
        long["y_true"],
        long["y_score"],
        query_id=long["query_id"],
        groups=groups,
        k=5,
        metrics=["ndcg", "mrr"],
        confidence_level=0.9,
        n_bootstrap=99,
        random_state=0,
        output_dict=True,
    )
    _record(out, ("strata",), srm.popularity_strata, np.arange(c["n_items"]) ** 2)
    _record(
        out,
        ("ips-diagnostics",),
        srm.propensity_diagnostics,
        c["y"],
        c["s"],
        propensity=c["p"],
    )
    _record(
        out,
        ("ips-report",),
        srm.ranking_report,
        c["y"],
        c["s"],
        propensity=c["p"],
        output_dict=True,
    )
    _record(
        out,
        ("ips-report-micro",),
        srm.ranking_report,
        c["y"],
        c["s"],
        propensity=c["p"],
        average="micro",
        output_dict=True,
    )
    top = np.argsort(-np.where(np.isinf(c["s"]), -1e9, c["s"]), axis=1, kind="stable")[
        :, :5
    ]
    users = np.repeat(np.arange(top.shape[0]), top.shape[1])
    reco = {
        "user_id": users.astype(str),
        "item_id": top.ravel(),
        "rank": np.tile(np.arange(1, 6), top.shape[0]),
    }
    hu, hi = np.nonzero(c["y"])
    held = {"user_id": hu.astype(str), "item_id": hi, "grade": c["y"][hu, hi]}
    _record(
        out,
        ("rectable",),
        srm.recommendation_table_report,
        reco,
        held,
        rank_col="rank",
        label_col="grade",
        k=(1, 5),
        catalog=np.arange(c["n_items"]),
        output_dict=True,
    )
    try:
        from sklearn_rankmetrics.model_selection import sampled_metrics

        ranks = rng.integers(1, 101, size=50)
        _record(
            out,
            ("sampled",),
            sampled_metrics,
            ranks,
            n_items=1000,
            n_negatives=99,
            k=10,
        )
    except ImportError:
        pass
    try:
        import pandas as pd

        frame = pd.DataFrame(
            {"q": long["query_id"], "y": long["y_true"], "s": long["y_score"]}
        )
        _record(
            out,
            ("frame-report",),
            srm.ranking_report,
            frame,
            query_col="q",
            label_col="y",
            score_col="s",
            output_dict=True,
        )
        _record(
            out,
            ("frame-ndcg",),
            srm.ndcg_at_k,
            frame,
            query_col="q",
            label_col="y",
            score_col="s",
            k=5,
        )
    except ImportError:
        pass
    _more_surfaces(out, c, long, peer)
    for name in sorted(getattr(srm, "__all__", [])):
        out[("exported", name)] = ("ok", ("scalar", name), "")
    for name in sorted(srm.get_scorer_names()):
        out[("scorer-name", name)] = ("ok", ("scalar", name), "")
    with open(path, "wb") as f:
        pickle.dump(out, f)
    print(f"{len(out)} values written to {path}")


class _Fixed(ClassifierMixin, BaseEstimator):
    """An estimator whose scores are a fixed linear function of X (a
    multilabel one for 2-D y, a binary classifier for the long form)."""

    def __init__(self, w=None):
        self.w = w
        self.classes_ = np.array([0, 1])

    def fit(self, X, y=None, **fit_params):
        return self

    def decision_function(self, X):
        return np.asarray(X, dtype=np.float64) @ np.asarray(self.w, dtype=float)


def _more_surfaces(out, c, long, peer):
    """The scorers, Displays, estimators, readers, generators and splitters
    (whose output is not a metric value), and the command line's other
    modes."""
    import os
    import subprocess
    import tempfile

    import sklearn_rankmetrics as srm
    from sklearn_rankmetrics import datasets, model_selection

    rng = np.random.default_rng(7)
    y, s = c["y"], c["s"]
    X2 = rng.normal(size=(y.shape[0], 4))
    W2 = rng.normal(size=(4, y.shape[1]))
    est2 = _Fixed(W2)
    Xl = rng.normal(size=(long["y_true"].shape[0], 3))
    estl = _Fixed(rng.normal(size=3))
    yl = (long["y_true"] > 0).astype(int)
    for name in sorted(srm.get_scorer_names()):
        cut = [name, f"{name}@5"]
        for label in cut:
            try:
                scorer = srm.get_scorer(label)
            except Exception as exc:  # noqa: BLE001
                out[("scorer", label)] = ("error", type(exc).__name__, str(exc))
                continue
            if "calibration" in label or "entropy" in label:
                continue
            _record(out, ("scorer-2d", label), scorer, est2, X2, y)
            _record(
                out,
                ("scorer-long", label),
                scorer,
                estl,
                Xl,
                long["y_true"],
                query_id=long["query_id"],
            )
    _record(out, ("scorer-unknown",), srm.get_scorer, "ndgc@10")
    _record(out, ("scorer-bad-k",), srm.get_scorer, "ndcg@010")
    _record(
        out,
        ("make-scoring",),
        lambda: sorted(srm.make_scoring(["ndcg@5", "map@10", "roc_auc"])),
    )
    _record(
        out,
        ("scorer-exclude-seen",),
        lambda: srm.get_scorer("ndcg@3", exclude_seen=True)(
            _Fixed(rng.normal(size=(y.shape[1], y.shape[1]))),
            (rng.random(y.shape) < 0.2).astype(float),
            y,
        ),
    )
    # Displays: their computed attributes, and one drawing
    for kw in ({}, {"metric": "map", "convention": "trec_eval"}):
        _record(
            out,
            ("display-k", str(kw)),
            lambda kw=kw: vars(
                srm.MetricAtKDisplay.from_predictions(
                    y, s, k=range(1, 6), plot=False, **kw
                )
            ),
        )
    _record(
        out,
        ("display-diff",),
        lambda: vars(
            srm.PerQueryDifferenceDisplay.from_predictions(
                y, s, np.where(np.isinf(s), s, -s), k=3, plot=False
            )
        ),
    )
    _record(
        out,
        ("display-k-estimator",),
        lambda: vars(
            srm.MetricAtKDisplay.from_estimator(est2, X2, y, k=(1, 3), plot=False)
        ),
    )
    pr = 1 / (1 + np.exp(-long["y_score"].clip(-5, 5)))
    _record(
        out,
        ("display-calibration",),
        lambda: vars(
            srm.GroupCalibrationDisplay.from_predictions(
                yl, pr, groups=long["int_ids"] % 4, plot=False
            )
        ),
    )
    try:
        import matplotlib

        matplotlib.use("agg")

        def drawn():
            d = srm.MetricAtKDisplay.from_predictions(y, s, k=range(1, 4))
            return d.line_.get_xydata(), d.ax_.get_xlabel(), d.ax_.get_ylabel()

        _record(out, ("display-drawn",), drawn)
    except ImportError:
        pass
    # calibration state
    ev = srm.CalibrationEvaluator(window=2)
    _record(
        out,
        ("calibration-state",),
        lambda: [
            ev.update(yl[:200], pr[:200], groups=long["int_ids"][:200] % 3),
            ev.update(yl[200:], pr[200:], groups=long["int_ids"][200:] % 3),
            ev.result(),
            ev.result(window=True),
        ],
    )
    # propensity estimates
    clicks = (rng.random((30, 12)) < 0.2).astype(int)
    _record(
        out, ("popularity-propensity",), srm.popularity_propensity, clicks, gamma=0.5
    )
    _record(
        out,
        ("position-propensity",),
        srm.position_propensity,
        np.arange(1, 11),
        eta=0.8,
    )
    # estimators
    Xr, yr, qr = datasets.make_ranking_dataset(
        n_queries=20, n_docs=(3, 8), random_state=0
    )[:3]
    from sklearn.linear_model import Ridge

    def ranker():
        model = srm.QueryRanker(Ridge(alpha=1.0)).fit(Xr, yr, query_id=qr)
        return model.predict(Xr), model.score(Xr, yr, query_id=qr)

    _record(out, ("query-ranker",), ranker)
    # data generators
    _record(out, ("make-click-log",), datasets.make_click_log, 30, random_state=0)
    _record(
        out,
        ("make-ranking-dataset",),
        datasets.make_ranking_dataset,
        10,
        random_state=0,
    )
    _record(
        out, ("make-interactions",), datasets.make_interactions, 20, 60, random_state=0
    )
    # splitters and recommenders
    users, _, times = (
        rng.integers(0, 8, 80),
        rng.integers(0, 20, 80),
        rng.random(80),
    )

    def folds(splitter, *args, **kw):
        return [(a.tolist(), b.tolist()) for a, b in splitter.split(*args, **kw)]

    X80 = np.zeros((80, 1))
    _record(
        out,
        ("split-global",),
        folds,
        model_selection.GlobalTemporalSplit(test_size=0.25),
        X80,
        groups=users,
        time=times,
    )
    _record(
        out,
        ("split-range",),
        folds,
        model_selection.TimeRangeSplit(n_splits=2, test_size=0.2),
        X80,
        groups=users,
        time=times,
    )
    _record(
        out,
        ("split-last",),
        folds,
        model_selection.LeaveLastNOut(n=1),
        X80,
        groups=users,
        time=times,
    )
    _record(
        out,
        ("split-user",),
        folds,
        model_selection.PerUserHoldout(test_size=0.3, random_state=0),
        X80,
        groups=users,
    )
    R = (rng.random((12, 10)) < 0.3).astype(float)
    kf = model_selection.UserKFold(n_splits=3, random_state=0, shuffle=True)
    _record(out, ("user-kfold",), lambda: kf.input_target(R))
    _record(out, ("user-kfold-split",), folds, kf, R)

    def recommender():
        from sklearn.decomposition import TruncatedSVD

        Xi, yi = kf.input_target(R)
        model = model_selection.DecompositionRecommender(
            TruncatedSVD(n_components=2, random_state=0)
        ).fit(Xi, yi)
        return model.predict(Xi)

    _record(out, ("decomposition",), recommender)
    # TREC readers
    if peer is not None:
        qrels = os.path.join(peer, "qrels.test")
        run = os.path.join(peer, "results.test")
        _record(out, ("read-qrels",), srm.read_trec_qrels, qrels)
        _record(out, ("read-run",), srm.read_trec_run, run)
        _record(out, ("trec-long",), srm.trec_to_long_form, qrels, run)
        _record(
            out,
            ("trec-long-judged",),
            srm.trec_to_long_form,
            qrels,
            run,
            all_queries=True,
            return_judged=True,
        )
    # beyond-accuracy metrics in the long form
    for name, spec in __import__(
        "sklearn_rankmetrics._registry", fromlist=["x"]
    ).BEYOND_METRICS.items():
        _record(
            out,
            ("beyond-long", name),
            spec.function,
            long["y_true"],
            long["y_score"],
            k=3,
            query_id=long["query_id"],
            item_id=long["item_id"],
            **(
                {"item_popularity": np.arange(1, c["n_items"] + 1)}
                if name in ("average_popularity", "novelty", "serendipity")
                else {"item_features": np.eye(c["n_items"])[:, :5]}
                if name == "intra_list_diversity"
                else {}
            ),
        )
    # the command line's other modes: a table of impressions, comparisons,
    # output formats, errors
    with tempfile.TemporaryDirectory() as tmp:
        table = os.path.join(tmp, "log.csv")
        with open(table, "w") as f:
            f.write("user,click,a,b\n")
            for q, yy, ss in zip(
                long["query_id"], long["y_true"], long["y_score"], strict=True
            ):
                a = "-inf" if np.isinf(ss) else repr(float(ss))
                b = "-inf" if np.isinf(ss) else repr(float(-ss))
                f.write(f"{q},{yy},{a},{b}\n")
        runs = []
        if peer is not None:
            runs = [
                os.path.join(peer, "qrels.test"),
                os.path.join(peer, "results.test"),
            ]
        for args in (
            [
                "--long",
                table,
                "--query-col",
                "user",
                "--label-col",
                "click",
                "--score-col",
                "a",
            ],
            [
                "--long",
                table,
                "--query-col",
                "user",
                "--label-col",
                "click",
                "--score-col",
                "a",
                "b",
                "-m",
                "ndcg@5",
                "-m",
                "map@10",
                "-m",
                "gauc",
                "--n-resamples",
                "99",
                "--n-bootstrap",
                "99",
            ],
            [
                "--long",
                table,
                "--query-col",
                "user",
                "--label-col",
                "click",
                "--score-col",
                "a",
                "--format",
                "json",
                "-q",
            ],
            [
                "--long",
                table,
                "--query-col",
                "user",
                "--label-col",
                "click",
                "--score-col",
                "a",
                "b",
                "--format",
                "csv",
                "--no-compare",
            ],
            [
                "--long",
                table,
                "--query-col",
                "nope",
                "--label-col",
                "click",
                "--score-col",
                "a",
            ],
            ["-m", "ndcg@", *runs],
            ["--format", "json", "-m", "P.5", *runs],
            ["-m", "map", "-m", "ndcg_cut.5", *runs, runs[-1].replace("test", "trunc")]
            if runs
            else [],
        ):
            if not args:
                continue
            cmd = [sys.executable, "-m", "sklearn_rankmetrics", "evaluate", *args]
            r = subprocess.run(cmd, capture_output=True, text=True)
            text = (r.stdout + r.stderr).replace(tmp, "TMP")
            out[("cli-more",) + tuple(a.replace(tmp, "TMP") for a in args)] = (
                "ok",
                ("scalar", r.returncode),
                text,
            )
        r = subprocess.run(
            [sys.executable, "-m", "sklearn_rankmetrics", "evaluate", "--help"],
            capture_output=True,
            text=True,
        )
        out[("cli-help",)] = ("ok", ("scalar", r.returncode), r.stdout + r.stderr)
    try:
        import dask.dataframe as dd
        import pandas as pd

        frame = pd.DataFrame(
            {"q": long["query_id"], "y": long["y_true"], "s": long["y_score"]}
        )
        ddf = dd.from_pandas(frame, npartitions=3)
        from sklearn_rankmetrics import dask as srm_dask

        _record(
            out,
            ("dask-report",),
            srm_dask.ranking_report,
            ddf,
            query_col="q",
            label_col="y",
            score_col="s",
            k=(1, 5),
            output_dict=True,
        )
    except ImportError:
        pass


def compare(a, b):
    with open(a, "rb") as f:
        before = pickle.load(f)
    with open(b, "rb") as f:
        after = pickle.load(f)
    bad = 0
    for key in sorted(set(before) | set(after), key=repr):
        if before.get(key) != after.get(key):
            bad += 1
            if bad <= 20:
                print("DIFFERS:", key)
                print("   before:", repr(before.get(key))[:300])
                print("   after: ", repr(after.get(key))[:300])
    print(f"{len(before)} / {len(after)} values; {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "dump":
        dump(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
