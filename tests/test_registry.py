"""The registry walk: every metric of the table, through every surface
wired so far, gives its public function's number."""

import re

import numpy as np
import pytest

import sklearn_rankmetrics as srm
from sklearn_rankmetrics._registry import (
    BEYOND_METRICS,
    METRICS,
    MetricSpec,
    metric_names,
    parse_metric,
)


def _case(seed, n_q=7, n_items=6):
    rng = np.random.default_rng(seed)
    Y = rng.integers(0, 3, size=(n_q, n_items)).astype(float)
    Y[0] = 0.0  # a query without relevant items
    S = rng.integers(0, 3, size=(n_q, n_items)).astype(float)  # ties
    S[1, 0] = -np.inf
    return Y, S


def test_scorer_names_are_the_registry_names():
    sklearn_names = set(__import__("sklearn").metrics.get_scorer_names())
    ours = {n for n in metric_names(scorer=True) if n not in sklearn_names}
    calibration = {"neg_expected_calibration_error", "neg_normalized_entropy"}
    assert set(srm.get_scorer_names()) == ours | calibration
    for name in srm.get_scorer_names():  # every name listed gives a scorer
        assert callable(srm.get_scorer(name))


@pytest.mark.parametrize("name", list(METRICS))
@pytest.mark.parametrize("seed", [0, 1])
def test_report_gives_the_function_value(name, seed):
    spec = METRICS[name]
    Y, S = _case(seed)
    q = np.repeat(np.arange(Y.shape[0]), Y.shape[1])
    y, s = Y.ravel(), S.ravel()
    k = 3
    kw = {"k": k} if spec.cutoff else {}
    report = srm.ranking_report(y, s, query_id=q, k=k, metrics=[name], output_dict=True)
    expected = spec.function(y, s, query_id=q, **kw)
    np.testing.assert_allclose(report[spec.label(k)], expected, rtol=1e-12)
    assert parse_metric(spec.label(k)) == (spec, k if spec.cutoff else None)


# ---------------------------------------------------------------------------
# Conventions and every option through the report: each metric equals its
# function called with the same convention and options, bit for bit
# ---------------------------------------------------------------------------
from sklearn_rankmetrics._utils._conventions import CONVENTIONS  # noqa: E402

# Option sets that each change some metric's value (and its ranking).
OPTION_SETS = [
    {},
    {"ignore_ties": True},
    {"ties": "pessimistic"},
    {"ties": "optimistic", "no_relevant": 0.0},
    {"gain": "exponential", "relevance_threshold": 2},
    {"precision_denominator": "retrieved", "ap_denominator": "min_k"},
    {"persistence": 0.5, "rbp_gain": "max_normalized", "beta": 2.0},
    {"log_base": 10, "discount": "reciprocal", "max_grade": 4},
    {"rbp_gain": "raw", "query_weighting": "uniform", "no_relevant": 1.0},
    {"gain": {0: 0.0, 1: 3.0, 2: 7.0}, "ap_denominator": "hits", "ties": "input_order"},
]


def _function_value(spec, y, s, q, w, k, options, convention):
    import inspect

    accepted = inspect.signature(spec.function).parameters
    kw = {o: v for o, v in options.items() if o in accepted}
    if spec.cutoff:
        kw["k"] = k
    return spec.function(y, s, query_id=q, sample_weight=w, convention=convention, **kw)


def _long_case(seed, weights):
    Y, S = _case(seed, n_q=9, n_items=5)
    rng = np.random.default_rng(seed + 100)
    q = np.repeat(np.arange(Y.shape[0]) * 3 + 1, Y.shape[1])
    order = rng.permutation(q.shape[0])  # rows out of order
    w = None
    if weights:
        w = np.repeat(rng.integers(1, 4, size=Y.shape[0]).astype(float), Y.shape[1])
        w = w[order]
    return Y.ravel()[order], S.ravel()[order], q[order], w


