"""Data frames by column name (issue 30): the values of the array form.

Every frame kind (pandas with numpy or Arrow columns, polars eager and lazy,
pyarrow tables of several chunks) crossed with every kind of query id (text,
with look-alikes such as ``"007"`` / ``"7"`` and a blank ``""``;
categorical, with unused categories; int, negative and spread out) and every
surface (the metric functions, ``ranking_report``, ``compare_rankings``,
``calibration_report``, ``RankingEvaluator.update``) must give *exactly* the
values of the same call on the numpy arrays of the columns: the frame form
only reads columns, the array code computes.

The reference is the array form on numpy arrays built before any frame
(object arrays of text ids, as ``Series.to_numpy()`` gives), so a frame
reader that re-typed or re-ordered the ids would fail.
"""

import inspect
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sklearn_rankmetrics as srm
from sklearn_rankmetrics._io._dataframe import (
    FactorizedIds,
    frame_library,
    read_table,
)

pd = pytest.importorskip("pandas")
pytest.importorskip("narwhals")


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------
def make_rows(seed, n_queries=30, id_kind="text"):
    """Long-form rows: grades 0-3, tied scores, -inf scores, queries
    without a relevant item, a query retrieving nothing, query weights, rows
    shuffled.  Returns a dict of numpy columns (ids as the array form sees
    them)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, n_queries)
    q = np.repeat(np.arange(n_queries), sizes)
    n = q.shape[0]
    y = rng.integers(0, 4, n) * (rng.random(n) < 0.45)
    y[q == 1] = 0  # no relevant item
    y[q == 2] = 0
    s = rng.integers(0, 5, n).astype(np.float64) / 4  # ties
    s[rng.random(n) < 0.15] = -np.inf  # not retrieved
    s[q == 3] = -np.inf  # an empty list
    w = rng.integers(1, 4, n_queries).astype(np.float64)[q]
    p = rng.uniform(0.2, 1.0, n)
    position = np.arange(n) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    item = (5 * position + q) % 40  # distinct within a query
    names = np.array(
        ["007", "7", "", "a b", "é", "Z", "z"] + [f"u{i}" for i in range(n_queries)],
        dtype=object,
    )
    if id_kind == "int":
        ids = np.array([-5, 7, 0, 10**12] + list(range(100, 100 + n_queries)))[q]
    else:  # text and categorical ids: the same strings
        ids = names[q]
    order = rng.permutation(n)
    cols = {
        "user": ids,
        "clicked": y,
        "score": s,
        "weight": w,
        "propensity": p,
        "item": item,
        "segment": (np.array(["mobile", "web", "tv"], dtype=object))[q % 3],
    }
    return {c: v[order] for c, v in cols.items()}


FRAME_KINDS = [
    "pandas",
    "pandas-arrow",
    "polars",
    "polars-lazy",
    "pyarrow",
    "pyarrow-sliced",
]
ID_KINDS = ["text", "categorical", "int", "look-alike"]


def to_frame(cols, frame_kind, id_kind):
    """The columns as a frame of ``frame_kind``; ``id_kind="categorical"``
    stores the query ids as a categorical column with unused categories."""
    if frame_kind.startswith("polars"):
        pl = pytest.importorskip("polars")
        data = {c: (v.tolist() if v.dtype == object else v) for c, v in cols.items()}
        df = pl.DataFrame(data)
        if id_kind == "categorical":
            df = df.with_columns(pl.col("user").cast(pl.Categorical))
        return df.lazy() if frame_kind == "polars-lazy" else df
    if frame_kind.startswith("pyarrow"):
        pa = pytest.importorskip("pyarrow")
        arrays = {
            c: pa.array(v.tolist() if v.dtype == object else v) for c, v in cols.items()
        }
        if id_kind == "categorical":
            arrays["user"] = arrays["user"].dictionary_encode()
        table = pa.table(arrays)
        if frame_kind == "pyarrow-sliced":  # one chunk, at an offset into its buffers
            padded = pa.concat_tables([table.slice(0, 1), table]).combine_chunks()
            return padded.slice(1)
        half = table.num_rows // 2  # several chunks
        return pa.concat_tables([table.slice(0, half), table.slice(half)])
    df = pd.DataFrame(cols)
    if frame_kind == "pandas-arrow":
        pytest.importorskip("pyarrow")
        for c in ("user", "segment"):
            if df[c].dtype == object:
                df[c] = df[c].astype("string[pyarrow]")
    if id_kind == "categorical":
        values = sorted(set(cols["user"]))
        df["user"] = pd.Categorical(
            cols["user"], categories=["unused", *values[::-1], "also unused"]
        )
    return df


def make_case(seed, frame_kind, id_kind, n_queries=30):
    rows = make_rows(seed, n_queries, "int" if id_kind == "int" else "text")
    if id_kind == "look-alike":  # only ids that look alike
        codes = np.unique(rows["user"], return_inverse=True)[1] % 5
        rows["user"] = np.array(["007", "7", "07", "0", "00"], dtype=object)[codes]
        rows["weight"] = (codes % 3 + 1).astype(np.float64)  # one per query
        rows["segment"] = np.array(["mobile", "web"], dtype=object)[codes % 2]
    return rows, to_frame(rows, frame_kind, id_kind)


COLS = dict(query_col="user", label_col="clicked", score_col="score")


def assert_same(a, b):
    """Bit-identical floats (nan where nan) in any nesting of dicts,
    tuples, arrays."""
    if isinstance(a, dict):
        assert list(a) == list(b)
        for key in a:
            assert_same(a[key], b[key])
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, z in zip(a, b, strict=True):
            assert_same(x, z)
    elif isinstance(a, np.ndarray) and a.dtype.kind in "OUS":
        assert a.tolist() == list(b)
    elif a is None or isinstance(a, (str, bool)):
        assert a == b
    else:
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape
        assert np.array_equal(a, b, equal_nan=True), (a, b)


# ---------------------------------------------------------------------------
# Every frame kind x id kind x surface: the array form, bit for bit
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("id_kind", ID_KINDS)
@pytest.mark.parametrize("frame_kind", FRAME_KINDS)
def test_metric_functions_equal_array_form(frame_kind, id_kind):
    rows, df = make_case(0, frame_kind, id_kind)
    y, s, q, w = rows["clicked"], rows["score"], rows["user"], rows["weight"]
    for func, kw in [
        (srm.ndcg_at_k, dict(k=3)),
        (srm.precision_at_k, dict(k=2, average=None)),
        (srm.average_precision_at_k, dict(k=5, no_relevant=0.0)),
        (srm.reciprocal_rank_at_k, dict(k=4, ties="pessimistic")),
        (srm.expected_reciprocal_rank_at_k, dict(k=3, average=None)),
        (srm.recall_at_k, dict(k=3, convention="trec_eval")),
        (srm.group_auc_score, dict(average=None)),
    ]:
        expected = func(y, s, query_id=q, **kw)
        got = func(df, **COLS, **kw)
        assert_same(got, expected)
    # weights and propensities travel with their rows
    expected = srm.dcg_at_k(y, s, query_id=q, sample_weight=w, k=3)
    got = srm.dcg_at_k(df, **COLS, weight_col="weight", k=3)
    assert_same(got, expected)
    expected = srm.ndcg_at_k(y, s, query_id=q, propensity=rows["propensity"], k=3)
    got = srm.ndcg_at_k(df, **COLS, propensity_col="propensity", k=3)
    assert_same(got, expected)


@pytest.mark.parametrize("id_kind", ID_KINDS)
@pytest.mark.parametrize("frame_kind", FRAME_KINDS)
def test_ranking_report_equals_array_form(frame_kind, id_kind):
    rows, df = make_case(1, frame_kind, id_kind)
    y, s, q = rows["clicked"], rows["score"], rows["user"]
    kw = dict(k=(1, 3, 5), metrics=["ndcg", "map", "recall", "err", "gauc"])
    assert_same(
        srm.ranking_report(df, **COLS, output_dict=True, **kw),
        srm.ranking_report(y, s, query_id=q, output_dict=True, **kw),
    )
    assert srm.ranking_report(df, **COLS, **kw) == srm.ranking_report(
        y, s, query_id=q, **kw
    )
    # per query: the frame's ids, in the order of np.unique(query_id)
    got = srm.ranking_report(df, **COLS, per_query=True, output_dict=True, **kw)
    expected = srm.ranking_report(
        y, s, query_id=q, per_query=True, output_dict=True, **kw
    )
    assert_same(got, expected)
    assert list(got["query_id"]) == list(np.unique(q))
    # with the weights column
    assert_same(
        srm.ranking_report(df, **COLS, weight_col="weight", output_dict=True, k=3),
        srm.ranking_report(
            y, s, query_id=q, sample_weight=rows["weight"], output_dict=True, k=3
        ),
    )


@pytest.mark.parametrize("id_kind", ["text", "categorical", "int"])
@pytest.mark.parametrize("frame_kind", FRAME_KINDS)
def test_compare_rankings_equals_array_form(frame_kind, id_kind):
    rows, _ = make_case(2, "pandas", id_kind)
    rng = np.random.default_rng(2)
    rows["other"] = np.round(rng.random(rows["score"].shape[0]), 1)
    df = to_frame(rows, frame_kind, id_kind)
    y, q = rows["clicked"], rows["user"]
    kw = dict(
        k=3, metrics=["ndcg", "mrr"], random_state=0, n_resamples=99, n_bootstrap=99
    )
    expected = srm.compare_rankings(
        y, {"score": rows["score"], "other": rows["other"]}, query_id=q, **kw
    )
    got = srm.compare_rankings(
        df, query_col="user", label_col="clicked", score_col=["score", "other"], **kw
    )
    assert_same(got.to_dict(), expected.to_dict())
    assert_same(got.per_query_values, expected.per_query_values)
    assert list(got.query_id) == list(expected.query_id)
    # a dict names the models
    named = srm.compare_rankings(
        df, query_col="user", label_col="clicked",
        score_col={"A": "score", "B": "other"}, **kw,
    )  # fmt: skip
    assert named.models == ["A", "B"]
    assert_same(named.mean, expected.mean)


@pytest.mark.parametrize("frame_kind", FRAME_KINDS)
def test_calibration_report_equals_array_form(frame_kind):
    rows = make_rows(3)
    rows["clicked"] = (rows["clicked"] > 0).astype(np.int64)
    rows["prob"] = np.clip(rows["propensity"], 0.05, 0.95)
    df = to_frame(rows, frame_kind, "text")
    expected = srm.calibration_report(
        rows["clicked"], rows["prob"], groups=rows["segment"],
        sample_weight=rows["weight"], output_dict=True,
    )  # fmt: skip
    got = srm.calibration_report(
        df, label_col="clicked", score_col="prob", group_col="segment",
        weight_col="weight", output_dict=True,
    )  # fmt: skip
    assert_same(got, expected)


@pytest.mark.parametrize("id_kind", ["text", "categorical", "int"])
@pytest.mark.parametrize("frame_kind", FRAME_KINDS)
def test_evaluator_update_equals_array_form(frame_kind, id_kind):
    rows, _ = make_case(4, "pandas", id_kind)
    order = np.argsort(rows["user"].astype(str), kind="stable")  # by query
    rows = {c: v[order] for c, v in rows.items()}
    half = rows["user"].shape[0] // 2  # a query runs on into the 2nd chunk
    first = {c: v[:half] for c, v in rows.items()}
    second = {c: v[half:] for c, v in rows.items()}
    kw = dict(k=(1, 3), metrics=["ndcg", "precision", "gauc"])
    expected = srm.RankingEvaluator(**kw)
    got = srm.RankingEvaluator(**kw)
    for chunk in (first, second):
        expected.update(
            chunk["clicked"], chunk["score"], query_id=chunk["user"],
            sample_weight=chunk["weight"],
        )  # fmt: skip
        got.update(to_frame(chunk, frame_kind, id_kind), **COLS, weight_col="weight")
    assert_same(got.result(output_dict=True), expected.result(output_dict=True))
    # and the report of all the rows (to rounding: the evaluator's sums)
    report = srm.ranking_report(
        rows["clicked"], rows["score"], query_id=rows["user"],
        sample_weight=rows["weight"], output_dict=True, **kw,
    )  # fmt: skip
    assert got.result(output_dict=True) == pytest.approx(report, rel=1e-13)


def test_item_column_for_beyond_accuracy_metrics():
    rows, df = make_case(5, "pandas", "text")
    pop = np.arange(40.0)
    expected = srm.novelty_at_k(
        rows["clicked"], rows["score"], query_id=rows["user"], item_id=rows["item"],
        item_popularity=pop, k=3,
    )  # fmt: skip
    got = srm.novelty_at_k(df, **COLS, item_col="item", item_popularity=pop, k=3)
    assert_same(got, expected)
    assert_same(
        srm.ranking_report(
            df, **COLS, item_col="item", metrics=["ndcg", "catalog_coverage"],
            n_items=40, k=3, output_dict=True,
        ),
        srm.ranking_report(
            rows["clicked"], rows["score"], query_id=rows["user"],
            item_id=rows["item"], metrics=["ndcg", "catalog_coverage"],
            n_items=40, k=3, output_dict=True,
        ),
    )  # fmt: skip


@pytest.mark.parametrize("frame_kind", FRAME_KINDS)
def test_tie_break_col_orders_each_querys_rows(frame_kind):
    # ignore_ties ranks tied rows in row order; tie_break_col sorts each
    # query's rows by the column first: the array form on the sorted rows
    rows = make_rows(6)
    rows["doc"] = np.random.default_rng(6).permutation(rows["user"].shape[0])
    df = to_frame(rows, frame_kind, "text")
    for ascending in (True, False):
        key = rows["doc"] if ascending else -rows["doc"]
        order = np.argsort(key, kind="stable")
        expected = srm.ranking_report(
            rows["clicked"][order], rows["score"][order],
            query_id=rows["user"][order], k=3, ignore_ties=True, output_dict=True,
        )  # fmt: skip
        got = srm.ranking_report(
            df, **COLS, tie_break_col="doc", tie_break_ascending=ascending,
            k=3, ignore_ties=True, output_dict=True,
        )  # fmt: skip
        assert_same(got, expected)
    # a repeated value within a query cannot order it
    rows["doc"][:] = 1
    with pytest.raises(ValueError, match="'doc' \\(tie_break_col\\) repeats a value"):
        srm.ranking_report(
            to_frame(rows, frame_kind, "text"), **COLS, tie_break_col="doc"
        )


def test_bool_and_float32_and_nullable_columns():
    rows = make_rows(7)
    df = pd.DataFrame(
        {
            "user": rows["user"],
            "clicked": pd.array(rows["clicked"] > 0, dtype="boolean"),
            "score": rows["score"].astype(np.float32),
            "weight": pd.array(rows["weight"].astype(int), dtype="Int64"),
        }
    )
    expected = srm.ranking_report(
        rows["clicked"] > 0, rows["score"].astype(np.float32), query_id=rows["user"],
        sample_weight=rows["weight"], k=3, output_dict=True,
    )  # fmt: skip
    got = srm.ranking_report(df, **COLS, weight_col="weight", k=3, output_dict=True)
    assert_same(got, expected)


def _installed_kinds():
    kinds = ["pandas"]
    for kind in ("polars", "pyarrow"):
        try:
            __import__(kind)
        except ImportError:
            continue
        kinds.append(kind)
    return kinds


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n_queries=st.integers(1, 12),
    frame_kind=st.sampled_from(_installed_kinds()),
    id_kind=st.sampled_from(ID_KINDS),
)
def test_property_report_equals_array_form(seed, n_queries, frame_kind, id_kind):
    rows, df = make_case(seed, frame_kind, id_kind, n_queries=n_queries)
    kw = dict(k=(1, 4), metrics=["ndcg", "precision", "gauc"], output_dict=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # every query may be skipped
        got = srm.ranking_report(df, **COLS, per_query=True, **kw)
        expected = srm.ranking_report(
            rows["clicked"], rows["score"], query_id=rows["user"], per_query=True, **kw
        )
    assert_same(got, expected)


# ---------------------------------------------------------------------------
# Bad input: nulls, NaN, missing columns, wrong types
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("frame_kind", ["pandas", "polars", "pyarrow"])
@pytest.mark.parametrize("col", ["user", "clicked", "score"])
def test_null_cells_name_column_and_row(frame_kind, col):
    rows = {c: v[:12].astype(object) for c, v in make_rows(8).items()}
    rows[col][[5, 9]] = None
    if frame_kind == "pandas":
        df = pd.DataFrame(rows)
    elif frame_kind == "polars":
        pl = pytest.importorskip("polars")
        df = pl.DataFrame({c: v.tolist() for c, v in rows.items()}, strict=False)
    else:
        pa = pytest.importorskip("pyarrow")
        df = pa.table({c: pa.array(v.tolist()) for c, v in rows.items()})
    match = rf"column '{col}' has 2 null value\(s\) \(the first at row 5\)"
    with pytest.raises(ValueError, match=match):
        srm.ranking_report(df, **COLS)
    with pytest.raises(ValueError, match=match):
        srm.ndcg_at_k(df, **COLS, k=3)


@pytest.mark.parametrize("frame_kind", ["polars", "pyarrow"])
def test_nan_scores_name_column_and_row(frame_kind):
    rows = make_rows(9)
    rows["score"][[3, 4]] = np.nan
    df = to_frame(rows, frame_kind, "text")
    with pytest.raises(
        ValueError, match=r"'score' has 2 NaN score\(s\) \(the first at row 3\)"
    ):
        srm.ranking_report(df, **COLS)


def test_missing_column_lists_available_ones():
    rows, df = make_case(10, "pandas", "text")
    with pytest.raises(
        ValueError, match=r"label_col='label'.*available columns: 'user', 'clicked'"
    ):
        srm.ranking_report(df, query_col="user", label_col="label", score_col="score")
    pl = pytest.importorskip("polars")
    with pytest.raises(ValueError, match=r"query_col='qid'.*'user'"):
        srm.ndcg_at_k(
            pl.from_pandas(df).lazy(),
            query_col="qid",
            label_col="clicked",
            score_col="score",
        )
    with pytest.raises(ValueError, match="group_col='seg'"):
        srm.ranking_report(df, **COLS, group_col="seg")


def test_non_numeric_label_column():
    rows, df = make_case(11, "pandas", "text")
    df["clicked"] = df["clicked"].astype(str)
    with pytest.raises(TypeError, match="column 'clicked' must be numeric"):
        srm.ranking_report(df, **COLS)


def test_frame_and_arrays_mixed_up():
    rows, df = make_case(12, "pandas", "text")
    with pytest.raises(TypeError, match="label_col="):
        srm.ndcg_at_k(df, query_col="user", score_col="score")
    with pytest.raises(TypeError, match="needs score_col=.*'user', 'clicked'"):
        srm.ndcg_at_k(df, query_col="user", label_col="clicked")
    with pytest.raises(TypeError, match="needs score_col="):
        srm.ranking_report(df, query_col="user", label_col="clicked")
    with pytest.raises(TypeError, match="got a data frame and y_score"):
        srm.ndcg_at_k(df, rows["score"], **COLS)
    with pytest.raises(TypeError, match="query_id=.*query_col="):
        srm.ranking_report(df, **COLS, query_id=rows["user"])
    with pytest.raises(TypeError, match="name.*columns of a data frame"):
        srm.ndcg_at_k(rows["clicked"], **COLS)
    with pytest.raises(TypeError, match="missing y_score"):
        srm.ndcg_at_k(rows["clicked"])
    with pytest.raises(TypeError, match="has no item_weight= argument"):
        srm.group_auc_score(df, **COLS, item_weight_col="weight")
    with pytest.raises(TypeError, match="unknown column keyword"):
        srm.ndcg_at_k(df, **COLS, qid_col="user")
    with pytest.raises(TypeError, match="one score column per model"):
        srm.compare_rankings(
            df, query_col="user", label_col="clicked", score_col="score"
        )
    with pytest.raises(ValueError, match="tie_break_col='score' is already"):
        srm.ranking_report(df, **COLS, tie_break_col="score")
    with pytest.raises(TypeError, match="tie_break_ascending must be True or False"):
        srm.ranking_report(df, **COLS, tie_break_col="item", tie_break_ascending=1)
    with pytest.raises(ValueError, match="tie_break_col='doc' is not a column"):
        srm.ranking_report(df, **COLS, tie_break_col="doc")
    with pytest.raises(ValueError, match="must name different columns"):
        srm.ranking_report(
            df, query_col="user", label_col="clicked", score_col="clicked"
        )


def test_inputs_are_not_modified():
    rows, df = make_case(13, "pandas", "categorical")
    before = df.copy(deep=True)
    srm.ranking_report(df, **COLS, group_col="segment", k=3)
    pd.testing.assert_frame_equal(df, before)


# ---------------------------------------------------------------------------
# Lazy frames, imports, narwhals missing, Dask
# ---------------------------------------------------------------------------
def test_lazy_polars_frame_is_collected_once(monkeypatch):
    pl = pytest.importorskip("polars")
    rows, lazy = make_case(14, "polars-lazy", "text")
    calls = []
    collect = pl.LazyFrame.collect

    def counted(self, *args, **kwargs):
        calls.append(self.collect_schema().names())
        return collect(self, *args, **kwargs)

    monkeypatch.setattr(pl.LazyFrame, "collect", counted)
    srm.ranking_report(lazy, **COLS, weight_col="weight", group_col="segment", k=3)
    # once, and only the columns used
    assert calls == [["user", "clicked", "score", "weight", "segment"]]


def test_array_input_imports_no_frame_library():
    code = (
        "import sys, sklearn_rankmetrics as srm\n"
        "srm.ndcg_at_k([1, 0, 1], [0.3, 0.2, 0.1], query_id=[1, 1, 2])\n"
        "srm.ranking_report([[1, 0]], [[0.2, 0.1]], k=1)\n"
        "print([m for m in ('narwhals', 'polars', 'pyarrow', 'pandas')"
        " if m in sys.modules])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_without_narwhals_a_clear_import_error(monkeypatch):
    rows, df = make_case(15, "pandas", "text")
    for name in list(sys.modules):
        if name == "narwhals" or name.startswith("narwhals."):
            monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "narwhals", None)
    monkeypatch.setitem(sys.modules, "narwhals.stable.v2", None)
    with pytest.raises(ImportError, match="pip install narwhals"):
        srm.ranking_report(df, **COLS)
    # the array form does not need it
    srm.ranking_report(rows["clicked"], rows["score"], query_id=rows["user"], k=3)


def test_frame_detection_by_module_name():
    class Fake:
        pass

    for module, name, expected in [
        ("pandas.core.frame", "DataFrame", "frame"),
        ("polars.lazyframe.frame", "LazyFrame", "frame"),
        ("pyarrow.lib", "Table", "frame"),
        ("dask.dataframe.dask_expr._collection", "DataFrame", "dask"),
        ("pyspark.sql.classic.dataframe", "DataFrame", "spark"),
        ("pandas.core.series", "Series", None),
        ("numpy", "ndarray", None),
    ]:
        cls = type(name, (Fake,), {"__module__": module})
        assert frame_library(cls()) == expected


@pytest.mark.parametrize("frame_kind", [*FRAME_KINDS, "dict"])
@pytest.mark.parametrize("id_kind", ID_KINDS)
def test_read_table_gives_the_columns(frame_kind, id_kind):
    # the table reader of the recommendation tables: every column as the
    # array form sees it; id columns numbered by their library hold the ids
    # of the rows, each distinct id once and used by a row
    rows, frame = make_case(
        3, "pandas" if frame_kind == "dict" else frame_kind, id_kind
    )
    if frame_kind == "dict":
        frame = dict(rows)
    roles = {"query": "user", "label": "clicked", "score": "score", "item": "item"}
    read = read_table(frame, roles, caller="f", arg="t", ids=("query", "item"))
    assert read.n_rows == rows["user"].shape[0]
    for role, col in roles.items():
        got = read.columns[role]
        if isinstance(got, FactorizedIds):
            assert role == "query"
            assert len(set(got.uniques.tolist())) == got.uniques.shape[0]
            assert np.array_equal(np.unique(got.codes), np.arange(got.uniques.shape[0]))
            got = got.uniques[got.codes]
        assert got.tolist() == rows[col].tolist()
    # typed as text: by the library, never by looking at Python objects
    typed = id_kind != "int" and frame_kind != "dict"
    if frame_kind.startswith("pandas"):
        kind = frame["user"].dtype
        if isinstance(kind, pd.CategoricalDtype):
            kind = kind.categories.dtype
        typed = isinstance(kind, pd.StringDtype)  # not object (pandas < 3)
    assert read.text == ({"query"} if typed else set())


def test_read_table_drops_unused_dictionary_entries():
    pa = pytest.importorskip("pyarrow")
    column = pa.DictionaryArray.from_arrays(
        pa.array([2, 0, 2]), pa.array(["b", "unused", "a"])
    )
    table = pa.table({"u": column})
    read = read_table(table, {"user": "u"}, caller="f", arg="t", ids=("user",))
    ids = read.columns["user"]
    assert ids.uniques.tolist() == ["b", "a"]  # the dictionary's order
    assert ids.uniques[ids.codes].tolist() == ["a", "b", "a"]
    pl = pytest.importorskip("polars")
    enum = pl.Series(["z", "x", "z"], dtype=pl.Enum(["x", "y", "z"]))
    read = read_table(
        pl.DataFrame({"u": enum}), {"user": "u"}, caller="f", arg="t", ids=("user",)
    )
    ids = read.columns["user"]
    assert sorted(ids.uniques.tolist()) == ["x", "z"]
    assert ids.uniques[ids.codes].tolist() == ["z", "x", "z"]


def test_read_table_errors_name_table_column_and_row():
    table = {"u": np.array(["a", None, "b"], dtype=object), "s": [1.0, 2.0, np.nan]}
    with pytest.raises(ValueError, match=r"f: column 'u' \(user\) of t has 1 null "):
        read_table(table, {"user": "u"}, caller="f", arg="t")
    with pytest.raises(ValueError, match=r"column 's' \(score\) of t .* at row 2"):
        read_table(table, {"score": "s"}, caller="f", arg="t")
    with pytest.raises(ValueError, match="score='x' is not a column of t; available"):
        read_table(table, {"score": "x"}, caller="f", arg="t")
    with pytest.raises(ValueError, match="different lengths"):
        read_table({"a": [1, 2], "b": [1]}, {"x": "a", "y": "b"}, caller="f", arg="t")
    with pytest.raises(TypeError, match="t must be a table"):
        read_table([[1, 2]], {"x": "a"}, caller="f", arg="t")
    frame = pd.DataFrame({"u": pd.Series(["a", None], dtype="string"), "s": [1, 2]})
    with pytest.raises(ValueError, match=r"'u' \(user\) of t has 1 null .* row 1"):
        read_table(frame, {"user": "u"}, caller="f", arg="t", ids=("user",))


def test_dask_frame_runs_the_dask_engine():
    dd = pytest.importorskip("dask.dataframe")
    pytest.importorskip("sklearn_rankmetrics.dask")
    rows, df = make_case(16, "pandas", "text")
    ddf = dd.from_pandas(df[["user", "clicked", "score"]], npartitions=3)
    from sklearn_rankmetrics import dask as rm_dask

    kw = dict(k=(1, 3), metrics=["ndcg", "mrr"], output_dict=True)
    got = srm.ranking_report(ddf, **COLS, **kw)
    assert got == rm_dask.ranking_report(ddf, **COLS, **kw)
    expected = srm.ranking_report(df, **COLS, **kw)
    for name in expected:
        assert got[name] == pytest.approx(expected[name], rel=1e-12)
    with pytest.raises(TypeError, match="does not take group_col="):
        srm.ranking_report(ddf, **COLS, group_col="user")


def test_engine_frames_dispatched_at_the_public_layer(monkeypatch):
    # sklearn_rankmetrics.ranking_report (the public layer) hands a Spark
    # DataFrame to sklearn_rankmetrics.spark.ranking_report with the same
    # keywords; the in-memory report below it refuses the frame, naming that
    # report, and never imports an engine
    pytest.importorskip("sklearn_rankmetrics.spark")
    from sklearn_rankmetrics import spark as rm_spark
    from sklearn_rankmetrics._evaluation._report import ranking_report as in_memory

    calls = []

    def engine_report(frame, **kwargs):
        calls.append((frame, kwargs))
        return "the Spark report"

    monkeypatch.setattr(rm_spark, "ranking_report", engine_report)
    frame = type("DataFrame", (), {"__module__": "pyspark.sql.dataframe"})()
    got = srm.ranking_report(
        frame, **COLS, k=3, metrics=["ndcg"], convention="trec_eval", gain="linear"
    )
    assert got == "the Spark report"
    ((given, kwargs),) = calls
    assert given is frame
    assert kwargs == dict(
        **COLS,
        k=3,
        metrics=["ndcg"],
        output_dict=False,
        per_query=False,
        digits=4,
        tie_break_ascending=True,
        convention="trec_eval",
        gain="linear",
    )
    with pytest.raises(TypeError, match="does not take query_id=, item_group_col="):
        srm.ranking_report(frame, **COLS, query_id=[1], item_group_col="g")
    with pytest.raises(TypeError, match="got a data frame and y_score"):
        srm.ranking_report(frame, [0.5], **COLS)
    with pytest.raises(
        TypeError,
        match=r"ranking_report in memory does not take a spark DataFrame; call "
        r"sklearn_rankmetrics.spark.ranking_report",
    ):
        in_memory(frame, **COLS)
    assert len(calls) == 1
    # the public function is the in-memory one's signature and documentation
    assert srm.ranking_report.__doc__ == in_memory.__doc__
    assert inspect.signature(srm.ranking_report) == inspect.signature(in_memory)


@pytest.mark.parametrize("frame_kind", ["pandas", "polars", "pyarrow"])
def test_look_alike_ids_stay_apart_hand_worked(frame_kind):
    # "007" clicked its top item: reciprocal rank 1; "7" clicked its second
    # item: 1/2; the blank id "" clicked nothing: skipped.  MRR = (1 + 1/2)
    # / 2 = 0.75.  Read as numbers, "007" and "7" would be one query of
    # four rows: two clicks, the top two tied at 0.9 -- another value.
    rows = {
        "user": np.array(["007", "7", "007", "7", "", ""], dtype=object),
        "clicked": np.array([1, 0, 0, 1, 0, 0]),
        "score": np.array([0.9, 0.9, 0.1, 0.5, 0.3, 0.2]),
    }
    df = to_frame(rows, frame_kind, "text")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = srm.ranking_report(
            df, **COLS, k=2, metrics=["mrr"], per_query=True, output_dict=True
        )
        mean = srm.reciprocal_rank_at_k(df, **COLS, k=2)
    assert out["query_id"].tolist() == ["", "007", "7"]
    assert_same(out["mrr@2"], np.array([np.nan, 1.0, 0.5]))
    assert mean == 0.75
