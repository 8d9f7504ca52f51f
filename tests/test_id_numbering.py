"""Query ids numbered exactly (issue 31): text ids of every array kind.

``check_query_id`` numbers the long form's query ids in the order of
``np.unique`` without sorting the rows: object arrays of ``str`` by the
object each row holds, then by value over the distinct objects; ``U`` and
``S`` arrays by a hash of their bytes, checked row by row.  Every test here
compares with a slow, obvious reference (Python's ``==`` and ``<`` over the
rows), on ids that look alike, and with both numbering back ends (pandas'
hash table and numpy's sort).
"""

from functools import partial

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

import sklearn_rankmetrics as srm
from sklearn_rankmetrics._utils import _validation
from sklearn_rankmetrics._utils._validation import check_query_id

# Ids that a careless numbering merges or reorders: leading zeros, blanks,
# NUL characters (a numpy "U" array drops trailing ones), case, accents
# composed and decomposed, a lone surrogate, non-ASCII and long ids.
LOOKALIKES = [
    "7",
    "007",
    "07",
    "7 ",
    " 7",
    "7\x00",
    "\x007",
    "7\x00\x00",
    "",
    " ",
    "\x00",
    "a",
    "A",
    "a\x00b",
    "é",  # U+00E9
    "e\u0301",  # e + combining acute: looks the same, another id
    "ß",
    "ss",
    "\ud800",
    "ユーザー",
    "😀",
    "x" * 300,
    "x" * 299 + "y",
]
# for the fixed-width kinds: what a U array can hold (no trailing NULs)
FIXED = [v for v in LOOKALIKES if not v.endswith("\x00")]
# those of Latin-1 characters only: a U array of them is narrowed to bytes
LATIN1 = [v for v in FIXED if all(ord(c) < 256 for c in v)]


def reference(ids):
    """Each row's index among the sorted distinct ids, and those ids: the
    rows' values compared with Python's ``==`` and ``<``, one by one."""
    values = [v.item() if isinstance(v, np.generic) else v for v in ids]
    distinct = sorted(set(values))
    index = {v: i for i, v in enumerate(distinct)}
    return np.array([index[v] for v in values], dtype=np.intp), distinct


def fresh_objects(values):
    """An object array with a new ``str`` object in every row (equal ids
    held by different objects, as a parser makes them; CPython shares the
    empty string and those of one Latin-1 character)."""
    out = np.empty(len(values), dtype=object)
    out[:] = [(v + "!")[:-1] for v in values]
    return out


def shared_objects(values):
    """An object array whose equal ids are one object (a list of names
    indexed by code, as ``names[codes]`` or pandas' ``to_numpy`` give)."""
    names = {}
    out = np.empty(len(values), dtype=object)
    out[:] = [names.setdefault(v, v) for v in values]
    return out


