"""Convention presets (``convention=``): the registry, and each preset
against its library where it installs here (scikit-learn, trec_eval through
its own regression outputs and pytrec_eval, ranx, torchmetrics), otherwise
against worked examples that follow the cited source of the library.
"""

import inspect
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose

import sklearn_rankmetrics as srm
from sklearn_rankmetrics._utils._conventions import CONVENTIONS
from tests._reference import random_case, random_weights

RTOL = ATOL = 1e-12

PRESETS = (
    "trec_eval",
    "sklearn",
    "lightgbm",
    "xgboost",
    "ranx",
    "torchmetrics",
    "recommenders",
    "tf_ranking",
    "spark",
    "rectools",
    "recbole",
    "implicit",
    "lightfm",
)


def _close(a, b, atol=ATOL):
    assert_allclose(a, b, rtol=RTOL, atol=atol, equal_nan=True)


# ---------------------------------------------------------------------------
# Registry
# ---------------------------------------------------------------------------
def test_every_preset_is_registered():
    assert set(CONVENTIONS) == set(PRESETS)
    for preset in CONVENTIONS.values():
        assert preset.source and preset.options


def test_presets_set_only_options_that_exist():
    accepted = set()
    for name in srm.__all__:
        if name.endswith(("_at_k", "_score")) and name != "group_auc_score":
            accepted |= set(inspect.signature(getattr(srm, name)).parameters)
    for preset in CONVENTIONS.values():
        assert set(preset.options) <= accepted
        for name, options in preset.per_metric.items():
            params = inspect.signature(getattr(srm, name)).parameters
            assert set(options) <= set(params), name


def test_unknown_convention_raises():
    with pytest.raises(ValueError, match="convention must be None or one of"):
        srm.ndcg_at_k([[1, 0]], [[2, 1]], convention="trec")


def test_explicit_options_win():
    y_true, y_score = random_case(0, 10, 6, score_levels=3)
    lgb = srm.ndcg_at_k(y_true, y_score, k=3, convention="lightgbm", gain="linear")
    plain = srm.ndcg_at_k(y_true, y_score, k=3, no_relevant=1.0, ignore_ties=True)
    assert lgb == plain
    # an explicit ignore_ties replaces the preset's tie rule
    te = srm.ndcg_at_k(y_true, y_score, k=3, convention="trec_eval", ignore_ties=False)
    assert te == srm.ndcg_at_k(y_true, y_score, k=3, no_relevant=0.0)


class _FixedScores:
    """A fitted model whose decision function gives fixed 2-D scores."""

    def __init__(self, scores):
        self.scores = scores

    def fit(self, X, y):
        return self

    def decision_function(self, X):
        return self.scores[: len(X)]


def test_convention_in_scorers():
    scorer = srm.get_scorer("ndcg@3", convention="lightgbm")
    assert repr(scorer) == "get_scorer('ndcg@3', convention='lightgbm')"
    scoring = srm.make_scoring(["ndcg@3", "precision@4"], convention="tf_ranking")
    # through public behaviour: each scorer gives its function's value under
    # the preset, which differs from the default here (tf_ranking's
    # precision divides by min(k, list length); its gain is exponential)
    X = np.arange(6.0).reshape(-1, 1)
    Y = np.array([[1, 0, 2], [0, 2, 1], [1, 1, 0], [0, 0, 1], [2, 0, 0], [0, 1, 2]])
    scores = np.array([[0.9, 0.2, 0.2], [0.1, 0.8, 0.3], [0.5, 0.5, 0.5]] * 2)
    model = _FixedScores(scores).fit(X, Y)
    for name, func in (("precision@4", srm.precision_at_k), ("ndcg@3", srm.ndcg_at_k)):
        k = int(name[-1])
        got = scoring[name](model, X, Y)
        assert got == func(Y, scores, k=k, convention="tf_ranking")
        assert got != func(Y, scores, k=k)
    with pytest.raises(ValueError, match="convention must be"):
        srm.get_scorer("ndcg@3", convention="nope")


# ---------------------------------------------------------------------------
# scikit-learn
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("k", [None, 1, 3, 20])
def test_sklearn_preset_is_ndcg_score(k):
    from sklearn.metrics import dcg_score, ndcg_score

    for seed, levels in enumerate([2, 4, None]):
        y_true, y_score = random_case(seed, 15, 8, score_levels=levels, p_unretrieved=0)
        w = random_weights(seed, 15)
        _close(
            srm.ndcg_at_k(y_true, y_score, k=k, sample_weight=w, convention="sklearn"),
            ndcg_score(y_true, y_score, k=k, sample_weight=w),
        )
        _close(
            srm.dcg_at_k(y_true, y_score, k=k, sample_weight=w, convention="sklearn"),
            dcg_score(y_true, y_score, k=k, sample_weight=w),
        )


