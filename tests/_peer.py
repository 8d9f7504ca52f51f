"""Where the peers' data is, for the tests that compare against it.

The data (trec_eval's regression files and source, LightGBM's lambdarank
example) lives outside the repository, in ``shared/peer-data`` beside it:
``../shared/peer-data`` from the repository root, or one folder further up
for a git worktree kept in a subfolder.  ``$RANKMETRICS_PEER_DATA`` names
another folder (an empty or missing one: no peer data).

Every test reads it through :func:`need_peer` (or the ``peer_data`` and
``trec_eval_data`` fixtures of ``tests/conftest.py``, which call it), so
that a test whose data is absent *skips*, with the reason -- never a
FileNotFoundError.  ``tests/test_peer_data.py`` checks that no test finds
the folder another way and that they all skip without it.
"""

import os
from pathlib import Path

import pytest

ENV = "RANKMETRICS_PEER_DATA"
_ROOT = Path(__file__).resolve().parents[1]


def peer_data_root():
    """The peer-data folder, or None when there is none."""
    given = os.environ.get(ENV)
    if given is not None:
        return Path(given) if given and Path(given).is_dir() else None
    for parent in (_ROOT.parent, _ROOT.parent.parent):
        path = parent / "shared" / "peer-data"
        if path.is_dir():
            return path
    return None


def peer_path(name):
    """The path of ``name`` (e.g. ``"trec_eval"``) in the peer data, or None."""
    root = peer_data_root()
    if root is None or not (root / name).exists():
        return None
    return root / name


def need_peer(name):
    """The path of ``name`` in the peer data; skips the calling test (or
    fixture) when it is absent."""
    path = peer_path(name)
    if path is None:
        pytest.skip(
            f"the peers' data {name!r} is absent (../shared/peer-data beside "
            f"the repository, or ${ENV})"
        )
    return path