def _equal(got, want):
    got, want = np.float64(got), np.float64(want)
    assert (np.isnan(got) and np.isnan(want)) or got == want, (got, want)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
@pytest.mark.parametrize("convention", [None, *CONVENTIONS])
@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_report_with_convention_and_options_is_the_function(convention, options):
    ks = (2, 4)
    for weights, form in ((False, "2-D"), (True, "long")):
        if form == "2-D":
            Y, S = _case(3, n_q=8, n_items=6)
            y, s, q, w = Y, S, None, None
        else:
            y, s, q, w = _long_case(4, weights)
        names = list(METRICS)
        got = srm.ranking_report(
            y,
            s,
            k=ks,
            metrics=names,
            query_id=q,
            sample_weight=w,
            convention=convention,
            output_dict=True,
            **options,
        )
        for name in names:
            spec = METRICS[name]
            for k in ks if spec.cutoff else (None,):
                want = _function_value(spec, y, s, q, w, k, options, convention)
                _equal(got[spec.label(k)], want)


def test_report_refuses_an_option_no_metric_takes():
    Y, S = _case(0)
    with pytest.raises(TypeError, match="unknown option.*'gian'"):
        srm.ranking_report(Y, S, gian="linear")


def test_report_checks_given_options_whatever_the_metrics():
    Y, S = _case(0)
    with pytest.raises(ValueError, match="persistence"):
        srm.ranking_report(Y, S, metrics=["ndcg"], persistence=1.5)


def test_report_shares_rankings_between_metrics_with_equal_options(monkeypatch):
    # Two tie rules -> two rankings at the largest cut-off, not one per metric.
    from sklearn_rankmetrics._evaluation import _per_query

    calls = []
    real = _per_query.rank_per_query

    def spy(*args, **kwargs):
        calls.append(kwargs["ignore_ties"])
        return real(*args, **kwargs)

    monkeypatch.setattr(_per_query, "rank_per_query", spy)
    Y, S = _case(1)
    srm.ranking_report(
        Y, S, k=(1, 3), metrics=["precision", "ndcg", "map"], convention="torchmetrics"
    )
    # torchmetrics: ndcg with averaged ties, the others in input order
    assert sorted(calls) == [False, True]


# ---------------------------------------------------------------------------
# The surfaces built on the report: the same numbers as the functions
# ---------------------------------------------------------------------------
# Option sets for the surfaces (fewer than the report's: each surface runs
# the report's engine, which the walk above checks option by option).
SURFACE_OPTIONS = [
    {},
    {"ties": "pessimistic", "precision_denominator": "retrieved"},
    {"gain": "exponential", "persistence": 0.5, "ap_denominator": "min_k"},
]
# ERR scales by the largest grade of the whole input: refused chunk by chunk.
CHUNKED = [n for n in METRICS if n != "err"]
SURFACE_KS = (2, 4)


def _close(got, want):
    got, want = np.float64(got), np.float64(want)
    if np.isnan(want):
        assert np.isnan(got), (got, want)
    else:
        # sums of chunk totals: the same numbers added in another order
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def _function_values(names, y, s, q, w, options, convention, ks=SURFACE_KS):
    out = {}
    for name in names:
        spec = METRICS[name]
        for k in ks if spec.cutoff else (None,):
            out[spec.label(k)] = _function_value(
                spec, y, s, q, w, k, options, convention
            )
    return out


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
@pytest.mark.parametrize("convention", [None, *CONVENTIONS])
@pytest.mark.parametrize("options", SURFACE_OPTIONS, ids=str)
def test_evaluator_merged_from_chunks_is_the_function(convention, options):
    y, s, q, w = _long_case(5, weights=True)
    ids = np.unique(q)
    # whole queries per chunk, each chunk's rows in their input order (the
    # row-order tie rules of the presets read it); two evaluators merged
    evaluators = []
    for part in (ids[:3], ids[3:5], ids[5:]):
        ev = srm.RankingEvaluator(
            k=SURFACE_KS, metrics=CHUNKED, convention=convention, **options
        )
        for group in np.array_split(part, 2):
            rows = np.isin(q, group)
            ev.update(y[rows], s[rows], query_id=q[rows], sample_weight=w[rows])
        evaluators.append(ev)
    total = evaluators[0].merge(evaluators[1]).merge(evaluators[2])
    got = total.result(output_dict=True)
    want = _function_values(CHUNKED, y, s, q, w, options, convention)
    assert list(got) == list(want)
    for name, value in want.items():
        _close(got[name], value)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
