"""Propensity (IPS) on every surface: the registry walked.

For every metric whose function takes ``propensity=`` (read from its
signature, ``MetricSpec.propensity``), each surface -- ``ranking_report``
on the 2-D, sparse and long forms (rows shuffled, query weights),
``RankingEvaluator`` in chunks and merged, the Dask and Spark reports,
``compare_rankings``, the scorers and ``MetricAtKDisplay`` -- gives the
metric function's value with the same propensities, over queries and
pooled (``average="micro"``), and the report's propensity diagnostics are
``propensity_diagnostics``'s on every surface.  A metric added with an
estimator joins these tests without an edit here.
"""

import inspect

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy import sparse

from sklearn_rankmetrics import (
    MetricAtKDisplay,
    RankingEvaluator,
    compare_rankings,
    dcg_at_k,
    get_scorer,
    ndcg_at_k,
    precision_at_k,
    propensity_diagnostics,
    ranking_report,
)
from sklearn_rankmetrics._evaluation._per_query import (
    DIAGNOSTICS_KEY,
    default_metrics,
    scorer_name,
)
from sklearn_rankmetrics._metrics._ips import ESTIMATORS
from sklearn_rankmetrics._registry import METRICS
from sklearn_rankmetrics._utils._averaging import weighted_mean

IPS = [name for name, spec in METRICS.items() if spec.propensity]
NO_IPS = [name for name, spec in METRICS.items() if not spec.propensity]
K = (1, 3, 5)
RTOL = 1e-12  # chunked states add their sums in another order