KINDS = {
    "object, shared": shared_objects,
    "object, one per row": fresh_objects,
    "object, some shared": lambda v: np.concatenate(
        [shared_objects(v[: len(v) // 2]), fresh_objects(v[len(v) // 2 :])]
    ),
    "unicode": lambda v: np.array(v, dtype=str),
    "unicode, big-endian": lambda v: np.array(v, dtype=str).astype(
        np.dtype(str).newbyteorder(">")
    ),
    "unicode, strided view": lambda v: np.repeat(np.array(v, dtype=str), 2)[::2],
    "bytes": lambda v: np.array([s.encode("utf-8", "surrogatepass") for s in v]),
}
FIXED_WIDTH = {"unicode", "unicode, big-endian", "unicode, strided view", "bytes"}


def _bucket_everything(monkeypatch):
    """_validation._number of 8-byte ints in buckets from the first row
    (blocks of 5 rows, buckets of about 3, a sample of one row)."""
    for name, value in (
        ("_HASH_MIN_ROWS", 0),
        ("_BUCKET_MIN_ROWS", 0),
        ("_BUCKET_SAMPLE_ROWS", 1),
        ("_BUCKET_BLOCK_ROWS", 5),
        ("_BUCKET_ROWS", 3),
    ):
        monkeypatch.setattr(_validation, name, value)


@pytest.fixture(params=["pandas", "numpy", "buckets"])
def backend(request, monkeypatch):
    """The numberings of _validation._number: pandas' hash table from the
    first row, numpy's sort for every size, or (8-byte ints) one hash table
    per bucket of values."""
    if request.param == "buckets":
        _bucket_everything(monkeypatch)
        return request.param
    rows = 0 if request.param == "pandas" else 10**9
    monkeypatch.setattr(_validation, "_HASH_MIN_ROWS", rows)
    return request.param


@pytest.fixture(params=[1, 4096], ids=["sample of 1 row", "sample of 4096 rows"])
def sample_rows(request, monkeypatch):
    """Rows read to tell whether each id is one object: the first row only
    (the rows are numbered by object, then the objects by value), or up to
    4096 (equal ids in different objects seen: every row by value)."""
    monkeypatch.setattr(_validation, "_SAMPLE_ROWS", request.param)
    return request.param


def _draw(rng, pool, n):
    return [pool[i] for i in rng.integers(0, len(pool), n)]


def _check(ids):
    before = ids.copy()
    codes, uniques = check_query_id(ids, ids.shape[0])
    want_codes, want_uniques = reference(ids)
    assert_array_equal(codes, want_codes)
    assert [u.item() if isinstance(u, np.generic) else u for u in uniques] == (
        want_uniques
    )
    assert uniques.dtype == ids.dtype  # never re-typed
    assert codes.dtype == np.intp
    if ids.dtype == object:  # the caller's objects, unchanged
        assert all(a is b for a, b in zip(ids, before, strict=True))
    assert_array_equal(ids, before)
    return codes, uniques


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_lookalike_ids_are_distinct_and_sorted_as_python_sorts(
    kind, backend, sample_rows
):
    rng = np.random.default_rng(0)
    pool = FIXED if kind in FIXED_WIDTH else LOOKALIKES
    for n in (1, 2, 7, 40, 500):
        _check(KINDS[kind](_draw(rng, pool, n)))
    # every id once, then every id many times over
    _check(KINDS[kind](list(pool)))
    _check(KINDS[kind](_draw(rng, pool, 5000)))


def test_hand_worked_lookalikes():
    # Python orders by code point, a prefix first: "" < "\x00" < "0" < "007"
    # < "07" < "7" < "7\x00" < "a"; the object array keeps all eight apart.
    ids = np.array(["7", "007", "7\x00", "", "07", "a", "\x00", "7"], dtype=object)
    codes, uniques = check_query_id(ids, 8)
    assert uniques.tolist() == ["", "\x00", "007", "07", "7", "7\x00", "a"]
    assert codes.tolist() == [4, 2, 5, 0, 3, 6, 1, 4]


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(
        st.one_of(
            st.sampled_from(LOOKALIKES),
            st.text(alphabet="07 a\x00é\u0301ß", max_size=4),
        ),
        min_size=1,
        max_size=60,
    ),
    kind=st.sampled_from(sorted(KINDS)),
    hash_min_rows=st.sampled_from([0, 10**9]),
)
def test_property_numbering_equals_the_reference(values, kind, hash_min_rows):
    if kind in FIXED_WIDTH:
        values = [v.rstrip("\x00") for v in values]  # what a U array holds
    old = _validation._HASH_MIN_ROWS
    _validation._HASH_MIN_ROWS = hash_min_rows
    try:
        _check(KINDS[kind](values))
    finally:
        _validation._HASH_MIN_ROWS = old


@pytest.mark.parametrize("kind", sorted(FIXED_WIDTH))
@pytest.mark.parametrize(
    "collide",
    [
        lambda q: np.zeros(q.shape[0], dtype=np.uint64),  # every id one hash
        lambda q: np.char.str_len(q).astype(np.uint64),  # ids of one length
    ],
    ids=["one hash", "hash = length"],
)
@pytest.mark.parametrize("pool", ["FIXED", "LATIN1"])
def test_colliding_hashes_still_number_exactly(
    kind, collide, pool, backend, monkeypatch
):
    # the row-by-row check against one row of each hash catches any collision
    # (ids of few varying bits are packed, not hashed: not here), on the
    # ids' bytes or, for U ids of Latin-1 characters, on their narrowed bytes
    monkeypatch.setattr(_validation, "_PACKED_MAX_BITS", -1)
    monkeypatch.setattr(_validation, "_row_hashes", collide)
    rng = np.random.default_rng(1)
    ids = KINDS[kind](_draw(rng, {"FIXED": FIXED, "LATIN1": LATIN1}[pool], 3000))
    if ids.dtype.kind == "U":
        assert (_validation.narrow_text(ids) is None) == (pool == "FIXED")
    _check(ids)
    _check(KINDS[kind](["7", "8", "7", "9"]))


def test_row_hashes_read_every_byte():
    # ids that differ in one byte anywhere (first, middle, last word, the
    # last byte of a width that is not a multiple of 8) hash apart
    for width in (1, 7, 8, 9, 16, 33):
        base = "x" * width
        ids = [base] + [base[:i] + "y" + base[i + 1 :] for i in range(width)]
        for arr in (np.array(ids), np.array([s.encode() for s in ids])):
            hashes = _validation._row_hashes(arr)
            assert np.unique(hashes).shape[0] == len(ids), (width, arr.dtype)


def test_blocks_of_rows_and_long_ids(monkeypatch):
    # more rows than one block of the hash and of the check, ids far longer
    # than one 8-byte word, mixed widths in one array
    monkeypatch.setattr(_validation, "_HASH_BLOCK_ROWS", 64)
    monkeypatch.setattr(_validation, "_HASH_MIN_ROWS", 0)
    rng = np.random.default_rng(2)
    pool = ["q" * 1000 + str(i) for i in range(30)] + ["", "1", "22", "333"]
    for make in (np.array, shared_objects, fresh_objects):
        _check(make(_draw(rng, pool, 1000)))


def test_object_ids_that_are_not_all_str_keep_the_general_path():
    # numpy's own string scalars, bytes and ints as objects: numbered by
    # np.unique as before; None is an error naming its row; str mixed with
    # bytes cannot be sorted
    ids = np.array([np.str_("b"), np.str_("a"), np.str_("b")], dtype=object)
    codes, uniques = check_query_id(ids, 3)
    assert codes.tolist() == [1, 0, 1] and uniques.tolist() == ["a", "b"]
    ids = np.array([3, 1, 3], dtype=object)
    codes, uniques = check_query_id(ids, 3)
    assert codes.tolist() == [1, 0, 1] and uniques.tolist() == [1, 3]
    ids = np.array(["a", "b", None, "a"], dtype=object)
    with pytest.raises(ValueError, match="query_id contains None.*row 2"):
        check_query_id(ids, 4)
    with pytest.raises(TypeError, match="query_id mixes types"):
        check_query_id(np.array(["a", b"a"], dtype=object), 2)


def test_fresh_objects_are_distinct_objects():
    values = fresh_objects(["007", "007", "ab"])
    assert values[0] == values[1] and values[0] is not values[1]


def test_object_addresses_are_the_objects_ids():
    ids = np.array(["a", "b", "a", "c"], dtype=object)[[0, 1, 0, 3, 2]]
    addresses = np.asarray(_validation._Addresses(ids))
    assert addresses.tolist() == [id(v) for v in ids]
    view = ids[::2]  # a strided view: the strides are the array's
    assert np.asarray(_validation._Addresses(view)).tolist() == [id(v) for v in view]


# ---------------------------------------------------------------------------
# The metrics: text ids give the values of their integer codes, bit for bit
# ---------------------------------------------------------------------------
METRICS = [
    partial(srm.ndcg_at_k, k=3),
    partial(srm.average_precision_at_k, k=3),
    partial(srm.precision_at_k, k=2),
    srm.group_auc_score,
    partial(srm.group_auc_score, query_weighting="uniform"),
]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_metrics_with_text_ids_equal_their_codes(kind, backend, sample_rows):
    rng = np.random.default_rng(3)
    pool = FIXED if kind in FIXED_WIDTH else LOOKALIKES
    values = _draw(rng, pool, 3000)
    ids = KINDS[kind](values)
    codes, _ = reference(ids)  # ints numbered in the reference order
    y = np.where(rng.random(3000) < 0.3, rng.integers(1, 4, 3000), 0)
    s = np.round(rng.random(3000), 1)  # ties
    s[rng.random(3000) < 0.05] = -np.inf  # not candidates
    for metric in METRICS:
        want = metric(y, s, query_id=codes, average=None)
        got = metric(y, s, query_id=ids, average=None)
        assert_array_equal(got, want)
        assert metric(y, s, query_id=ids) == metric(y, s, query_id=codes)
    # the report's per-query table (a pandas frame: pyarrow strings cannot
    # hold a lone surrogate, so that id is left out here)
    keep = np.array([v != "\ud800" and v != b"\xed\xa0\x80" for v in values])
    ids, codes = ids[keep], reference(ids[keep])[0]
    y, s = y[keep], s[keep]
    report = srm.ranking_report(y, s, query_id=ids, k=3, per_query=True)
    want = srm.ranking_report(y, s, query_id=codes, k=3, per_query=True)
    assert [reference(ids)[1][i] for i in want["query_id"]] == [
        u.item() if isinstance(u, np.generic) else u for u in report["query_id"]
    ]
    assert_array_equal(report["ndcg@3"], want["ndcg@3"])


def test_hand_worked_metric_with_lookalike_ids():
    # "7" holds the relevant item at rank 1 (RR 1); "7\x00" at rank 2 (RR 1/2);
    # "007" has none (skipped). Merged, "7" and "7\x00" would be one query.
    y = [1, 0, 0, 1, 0, 1]
    s = [0.9, 0.8, 0.9, 0.5, 0.4, 0.3]
    ids = np.array(["7", "7", "7\x00", "7\x00", "007", "007"], dtype=object)
    got = srm.reciprocal_rank_at_k(y, s, query_id=ids, average=None)
    # np.unique order: "007" < "7" < "7\x00"; "007": relevant 0.3 below 0.4
    assert_array_equal(got, [0.5, 1.0, 0.5])


def test_frame_ids_sort_as_the_array_ids():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(4)
    # (pyarrow strings, pandas' default, cannot hold a lone surrogate)
    values = _draw(rng, [v for v in LOOKALIKES if v != "\ud800"], 400)
    y = rng.integers(0, 2, 400)
    s = rng.random(400)
    frame = pd.DataFrame({"q": pd.Series(values, dtype=object), "y": y, "s": s})
    via_frame = srm.ranking_report(
        frame, query_col="q", label_col="y", score_col="s", k=3, per_query=True
    )
    via_arrays = srm.ranking_report(
        y, s, query_id=shared_objects(values), k=3, per_query=True
    )
    assert list(via_frame["query_id"]) == list(via_arrays["query_id"])
    assert list(via_frame["query_id"]) == reference(values)[1]
    assert_array_equal(via_frame["ndcg@3"], via_arrays["ndcg@3"])


# ---------------------------------------------------------------------------
# group_auc_score groups str objects without numbering them
# ---------------------------------------------------------------------------
def _object_kinds(users, rng):
    """The same queries under str ids held in several ways, with ids that
    look alike ("7", "007", "7\x00", "")."""
    names = [["7", "007", "7\x00", "", " 7"][u % 5] + "\x00" * (u // 5) for u in users]
    fresh = fresh_objects(names)
    some = shared_objects(names)
    late = rng.permutation(len(names))[: len(names) // 10]
    some[late] = fresh[late]  # equal ids in different objects, here and there
    return {"shared": shared_objects(names), "one per row": fresh, "some shared": some}


@pytest.mark.parametrize("sample_rows", [1, 4096])  # sample: the first row only
@pytest.mark.parametrize("skip", ["keep", "skip"])
@pytest.mark.parametrize("weighting", ["impressions", "clicks", "uniform"])
@pytest.mark.parametrize("bucket_rows", [4, 1 << 30])
@pytest.mark.parametrize("split_rows", [333, 1 << 30])
def test_gauc_of_str_objects_equals_one_pass_bit_for_bit(
    monkeypatch, split_rows, bucket_rows, weighting, skip, sample_rows
):
    """Unweighted GAUC with an object array of str ids: grouped by object
    (``_auc._gauc_unnumbered``) when each id is one object, numbered when
    the sample of rows (or, after the AUCs, the distinct objects) shows
    equal ids in different objects; the values are those of one pass over
    the rows numbered by np.unique, bit for bit, in np.unique's order."""
    from sklearn_rankmetrics._metrics import _auc
    from tests.test_gauc import _many_runs_log, _one_pass_gauc

    monkeypatch.setattr(_auc, "_BUCKET_ROWS", bucket_rows)
    monkeypatch.setattr(_auc, "_SPLIT_ROWS", split_rows)
    monkeypatch.setattr(_validation, "_SAMPLE_ROWS", sample_rows)
    y, s, users, _ = _many_runs_log(5, n_rows=2000, n_users=150)
    options = dict(query_weighting=weighting, constant_scores=skip)
    for kind, qid in _object_kinds(users, np.random.default_rng(6)).items():
        before = qid.copy()
        expected, query_w = _one_pass_gauc(y, s, qid, None, weighting, skip)
        keep = ~np.isnan(expected)
        mean = np.add.reduce(query_w[keep] * expected[keep]) / query_w[keep].sum()
        got = srm.group_auc_score(y, s, query_id=qid, average=None, **options)
        assert got.tobytes() == expected.tobytes(), kind
        assert srm.group_auc_score(y, s, query_id=qid, **options) == mean, kind
        assert all(a is b for a, b in zip(qid, before, strict=True))


def test_gauc_rows_of_each_id(monkeypatch):
    # _gauc_hashed(rows=True): one row of each id, in the order of the ids,
    # over many buckets and blocks
    from sklearn_rankmetrics._metrics import _auc

    monkeypatch.setattr(_auc, "_BUCKET_ROWS", 4)
    monkeypatch.setattr(_auc, "_SPLIT_ROWS", 100)
    rng = np.random.default_rng(7)
    qid = rng.choice(2**62, 300)[rng.integers(0, 300, 2000)]
    y, s = rng.integers(0, 2, 2000), rng.random(2000)
    auc, w, ids, first = _auc._gauc_hashed(
        y, s, qid, None, "impressions", "keep", rows=True
    )
    assert_array_equal(ids, np.unique(qid))
    assert_array_equal(qid[first], ids)
    plain = _auc._gauc_hashed(y, s, qid, None, "impressions", "keep")
    assert_array_equal(plain[0], auc) and assert_array_equal(plain[1], w)


# Look-alike ids that differ in few bits (packed_ids packs them in 64).
NARROW = ["7", "007", "07", "7 ", " 7", "\x007", "", " ", "a", "A", "70", "077"]


def _fixed_width_log(kind, lookalikes=FIXED):
    """``_many_runs_log``'s rows with its 150 users named by the look-alike
    ids ``lookalikes`` (and padded names), as the fixed-width array
    ``kind``."""
    from tests.test_gauc import _many_runs_log

    y, s, users, _ = _many_runs_log(5, n_rows=2000, n_users=150)
    names = lookalikes + [f"{i:03d}." for i in range(150 - len(lookalikes))]
    _, codes = np.unique(users, return_inverse=True)
    return y, s, KINDS[kind]([names[c] for c in codes])


@pytest.mark.parametrize(
    "collide",
    [None, "narrow ids", "latin-1 ids", "hash", "one hash", "hash = length"],
)
@pytest.mark.parametrize("skip", ["keep", "skip"])
@pytest.mark.parametrize("weighting", ["impressions", "clicks", "uniform"])
@pytest.mark.parametrize("bucket_rows", [4, 1 << 30])
@pytest.mark.parametrize("split_rows", [333, 1 << 30])
@pytest.mark.parametrize("kind", sorted(FIXED_WIDTH))
def test_gauc_of_fixed_width_ids_equals_one_pass_bit_for_bit(
    monkeypatch, kind, split_rows, bucket_rows, weighting, skip, collide
):
    """Unweighted GAUC with a U or S array of ids: ids that differ in few
    bits by their packed keys ("narrow ids": ``_validation.packed_ids``);
    others (the look-alikes, and every id with packing off) by a hash of
    their bytes (``_auc._gauc_fixed_width``; U ids of Latin-1 characters
    narrowed to one byte each first), each row checked against one
    row of its group; should hashes collide (forced here), the ids are
    numbered first.  The values are those of one pass over the rows
    numbered by np.unique, bit for bit, in np.unique's order."""
    from sklearn_rankmetrics._metrics import _auc
    from tests.test_gauc import _one_pass_gauc

    monkeypatch.setattr(_auc, "_BUCKET_ROWS", bucket_rows)
    monkeypatch.setattr(_auc, "_SPLIT_ROWS", split_rows)
    if collide not in (None, "narrow ids"):
        monkeypatch.setattr(_validation, "_PACKED_MAX_BITS", -1)
    if collide == "one hash":
        monkeypatch.setattr(
            _validation, "_row_hashes", lambda q: np.zeros(q.shape[0], np.uint64)
        )
    elif collide == "hash = length":  # some ids share a hash, not all
        monkeypatch.setattr(
            _validation,
            "_row_hashes",
            lambda q: np.char.str_len(q).astype(np.uint64),
        )
    pool = {"narrow ids": NARROW, "latin-1 ids": LATIN1}.get(collide, FIXED)
    y, s, qid = _fixed_width_log(kind, pool)
    packed = _validation.packed_ids(qid)
    assert (packed is not None) == (collide == "narrow ids")
    if qid.dtype.kind == "U":  # hashed as bytes, one per character
        assert (_validation.narrow_text(qid) is None) == (pool is FIXED)
    before = qid.copy()
    options = dict(query_weighting=weighting, constant_scores=skip)
    expected, query_w = _one_pass_gauc(y, s, qid, None, weighting, skip)
    keep = ~np.isnan(expected)
    mean = np.add.reduce(query_w[keep] * expected[keep]) / query_w[keep].sum()
    got = srm.group_auc_score(y, s, query_id=qid, average=None, **options)
    assert got.tobytes() == expected.tobytes()
    assert srm.group_auc_score(y, s, query_id=qid, **options) == mean
    assert_array_equal(qid, before)
    # the same queries as an object array of str: the same values
    as_str = np.array(
        [
            v.decode("utf-8", "surrogatepass") if kind == "bytes" else str(v)
            for v in qid.tolist()
        ],
        dtype=object,
    )
    assert (
        srm.group_auc_score(y, s, query_id=as_str, average=None, **options).tobytes()
        == expected.tobytes()
    )


def test_gauc_of_fixed_width_ids_by_hand():
    # A U array drops trailing NULs: "7" and "7\x00" are one query there
    # (rows 0-1: the positive 0.9 below the negative 0.95, AUC 0), two in a
    # list of str (each has one class: no AUC); "007" (rows 2-3: 0.3 above
    # 0.1, AUC 1) stays apart from "7".  np.unique order: "007" < "7".
    y, s = [1, 0, 1, 0], [0.9, 0.95, 0.3, 0.1]
    ids = ["7", "7\x00", "007", "007"]
    got = srm.group_auc_score(y, s, query_id=np.array(ids), average=None)
    assert_array_equal(got, [1.0, 0.0])
    got = srm.group_auc_score(y, s, query_id=ids, average=None)
    assert_array_equal(got, [1.0, np.nan, np.nan])  # "007", "7", "7\x00"
    # empty and non-ASCII ids, one row each of a two-row query: "" (0.4 vs
    # 0.6: AUC 0), "é" (0.8 vs 0.2: AUC 1), "ユ" (tie: 1/2); "" < "é" < "ユ"
    y, s = [1, 0, 1, 0, 1, 0], [0.4, 0.6, 0.8, 0.2, 0.5, 0.5]
    ids = np.array(["", "", "é", "é", "ユ", "ユ"])
    for qid in (ids, np.array([v.encode() for v in ids])):
        got = srm.group_auc_score(y, s, query_id=qid, average=None)
        assert_array_equal(got, [0.0, 1.0, 0.5])


def test_gauc_hashed_groups_of_the_rows(monkeypatch):
    # _gauc_hashed(groups=True): the query of each row, over many buckets
    # and blocks, names the rows of one id and only those
    from sklearn_rankmetrics._metrics import _auc

    monkeypatch.setattr(_auc, "_BUCKET_ROWS", 4)
    monkeypatch.setattr(_auc, "_SPLIT_ROWS", 100)
    rng = np.random.default_rng(8)
    qid = rng.choice(2**62, 300)[rng.integers(0, 300, 2000)]
    y, s = rng.integers(0, 2, 2000), rng.random(2000)
    auc, w, group = _auc._gauc_hashed(
        y, s, qid, None, "impressions", "keep", groups=True
    )
    first = np.empty(auc.shape[0], dtype=np.intp)
    first[group] = np.arange(2000)
    assert_array_equal(qid[first][group], qid)  # a group holds one id
    assert np.unique(qid[first]).shape[0] == auc.shape[0]  # an id one group
    plain = _auc._gauc_hashed(y, s, qid, None, "impressions", "keep")
    order = np.argsort(qid[first])
    assert_array_equal(auc[order], plain[0])
    assert_array_equal(w[order], plain[1])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text(alphabet="\x00 07aAé\uffffユ😀", max_size=6), min_size=1),
    st.booleans(),
)
def test_fixed_width_order_sorts_as_numpy(values, big_endian):
    # distinct ids of any width and characters, in any order; big-endian
    # U arrays and S arrays of the UTF-8 bytes too
    distinct = np.unique(np.array(values, dtype=str))[::-1]
    arrays = [distinct, np.unique(np.array([v.encode() for v in values]))[::-1]]
    if big_endian:
        arrays[0] = distinct.astype(distinct.dtype.newbyteorder(">"))
    for ids in arrays:
        want = np.argsort(ids, kind="stable")
        assert_array_equal(_validation.fixed_width_order(ids), want)


def _varying_span_bits(ids):
    """Slow reference of the bits packed_ids needs: per code point (``U``)
    or byte (``S``) position, the bits in which some id differs from the
    first, first to last; their total."""
    if ids.dtype.kind == "U":
        rows = [
            [ord(c) for c in v] + [0] * (ids.dtype.itemsize // 4 - len(v))
            for v in ids.tolist()
        ]
    else:
        rows = [list(v) + [0] * (ids.dtype.itemsize - len(v)) for v in ids.tolist()]
    return _span_total(rows)


def _span_total(rows):
    """Per column of ``rows`` (lists of ints), the span from the lowest to
    the highest bit in which some row differs from the first; their total."""
    total = 0
    for column in zip(*rows, strict=True):
        mask = 0
        for v in column:
            mask |= v ^ column[0]
        if mask:
            total += mask.bit_length() - ((mask & -mask).bit_length() - 1)
    return total


def _in_blocks(block_rows, func, *args, **kwargs):
    """``func(*args, **kwargs)`` with ``_validation``'s blocks of
    ``block_rows`` rows (a hypothesis test cannot take ``monkeypatch``)."""
    old = _validation._HASH_BLOCK_ROWS
    _validation._HASH_BLOCK_ROWS = block_rows
    try:
        return func(*args, **kwargs)
    finally:
        _validation._HASH_BLOCK_ROWS = old


def _id_lists(short, mixed, mixed_size):
    """Lists of 1-40 text ids: of the characters ``short`` (up to 12 of
    them) or ``mixed`` (up to ``mixed_size``)."""
    return st.lists(
        st.one_of(
            st.text(alphabet=short, max_size=12),
            st.text(alphabet=mixed, max_size=mixed_size),
        ),
        min_size=1,
        max_size=40,
    )


# rows per block of _validation's passes: one, a few, more than the ids
BLOCK_ROWS = st.sampled_from([1, 2, 3, 1 << 15])


@settings(max_examples=300, deadline=None)
@given(
    _id_lists("\x00 07a", "\x00 07aAé\uffffユ😀", 6),
    st.sampled_from(sorted(FIXED_WIDTH)),
    BLOCK_ROWS,
)
def test_packed_ids_number_and_order_as_numpy(values, kind, block_rows):
    # keys equal exactly when the ids are, in np.unique's order, whenever
    # the ids differ in at most 64 bits (first to last varying bit of each
    # code point or byte); None otherwise; over blocks of any size
    if kind == "bytes":
        values = [v.encode("utf-8", "surrogatepass") for v in values]
    else:
        values = [v.rstrip("\x00") for v in values]
    ids = KINDS[kind](values) if kind != "bytes" else np.array(values)
    before = ids.copy()
    keys = _in_blocks(block_rows, _validation.packed_ids, ids)
    assert_array_equal(ids, before)
    assert (keys is not None) == (_varying_span_bits(ids) <= 64)
    if keys is not None:
        assert keys.dtype == np.uint64
        _, key_codes = np.unique(keys, return_inverse=True)
        assert_array_equal(key_codes.reshape(-1), reference(ids)[0])
        # spread for a hash table, block by block: undone exactly
        spread = _in_blocks(block_rows, _validation.packed_ids, ids, spread=True)
        assert_array_equal(_validation.unspread_bits(spread), keys)


@settings(max_examples=300, deadline=None)
@given(
    _id_lists("\x00 07aé\xff", "\x00 7a\xff\u0100ユ😀", 4),
    st.sampled_from(sorted(FIXED_WIDTH - {"bytes"})),
    BLOCK_ROWS,
)
def test_narrow_text_equals_and_orders_as_the_ids(values, kind, block_rows):
    # U ids of Latin-1 characters (code points below 256) as bytes, one per
    # character: the same ids, equal and sorted alike; None as soon as one
    # code point is wider, in any block (the last one included)
    ids = KINDS[kind]([v.rstrip("\x00") for v in values])
    before = ids.copy()
    narrow = _in_blocks(block_rows, _validation.narrow_text, ids)
    assert_array_equal(ids, before)
    latin1 = all(ord(c) < 256 for v in values for c in v)
    assert (narrow is not None) == latin1
    if latin1:
        assert narrow.dtype == np.dtype(f"S{ids.dtype.itemsize // 4}")
        assert narrow.tolist() == [v.encode("latin-1") for v in ids.tolist()]
        assert_array_equal(reference(narrow)[0], reference(ids)[0])
        assert_array_equal(
            np.argsort(narrow, kind="stable"), np.argsort(ids, kind="stable")
        )


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=50))
def test_spread_bits_is_a_bijection(values):
    keys = np.array(values, dtype=np.uint64)
    spread = _validation.spread_bits(keys)
    assert_array_equal(_validation.unspread_bits(spread), keys)
    assert np.unique(spread).shape == np.unique(keys).shape
    inplace = keys.copy()
    assert _validation.spread_bits(inplace, out=inplace) is inplace
    assert_array_equal(inplace, spread)


@pytest.mark.parametrize("block_rows", [1, 3, 1 << 16])
def test_number_gives_a_row_of_each_code(block_rows, backend, monkeypatch):
    monkeypatch.setattr(_validation, "_NUMBER_BLOCK_ROWS", block_rows)
    rng = np.random.default_rng(7)
    x = rng.integers(0, 50, 1000) * 7919
    codes, rows = _validation._number(x)
    assert_array_equal(x[rows][codes], x)
    assert np.unique(x[rows]).shape[0] == rows.shape[0] == 50


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(
        st.one_of(st.integers(-(2**63), 2**63 - 1), st.integers(-3, 3)),
        min_size=1,
        max_size=60,
    ),
    signed=st.booleans(),
    block_rows=st.sampled_from([1, 4, 1 << 18]),
    bucket_rows=st.sampled_from([1, 3, 1 << 17]),
)
def test_numbering_in_buckets_is_exact(values, signed, block_rows, bucket_rows):
    # any block and bucket sizes (a bucket over several blocks, empty
    # buckets, one bucket), signed and unsigned ids, repeats: each code one
    # value, each value one code, and a row of each code
    pd = pytest.importorskip("pandas")
    x = np.array(values, dtype=np.int64)
    if not signed:
        x = x.view(np.uint64)
    old = _validation._BUCKET_BLOCK_ROWS, _validation._BUCKET_ROWS
    _validation._BUCKET_BLOCK_ROWS, _validation._BUCKET_ROWS = block_rows, bucket_rows
    try:
        codes, rows = _validation._number_in_buckets(pd, x)
    finally:
        _validation._BUCKET_BLOCK_ROWS, _validation._BUCKET_ROWS = old
    assert codes.dtype == rows.dtype == np.intp
    assert_array_equal(x[rows][codes], x)
    assert sorted(x[rows].tolist()) == sorted(set(x.tolist()))


def test_numbering_in_buckets_only_for_many_scattered_ints(monkeypatch):
    # buckets pay for a radix sort of every block: only when a sample shows
    # many distinct values (one table would miss the caches) in rows not
    # grouped by value (one table would then be read in order)
    pd = pytest.importorskip("pandas")
    monkeypatch.setattr(_validation, "_BUCKET_MIN_ROWS", 1000)
    monkeypatch.setattr(_validation, "_BUCKET_SAMPLE_ROWS", 100)
    many_values = partial(_validation._many_scattered_values, pd)
    rng = np.random.default_rng(4)
    many = rng.integers(0, 2**62, 5000)
    assert many_values(many)
    assert many_values(many.view(np.uint64))
    assert not many_values(many[:999])  # too few rows
    assert not many_values(many % 40)  # few values
    assert not many_values(np.sort(many % 2500))  # grouped
    assert not many_values(many.astype(np.int32))
    assert not many_values(many.astype(object))
    # and _number then numbers them in buckets, exactly
    calls = []
    real = _validation._number_in_buckets
    monkeypatch.setattr(
        _validation,
        "_number_in_buckets",
        lambda pd, x: calls.append(1) or real(pd, x),
    )
    monkeypatch.setattr(_validation, "_HASH_MIN_ROWS", 0)
    codes, rows = _validation._number(many)
    assert calls == [1]
    assert_array_equal(many[rows][codes], many)


def test_packed_ids_by_hand():
    # "user12345": the 5 digits vary in their 4 low bits (0x30-0x39): 20
    # bits, keys in the ids' order; ids equal everywhere: one key
    ids = np.array(["user10", "user09", "user10", "user99", "user00"])
    keys = _validation.packed_ids(ids)
    assert keys.tolist() == [0x10, 0x09, 0x10, 0x99, 0x00]
    assert _validation.packed_ids(np.array(["ab", "ab"])).tolist() == [0, 0]
    # "7", "7 ", "07": the first code point varies in bits 0-2 (0x37, 0x30),
    # the second in bits 0-5 (0, 0x20 for the trailing space, 0x37): keys
    # (7 << 6) | 0, (7 << 6) | 0x20 and (0 << 6) | 0x37, in the ids' order
    keys = _validation.packed_ids(np.array(["7", "7 ", "07"]))
    assert keys.tolist() == [448, 480, 55]
    # random hex ids of 32 characters differ in far more than 64 bits
    rng = np.random.default_rng(3)
    uuids = np.array([rng.bytes(16).hex() for _ in range(100)])
    assert _validation.packed_ids(uuids) is None
    assert _validation.packed_ids(np.array([], dtype=str)) is None


@pytest.mark.parametrize("kind", sorted(FIXED_WIDTH))
def test_narrow_ids_numbered_by_their_packed_keys(kind, backend):
    rng = np.random.default_rng(4)
    ids = KINDS[kind](_draw(rng, NARROW, 3000))
    assert _validation.packed_ids(ids) is not None
    _check(ids)
    _check(KINDS[kind](["user12345", "user12344", "user02345", "user12345"]))


@pytest.mark.parametrize("ties", [0.0, 0.125, 1.0])
@pytest.mark.parametrize("max_keys", [0, 1, 3])
def test_fixed_width_order_of_wide_ids(max_keys, ties, monkeypatch):
    # ids that differ in more words than lexsort takes are sorted as strings
    # (U arrays of over 2 * max_keys words; S arrays of over 128 bytes);
    # ids sorted by their first word, then the runs that share it by all
    # words (ties=1: always; 0: never, the whole sort instead)
    monkeypatch.setattr(_validation, "_LEXSORT_MAX_KEYS", max_keys)
    monkeypatch.setattr(_validation, "_TIES_MAX_FRACTION", ties)
    rng = np.random.default_rng(6)
    for width in (3, 16, 40, 100, 200):
        values = {rng.bytes(width // 2 + 1).hex()[:width] for _ in range(300)}
        values |= {"", "0", "00", "0\x00" + "f" * 10}
        # runs of ids that share their first 8 bytes (2 code points)
        shared = rng.bytes(4).hex()
        values |= {(shared + rng.bytes(8).hex())[:width] for _ in range(20)}
        values |= {shared[:2] + "\x00" * 3, shared[:2] + "\x00" * 3 + "1"}
        ids = np.array(sorted(values))[rng.permutation(len(values))]
        for arr in (ids, np.char.encode(ids), ids.astype(ids.dtype.newbyteorder(">"))):
            want = np.argsort(arr, kind="stable")
            assert_array_equal(_validation.fixed_width_order(arr), want)


@settings(max_examples=200, deadline=None)
@given(
    st.sets(st.tuples(*[st.integers(0, 3)] * 3), min_size=1, max_size=60),
    st.sampled_from([0.0, 0.125, 1.0]),
    st.sampled_from([0, 3]),
)
def test_words_order_is_lexsort(rows, ties, max_keys):
    # distinct ids as columns of words, the first most significant: sorted
    # by the first varying word, then the runs that share it by all (or
    # the whole lexsort when more share it than _TIES_MAX_FRACTION); words
    # of few values (many ties), the first in its top bits
    words = np.array(sorted(rows), dtype=np.uint64).T.copy()
    words[0] <<= np.uint64(62)
    shuffle = np.random.default_rng(len(rows)).permutation(words.shape[1])
    words = words[:, shuffle]
    old = _validation._TIES_MAX_FRACTION, _validation._LEXSORT_MAX_KEYS
    _validation._TIES_MAX_FRACTION, _validation._LEXSORT_MAX_KEYS = ties, max_keys
    try:
        got = _validation.words_order(list(words))
    finally:
        _validation._TIES_MAX_FRACTION, _validation._LEXSORT_MAX_KEYS = old
    assert_array_equal(got, np.lexsort(words[::-1]))
    assert_array_equal(got, np.argsort(shuffle))  # the rows were sorted


@settings(max_examples=400, deadline=None)
@given(
    st.data(),
    st.sampled_from([16, 32, 48, 64]),
    st.sampled_from([0.0, 0.125]),
    st.sampled_from([0, 8, 64]),
)
def test_words_order_by_leading_bits_and_radix(data, leading_bits, ties, passes):
    # one to three words, each varying in its own span of bits (above,
    # across and below the leading window; a prefix equal in every id
    # above it), few or many ids sharing their leading bits; by the radix
    # sort of the varying digits, the leading bits and the ties, or
    # lexsort: always np.lexsort's order
    n_words = data.draw(st.integers(1, 3), label="words")
    spans = []
    for _ in range(n_words):
        width = data.draw(st.integers(1, 64), label="width")
        shift = data.draw(st.integers(0, 64 - width), label="shift")
        prefix = data.draw(st.integers(0, 2**64 - 1), label="prefix")
        top = width + shift
        spans.append((width, shift, prefix >> top << top if top < 64 else 0))
    rows = data.draw(
        st.sets(
            st.tuples(*[st.integers(0, 2**w - 1) for w, _, _ in spans]),
            min_size=1,
            max_size=60,
        ),
        label="rows",
    )
    words = [
        np.array([r[j] for r in rows], dtype=np.uint64) << np.uint64(shift)
        | np.uint64(above)
        for j, (_, shift, above) in enumerate(spans)
    ]
    settings_ = {
        "_LEADING_BITS": leading_bits,
        "_TIES_MAX_FRACTION": ties,
        "_RADIX_MAX_PASSES": passes,
    }
    old = {name: getattr(_validation, name) for name in settings_}
    for name, value in settings_.items():
        setattr(_validation, name, value)
    try:
        got = _validation.words_order(words)
    finally:
        for name, value in old.items():
            setattr(_validation, name, value)
    assert_array_equal(got, np.lexsort(words[::-1]))


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["int8", "uint8", "int32", "uint32", "int64", "uint64"]),
    st.data(),
)
def test_distinct_ints_order_is_argsort(dtype, data):
    # distinct ids of every int dtype, the extremes and the sign included:
    # the order of their argsort
    info = np.iinfo(dtype)
    edges = st.sampled_from([info.min, info.max, 0, -1 if info.min else 1])
    values = data.draw(
        st.sets(st.integers(int(info.min), int(info.max)) | edges, max_size=60)
    )
    ids = np.array(sorted(values), dtype=dtype)
    ids = ids[np.random.default_rng(len(values)).permutation(ids.shape[0])]
    got = _validation.distinct_ints_order(ids)
    assert_array_equal(got, np.argsort(ids, kind="stable"))


def test_gauc_bad_object_ids_found_after_the_sample(monkeypatch):
    # the sample reads the first row only: a None or an int further down is
    # found when the groups are named, then reported as the numbering does
    monkeypatch.setattr(_validation, "_SAMPLE_ROWS", 1)
    y, s = [1, 0, 1, 0, 1, 0], [0.9, 0.1, 0.8, 0.2, 0.7, 0.3]
    ids = np.array(["a", "a", "b", "b", None, None], dtype=object)
    with pytest.raises(ValueError, match="query_id contains None.*row 4"):
        srm.group_auc_score(y, s, query_id=ids)
    ids = np.array(["a", "a", "b", "b", 7, 7], dtype=object)
    with pytest.raises(TypeError, match="query_id mixes types"):
        srm.group_auc_score(y, s, query_id=ids)


@pytest.mark.parametrize("form", ["long", "dense"])
def test_gauc_skip_constant_scores_when_no_row_is_read(form):
    # every row a non-candidate negative: no AUC (nan and the warning), not
    # an IndexError from the constant-score check (found by the buckets of
    # the str-object path, where one bucket can hold only such a query)
    from sklearn.exceptions import UndefinedMetricWarning

    if form == "long":
        args = ([0, 0], [-np.inf, -np.inf]), {"query_id": ["q", "q"]}
    else:
        args = ([[0, 0]], [[-np.inf, -np.inf]]), {}
    with pytest.warns(UndefinedMetricWarning):
        got = srm.group_auc_score(*args[0], **args[1], constant_scores="skip")
    assert np.isnan(got)


def _frames_of(values, y, s):
    """The same table as every frame kind installed, text ids of every
    storage: pandas object, pandas' string dtype on pyarrow, category (with
    a category no row has), pyarrow string, string views and dictionary,
    polars String (string views) and Categorical."""
    out = {}
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        pd = None
    if pd is not None:
        base = {"y": y, "s": s}
        out["pandas object"] = pd.DataFrame(
            {"q": pd.Series(values, dtype=object), **base}
        )
        out["pandas str"] = pd.DataFrame({"q": pd.Series(values, dtype="str"), **base})
        cat = pd.Categorical(values, categories=sorted(set(values)) + ["unused"])
        out["pandas category"] = pd.DataFrame({"q": cat, **base})
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover
        pa = None
    if pa is not None:
        q = pa.array(values, type=pa.string())
        out["pyarrow string"] = pa.table({"q": q, "y": y, "s": s})
        out["pyarrow large_string"] = pa.table(
            {"q": q.cast(pa.large_string()), "y": y, "s": s}
        )
        out["pyarrow dictionary"] = pa.table(
            {"q": q.dictionary_encode(), "y": y, "s": s}
        )
        if hasattr(pa, "string_view"):  # (polars' layout, read in place)
            views = q.cast(pa.string_view())
            out["pyarrow string_view"] = pa.table({"q": views, "y": y, "s": s})
    try:
        import polars as pl
    except ImportError:  # pragma: no cover
        pl = None
    if pl is not None:
        q = pl.Series("q", values, dtype=pl.String)
        out["polars String"] = pl.DataFrame({"q": q, "y": y, "s": s})
        out["polars Categorical"] = pl.DataFrame(
            {"q": q.cast(pl.Categorical), "y": y, "s": s}
        )
    return out


def _frames_match_the_arrays(values, rng, n):
    """Per-query NDCG@3 of a random log whose query ids are ``values``,
    from every frame kind installed (:func:`_frames_of`), equal to the
    array path's (ids and values) and in the reference order; returns the
    labels, scores and frames."""
    y = rng.integers(0, 3, n)
    s = np.round(rng.random(n), 2)
    want = srm.ranking_report(
        y, s, query_id=shared_objects(values), k=3, per_query=True, metrics=["ndcg"]
    )
    assert list(want["query_id"]) == reference(values)[1]
    frames = _frames_of(values, y, s)
    for kind, frame in frames.items():
        got = srm.ranking_report(
            frame,
            query_col="q",
            label_col="y",
            score_col="s",
            k=3,
            per_query=True,
            metrics=["ndcg"],
        )
        assert list(got["query_id"]) == list(want["query_id"]), kind
        assert_array_equal(got["ndcg@3"], want["ndcg@3"], err_msg=kind)
    return y, s, frames


@pytest.mark.parametrize("n", [50, 70_000])  # below and above the hash threshold
def test_frames_of_every_text_storage_give_the_array_values(n):
    # Arrow sorts the distinct ids by their UTF-8 bytes, Python by code
    # points: the same order (no surrogates in Arrow strings)
    rng = np.random.default_rng(5)
    pool = [v for v in LOOKALIKES if v != "\ud800"] + ["\U0001f600a", "\uffff", "z"]
    values = _draw(rng, pool, n)
    y, s, frames = _frames_match_the_arrays(values, rng, n)
    for kind, frame in frames.items():
        assert srm.ndcg_at_k(
            frame, query_col="q", label_col="y", score_col="s", k=3
        ) == srm.ndcg_at_k(y, s, query_id=values, k=3), kind


def test_a_list_of_str_keeps_its_ids():
    # np.asarray(list) would make a "U" array and drop the NUL: "7" and
    # "7\x00" one query; the list's own str objects are numbered instead
    codes, uniques = check_query_id(["7", "7\x00", "007", "7"], 4)
    assert uniques.tolist() == ["007", "7", "7\x00"] and uniques.dtype == object
    assert codes.tolist() == [1, 2, 0, 1]
    got = srm.reciprocal_rank_at_k(
        [1, 0, 0, 1],
        [0.9, 0.8, 0.5, 0.1],
        query_id=("7", "7", "7\x00", "7\x00"),
        average=None,
    )
    assert_array_equal(got, [1.0, 0.5])  # "7": rank 1; "7\x00": rank 2
    with pytest.raises(TypeError, match="mixes strings with other ids"):
        check_query_id(["a", 1], 2)
    with pytest.raises(ValueError, match="contains None.*row 1"):
        check_query_id(["a", None], 2)


def _has(module):
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def test_the_table_reader_keeps_text_ids_exact():
    # read_table (recommendation_table_report's reader) numbers id columns
    # by the same hash pass as the frame forms (factorize_ids): each storage
    # gives back the rows' own ids, look-alikes apart, each distinct id once
    from sklearn_rankmetrics._io._dataframe import FactorizedIds, read_table

    rng = np.random.default_rng(6)
    values = _draw(rng, [v for v in LOOKALIKES if v != "\ud800"], 300)
    y, s = rng.integers(0, 2, 300), rng.random(300)
    for kind, frame in _frames_of(values, y, s).items():
        read = read_table(frame, {"user": "q"}, caller="f", arg="t", ids=("user",))
        ids = read.columns["user"]
        # objects are not numbered (1 == True), pandas < 3's "str" is
        # objects, and polars reaches Arrow with pyarrow only
        plain = kind == "pandas object" or (
            kind == "pandas str" and frame["q"].dtype == object
        )
        plain = plain or (kind.startswith("polars") and not _has("pyarrow"))
        if plain:
            assert ids.tolist() == values, kind
            continue
        assert isinstance(ids, FactorizedIds), kind
        assert len(set(ids.uniques.tolist())) == ids.uniques.shape[0], kind
        assert ids.uniques[ids.codes].tolist() == values, kind
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame(
        {"q": pd.Series(["7", "7\x00", None], dtype="string[pyarrow]")}
    )
    with pytest.raises(ValueError, match=r"'q' \(user\) of t has 1 null .* row 2"):
        read_table(frame, {"user": "q"}, caller="f", arg="t", ids=("user",))


# ---------------------------------------------------------------------------
# Arrow text whose ids all take the same number of bytes: read in place
# ---------------------------------------------------------------------------
def _equal_width(values):
    """The ids padded with NUL characters to the byte length of the longest
    (trailing NULs: ids a ``S`` or ``U`` array would merge with others)."""
    width = max((len(v.encode()) for v in values), default=0)
    return [v + "\x00" * (width - len(v.encode())) for v in values]


_ARROW_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",)), max_size=4
)  # (Arrow strings hold no lone surrogate)