@pytest.mark.parametrize("convention", [None, *CONVENTIONS])
@pytest.mark.parametrize("options", SURFACE_OPTIONS, ids=str)
def test_compare_rankings_values_are_the_functions(convention, options):
    # compare_rankings weighs every query alike (GAUC: query_weighting=
    # "uniform"), without sample_weight
    options = {**options, "query_weighting": "uniform"}
    y, s, q, _ = _long_case(6, weights=False)
    s2 = s[::-1].copy()  # another model, with other ties
    res = srm.compare_rankings(
        y,
        {"a": s, "b": s2},
        k=SURFACE_KS,
        metrics=list(METRICS),
        query_id=q,
        convention=convention,
        n_resamples=9,
        n_bootstrap=9,
        random_state=0,
        **options,
    )
    for i, score in enumerate((s, s2)):
        want = _function_values(list(METRICS), y, score, q, None, options, convention)
        assert res.metrics == list(want)
        for j, value in enumerate(want.values()):
            _close(res.mean[i, j], value)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
@pytest.mark.parametrize("convention", [None, *CONVENTIONS])
@pytest.mark.parametrize("options", SURFACE_OPTIONS, ids=str)
def test_metric_at_k_display_values_are_the_function(convention, options):
    y, s, q, w = _long_case(7, weights=True)
    for name in metric_names(cutoff=True):
        display = srm.MetricAtKDisplay.from_predictions(
            y,
            s,
            metric=name,
            k=SURFACE_KS,
            query_id=q,
            sample_weight=w,
            metric_options=options,
            convention=convention,
            plot=False,
        )
        want = _function_values([name], y, s, q, w, options, convention)
        assert len(display.values) == len(want)
        for got, value in zip(display.values, want.values(), strict=True):
            _equal(got, value)


# ---------------------------------------------------------------------------
# Dask and Spark: a row-order tie rule needs tie_break_col
# ---------------------------------------------------------------------------
def _doc_frame(seed=8):
    """Long-form rows in random order with a document id unique within
    each query; coarse scores (ties); every preset's row order is then the
    order of the document ids."""
    pd = pytest.importorskip("pandas")
    y, s, q, w = _long_case(seed, weights=True)
    rng = np.random.default_rng(seed)
    doc = rng.permutation(y.shape[0]) + 1000  # unique, unrelated to the rows
    frame = pd.DataFrame({"qid": q, "rel": y, "score": s, "w": w, "doc": doc})
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def _in_memory_by_doc(frame, ascending, **options):
    ordered = frame.sort_values("doc", ascending=ascending, kind="stable")
    return srm.ranking_report(
        ordered["rel"].to_numpy(),
        ordered["score"].to_numpy(),
        query_id=ordered["qid"].to_numpy(),
        sample_weight=ordered["w"].to_numpy(),
        k=SURFACE_KS,
        metrics=CHUNKED,
        output_dict=True,
        **options,
    )


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
@pytest.mark.parametrize(
    "options, ascending",
    [
        ({"convention": "trec_eval"}, False),
        ({"convention": "lightgbm"}, True),
        ({"ties": "input_order", "precision_denominator": "retrieved"}, True),
        ({"ignore_ties": True, "convention": "sklearn"}, False),
    ],
    ids=str,
)
def test_dask_tie_break_col_gives_the_in_memory_numbers(options, ascending):
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    from sklearn_rankmetrics.dask import ranking_report as dask_report

    frame = _doc_frame()
    want = _in_memory_by_doc(frame, ascending, **options)
    with dask.config.set(scheduler="synchronous"):
        for npartitions in (1, 4):
            df = dd.from_pandas(frame, npartitions=npartitions)
            got = dask_report(
                df,
                query_col="qid",
                label_col="rel",
                score_col="score",
                weight_col="w",
                k=SURFACE_KS,
                metrics=CHUNKED,
                output_dict=True,
                tie_break_col="doc",
                tie_break_ascending=ascending,
                npartitions=3,
                **options,
            )
            assert list(got) == list(want)
            for name, value in want.items():
                _close(got[name], value)
    # the same numbers as the functions on the rows in document order
    ordered = frame.sort_values("doc", ascending=ascending, kind="stable")
    functions = _function_values(
        ["ndcg", "map"],
        ordered["rel"].to_numpy(),
        ordered["score"].to_numpy(),
        ordered["qid"].to_numpy(),
        ordered["w"].to_numpy(),
        {o: v for o, v in options.items() if o != "convention"},
        options.get("convention"),
    )
    for name, value in functions.items():
        _close(want[name], value)


