"""The beyond-accuracy metrics of a report, block by block: mergeable sums
(:class:`BeyondSums`) and the one check of what the reports refuse with
them (:func:`report_sums`)."""

import inspect
import numbers

import numpy as np

from .._metrics import _beyond
from .._metrics._beyond import (
    _check_base,
    _check_beyond_ties,
    _check_catalogue,
    _check_n_items,
    _check_normalization,
    _check_padding,
    _check_single_item,
    _check_unseen,
    _chunked_part,
    _concat_lists,
    _coverage_none,
    _dense_entries,
    _distances,
    _expected_counts,
    _finish_value,
    _ild_values,
    _information,
    _item_mean,
    _lists,
    _merge_parts,
    _popularity,
    _popularity_ranks,
    _serendipity_values,
    _sums,
    _unseen_items,
    _unseen_recommended,
    _user_range,
    refuse_unseen,
)
from .._registry import BEYOND_METRICS
from .._utils._conventions import convention_options
from .._utils._validation import check_inputs, issparse

__all__ = []  # private module


class BeyondSums:
    """Mergeable sums of beyond-accuracy metrics over blocks of users.

    ``add`` reads one block of users (every row of a user in the same
    block); ``merge`` adds another instance's blocks; ``values`` gives
    ``{"catalog_coverage@10": float, ...}``.  On one block the values are
    the metric functions' own, bit for bit; over several blocks coverage
    multiplies per item, counts and per-user sums add.  The options are
    those of the metric functions, each read by the metrics that take it;
    ``ties`` / ``ignore_ties`` is the tie rule of every list.
    """

    def __init__(
        self,
        names,
        ks,
        *,
        item_popularity=None,
        item_features=None,
        metric="cosine",
        normalization="none",
        base=None,
        share="auto",
        unseen="warn",
        single_item="skip",
        padding_items=0,
        n_items=None,
        ties=None,
        ignore_ties=False,
    ):
        self.names = list(names)
        self.ks = tuple(ks)
        self.n_items = _check_n_items(n_items)
        self.ties = _check_beyond_ties(ties, ignore_ties)
        self.options = {
            "normalization": normalization,
            "base": _check_base(base),
            "padding_items": _check_padding(padding_items),
        }
        self.unseen = _check_unseen(unseen)
        self.single_item = _check_single_item(single_item)
        if "exposure_entropy" in self.names:
            _check_normalization(normalization)
        self._warn_catalogue = tuple(
            f"{m}_at_k"
            for m in self.names
            if BEYOND_METRICS[m].kernel.catalogue
            or (m == "exposure_entropy" and normalization == "max")
        )
        requires = {r for m in self.names for r in BEYOND_METRICS[m].requires}
        self._catalogue = None
        if "item_popularity" in requires:
            counts, denominator = _popularity(item_popularity, share)
            self._counts = counts
            self._info = _information(counts, denominator, self.unseen)
            self._ranks = _popularity_ranks(counts)
            self._catalogue = counts.size
        if "item_features" in requires:
            self._D = _distances(item_features, metric)
            if self._catalogue is not None and self._catalogue != self._D.shape[0]:
                raise ValueError(
                    f"item_popularity describes {self._catalogue} items but "
                    f"item_features {self._D.shape[0]}; pass one entry per item."
                )
            self._catalogue = self._D.shape[0]
        self.parts = {}
        self.n_users = 0

    def lists(self, y_true, y_score, k, query_id=None, item_id=None):
        """The top-``k`` lists of one block of users, under the tie rule."""
        lists = _lists(
            y_true,
            y_score,
            k,
            query_id,
            item_id,
            self.n_items,
            self._catalogue,
            ties=self.ties,
            warn_catalogue=self._warn_catalogue,
        )
        if self._catalogue is not None:
            _check_catalogue("item_popularity / item_features", self._catalogue, lists)
        return lists

    def packed_lists(self, y_true, y_score, columns, n_items, k):
        """The top-``k`` lists of one block of users from its candidates:
        dense ``y_true`` and ``y_score`` rows holding, for each user, the
        items ``columns`` (increasing along each row, padded with ``-inf``
        scores) of a catalogue of ``n_items`` -- at least its top ``k`` and
        the tie group ``k`` cuts.  The inputs are not checked again."""
        S = np.asarray(y_score, dtype=np.float64)
        lists = _dense_entries(y_true, S, k, self.ties, columns, n_items)
        if self._catalogue is not None:
            _check_catalogue("item_popularity / item_features", self._catalogue, lists)
        return lists

    def add(self, y_true, y_score, query_id=None, item_id=None):
        """Add the lists of one block of users."""
        n_users = None
        for k in self.ks:
            lists = self.lists(y_true, y_score, k, query_id, item_id)
            n_users = lists.n_users
            for name in self.names:
                self._merge_part(name, k, self._part(name, lists))
        self.n_users += n_users
        return self

    def block_parts(self, y_true, y_score, query_id, item_id, n_items):
        """What one block of users of the long form contributes, for a
        caller that merges blocks itself (the chunked and distributed
        reports): ``(parts, n_users, unseen)``.

        ``item_id`` are column numbers of a catalogue of ``n_items`` (the
        catalogue's, or a numbering of the block's own item labels);
        ``parts`` is ``{(name, k): part}``, each merged as :meth:`add`
        merges it; ``unseen`` is ``{k: items}``, the items novelty's
        ``unseen`` rule is about (count 0 in ``item_popularity``, possibly
        in a list) when it warns or raises, left to the caller to apply
        once to the union of the blocks.  Nothing warns here.
        """
        parts, unseen = {}, {}
        n_users = 0
        for k in self.ks:
            lists = _lists(
                y_true,
                y_score,
                k,
                query_id,
                item_id,
                n_items,
                self._catalogue,
                ties=self.ties,
            )
            n_users = lists.n_users
            for name in self.names:
                parts[(name, k)] = self._part(name, lists, check_unseen=False)
            if "novelty" in self.names and self.unseen in ("warn", "raise"):
                unseen[k] = _unseen_items(lists, self._counts)
        return parts, n_users, unseen

    def _part(self, name, lists, check_unseen=True):
        """The part of ``name`` of ``lists``: its canonical chunks' parts
        merged in user order (:func:`_chunked_part`), as the metric
        functions compute it."""
        if check_unseen and name == "novelty":
            _unseen_recommended(lists, self._counts, self.unseen)
        kind = BEYOND_METRICS[name].kernel.part
        return _chunked_part(lists, kind, lambda c: self._chunk_part(name, c))

    def _chunk_part(self, name, lists):
        """The part of ``name`` of one chunk of users' ``lists``."""
        kind = BEYOND_METRICS[name].kernel.part
        if kind == "none":
            return _coverage_none(lists)
        if kind == "counts":
            return _expected_counts(lists)
        if name == "average_popularity":
            v = _item_mean(lists, self._counts)
        elif name == "novelty":
            v = _item_mean(lists, self._info)
        elif name == "intra_list_diversity":
            v = _ild_values(lists, self._D, self.single_item)
        else:
            v = _serendipity_values(lists, self._ranks)
        return _sums(v)

    def _merge_part(self, name, k, part):
        key = (name, k)
        old = self.parts.get(key)
        kind = BEYOND_METRICS[name].kernel.part
        if old is not None and kind != "users" and old.shape != part.shape:
            raise ValueError(
                f"cannot merge {name}@{k}: the blocks have {old.shape[0]} and "
                f"{part.shape[0]} items; use one catalogue (n_items=)."
            )
        self.parts[key] = _merge_parts(kind, old, part)

    def merge(self, other):
        """Add the blocks of ``other`` (same metrics, cut-offs and options)."""
        if (self.names, self.ks) != (other.names, other.ks):
            raise ValueError("cannot merge sums of different metrics or cut-offs.")
        for (name, k), part in other.parts.items():
            self._merge_part(name, k, part)
        self.n_users += other.n_users
        return self

    def values(self):
        """``{"name@k": value}`` in the order of the names, then cut-offs."""
        return {
            f"{name}@{k}": _finish_value(name, self.parts[(name, k)], self.options)
            for name in self.names
            for k in self.ks
        }


