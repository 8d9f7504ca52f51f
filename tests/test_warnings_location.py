"""Warnings point at the user's line, from every surface.

A fixed ``stacklevel`` is right from one surface only: the novelty warning
pointed at the report's own code when ``ranking_report`` raised it through
the beyond-accuracy accumulator.  Every warning of the package now counts
its frames up to the first caller outside the package
(``_validation.user_stacklevel``); tests/conftest.py checks that for every
warning raised anywhere in the suite, and the tests here name the line.
"""

import inspect
import os
import warnings

import numpy as np
import pytest

import sklearn_rankmetrics as srm
from sklearn_rankmetrics._utils._validation import user_stacklevel

S = np.array([[2.0, 1.0, 0.0], [0.5, 2.0, 1.0]])
Y = np.array([[1, 0, 0], [0, 1, 0]])


def _located(call):
    """The warnings of ``call()`` as ``(message, filename, line)``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [(str(w.message), w.filename, w.lineno) for w in caught]


CALLS = {
    # novelty's items never seen in training: the function, and the report
    # through its beyond-accuracy accumulator (the case that pointed inside)
    "novelty_at_k": lambda: srm.novelty_at_k(Y, S, k=2, item_popularity=[3, 0, 1]),
    "ranking_report, novelty": lambda: srm.ranking_report(
        Y, S, k=2, metrics=["novelty"], item_popularity=[3, 0, 1]
    ),
    # no query can be scored: the mean over queries, and the report
    "ndcg_at_k, no query scored": lambda: srm.ndcg_at_k(np.zeros((2, 3)), S, k=2),
    "ranking_report, no query scored": lambda: srm.ranking_report(
        np.zeros((2, 3)), S, k=2, metrics=["ndcg"]
    ),
    # the comparison: a single query scored
    "compare_rankings, one query": lambda: srm.compare_rankings(
        Y[:1], {"a": S[:1], "b": S[:1, ::-1]}, k=2, metrics=["ndcg"], n_resamples=9
    ),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_warnings_point_at_the_callers_line(name):
    found = _located(CALLS[name])
    assert found, f"{name}: no warning"
    for message, filename, line in found:
        assert filename == __file__, (name, message, filename)
        # the lambda's line in CALLS, the first frame outside the package
        assert line in _lines_of(CALLS[name]), (name, line)


def _lines_of(func):
    """The source lines of the lambda ``func``."""
    source, first = inspect.getsourcelines(func)
    return set(range(first, first + len(source)))


def test_user_stacklevel_counts_the_frames_inside_the_package():
    # two functions compiled as if in the package's own files: called from
    # here, through both, the level of this test's frame (inner 1, outer 2,
    # this test 3); called from outside directly, the caller itself
    import sklearn_rankmetrics._utils._validation as validation

    namespace = {"user_stacklevel": user_stacklevel}
    source = (
        "def inner():\n    return user_stacklevel()\ndef outer():\n    return inner()\n"
    )
    fake = os.path.join(os.path.dirname(os.path.abspath(validation.__file__)), "_x.py")
    exec(compile(source, fake, "exec"), namespace)
    assert namespace["outer"]() == 3
    assert namespace["inner"]() == 2
    assert user_stacklevel() == 1
