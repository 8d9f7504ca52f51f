"""sklearn_rankmetrics.dask on a real distributed.LocalCluster: the same
values as the in-memory report on the same rows, whatever the
partitioning, and clear errors on bad frames."""

import warnings

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

from numpy.testing import assert_allclose, assert_array_equal  # noqa: E402
from sklearn.exceptions import UndefinedMetricWarning  # noqa: E402

import sklearn_rankmetrics  # noqa: E402
from sklearn_rankmetrics.dask import ranking_report  # noqa: E402
from tests._scale_data import (  # noqa: E402
    COLS,
    RTOL,
    K,
    assert_same,
    in_memory,
    make_frame,
)


@pytest.fixture(scope="module")
def client():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cluster start-up chatter
        cluster = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=False,
            dashboard_address=None,
        )
        client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


@pytest.mark.parametrize("npartitions", [1, 3, 8])
def test_equals_in_memory(client, npartitions):
    frame = make_frame(npartitions)
    df = dd.from_pandas(frame, npartitions=npartitions)
    got = ranking_report(df, **COLS, weight_col="w", k=K, output_dict=True)
    assert_same(got, in_memory(frame, output_dict=True))


def test_one_query_over_every_partition(client):
    frame = make_frame(1)
    first = frame["qid"].iloc[0]
    big = (frame["qid"] == first).to_numpy()
    n_big = int(big.sum())
    # rows in an order that spreads the big query's rows evenly
    position = np.empty(len(frame))
    position[~big] = np.arange((~big).sum())
    position[big] = np.linspace(0, (~big).sum(), n_big)
    spread = frame.iloc[np.argsort(position, kind="stable")]
    df = dd.from_pandas(spread, npartitions=n_big, sort=False)
    has_big = df.map_partitions(
        lambda p: pd.Series([(p["qid"] == first).any()]), meta=(None, bool)
    ).compute()
    assert has_big.all() and len(has_big) > 2
    got = ranking_report(df, **COLS, weight_col="w", k=K, output_dict=True)
    assert_same(got, in_memory(frame, output_dict=True))


@pytest.mark.parametrize(
    "options",
    [
        {"no_relevant": 0.0, "gain": "exponential"},
        {"relevance_threshold": 2, "query_weighting": "uniform"},
        {"metrics": ["gauc", "ndcg"], "ap_denominator": "min_k"},
        # presets whose tie rule survives a shuffle, and options of the
        # metric functions the report resolves per metric
        {"convention": "sklearn", "metrics": ["ndcg", "map", "precision"]},
        {"convention": "tf_ranking", "persistence": 0.5, "metrics": ["rbp", "ndcg"]},
        {"ties": "pessimistic", "precision_denominator": "retrieved"},
    ],
)
def test_options_and_text(client, options):
    frame = make_frame(2, string_ids=True)
    df = dd.from_pandas(frame, npartitions=4)
    got = ranking_report(df, **COLS, weight_col="w", k=K, output_dict=True, **options)
    assert_same(got, in_memory(frame, output_dict=True, **options))
    text = ranking_report(df, **COLS, k=K, **options)
    assert text == in_memory(frame, weighted=False, **options)


def test_per_query_is_a_lazy_frame(client):
    frame = make_frame(3, string_ids=True)
    df = dd.from_pandas(frame, npartitions=4)
    out = ranking_report(df, **COLS, weight_col="w", k=K, per_query=True)
    assert isinstance(out, dd.DataFrame)
    got = out.compute().sort_values("qid").reset_index(drop=True)
    want = in_memory(frame, per_query=True)
    assert list(got.columns) == ["qid", *list(want.columns)[1:]]
    assert_array_equal(got["qid"].to_numpy(), want["query_id"].to_numpy())
    assert_allclose(
        got.iloc[:, 1:].to_numpy(float), want.iloc[:, 1:].to_numpy(float), rtol=RTOL
    )


