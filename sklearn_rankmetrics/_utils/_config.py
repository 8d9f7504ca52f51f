"""Package-wide settings: the number of threads the ranking engine uses.

The settings are thread-local, as scikit-learn's: :func:`set_config` and
:func:`config_context` change them for the calling thread only, and a new
thread starts from the defaults.
"""

import numbers
import os
import sys
import threading
from contextlib import contextmanager

__all__ = ["config_context", "get_config", "set_config"]

_DEFAULTS = {"n_threads": "auto"}
_local = threading.local()


def _local_config():
    if not hasattr(_local, "config"):
        _local.config = dict(_DEFAULTS)
    return _local.config


def _check_n_threads(n_threads):
    if isinstance(n_threads, str) and n_threads == "auto":
        return n_threads
    if isinstance(n_threads, bool) or not isinstance(n_threads, numbers.Integral):
        raise TypeError(
            f"n_threads must be a positive int or 'auto'; got {n_threads!r} of "
            f"type {type(n_threads).__name__}."
        )
    if n_threads < 1:
        raise ValueError(
            f"n_threads must be >= 1, or 'auto' for the CPUs this process may "
            f"use; got n_threads={n_threads}."
        )
    return int(n_threads)


def get_config():
    """The current values of the package settings.

    Returns
    -------
    config : dict
        Keys are the parameters of :func:`set_config`.

    See Also
    --------
    config_context : Change the settings within a ``with`` block.
    set_config : Change the settings.

    Examples
    --------
    >>> import sklearn_rankmetrics as srm
    >>> srm.get_config()
    {'n_threads': 'auto'}
    """
    return dict(_local_config())


def set_config(n_threads=None):
    """Change the package settings for the calling thread.

    Read more in the :ref:`User Guide <performance>`.

    Parameters
    ----------
    n_threads : int >= 1 or "auto", default=None
        Threads the ranking engine may use on large 2-D inputs (their rows
        are processed in chunks, spread over threads).  ``"auto"`` (the
        initial value) uses the CPUs this process may run on, but one
        thread inside a joblib worker (e.g. ``GridSearchCV(n_jobs=4)``) or
        when thread pools are limited with ``threadpoolctl``.  None leaves
        the setting unchanged.  Results do not depend on it.

    See Also
    --------
    config_context : Change the settings within a ``with`` block only.
    get_config : The current settings.

    Examples
    --------
    >>> import sklearn_rankmetrics as srm
    >>> srm.set_config(n_threads=1)
    >>> srm.get_config()["n_threads"]
    1
    >>> srm.set_config(n_threads="auto")
    """
    config = _local_config()
    if n_threads is not None:
        config["n_threads"] = _check_n_threads(n_threads)


@contextmanager
def config_context(*, n_threads=None):
    """Change the package settings within a ``with`` block.

    The previous settings come back when the block exits, even on an
    exception; blocks nest.

    Read more in the :ref:`User Guide <performance>`.

    Parameters
    ----------
    n_threads : int >= 1 or "auto", default=None
        See :func:`set_config`.  None keeps the current value.

    Yields
    ------
    None

    See Also
    --------
    set_config : Change the settings for good.
    get_config : The current settings.

    Examples
    --------
    >>> import numpy as np
    >>> import sklearn_rankmetrics as srm
    >>> y_true, y_score = np.eye(3, 4), np.arange(12.0).reshape(3, 4)
    >>> with srm.config_context(n_threads=1):
    ...     srm.ndcg_at_k(y_true, y_score, k=2)
    0.210...
    """
    config = _local_config()
    previous = dict(config)
    set_config(n_threads=n_threads)
    try:
        yield
    finally:
        config.clear()
        config.update(previous)


# ---------------------------------------------------------------------------
# Resolving "auto"
# ---------------------------------------------------------------------------
def _available_cpus():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _in_joblib_worker():
    """Whether this code runs inside a joblib worker (thread or process):
    joblib runs every task under a nested backend (nesting level >= 1).
    Not if joblib is not loaded (importing it costs about 20 MiB)."""
    if "joblib" not in sys.modules:
        return False
    try:
        from joblib.parallel import get_active_backend

        backend, _ = get_active_backend()
        return (getattr(backend, "nesting_level", 0) or 0) >= 1
    except Exception:  # a joblib without this private helper: assume not
        return False


def _threadpool_limit():
    """The smallest thread count of the loaded BLAS/OpenMP pools: 1 under
    ``threadpoolctl.threadpool_limits(1)``, and ``cpus // n_jobs`` in a
    loky worker (joblib limits its workers' pools)."""
    try:
        from threadpoolctl import threadpool_info

        counts = [info["num_threads"] for info in threadpool_info()]
    except Exception:  # no threadpoolctl: no limit known
        return None
    return min(counts) if counts else None


def effective_n_threads(n_tasks):
    """Threads to run ``n_tasks`` independent chunks on (1 when there is
    nothing to share).  Costs about a millisecond with ``"auto"``, so only
    asked for large inputs."""
    if n_tasks <= 1:
        return 1
    n_threads = _local_config()["n_threads"]
    if n_threads == "auto":
        if _in_joblib_worker():
            return 1
        n_threads = _available_cpus()
        limit = _threadpool_limit()
        if limit is not None:
            n_threads = min(n_threads, limit)
    return max(1, min(n_threads, n_tasks))
