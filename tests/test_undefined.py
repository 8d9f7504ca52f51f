"""One "undefined" rule per metric, read from the registry by every surface
(issue 27, item 2).

A metric is undefined for a query where its formula is 0/0 -- or, for the
metrics that look for relevant items, where the query has none (SPEC 2):
the count the registry's ``Kernel.defined_by`` names is 0.  Fall-out is
undefined without a non-relevant candidate and defined without a relevant
item; GAUC is undefined without a positive or a candidate negative.  The
walk below builds queries for every such case and checks that the
function, the report, the mergeable state, the comparison, Dask and the
command line skip the same queries.
"""

import json
import math
import re
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rankmetrics as srm
from sklearn_rankmetrics._metrics._kernels import UNDEFINED_WHEN
from sklearn_rankmetrics._registry import METRICS

pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.UndefinedMetricWarning"
)
K = 2
NAMES = list(METRICS)


# Queries of every undefined case: (name, grades, scores).
CASES = [
    ("mixed", [2, 0, 1, 0, 0], [0.9, 0.5, 0.5, 0.1, -np.inf]),
    ("none relevant", [0, 0, 0], [0.3, 0.2, 0.1]),
    ("all relevant", [1, 2, 1], [0.3, 0.2, 0.1]),
    ("all -inf", [1, 0, 0], [-np.inf] * 3),
    ("relevant only -inf", [1, 0, 0], [-np.inf, 0.4, 0.2]),
    ("none relevant, a pad", [0, 0], [0.5, -np.inf]),
    ("all relevant, a pad", [1, 1, 0], [0.5, 0.4, -np.inf]),
    ("007", [0, 1, 0, 3], [0.4, 0.4, 0.1, 0.2]),
    ("7", [1, 0, 0, 0], [0.1, 0.4, 0.3, 0.3]),
]


def long_form(seed=0, n_random=12):
    """The cases and random queries, rows shuffled; string ids."""
    rng = np.random.default_rng(seed)
    qid, y, s = [], [], []
    for name, grades, scores in CASES:
        qid += [name] * len(grades)
        y += grades
        s += scores
    for q in range(n_random):
        n = int(rng.integers(1, 7))
        qid += [f"r{q:02d}"] * n
        y += rng.integers(0, 3, n).tolist()
        s += np.where(rng.random(n) < 0.2, -np.inf, np.round(rng.random(n), 1)).tolist()
    order = rng.permutation(len(y))
    return np.array(y)[order], np.array(s)[order], np.array(qid, dtype=object)[order]


def expected_defined(spec, y, s, qid):
    """The registry's rule, brute force, per query in np.unique order."""
    out = []
    for q in np.unique(qid):
        rows = qid == q
        rel, cand = y[rows] > 0, s[rows] > -np.inf
        if spec.kernel is None:  # GAUC
            out.append(rel.any() and (~rel & cand).any())
            continue
        count = {
            "n_rel": rel.sum(),
            "n_pos": (y[rows] > 0).sum(),
            "n_negatives": (~rel & cand).sum(),
        }[spec.kernel.defined_by]
        out.append(count > 0)
    return np.array(out)


def call(spec, y, s, qid, **kw):
    if spec.cutoff:
        kw["k"] = K
    return spec.function(y, s, query_id=qid, **kw)


def test_every_defined_by_has_its_words():
    used = {s.kernel.defined_by for s in METRICS.values() if s.kernel is not None}
    assert used <= set(UNDEFINED_WHEN)
    assert METRICS["fallout"].kernel.defined_by == "n_negatives"


def test_fallout_issue_cases():
    # no relevant item, three non-relevant: 1 retrieved of 3 -> 1/3, under
    # every convention (trec_eval has no fall-out measure: its "0 when
    # undefined" applies to the undefined case only)
    assert srm.fallout_at_k([[0, 0, 0]], [[0.9, 0.5, 0.1]], k=1) == 1 / 3
    for convention in ("trec_eval", "sklearn", "recommenders"):
        value = srm.fallout_at_k(
            [[0, 0, 0]], [[0.9, 0.5, 0.1]], k=1, convention=convention
        )
        assert value == 1 / 3, convention
    # every item relevant: 0/0, undefined (skipped, with a warning)
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(srm.fallout_at_k([[1, 1, 1]], [[0.9, 0.5, 0.1]], k=1))
    # trec_eval's convention scores an undefined query 0 (no_relevant=0.0)
    got = srm.fallout_at_k([[1, 1, 1]], [[0.9, 0.5, 0.1]], k=1, convention="trec_eval")
    assert got == 0.0
    with pytest.raises(ValueError, match="no non-relevant candidate"):
        srm.fallout_at_k([[1, 1, 1]], [[0.9, 0.5, 0.1]], k=1, no_relevant="raise")
    # a query without a relevant item is scored, even with "raise"
    got = srm.fallout_at_k([[0, 0, 0]], [[0.9, 0.5, 0.1]], k=2, no_relevant="raise")
    assert got == 2 / 3


