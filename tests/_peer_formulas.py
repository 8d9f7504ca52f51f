"""The peers' evaluation formulas, restated from their sources (slow and
obvious, one user at a time), for the presets' tests.

Each function follows one peer release's source line by line, on plain
Python data: ``ranked[u]`` is user ``u``'s recommendation list (item
numbers, best first -- the peer's rank order), ``relevant[u]`` the set of
its held-out items.  The peers that are not installed in CI are pinned
here; ``tests/test_preset_peers.py`` compares these restatements with the
preset, and (where the peer is installed) with the peer itself:

- Microsoft Recommenders 1.2.1, ``recommenders/evaluation/
  python_evaluation.py`` (it brings Jupyter, LightGBM, ... : not a CI
  dependency);
- RecTools 0.19.0, ``rectools/metrics/`` (pins numpy < 2 and pandas < 3);
- RecBole 1.2.1, ``recbole/evaluator/metrics.py`` and ``collector.py``
  (needs torch, and its metrics use ``np.float``, removed in numpy 1.24);
- LightFM 1.17, ``lightfm/evaluation.py`` and ``_lightfm_fast.pyx``'s
  ``predict_ranks`` / ``calculate_auc_from_rank`` (no wheel on PyPI).

Each was checked against the real peer once, in a separate virtual
environment holding it (``test_preset_peers.py``'s ``*_is_the_peer`` tests,
which skip where the peer is absent), on the random cases of that file.
"""

import itertools
import math
from collections import Counter

import numpy as np


def ranked_lists(S, k=None):
    """Each row's retrieved items (score above -inf), by decreasing score
    and increasing column among ties (a stable sort of the row: the peers'
    order when the rows come in column order), the first ``k``."""
    out = []
    for row in np.asarray(S, dtype=float):
        items = [j for j in np.argsort(-row, kind="stable") if row[j] > -np.inf]
        out.append(items if k is None else items[:k])
    return out


def relevant_sets(Y):
    return [set(np.flatnonzero(np.asarray(row) > 0)) for row in np.asarray(Y)]


# ---------------------------------------------------------------------------
# Microsoft Recommenders 1.2.1 (python_evaluation.py)
# ---------------------------------------------------------------------------
def recommenders_ranking(ranked, relevant, k):
    """precision_at_k, recall_at_k, ndcg_at_k (score_type="binary",
    discfun_type="loge"), map_at_k, map: the users of the ground truth
    that have predictions (merge_ranking_true_pred's common users)."""
    users = [u for u in range(len(ranked)) if relevant[u] and ranked[u]]
    n_users = len(users)
    precision = recall = map_at_k = map_ = 0.0
    ndcg = []
    for u in users:
        top = ranked[u][:k]
        hits = [r for r, i in enumerate(top, start=1) if i in relevant[u]]
        precision += len(hits) / k
        recall += len(hits) / len(relevant[u])
        # _get_reciprocal_rank: sum over hits of (hit number) / rank
        rr = sum(n / r for n, r in enumerate(hits, start=1))
        map_at_k += rr / min(len(relevant[u]), k)
        map_ += rr / len(relevant[u])
        dcg = sum(1 / math.log(1 + r) for r in hits)
        idcg = sum(1 / math.log(1 + i) for i in range(1, min(len(relevant[u]), k) + 1))
        ndcg.append(dcg / idcg)
    return {
        "precision": precision / n_users,
        "recall": recall / n_users,
        "ndcg": float(np.mean(ndcg)),
        "map_at_k": map_at_k / n_users,
        "map": map_ / n_users,
    }


def recommenders_beyond(ranked, train_pairs, k, features=None):
    """novelty, distributional_coverage, catalog_coverage and (with item
    ``features``) diversity(item_sim_measure="item_feature_vector") of the
    top-``k`` rows; ``train_pairs`` the (user, item) training rows."""
    reco = [(u, i) for u, lst in enumerate(ranked) for i in lst[:k]]
    n_records = len(train_pairs)
    train_count = Counter(i for _, i in train_pairs)
    # historical_item_novelty; novelty's inner merge drops unseen items
    novelty = sum(
        -math.log2(train_count[i] / n_records) for _, i in reco if train_count[i]
    ) / len(reco)
    reco_count = Counter(i for _, i in reco)
    p = [c / len(reco) for c in reco_count.values()]
    out = {
        "novelty": novelty,
        "distributional_coverage": -sum(q * math.log2(q) for q in p),
        "catalog_coverage": len(reco_count) / len(train_count),
    }
    if features is not None:
        F = np.asarray(features, dtype=float)
        per_user = []
        for lst in ranked:
            items = sorted(lst[:k])
            sims = [
                F[a] @ F[b] / (np.linalg.norm(F[a]) * np.linalg.norm(F[b]))
                for a, b in itertools.combinations(items, 2)
            ]
            if sims:  # a one-item list has no pair: no row, left out
                per_user.append(1 - np.mean(sims))
        out["diversity"] = float(np.mean(per_user)) if per_user else float("nan")
    return out


