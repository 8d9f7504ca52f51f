"""Strong generalisation: recommenders tuned in scikit-learn's searches.

The protocol of Liang et al. (2018, Mult-VAE) and Steck (2019, EASE):
users, not interactions, are split into folds; a held-out user's history
is split into an input part (folded in: the model sees it) and a target
part (what the model should recommend), and the input items are excluded
from the ranking.  It maps onto scikit-learn's model selection with rows
as users:

- :meth:`UserKFold.input_target` splits every user's interactions once into
  ``X`` (input) and ``y`` (target), two users x items matrices;
- :meth:`UserKFold.split` yields folds of users;
- the estimator's ``fit(X, y)`` learns from ``X + y``, the whole history of
  the training users (:class:`DecompositionRecommender` does);
- the scorers built with ``exclude_seen=True`` rank the estimator's scores
  for the held-out users' ``X`` with ``X``'s items removed, against ``y``,
  block by block under ``working_memory`` (through
  :func:`~sklearn_rankmetrics.factor_ranking_report`).
"""

import numbers
import re
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.model_selection import BaseCrossValidator, KFold
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._utils._validation import user_stacklevel
from ._split import _check_int, _check_time, _n_rows

__all__ = ["DecompositionRecommender", "UserKFold"]


# ---------------------------------------------------------------------------
# UserKFold
# ---------------------------------------------------------------------------
def _csr(X, name):
    """``X`` as a canonical CSR matrix (sorted, summed duplicates, no stored
    zeros), a copy when anything changes; the input is never modified."""
    if sp.issparse(X):
        X = sp.csr_matrix(X, copy=True)
    else:
        arr = np.asarray(X)
        if arr.ndim != 2:
            raise ValueError(
                f"{name} must be a 2-D users x items matrix (dense or sparse), got "
                f"{arr.ndim} dimension(s)."
            )
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold numbers, got dtype {arr.dtype}.")
        X = sp.csr_matrix(arr)
    if X.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold numbers, got dtype {X.dtype}.")
    X.sum_duplicates()
    X.eliminate_zeros()
    if X.dtype.kind == "f" and not np.isfinite(X.data).all():
        raise ValueError(f"{name} contains NaN or inf; interactions must be finite.")
    if X.data.size and X.data.min() < 0:
        raise ValueError(
            f"{name} has negative entries; interactions are counts or grades >= 0."
        )
    return X


def _cell_times(time, X):
    """The time of each stored interaction of the CSR ``X``, in storage order."""
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    cols = X.indices
    if sp.issparse(time):
        if time.shape != X.shape:
            raise ValueError(
                f"time has shape {time.shape} but X has {X.shape}; pass the time "
                "of each interaction at its (user, item) cell."
            )
        values = np.asarray(sp.csr_matrix(time)[rows, cols]).ravel()
    else:
        arr = np.asarray(time)
        if arr.shape != X.shape:
            raise ValueError(
                f"time has shape {arr.shape} but X has {X.shape}; pass the time "
                "of each interaction at its (user, item) cell."
            )
        values = arr[rows, cols]
    try:
        return _check_time(values, values.shape[0], "UserKFold")
    except ValueError as exc:
        at = re.search(r"at row (\d+)", str(exc))
        if at is None:
            raise
        at = int(at.group(1))
        raise ValueError(
            f"time is missing or not finite for the interaction of user {rows[at]} "
            f"with item {cols[at]}; every interaction needs a time."
        ) from None