@settings(max_examples=150, deadline=None)
@given(
    values=st.lists(_ARROW_TEXT, min_size=1, max_size=60),
    large=st.booleans(),
    cut=st.integers(0, 3),
)
def test_equal_width_arrow_text_numbered_as_the_reference(values, large, cut):
    pa = pytest.importorskip("pyarrow")
    from sklearn_rankmetrics._io._dataframe import _equal_width_numbering

    ids = _equal_width(["", *values])[1:]  # "" sets no width, "\x00" may
    kind = pa.large_string() if large else pa.string()
    text = pa.array(["pad"] * cut + ids, type=kind).slice(cut)  # an offset
    got = _equal_width_numbering(text)
    if len(ids[0].encode()) == 0:  # no bytes: Arrow's dictionary instead
        assert got is None
        return
    codes, distinct = reference(ids)
    assert got.in_order
    assert_array_equal(got.codes, codes)
    assert got.uniques.dtype == object and got.uniques.tolist() == distinct


def test_equal_width_numbering_hand_worked_and_refusals(monkeypatch):
    pa = pytest.importorskip("pyarrow")
    from sklearn_rankmetrics._io import _dataframe

    # 2 bytes each: "a\x00" (61 00) < "ab" (61 62) < "é" (c3 a9)
    ids = ["ab", "é", "a\x00", "ab", "é"]
    got = _dataframe._equal_width_numbering(pa.array(ids))
    assert got.uniques.tolist() == ["a\x00", "ab", "é"]
    assert got.codes.tolist() == [1, 2, 0, 1, 2]
    assert sorted(set(ids)) == ["a\x00", "ab", "é"]  # Python's order agrees
    # other arrays: left to Arrow's dictionary_encode
    for other in (
        pa.array(["ab", "a", "abc"]),  # 6 bytes = 3 x 2, widths differ
        pa.array(["a", "abc"]),
        pa.array(["ab", None]),
        pa.array([], type=pa.string()),
        pa.array(["", ""]),
    ):
        assert _dataframe._equal_width_numbering(other) is None
    # two ids sharing a hash: refused here, numbered by Arrow, exactly
    monkeypatch.setattr(_validation, "_PACKED_MAX_BITS", -1)
    monkeypatch.setattr(
        _validation, "_row_hashes", lambda q: np.zeros(q.shape[0], np.uint64)
    )
    assert _dataframe._equal_width_numbering(pa.array(ids)) is None
    # (then numbered as ids of any widths, in np.unique's order)
    via_arrow = _dataframe._arrow_factorize(pa.array(ids))
    assert via_arrow.uniques.tolist() == ["a\x00", "ab", "é"]
    assert via_arrow.codes.tolist() == [1, 2, 0, 1, 2]


