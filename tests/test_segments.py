"""Reports by segment and by item stratum (issue 30).

- a segment's values are the report on the segment's rows alone (a slow
  reference: one report per segment), bit for bit; the overall row is the
  plain report;
- a stratum's values are the report with the grades outside the stratum
  set to 0 (brute-force restriction), and a hand-worked case;
- popularity strata against their definition, written as loops;
- the coverage counters on a hand-worked case;
- intervals: those of compare_rankings' bootstrap on the segment's
  queries, and a slow weighted bootstrap.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

import sklearn_rankmetrics as srm
from sklearn_rankmetrics._evaluation._compare import _scipy_rng_kwarg


def assert_same(a, b):
    if isinstance(a, dict):
        assert list(a) == list(b)
        for key in a:
            assert_same(a[key], b[key])
    elif isinstance(a, tuple):
        for x, z in zip(a, b, strict=True):
            assert_same(x, z)
    else:
        assert np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True), (a, b)


def make_case(seed, n=40, m=9):
    """2-D grades with ties, -inf scores, queries without relevant items, an
    empty list; segment labels per query, strata per item, query weights."""
    rng = np.random.default_rng(seed)
    Y = rng.integers(0, 4, (n, m)) * (rng.random((n, m)) < 0.4)
    Y[[3, 8]] = 0
    S = rng.integers(0, 5, (n, m)) / 4
    S[rng.random((n, m)) < 0.2] = -np.inf
    S[5] = -np.inf  # an empty list
    S[6, 2:] = -np.inf  # a short list
    segment = np.array(["web", "007", "7", ""], dtype=object)[rng.integers(0, 4, n)]
    stratum = np.array(["head", "torso", "tail"])[rng.integers(0, 3, m)]
    w = rng.integers(1, 4, n).astype(np.float64)
    return Y, S, segment, stratum, w


def long_form(Y, S, segment, stratum, w, seed):
    n, m = Y.shape
    r, c = np.divmod(np.arange(n * m), m)
    order = np.random.default_rng(seed).permutation(n * m)
    r, c = r[order], c[order]
    qid = np.array([f"q{i:02d}" for i in range(n)], dtype=object)[r]
    return Y[r, c], S[r, c], qid, segment[r], stratum[c], w[r]


OPTION_SETS = [
    dict(),
    dict(sample_weight=True),
    dict(no_relevant=0.0),
    dict(convention="trec_eval"),
    dict(gain="exponential", relevance_threshold=2),
]
METRICS = ["ndcg", "map", "recall", "precision", "mrr", "err", "gauc"]


def _report(y, s, *, qid=None, w=None, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return srm.ranking_report(
            y, s, query_id=qid, sample_weight=w, output_dict=True, **kw
        )


@pytest.mark.parametrize("options", OPTION_SETS)
@pytest.mark.parametrize("form", ["long", "dense", "sparse"])
def test_segments_equal_report_on_segment_rows(form, options):
    Y, S, segment, stratum, w = make_case(0)
    options = dict(options)
    weighted = options.pop("sample_weight", False)
    metrics = [m for m in METRICS if not (m == "gauc" and form != "long")]
    kw = dict(k=(1, 3, 5), metrics=metrics, **options)
    if options.get("convention") == "trec_eval":
        metrics.remove("err")
    if form == "long":
        y, s, qid, seg, _, w_rows = long_form(Y, S, segment, stratum, w, 0)
        w_arg = w_rows if weighted else None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = srm.ranking_report(
                y, s, query_id=qid, sample_weight=w_arg, groups=seg,
                output_dict=True, **kw,
            )  # fmt: skip
        assert_same(got["overall"], _report(y, s, qid=qid, w=w_arg, **kw))
        for label in np.unique(seg):  # the slow reference: one report each
            rows = seg == label
            expected = _report(
                y[rows], s[rows], qid=qid[rows],
                w=None if w_arg is None else w_arg[rows], **kw,
            )  # fmt: skip
            assert_same(got["groups"][label], expected)
        assert list(got["groups"]) == list(np.unique(seg))
        return
    y = sp.csr_matrix(Y) if form == "sparse" else Y
    w_arg = w if weighted else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = srm.ranking_report(
            y, S, sample_weight=w_arg, groups=segment, output_dict=True, **kw
        )
    assert_same(got["overall"], _report(y, S, w=w_arg, **kw))
    for label in np.unique(segment):
        rows = np.flatnonzero(segment == label)
        expected = _report(
            y[rows], S[rows], w=None if w_arg is None else w_arg[rows], **kw
        )
        assert_same(got["groups"][label], expected)


@pytest.mark.parametrize("form", ["long", "dense", "sparse"])
def test_strata_equal_brute_force_restriction(form):
    Y, S, segment, stratum, w = make_case(1)
    kw = dict(k=(1, 3), metrics=["ndcg", "recall", "precision", "map", "err"])
    if form == "long":
        y, s, qid, _, strat, _ = long_form(Y, S, segment, stratum, w, 1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = srm.ranking_report(
                y, s, query_id=qid, item_groups=strat, output_dict=True, **kw
            )
        for label in ("head", "tail", "torso"):
            restricted = np.where(strat == label, y, 0)
            expected = _report(restricted, s, qid=qid, **kw)
            assert_same(got["item_groups"][label], expected)
        return
    y = sp.csr_matrix(Y) if form == "sparse" else Y
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = srm.ranking_report(y, S, item_groups=stratum, output_dict=True, **kw)
    for label in ("head", "tail", "torso"):
        restricted = Y * (stratum == label)[None, :]
        expected = _report(restricted, S, **kw)
        assert_same(got["item_groups"][label], expected)


def test_stratum_hand_worked():
    # one query, items ranked a > b > c > d; relevant: a (head), c and d
    # (tail).  Tail stratum: only c and d relevant.
    #   recall@2 = 0 of 2 tail items in the top 2 = 0
    #   recall@3 = 1 / 2 (c at rank 3)
    #   ndcg@3 = (1 / log2(4)) / (1 / log2(2) + 1 / log2(3)) = 0.5 / 1.63093
    # Head stratum: only a relevant, at rank 1: recall@2 = 1, ndcg@3 = 1.
    y_true = [[1, 0, 1, 1]]
    y_score = [[0.9, 0.8, 0.7, 0.6]]
    strata = ["head", "torso", "tail", "tail"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no torso item is relevant
        out = srm.ranking_report(
            y_true, y_score, k=(2, 3), metrics=["recall", "ndcg"],
            item_groups=strata, output_dict=True,
        )  # fmt: skip
    tail = out["item_groups"]["tail"]
    assert tail["recall@2"] == 0.0
    assert tail["recall@3"] == 0.5
    assert tail["ndcg@3"] == pytest.approx(0.5 / (1 + 1 / np.log2(3)))
    assert out["item_groups"]["head"]["recall@2"] == 1.0
    assert out["item_groups"]["head"]["ndcg@3"] == 1.0
    assert np.isnan(out["item_groups"]["torso"]["recall@2"])  # undefined


def test_coverage_counters_hand_worked():
    # 5 users; k = (2, 4): a list is short below 4 retrieved items
    y_true = [
        [1, 0, 0, 0, 0],  # 5 retrieved: full
        [0, 1, 0, 0, 0],  # 2 retrieved: short
        [1, 0, 0, 0, 0],  # nothing retrieved: empty (evaluated: relevant)
        [0, 0, 0, 0, 0],  # no relevant item: skipped; 4 retrieved
        [0, 0, 0, 0, 0],  # skipped, and empty
    ]
    inf = -np.inf
    y_score = [
        [5, 4, 3, 2, 1],
        [2, 1, inf, inf, inf],
        [inf] * 5,
        [4, 3, 2, 1, inf],
        [inf] * 5,
    ]
    groups = ["a", "a", "b", "b", "b"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = srm.ranking_report(
            y_true, y_score, k=(2, 4), metrics=["ndcg"], groups=groups,
            output_dict=True,
        )  # fmt: skip
    cov = out["coverage"]
    # short@2: 1 retrieved item only, none; short@4: 1 to 3 items, user 2
    assert cov["overall"] == {
        "n_queries": 5,
        "n_evaluated": 3,
        "n_skipped": 2,
        "n_empty": 2,
        "n_short@2": 0,
        "n_short@4": 1,
    }
    assert cov["groups"]["a"] == {
        "n_queries": 2,
        "n_evaluated": 2,
        "n_skipped": 0,
        "n_empty": 0,
        "n_short@2": 0,
        "n_short@4": 1,
    }
    assert cov["groups"]["b"] == {
        "n_queries": 3,
        "n_evaluated": 1,
        "n_skipped": 2,
        "n_empty": 2,
        "n_short@2": 0,
        "n_short@4": 0,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = srm.ranking_report(
            y_true, y_score, k=(2, 4), metrics=["ndcg"], groups=groups
        )
    lines = text.splitlines()
    head = ["queries", "evaluated", "skipped", "empty", "list", "short@2", "short@4"]
    assert any(line.split() == head for line in lines)
    row = ["overall", "5", "3", "2", "2", "0", "1"]
    assert any(line.split() == row for line in lines)
    assert any(line.split() == ["b", "3", "1", "2", "2", "0", "0"] for line in lines)


def test_coverage_text_at_k_one():
    # no list is shorter than 1 item: the text shows no short column, the
    # dict keeps n_short@1 (always 0)
    y_true = [[1, 0], [0, 1]]
    y_score = [[1.0, -np.inf], [-np.inf, -np.inf]]
    text = srm.ranking_report(y_true, y_score, k=1, metrics=["mrr"], groups=["a", "b"])
    lines = text.splitlines()
    assert any(
        line.split() == ["queries", "evaluated", "skipped", "empty", "list"]
        for line in lines
    )
    assert any(line.split() == ["overall", "2", "2", "0", "1"] for line in lines)
    assert "short@" not in text and "(every score -inf)." in text.replace("\n", " ")
    out = srm.ranking_report(
        y_true, y_score, k=1, metrics=["mrr"], groups=["a", "b"], output_dict=True
    )
    assert out["coverage"]["groups"]["b"] == {
        "n_queries": 1,
        "n_evaluated": 1,
        "n_skipped": 0,
        "n_empty": 1,
        "n_short@1": 0,
    }


def test_segment_varying_within_a_query_is_an_error():
    y = [1, 0, 1, 0]
    s = [0.5, 0.4, 0.3, 0.2]
    qid = ["u1", "u1", "u2", "u2"]
    with pytest.raises(
        ValueError, match=r"groups varies within query 'u2' \(first at row 3\)"
    ):
        srm.ranking_report(y, s, query_id=qid, groups=["a", "a", "b", "c"])
    pd = pytest.importorskip("pandas")
    pytest.importorskip("narwhals")
    df = pd.DataFrame({"q": qid, "y": y, "s": s, "seg": ["a", "b", "c", "c"]})
    with pytest.raises(
        ValueError, match=r"column 'seg' \(group_col\) varies within query 'u1'"
    ):
        srm.ranking_report(
            df, query_col="q", label_col="y", score_col="s", group_col="seg"
        )


def test_bad_segment_arguments():
    Y, S, segment, stratum, w = make_case(2)
    with pytest.raises(ValueError, match="groups must have one label per query"):
        srm.ranking_report(Y, S, groups=segment[:-1])
    with pytest.raises(
        ValueError, match=r"item_groups must have one label per item \(column\)"
    ):
        srm.ranking_report(Y, S, item_groups=stratum[:-1])
    with pytest.raises(ValueError, match="groups contains None"):
        srm.ranking_report(Y, S, groups=np.where(segment == "web", None, segment))
    with pytest.raises(ValueError, match="confidence_level must be a number in"):
        srm.ranking_report(Y, S, groups=segment, confidence_level=95)
    with pytest.raises(ValueError, match="not reported by segment"):
        srm.ranking_report(Y, S, groups=segment, metrics=["ndcg", "catalog_coverage"])
    with pytest.raises(ValueError, match="per_query=True"):
        srm.ranking_report(Y, S, item_groups=stratum, per_query=True)


def test_per_query_table_has_the_segment():
    Y, S, segment, stratum, w = make_case(3)
    out = srm.ranking_report(
        Y, S, k=3, metrics=["ndcg"], groups=segment, per_query=True, output_dict=True
    )
    assert out["group"].tolist() == segment.tolist()
    expected = srm.ranking_report(
        Y, S, k=3, metrics=["ndcg"], per_query=True, output_dict=True
    )
    assert_same(out["ndcg@3"], expected["ndcg@3"])


def test_segment_without_scorable_query_warns_and_is_nan():
    y = [[1, 0], [0, 0]]
    s = [[0.3, 0.2], [0.4, 0.1]]
    with pytest.warns(Warning, match=r"no query could be scored for: b \(ndcg@1\)"):
        out = srm.ranking_report(
            y, s, k=1, metrics=["ndcg"], groups=["a", "b"], output_dict=True
        )
    assert out["groups"]["a"]["ndcg@1"] == 1.0
    assert np.isnan(out["groups"]["b"]["ndcg@1"])


# ---------------------------------------------------------------------------
# Intervals
# ---------------------------------------------------------------------------
def test_intervals_are_compare_rankings_bootstrap_per_segment():
    # each row's interval is compare_rankings' on the row's queries (two
    # copies of the model: the same resampled queries, the same seed)
    Y, S, segment, stratum, w = make_case(4, n=60)
    kw = dict(metrics=["ndcg", "precision"], confidence_level=0.9, random_state=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = srm.ranking_report(
            Y, S, k=(3,), groups=segment, n_bootstrap=199, output_dict=True, **kw
        )
    names = ["ndcg@3", "precision@3"]
    for label in ["overall", *np.unique(segment)]:
        rows = np.ones(len(segment), bool) if label == "overall" else segment == label
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = srm.compare_rankings(
                Y[rows], {"a": S[rows], "b": S[rows]}, k=3, n_bootstrap=199,
                n_resamples=9, **kw,
            )  # fmt: skip
        if label == "overall":
            got, means = out["intervals"]["overall"], out["overall"]
        else:
            got, means = out["intervals"]["groups"][label], out["groups"][label]
        for j, n in enumerate(names):
            ci = (expected.ci_low[0, j], expected.ci_high[0, j])
            assert got[n] == pytest.approx(ci, rel=1e-12)
            assert got[n][0] <= means[n] <= got[n][1]


def test_weighted_intervals_equal_slow_bootstrap():
    Y, S, segment, stratum, w = make_case(5, n=50)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = srm.ranking_report(
            Y, S, k=3, metrics=["ndcg"], sample_weight=w, confidence_level=0.8,
            n_bootstrap=99, random_state=7, output_dict=True,
        )  # fmt: skip
        v = srm.ndcg_at_k(Y, S, k=3, average=None)
    keep = ~np.isnan(v)
    v, ww = v[keep], w[keep]

    def weighted_mean(idx):  # one resample at a time
        idx = idx.astype(int)
        return np.sum(ww[idx] * v[idx]) / np.sum(ww[idx])

    kwargs = {_scipy_rng_kwarg(scipy.stats.bootstrap): np.random.default_rng(7)}
    res = scipy.stats.bootstrap(
        (np.arange(v.shape[0], dtype=np.float64),), weighted_mean,
        n_resamples=99, vectorized=False, confidence_level=0.8,
        method="percentile", **kwargs,
    )  # fmt: skip
    low, high = out["intervals"]["overall"]["ndcg@3"]
    assert low == pytest.approx(res.confidence_interval.low, rel=1e-12)
    assert high == pytest.approx(res.confidence_interval.high, rel=1e-12)
    assert out["overall"]["ndcg@3"] == srm.ndcg_at_k(Y, S, k=3, sample_weight=w)


def test_interval_text():
    Y, S, segment, stratum, w = make_case(6)
    text = srm.ranking_report(
        Y, S, k=(1, 3), metrics=["ndcg"], groups=segment, confidence_level=0.95,
        random_state=0, n_bootstrap=99,
    )  # fmt: skip
    assert "95% bootstrap interval" in text
    first = text.splitlines()[1].split()
    assert first[:2] == ["ndcg", "overall"]
    assert first[3].startswith("[") and first[4].endswith("]")


# ---------------------------------------------------------------------------
# Popularity strata
# ---------------------------------------------------------------------------
def slow_strata(pop, head, tail):
    """The definition, item by item."""
    total = sum(pop)
    out = []
    for p_i in pop:
        above = sum(p for p in pop if p > p_i)
        at_most = sum(p for p in pop if p <= p_i)
        if above < head * total:
            out.append("head")
        elif at_most <= tail * total:
            out.append("tail")
        else:
            out.append("torso")
    return out


@settings(max_examples=200, deadline=None)
@given(
    pop=st.lists(st.integers(0, 30), min_size=1, max_size=25),
    head=st.sampled_from([0.0, 0.1, 0.2, 0.5]),
    tail=st.sampled_from([0.0, 0.2, 0.3, 0.5]),
)
def test_popularity_strata_definition(pop, head, tail):
    got = srm.popularity_strata(pop, head=head, tail=tail).tolist()
    assert got == slow_strata(pop, head, tail)
    # equal popularity, equal stratum
    for a, b in zip(pop, got, strict=True):
        assert {g for p, g in zip(pop, got, strict=True) if p == a} == {b}


def test_popularity_strata_hand_worked_and_mapping():
    # 100 interactions; the head share (20) is crossed by the first item
    # (50); the tail share (20) is reached by the items at most as
    # popular as 5: 5 + 3 + 2 + 0 = 10 <= 20, while those at most 10 hold
    # 10 + 10 + 10 = 30 > 20.
    pop = [50, 20, 10, 10, 5, 3, 2, 0]
    assert srm.popularity_strata(pop).tolist() == [
        "head", "torso", "torso", "torso", "tail", "tail", "tail", "tail",
    ]  # fmt: skip
    assert srm.popularity_strata({"x": 5, "007": 5, "7": 90}) == {
        "x": "tail", "007": "tail", "7": "head",
    }  # fmt: skip
    assert srm.popularity_strata([0, 0]).tolist() == ["tail", "tail"]
    with pytest.raises(ValueError, match="head must be a share"):
        srm.popularity_strata(pop, head=20)
    with pytest.raises(ValueError, match="head \\+ tail must be at most 1"):
        srm.popularity_strata(pop, head=0.6, tail=0.6)
    with pytest.raises(ValueError, match=">= 0"):
        srm.popularity_strata([1, -1])


# ---------------------------------------------------------------------------
# Frames
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("frame_kind", ["pandas", "polars", "pyarrow"])
def test_frame_segments_equal_array_form(frame_kind):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("narwhals")
    Y, S, segment, stratum, w = make_case(7)
    y, s, qid, seg, strat, w_rows = long_form(Y, S, segment, stratum, w, 7)
    df = pd.DataFrame(
        {"q": qid, "y": y, "s": s, "seg": seg, "stratum": strat, "w": w_rows}
    )
    if frame_kind == "polars":
        pl = pytest.importorskip("polars")
        df = pl.from_pandas(df)
    elif frame_kind == "pyarrow":
        pa = pytest.importorskip("pyarrow")
        df = pa.Table.from_pandas(df)
    kw = dict(k=(1, 3), metrics=["ndcg", "recall", "gauc"], confidence_level=0.9,
              n_bootstrap=99, random_state=0)  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = srm.ranking_report(
            df, query_col="q", label_col="y", score_col="s", weight_col="w",
            group_col="seg", item_group_col="stratum", output_dict=True, **kw,
        )  # fmt: skip
        expected = srm.ranking_report(
            y, s, query_id=qid, sample_weight=w_rows, groups=seg,
            item_groups=strat, output_dict=True, **kw,
        )  # fmt: skip
    assert_same(got, expected)