def test_dask_refuses_row_order_ties_without_tie_break_col():
    pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    from sklearn_rankmetrics.dask import ranking_report as dask_report

    frame = _doc_frame()
    df = dd.from_pandas(frame, npartitions=2)
    cols = dict(query_col="qid", label_col="rel", score_col="score")
    for options in ({"convention": "trec_eval"}, {"ties": "input_order"}):
        with pytest.raises(ValueError, match="Pass tie_break_col="):
            dask_report(df, **cols, **options)
    with pytest.raises(ValueError, match="tie_break_col='nope' is not a column"):
        dask_report(df, **cols, tie_break_col="nope", convention="trec_eval")
    with pytest.raises(ValueError, match="already the query, label, score"):
        dask_report(df, **cols, tie_break_col="score", convention="trec_eval")
    with pytest.raises(TypeError, match="tie_break_ascending must be True or False"):
        dask_report(df, **cols, tie_break_col="doc", tie_break_ascending="no")
    # a tie-break value repeated within a query cannot order its rows
    frame.loc[frame.index[frame["qid"] == frame["qid"].iloc[0]][:2], "doc"] = -1
    df = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(ValueError, match="repeats a value within a query"):
        dask_report(df, **cols, tie_break_col="doc", convention="trec_eval")


@pytest.fixture(scope="module")
def spark_session():
    import os
    import sys
    import warnings
    from pathlib import Path

    pyspark_sql = pytest.importorskip("pyspark.sql")
    pytest.importorskip("pyarrow")
    # Spark's Python workers import this checkout with this interpreter
    root = str(Path(srm.__file__).resolve().parent.parent)
    names = ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "PYTHONPATH")
    saved = {v: os.environ.get(v) for v in names}
    os.environ["PYSPARK_PYTHON"] = os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (root, saved["PYTHONPATH"]) if p
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        session = (
            pyspark_sql.SparkSession.builder.master("local[2]")
            .appName("sklearn_rankmetrics-registry")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "3")
            .config("spark.sql.execution.arrow.pyspark.enabled", "true")
            .config("spark.sql.adaptive.enabled", "false")
            .getOrCreate()
        )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
    for var, value in saved.items():
        if value is None:
            os.environ.pop(var, None)
        else:
            os.environ[var] = value


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_spark_tie_break_col_gives_the_in_memory_numbers(spark_session):
    from sklearn_rankmetrics.spark import ranking_report as spark_report

    frame = _doc_frame()
    frame["qid"] = [f"u{q:03d}" for q in frame["qid"]]  # string ids
    cols = dict(query_col="qid", label_col="rel", score_col="score")
    for options, ascending in (
        ({"convention": "trec_eval"}, False),
        ({"ties": "input_order", "precision_denominator": "retrieved"}, True),
    ):
        want = _in_memory_by_doc(frame, ascending, **options)
        for parts in (1, 4):
            df = spark_session.createDataFrame(frame).repartition(parts)
            got = spark_report(
                df,
                **cols,
                weight_col="w",
                k=SURFACE_KS,
                metrics=CHUNKED,
                output_dict=True,
                tie_break_col="doc",
                tie_break_ascending=ascending,
                **options,
            )
            assert list(got) == list(want)
            for name, value in want.items():
                _close(got[name], value)
    df = spark_session.createDataFrame(frame)
    with pytest.raises(ValueError, match="Pass tie_break_col="):
        spark_report(df, **cols, convention="lightgbm")
    frame.loc[frame.index[frame["qid"] == frame["qid"].iloc[0]][:2], "doc"] = -1
    df = spark_session.createDataFrame(frame)
    with pytest.raises(Exception, match="repeats a value within a query"):
        spark_report(df, **cols, tie_break_col="doc", convention="trec_eval")