class UserKFold(BaseCrossValidator):
    """K-fold over users, each held-out user's history split into input and target.

    Strong generalisation (Liang et al. 2018; Steck 2019): the models are
    trained on the whole history of the training users and evaluated on
    users they never saw, from part of their history.  Call
    :meth:`input_target` once on the users x items interaction matrix to
    get ``X`` (each user's input interactions) and ``y`` (the target ones),
    then use the splitter in a search::

        cv = UserKFold(5, target_size=0.2, random_state=0)
        X, y = cv.input_target(interactions)
        search = GridSearchCV(
            DecompositionRecommender(TruncatedSVD()),
            {"estimator__n_components": [16, 32, 64]},
            cv=cv,
            scoring=make_scoring(["ndcg@10", "recall@20"], exclude_seen=True),
            refit="ndcg@10",
        ).fit(X, y)

    In each fold the estimator is fitted on the training users' ``X`` and
    ``y`` (a recommender learns from ``X + y``: their whole history), and
    scored on the held-out users: it scores all items from their ``X``, the
    items of ``X`` are removed (``exclude_seen=True``) and the ranking is
    compared with ``y``.

    Read more in the :ref:`User Guide <evaluation_protocol>`.

    Parameters
    ----------
    n_splits : int >= 2, default=5
        Number of folds of users.
    target_size : float in (0, 1) or int >= 1, default=0.2
        Share of each user's interactions (rounded up) or number of them
        that form the target; the rest is the input.
    target_by : {"random", "time"}, default="random"
        Which interactions form the target: drawn at random (Liang et al.)
        or the latest ones (``time=`` in :meth:`input_target`; ties in time
        are broken by item column, the higher column being the later).
    shuffle : bool, default=True
        Shuffle the users before cutting them into folds (as
        :class:`~sklearn.model_selection.KFold`).
    random_state : int, RandomState instance or None, default=None
        Seed of the random targets and of the shuffle; an int gives the
        same split at every call.

    Attributes
    ----------
    target_info_ : dict
        Filled by :meth:`input_target`: ``n_users``, ``n_users_split``
        (users with an input and a target), ``n_users_input_only`` (users
        with too few interactions to split: their whole history is input,
        they train in every fold and are never tested; also said in a
        warning), ``n_input`` and ``n_target`` (interactions).
    fold_info_ : list of dict
        Filled by :meth:`split`, one dict per fold: ``n_train_users``,
        ``n_test_users`` and ``n_users_always_train`` (users without a
        target).

    See Also
    --------
    DecompositionRecommender : scikit-learn's decompositions as
        recommenders.
    sklearn_rankmetrics.get_scorer : Ranking scorers; ``exclude_seen=True``.

    Notes
    -----
    Why ``fit(X, y)`` learns from ``X + y``: scikit-learn passes a search's
    ``X`` and ``y`` to ``fit`` restricted to the training rows, and
    strong generalisation trains on the training users' whole history,
    which is their input and their target together.  A held-out user's
    target never reaches ``fit``: only the scorer reads it.  The
    input/target split of the training users has no effect, so one split
    of every user, made once, serves all folds, as in Liang et al.'s code
    (which holds out 20 % of each held-out user's items at random).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics.model_selection import UserKFold
    >>> R = np.array([[1, 1, 1, 0, 1],
    ...               [0, 1, 1, 1, 1],
    ...               [1, 0, 0, 0, 0],
    ...               [1, 1, 0, 1, 1]])
    >>> cv = UserKFold(n_splits=3, target_size=0.25, random_state=0)
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # user 2: too few to split, warned
    ...     X, y = cv.input_target(R)
    >>> cv.target_info_["n_users_input_only"]
    1
    >>> np.diff(y.indptr).tolist()  # targets: ceil(25 % of 4) = 1; user 2 has 1
    [1, 1, 0, 1]
    >>> np.array_equal((X + y).toarray(), R)
    True
    >>> [test.tolist() for _, test in cv.split(X, y)]  # user 2 always trains
    [[3], [1], [0]]
    """

    def __init__(
        self,
        n_splits=5,
        *,
        target_size=0.2,
        target_by="random",
        shuffle=True,
        random_state=None,
    ):
        self.n_splits = n_splits
        self.target_size = target_size
        self.target_by = target_by
        self.shuffle = shuffle
        self.random_state = random_state

    def get_n_splits(self, X=None, y=None, groups=None):
        """The number of folds, ``n_splits``.

        Parameters
        ----------
        X, y, groups : object
            Ignored; there for scikit-learn's API.

        Returns
        -------
        n_splits : int
        """
        return _check_int("n_splits", self.n_splits, 2)

    def _target_counts(self, counts):
        size = self.target_size
        if isinstance(size, (bool, np.bool_)) or not isinstance(size, numbers.Real):
            raise TypeError(
                f"target_size must be a float in (0, 1) or an int >= 1; got {size!r}."
            )
        if isinstance(size, numbers.Integral):
            if size < 1:
                raise ValueError(f"target_size must be an int >= 1; got {size}.")
            return np.full(counts.shape, int(size))
        if not 0 < size < 1:
            raise ValueError(
                f"target_size={size!r} as a share must be in (0, 1) (or an int "
                "number of interactions per user)."
            )
        return np.ceil(np.round(size * counts, 9)).astype(np.intp)

    def input_target(self, X, *, time=None):
        """Split each user's interactions into an input part and a target part.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_users, n_items)
            Interactions (counts, grades or 0/1); zeros are no interaction.
        time : array-like or sparse matrix of shape (n_users, n_items), default=None
            The time of each interaction at its cell (numbers or
            datetimes), for ``target_by="time"``; read only where ``X`` is
            non-zero.

        Returns
        -------
        X_input : scipy.sparse.csr_matrix of shape (n_users, n_items)
            Each user's input interactions (their values as in ``X``).
        y_target : scipy.sparse.csr_matrix of shape (n_users, n_items)
            Each user's target interactions; ``X_input + y_target`` is
            ``X``.
        """
        if not isinstance(self.target_by, str) or self.target_by not in (
            "random",
            "time",
        ):
            raise ValueError(
                f"target_by must be 'random' or 'time'; got {self.target_by!r}."
            )
        R = _csr(X, "X")
        n_users = R.shape[0]
        counts = np.diff(R.indptr)
        n_target = self._target_counts(counts)
        splittable = n_target < counts
        rows = np.repeat(np.arange(n_users), counts)
        if self.target_by == "time":
            if time is None:
                raise ValueError(
                    "target_by='time' needs time=, the time of each interaction "
                    "at its (user, item) cell of X."
                )
            key = _cell_times(time, R)
        else:
            if time is not None:
                raise ValueError(
                    "time= is only read with target_by='time'; drop it or set "
                    "target_by='time'."
                )
            key = check_random_state(self.random_state).random_sample(R.nnz)
        # position of each interaction in its user's order (by key, then item)
        order = np.lexsort((R.indices, key, rows))
        starts = R.indptr[:-1]
        position = np.empty(R.nnz, dtype=np.intp)
        position[order] = np.arange(R.nnz) - starts[rows[order]]
        is_target = (position >= (counts - n_target)[rows]) & splittable[rows]
        X_input = _with_mask(R, ~is_target)
        y_target = _with_mask(R, is_target)
        n_input_only = int(np.count_nonzero(~splittable & (counts > 0)))
        self.target_info_ = {
            "n_users": int(n_users),
            "n_users_split": int(np.count_nonzero(splittable)),
            "n_users_input_only": n_input_only,
            "n_input": int(X_input.nnz),
            "n_target": int(y_target.nnz),
        }
        if n_input_only:
            warnings.warn(
                f"UserKFold: {n_input_only} users have too few interactions to "
                f"hold any out with target_size={self.target_size!r}; their whole "
                "history is input: they train in every fold and are never "
                "tested (see target_info_).",
                UserWarning,
                stacklevel=user_stacklevel(),
            )
        return X_input, y_target

    def split(self, X, y=None, groups=None):
        """Generate the training and held-out users of each fold.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_users, n_items)
            The input part (only its number of rows is read).
        y : array-like or sparse matrix of shape (n_users, n_items), default=None
            The target part: users without a target interaction are in
            every training fold and never held out (they cannot be scored).
        groups : object
            Ignored; there for scikit-learn's API.

        Yields
        ------
        train : ndarray
            The training users (rows) of the fold.
        test : ndarray
            The held-out users of the fold.
        """
        n_splits = _check_int("n_splits", self.n_splits, 2)
        n_users = _n_rows(X)
        if y is None:
            testable = np.ones(n_users, dtype=bool)
        else:
            if sp.issparse(y):
                Y = sp.csr_matrix(y)
                testable = np.diff(Y.indptr) > 0
                if Y.nnz:
                    testable = np.asarray((abs(Y) > 0).sum(axis=1)).ravel() > 0
            else:
                Y = np.asarray(y)
                if Y.ndim != 2:
                    raise ValueError(
                        "y must be the 2-D target part (users x items) from "
                        f"input_target, got {Y.ndim} dimension(s)."
                    )
                testable = (Y != 0).any(axis=1)
            if Y.shape[0] != n_users:
                raise ValueError(
                    f"y has {Y.shape[0]} rows but X has {n_users}; both are users x "
                    "items."
                )
        candidates = np.flatnonzero(testable)
        if candidates.shape[0] < n_splits:
            raise ValueError(
                f"n_splits={n_splits} is more than the {candidates.shape[0]} users "
                "with a target; lower n_splits."
            )
        if not isinstance(self.shuffle, (bool, np.bool_)):
            raise TypeError(f"shuffle must be True or False, got {self.shuffle!r}.")
        kfold = KFold(
            n_splits,
            shuffle=bool(self.shuffle),
            random_state=self.random_state if self.shuffle else None,
        )
        always = np.flatnonzero(~testable)
        self.fold_info_ = []
        return self._generate(kfold, candidates, always)

    def _generate(self, kfold, candidates, always):
        for train, test in kfold.split(candidates):
            train_users = np.sort(np.concatenate([candidates[train], always]))
            test_users = candidates[test]
            self.fold_info_.append(
                {
                    "n_train_users": int(train_users.shape[0]),
                    "n_test_users": int(test_users.shape[0]),
                    "n_users_always_train": int(always.shape[0]),
                }
            )
            yield train_users, np.sort(test_users)