@pytest.mark.parametrize("n", [50, 70_000])
def test_frames_of_equal_width_text_give_the_array_values(n):
    # the same as test_frames_of_every_text_storage_give_the_array_values
    # with ids of one byte length (the in-place path of Arrow text)
    rng = np.random.default_rng(8)
    pool = _equal_width(["7", "007", "07", "7\x00", "ß", "é7", "\x007", "a", "A"])
    values = _draw(rng, pool, n)
    y, s, frames = _frames_match_the_arrays(values, rng, n)


# ---------------------------------------------------------------------------
# Arrow text whose ids take different numbers of bytes: read in place
# ---------------------------------------------------------------------------
@settings(max_examples=150, deadline=None)
@given(
    values=st.lists(
        st.one_of(
            _ARROW_TEXT,
            st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30),
        ),
        min_size=1,
        max_size=60,
    ),
    large=st.booleans(),
    cut=st.integers(0, 3),
)
def test_varied_width_arrow_text_numbered_exactly(values, large, cut):
    # codes of any order, but exact: the distinct ids, each once, give back
    # every row's id (look-alikes, NULs, empty ids, ids shorter than 8
    # bytes at the start of the data next to longer ones, an offset)
    pa = pytest.importorskip("pyarrow")
    from sklearn_rankmetrics._io._dataframe import _varied_width_numbering

    kind = pa.large_string() if large else pa.string()
    text = pa.array(["pad"] * cut + values, type=kind).slice(cut)
    codes, rows, _ = _varied_width_numbering(text)
    distinct = [values[r] for r in rows]
    assert len(set(distinct)) == len(distinct)
    assert [distinct[c] for c in codes] == values