def test_surface_errors_name_the_public_function():
    Y, S = _case(0)
    q = np.repeat(np.arange(Y.shape[0]), Y.shape[1])
    with pytest.raises(TypeError, match=r"^RankingEvaluator\(\) got unknown"):
        srm.RankingEvaluator(k=2, gian="linear")
    with pytest.raises(TypeError, match=r"^compare_rankings\(\) got unknown"):
        srm.compare_rankings(Y, {"a": S, "b": -S}, k=2, gian="linear")
    with pytest.raises(TypeError, match=r"^MetricAtKDisplay.from_predictions\(\)"):
        srm.MetricAtKDisplay.from_predictions(
            Y.ravel(), S.ravel(), query_id=q, k=(1, 2), plot=False,
            metric_options={"gian": "linear"},
        )  # fmt: skip


# Every surface built on the report, walked with every convention.
_SURFACE_METRICS = [m for m in METRICS if m != "bpref"]


def _split_by_query(y, s, q, w):
    """Two chunks that split the queries (as a stream would give them)."""
    first = q < np.median(q)
    return [(y[m], s[m], q[m], None if w is None else w[m]) for m in (first, ~first)]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
@pytest.mark.parametrize("convention", [None, *CONVENTIONS])
def test_state_compare_and_display_are_the_function(convention):
    y, s, q, w = _long_case(7, weights=True)
    ks = (2, 4)
    # the mergeable state, updated chunk by chunk
    # (ERR needs the top grade of the scale to be evaluated by chunks)
    evaluator = srm.RankingEvaluator(
        k=ks, metrics=_SURFACE_METRICS, convention=convention, max_grade=2
    )
    for part in _split_by_query(y, s, q, w):
        evaluator.update(part[0], part[1], query_id=part[2], sample_weight=part[3])
    got = evaluator.result(output_dict=True)
    for name in _SURFACE_METRICS:
        spec = METRICS[name]
        for k in ks if spec.cutoff else (None,):
            opts = {"max_grade": 2}
            want = _function_value(spec, y, s, q, w, k, opts, convention)
            np.testing.assert_allclose(got[spec.label(k)], want, rtol=1e-14)
    # compare_rankings: each model's mean is the function's
    ranked = [m for m in _SURFACE_METRICS if METRICS[m].scorer]
    result = srm.compare_rankings(
        y,
        {"a": s, "b": -s},
        k=3,
        metrics=ranked,
        query_id=q,
        convention=convention,
        n_resamples=99,
        n_bootstrap=99,
        random_state=0,
    )
    for i, model in enumerate(("a", "b")):
        score = s if model == "a" else -s
        for j, name in enumerate(ranked):
            spec = METRICS[name]
            want = _function_value(spec, y, score, q, None, 3, {}, convention)
            if name == "gauc":  # weighted as the report weighs it
                want = spec.function(y, score, query_id=q, convention=convention)
            _equal(result.mean[i, j], want)
    # MetricAtKDisplay, with query weights
    for name in ("ndcg", "map", "precision"):
        display = srm.MetricAtKDisplay.from_predictions(
            y,
            s,
            metric=name,
            k=ks,
            query_id=q,
            sample_weight=w,
            convention=convention,
            plot=False,
        )
        want = [
            _function_value(METRICS[name], y, s, q, w, k, {}, convention) for k in ks
        ]
        np.testing.assert_array_equal(display.values, want)