def _with_mask(R, keep):
    """The entries ``keep`` of the canonical CSR ``R``, as a CSR matrix."""
    out = sp.csr_matrix(
        (R.data * keep, R.indices.copy(), R.indptr.copy()), shape=R.shape
    )
    out.eliminate_zeros()
    return out


# ---------------------------------------------------------------------------
# DecompositionRecommender
# ---------------------------------------------------------------------------
def _history(X, y):
    """``X + y``: a user's whole history from its input and target parts."""
    if y is None:
        return X
    if np.ndim(y) == 1 and not sp.issparse(y):
        raise ValueError(
            "y must be None or the target part of the users' interactions, a "
            f"users x items matrix of X's shape {np.shape(X)}; got a 1-D y. "
            "DecompositionRecommender learns from X + y (see UserKFold)."
        )
    if np.shape(y) != np.shape(X):
        raise ValueError(
            f"y has shape {np.shape(y)} but X has {np.shape(X)}; y is the target "
            "part of the same users x items interactions (see UserKFold)."
        )
    if sp.issparse(X) or sp.issparse(y):
        return sp.csr_matrix(X) + sp.csr_matrix(y)
    return np.asarray(X) + np.asarray(y)


def _check_numbers(X, name):
    """``X`` with numeric values (object arrays of numbers converted), finite."""
    if sp.issparse(X):
        X = sp.csr_matrix(X)
    values = X.data if sp.issparse(X) else np.asarray(X)
    if values.dtype.kind == "c":
        raise ValueError(f"Complex data not supported: {name} must hold real numbers.")
    if values.dtype.kind == "O" and not sp.issparse(X):
        try:
            X = values = values.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{name} must hold numbers: {exc}") from None
    if values.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold numbers, got dtype {values.dtype}.")
    if values.dtype.kind == "f" and not np.isfinite(values).all():
        raise ValueError(
            f"{name} contains NaN or infinity; interactions must be finite numbers."
        )
    return X