def _data(seed, n_queries=40, n_items=7):
    """Adversarial 2-D input: graded labels, queries without a relevant
    item, tied scores, -inf (not retrieved), propensities spread over
    (0.02, 1] and query weights."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, (n_queries, n_items)) * (rng.random((n_queries, 1)) > 0.15)
    s = rng.integers(0, 4, (n_queries, n_items)).astype(float)
    s[rng.random(s.shape) < 0.1] = -np.inf
    p = rng.uniform(0.02, 1.0, (n_queries, n_items))
    p[rng.random(p.shape) < 0.2] = 1.0
    w = rng.uniform(0.1, 3.0, n_queries)
    return y, s, p, w


def _long(y, s, p, w, seed):
    """The long form of 2-D input with the rows shuffled and query ids that
    are neither sorted nor contiguous: (y, s, p, query_id, row weights)."""
    rng = np.random.default_rng(seed)
    n_queries, n_items = y.shape
    ids = 1000 - 7 * np.arange(n_queries)  # decreasing, not contiguous
    q = np.repeat(ids, n_items)
    order = rng.permutation(q.size)
    rows = (y.ravel(), s.ravel(), p.ravel(), q, np.repeat(w, n_items))
    return tuple(a[order] for a in rows)


def _function(name, y, s, k, **kwargs):
    spec = METRICS[name]
    if spec.cutoff:
        kwargs["k"] = k
    return spec.function(y, s, **kwargs)


def _names(name):
    return [scorer_name(name, k) for k in (K if METRICS[name].cutoff else (None,))]


def _query_weights(kwargs):
    """One weight per query, in the order of the per-query values."""
    w = kwargs.get("sample_weight")
    if w is None or kwargs.get("query_id") is None:
        return w
    _, first = np.unique(kwargs["query_id"], return_index=True)
    return np.asarray(w)[first]


def _metric_means(report):
    """The metric means of an ``output_dict`` report (without its
    diagnostics)."""
    return {n: v for n, v in report.items() if n != DIAGNOSTICS_KEY}


def _assert_same_diagnostics(got, want, rtol=1e-12):
    """Equal propensity diagnostics (the sums of the weights to rounding)."""
    assert list(got) == list(want)
    assert got["above_one"] == want["above_one"]
    for key in got:
        if key != "above_one":
            assert got[key] == pytest.approx(want[key], rel=rtol, nan_ok=True), key


def _check_report(name, y, s, p, **kwargs):
    """Per-query values and means of the report equal the function's, bit
    for bit, and the mean is the weighted mean of the per-query values."""
    means = ranking_report(
        y, s, k=K, metrics=[name], propensity=p, output_dict=True, **kwargs
    )
    assert DIAGNOSTICS_KEY in means
    means = _metric_means(means)
    table = ranking_report(
        y,
        s,
        k=K,
        metrics=[name],
        propensity=p,
        per_query=True,
        output_dict=True,
        **kwargs,
    )
    assert list(means) == _names(name)
    for label, k in zip(_names(name), K, strict=False):
        per_query = _function(name, y, s, k, propensity=p, average=None, **kwargs)
        assert_array_equal(table[label], per_query)
        function = _function(name, y, s, k, propensity=p, **kwargs)
        if METRICS[name].kernel is not None:  # GAUC: query weights of its own
            assert means[label] == weighted_mean(per_query, _query_weights(kwargs))
        assert means[label] == function
    return table


@pytest.mark.parametrize(
    "name",
    [
        n
        for n in IPS
        if METRICS[n].kernel is not None  # GAUC: weights of its own
    ],
)
def test_function_mean_is_its_per_query_mean(name):
    """The contract every surface relies on: the function's value is the
    weighted mean (query weights) of its own per-query values, bit for
    bit."""
    mismatches = 0
    for seed in range(5):
        y, s, p, w = _data(seed)
        for k in K:
            per_query = _function(name, y, s, k, propensity=p, average=None)
            mean = _function(name, y, s, k, propensity=p)
            mismatches += mean != weighted_mean(per_query)
            per_query = _function(
                name, y, s, k, propensity=p, sample_weight=w, average=None
            )
            mean = _function(name, y, s, k, propensity=p, sample_weight=w)
            mismatches += mean != weighted_mean(per_query, w)
    assert mismatches == 0


def test_the_registry_reads_the_signatures():
    for spec in METRICS.values():
        params = inspect.signature(spec.function).parameters
        assert spec.propensity == ("propensity" in params)
        assert spec.item_weight == ("item_weight" in params)
    # the functions with an estimator when this surface was built: the
    # walk below is never empty
    assert {"precision", "recall", "dcg"} <= set(IPS)
    # the estimators' facts cover exactly the functions with an estimator
    functions = {METRICS[name].function.__name__ for name in IPS}
    assert functions == set(ESTIMATORS)


@pytest.mark.parametrize("name", IPS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_report_2d_is_the_function(name, seed):
    y, s, p, w = _data(seed)
    _check_report(name, y, s, p)
    _check_report(name, y, s, p, sample_weight=w)
    _check_report(name, y, s, p, sample_weight=w, min_propensity=0.25)


@pytest.mark.parametrize("name", IPS)
def test_report_sparse_is_the_function(name):
    y, s, p, _ = _data(3)
    _check_report(name, sparse.csr_matrix(y), s, p)
    # one propensity per item, broadcast over the queries by the function
    _check_report(name, y, s, p[0])


@pytest.mark.parametrize("name", IPS)
@pytest.mark.parametrize("seed", [0, 1])
def test_report_long_form_rows_shuffled_is_the_function(name, seed):
    y, s, p, w = _data(seed)
    yl, sl, pl, ql, wl = _long(y, s, p, w, seed)
    table = _check_report(name, yl, sl, pl, query_id=ql, sample_weight=wl)
    assert_array_equal(table["query_id"], np.unique(ql))
    # a shuffle of the rows with their propensities changes nothing but the
    # order of the long form: the per-query values are those of the 2-D rows
    two_d = ranking_report(
        y, s, k=K, metrics=[name], propensity=p, per_query=True, output_dict=True
    )
    ids = (1000 - np.unique(ql)) // 7  # back to the 2-D row numbers
    for label in _names(name):
        # GAUC's negative weights 1 - 1/p cancel: rows in another order sum
        # to another rounding, a few thousand units in the last place
        rtol = 1e-9 if name == "gauc" else 1e-13
        assert_allclose(table[label], two_d[label][ids], rtol=rtol)


def test_report_propensity_follows_the_rows():
    """Moving the propensities with the rows changes nothing; moving the
    rows alone changes the estimate (the propensities are not re-read in
    another order)."""
    y, s, p, w = _data(4)
    yl, sl, pl, ql, _ = _long(y, s, p, w, 4)
    want = ranking_report(yl, sl, k=K, query_id=ql, propensity=pl, output_dict=True)
    rng = np.random.default_rng(0)
    order = rng.permutation(yl.size)
    got = ranking_report(
        yl[order],
        sl[order],
        k=K,
        query_id=ql[order],
        propensity=pl[order],
        output_dict=True,
    )
    # (GAUC's cancelling weights: rtol 1e-9, see above)
    _assert_same_diagnostics(got.pop(DIAGNOSTICS_KEY), want.pop(DIAGNOSTICS_KEY))
    assert_allclose(list(got.values()), list(want.values()), rtol=1e-9)
    wrong = ranking_report(
        yl[order], sl[order], k=K, query_id=ql[order], propensity=pl, output_dict=True
    )
    wrong.pop(DIAGNOSTICS_KEY)
    assert not np.allclose(list(wrong.values()), list(want.values()))


@pytest.mark.parametrize("long_form", [False, True])
def test_default_metrics_with_propensity_are_those_with_an_estimator(long_form):
    y, s, p, w = _data(5)
    kwargs = {}
    if long_form:
        y, s, p, q, _ = _long(y, s, p, w, 5)
        kwargs["query_id"] = q
    got = ranking_report(y, s, k=K, propensity=p, output_dict=True, **kwargs)
    got = _metric_means(got)
    want = [m for m in default_metrics(long_form) if METRICS[m].propensity]
    assert want
    assert list(got) == [label for m in want for label in _names(m)]
    for m in want:
        for label, k in zip(_names(m), K, strict=False):
            function = _function(m, y, s, k, propensity=p, **kwargs)
            assert got[label] == function


@pytest.mark.parametrize("name", NO_IPS)
def test_a_metric_without_estimator_is_an_error_naming_it(name):
    y, s, p, _ = _data(6)
    with pytest.raises(ValueError, match=f"'{name}' has no estimator") as err:
        ranking_report(y, s, k=K, metrics=[IPS[0], name], propensity=p)
    for having in IPS:  # the ones that have one are listed
        assert repr(having) in str(err.value)
    with pytest.raises(ValueError, match=f"'{name}' has no estimator"):
        # (max_grade: ERR's scale, which one chunk does not know)
        RankingEvaluator(k=K, metrics=[name], max_grade=2).update(
            y.ravel()[:7],
            s.ravel()[:7],
            query_id=np.zeros(7),
            propensity=p.ravel()[:7],
        )


def test_ips_options_without_propensity_are_refused():
    y, s, _, _ = _data(7)
    with pytest.raises(ValueError, match="min_propensity only applies"):
        ranking_report(y, s, k=K, min_propensity=0.1)
    ev = RankingEvaluator(k=K, metrics=IPS, min_propensity=0.1)
    with pytest.raises(ValueError, match="pass propensity="):
        ev.update(y.ravel(), s.ravel(), query_id=np.repeat(np.arange(40), 7))


@pytest.mark.parametrize(
    "bad",
    [
        lambda p: np.where(p < 0.3, 0.0, p),
        lambda p: -p,
        lambda p: np.where(p < 0.3, np.nan, p),
        lambda p: p + 1.0,
        lambda p: p[:, :-1],
        lambda p: p[:-1],
    ],
    ids=["zero", "negative", "nan", "above_one", "short_rows", "short_queries"],
)
@pytest.mark.parametrize("name", IPS)
def test_bad_propensity_through_the_report_is_the_functions_error(name, bad):
    y, s, p, _ = _data(8)
    p = bad(p)
    with pytest.raises(ValueError) as want:
        _function(name, y, s, 3, propensity=p)
    with pytest.raises(ValueError) as got:
        ranking_report(y, s, k=3, metrics=[name], propensity=p)
    assert str(got.value) == str(want.value)


def _chunks(n_rows, n_chunks, seed):
    cuts = np.sort(np.random.default_rng(seed).choice(n_rows, n_chunks - 1))
    return np.split(np.arange(n_rows), cuts)


@pytest.mark.parametrize("seed", [0, 1])
def test_evaluator_in_chunks_and_merged_is_the_function(seed):
    y, s, p, w = _data(seed)
    yl, sl, pl, ql, wl = _long(y, s, p, w, seed)
    order = np.argsort(ql, kind="stable")  # grouped by query, then cut anywhere
    yl, sl, pl, ql, wl = (a[order] for a in (yl, sl, pl, ql, wl))
    want = ranking_report(
        yl,
        sl,
        k=K,
        metrics=IPS,
        query_id=ql,
        sample_weight=wl,
        propensity=pl,
        per_query=True,
        output_dict=True,
    )
    # two evaluators of disjoint queries, each fed in chunks cut anywhere
    cut = np.searchsorted(ql, ql[ql.size // 2])
    evaluators = []
    for part in (np.arange(cut), np.arange(cut, yl.size)):
        evaluators.append(RankingEvaluator(k=K, metrics=IPS, per_query=True))
        for rows in _chunks(part.size, 4, seed):
            rows = part[rows]
            evaluators[-1].update(
                yl[rows],
                sl[rows],
                query_id=ql[rows],
                sample_weight=wl[rows],
                propensity=pl[rows],
            )
    merged = evaluators[0].merge(evaluators[1])
    got = merged.result(output_dict=True)
    assert_array_equal(got["query_id"], want["query_id"])
    for name in IPS:
        for label, k in zip(_names(name), K, strict=False):
            # the engine's sums run over a chunk's rows: equal to rounding
            assert_allclose(got[label], want[label], rtol=RTOL)
            function = _function(
                name, yl, sl, k, query_id=ql, sample_weight=wl, propensity=pl
            )
            means = RankingEvaluator(k=K, metrics=IPS)
            for rows in _chunks(yl.size, 5, seed + 1):
                means.update(
                    yl[rows],
                    sl[rows],
                    query_id=ql[rows],
                    sample_weight=wl[rows],
                    propensity=pl[rows],
                )
            assert means.result(output_dict=True)[label] == pytest.approx(
                function, rel=RTOL
            )


def test_evaluator_refuses_propensity_in_some_chunks_only():
    y, s, p, w = _data(9)
    yl, sl, pl, ql, _ = _long(y, s, p, w, 9)
    order = np.argsort(ql, kind="stable")
    yl, sl, pl, ql = (a[order] for a in (yl, sl, pl, ql))
    ev = RankingEvaluator(k=K, metrics=IPS)
    ev.update(yl[:100], sl[:100], query_id=ql[:100], propensity=pl[:100])
    with pytest.raises(ValueError, match="lacks propensity"):
        ev.update(yl[100:], sl[100:], query_id=ql[100:])
    # evaluators with and without propensity do not merge
    rest = ql[100:] != ql[99]
    other = RankingEvaluator(k=K, metrics=IPS)
    other.update(yl[100:][rest], sl[100:][rest], query_id=ql[100:][rest])
    with pytest.raises(ValueError, match="propensity"):
        ev.merge(other)
    with pytest.raises(ValueError, match="propensity"):
        other.merge(ev)


def _frame(seed):
    pd = pytest.importorskip("pandas")
    y, s, p, w = _data(seed)
    yl, sl, pl, ql, wl = _long(y, s, p, w, seed)
    frame = pd.DataFrame({"qid": ql, "rel": yl, "score": sl, "prop": pl, "w": wl})
    return frame, (yl, sl, pl, ql, wl)


_COLS = dict(
    query_col="qid",
    label_col="rel",
    score_col="score",
    weight_col="w",
    propensity_col="prop",
)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
def test_dask_report_is_the_function():
    dd = pytest.importorskip("dask.dataframe")
    from sklearn_rankmetrics.dask import ranking_report as dask_report

    frame, (yl, sl, pl, ql, wl) = _frame(10)
    df = dd.from_pandas(frame, npartitions=3)
    got = dask_report(df, **_COLS, k=K, metrics=IPS, output_dict=True)
    table = dask_report(df, **_COLS, k=K, metrics=IPS, per_query=True).compute()
    table = table.sort_values("qid")
    want = ranking_report(
        yl,
        sl,
        k=K,
        metrics=IPS,
        query_id=ql,
        sample_weight=wl,
        propensity=pl,
        per_query=True,
        output_dict=True,
    )
    assert_array_equal(table["qid"].to_numpy(), want["query_id"])
    for name in IPS:
        for label, k in zip(_names(name), K, strict=False):
            assert_allclose(table[label].to_numpy(), want[label], rtol=RTOL)
            function = _function(
                name, yl, sl, k, query_id=ql, sample_weight=wl, propensity=pl
            )
            assert got[label] == pytest.approx(function, rel=RTOL)
    # the default metrics with propensity: those with an estimator
    default = dask_report(df, **_COLS, k=K, output_dict=True)
    assert list(default) == list(
        ranking_report(
            yl, sl, k=K, query_id=ql, propensity=pl, sample_weight=wl, output_dict=True
        )
    )
    with pytest.raises(ValueError, match=f"'{NO_IPS[0]}' has no estimator"):
        dask_report(df, **_COLS, k=K, metrics=[NO_IPS[0]])
    with pytest.raises(ValueError, match="min_propensity"):
        cols = {**_COLS, "propensity_col": None}
        dask_report(df, **cols, k=K, metrics=IPS, min_propensity=0.1)
    frame.loc[frame.index[3], "prop"] = np.nan
    with pytest.raises(ValueError, match="'prop' has 1 null"):
        dask_report(dd.from_pandas(frame, npartitions=2), **_COLS, metrics=IPS)
    with pytest.raises(ValueError, match="propensity_col='nope'"):
        dask_report(df, **{**_COLS, "propensity_col": "nope"})


@pytest.fixture(scope="module")
def spark_session():
    import os
    import sys
    import warnings
    from pathlib import Path

    import sklearn_rankmetrics as srm

    pyspark_sql = pytest.importorskip("pyspark.sql")
    pytest.importorskip("pyarrow")
    pytest.importorskip("pandas")
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
            pyspark_sql.SparkSession.builder.master("local[1]")
            .appName("sklearn_rankmetrics-ips")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "3")
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
def test_spark_report_is_the_function(spark_session):
    from sklearn_rankmetrics.spark import ranking_report as spark_report

    frame, (yl, sl, pl, ql, wl) = _frame(11)
    df = spark_session.createDataFrame(frame)
    got = spark_report(df, **_COLS, k=K, metrics=IPS, output_dict=True)
    for name in IPS:
        for label, k in zip(_names(name), K, strict=False):
            function = _function(
                name, yl, sl, k, query_id=ql, sample_weight=wl, propensity=pl
            )
            assert got[label] == pytest.approx(function, rel=RTOL)
    with pytest.raises(ValueError, match=f"'{NO_IPS[0]}' has no estimator"):
        spark_report(df, **_COLS, k=K, metrics=[NO_IPS[0]])


def test_compare_rankings_and_display_take_propensity():
    y, s, p, _ = _data(12)
    other = s + np.random.default_rng(0).random(s.shape)
    result = compare_rankings(
        y,
        {"a": s, "b": other},
        k=3,
        metrics=IPS,
        propensity=p,
        baseline="a",
        n_resamples=99,
        n_bootstrap=99,
        random_state=0,
    )
    for j, label in enumerate(result.metrics):
        name = label.partition("@")[0]
        for i, scores in enumerate((s, other)):
            per_query = _function(name, y, scores, 3, propensity=p, average=None)
            assert_array_equal(result.per_query_values["ab"[i]][:, j], per_query)
    with pytest.raises(ValueError, match=f"'{NO_IPS[0]}' has no estimator"):
        compare_rankings(
            y, {"a": s, "b": other}, k=3, metrics=[*IPS, NO_IPS[0]], propensity=p
        )
    for name in IPS:
        if not METRICS[name].cutoff:
            continue
        display = MetricAtKDisplay.from_predictions(
            y, s, metric=name, k=K, metric_options={"propensity": p}, plot=False
        )
        want = [_function(name, y, s, k, propensity=p) for k in K]
        assert_array_equal(display.values, want)


ITEM_WEIGHT = [name for name, spec in METRICS.items() if spec.item_weight]
SELF_NORMALIZED = [
    name
    for name in IPS
    if "self_normalized" in inspect.signature(METRICS[name].function).parameters
]


def _same_outcome(name, args, k, **kwargs):
    """The report's value of ``name`` at ``k`` is the function's, or both
    raise the same ValueError."""
    try:
        want = _function(name, *args, k, **kwargs)
    except ValueError as exc:
        with pytest.raises(ValueError) as got:
            ranking_report(*args, k=K, metrics=[name], **kwargs)
        assert str(got.value) == str(exc)
        return
    got = ranking_report(*args, k=K, metrics=[name], output_dict=True, **kwargs)
    assert got[scorer_name(name, k)] == want


@pytest.mark.parametrize("self_normalized", [True, False])
@pytest.mark.parametrize("name", SELF_NORMALIZED)
def test_report_self_normalized_is_the_function(name, self_normalized):
    """The report's ``self_normalized`` picks one of the two estimators of
    the metrics that have both; the others keep their one estimator."""
    y, s, p, w = _data(13)
    form = ESTIMATORS[METRICS[name].function.__name__].form
    option = {"self_normalized": self_normalized} if form == "choice" else {}
    for k in K if METRICS[name].cutoff else (None,):
        want = _function(name, y, s, k, propensity=p, sample_weight=w, **option)
        got = ranking_report(
            y,
            s,
            k=K,
            metrics=[name],
            propensity=p,
            sample_weight=w,
            self_normalized=self_normalized,
            output_dict=True,
        )
        assert got[scorer_name(name, k)] == want


@pytest.mark.parametrize("long_form", [False, True])
def test_report_self_normalized_with_the_default_metrics(long_form):
    """Issue 27: ``ranking_report(propensity=p, self_normalized=True)``
    with the default metrics applied the option to precision_at_k, which
    has no self-normalised form, and raised."""
    y, s, p, w = _data(21)
    kwargs = {}
    if long_form:
        y, s, p, q, _ = _long(y, s, p, w, 21)
        kwargs["query_id"] = q
    got = ranking_report(
        y, s, k=3, propensity=p, self_normalized=True, output_dict=True, **kwargs
    )
    assert got["dcg@3"] == dcg_at_k(
        y, s, k=3, propensity=p, self_normalized=True, **kwargs
    )
    assert got["dcg@3"] != dcg_at_k(y, s, k=3, propensity=p, **kwargs)
    assert got["precision@3"] == precision_at_k(y, s, k=3, propensity=p, **kwargs)
    assert got["ndcg@3"] == ndcg_at_k(y, s, k=3, propensity=p, **kwargs)
    text = ranking_report(y, s, k=3, propensity=p, self_normalized=True, **kwargs)
    assert "dcg" in text


@pytest.mark.parametrize(
    "name, with_propensity",
    [(n, False) for n in ITEM_WEIGHT]
    + [(n, True) for n in ITEM_WEIGHT if METRICS[n].propensity],
)
def test_report_item_weight_is_the_function(name, with_propensity):
    y, s, p, w = _data(14)
    iw = np.random.default_rng(14).uniform(0.0, 2.0, y.shape)
    yl, sl, pl, ql, wl = _long(y, s, p, w, 14)
    iwl = _long(y, s, iw, w, 14)[2]  # the same shuffle
    for args, kwargs in (
        ((y, s), dict(item_weight=iw, sample_weight=w)),
        ((yl, sl), dict(item_weight=iwl, query_id=ql, sample_weight=wl)),
    ):
        if with_propensity:
            kwargs["propensity"] = p if args[0] is y else pl
        for k in K if METRICS[name].cutoff else (None,):
            _same_outcome(name, args, k, **kwargs)


def test_item_weight_for_a_metric_without_it_is_an_error():
    y, s, _, _ = _data(15)
    name = next(n for n, spec in METRICS.items() if not spec.item_weight)
    with pytest.raises(ValueError, match=f"'{name}' has no argument item_weight="):
        ranking_report(y, s, k=K, metrics=[name], item_weight=np.ones(y.shape))


@pytest.mark.parametrize("with_propensity", [False, True])
def test_evaluator_item_weight_in_chunks_is_the_function(with_propensity):
    y, s, p, w = _data(17)
    iw = np.random.default_rng(17).uniform(0.0, 2.0, y.shape)
    yl, sl, pl, ql, wl = _long(y, s, p, w, 17)
    iwl = _long(y, s, iw, w, 17)[2]  # the same shuffle
    order = np.argsort(ql, kind="stable")  # grouped by query, cut anywhere
    yl, sl, pl, ql, wl, iwl = (a[order] for a in (yl, sl, pl, ql, wl, iwl))
    names = [n for n in ITEM_WEIGHT if not with_propensity or METRICS[n].propensity]
    extra = dict(propensity=pl) if with_propensity else {}
    evaluator = RankingEvaluator(k=K, metrics=names, per_query=True)
    for rows in _chunks(yl.size, 4, 17):
        evaluator.update(
            yl[rows],
            sl[rows],
            query_id=ql[rows],
            sample_weight=wl[rows],
            item_weight=iwl[rows],
            **{a: v[rows] for a, v in extra.items()},
        )
    got = evaluator.result(output_dict=True)
    for name in names:
        for label, k in zip(_names(name), K, strict=False):
            kwargs = dict(query_id=ql, sample_weight=wl, item_weight=iwl, **extra)
            per_query = _function(name, yl, sl, k, average=None, **kwargs)
            assert_allclose(got[label], per_query, rtol=RTOL)


def test_evaluator_item_weight_errors():
    y, s, p, w = _data(18)
    yl, sl, pl, ql, _ = _long(y, s, p, w, 18)
    order = np.argsort(ql, kind="stable")
    yl, sl, ql = (a[order] for a in (yl, sl, ql))
    iw = np.ones(yl.size)
    name = next(n for n, spec in METRICS.items() if not spec.item_weight)
    with pytest.raises(ValueError, match=f"'{name}' has no argument item_weight="):
        RankingEvaluator(k=K, metrics=[name]).update(
            yl, sl, query_id=ql, item_weight=iw
        )
    evaluator = RankingEvaluator(k=K, metrics=ITEM_WEIGHT)
    evaluator.update(yl[:100], sl[:100], query_id=ql[:100], item_weight=iw[:100])
    with pytest.raises(ValueError, match="lacks item_weight"):
        evaluator.update(yl[100:], sl[100:], query_id=ql[100:])
    with pytest.raises(ValueError, match="item_weight has shape"):
        RankingEvaluator(k=K, metrics=ITEM_WEIGHT).update(
            yl, sl, query_id=ql, item_weight=iw[:-1]
        )


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
@pytest.mark.parametrize("name", ITEM_WEIGHT)
def test_dask_item_weight_col_is_the_function(name):
    dd = pytest.importorskip("dask.dataframe")
    from sklearn_rankmetrics.dask import ranking_report as dask_report

    frame, (yl, sl, pl, ql, wl) = _frame(16)
    iw = np.random.default_rng(16).uniform(0.0, 2.0, len(frame))
    frame["iw"] = iw
    df = dd.from_pandas(frame, npartitions=3)
    cols = {**_COLS, "propensity_col": None, "item_weight_col": "iw"}
    got = dask_report(df, **cols, k=K, metrics=[name], output_dict=True)
    for k in K if METRICS[name].cutoff else (None,):
        function = _function(
            name, yl, sl, k, query_id=ql, sample_weight=wl, item_weight=iw
        )
        assert got[scorer_name(name, k)] == pytest.approx(function, rel=RTOL)


@pytest.mark.parametrize("name", IPS)
def test_report_with_a_convention_is_the_function(name):
    """Each preset resolved by the report as the function resolves it, the
    propensities passed with it: the function's value or its own error."""
    from sklearn_rankmetrics._utils._conventions import CONVENTIONS

    y, s, p, w = _data(17)
    for convention in CONVENTIONS:
        for k in K if METRICS[name].cutoff else (None,):
            _same_outcome(
                name, (y, s), k, propensity=p, sample_weight=w, convention=convention
            )