def test_fallout_hand_worked_candidates():
    # grades 1 0 0 0 0, scores .9 .8 .7 -inf -inf: the non-relevant
    # candidates are items 1 and 2 (the -inf items are not candidates).
    # k=2: the top 2 holds item 1 -> 1/2; k=3: items 1, 2 -> 2/2.
    y, s = [[1, 0, 0, 0, 0]], [[0.9, 0.8, 0.7, -np.inf, -np.inf]]
    assert srm.fallout_at_k(y, s, k=2) == 0.5
    assert srm.fallout_at_k(y, s, k=3) == 1.0
    # padding changes nothing: the same query without its pads
    assert srm.fallout_at_k([[1, 0, 0]], [[0.9, 0.8, 0.7]], k=2) == 0.5
    # ties (expected over orderings): .9 .5 .5 with grades 0 1 0 at k=2:
    # item 0 retrieved, then one of the tied pair: E[non-relevant] = 1.5
    # of 2 non-relevant candidates -> 0.75
    assert srm.fallout_at_k([[0, 1, 0]], [[0.9, 0.5, 0.5]], k=2) == 0.75
    # relevance_threshold: grade 1 below the bar is non-relevant
    got = srm.fallout_at_k([[2, 1, 0]], [[0.9, 0.8, 0.7]], k=2, relevance_threshold=2)
    assert got == 0.5


def test_fallout_every_form_and_the_factor_report():
    y, s, qid = long_form(1)
    expected = expected_defined(METRICS["fallout"], y, s, qid)
    long = srm.fallout_at_k(y, s, query_id=qid, k=K, average=None)
    assert_array_equal(np.isnan(long), ~expected)
    # 2-D, padded with grade 0 / -inf: the same per-query values
    ids, codes = np.unique(qid, return_inverse=True)
    width = np.bincount(codes).max() + 2
    Y = np.zeros((ids.size, width), dtype=int)
    S = np.full((ids.size, width), -np.inf)
    order = np.argsort(codes, kind="stable")
    col = np.arange(y.size) - np.searchsorted(codes[order], codes[order])
    Y[codes[order], col], S[codes[order], col] = y[order], s[order]
    for y2 in (Y, __import__("scipy.sparse").sparse.csr_matrix(Y)):
        got = srm.fallout_at_k(y2, S, k=K, average=None)
        assert_allclose(got, long, rtol=0, atol=1e-15)
    # factor report: exclude removes items from fall-out's denominator
    rng = np.random.default_rng(2)
    U, V = rng.normal(size=(30, 3)), rng.normal(size=(12, 3))
    held = (rng.random((30, 12)) < 0.2).astype(float)
    train = (rng.random((30, 12)) < 0.5) & (held == 0)
    got = srm.factor_ranking_report(
        held,
        U,
        V,
        exclude=train,
        k=K,
        metrics=["fallout"],
        per_query=True,
        output_dict=True,
    )["fallout@2"]
    users, items = np.nonzero(~train)
    want = srm.fallout_at_k(
        held[users, items],
        (U @ V.T)[users, items],
        query_id=users,
        k=K,
        average=None,
    )
    assert_allclose(got, want, rtol=0, atol=1e-15)


@pytest.mark.parametrize("name", NAMES)
def test_function_and_report_skip_the_registry_queries(name):
    spec = METRICS[name]
    y, s, qid = long_form(0)
    defined = expected_defined(spec, y, s, qid)
    assert defined.any() and not defined.all()
    values = call(spec, y, s, qid, average=None)
    assert_array_equal(np.isnan(values), ~defined, err_msg=name)
    mean = call(spec, y, s, qid)
    report = srm.ranking_report(
        y, s, query_id=qid, k=K, metrics=[name], per_query=True, output_dict=True
    )
    label = spec.label(K)
    assert_array_equal(report[label], values)
    means = srm.ranking_report(
        y, s, query_id=qid, k=K, metrics=[name], output_dict=True
    )
    assert means[label] == mean
    if spec.kernel is None:
        return  # GAUC always skips its undefined queries
    # no_relevant= applies to exactly these queries
    zero = call(spec, y, s, qid, average=None, no_relevant=0.0)
    assert_array_equal(zero[~defined], 0.0)
    assert_array_equal(zero[defined], values[defined])
    # the function and the report say what the query lacks in the same words
    lacking = re.escape(f"have {UNDEFINED_WHEN[spec.kernel.defined_by]}, so")
    with pytest.raises(ValueError, match=lacking):
        call(spec, y, s, qid, no_relevant="raise")
    with pytest.raises(ValueError, match=lacking):
        srm.ranking_report(y, s, query_id=qid, k=K, metrics=[name], no_relevant="raise")
    keep = np.isin(qid, np.unique(qid)[defined])
    call(spec, y[keep], s[keep], qid[keep], no_relevant="raise")  # no error