def test_query_index_with_divisions_skips_the_shuffle(client):
    frame = make_frame(4)
    df = dd.from_pandas(frame, npartitions=5).set_index("qid")
    assert df.known_divisions
    got = ranking_report(df, **COLS, weight_col="w", k=K, output_dict=True)
    assert_same(got, in_memory(frame, output_dict=True))
    # without divisions the index is shuffled like a column
    df = dd.from_pandas(frame.set_index("qid"), npartitions=5, sort=False)
    got = ranking_report(df, **COLS, weight_col="w", k=K, output_dict=True)
    assert_same(got, in_memory(frame, output_dict=True))


def test_empty_partitions_count_nothing(client):
    frame = make_frame(5, n_queries=3)
    df = dd.from_pandas(frame, npartitions=3)
    df = df[df["qid"] != frame["qid"].iloc[0]]  # may empty a partition
    kept = frame[frame["qid"] != frame["qid"].iloc[0]]
    got = ranking_report(
        df, **COLS, weight_col="w", k=K, output_dict=True, npartitions=12
    )  # 12 partitions for 2 queries: most are empty after the shuffle
    assert_same(got, in_memory(kept, output_dict=True))


def test_all_skipped_is_nan_with_warning(client):
    frame = make_frame(6).assign(rel=0)
    df = dd.from_pandas(frame, npartitions=2)
    with pytest.warns(UndefinedMetricWarning):
        got = ranking_report(df, **COLS, k=1, metrics=["ndcg"], output_dict=True)
    assert np.isnan(got["ndcg@1"])


def test_bad_frames(client):
    frame = make_frame(7)
    df = dd.from_pandas(frame, npartitions=3)
    with pytest.raises(
        ValueError,
        match=r"score_col='scores' is not a column.*'qid', 'rel', 'score', 'w', ",
    ):
        ranking_report(df, query_col="qid", label_col="rel", score_col="scores")
    with pytest.raises(TypeError, match=r"label_col='other' must be a numeric"):
        ranking_report(df, query_col="qid", label_col="other", score_col="score")
    with pytest.raises(TypeError, match="dask.dataframe.DataFrame"):
        ranking_report(frame, **COLS)
    with pytest.raises(ValueError, match="ignore_ties=True"):
        ranking_report(df, **COLS, ignore_ties=True)
    with pytest.raises(ValueError, match="without '@k'"):
        ranking_report(df, **COLS, metrics=["ndcg@10"])
    with pytest.raises(ValueError, match="unknown metric"):
        ranking_report(df, **COLS, metrics=["nope"])
    with pytest.raises(ValueError, match="no rows"):
        ranking_report(df[df["score"] > 2], **COLS, output_dict=True)
    with_null = frame.astype({"qid": "float64"})
    with_null.loc[5, "qid"] = np.nan
    with pytest.raises(
        ValueError, match=r"column 'qid' has 1 null value\(s\) in partition"
    ):
        ranking_report(dd.from_pandas(with_null, npartitions=3), **COLS)
    with_null = frame.copy()
    with_null.loc[5, "score"] = np.nan
    with pytest.raises(ValueError, match=r"column 'score' has 1 null"):
        ranking_report(dd.from_pandas(with_null, npartitions=3), **COLS)
    uneven = frame.copy()
    uneven.loc[uneven["qid"] == uneven["qid"].iloc[0], "w"] = np.arange(
        (uneven["qid"] == uneven["qid"].iloc[0]).sum()
    )
    with pytest.raises(ValueError, match="constant within each query"):
        ranking_report(dd.from_pandas(uneven, npartitions=3), **COLS, weight_col="w")


def _explode(pdf):
    raise RuntimeError("a task ran")


@pytest.mark.parametrize(
    "option, error, match",
    [
        ({"gian": "exponential"}, TypeError, r"^sklearn_rankmetrics\.dask\.ranking"),
        ({"ignore_ties": True}, ValueError, "ignore_ties=True breaks ties by row"),
        ({"ties": "input_order"}, ValueError, 'ties="input_order" breaks ties'),
        ({"convention": "trec_eval"}, ValueError, "convention='trec_eval' breaks"),
        ({"convention": "lightgbm"}, ValueError, "convention='lightgbm' breaks"),
    ],
)
def test_options_checked_on_the_driver(client, option, error, match):
    # A frame whose every task fails: the option error comes first, before
    # any task runs, and names the public function, not the private engine.
    frame = make_frame(5)
    df = dd.from_pandas(frame, npartitions=2).map_partitions(_explode, meta=frame)
    with pytest.raises(error, match=match) as info:
        ranking_report(df, **COLS, **option)
    assert "_per_query_report" not in str(info.value)


