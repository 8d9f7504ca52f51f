"""Fixtures shared by the test files."""

import os
import sys
import warnings

import pytest

import sklearn_rankmetrics
from tests._peer import need_peer

# the fixtures that read the peers' data; a test using one is marked
# "peer_data" (tests/test_peer_data.py runs them without the data)
_PEER_FIXTURES = ("peer_data", "trec_eval_data", "lambdarank_data")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "peer_data: reads ../shared/peer-data (skips without it)"
    )


def pytest_collection_modifyitems(config, items):
    for item in items:
        if any(name in getattr(item, "fixturenames", ()) for name in _PEER_FIXTURES):
            item.add_marker(pytest.mark.peer_data)


@pytest.fixture(scope="session")
def peer_data():
    """``peer_data(name)``: the path of ``name`` in the peers' data; the
    test skips when it is absent (see tests/_peer.py)."""
    return need_peer


@pytest.fixture(scope="session")
def trec_eval_data():
    """trec_eval's regression data (qrels.test, results.test, out.test.*);
    the test skips when it is absent."""
    return need_peer("trec_eval")


@pytest.fixture(scope="session")
def lambdarank_data():
    """LightGBM's lambdarank example (rank.train, rank.test and their
    .query files); the test skips when it is absent."""
    return need_peer("lightgbm_lambdarank")


_PACKAGE_DIR = os.path.dirname(os.path.abspath(sklearn_rankmetrics.__file__)) + os.sep
_warn = warnings.warn


def _warn_pointing_outside(message, category=None, stacklevel=1, *args, **kwargs):
    """``warnings.warn``, checking that a warning of this package points at
    code outside it (the user's line), whichever surface raised it."""
    caller = sys._getframe(1)
    if caller.f_code.co_filename.startswith(_PACKAGE_DIR):
        try:
            target = sys._getframe(stacklevel)
        except ValueError:  # past the stack's top: attributed to "sys"
            target = None
        where = None if target is None else target.f_code.co_filename
        assert where is not None and not where.startswith(_PACKAGE_DIR), (
            f"a warning of the package points into it ({where}, from "
            f"{caller.f_code.co_filename}:{caller.f_lineno}): {message}"
        )
    return _warn(message, category, stacklevel + 1, *args, **kwargs)


@pytest.fixture(autouse=True, scope="session")
def warnings_point_at_the_caller():
    """Every warning that this package raises, in every test, points at the
    first caller outside the package (``user_stacklevel``): a fixed
    ``stacklevel`` is right from one surface only."""
    warnings.warn = _warn_pointing_outside
    yield
    warnings.warn = _warn