@pytest.mark.parametrize("metrics", [["ndcg", "rbp"], ["rbp", "ndcg"]])
def test_report_with_a_gain_array_beside_graded_rbp(metrics):
    # NDCG reads the gain table, graded RBP the linear grades: two rankings,
    # compared without evaluating an array as a truth value (either order).
    Y, S = _case(2)
    gain = np.array([0.0, 1.0, 3.0])
    got = srm.ranking_report(
        Y, S, k=2, metrics=metrics, gain=gain, rbp_gain="raw", output_dict=True
    )
    _equal(got["ndcg@2"], srm.ndcg_at_k(Y, S, k=2, gain=gain))
    _equal(got["rbp@2"], srm.rank_biased_precision_at_k(Y, S, k=2, rbp_gain="raw"))


# ---------------------------------------------------------------------------
# One name rule on every surface (parse_metric), one default metric set
# ---------------------------------------------------------------------------
# (name, what every surface must do): a (registry name, k) pair for a name
# it accepts, else a fragment of the error.
NAME_TABLE = [
    ("ndcg@10", ("ndcg", 10)),
    ("ndcg", ("ndcg", None)),
    ("map@1", ("map", 1)),
    ("hit_rate@100", ("hit_rate", 100)),
    ("err@10", ("err", 10)),
    ("r_precision", ("r_precision", None)),
    ("gauc", ("gauc", None)),
    # spellings of ours: exact names only, the canonical one suggested
    ("NDCG@10", "did you mean 'ndcg@10'"),
    ("Map@5", "did you mean 'map@5'"),
    (" ndcg@10", "did you mean 'ndcg@10'"),
    ("ndcg@10 ", "did you mean 'ndcg@10'"),
    ("ndcg @ 10", "did you mean 'ndcg@10'"),
    ("ndcg@010", "did you mean 'ndcg@10'"),
    ("ndgc@10", "did you mean 'ndcg@10'"),
    ("GAUC", "did you mean 'gauc'"),
    # cut-offs
    ("ndcg@0", "int >= 1 written plainly"),
    ("ndcg@", "int >= 1 written plainly"),
    ("ndcg@k", "int >= 1 written plainly"),
    ("ndcg@+5", "int >= 1 written plainly"),
    ("ndcg@1.0", "int >= 1 written plainly"),
    ("gauc@10", "takes no cut-off; use 'gauc'"),
    ("bpref@5", "takes no cut-off; use 'bpref'"),
    # unknown: every name listed, the beyond-accuracy ones too
    ("no_such_metric", "'gauc' and the beyond-accuracy metrics 'catalog_coverage'"),
    ("", "'gauc' and the beyond-accuracy metrics 'catalog_coverage'"),
]
GOOD = [(n, want) for n, want in NAME_TABLE if isinstance(want, tuple)]
BAD = [(n, want) for n, want in NAME_TABLE if isinstance(want, str)]


@pytest.mark.parametrize("name, want", NAME_TABLE)
def test_parse_metric_name_table(name, want):
    if isinstance(want, tuple):
        spec, k = parse_metric(name)
        assert (spec.name, k) == want
    else:
        with pytest.raises(ValueError, match=re.escape(want)):
            parse_metric(name)