# ---------------------------------------------------------------------------
# trec_eval: its own regression data, per query and overall
# ---------------------------------------------------------------------------
def _read_qrels(path):
    qrels = {}
    for line in path.read_text().splitlines():
        qid, _, doc, grade = line.split()
        qrels.setdefault(qid, {})[doc] = int(grade)
    return qrels


def _read_run(path):
    run = {}
    for line in path.read_text().splitlines():
        qid, _, doc, _, score = line.split()[:5]  # more fields are allowed
        run.setdefault(qid, {})[doc] = float(score)
    return run


def _read_expected(path):
    out = {}
    for line in path.read_text().splitlines():
        measure, qid, value = line.split()
        try:
            out[(measure, qid)] = float(value)
        except ValueError:  # runid, relstring
            continue
    return out


def _long_form(qrels, run, all_queries, max_ret=None, judged_only=False):
    """Long-form rows in trec_eval's order (score, then docno, decreasing),
    so that ties='input_order' breaks ties as trec_eval does; the scores
    are the ranks (only the order matters).  Judged documents the run did
    not retrieve are rows with score -inf; grades below 0 are judged
    non-relevant.  ``judged_only`` leaves unjudged documents out (bpref).
    """
    y, s, q = [], [], []
    queries = sorted(qrels) if all_queries else sorted(set(qrels) & set(run))
    for qid in queries:
        ranked = sorted(run.get(qid, {}).items(), key=lambda t: (t[1], t[0]))[::-1]
        ranked = [doc for doc, _ in ranked][:max_ret]
        missing = sorted(set(qrels[qid]) - set(ranked))
        for i, doc in enumerate(ranked + missing):
            if judged_only and doc not in qrels[qid]:
                continue
            y.append(max(qrels[qid].get(doc, 0), 0))
            s.append(float(len(ranked) - i) if i < len(ranked) else -np.inf)
            q.append(qid)
    return np.array(y), np.array(s), np.array(q), queries


CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)

# out file, qrels, run, -c (every qrels query), -M, -l (relevance level)
TREC_FILES = [
    ("out.test.aq", "qrels.test", "results.test", False, None, None),
    ("out.test.aqc", "qrels.test", "results.trunc", True, None, None),
    ("out.test.aqcM", "qrels.test", "results.trunc", True, 100, None),
    ("out.test.aql", "qrels.rel_level", "results.test", False, None, 2),
]


def _our_measures(y, s, q, y_judged, s_judged, q_judged, level):
    kw = dict(query_id=q, convention="trec_eval", average=None)
    binary = dict(kw, relevance_threshold=level)
    ours = {
        "map": srm.average_precision_at_k(y, s, **binary),
        "ndcg": srm.ndcg_at_k(y, s, **kw),
        "Rprec": srm.r_precision_score(y, s, **binary),
        "recip_rank": srm.reciprocal_rank_at_k(y, s, **binary),
        "bpref": srm.bpref_score(y_judged, s_judged, **dict(binary, query_id=q_judged)),
    }
    if level is None:  # trec_eval's rbp reads gains, not the relevance level
        ours["rbp"] = srm.rank_biased_precision_at_k(y, s, **binary)
    for k in CUTS:
        ours[f"P_{k}"] = srm.precision_at_k(y, s, k=k, **binary)
        ours[f"recall_{k}"] = srm.recall_at_k(y, s, k=k, **binary)
        ours[f"map_cut_{k}"] = srm.average_precision_at_k(y, s, k=k, **binary)
        ours[f"ndcg_cut_{k}"] = srm.ndcg_at_k(y, s, k=k, **kw)
    return ours


@pytest.mark.parametrize("out, qrels, run, all_queries, max_ret, level", TREC_FILES)
def test_trec_eval_regression_files(
    out, qrels, run, all_queries, max_ret, level, trec_eval_data
):
    peer = trec_eval_data
    qrels, run = _read_qrels(peer / qrels), _read_run(peer / run)
    expected = _read_expected(peer / out)
    y, s, q, queries = _long_form(qrels, run, all_queries, max_ret)
    yj, sj, qj, _ = _long_form(qrels, run, all_queries, max_ret, judged_only=True)
    ours = _our_measures(y, s, q, yj, sj, qj, level)
    checked = 0
    for measure, values in ours.items():
        for qid, value in zip(queries, values, strict=True):
            # trec_eval prints 4 decimals
            assert abs(value - expected[(measure, qid)]) <= 5e-5 + 1e-12, (measure, qid)
            checked += 1
        assert abs(np.mean(values) - expected[(measure, "all")]) <= 5e-5 + 1e-12, (
            measure
        )
    assert checked == len(ours) * len(queries) >= 40 * 3