def test_varied_width_numbering_hand_worked_and_refusals(monkeypatch, backend):
    pa = pytest.importorskip("pyarrow")
    from sklearn_rankmetrics._io import _dataframe

    # "7", "007", "7\x00" (2 bytes), "" and "é" are five ids, numbered in
    # np.unique's order: "" < "007" < "7" < "7\x00" < "xx..." < "é"
    ids = ["7", "007", "7\x00", "", "é", "7", "7\x00", "x" * 20]
    codes, rows, in_order = _dataframe._varied_width_numbering(pa.array(ids))
    assert in_order
    assert [ids[r] for r in rows] == ["", "007", "7", "7\x00", "x" * 20, "é"]
    assert codes.tolist() == [2, 1, 3, 0, 5, 2, 3, 4]
    # fewer than 8 bytes of data in all; only empty ids
    for few in (["a", "", "b", "a"], ["", ""]):
        codes, rows, _ = _dataframe._varied_width_numbering(pa.array(few))
        assert [[few[r] for r in rows][c] for c in codes] == few
        assert len(rows) == len(set(few))
    # left to Arrow's dictionary_encode: nulls, ids over 128 bytes, no rows
    for other in (
        pa.array(["ab", None, "a"]),
        pa.array(["a", "y" * 129]),
        pa.array([], type=pa.string()),
    ):
        assert _dataframe._varied_width_numbering(other) is None
    # ids sharing a hash: refused here, numbered by Arrow, exactly (ids of
    # few varying bits are packed, not hashed: not here)
    monkeypatch.setattr(_validation, "_PACKED_MAX_BITS", -1)
    for collide in (
        lambda w, o, lengths, k: np.zeros(lengths.shape[0], np.uint64),
        lambda w, o, lengths, k: lengths.astype(np.uint64),  # same length
    ):
        monkeypatch.setattr(_dataframe, "_varied_hashes", collide)
        assert _dataframe._varied_width_numbering(pa.array(ids)) is None
        via_arrow = _dataframe._arrow_factorize(pa.array(ids))
        assert via_arrow.uniques[via_arrow.codes].tolist() == ids
    # ids of different lengths only share no hash under "hash = length"
    assert _dataframe._varied_width_numbering(pa.array(["a", "bb", "ccc"]))