# ---- the pooled form (average="micro") and the diagnostics (issue 27) ----


def _micro(name, y, s, k, **kwargs):
    return _function(name, y, s, k, average="micro", **kwargs)


@pytest.mark.parametrize("name", IPS)
@pytest.mark.parametrize("form", ["2-D", "sparse", "per-item", "long"])
def test_report_micro_is_the_function(name, form):
    """``ranking_report(average="micro")`` is each estimator's pooled form,
    bit for bit, in every input form; the per-query table does not change."""
    y, s, p, w = _data(30)
    kwargs = dict(sample_weight=w)
    if form == "sparse":
        y = sparse.csr_matrix(y)
    elif form == "per-item":
        p = p[0]  # one propensity per item, broadcast over the queries
    elif form == "long":
        y, s, p, q, wl = _long(y, s, p, w, 30)
        kwargs = dict(query_id=q, sample_weight=wl)
    got = ranking_report(
        y,
        s,
        k=K,
        metrics=[name],
        propensity=p,
        average="micro",
        output_dict=True,
        **kwargs,
    )
    for label, k in zip(_names(name), K, strict=False):
        want = _micro(name, y, s, k, propensity=p, **kwargs)
        assert got[label] == want
        queries = _function(name, y, s, k, propensity=p, **kwargs)
        if name not in ("precision", "dcg"):
            # the pooled ratio is another estimate than the mean of ratios
            # (a sum estimator's pooled form is its mean)
            assert want != pytest.approx(queries, rel=1e-9)
    tables = [
        ranking_report(
            y,
            s,
            k=K,
            metrics=[name],
            propensity=p,
            average=average,
            per_query=True,
            output_dict=True,
            **kwargs,
        )
        for average in ("queries", "micro")
    ]
    for label in _names(name):
        assert_array_equal(tables[0][label], tables[1][label])