def test_trec_eval_measure_parameters(trec_eval_data):
    # out.test.meas_params: -m P.3,5,7 -m success.2,5,20 -m ndcg.1=3,2=9,4=4.5
    # -m ndcg_cut.10,20,23 -m recall.20,2000 on qrels.test and results.test.
    peer = trec_eval_data
    qrels, run = _read_qrels(peer / "qrels.test"), _read_run(peer / "results.test")
    expected = _read_expected(peer / "out.test.meas_params")
    y, s, q, queries = _long_form(qrels, run, all_queries=False)
    kw = dict(query_id=q, convention="trec_eval", average=None)
    ours = {f"P_{k}": srm.precision_at_k(y, s, k=k, **kw) for k in (3, 5, 7)}
    ours |= {f"success_{k}": srm.success_at_k(y, s, k=k, **kw) for k in (2, 5, 20)}
    ours |= {f"recall_{k}": srm.recall_at_k(y, s, k=k, **kw) for k in (20, 2000)}
    ours |= {f"ndcg_cut_{k}": srm.ndcg_at_k(y, s, k=k, **kw) for k in (10, 20, 23)}
    # a gain table (trec_eval's ndcg parameters); grade 3 is not in y_true
    table = {1: 3.0, 2: 9.0, 4: 4.5}
    ours["ndcg_1=3,2=9,4=4.5"] = srm.ndcg_at_k(y, s, gain=table, **kw)
    for measure, values in ours.items():
        for qid, value in zip(queries, values, strict=True):
            assert abs(value - expected[(measure, qid)]) <= 5e-5 + 1e-12, (measure, qid)
        assert abs(np.mean(values) - expected[(measure, "all")]) <= 5e-5 + 1e-12


# ---------------------------------------------------------------------------
# ranx
# ---------------------------------------------------------------------------
def _dicts(y_true, y_score):
    """qrels and run dicts of a 2-D case; the run lists documents in column
    order (ranx keeps that order among tied scores)."""
    qrels, run = {}, {}
    for i, (rel, score) in enumerate(zip(y_true, y_score, strict=True)):
        qrels[f"q{i}"] = {f"d{j}": int(g) for j, g in enumerate(rel) if g > 0}
        run[f"q{i}"] = {f"d{j}": float(x) for j, x in enumerate(score) if x > -np.inf}
    return qrels, run