def test_state_compare_dask_and_cli_skip_the_same_queries(tmp_path, capsys):
    y, s, qid = long_form(3)
    names = NAMES
    top = {"max_grade": float(y.max())}  # ERR's scale, for the chunked surfaces
    want = {}
    for name in names:
        spec = METRICS[name]
        opts = top if name == "err" else {}
        want[spec.label(K)] = (
            call(spec, y, s, qid, **opts),
            expected_defined(spec, y, s, qid),
        )
    # the mergeable state, fed in chunks of whole queries
    ev = srm.RankingEvaluator(k=K, metrics=names, **top)
    ids = np.unique(qid)
    for part in np.array_split(ids, 3):
        rows = np.isin(qid, part)
        ev.update(y[rows], s[rows], query_id=qid[rows])
    got = ev.result(output_dict=True)
    for label, (mean, _) in want.items():
        assert_allclose(got[label], mean, rtol=1e-12, err_msg=label)
    # the comparison: each mean over the defined queries, weighted as the
    # report weighs them
    s2 = np.where(s > -np.inf, 1.0 - s, -np.inf)  # the same candidates
    res = srm.compare_rankings(
        y,
        {"a": s, "b": s2},
        query_id=qid,
        k=K,
        metrics=names,
        n_resamples=9,
        n_bootstrap=9,
        random_state=0,
    )
    for j, label in enumerate(res.metrics):
        mean, defined = want[label]
        assert res.n_queries[0, j] == defined.sum(), label
        assert_allclose(res.mean[0, j], mean, rtol=1e-12, err_msg=label)
    # Dask
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"q": qid.astype(str), "y": y, "s": s})
    dd = pytest.importorskip("dask.dataframe")
    import dask

    from sklearn_rankmetrics.dask import ranking_report as dask_report

    with dask.config.set(scheduler="synchronous"):
        got = dask_report(
            dd.from_pandas(frame, npartitions=3),
            query_col="q",
            label_col="y",
            score_col="s",
            k=K,
            metrics=names,
            output_dict=True,
            **top,
        )
    for label, (mean, _) in want.items():
        assert_allclose(got[label], mean, rtol=1e-12, err_msg=label)
    # the command line, one measure at a time: per-query values, null where
    # skipped
    path = tmp_path / "log.csv"
    # ids the text reader cannot take for numbers (this test is not about
    # reading ids: "007" vs "7" is the CLI's own test)
    frame.assign(q="id " + frame["q"]).to_csv(path, index=False)
    from sklearn_rankmetrics._cli import main

    for label, (mean, defined) in want.items():
        code = main(
            [
                "evaluate",
                "--long",
                str(path),
                "--query-col",
                "q",
                "--label-col",
                "y",
                "--score-col",
                "s",
                "-m",
                label,
                "--format",
                "json",
                "-q",
                "--no-compare",
            ]
        )
        out = json.loads(capsys.readouterr().out)
        assert code == 0
        queries = out["s"]["queries"]
        assert list(queries) == ["id " + q for q in ids]
        skipped = [queries["id " + q][label] is None for q in ids]
        assert_array_equal(skipped, ~defined, err_msg=label)
        assert_allclose(out["s"]["all"][label], mean, rtol=1e-12, err_msg=label)


def test_precision_denominator_and_no_candidate_at_all():
    # A query whose items are all -inf retrieves nothing: precision@k is
    # 0 / k (defined: it has a relevant item); recall 0; GAUC undefined.
    y, s = [[1, 0]], [[-np.inf, -np.inf]]
    assert srm.precision_at_k(y, s, k=2) == 0.0
    assert srm.recall_at_k(y, s, k=2) == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        assert math.isnan(srm.group_auc_score(y, s))
        assert math.isnan(srm.fallout_at_k(y, s, k=2))