@pytest.mark.parametrize("seed", [0, 1])
def test_evaluator_micro_and_diagnostics_in_chunks(seed):
    """RankingEvaluator in chunks, merged: the pooled means and the
    diagnostics of one in-memory report."""
    y, s, p, w = _data(seed + 40)
    yl, sl, pl, ql, wl = _long(y, s, p, w, seed)
    order = np.argsort(ql, kind="stable")
    yl, sl, pl, ql, wl = (a[order] for a in (yl, sl, pl, ql, wl))
    options = dict(k=K, metrics=IPS, average="micro", min_propensity=0.05)
    want = ranking_report(
        yl,
        sl,
        query_id=ql,
        sample_weight=wl,
        propensity=pl,
        output_dict=True,
        **options,
    )
    cut = np.searchsorted(ql, ql[ql.size // 2])
    evaluators = []
    for part in (np.arange(cut), np.arange(cut, yl.size)):
        evaluators.append(RankingEvaluator(**options))
        for rows in _chunks(part.size, 4, seed):
            rows = part[rows]
            evaluators[-1].update(
                yl[rows],
                sl[rows],
                query_id=ql[rows],
                sample_weight=wl[rows] * 2.0**seed,  # another scale per call
                propensity=pl[rows],
            )
    got = evaluators[0].merge(evaluators[1]).result(output_dict=True)
    _assert_same_diagnostics(got.pop(DIAGNOSTICS_KEY), want.pop(DIAGNOSTICS_KEY))
    assert list(got) == list(want)
    for label, value in want.items():
        assert got[label] == pytest.approx(value, rel=1e-9), label
        name, _, k = label.partition("@")
        function = _micro(
            name,
            yl,
            sl,
            int(k) if k else None,
            query_id=ql,
            sample_weight=wl,
            propensity=pl,
            min_propensity=0.05,
        )
        assert value == function
    # the text footer: the in-memory report's
    text = evaluators[0].merge(evaluators[1]).result()
    assert (
        text.splitlines()[-3:]
        == ranking_report(
            yl, sl, query_id=ql, sample_weight=wl, propensity=pl, **options
        ).splitlines()[-3:]
    )


def test_micro_without_propensity_is_refused_on_every_surface():
    y, s, _, _ = _data(31)
    with pytest.raises(ValueError, match="average='micro' only applies"):
        ranking_report(y, s, k=K, average="micro")
    ev = RankingEvaluator(k=K, metrics=IPS, average="micro")
    with pytest.raises(ValueError, match="pass propensity="):
        ev.update(y.ravel(), s.ravel(), query_id=np.repeat(np.arange(40), 7))
    with pytest.raises(ValueError, match="average must be 'queries'"):
        ranking_report(y, s, k=K, average=None)
    with pytest.raises(ValueError, match="average must be 'queries'"):
        RankingEvaluator(k=K, average="macro")
    p = np.full(y.shape, 0.5)
    with pytest.raises(ValueError, match="average='micro' is not supported"):
        compare_rankings(
            y, {"a": s, "b": -s}, k=3, metrics=IPS, propensity=p, average="micro"
        )


@pytest.mark.parametrize("form", ["2-D", "sparse", "long"])
def test_report_diagnostics_are_the_function(form):
    y, s, p, w = _data(32)
    kwargs = {}
    if form == "sparse":
        y = sparse.csr_matrix(y)
    elif form == "long":
        y, s, p, q, _ = _long(y, s, p, w, 32)
        kwargs["query_id"] = q
    for options in ({}, {"min_propensity": 0.1, "self_normalized": True}):
        got = ranking_report(
            y, s, k=K, metrics=IPS, propensity=p, output_dict=True, **kwargs, **options
        )[DIAGNOSTICS_KEY]
        want = propensity_diagnostics(
            y, s, propensity=p, k=K, metrics=IPS, **kwargs, **options
        )
        assert got == want
        # the estimates bounded by 1: all but the IPS DCG sum
        bounded = [
            label
            for name in IPS
            for label in _names(name)
            if name != "dcg" or options.get("self_normalized")
        ]
        assert list(got["above_one"]) == bounded
    text = ranking_report(y, s, k=K, metrics=IPS, propensity=p, **kwargs)
    assert "Propensity weights:" in text
    assert "Per-query estimates above 1:" in text


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
def test_dask_report_micro_and_diagnostics():
    dd = pytest.importorskip("dask.dataframe")
    from sklearn_rankmetrics.dask import ranking_report as dask_report

    frame, (yl, sl, pl, ql, wl) = _frame(33)
    df = dd.from_pandas(frame, npartitions=3)
    got = dask_report(df, **_COLS, k=K, metrics=IPS, average="micro", output_dict=True)
    want = ranking_report(
        yl,
        sl,
        k=K,
        metrics=IPS,
        query_id=ql,
        sample_weight=wl,
        propensity=pl,
        average="micro",
        output_dict=True,
    )
    _assert_same_diagnostics(got.pop(DIAGNOSTICS_KEY), want.pop(DIAGNOSTICS_KEY))
    for label, value in want.items():
        assert got[label] == pytest.approx(value, rel=1e-9), label
    with pytest.raises(ValueError, match="average='micro' only applies"):
        cols = {**_COLS, "propensity_col": None}
        dask_report(df, **cols, k=K, metrics=IPS, average="micro")


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_spark_report_micro_and_diagnostics(spark_session):
    from sklearn_rankmetrics.spark import ranking_report as spark_report

    frame, (yl, sl, pl, ql, wl) = _frame(34)
    df = spark_session.createDataFrame(frame)
    got = spark_report(df, **_COLS, k=K, metrics=IPS, average="micro", output_dict=True)
    want = ranking_report(
        yl,
        sl,
        k=K,
        metrics=IPS,
        query_id=ql,
        sample_weight=wl,
        propensity=pl,
        average="micro",
        output_dict=True,
    )
    _assert_same_diagnostics(got.pop(DIAGNOSTICS_KEY), want.pop(DIAGNOSTICS_KEY))
    for label, value in want.items():
        assert got[label] == pytest.approx(value, rel=1e-9), label


def test_scorers_and_display_take_the_pooled_form():
    sklearn = pytest.importorskip("sklearn")
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GroupKFold, cross_validate

    rng = np.random.default_rng(35)
    n = 400
    X = rng.random((n, 3))
    y = (X[:, 0] + rng.random(n) > 1.2).astype(float)
    qid = np.repeat(np.arange(40), 10)
    p = rng.uniform(0.1, 1, n)
    scoring = {name: get_scorer(scorer_name(name, 3), average="micro") for name in IPS}
    cv = GroupKFold(2)
    with sklearn.config_context(enable_metadata_routing=True):
        got = cross_validate(
            Ridge(),
            X,
            y,
            cv=cv,
            scoring=scoring,
            params={"query_id": qid, "propensity": p, "groups": qid},
        )
    for fold, (train, test) in enumerate(cv.split(X, y, qid)):
        score = Ridge().fit(X[train], y[train]).predict(X[test])
        for name in IPS:
            want = _micro(
                name, y[test], score, 3, query_id=qid[test], propensity=p[test]
            )
            assert got[f"test_{name}"][fold] == pytest.approx(want, rel=1e-12)
    y2, s2, p2, _ = _data(36)
    for name in IPS:
        if not METRICS[name].cutoff:
            continue
        display = MetricAtKDisplay.from_predictions(
            y2,
            s2,
            metric=name,
            k=K,
            metric_options={"propensity": p2, "average": "micro"},
            plot=False,
        )
        want = [_micro(name, y2, s2, k, propensity=p2) for k in K]
        assert_array_equal(display.values, want)