def _packed_span_bits(values):
    """Slow reference of the bits _packed_text needs for Arrow text: each
    id's UTF-8 bytes zero-padded to whole 8-byte words, each word as a
    big-endian number, then the length; per word (and for the length) the
    span from the lowest to the highest bit in which some id differs from
    the first; their total."""
    data = [v.encode() for v in values]
    n_words = max(1, -(-max(map(len, data)) // 8))
    rows = [
        [
            int.from_bytes(d.ljust(8 * n_words, b"\x00")[8 * j : 8 * j + 8], "big")
            for j in range(n_words)
        ]
        + [len(d)]
        for d in data
    ]
    return _span_total(rows)


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(
        st.one_of(
            st.text(alphabet="\x00 07a", max_size=10),
            st.text(alphabet="\x00 7éユ😀", max_size=4),
        ),
        min_size=1,
        max_size=40,
    ),
    large=st.booleans(),
    cut=st.integers(0, 3),
    block_rows=st.sampled_from([1, 3, 1 << 15]),
)
def test_varied_width_text_packed_in_order(values, large, cut, block_rows):
    # ids that differ in at most 64 bits (words and length) get exact keys
    # in their order: the codes and distinct rows of np.unique; others the
    # hash path, exact in any order; ids at the data's end (shorter than a
    # word after longer ones), an offset, blocks of any size
    pa = pytest.importorskip("pyarrow")
    from sklearn_rankmetrics._io import _dataframe

    kind = pa.large_string() if large else pa.string()
    text = pa.array(["pad"] * cut + values, type=kind).slice(cut)
    hashed = []  # whether the hash path ran
    hashes = _dataframe._varied_hashes
    old = _dataframe._VARIED_BLOCK_ROWS
    _dataframe._VARIED_BLOCK_ROWS = block_rows
    _dataframe._varied_hashes = lambda *a: hashed.append(1) or hashes(*a)
    try:
        codes, rows, in_order = _dataframe._varied_width_numbering(text)
    finally:
        _dataframe._VARIED_BLOCK_ROWS = old
        _dataframe._varied_hashes = hashes
    assert bool(hashed) == (_packed_span_bits(values) > 64)
    assert in_order  # packed or hashed, then the distinct ids sorted
    want_codes, want_distinct = reference(values)
    assert [values[r] for r in rows] == want_distinct
    assert_array_equal(codes, want_codes)


def _slow_words(data, start, length, n_words):
    """An id's bytes zero-padded to ``n_words`` little-endian words."""
    start, length = int(start), int(length)
    raw = bytes(data[start : start + length]).ljust(8 * n_words, b"\x00")
    return np.frombuffer(raw, dtype="<u8")


@pytest.mark.parametrize("n_words", [1, 2, 4, 16])
def test_buffer_words_read_records_to_the_buffers_end(n_words):
    # one record of 8 * n_words bytes a row, cleared past the id's end; ids
    # near the end of the buffer (or in a buffer shorter than a record) are
    # read from a zero-padded copy of its last bytes, never past it
    from sklearn_rankmetrics._io import _dataframe

    rng = np.random.default_rng(n_words)
    width = 8 * n_words
    for size in (0, 1, 7, width - 1, width, width + 1, 3 * width + 5):
        data = rng.integers(1, 256, size, dtype=np.uint8)  # no zero byte
        starts, lengths = [], []
        for start in range(size + 1):
            for length in {0, 1, width // 2, width, size - start}:
                if 0 <= length <= min(width, size - start):
                    starts.append(start)
                    lengths.append(length)
        for kind in (np.int32, np.int64):
            got = _dataframe._buffer_words(
                data, np.array(starts, kind), np.array(lengths, kind), n_words
            )
            assert got.shape == (len(starts), n_words)
            for row, (start, length) in enumerate(zip(starts, lengths, strict=True)):
                want = _slow_words(data, start, length, n_words)
                assert_array_equal(got[row], want)


def test_buffer_words_past_int32_positions():
    # a buffer of over 2 GiB (zeros: pages never written are not taken):
    # int32 starts up to int32's largest and int64 starts past it; the
    # last start of a whole record is then past int32's range
    from sklearn_rankmetrics._io import _dataframe

    big = (1 << 31) + 40
    data = np.zeros(big, dtype=np.uint8)
    top = (1 << 31) - 1
    data[top - 20 :] = np.arange(1, big - top + 21, dtype=np.uint8)
    for kind, starts in (
        (np.int32, [top - 20, top - 3, top]),
        (np.int64, [top - 3, top + 1, big - 5, big - 1]),
    ):
        starts = np.array(starts, dtype=kind)
        lengths = np.minimum(12, big - starts.astype(np.int64)).astype(kind)
        got = _dataframe._buffer_words(data, starts, lengths, 2)
        for row, (start, length) in enumerate(zip(starts, lengths, strict=True)):
            assert_array_equal(got[row], _slow_words(data, start, length, 2))


def test_varied_width_text_packed_by_hand():
    pa = pytest.importorskip("pyarrow")
    from sklearn_rankmetrics._io import _dataframe

    # "u1" < "u1\x00" (a prefix first) < "u10" < "u2"; "" first
    ids = ["u1", "u10", "u2", "u1\x00", "", "u1"]
    codes, rows, in_order = _dataframe._varied_width_numbering(pa.array(ids))
    assert in_order
    assert [ids[r] for r in rows] == ["", "u1", "u1\x00", "u10", "u2"]
    assert codes.tolist() == [1, 3, 4, 2, 0, 1]
    # 20-byte ids that differ in their last 4 digits only: 3 words, packed
    ids = [f"user-0000-0000-{i:04d}" for i in (7, 3, 7, 9999)]
    codes, rows, in_order = _dataframe._varied_width_numbering(pa.array(ids))
    assert in_order and codes.tolist() == [1, 0, 1, 2]
    # random hex ids: far more than 64 varying bits, the hash path, the
    # distinct ids then sorted by their words
    rng = np.random.default_rng(5)
    hexes = [rng.bytes(8).hex() for _ in range(20)]
    ids = hexes + ["a", hexes[0][:9], hexes[1]]  # a prefix, a repeat
    codes, rows, in_order = _dataframe._varied_width_numbering(pa.array(ids))
    assert in_order
    assert [ids[r] for r in rows] == sorted(set(ids))
    assert [sorted(set(ids))[c] for c in codes] == ids


@pytest.mark.parametrize("narrow", [False, True])
@pytest.mark.parametrize("n", [50, 70_000])
def test_frames_of_varied_width_text_give_the_array_values(n, narrow):
    # test_frames_of_every_text_storage_give_the_array_values with ids of
    # at most 128 bytes (the in-place path of Arrow text of varied widths;
    # narrow: ids of few varying bits, numbered by their packed keys)
    rng = np.random.default_rng(9)
    pool = [v for v in LOOKALIKES if v != "\ud800" and len(v.encode()) <= 128]
    pool += ["\U0001f600a", "\uffff", "z"]
    if narrow:
        pool = NARROW + ["7\x00", "\x00", "a\x00b"]
    values = _draw(rng, pool, n)
    y, s, frames = _frames_match_the_arrays(values, rng, n)


# Arrow string views (polars' strings): read in place, over their buffers
# ---------------------------------------------------------------------------
def _string_views(pa, values, chunks, cut, scatter, rng):
    """``values`` as an Arrow array of string views: made in ``chunks``
    pieces (one data buffer each, so ids of more than 12 bytes lie in
    several buffers), at an offset ``cut``; with ``scatter``, its views
    permuted and put back in the order of ``values`` by a second
    permutation, so neighbouring rows point into different buffers (a
    frame sorted after its strings were made)."""
    padded = ["pad-pad-pad-pad"] * cut + list(values)
    order = rng.permutation(len(padded)) if scatter else np.arange(len(padded))
    made = [padded[i] for i in order]
    bounds = np.linspace(0, len(made), chunks + 1).astype(int)
    pieces = [
        pa.array(made[a:b], type=pa.string_view())
        for a, b in zip(bounds[:-1], bounds[1:], strict=True)
        if b > a
    ]
    text = pa.concat_arrays(pieces) if len(pieces) > 1 else pieces[0]
    if scatter:  # back to the order of `padded`, views only
        buffers = text.buffers()
        records = np.frombuffer(buffers[1], dtype="V16", count=len(text))
        back = np.empty_like(order)
        back[order] = np.arange(order.shape[0])
        text = pa.Array.from_buffers(
            text.type, len(text), [None, pa.py_buffer(records[back]), *buffers[2:]]
        )
    assert text.to_pylist() == padded
    return text.slice(cut)


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(
        st.one_of(
            st.text(alphabet="\x00 07a", max_size=16),  # about 12 bytes
            st.text(alphabet="\x00 7éユ😀", max_size=9),
            _ARROW_TEXT,
        ),
        min_size=1,
        max_size=50,
    ),
    chunks=st.integers(1, 4),
    cut=st.integers(0, 3),
    scatter=st.booleans(),
    block_rows=st.sampled_from([1, 3, 1 << 15]),
    packed=st.booleans(),
)
def test_string_views_numbered_as_the_reference(
    values, chunks, cut, scatter, block_rows, packed
):
    # ids in their views (up to 12 bytes) and in data buffers, look-alikes
    # at the inline limit, several buffers, an offset, views scattered over
    # the buffers; blocks of rows within one buffer or across several;
    # packed keys or hashes: the codes and distinct ids of np.unique
    pa = pytest.importorskip("pyarrow")
    if not hasattr(pa.types, "is_string_view"):
        pytest.skip("pyarrow without string views")
    from sklearn_rankmetrics._io import _dataframe

    rng = np.random.default_rng(len(values) + 7 * chunks + cut)
    text = _string_views(pa, values, chunks, cut, scatter, rng)
    want_codes, want_distinct = reference(values)
    old = (_dataframe._VARIED_BLOCK_ROWS, _validation._PACKED_MAX_BITS)
    _dataframe._VARIED_BLOCK_ROWS = block_rows
    if not packed:
        _validation._PACKED_MAX_BITS = -1
    try:
        in_place = _dataframe._text_bytes(text) is not None
        numbered = _dataframe._varied_width_numbering(text)
        got = _dataframe._arrow_factorize(text)
    finally:
        _dataframe._VARIED_BLOCK_ROWS, _validation._PACKED_MAX_BITS = old
    if block_rows == 1:  # any layout is read in place with blocks of 1 row
        assert in_place
    if in_place:
        codes, rows, in_order = numbered
        assert in_order
        assert [values[r] for r in rows] == want_distinct
        assert_array_equal(codes, want_codes)
    assert got.in_order
    assert_array_equal(got.codes, want_codes)
    assert got.uniques.dtype == object and got.uniques.tolist() == want_distinct


def test_string_views_by_hand(monkeypatch):
    pa = pytest.importorskip("pyarrow")
    if not hasattr(pa.types, "is_string_view"):
        pytest.skip("pyarrow without string views")
    from sklearn_rankmetrics._io import _dataframe

    # 12 bytes: in the view; 13: in a data buffer, its first 4 bytes in
    # the view too.  "abcdefghijkl" < "abcdefghijkl\x00" < "abcdefghijklm"
    twelve = "abcdefghijkl"
    ids = [twelve + "m", twelve, "7", twelve + "\x00", "007", "", twelve + "m"]
    text = pa.array(ids, type=pa.string_view())
    # (ids in views and in buffers alternate: read in place in blocks of
    # a row; in longer blocks, cast)
    monkeypatch.setattr(_dataframe, "_VARIED_BLOCK_ROWS", 1)
    source, starts, lengths, n_words = _dataframe._text_bytes(text)
    assert lengths.tolist() == [13, 12, 1, 13, 3, 0, 13]
    assert n_words == 2
    codes, rows, in_order = _dataframe._varied_width_numbering(text)
    assert in_order
    order = ["", "007", "7", twelve, twelve + "\x00", twelve + "m"]
    assert [ids[r] for r in rows] == order
    assert codes.tolist() == [5, 3, 2, 4, 1, 0, 5]
    # the distinct ids are read back from the views (Arrow cannot take them)
    assert _dataframe._take_text(text.slice(1), np.array([3, 0, 2])).tolist() == [
        "007",
        twelve,
        twelve + "\x00",
    ]
    # ids over 128 bytes, or nulls: cast and left to Arrow, still exact
    for other in ([twelve, "y" * 129, twelve], [twelve, None, "7"]):
        views = pa.array(other, type=pa.string_view())
        assert _dataframe._varied_width_numbering(views) is None
        got = _dataframe._arrow_factorize(views)
        assert [None if c < 0 else got.uniques[c] for c in got.codes] == other


def test_string_views_scattered_over_many_buffers_are_cast(monkeypatch):
    # a block of rows reads from one buffer when the views follow their
    # buffers; views scattered over their buffers are cast to large_string
    # (one copy) rather than read block by block from every buffer
    pa = pytest.importorskip("pyarrow")
    if not hasattr(pa.types, "is_string_view"):
        pytest.skip("pyarrow without string views")
    from sklearn_rankmetrics._io import _dataframe

    rng = np.random.default_rng(3)
    pool = [rng.bytes(10).hex() for _ in range(50)]  # 20 bytes: in buffers
    values = [pool[i] for i in rng.integers(0, 50, 3000)]
    monkeypatch.setattr(_dataframe, "_VARIED_BLOCK_ROWS", 1000)
    follow = _string_views(pa, values, 3, 0, False, rng)
    scattered = _string_views(pa, values, 3, 0, True, rng)
    assert len(follow.buffers()) == len(scattered.buffers()) == 5
    assert _dataframe._text_bytes(follow) is not None
    assert _dataframe._text_bytes(scattered) is None
    for text in (follow, scattered):
        got = _dataframe._arrow_factorize(text)
        assert got.uniques[got.codes].tolist() == values


def test_polars_strings_reach_the_reader_as_views():
    pl = pytest.importorskip("polars")
    pa = pytest.importorskip("pyarrow")
    if not (hasattr(pl, "CompatLevel") and hasattr(pa.types, "is_string_view")):
        pytest.skip("polars or pyarrow without string views")
    from sklearn_rankmetrics._io import _dataframe

    values = ["u" * 20, "7", "007", "u" * 20]
    native = _dataframe._polars_arrow(pl.Series("q", values))
    assert pa.types.is_string_view(native.type)
    got = _dataframe._arrow_factorize(native)
    assert got.in_order and got.codes.tolist() == [2, 1, 0, 2]
    assert got.uniques.tolist() == ["007", "7", "u" * 20]


# str_order: distinct str ids sorted as Python sorts them
# ---------------------------------------------------------------------------
@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(
        st.one_of(
            st.text(alphabet="\x00 07aAé", max_size=9),  # NULs, Latin-1
            st.text(alphabet="\x00 7é\uffffユ😀\ud800", max_size=5),  # wider
            st.text(alphabet="01", min_size=30, max_size=40),  # long ids
        ),
        unique=True,
        max_size=40,
    ),
    least=st.sampled_from([0, 1 << 10]),
)
def test_str_order_sorts_as_python(values, least):
    # as an array of characters (narrowed to bytes when Latin-1) or by
    # Python's sort (trailing NULs, few ids, one long id): Python's order
    old = _validation._STR_ORDER_MIN
    _validation._STR_ORDER_MIN = least
    try:
        got = _validation.str_order(np.array(values, dtype=object))
    finally:
        _validation._STR_ORDER_MIN = old
    assert [values[i] for i in got] == sorted(values)


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(
        st.one_of(
            st.text(alphabet="\x00 07aAé", max_size=9),  # NULs, Latin-1
            st.text(alphabet="7é\uffffユ😀\ud800", max_size=5),  # wider
            st.text(alphabet="01é", min_size=15, max_size=40),  # long ids
            st.sampled_from(["abcd", "0123", "ab", "éa", "ユab"]),  # one length
        ),
        max_size=40,
    ),
    columns=st.sampled_from([0, 4, 16, 100]),
)
def test_str_order_distinct_sorts_and_counts_as_python(values, columns):
    # ids repeated or not, of one length or many, Latin-1 (bytes) or wider
    # (code points), laid out a column at a time or copied by numpy (the
    # column limit 0 to 100): Python's order, and whether all differ
    old = _validation._STR_ORDER_MIN, _validation._COLUMNS_MAX
    _validation._STR_ORDER_MIN, _validation._COLUMNS_MAX = 0, columns
    try:
        order, distinct = _validation.str_order_distinct(np.array(values, dtype=object))
    finally:
        _validation._STR_ORDER_MIN, _validation._COLUMNS_MAX = old
    assert [values[i] for i in order] == sorted(values)
    assert sorted(order.tolist()) == list(range(len(values)))
    assert distinct == (len(set(values)) == len(values))