class ListStream:
    """The lists of consecutive blocks of users fed to a :class:`BeyondSums`
    as they come, in the canonical chunks of users (:func:`_chunked_part`).

    ``push`` takes the next block's ``{k: lists}`` (users in order) and
    merges the parts of every complete chunk, keeping the rest; ``values``
    merges the last chunk and gives the metrics.  The parts are those of
    :meth:`BeyondSums.add` on all the users' lists at once, bit for bit,
    whatever the blocks, and at most one chunk and one block of lists are
    held.  Novelty's ``unseen`` rule applies once per cut-off, to all
    the lists.
    """

    def __init__(self, sums):
        self.sums = sums
        self.pending = {k: [] for k in sums.ks}
        self.n_pending = 0
        self.unseen = {k: [] for k in sums.ks}
        self._check_unseen = "novelty" in sums.names and sums.unseen in (
            "warn",
            "raise",
        )

    def push(self, lists):
        """Add the next block's lists (``{k: _Lists}``)."""
        for k in self.sums.ks:
            self.pending[k].append(lists[k])
        self.n_pending += lists[self.sums.ks[0]].n_users
        size = _beyond._CHUNK_USERS
        if self.n_pending >= size:
            self._merge(self.n_pending - self.n_pending % size)

    def _merge(self, n):
        """Merge the parts of the first ``n`` pending users (whole chunks,
        or the last one), keeping a copy of the others' lists."""
        sums, size = self.sums, _beyond._CHUNK_USERS
        for k in sums.ks:
            lists = _concat_lists(self.pending[k])
            rest = lists.n_users
            self.pending[k] = []
            if n < rest:
                kept = _user_range(lists, n, rest)
                self.pending[k] = [kept._replace(**_copies(kept))]
            for a in range(0, max(n, 1), size):  # one chunk of no user
                chunk = _user_range(lists, a, min(a + size, n))
                for name in sums.names:
                    part = sums._part(name, chunk, check_unseen=False)
                    sums._merge_part(name, k, part)
                if self._check_unseen:
                    self.unseen[k].append(_unseen_items(chunk, sums._counts))
        sums.n_users += n
        self.n_pending -= n

    def values(self):
        """Merge the last chunk; ``{"catalog_coverage@10": float, ...}``."""
        if self.n_pending or not self.sums.parts:
            self._merge(self.n_pending)
        if self._check_unseen:  # as BeyondSums.add: cut-off by cut-off
            for k in self.sums.ks:
                n_unseen = np.unique(np.concatenate(self.unseen[k])).size
                refuse_unseen(n_unseen, self.sums.unseen)
        return self.sums.values()


