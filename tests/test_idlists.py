"""ranked_lists_to_arrays: ranked id lists and relevant ids to 2-D arrays."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

import sklearn_rankmetrics as srm
from sklearn_rankmetrics import ranked_lists_to_arrays

# Seed note 001: three users, top-5 recommendations, liked items.
R = [[2, 5, 1, 3, 9], [6, 2, 0, 12, 8], [1, 6, 7, 11, 2]]
T = [[3, 10, 7, 21], [15, 0, 5, 2, 13], [19]]

# The seed's values, by hand:
#   hits@5 per user = 1 (item 3), 2 (items 2, 0), 0        -> P@5 = 3/15 = 0.2
#   R@5 = mean(1/4, 2/5, 0/1) = 0.216667; micro 3 / 10 = 0.3
#   F1@5 micro = 2 * 0.2 * 0.3 / 0.5 = 0.24; HR@5 = 2/3
#   RR = 1/4, 1/2, 0 -> MRR@5 = 0.25
#   AP@5 = (1/4)/4, (1/2 + 2/3)/5, 0 -> mean 0.098611
#   NDCG@5 = (1/log2(5)) / IDCG4, (1/log2(3) + 1/log2(4)) / IDCG5, 0
SEED_VALUES = [
    (srm.precision_at_k, {}, 0.2),
    (srm.recall_at_k, {}, 0.216667),
    (srm.recall_at_k, {"average": "micro"}, 0.3),
    (srm.precision_at_k, {"average": "micro"}, 0.2),
    (srm.f1_at_k, {"average": "micro"}, 0.24),
    (srm.hit_rate_at_k, {}, 0.666667),
    (srm.reciprocal_rank_at_k, {}, 0.25),
    (srm.average_precision_at_k, {}, 0.098611),
    (srm.ndcg_at_k, {}, 0.183898),
]


@pytest.mark.parametrize("sparse_output", [False, True])
@pytest.mark.parametrize("func, kwargs, expected", SEED_VALUES)
def test_seed_example(func, kwargs, expected, sparse_output):
    y_true, y_score, items = ranked_lists_to_arrays(R, T, sparse_output=sparse_output)
    assert sp.issparse(y_true) is sparse_output
    assert round(func(y_true, y_score, k=5, **kwargs), 6) == expected


def test_seed_layout():
    y_true, y_score, items = ranked_lists_to_arrays(R, T)
    assert_array_equal(items, sorted({*sum(R, []), *sum(T, [])}))
    assert y_true.shape == y_score.shape == (3, items.shape[0])
    col = {item: j for j, item in enumerate(items)}
    for i, (ranked, relevant) in enumerate(zip(R, T, strict=True)):
        for p, item in enumerate(ranked):
            assert y_score[i, col[item]] == len(ranked) - p
        assert np.isneginf(y_score[i]).sum() == items.shape[0] - len(ranked)
        assert set(items[y_true[i] > 0]) == set(relevant)
    assert y_true.dtype == np.int64 and y_score.dtype == np.float64


def test_equals_hand_built_long_form():
    """The 2-D arrays score like the long form built from the lists."""
    rng = np.random.default_rng(0)
    catalogue = [f"item-{j}" for j in range(60)]
    ranked, relevant, rows = [], [], []
    for q in range(30):
        lst = list(rng.choice(catalogue, size=rng.integers(0, 12), replace=False))
        rel = {c: int(rng.integers(1, 4)) for c in rng.choice(catalogue, 5)}
        ranked.append(lst)
        relevant.append(rel if q % 2 else set(rel))
        grades = rel if q % 2 else dict.fromkeys(rel, 1)
        for p, item in enumerate(lst):
            rows.append((q, grades.get(item, 0), len(lst) - p))
        rows += [(q, g, -np.inf) for item, g in grades.items() if item not in lst]
    qid, y, s = (np.array(c) for c in zip(*rows, strict=True))
    for sparse_output in (False, True):
        y_true, y_score, _ = ranked_lists_to_arrays(
            ranked, relevant, sparse_output=sparse_output
        )
        for func in (srm.ndcg_at_k, srm.average_precision_at_k, srm.recall_at_k):
            for k in (3, None):
                assert_array_equal(
                    func(y_true, y_score, k=k, average=None),
                    func(y, s, k=k, query_id=qid, average=None),
                )


def test_items_fix_the_columns():
    catalogue = np.arange(30)[::-1]
    y_true, y_score, items = ranked_lists_to_arrays(R, T, items=catalogue)
    assert_array_equal(items, catalogue)
    assert y_score.shape == (3, 30)
    assert y_score[0, 29 - 2] == 5  # item 2 is ranked first by user 0
    assert round(srm.ndcg_at_k(y_true, y_score, k=5), 6) == 0.183898
    _, _, items = ranked_lists_to_arrays([["b"]], [["a"]], items=["c", "b", "a"])
    assert list(items) == ["c", "b", "a"]


def test_graded_relevance_and_id_types():
    ranked = [[("a", 1), ("b", 2)], [("c", 3)]]
    relevant = [{("b", 2): 2.5, ("z", 0): 0}, None]
    y_true, y_score, items = ranked_lists_to_arrays(ranked, relevant)
    assert items.dtype == object and items[0] == ("a", 1)
    assert y_true.dtype == np.float64
    assert_array_equal(y_true, [[0, 2.5, 0, 0], [0, 0, 0, 0]])  # grade 0 ignored
    assert_array_equal(
        y_score, [[2, 1, -np.inf, -np.inf], [-np.inf, -np.inf, 1, -np.inf]]
    )


def test_unsortable_ids_keep_first_seen_order():
    y_true, y_score, items = ranked_lists_to_arrays([[3, "x"], []], [["x"], [1.5]])
    assert list(items) == [3, "x", 1.5]
    assert_array_equal(y_score, [[2, 1, -np.inf], [-np.inf] * 3])
    assert_array_equal(y_true, [[0, 1, 0], [0, 0, 1]])


def test_numpy_and_tuple_inputs():
    y1, s1, i1 = ranked_lists_to_arrays(np.array(R), tuple(np.array(t) for t in T))
    y2, s2, i2 = ranked_lists_to_arrays(R, T)
    assert_array_equal(y1, y2)
    assert_array_equal(s1, s2)
    assert_array_equal(i1, i2)


@pytest.mark.parametrize(
    "args, kwargs, error, match",
    [
        ((R, T[:2]), {}, ValueError, "3 ranked lists and 2 relevant"),
        (([], []), {}, ValueError, "ranked is empty"),
        (({"u1": [1]}, [[1]]), {}, TypeError, "ranked must be a sequence"),
        (([[1]], "abc"), {}, TypeError, "relevant must be a sequence"),
        (([[1, 2, 1]], [[1]]), {}, ValueError, r"ranked\[0\] lists the id 1 twice"),
        (([[1], [4, 5, 4]], [[1], []]), {}, ValueError, r"ranked\[1\] lists the id 4"),
        (([[1, None]], [[1]]), {}, ValueError, r"ranked\[0\]\[1\] is a missing id"),
        (([[1, float("nan")]], [[1]]), {}, ValueError, "missing id"),
        (([[1]], [[None]]), {}, ValueError, r"relevant\[0\] is a missing id"),
        (([["ab"], "cd"], [[], []]), {}, TypeError, r"ranked\[1\] is a string"),
        (([{1, 2}], [[1]]), {}, TypeError, r"ranked\[0\] must be an ordered"),
        (([None], [[1]]), {}, TypeError, r"ranked\[0\] must be an ordered"),
        (([[1]], ["a"]), {}, TypeError, r"relevant\[0\] is a string"),
        (([[1]], [{1: -1}]), {}, ValueError, r"relevant\[0\]\[1\] = -1"),
        (([[1]], [{1: float("nan")}]), {}, ValueError, "finite and >= 0"),
        (([[1]], [{1: "high"}]), {}, TypeError, "must be a number"),
        (([[1, 2]], [[1]]), {"items": [1]}, ValueError, "id 2, which is not in items"),
        (
            ([[1]], [[7]]),
            {"items": [1]},
            ValueError,
            r"relevant\[0\] contains the id 7",
        ),
        (([[1]], [[1]]), {"items": [1, 1]}, ValueError, "items lists the id 1 more"),
        (([[1]], [[1]]), {"items": [1, None]}, ValueError, r"items\[1\] is None"),
        (([[1]], [[1]]), {"items": []}, ValueError, "items is empty"),
        (([[1]], [[1]]), {"sparse_output": "yes"}, TypeError, "sparse_output"),
        (([[[1]]], [[1]]), {}, TypeError, "hashable ids"),
    ],
)
def test_validation(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        ranked_lists_to_arrays(*args, **kwargs)


def test_inputs_are_not_modified():
    ranked = [[3, 1], [2]]
    relevant = [{1: 2}, {2, 5}]
    before = (repr(ranked), repr(relevant))
    ranked_lists_to_arrays(ranked, relevant)
    assert (repr(ranked), repr(relevant)) == before
