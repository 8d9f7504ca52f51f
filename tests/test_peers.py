"""Agreement with scikit-learn's ndcg_score/dcg_score and with trec_eval.

Conventions of the peers (checked here, see also SPEC section 5):

* ``sklearn.metrics.ndcg_score`` scores a row without relevant items as 0 and
  keeps it (our ``no_relevant=0.0``); ``dcg_score`` likewise keeps such rows
  (their DCG is 0).  With ``ignore_ties=True`` sklearn ranks later columns
  first among ties (``argsort(...)[:, ::-1]``), we rank earlier columns
  first, so ``ignore_ties=True`` is compared on tie-free scores only.  Both
  accept only finite scores, so ``-inf`` is not used with sklearn.
* trec_eval (through ``pytrec_eval``) ranks a run by decreasing score and
  breaks ties by decreasing docid; unretrieved documents are simply absent
  from the run.  A judged query without relevant documents gets 0 for every
  measure here (our ``no_relevant=0.0``); a query absent from the run is not
  evaluated.  ``P_k`` divides by k, ``recall_k`` and ``map_cut_k`` by the
  number of relevant documents, ``ndcg_cut_k`` uses gain = grade and
  log2(rank + 1), ``recip_rank`` has no cut-off.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.metrics import dcg_score, ndcg_score

import sklearn_rankmetrics as srm
from tests._reference import random_case, random_weights

RTOL = ATOL = 1e-12


# ---------------------------------------------------------------------------
# scikit-learn
# ---------------------------------------------------------------------------
def _sklearn_cases(ties):
    cases = []
    for seed, (n_queries, n_items) in enumerate([(20, 2), (15, 6), (10, 12), (5, 40)]):
        levels = max(2, n_items // 2) if ties else None
        y_true, y_score = random_case(
            200 + seed, n_queries, n_items, score_levels=levels, p_unretrieved=0.0
        )
        cases.append((y_true, y_score, random_weights(seed, n_queries)))
    # graded float relevance
    y_true, y_score = random_case(
        299, 10, 8, score_levels=4 if ties else None, p_unretrieved=0.0,
        float_grades=True,
    )  # fmt: skip
    cases.append((y_true, y_score, random_weights(299, 10)))
    return cases


K_VALUES = [None, 1, 2, 5, 50]


@pytest.mark.parametrize("use_weights", [False, True])
@pytest.mark.parametrize("k", K_VALUES)
def test_ndcg_matches_sklearn_with_ties(k, use_weights):
    for y_true, y_score, w in _sklearn_cases(ties=True):
        w = w if use_weights else None
        ours = srm.ndcg_at_k(y_true, y_score, k=k, no_relevant=0.0, sample_weight=w)
        theirs = ndcg_score(y_true, y_score, k=k, sample_weight=w)
        assert ours == pytest.approx(theirs, rel=RTOL, abs=ATOL)


@pytest.mark.parametrize("use_weights", [False, True])
@pytest.mark.parametrize("log_base", [2, 10, 1.5])
@pytest.mark.parametrize("k", K_VALUES)
def test_dcg_matches_sklearn_with_ties(k, log_base, use_weights):
    for y_true, y_score, w in _sklearn_cases(ties=True):
        w = w if use_weights else None
        ours = srm.dcg_at_k(
            y_true, y_score, k=k, log_base=log_base, no_relevant=0.0, sample_weight=w
        )
        theirs = dcg_score(y_true, y_score, k=k, log_base=log_base, sample_weight=w)
        assert ours == pytest.approx(theirs, rel=RTOL, abs=ATOL)


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("k", K_VALUES)
def test_ndcg_and_dcg_match_sklearn_without_ties(k, ignore_ties):
    for y_true, y_score, _ in _sklearn_cases(ties=False):
        kw = dict(k=k, ignore_ties=ignore_ties)
        ours = srm.ndcg_at_k(y_true, y_score, no_relevant=0.0, **kw)
        assert ours == pytest.approx(ndcg_score(y_true, y_score, **kw), rel=RTOL)
        ours = srm.dcg_at_k(y_true, y_score, no_relevant=0.0, **kw)
        assert ours == pytest.approx(dcg_score(y_true, y_score, **kw), rel=RTOL)


def test_per_query_ndcg_matches_sklearn():
    # sklearn has no per-row output: score each row alone.
    for y_true, y_score, _ in _sklearn_cases(ties=True):
        ours = srm.ndcg_at_k(y_true, y_score, k=3, average=None, no_relevant=0.0)
        theirs = [
            ndcg_score(y_true[i : i + 1], y_score[i : i + 1], k=3)
            for i in range(y_true.shape[0])
        ]
        assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL)


def test_skip_differs_from_sklearn_only_by_the_empty_rows():
    y_true, y_score, _ = _sklearn_cases(ties=True)[1]
    empty = ~(y_true > 0).any(axis=1)
    assert empty.any() and not empty.all()
    ours = srm.ndcg_at_k(y_true, y_score, k=3)  # no_relevant="skip"
    theirs = ndcg_score(y_true[~empty], y_score[~empty], k=3)
    assert ours == pytest.approx(theirs, rel=RTOL)


# ---------------------------------------------------------------------------
# trec_eval
# ---------------------------------------------------------------------------
def _docid(col):
    return f"d{col:03d}"


def _trec_case(seed, n_queries=25, n_items=15, ties=False):
    """Graded judgments of every item; a run of the retrieved items.

    Scores are distinct (a permutation) unless ``ties``; about a quarter of
    the items are not retrieved (-inf, absent from the run), relevant ones
    included.  Every query retrieves at least one item (trec_eval does not
    evaluate a query missing from the run).
    """
    rng = np.random.default_rng(seed)
    y_true, _ = random_case(seed, n_queries, n_items, p_unretrieved=0.0)
    y_score = np.empty((n_queries, n_items))
    for q in range(n_queries):
        if ties:
            y_score[q] = rng.integers(0, 4, size=n_items)
        else:
            y_score[q] = rng.permutation(n_items) + rng.random()
    unretrieved = rng.random((n_queries, n_items)) < 0.25
    unretrieved[:, 0] = False
    y_score[unretrieved] = -np.inf
    qrel, run = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        qrel[qid] = {_docid(c): int(y_true[q, c]) for c in range(n_items)}
        run[qid] = {
            _docid(c): float(y_score[q, c])
            for c in range(n_items)
            if y_score[q, c] > -np.inf
        }
    return y_true, y_score, qrel, run


def _trec(qrel, run, measures):
    # only the trec_eval comparisons need pytrec_eval: skip those alone
    pytrec_eval = pytest.importorskip("pytrec_eval")
    return pytrec_eval.RelevanceEvaluator(qrel, set(measures)).evaluate(run)


TREC_K = [1, 3, 5, 10, 20]  # 20 > n_items: P_20 still divides by 20


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_trec_eval_cases_are_interesting(seed):
    y_true, y_score, _, _ = _trec_case(seed)
    assert ((y_true > 0) & (y_score == -np.inf)).any()  # unretrieved relevant
    assert (~(y_true > 0).any(axis=1)).any()  # a query without relevant items
    assert (y_true > 1).any()  # graded


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(
    "trec_name, func, kwargs",
    [
        ("P_{k}", srm.precision_at_k, {}),
        ("recall_{k}", srm.recall_at_k, {}),
        ("map_cut_{k}", srm.average_precision_at_k, {"ap_denominator": "relevant"}),
        ("ndcg_cut_{k}", srm.ndcg_at_k, {"gain": "linear"}),
    ],
)
def test_matches_trec_eval_cut_measures(trec_name, func, kwargs, seed):
    y_true, y_score, qrel, run = _trec_case(seed)
    base = trec_name.split("_{")[0]
    measure = base + "." + ",".join(str(k) for k in TREC_K)
    results = _trec(qrel, run, [measure])
    for k in TREC_K:
        key = trec_name.format(k=k)
        theirs = np.array([results[f"q{q}"][key] for q in range(y_true.shape[0])])
        ours = func(y_true, y_score, k=k, no_relevant=0.0, average=None, **kwargs)
        assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL, err_msg=key)
        # trec_eval's mean over the judged queries of the run
        mean = func(y_true, y_score, k=k, no_relevant=0.0, **kwargs)
        assert mean == pytest.approx(theirs.mean(), rel=RTOL, abs=ATOL)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_trec_eval_recip_rank(seed):
    y_true, y_score, qrel, run = _trec_case(seed)
    results = _trec(qrel, run, ["recip_rank"])
    theirs = np.array([results[f"q{q}"]["recip_rank"] for q in range(len(y_true))])
    # recip_rank has no cut-off: compare with k=None.
    ours = srm.reciprocal_rank_at_k(y_true, y_score, no_relevant=0.0, average=None)
    assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL)
    # Skipping the queries without relevant items is the mean of the rest.
    defined = (y_true > 0).any(axis=1)
    skip = srm.reciprocal_rank_at_k(y_true, y_score)
    assert skip == pytest.approx(theirs[defined].mean(), rel=RTOL)


@pytest.mark.parametrize("seed", [3, 4])
def test_trec_eval_ties_are_broken_by_decreasing_docid(seed):
    # trec_eval orders tied documents by decreasing docid.  Naming the
    # columns so that docids decrease with the column makes its order
    # "earlier column first", which is our ignore_ties=True.
    y_true, y_score, _, _ = _trec_case(seed, ties=True)
    n_queries, n_items = y_true.shape
    qrel = {
        f"q{q}": {_docid(n_items - c): int(y_true[q, c]) for c in range(n_items)}
        for q in range(n_queries)
    }
    run = {
        f"q{q}": {
            _docid(n_items - c): float(y_score[q, c])
            for c in range(n_items)
            if y_score[q, c] > -np.inf
        }
        for q in range(n_queries)
    }
    results = _trec(qrel, run, ["P.3", "map_cut.5", "ndcg_cut.5", "recip_rank"])
    pairs = [
        ("P_3", srm.precision_at_k, 3),
        ("map_cut_5", srm.average_precision_at_k, 5),
        ("ndcg_cut_5", srm.ndcg_at_k, 5),
        ("recip_rank", srm.reciprocal_rank_at_k, None),
    ]
    for key, func, k in pairs:
        theirs = [results[f"q{q}"][key] for q in range(n_queries)]
        ours = func(
            y_true, y_score, k=k, ignore_ties=True, no_relevant=0.0, average=None
        )
        assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL, err_msg=key)