def _copies(lists):
    """The arrays of ``lists`` copied (a slice no longer holding its base)."""
    return {f: v.copy() for f, v in lists._asdict().items() if hasattr(v, "copy")}


def split_report_metrics(metrics):
    """``(other metrics, beyond-accuracy names)`` of a report's ``metrics``
    (``None`` stays ``None``: the default report has no beyond metric)."""
    if metrics is None:
        return None, []
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    beyond = [m for m in names if isinstance(m, str) and m in BEYOND_METRICS]
    rest = [m for m in names if not (isinstance(m, str) and m in BEYOND_METRICS)]
    return rest, list(dict.fromkeys(beyond))


# The options a report hands to its beyond-accuracy metrics alone; the tie
# options go to them and to the ranking metrics alike.
_BEYOND_OPTIONS = (
    "item_popularity",
    "item_features",
    "metric",
    "normalization",
    "base",
    "share",
    "unseen",
    "single_item",
    "padding_items",
    "item_id",
    "n_items",
)
_TIE_OPTIONS = ("ties", "ignore_ties")
# the arguments of a beyond-accuracy function that are not options
_NOT_OPTIONS = {"y_true", "y_score", "k", "query_id", "item_id", "n_items"}


def _resolve_options(names, convention, given, k):
    """The options of the beyond-accuracy metrics ``names`` in a report:
    the convention's for each metric (as its function resolves them at
    cut-off ``k``), then the ones ``given`` explicitly.  A preset that
    would give two of them different values of one option (none does) is
    refused rather than applied to one alone."""
    resolved = {}
    if convention is not None:
        for name in names:
            function = BEYOND_METRICS[name].function
            accepted = set(inspect.signature(function).parameters) - _NOT_OPTIONS
            preset = convention_options(convention, function.__name__, accepted, k=k)
            if "ignore_ties" in given and "ties" not in given:
                preset.pop("ties", None)  # the explicit tie option wins
            for option, value in preset.items():
                if option in given:
                    continue
                if option in resolved and resolved[option] != value:
                    raise ValueError(
                        f"convention={convention!r} gives {option}="
                        f"{resolved[option]!r} and {value!r} to two of "
                        f"{', '.join(names)}; compute them in separate reports."
                    )
                resolved[option] = value
    return {**resolved, **given}


# The options of the beyond-accuracy metrics that the factor and table
# reports name in their signatures, at their defaults.
BEYOND_OPTION_DEFAULTS = dict(
    item_popularity=None,
    item_features=None,
    metric="cosine",
    normalization="none",
    share="auto",
)