def test_parse_metric_knows_every_registry_name():
    for name, spec in {**METRICS, **BEYOND_METRICS}.items():
        assert parse_metric(name) == (spec, None)
        if spec.cutoff:
            assert parse_metric(f"{name}@7") == (spec, 7)
        else:
            with pytest.raises(ValueError, match="takes no cut-off"):
                parse_metric(f"{name}@7")
    with pytest.raises(TypeError, match="must be a str"):
        parse_metric(10)


@pytest.mark.parametrize("name, want", NAME_TABLE)
def test_scorers_follow_the_name_table(name, want):
    if isinstance(want, tuple):
        scorer = srm.get_scorer(name)
        assert scorer._metric is METRICS[want[0]].function
        assert scorer._options.get("k") == want[1]
        assert list(srm.make_scoring([name, "roc_auc"])) == [name, "roc_auc"]
    else:
        with pytest.raises(ValueError, match=re.escape(want)):
            srm.get_scorer(name)
        with pytest.raises(ValueError, match=re.escape(want)):
            srm.make_scoring(["roc_auc", name])


@pytest.fixture(scope="module")
def impressions(tmp_path_factory):
    """A CSV table of impressions with graded labels, and its columns."""
    Y, S = _case(3, n_q=6, n_items=5)
    q = np.repeat([f"u{i}" for i in range(Y.shape[0])], Y.shape[1])
    path = tmp_path_factory.mktemp("names") / "t.csv"
    lines = ["user,label,score"]
    rows = zip(q, Y.ravel(), S.ravel(), strict=True)
    lines += [f"{a},{b:g},{float(c)!r}" for a, b, c in rows]
    path.write_text("\n".join(lines) + "\n")
    return str(path), Y.ravel(), S.ravel(), q


_TREC_NAMES = ("ndcg", "map")  # registry names that are trec_eval's too


def _cli(capsys, path, *measures):
    from sklearn_rankmetrics._cli import main

    argv = ["evaluate", "--long", path, "--query-col", "user", "--label-col"]
    argv += ["label", "--score-col", "score", "--format", "json"]
    for m in measures:
        argv += ["-m", m]
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name, want", NAME_TABLE)
def test_command_line_follows_the_name_table(name, want, impressions, capsys):
    import json

    path, y, s, q = impressions
    code, out, err = _cli(capsys, path, name)
    if isinstance(want, str):
        assert code == 2 and want in err, err
        return
    assert code == 0, err
    (values,) = [r["all"] for r in json.loads(out).values()]
    if name in _TREC_NAMES:  # trec_eval's measure of that name comes first
        assert name in values
        return
    metric, k = want
    kw = {} if k is None else {"k": k}
    expected = METRICS[metric].function(y, s, query_id=q, **kw)
    assert values == {name: pytest.approx(expected, rel=1e-12)}


@pytest.mark.parametrize("name, want", NAME_TABLE)
def test_reports_and_displays_follow_the_name_table(name, want):
    # They take names without '@k' (the cut-offs come from k); the rest of
    # the rule, and the messages, are the same.
    Y, S = _case(4)
    surfaces = [
        lambda m: srm.ranking_report(Y, S, k=2, metrics=[m], output_dict=True),
        lambda m: srm.compare_rankings(Y, {"a": S, "b": -S}, k=2, metrics=[m]),
        lambda m: srm.RankingEvaluator(k=2, metrics=[m]),
        lambda m: srm.PerQueryDifferenceDisplay.from_predictions(
            Y, S, -S, metric=m, k=2, plot=False
        ),
    ]
    for surface in surfaces:
        if isinstance(want, tuple) and want[1] is None:
            surface(name)  # accepted
        elif isinstance(want, tuple):
            with pytest.raises(ValueError, match="without '@k'"):
                surface(name)
        else:
            with pytest.raises(ValueError, match=re.escape(want)):
                surface(name)