@pytest.mark.parametrize("shuffle_method", ["tasks", "p2p", "disk", None])
def test_shuffle_methods_give_the_same_values(client, shuffle_method):
    frame = make_frame(11)
    df = dd.from_pandas(frame, npartitions=5)
    got = ranking_report(
        df,
        **COLS,
        weight_col="w",
        k=K,
        output_dict=True,
        npartitions=3,
        shuffle_method=shuffle_method,
    )
    assert_same(got, in_memory(frame, output_dict=True))
    reference = ranking_report(
        df, **COLS, weight_col="w", k=K, output_dict=True, npartitions=3
    )
    assert_array_equal(list(got.values()), list(reference.values()))


def test_bad_shuffle_method(client):
    df = dd.from_pandas(make_frame(3), npartitions=2)
    with pytest.raises(ValueError, match='shuffle_method must be "tasks"'):
        ranking_report(df, **COLS, shuffle_method="hash")


@pytest.mark.parametrize(
    "shuffle_method, key", [("tasks", "taskshuffle"), ("p2p", "p2pshuffle")]
)
def test_shuffle_method_is_used(client, shuffle_method, key):
    # the lazy per-query frame's graph names the shuffle Dask will run
    df = dd.from_pandas(make_frame(3), npartitions=2)
    kwargs = {} if shuffle_method == "tasks" else {"shuffle_method": shuffle_method}
    lazy = ranking_report(df, **COLS, per_query=True, **kwargs)
    names = " ".join(
        str(k[0] if isinstance(k, tuple) else k) for k in lazy.__dask_graph__()
    )
    assert key in names


class _Records(__import__("logging").Handler):
    def __init__(self):
        super().__init__(level=0)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def test_bad_rows_raise_without_worker_tracebacks(client):
    # A null found by a task is our clear ValueError on the client, and the
    # workers do not first log "Compute Failed" with a traceback: the
    # partition returns its error as a value.
    import logging

    frame = make_frame(0)
    frame.loc[5, "score"] = np.nan
    handler = _Records()
    logger = logging.getLogger("distributed")  # does not propagate to root
    logger.addHandler(handler)
    try:
        with pytest.raises(ValueError, match=r"column 'score' has 1 null"):
            ranking_report(dd.from_pandas(frame, npartitions=3), **COLS)
        # the same handler sees a task that fails outside our checks
        with pytest.raises(RuntimeError, match="a task ran"):
            dd.from_pandas(frame, npartitions=2).map_partitions(
                _explode, meta=frame
            ).compute()
    finally:
        logger.removeHandler(handler)
    failed = [m for m in handler.messages if "Compute Failed" in m]
    assert len(failed) >= 1  # only the second, foreign failure
    assert not any("null" in m for m in failed), failed


class _RecordingLibc:
    def __init__(self):
        self.calls = []

    def mallopt(self, param, value):
        self.calls.append((param, value))
        return 1