def given_beyond_options(options):
    """The options of ``options`` (:data:`BEYOND_OPTION_DEFAULTS` names)
    not at their default: strings and numbers compared by value, anything
    else (an array, a callable) given if not None."""
    scalars = (str, numbers.Number)
    given = {}
    for name, value in options.items():
        default = BEYOND_OPTION_DEFAULTS[name]
        same = value is default or (
            isinstance(value, scalars)
            and isinstance(default, scalars)
            and value == default
        )
        if not same:
            given[name] = value
    return given


def refuse_beyond_options(options, caller=None):
    """The one refusal of beyond-accuracy options in a report without
    beyond-accuracy metrics (TypeError naming the options given)."""
    given = given_beyond_options(options)
    if given:
        where = f"{caller}: " if caller else ""
        raise TypeError(
            f"{where}{', '.join(given)}: options of the beyond-accuracy metrics "
            "(catalog_coverage, gini_index, ...), and metrics has none of them; "
            "add them to metrics or drop the options."
        )


def refuse_beyond_request(
    names,
    *,
    per_query,
    sample_weight=None,
    relevance_threshold=None,
    alone=False,
    ranking_options=(),
):
    """The one check of what the reports refuse with the beyond-accuracy
    metrics ``names``: ``ranking_options`` (the names of ranking-metric
    options given) when the report has no ranking metric (``alone``),
    ``per_query``, ``sample_weight``, serendipity with a
    ``relevance_threshold``."""
    if alone and ranking_options:
        raise TypeError(
            f"{', '.join(sorted(ranking_options))}: options of the ranking "
            f"metrics, and the report has none (only {', '.join(names)}); drop "
            "them."
        )
    if per_query:
        raise ValueError(
            f"{', '.join(names)}: these beyond-accuracy metrics describe the "
            "set of every user's list and have no per-query value; drop them "
            "from metrics or use per_query=False."
        )
    refused = ["sample_weight"] if sample_weight is not None else []
    if "serendipity" in names and relevance_threshold is not None:
        refused.append("relevance_threshold")
    if refused:
        raise ValueError(
            f"{', '.join(names)} do not take {', '.join(refused)}: every user "
            "counts once and serendipity's relevance is a grade above 0; drop "
            "the option or compute these metrics in a separate report."
        )


def report_sums(
    names,
    ks,
    *,
    convention=None,
    alone,
    per_query,
    sample_weight,
    relevance_threshold=None,
    ranking_options=(),
    **options,
):
    """The (empty) :class:`BeyondSums` of a report's beyond-accuracy
    metrics ``names``, after :func:`refuse_beyond_request`, with the options
    ``convention`` and the explicit ``options`` (the beyond-accuracy options
    and the tie rule) give them.
    """
    refuse_beyond_request(
        names,
        per_query=per_query,
        sample_weight=sample_weight,
        relevance_threshold=relevance_threshold,
        alone=alone,
        ranking_options=ranking_options,
    )
    options = _resolve_options(names, convention, options, ks[0])
    return BeyondSums(names, ks, **options)


def report_values(
    y_true,
    y_score,
    ks,
    names,
    *,
    query_id,
    per_query,
    sample_weight,
    convention,
    options,
    alone,
):
    """The beyond-accuracy part of :func:`ranking_report`.

    Takes the beyond-accuracy options (``item_popularity``, ...) out of the
    report's ``options`` and reads its tie rule (``ties``, ``ignore_ties``:
    every metric's); the other options are the ranking metrics', refused if
    there are none (``alone``).  Returns
    ``({"catalog_coverage@10": float, ...}, n_users, n_relevant)``.
    """
    own = {o: options.pop(o) for o in _BEYOND_OPTIONS if o in options}
    own.update((o, options[o]) for o in _TIE_OPTIONS if o in options)
    item_id = own.pop("item_id", None)
    sums = report_sums(
        names,
        ks,
        convention=convention,
        alone=alone,
        per_query=per_query,
        sample_weight=sample_weight,
        relevance_threshold=options.get("relevance_threshold"),
        ranking_options=[o for o in options if o not in _TIE_OPTIONS],
        **own,
    )
    sums.add(y_true, y_score, query_id, item_id)
    form, Y, _, codes, ids, _ = check_inputs(y_true, y_score, query_id, None)
    if form == "long":
        n_rel = np.count_nonzero(np.bincount(codes, weights=Y > 0, minlength=ids.size))
    elif issparse(Y):
        n_rel = np.count_nonzero(np.diff((Y > 0).tocsr().indptr))
    else:
        n_rel = np.count_nonzero((np.asarray(Y) > 0).any(axis=1))
    return sums.values(), sums.n_users, int(n_rel)