def test_fixed_width_ids_by_hand(monkeypatch):
    # one length: the rows of the joined bytes; several: column by column
    # or copied by numpy; wider characters: a little-endian U array; a
    # NUL anywhere, a lone surrogate, one very long id: None
    monkeypatch.setattr(_validation, "_COLUMNS_MAX", 16)
    got = _validation._fixed_width_ids(["ab", "cd", "ef"])
    assert got.dtype == "S2" and got.tolist() == [b"ab", b"cd", b"ef"]
    got = _validation._fixed_width_ids(["a", "", "éé", "abc"])
    assert got.dtype == "S3" and got.tolist() == [
        b"a",
        b"",
        "éé".encode("latin-1"),
        b"abc",
    ]
    got = _validation._fixed_width_ids(["ユ", "ab", "a😀c"])
    assert got.dtype == "<U3" and got.tolist() == ["ユ", "ab", "a😀c"]
    got = _validation._fixed_width_ids(["a" * 20, "b" * 17, "c"])
    assert got.dtype == "S20" and got.tolist() == [b"a" * 20, b"b" * 17, b"c"]
    for values in (
        ["a\x00b", "c"],
        ["7\x00", "7"],
        ["\ud800", "a"],
        ["x" * 10**4] + ["y"] * 99,
    ):
        assert _validation._fixed_width_ids(values) is None


