"""The beyond-accuracy metrics of a report, block by block: mergeable sums
(:class:`BeyondSums`) and the one check of what the reports refuse with
them (:func:`report_sums`)."""

import inspect
import numbers

import numpy as np

from .._metrics._beyond import (
    _check_base,
    _check_beyond_ties,
    _check_catalogue,
    _check_n_items,
    _check_normalization,
    _check_padding,
    _check_single_item,
    _check_unseen,
    _coverage_none,
    _dense_entries,
    _distances,
    _expected_counts,
    _finish_value,
    _ild_values,
    _information,
    _item_mean,
    _lists,
    _popularity,
    _popularity_ranks,
    _serendipity_values,
    _unseen_items,
    _unseen_recommended,
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
        kind = BEYOND_METRICS[name].kernel.part
        if kind == "none":
            return _coverage_none(lists)
        if kind == "counts":
            return _expected_counts(lists)
        if name == "average_popularity":
            v = _item_mean(lists, self._counts)
        elif name == "novelty":
            if check_unseen:
                _unseen_recommended(lists, self._counts, self.unseen)
            v = _item_mean(lists, self._info)
        elif name == "intra_list_diversity":
            v = _ild_values(lists, self._D, self.single_item)
        else:
            v = _serendipity_values(lists, self._ranks)
        return (np.sum(v), v.size)

    def _merge_part(self, name, k, part):
        key = (name, k)
        old = self.parts.get(key)
        if old is None:
            self.parts[key] = part
            return
        kind = BEYOND_METRICS[name].kernel.part
        if kind != "users" and old.shape != part.shape:
            raise ValueError(
                f"cannot merge {name}@{k}: the blocks have {old.shape[0]} and "
                f"{part.shape[0]} items; use one catalogue (n_items=)."
            )
        if kind == "none":
            self.parts[key] = old * part
        elif kind == "counts":
            self.parts[key] = old + part
        else:
            self.parts[key] = (old[0] + part[0], old[1] + part[1])

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