def test_ranx_preset():
    ranx = pytest.importorskip("ranx")
    y_true, y_score = random_case(5, 20, 8, score_levels=3, p_no_relevant=0.0)
    y_true[3] = 0  # ranx scores a query without relevant document 0
    qrels, run = _dicts(y_true, y_score)
    qrels["q3"] = {"d0": 0}
    qrels, run = ranx.Qrels(qrels), ranx.Run(run)
    ours = {
        "precision@3": srm.precision_at_k(y_true, y_score, k=3, convention="ranx"),
        "recall@3": srm.recall_at_k(y_true, y_score, k=3, convention="ranx"),
        "map@3": srm.average_precision_at_k(y_true, y_score, k=3, convention="ranx"),
        "map": srm.average_precision_at_k(y_true, y_score, convention="ranx"),
        "mrr@3": srm.reciprocal_rank_at_k(y_true, y_score, k=3, convention="ranx"),
        "hit_rate@3": srm.hit_rate_at_k(y_true, y_score, k=3, convention="ranx"),
        "ndcg@3": srm.ndcg_at_k(y_true, y_score, k=3, convention="ranx"),
        "ndcg_burges@3": srm.ndcg_at_k(
            y_true, y_score, k=3, convention="ranx", gain="exponential"
        ),
        "r-precision": srm.r_precision_score(y_true, y_score, convention="ranx"),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = ranx.evaluate(qrels, run, list(ours), make_comparable=True)
    for name, value in ours.items():
        assert value == pytest.approx(theirs[name], rel=1e-9, abs=1e-12), name


# ---------------------------------------------------------------------------
# torchmetrics
# ---------------------------------------------------------------------------
def test_torchmetrics_preset():
    pytest.importorskip("torch")
    import torch
    from torchmetrics.functional import retrieval as tmr

    # NDCG averages ties as scikit-learn does: tied scores.  The other
    # metrics take torch's sort order among ties, which torch does not
    # specify: distinct scores.
    y_true, tied = random_case(6, 25, 7, score_levels=4, p_unretrieved=0.0)
    _, y_score = random_case(6, 25, 7, p_unretrieved=0.0)
    # torchmetrics 1.9's precision counts an item only if its score is > 0
    # (a score <= 0 means "not retrieved"; map those to -inf here).
    y_score = np.exp(y_score)
    y_bin = (y_true > 0).astype(int)
    got = srm.ndcg_at_k(y_true, tied, k=3, convention="torchmetrics", average=None)
    want = [
        float(tmr.retrieval_normalized_dcg(torch.tensor(s), torch.tensor(t), top_k=3))
        for s, t in zip(tied, y_true, strict=True)
    ]
    _close(got, want, atol=1e-6)
    checks = [
        (srm.ndcg_at_k, tmr.retrieval_normalized_dcg, y_true, {"k": 3}, {"top_k": 3}),
        (srm.precision_at_k, tmr.retrieval_precision, y_bin, {"k": 3}, {"top_k": 3}),
        (
            srm.precision_at_k,
            tmr.retrieval_precision,
            y_bin,
            {"k": 10, "precision_denominator": "retrieved"},
            {"top_k": 10, "adaptive_k": True},
        ),
        (srm.recall_at_k, tmr.retrieval_recall, y_bin, {"k": 3}, {"top_k": 3}),
        (srm.hit_rate_at_k, tmr.retrieval_hit_rate, y_bin, {"k": 3}, {"top_k": 3}),
        (
            srm.reciprocal_rank_at_k,
            tmr.retrieval_reciprocal_rank,
            y_bin,
            {"k": 3},
            {"top_k": 3},
        ),
        (
            srm.average_precision_at_k,
            tmr.retrieval_average_precision,
            y_bin,
            {"k": 3},
            {"top_k": 3},
        ),
    ]
    for ours, theirs, target, our_kw, their_kw in checks:
        got = ours(target, y_score, convention="torchmetrics", average=None, **our_kw)
        want = [
            float(theirs(torch.tensor(s), torch.tensor(t), **their_kw))
            for s, t in zip(y_score, target, strict=True)
        ]
        _close(got, want, atol=1e-6)  # torchmetrics computes in float32


def test_torchmetrics_preset_gauc_is_retrieval_auroc():
    """GAUC under the preset is ``RetrievalAUROC``: per query, and the
    unweighted mean over queries with ``empty_target_action="skip"`` once
    every query has a negative (torchmetrics scores an all-positive query
    0; GAUC leaves it out, as for a query without positive)."""
    pytest.importorskip("torch")
    import torch
    from torchmetrics.functional.retrieval import retrieval_auroc
    from torchmetrics.retrieval import RetrievalAUROC

    y_true, _ = random_case(3, 9, 20, p_unretrieved=0.0)
    _, y_score = random_case(4, 9, 20, p_unretrieved=0.0, score_levels=4)
    y_bin = (y_true > 0).astype(int)
    y_bin[:, -1] = 0  # every query has a negative
    y_bin[1] = 0  # and one has no positive
    per_query = srm.group_auc_score(
        y_bin, y_score, convention="torchmetrics", average=None
    )
    both = y_bin.any(axis=1)
    want = [
        float(retrieval_auroc(torch.tensor(s), torch.tensor(t)))
        for s, t in zip(y_score[both], y_bin[both], strict=True)
    ]
    _close(per_query[both], want, atol=1e-6)
    assert np.isnan(per_query[~both]).all()
    n_queries, n_items = y_bin.shape
    metric = RetrievalAUROC(empty_target_action="skip")
    theirs = float(
        metric(
            torch.tensor(y_score.ravel()),
            torch.tensor(y_bin.ravel()),
            indexes=torch.tensor(np.repeat(np.arange(n_queries), n_items)),
        )
    )
    ours = srm.group_auc_score(y_bin, y_score, convention="torchmetrics")
    assert ours == pytest.approx(theirs, abs=1e-6)
    # weighting the queries by their clicks is not torchmetrics' mean
    clicks = srm.group_auc_score(y_bin, y_score, query_weighting="clicks")
    assert clicks != pytest.approx(theirs, abs=1e-6)


# ---------------------------------------------------------------------------
# Libraries not installed here: worked examples following the cited source
# ---------------------------------------------------------------------------
Y = [[0, 2, 1, 0, 0], [0, 0, 0, 0, 0]]  # query 2 has no relevant item
S = [[0.9, 0.8, 0.8, 0.5, -np.inf], [0.4, 0.3, 0.2, 0.1, 0.0]]


def test_lightgbm_preset_worked_example():
    # rank_metric.hpp: a query without relevant item scores 1; the gain
    # 2**label - 1; a stable sort by score (tied items in row order, as
    # LightGBM's printed ndcg@k and map@k show in tests/test_ltr.py);
    # map_metric.hpp: sum of P@i over min(relevant, k).
    # Query 1: ranks 2-3 hold grades 2 then 1 (column order).
    d2, d3 = 1 / np.log2(3), 1 / np.log2(4)
    dcg = 3 * d2 + 1 * d3
    ndcg = dcg / (3 + 1 * d2)
    value = srm.ndcg_at_k(Y, S, k=3, convention="lightgbm", average=None)
    _close(value, [ndcg, 1.0])
    ap = (1 / 2 + 2 / 3) / 2  # both relevant items at ranks 2 and 3
    _close(srm.average_precision_at_k(Y, S, k=3, convention="lightgbm"), (ap + 1) / 2)


def test_xgboost_preset_worked_example():
    # rank_metric.cc EvalNDCG: stable sort (column order among ties), gain
    # 2**rel - 1, 1 for a query without relevant item; EvalMAP divides by
    # the query's relevant count.
    d2, d3 = 1 / np.log2(3), 1 / np.log2(4)
    ndcg = (3 * d2 + 1 * d3) / (3 + 1 * d2)
    value = srm.ndcg_at_k(Y, S, k=3, convention="xgboost", average=None)
    _close(value, [ndcg, 1.0])
    _close(srm.average_precision_at_k(Y, S, k=2, convention="xgboost"), (0.25 + 1) / 2)


def test_recommenders_preset_worked_example():
    # python_evaluation.py: users with a relevant item only; P@k over k,
    # MAP@k over the user's relevant count, first rows win ties.
    assert srm.precision_at_k(Y, S, k=4, convention="recommenders") == 2 / 4
    ap = (1 / 2 + 2 / 3) / 2
    assert srm.average_precision_at_k(Y, S, k=2, convention="recommenders") == 0.25
    assert srm.average_precision_at_k(Y, S, convention="recommenders") == ap


def test_tf_ranking_preset_worked_example():
    # PrecisionMetric: hits over min(k, list size); 4 items are ranked
    # (-inf is padding); empty lists count 0 in the mean.
    value = srm.precision_at_k(Y, S, k=10, convention="tf_ranking", average=None)
    _close(value, [2 / 4, 0.0])


def test_spark_preset_worked_example():
    # RankingMetrics: precisionAt(k) over k, meanAveragePrecisionAt(k) over
    # min(|labels|, k), a query with empty labels scores 0.
    value = srm.average_precision_at_k(Y, S, k=2, convention="spark", average=None)
    _close(value, [(1 / 2) / 2, 0.0])
    value = srm.precision_at_k(Y, S, k=10, convention="spark", average=None)
    _close(value, [2 / 10, 0.0])


def test_threshold_ties_are_sklearns_average_precision():
    from sklearn.metrics import (
        average_precision_score,
        label_ranking_average_precision_score,
    )

    rng = np.random.default_rng(0)
    for levels in (2, 3, None):
        y_true = (rng.random((30, 7)) < 0.4).astype(int)
        y_true[y_true.sum(axis=1) == 0, 0] = 1
        if levels is None:
            y_score = rng.normal(size=(30, 7))
        else:
            y_score = rng.integers(0, levels, size=(30, 7)).astype(float)
        ours = srm.average_precision_at_k(
            y_true, y_score, ties="threshold", average=None
        )
        want = [
            average_precision_score(t, s) for t, s in zip(y_true, y_score, strict=True)
        ]
        _close(ours, want)
        w = random_weights(levels or 0, 30)
        _close(
            srm.average_precision_at_k(
                y_true, y_score, ties="threshold", sample_weight=w
            ),
            label_ranking_average_precision_score(y_true, y_score, sample_weight=w),
        )
        n, m = y_true.shape
        r, c = np.divmod(np.random.default_rng(1).permutation(n * m), m)
        long = srm.average_precision_at_k(
            y_true[r, c], y_score[r, c], query_id=r, ties="threshold", average=None
        )
        _close(long, ours)
    with pytest.raises(ValueError, match="with k=None and ignore_ties=False"):
        srm.average_precision_at_k([[1, 0]], [[1, 1]], k=1, ties="threshold")
    with pytest.raises(ValueError, match="ties must be one of"):
        srm.ndcg_at_k([[1, 0]], [[1, 1]], ties="threshold")


# ---------------------------------------------------------------------------
# trec_eval against pytrec_eval, through TREC files, on hard cases
# ---------------------------------------------------------------------------
def test_trec_eval_preset_keeps_queries_without_relevant_documents(tmp_path):
    """Issue 18: trec_eval scores a judged query without relevant document
    0 and keeps it in the mean."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("3 0 d416 0\n4 0 d512 2\n")
    run.write_text("3 Q0 d693 1 0.6 t\n4 Q0 d512 1 1.3 t\n")
    y, s, q = srm.trec_to_long_form(qrels, run)
    # by hand: P_3 is 0 for query 3, 1/3 for query 4
    got = srm.precision_at_k(y, s, query_id=q, k=3, convention="trec_eval")
    assert got == pytest.approx(1 / 6, rel=0, abs=1e-15)
    pytrec_eval = pytest.importorskip("pytrec_eval")
    res = pytrec_eval.RelevanceEvaluator(
        {"3": {"d416": 0}, "4": {"d512": 2}}, {"P.3"}
    ).evaluate({"3": {"d693": 0.6}, "4": {"d512": 1.3}})
    assert got == pytest.approx(np.mean([r["P_3"] for r in res.values()]), abs=1e-15)


def _random_trec_files(seed, tmp_path):
    """Random qrels and run with the hard cases: queries only in the qrels or
    only in the run, judged queries without relevant document, unjudged
    retrieved documents, judged documents not retrieved (-inf in the long
    form), tied scores, negative and graded judgments."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for i in range(30):
        qid = f"q{i:02d}"
        docs = [
            f"d{j:03d}" for j in rng.choice(60, size=rng.integers(1, 25), replace=False)
        ]
        kind = rng.random()
        if kind > 0.1:  # judged (else: a query only in the run)
            judged = [d for d in docs if rng.random() < 0.7] or docs[:1]
            grades = rng.choice([-1, 0, 0, 0, 1, 2, 3], size=len(judged))
            if rng.random() < 0.2:
                grades = np.minimum(grades, 0)  # no relevant document
            qrels[qid] = {d: int(g) for d, g in zip(judged, grades, strict=True)}
            qrels[qid][f"x{i}"] = int(rng.integers(0, 3))  # never retrieved
        if kind < 0.9:  # retrieved (else: a query only in the qrels)
            scores = rng.integers(0, 5, size=len(docs)).astype(float)
            # a document scored -inf in our long form is not retrieved: the
            # run leaves it out (a run *line* scored -inf is trec_eval's
            # retrieved document, read by trec_to_long_form: issue 18, 3.)
            scores[rng.random(len(docs)) < 0.1] = -np.inf
            run[qid] = {
                d: float(v) for d, v in zip(docs, scores, strict=True) if v > -np.inf
            } or {docs[0]: 0.0}
    qpath, rpath = tmp_path / f"qrels{seed}", tmp_path / f"run{seed}"
    qpath.write_text(
        "".join(
            f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()
        )
    )
    rpath.write_text(
        "".join(
            f"{q} Q0 {d} {r} {v!r} t\n"
            for q, docs in run.items()
            for r, (d, v) in enumerate(docs.items())
        )
    )
    return qrels, run, qpath, rpath


TREC_MEASURES = {
    "P_5": (srm.precision_at_k, {"k": 5}),
    "recall_10": (srm.recall_at_k, {"k": 10}),
    "map": (srm.average_precision_at_k, {}),
    "map_cut_10": (srm.average_precision_at_k, {"k": 10}),
    "ndcg": (srm.ndcg_at_k, {}),
    "ndcg_cut_5": (srm.ndcg_at_k, {"k": 5}),
    "recip_rank": (srm.reciprocal_rank_at_k, {}),
    "Rprec": (srm.r_precision_score, {}),
    "success_5": (srm.success_at_k, {"k": 5}),
}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_trec_eval_preset_matches_pytrec_eval_on_hard_files(seed, tmp_path):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run, qpath, rpath = _random_trec_files(seed, tmp_path)
    measures = {"P.5", "recall.10", "map", "map_cut.10", "ndcg", "ndcg_cut.5",
                "recip_rank", "Rprec", "success.5"}  # fmt: skip
    theirs = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    y, s, q = srm.trec_to_long_form(qpath, rpath)
    queries = sorted(theirs)
    assert list(np.unique(q)) == queries
    no_relevant = [qid for qid in queries if max(qrels[qid].values()) <= 0]
    assert no_relevant  # the case of issue 18 is present
    for name, (func, kw) in TREC_MEASURES.items():
        want = np.array([theirs[qid][name] for qid in queries])
        ours = func(y, s, query_id=q, convention="trec_eval", average=None, **kw)
        _close(ours, want)
        mean = func(y, s, query_id=q, convention="trec_eval", **kw)
        assert mean == pytest.approx(want.mean(), rel=RTOL, abs=ATOL), name


# ---------------------------------------------------------------------------
# Every metric function takes every convention
# ---------------------------------------------------------------------------
def _metric_functions():
    names = []
    for name in srm.__all__:
        func = getattr(srm, name)
        if not callable(func) or isinstance(func, type):
            continue
        params = inspect.signature(func).parameters
        if name.endswith(("_at_k", "_score")) and "y_score" in params:
            names.append(name)
    return names


def test_every_metric_function_is_walked():
    names = _metric_functions()
    assert {"f1_at_k", "group_auc_score", "bpref_score", "ndcg_at_k"} <= set(names)
    assert len(names) >= 17


@pytest.mark.parametrize("convention", PRESETS)
@pytest.mark.parametrize("name", _metric_functions())
def test_every_metric_takes_every_convention(name, convention):
    func = getattr(srm, name)
    assert "convention" in inspect.signature(func).parameters
    y_true, y_score = random_case(7, 12, 6, score_levels=3)
    accepted = set(inspect.signature(func).parameters)
    preset = CONVENTIONS[convention]
    expected = preset.options | preset.per_metric.get(name, {})
    explicit = {key: v for key, v in expected.items() if key in accepted}
    extra = {"average": None} if "average" in accepted else {}
    params = inspect.signature(func).parameters
    if (
        "propensity" in accepted
        and params["propensity"].default is params["propensity"].empty
    ):  # the ips_* estimators require it (it is optional elsewhere)
        extra["propensity"] = np.full(np.shape(y_score), 0.5)
        extra["k"] = 3
    n_items = np.shape(y_score)[1]
    if "item_popularity" in accepted:  # beyond-accuracy metrics
        # a training matrix (every preset's share= reads one), every item
        # seen, one user without interaction (RecTools counts the others)
        train = np.random.default_rng(1).random((5, n_items)) < 0.5
        train[0] = True
        train[-1] = False
        extra["item_popularity"] = train
    if "item_features" in accepted:
        extra["item_features"] = np.random.default_rng(0).random((n_items, 3))
    k = inspect.signature(func).parameters.get("k")
    if extra.get("k", None if k is None else k.default) is None:
        # the whole ranked list: the preset's rules for that case apply
        expected |= preset.whole_list.get(name, {})
        explicit = {key: v for key, v in expected.items() if key in accepted}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined metrics warn
        got = func(y_true, y_score, convention=convention, **extra)
        # the preset is the options it lists, given explicitly
        want = func(y_true, y_score, **extra, **explicit)
    _close(got, want)
    assert np.all(np.isnan(got) | np.isfinite(got))


# ---------------------------------------------------------------------------
# The sklearn preset on average_precision_at_k, torchmetrics' GAUC
# ---------------------------------------------------------------------------
def test_sklearn_preset_is_average_precision_score():
    from sklearn.metrics import average_precision_score

    assert srm.average_precision_at_k([[1, 0]], [[0.5, 0.5]], convention="sklearn") == (
        pytest.approx(average_precision_score([1, 0], [0.5, 0.5]), abs=1e-15)
    )
    rng = np.random.default_rng(5)
    y_true = rng.integers(0, 3, size=(40, 9))
    y_true[y_true.sum(axis=1) == 0, 2] = 1
    y_score = rng.integers(0, 3, size=(40, 9)).astype(float)  # many ties
    ours = srm.average_precision_at_k(
        y_true, y_score, convention="sklearn", average=None
    )
    want = [
        average_precision_score(t > 0, s) for t, s in zip(y_true, y_score, strict=True)
    ]
    _close(ours, want)
    assert srm.average_precision_at_k(
        y_true, y_score, convention="sklearn"
    ) == pytest.approx(np.mean(want), rel=RTOL)


def _retrieval_auroc_reference(y_true, y_score, query_id):
    """torchmetrics.retrieval.RetrievalAUROC as documented: the binary ROC
    AUC of each query's predictions, averaged over the queries with equal
    weight; with empty_target_action="skip" the queries without positive
    are left out (and those without negative have no AUC)."""
    from sklearn.metrics import roc_auc_score

    values = []
    for q in np.unique(query_id):
        rows = query_id == q
        t, s = y_true[rows] > 0, y_score[rows]
        if t.all() or not t.any():
            continue
        values.append(roc_auc_score(t, s))
    return np.mean(values)


def test_torchmetrics_preset_group_auc_is_retrieval_auroc():
    rng = np.random.default_rng(6)
    n = 500
    qid = rng.integers(0, 40, n)
    y = (rng.random(n) < 0.3).astype(int)
    s = np.round(rng.random(n), 1)  # ties
    got = srm.group_auc_score(y, s, query_id=qid, convention="torchmetrics")
    assert got == pytest.approx(_retrieval_auroc_reference(y, s, qid), rel=1e-12)
    # the impressions weighting (the default) differs here: the test can fail
    assert srm.group_auc_score(y, s, query_id=qid) != pytest.approx(got, rel=1e-6)


# ---------------------------------------------------------------------------
# Graded RBP: rbp_gain, against a brute force over tie orderings, ranx and
# the trec_eval binary
# ---------------------------------------------------------------------------
def _rbp_reference(rel, score, *, k, p, rule):
    """RBP of one query, averaged over every ordering of its tied items."""
    from tests._reference import tie_orderings

    top = max(rel)
    values = []
    for order in tie_orderings(tuple(score), k):
        ranked = [c for c in order if score[c] > -np.inf][:k]
        total = 0.0
        for i, c in enumerate(ranked):
            g = rel[c]
            if rule == "binary":
                g = float(g > 0)
            elif rule == "max_normalized":
                g = g / top if top > 0 else 0.0
            total += (1 - p) * p**i * g
        values.append(total)
    return float(np.mean(values))


@pytest.mark.parametrize("rule", ["binary", "max_normalized", "raw"])
@pytest.mark.parametrize("k", [None, 3])
def test_rbp_gain_matches_brute_force(rule, k):
    y_true, y_score = random_case(11, 25, 6, score_levels=3)
    w = random_weights(11, 25)
    got = srm.rank_biased_precision_at_k(
        y_true, y_score, k=k, persistence=0.7, rbp_gain=rule, average=None,
        no_relevant=0.0,
    )  # fmt: skip
    want = [
        _rbp_reference(list(r), list(s), k=k, p=0.7, rule=rule)
        for r, s in zip(y_true, y_score, strict=True)
    ]
    _close(got, want)
    mean = srm.rank_biased_precision_at_k(
        y_true, y_score, k=k, persistence=0.7, rbp_gain=rule, sample_weight=w
    )
    keep = (y_true > 0).any(axis=1) & (w > 0)
    assert mean == pytest.approx(
        np.average(np.array(want)[keep], weights=w[keep]), rel=1e-12
    )
    # the long form, shuffled, gives the same values
    n, m = y_true.shape
    r, c = np.divmod(np.random.default_rng(2).permutation(n * m), m)
    keep_rows = y_score[r, c] > -np.inf
    long = srm.rank_biased_precision_at_k(
        y_true[r, c][keep_rows], y_score[r, c][keep_rows], query_id=r[keep_rows],
        k=k, persistence=0.7, rbp_gain=rule, average=None, no_relevant=0.0,
    )  # fmt: skip
    assert long.shape == (n,)  # every query keeps a retrieved row here
    if rule != "max_normalized":  # the top grade may be an unretrieved row
        _close(long, want)


def test_rbp_gain_refuses_other_gains():
    with pytest.raises(ValueError, match="rbp_gain must be one of"):
        srm.rank_biased_precision_at_k([[1, 0]], [[2, 1]], rbp_gain="graded")


def test_ranx_preset_rbp_is_graded():
    ranx = pytest.importorskip("ranx")
    y_true, y_score = random_case(8, 20, 8, score_levels=3, p_no_relevant=0.0)
    y_true[3] = 0
    qrels, run = _dicts(y_true, y_score)
    qrels["q3"] = {"d0": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = ranx.evaluate(
            ranx.Qrels(qrels), ranx.Run(run), ["rbp.8"], return_mean=False
        )
    ours = srm.rank_biased_precision_at_k(
        y_true, y_score, persistence=0.8, convention="ranx", average=None
    )
    assert (y_true > 1).any()  # graded: binary RBP would differ
    order = sorted(range(len(y_true)), key=lambda i: f"q{i}")  # ranx's order
    _close(ours[order], theirs)


@pytest.fixture(scope="session")
def trec_eval_binary(tmp_path_factory, peer_data):
    """trec_eval built once per session from ../shared/peer-data."""
    import shutil
    import subprocess

    src = peer_data("trec_eval_src")
    if shutil.which("make") is None or shutil.which("cc") is None:
        pytest.skip("no C compiler to build trec_eval")
    build = tmp_path_factory.mktemp("trec_eval") / "src"
    shutil.copytree(src, build)
    done = subprocess.run(["make", "-C", str(build)], capture_output=True, text=True)
    if done.returncode != 0 or not (build / "trec_eval").exists():
        pytest.skip(f"trec_eval did not build: {done.stderr[-300:]}")
    return build / "trec_eval"


def _run_trec_eval(binary, qpath, rpath, measure):
    import subprocess

    out = subprocess.run(
        [str(binary), "-q", "-c", "-m", measure, str(qpath), str(rpath)],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    values = {}
    for line in out.splitlines():
        _, qid, value = line.split()
        values[qid] = float(value)
    return values


@pytest.mark.parametrize("seed", [0, 1])
def test_trec_eval_preset_matches_the_trec_eval_binary(
    seed, tmp_path, trec_eval_binary
):
    """The C binary itself: graded rbp (trec_eval 10: grade / the query's top
    grade), P, map and ndcg, on files with every hard case."""
    qrels, run, qpath, rpath = _random_trec_files(seed, tmp_path)
    # this trec_eval exits on a qrels query missing from the run unless -c
    # (every qrels query: those missing score 0): all_queries=True
    y, s, q = srm.trec_to_long_form(qpath, rpath, all_queries=True)
    queries = list(np.unique(q))
    pairs = [
        ("rbp.p=0.5", srm.rank_biased_precision_at_k, {"persistence": 0.5}),
        ("rbp", srm.rank_biased_precision_at_k, {}),
        ("P.5", srm.precision_at_k, {"k": 5}),
        ("map", srm.average_precision_at_k, {}),
        ("ndcg", srm.ndcg_at_k, {}),
    ]
    for measure, func, kw in pairs:
        theirs = _run_trec_eval(trec_eval_binary, qpath, rpath, measure)
        assert sorted(k for k in theirs if k != "all") == queries
        ours = func(y, s, query_id=q, convention="trec_eval", average=None, **kw)
        want = [theirs[qid] for qid in queries]
        # trec_eval prints 4 decimals
        assert_allclose(ours, want, rtol=0, atol=5e-5 + 1e-12, err_msg=measure)
        mean = func(y, s, query_id=q, convention="trec_eval", **kw)
        assert abs(mean - theirs["all"]) <= 5e-5 + 1e-12, measure