class DecompositionRecommender(MetaEstimatorMixin, BaseEstimator):
    """A scikit-learn decomposition (TruncatedSVD, NMF, PCA) as a recommender.

    ``fit`` learns the decomposition of the users x items interaction
    matrix; ``predict(X)`` scores every item for the users of ``X`` by
    folding them in and reconstructing their row: ``transform(X) @
    components_`` (plus ``mean_`` for a decomposition that centres the data,
    such as ``PCA``; whitening undone).  Users need not have been seen in
    ``fit`` (strong generalisation).  Use it in a search with
    :class:`UserKFold` and scorers built with ``exclude_seen=True``, which
    rank its scores block by block under ``working_memory`` through
    :meth:`user_factors` and ``item_factors_``.

    Read more in the :ref:`User Guide <evaluation_protocol>`.

    Parameters
    ----------
    estimator : estimator instance
        A decomposition with ``fit``, ``transform`` and, once fitted,
        ``components_`` of shape (n_components, n_items):
        :class:`~sklearn.decomposition.TruncatedSVD`,
        :class:`~sklearn.decomposition.NMF`,
        :class:`~sklearn.decomposition.PCA`, ``IncrementalPCA``,
        ``MiniBatchNMF``, ``FactorAnalysis``, ...  Cloned in ``fit``; its
        parameters are ``estimator__<name>`` in a parameter grid.

    Attributes
    ----------
    estimator_ : estimator instance
        The fitted clone of ``estimator``.
    item_factors_ : ndarray of shape (n_items, n_factors)
        The items' side of the scores: ``predict(X) = user_factors(X) @
        item_factors_.T``.  ``components_.T`` (rescaled by the square root
        of ``explained_variance_`` for a whitening ``PCA``), with a last
        column ``mean_`` when the decomposition centres the data.
    n_features_in_ : int
        Number of items.

    See Also
    --------
    UserKFold : Strong generalisation folds.
    sklearn_rankmetrics.factor_ranking_report : The report on these factors.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.decomposition import TruncatedSVD
    >>> from sklearn_rankmetrics import factor_ranking_report
    >>> from sklearn_rankmetrics.datasets import make_interactions
    >>> from sklearn_rankmetrics.model_selection import DecompositionRecommender
    >>> train, test = make_interactions(n_users=200, n_items=80, random_state=0)
    >>> rec = DecompositionRecommender(TruncatedSVD(8, random_state=0)).fit(train)
    >>> rec.predict(train[:2]).shape
    (2, 80)
    >>> report = factor_ranking_report(
    ...     test, rec.user_factors(train), rec.item_factors_, exclude=train,
    ...     k=10, metrics=["ndcg"], output_dict=True)
    >>> round(report["ndcg@10"], 2)
    0.48
    """

    def __init__(self, estimator):
        self.estimator = estimator

    def fit(self, X, y=None):
        """Fit the decomposition on the users' whole history, ``X + y``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_users, n_items)
            Interactions (the input part, with :class:`UserKFold`).
        y : array-like or sparse matrix of shape (n_users, n_items), default=None
            More interactions of the same users (the target part); the
            decomposition is fitted on ``X + y``.

        Returns
        -------
        self : object
            The fitted recommender.
        """
        X = _check_numbers(X, "X")
        if y is not None:
            y = _check_numbers(y, "y")
        history = _history(X, y)
        for method in ("fit", "transform"):
            if not hasattr(self.estimator, method):
                raise TypeError(
                    f"estimator must be a decomposition with fit and transform "
                    f"(TruncatedSVD, NMF, PCA, ...); {type(self.estimator).__name__} "
                    f"has no {method}."
                )
        self.estimator_ = clone(self.estimator).fit(history)
        est = self.estimator_
        components = getattr(est, "components_", None)
        if components is None or np.ndim(components) != 2:
            raise TypeError(
                f"{type(est).__name__} has no components_ after fit; "
                "DecompositionRecommender scores items by transform(X) @ "
                "components_ and needs a linear decomposition (TruncatedSVD, NMF, "
                "PCA, ...)."
            )
        components = np.asarray(components, dtype=np.float64)
        if getattr(est, "whiten", False) and hasattr(est, "explained_variance_"):
            scale = np.sqrt(np.asarray(est.explained_variance_, dtype=np.float64))
            components = scale[:, None] * components
        factors = components.T
        mean = getattr(est, "mean_", None)
        if mean is not None:
            mean = np.asarray(mean, dtype=np.float64).reshape(1, -1)
            factors = np.hstack([factors, mean.T])
        self._centred = mean is not None
        self.item_factors_ = np.ascontiguousarray(factors)
        self.n_features_in_ = int(np.shape(history)[1])
        self._check_reconstruction(history)
        return self

    def __sklearn_tags__(self):  # scikit-learn >= 1.6
        tags = super().__sklearn_tags__()
        try:
            from sklearn.utils import get_tags

            inner = get_tags(self.estimator).input_tags
            tags.input_tags.sparse = inner.sparse
            tags.input_tags.positive_only = inner.positive_only
        except Exception:  # an estimator without tags: keep the defaults
            pass
        return tags

    def _more_tags(self):  # scikit-learn < 1.6
        inner = getattr(self.estimator, "_get_tags", None)
        inner = inner() if inner else {}
        return {
            "requires_y": False,
            "X_types": inner.get("X_types", ["2darray"]),
            "requires_positive_X": inner.get("requires_positive_X", False),
        }

    def _check_reconstruction(self, history):
        """Refuse a decomposition whose ``inverse_transform`` is not the
        scores computed here (a non-linear or differently parametrised one)."""
        est = self.estimator_
        if not hasattr(est, "inverse_transform"):
            return
        sample = history[: min(16, np.shape(history)[0])]
        expected = np.asarray(est.inverse_transform(est.transform(sample)))
        got = self.predict(sample)
        if not np.allclose(
            got, expected, rtol=1e-6, atol=1e-8 * (1 + np.abs(expected).max())
        ):
            raise TypeError(
                f"{type(est).__name__}.inverse_transform(transform(X)) is not "
                "transform(X) @ components_ (+ mean_); DecompositionRecommender "
                "supports linear decompositions (TruncatedSVD, NMF, PCA, ...)."
            )

    def user_factors(self, X):
        """The users' side of the scores: ``transform(X)`` (and a column of ones
        for a decomposition that centres the data).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_users, n_items)
            The users' interactions (the input part).

        Returns
        -------
        user_factors : ndarray of shape (n_users, n_factors)
        """
        check_is_fitted(self, "item_factors_")
        W = np.asarray(self.estimator_.transform(X), dtype=np.float64)
        if self._centred:
            W = np.hstack([W, np.ones((W.shape[0], 1))])
        return W

    def predict(self, X):
        """Scores of every item for the users of ``X``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_users, n_items)
            The users' interactions (the input part).

        Returns
        -------
        scores : ndarray of shape (n_users, n_items)
            ``user_factors(X) @ item_factors_.T``; rank each row, excluding
            the items the user has (``exclude_seen=True`` in the scorers).
        """
        return self.user_factors(X) @ self.item_factors_.T