@pytest.mark.parametrize(
    "environ, changed",
    [
        ({"MALLOC_TRIM_THRESHOLD_": "65536"}, True),  # Dask's nanny
        ({}, False),  # glibc's dynamic threshold in force: left alone
        ({"MALLOC_TRIM_THRESHOLD_": "65536", "MALLOC_MMAP_THRESHOLD_": "1"}, False),
        ({"MALLOC_TRIM_THRESHOLD_": "lots"}, False),  # not glibc's to read
    ],
)
def test_engine_allocations_scoped_to_the_task(monkeypatch, environ, changed):
    """Under the nanny's MALLOC_TRIM_THRESHOLD_ (glibc's dynamic mmap
    threshold off), the mmap and trim thresholds are raised for the task
    only and set back afterwards (to glibc's default, to the variable's
    value), also when the task raises; nothing is touched otherwise."""
    from sklearn_rankmetrics import dask as rm_dask

    libc = _RecordingLibc()
    monkeypatch.setattr(rm_dask, "_glibc", lambda: libc)
    for name in ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(RuntimeError, match="in the task"):
        with rm_dask._engine_allocations():
            raised = [(-3, 32 * 1024 * 1024), (-1, 64 * 1024 * 1024)]
            assert libc.calls == (raised if changed else [])
            raise RuntimeError("in the task")
    restored = [(-1, 65536), (-3, 128 * 1024)]
    assert libc.calls == (raised + restored if changed else [])


def test_same_values_under_the_nanny_malloc_setting(client, monkeypatch):
    """The report and the per-query values are the same, bit for bit, with
    glibc's real mallopt called around each partition."""
    from sklearn_rankmetrics import dask as rm_dask

    frame = make_frame(3)
    df = dd.from_pandas(frame, npartitions=3)
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    before = ranking_report(df, **COLS, weight_col="w", k=K, output_dict=True)
    per_query = ranking_report(
        df, **COLS, weight_col="w", k=K, per_query=True
    ).compute()
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    calls = []
    glibc = rm_dask._glibc

    def counted():
        libc = glibc()
        calls.append(libc is not None)
        return libc

    monkeypatch.setattr(rm_dask, "_glibc", counted)
    assert ranking_report(df, **COLS, weight_col="w", k=K, output_dict=True) == before
    again = ranking_report(df, **COLS, weight_col="w", k=K, per_query=True).compute()
    assert again.to_numpy().tobytes() == per_query.to_numpy().tobytes()
    # one shuffled partition per call (3 input partitions / 8), glibc found
    assert calls == [True, True]
    assert_same(before, in_memory(frame, output_dict=True))


# ---------------------------------------------------------------------------
# Beyond-accuracy metrics (item_col=): merged per-item counts and per-user
# sums equal to the in-memory report
# ---------------------------------------------------------------------------
from tests._beyond_data import (  # noqa: E402
    BEYOND,
    COUNTS,
    N_ITEMS,
    RANKING,
    make_log,  # noqa: E402
)
from tests._beyond_data import K as BK  # noqa: E402
from tests._beyond_data import assert_same as assert_beyond  # noqa: E402
from tests._beyond_data import in_memory as beyond_in_memory  # noqa: E402


def _log_frame(seed, ids="int", **kwargs):
    y, s, q, it, extra = make_log(seed, ids=ids, **kwargs)
    frame = pd.DataFrame({"user": q, "rel": y, "score": s, "item": it})
    return frame, extra


BCOLS = dict(query_col="user", label_col="rel", score_col="score", item_col="item")


@pytest.mark.parametrize("npartitions", [1, 4])
@pytest.mark.parametrize("ties", ["expected", "pessimistic"])
def test_beyond_metrics_equal_in_memory(client, npartitions, ties):
    """Every beyond-accuracy metric beside NDCG and MAP, users spread over
    the partitions: ties, -inf, empty lists, items never recommended."""
    frame, extra = _log_frame(npartitions)
    options = dict(extra, unseen="one", ties=ties)
    metrics = RANKING + BEYOND
    df = dd.from_pandas(frame, npartitions=npartitions)
    got = ranking_report(
        df, **BCOLS, k=BK, metrics=metrics, output_dict=True, **options
    )
    want = beyond_in_memory(
        frame["rel"].to_numpy(),
        frame["score"].to_numpy(),
        frame["user"].to_numpy(),
        frame["item"].to_numpy(),
        metrics,
        **options,
    )
    assert_beyond(got, want, COUNTS if ties == "pessimistic" else ())