# ---------------------------------------------------------------------------
# RecTools 0.19.0 (rectools/metrics/)
# ---------------------------------------------------------------------------
def rectools_ranking(ranked, relevant, k):
    """Per-user means over the users of the interactions table: Precision
    (and r_precision=True), Recall, HitRate, MRR, MAP (and
    divide_by_k=True), NDCG (and divide_by_achievable=True)."""
    users = [u for u in range(len(ranked)) if relevant[u]]
    vals = {
        m: []
        for m in (
            "precision",
            "r_precision",
            "recall",
            "hit_rate",
            "mrr",
            "map",
            "map_divide_by_k",
            "ndcg",
            "ndcg_achievable",
        )
    }
    discount = [1 / math.log2(r + 1) for r in range(1, k + 1)]
    for u in users:
        R = len(relevant[u])
        ranks = [r for r, i in enumerate(ranked[u], start=1) if i in relevant[u]]
        within = [r for r in ranks if r <= k]
        tp = len(within)
        vals["precision"].append(tp / k)
        vals["r_precision"].append(tp / min(k, R))
        vals["recall"].append(tp / R)
        vals["hit_rate"].append(float(tp > 0))
        vals["mrr"].append(1 / min(within) if within else 0.0)
        # MAP.fit: precision at each relevant rank, summed over ranks <= k
        ap = sum(n / r for n, r in enumerate(within, start=1))
        vals["map"].append(ap / R)
        vals["map_divide_by_k"].append(ap / k)
        dcg = sum(1 / math.log2(r + 1) for r in within)
        vals["ndcg"].append(dcg / sum(discount))
        vals["ndcg_achievable"].append(dcg / sum(discount[: min(R, k)]))
    return {m: float(np.mean(v)) for m, v in vals.items()}


def rectools_beyond(ranked, train_pairs, k, features=None, catalog_size=None):
    """MeanInvUserFreq, CatalogCoverage(normalize=True) and, with
    ``features``, IntraListDiversity with PairwiseHammingDistanceCalculator,
    per-user means over the users of the recommendations."""
    n_interacted = len({u for u, _ in train_pairs})
    users_per_item = Counter(i for _, i in set(train_pairs))
    miuf, ild = [], []
    for lst in ranked:
        top = lst[:k]
        if not top:  # no row in the recommendations table
            continue
        # cold items count as consumed by one user
        miuf.append(
            np.mean([-math.log2(users_per_item.get(i, 1) / n_interacted) for i in top])
        )
        if features is not None:
            F = np.asarray(features)
            pairs = list(itertools.combinations(top, 2))
            ild.append(
                np.mean([np.sum(F[a] != F[b]) for a, b in pairs]) if pairs else 0.0
            )
    out = {"miuf": float(np.mean(miuf))}
    if catalog_size is not None:
        out["catalog_coverage"] = len({i for lst in ranked for i in lst[:k]}) / (
            catalog_size
        )
    if features is not None:
        out["ild"] = float(np.mean(ild))
    return out