def _registry_defaults(long_form):
    """The default set, read from the flags (not from default_metrics)."""
    names = [n for n, spec in METRICS.items() if spec.default is True]
    if long_form:
        names += [n for n, spec in METRICS.items() if spec.default == "long_form"]
    return names


def test_one_default_metric_set_on_every_surface(impressions, capsys):
    import json

    from sklearn_rankmetrics._registry import default_metrics

    two_d, long = _registry_defaults(False), _registry_defaults(True)
    assert "gauc" in long and "gauc" not in two_d
    assert default_metrics(False) == two_d and default_metrics(True) == long
    Y, S = _case(5)
    q = np.repeat(np.arange(Y.shape[0]), Y.shape[1])
    y, s = Y.ravel(), S.ravel()

    def labels(names, k):
        return [METRICS[n].label(k) for n in names]

    # ranking_report, both forms
    assert list(srm.ranking_report(Y, S, k=3, output_dict=True)) == labels(two_d, 3)
    report = srm.ranking_report(y, s, query_id=q, k=3, output_dict=True)
    assert list(report) == labels(long, 3)
    # the mergeable state (long form)
    evaluator = srm.RankingEvaluator(k=3)
    evaluator.update(y, s, query_id=q)
    assert list(evaluator.result(output_dict=True)) == labels(long, 3)
    # compare_rankings, both forms
    assert srm.compare_rankings(Y, {"a": S, "b": -S}, k=3).metrics == labels(two_d, 3)
    comparison = srm.compare_rankings(y, {"a": s, "b": -s}, query_id=q, k=3)
    assert comparison.metrics == labels(long, 3)
    # factor_ranking_report (a user-item matrix: the 2-D set)
    U, V = np.where(np.isfinite(S), S, -5.0), np.eye(S.shape[1])
    factor = srm.factor_ranking_report(Y, U, V, k=3, output_dict=True)
    assert list(factor) == labels(two_d, 3)
    # the command line's --long, at k=10
    path = impressions[0]
    code, out, err = _cli(capsys, path)
    assert code == 0, err
    (values,) = [r["all"] for r in json.loads(out).values()]
    assert list(values) == labels(long, 10)


def test_dask_default_metric_set():
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    from sklearn_rankmetrics.dask import ranking_report as dask_report

    Y, S = _case(6)
    q = np.repeat(np.arange(Y.shape[0]), Y.shape[1])
    frame = pd.DataFrame({"q": q, "y": Y.ravel(), "s": S.ravel()})
    got = dask_report(
        dd.from_pandas(frame, npartitions=2),
        query_col="q",
        label_col="y",
        score_col="s",
        k=3,
        output_dict=True,
    )
    assert list(got) == [METRICS[n].label(3) for n in _registry_defaults(True)]


def test_reads_says_what_each_metric_reads_of_a_query():
    # derived from the kernel, not written by hand
    reads = {name: spec.reads for name, spec in METRICS.items()}
    assert reads["ndcg"] == reads["map"] == reads["err"] == "top_k"
    assert reads["r_precision"] == reads["bpref"] == "whole_list"
    assert reads["fallout"] == "all_items"  # non-relevant candidates: every item
    assert reads["gauc"] == "pairs"  # no kernel: every pair of items
    assert set(reads.values()) == {"top_k", "whole_list", "all_items", "pairs"}
    from sklearn_rankmetrics._metrics._kernels import Kernel

    def toy(rk, n_items):
        return rk.hits / rk.of_queries(n_items)

    spec = MetricSpec("toy", srm.precision_at_k, Kernel(toy, "n_rel"))
    assert spec.reads == "top_k"
    spec = MetricSpec(
        "toy", srm.precision_at_k, Kernel(toy, "n_rel", requires=("n_items",))
    )
    assert spec.reads == "all_items"