def test_str_order_by_hand(monkeypatch):
    monkeypatch.setattr(_validation, "_STR_ORDER_MIN", 0)
    # a prefix first; "7\x00" after "7" (a U array would tie them: Python's
    # sort then); capitals before lower case; accents by code point
    for values, want in (
        (["u10", "u2", "u1", "U1"], ["U1", "u1", "u10", "u2"]),
        (["é", "e", "f", "ä"], ["e", "f", "ä", "é"]),
        (["7\x00", "7", "07"], ["07", "7", "7\x00"]),
        (["ab", "a\x00b", "a"], ["a", "a\x00b", "ab"]),
    ):
        got = _validation.str_order(values)
        assert [values[i] for i in got] == want
    # not every id a str: Python's sort (which then refuses 1 < "1")
    with pytest.raises(TypeError):
        _validation.str_order(["1", 1])


def _refuse_numbering(monkeypatch):
    """Make every numbering of ids fail (a second check must not number)."""

    def refuse(*args, **kwargs):
        raise AssertionError("numbered again")

    for name in ("_factorize_ints", "_factorize_strings", "_factorize_fixed_width"):
        monkeypatch.setattr(_validation, name, refuse)


@pytest.mark.parametrize(
    "ids",
    [
        np.array(["b", "007", "7", "b", ""], dtype=object),
        np.array(["b", "007", "7", "b", ""]),
        np.array([10**12, -5, 7, 10**12, 0]),
        [3, 1, 2, 3, 3],
    ],
)
def test_codes_checked_again_are_returned_at_once(ids, monkeypatch):
    # the report hands its codes to the engine: checked again, the very
    # array comes back with the ids 0..m-1, as a check of it gives, and is
    # not numbered again
    codes, uniques = check_query_id(ids, 5)
    assert not codes.flags.writeable
    want_codes, want_ids = _validation._check_query_id(codes, 5, True)
    _refuse_numbering(monkeypatch)
    again, numbers = check_query_id(codes, 5)
    assert again is codes
    assert_array_equal(numbers, want_ids)
    assert numbers.dtype == want_ids.dtype
    assert_array_equal(again, want_codes)
    assert_array_equal(numbers, np.arange(uniques.shape[0]))
    # the wrong length is still an error
    with pytest.raises(ValueError, match="query_id has 5 entries"):
        _validation.check_query_id(codes, 4)


def test_codes_not_remembered_are_checked(monkeypatch):
    codes, _ = check_query_id(np.array(["b", "a", "c", "a"], dtype=object), 4)
    # a slice, a copy, the codes made writeable again: checked as any ids
    part = codes[1:]
    copy = codes.copy()
    assert _validation.numbered_ids(part) is None
    assert _validation.numbered_ids(copy) is None
    assert codes.tolist() == [1, 0, 2, 0]
    assert check_query_id(part, 3)[1].tolist() == [0, 2]  # code 1 unused
    assert check_query_id(part, 3)[0].tolist() == [0, 1, 0]
    remade = np.array([0, 1, 1, 0])
    _validation.mark_numbered(remade, 2)
    remade.flags.writeable = True
    remade[:] = [5, 5, 9, 9]
    assert _validation.numbered_ids(remade) is None
    assert check_query_id(remade, 4)[1].tolist() == [5, 9]
    # a caller's own codes (sorted 0..m-1) come back as a read-only view,
    # which is not remembered: the caller may change its array
    given = np.array([0, 0, 1, 2, 2])
    view, _ = check_query_id(given, 5)
    assert np.shares_memory(view, given)
    assert _validation.numbered_ids(view) is None
    given[:] = [4, 4, 4, 4, 4]
    assert check_query_id(view, 5)[1].tolist() == [4]


@pytest.mark.parametrize("uint", [False, True])
def test_categorical_int_ids_are_the_ids(uint):
    # a pandas categorical of int ids (the extremes of the type, the sign,
    # unused categories, categories in reverse order): the per-query report
    # of the ids themselves, rows and ids in np.unique's order
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(11)
    if uint:
        pool = np.array([0, 7, 2**63, 2**64 - 1, *range(100, 130)], dtype=np.uint64)
    else:
        pool = np.array([-(2**63), -7, 0, 7, 2**63 - 1, *range(100, 130)])
    q = rng.choice(pool, 400)
    y, s = rng.integers(0, 3, 400), rng.random(400)
    want = srm.ranking_report(y, s, query_id=q, per_query=True)
    unused = np.array([5, 6], dtype=q.dtype)
    cats = np.concatenate([unused[:1], np.unique(q)[::-1], unused[1:]])
    frame = pd.DataFrame({"q": pd.Categorical(q, categories=cats), "y": y, "s": s})
    got = srm.ranking_report(
        frame, query_col="q", label_col="y", score_col="s", per_query=True
    )
    pd.testing.assert_frame_equal(got, want)


def test_frame_codes_reach_the_report_numbered_once(monkeypatch):
    pa = pytest.importorskip("pyarrow")
    from sklearn_rankmetrics._io import _dataframe

    ids = ["q" + "x" * 20 + str(i % 7) for i in range(40)] + ["007", "7"]
    table = pa.table(
        {
            "q": ids,
            "y": [(i * 5) % 3 for i in range(42)],
            "s": [((i * 7) % 11) / 10 for i in range(42)],
        }
    )
    want = srm.ranking_report(
        np.array(table["y"]),
        np.array(table["s"]),
        query_id=np.array(ids, dtype=object),
        k=3,
        output_dict=True,
        per_query=True,
    )
    read = _dataframe.read_frame(
        table, {"query_col": "q", "label_col": "y", "score_col": "s"}, caller="t"
    )
    codes = read.arrays["query_id"]
    assert _validation.numbered_ids(codes) == len(set(ids))
    _refuse_numbering(monkeypatch)  # the frame numbers its ids; no one else
    got = srm.ranking_report(
        table,
        query_col="q",
        label_col="y",
        score_col="s",
        k=3,
        output_dict=True,
        per_query=True,
    )
    assert got["query_id"].tolist() == want["query_id"].tolist()
    for name in want:
        if name != "query_id":
            assert_array_equal(got[name], want[name])