# ---------------------------------------------------------------------------
# RecBole 1.2.1 (recbole/evaluator/metrics.py)
# ---------------------------------------------------------------------------
def recbole_ranking(ranked, relevant, k):
    """Hit, MRR, MAP, Recall, NDCG, Precision @k, mean over the users with
    a test item; ``pos_index`` the top-k flags (every list has k items:
    RecBole ranks the whole catalogue)."""
    users = [u for u in range(len(ranked)) if relevant[u]]
    vals = {m: [] for m in ("hit", "mrr", "map", "recall", "ndcg", "precision")}
    for u in users:
        pos = [i in relevant[u] for i in ranked[u][:k]]
        pos += [False] * (k - len(pos))
        pos_len = len(relevant[u])
        vals["hit"].append(float(any(pos)))
        first = pos.index(True) if any(pos) else None
        vals["mrr"].append(0.0 if first is None else 1 / (first + 1))
        pre = np.cumsum(pos) / np.arange(1, k + 1)
        vals["map"].append(float(np.sum(pre * pos)) / min(pos_len, k))
        vals["recall"].append(sum(pos) / pos_len)
        dcg = sum(1 / math.log2(r + 2) for r, p in enumerate(pos) if p)
        idcg = sum(1 / math.log2(r + 2) for r in range(min(pos_len, k)))
        vals["ndcg"].append(dcg / idcg)
        vals["precision"].append(sum(pos) / k)
    return {m: float(np.mean(v)) for m, v in vals.items()}


def recbole_beyond(ranked, k, num_items, item_count=None):
    """ItemCoverage, GiniIndex, ShannonEntropy and AveragePopularity of the
    top-k item matrix (every list has k items); ``num_items`` is RecBole's
    (the catalogue plus the padding item); ``item_count`` the training
    counts."""
    matrix = [lst[:k] for lst in ranked]
    flat = [i for row in matrix for i in row]
    total_num = len(matrix) * k
    count = Counter(flat)
    sorted_count = np.array(sorted(count.values()))
    idx = np.arange(num_items - len(sorted_count) + 1, num_items + 1)
    gini = np.sum((2 * idx - num_items - 1) * sorted_count) / total_num / num_items
    entropy = sum(-c / total_num * math.log(c / total_num) for c in count.values())
    out = {
        "itemcoverage": len(count) / num_items,
        "giniindex": float(gini),
        "shannonentropy": entropy / len(count),
    }
    if item_count is not None:
        out["averagepopularity"] = float(
            np.mean([np.mean([item_count[i] for i in row]) for row in matrix])
        )
    return out


def recbole_gauc(S, Y):
    """GAUC from collector.py's rec.meanrank: average (descending) ranks of
    the scores, ``user_len`` the items scored above the row's minimum (the
    padding item 0, which the full sort scores -inf, is that minimum: it is
    added here), users with both classes, weighted by positives."""
    S = np.hstack([np.full((len(S), 1), -np.inf), np.asarray(S, dtype=float)])
    Y = np.hstack([np.zeros((len(Y), 1)), np.asarray(Y)])
    num = den = 0.0
    for row, y in zip(S, Y, strict=True):
        desc = np.sort(row)[::-1]
        user_len = int(np.argmin(desc))
        # average rank (1-based, descending) of each score
        avg = {v: np.mean(np.flatnonzero(desc == v) + 1) for v in np.unique(row)}
        pos = y > 0
        P = int(pos.sum())
        N = user_len - P
        if P == 0 or N == 0:
            continue
        pos_rank_sum = sum(avg[v] for v in row[pos])
        auc = ((user_len + 1) * P - P * (P + 1) / 2 - pos_rank_sum) / (N * P)
        num += auc * P
        den += P
    return num / den


# ---------------------------------------------------------------------------
# LightFM 1.17 (evaluation.py, _lightfm_fast.pyx predict_ranks)
# ---------------------------------------------------------------------------
def lightfm_metrics(S, test, train, k):
    """precision_at_k, recall_at_k, reciprocal_rank, auc_score (means over
    the users with a test item; preserve_rows=False)."""
    S = np.asarray(S, dtype=float)
    out = {m: [] for m in ("precision", "recall", "rr", "auc")}
    for u in range(S.shape[0]):
        tests = np.flatnonzero(test[u])
        if tests.size == 0:
            continue
        others = [j for j in range(S.shape[1]) if not train[u, j]]
        # predict_ranks: every other non-training item scored >= counts
        ranks = np.array(
            [sum(1 for j in others if j != i and S[u, j] >= S[u, i]) for i in tests]
        )
        out["precision"].append(np.sum(ranks < k) / k)
        out["recall"].append(np.sum(ranks < k) / tests.size)
        out["rr"].append(1 / (ranks.min() + 1))
        num_negatives = S.shape[1] - (tests.size + int(np.sum(train[u])))
        auc = 0.0
        for i, rank in enumerate(np.sort(ranks)):
            auc += 1 - max(rank - i, 0) / num_negatives
        out["auc"].append(auc / tests.size)
    return {m: float(np.mean(v)) for m, v in out.items()}
