"""Fixtures shared by the test files."""

import pytest

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