@pytest.mark.parametrize("dtype", ["str", "object", "category"])
def test_beyond_metrics_text_item_ids(client, dtype):
    """Text ids are labels ("7", "07" and "007" three items), numbered per
    partition and merged by label; the catalogue's other items counted as
    the functions count them (n_items); the text table as in memory."""
    frame, _ = _log_frame(3, ids="str")
    frame["item"] = frame["item"].astype(dtype)
    df = dd.from_pandas(frame, npartitions=3)
    arrays = [frame[c].to_numpy() for c in ("rel", "score", "user")]
    items = np.asarray(frame["item"].astype(object))
    got = ranking_report(
        df, **BCOLS, k=BK, metrics=COUNTS, output_dict=True, n_items=N_ITEMS
    )
    assert_beyond(got, beyond_in_memory(*arrays, items, COUNTS, n_items=N_ITEMS))
    text = ranking_report(df, **BCOLS, k=BK, metrics=["ndcg", *COUNTS], n_items=N_ITEMS)
    want = sklearn_rankmetrics.ranking_report(
        *arrays[:2],
        query_id=arrays[2],
        item_id=items,
        k=BK,
        metrics=["ndcg", *COUNTS],
        n_items=N_ITEMS,
    )
    assert text == want


def test_beyond_metrics_tie_break_by_item(client):
    """ties="input_order" with the item column as tie_break_col: each user's
    rows ranked in item order, as the in-memory report on rows in that
    order."""
    frame, extra = _log_frame(8)
    df = dd.from_pandas(frame, npartitions=3)
    options = dict(extra, unseen="zero", ties="input_order")
    got = ranking_report(
        df,
        **BCOLS,
        k=BK,
        metrics=BEYOND,
        output_dict=True,
        tie_break_col="item",
        **options,
    )
    rows = frame.sort_values(["user", "item"])
    arrays = [rows[c].to_numpy() for c in ("rel", "score", "user", "item")]
    assert_beyond(got, beyond_in_memory(*arrays, BEYOND, **options), COUNTS)


def test_beyond_metrics_through_the_frame_form(client):
    frame, extra = _log_frame(4)
    df = dd.from_pandas(frame, npartitions=2)
    got = sklearn_rankmetrics.ranking_report(
        df,
        **BCOLS,
        k=3,
        metrics=["gini_index", "novelty"],
        output_dict=True,
        item_popularity=extra["item_popularity"],
        unseen="one",
    )
    want = ranking_report(
        df,
        **BCOLS,
        k=3,
        metrics=["gini_index", "novelty"],
        output_dict=True,
        item_popularity=extra["item_popularity"],
        unseen="one",
    )
    assert got == want


def test_beyond_metrics_refusals(client):
    frame, extra = _log_frame(2)
    frame["w"] = 1.0
    df = dd.from_pandas(frame, npartitions=2)
    cols = {k: v for k, v in BCOLS.items() if k != "item_col"}
    with pytest.raises(ValueError, match="pass item_col="):
        ranking_report(df, **cols, metrics=["gini_index"])
    with pytest.raises(TypeError, match="item_col= is read by the beyond"):
        ranking_report(df, **BCOLS, metrics=["ndcg"])
    with pytest.raises(ValueError, match="do not take sample_weight"):
        ranking_report(df, **BCOLS, weight_col="w", metrics=["gini_index"])
    with pytest.raises(ValueError, match="no per-query value"):
        ranking_report(df, **BCOLS, metrics=["gini_index"], per_query=True)
    with pytest.raises(TypeError, match="got unknown option"):
        ranking_report(df, **BCOLS, metrics=["ndcg"], item_popularity=[1, 2])
    popularity = extra["item_popularity"].copy()
    popularity[:] = 0  # every item unseen: the global count, once
    with pytest.raises(ValueError, match=r"novelty: 30 item\(s\) never seen"):
        ranking_report(
            df,
            **BCOLS,
            metrics=["novelty"],
            item_popularity=popularity,
            unseen="raise",
            k=40,
        )
    twice = pd.concat([frame, frame.iloc[:1]])  # a (user, item) pair twice
    with pytest.raises(ValueError, match="repeats an item within a query"):
        ranking_report(dd.from_pandas(twice, npartitions=2), **BCOLS, metrics=COUNTS)
